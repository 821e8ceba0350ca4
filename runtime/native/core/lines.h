// Buffers on cache lines of their own.  An engine plugin's instances live one
// per mjData, and mujoco.batch / mujoco.rollout step them on different threads:
// a buffer an evaluation writes that shared a 64-byte line with another
// instance's data would bounce that line between the cores (false sharing).
// LineVec starts each buffer on a line and rounds its block up to whole lines,
// so nothing else is ever allocated into a line it writes.
#ifndef AURGEN_CORE_LINES_H_
#define AURGEN_CORE_LINES_H_

#include <cstddef>
#include <new>
#include <vector>

namespace aurgen::core {

inline constexpr std::size_t kLine = 64;  // bytes: x86-64's and most ARM cores' line

template <class T>
struct LineAllocator {
  using value_type = T;
  LineAllocator() = default;
  template <class U>
  LineAllocator(const LineAllocator<U>&) noexcept {}  // NOLINT: rebinding
  static std::size_t Bytes(std::size_t n) { return (n * sizeof(T) + kLine - 1) / kLine * kLine; }
  T* allocate(std::size_t n) {
    return static_cast<T*>(::operator new(Bytes(n), std::align_val_t{kLine}));
  }
  void deallocate(T* p, std::size_t n) noexcept {
    ::operator delete(p, Bytes(n), std::align_val_t{kLine});
  }
  template <class U>
  bool operator==(const LineAllocator<U>&) const noexcept { return true; }
  template <class U>
  bool operator!=(const LineAllocator<U>&) const noexcept { return false; }
};

// A std::vector whose storage is whole cache lines of its own (see above): for
// the buffers an evaluation writes.
template <class T>
using LineVec = std::vector<T, LineAllocator<T>>;

}  // namespace aurgen::core

#endif  // AURGEN_CORE_LINES_H_
