// Registers aurgen.hydrostatics with MuJoCo when the library is loaded
// (import mujoco loads it through the mujoco.plugins entry point): the plugin's
// callbacks, each calling the instance (hydro.h) of its mjData.
//
// Which instance is whose.  d->plugin_data[instance] holds a slot number (plus 1), never a
// pointer: a slot (below) names the mjData it belongs to and that mjData's instance.  A
// callback uses the slot in plugin_data only when it names d; else it takes d's own slot
// from the registry and writes it back.  MuJoCo's Python bindings pickle an mjData by
// copying its buffer, plugin_data included, over the one mj_makeData made (whose init gave
// it a slot of its own): the copy's plugin_data then names the original's slot (or, from
// another process, any number), which once freed a pickled copy's step read freed memory.
// The copy's own instance is a Hydro of the same model, and everything a step carries on
// lives in plugin_state, which the copy holds: it steps bitwise as the original.  A slot
// is never freed (recycled), so checking one never reads freed memory; its owner is
// atomic, so a slot recycled on another thread is never taken for d's.
#include <mujoco/mjplugin.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <map>
#include <mutex>
#include <utility>
#include <vector>

#include "hydro.h"

namespace aurgen::hydro {
namespace {

struct Slot {
  std::atomic<const mjData*> owner{nullptr};  // the mjData whose instance this is; null: free
  std::atomic<const mjtNum*> state{nullptr};  // its instance's plugin_state (reset's test)
  Hydro* h = nullptr;                          // its instance (null: its copy failed)
};

// The slots, in chunks allocated on demand and never freed: slot i is chunk i >> kBits, entry
// i & (kChunk - 1).  Reads are lock-free (a chunk pointer, once set, never changes); taking and
// freeing slots, and the registry of each (mjData, instance)'s slot, hold the registry's mutex.
constexpr int kBits = 10, kChunk = 1 << kBits, kMaxChunks = 1 << 14;  // 16 million slots
std::atomic<Slot*> g_chunks[kMaxChunks];
struct Registry {
  std::mutex mu;
  uint64_t next = 0;                                 // slots handed out so far
  std::vector<uint64_t> free;                        // freed slots, to recycle
  std::map<std::pair<const mjData*, int>, uint64_t> slot;  // each live (mjData, instance)'s slot
};
// never destroyed: an mjData freed at exit, after the library's statics, still finds it
Registry& Reg() {
  static Registry* r = new Registry;
  return *r;
}

// Slot i, or null when i names none (another process's number, or a corrupted one).
Slot* At(uint64_t i) {
  if (i >> kBits >= static_cast<uint64_t>(kMaxChunks)) return nullptr;
  Slot* c = g_chunks[i >> kBits].load(std::memory_order_acquire);
  return c ? c + (i & (kChunk - 1)) : nullptr;
}

// d's instance freed and its slot recycled (the registry's mutex held).
void FreeLocked(Registry& r, const mjData* d, int instance) {
  auto it = r.slot.find({d, instance});
  if (it == r.slot.end()) return;
  Slot* s = At(it->second);
  s->owner.store(nullptr, std::memory_order_release);
  s->state.store(nullptr, std::memory_order_release);
  delete s->h;
  s->h = nullptr;
  r.free.push_back(it->second);
  r.slot.erase(it);
}

// A slot for d's new instance h (its state at st); plugin_data's value for it, or 0 when none is left.
uintptr_t Take(const mjData* d, int instance, const mjtNum* st, Hydro* h) {
  Registry& r = Reg();
  std::lock_guard<std::mutex> lock(r.mu);
  FreeLocked(r, d, instance);  // an init again without a destroy (MuJoCo does not): the old instance goes
  uint64_t i;
  if (!r.free.empty()) {
    i = r.free.back();
    r.free.pop_back();
  } else {
    if (r.next >= static_cast<uint64_t>(kChunk) * kMaxChunks) return 0;
    i = r.next++;
    if ((i & (kChunk - 1)) == 0) g_chunks[i >> kBits].store(new Slot[kChunk], std::memory_order_release);
  }
  Slot* s = At(i);
  s->h = h;
  s->state.store(st, std::memory_order_release);
  s->owner.store(d, std::memory_order_release);
  r.slot[{d, instance}] = i;
  return static_cast<uintptr_t>(i + 1);
}

// d's own slot: the one plugin_data names when it is d's, else the registry's (written back to
// plugin_data); null when d has none (its init failed).
Slot* Own(mjData* d, int instance) {
  const uintptr_t v = d->plugin_data[instance];
  if (v != 0) {
    Slot* s = At(static_cast<uint64_t>(v) - 1);
    if (s && s->owner.load(std::memory_order_acquire) == d) return s;
  }
  Registry& r = Reg();
  std::lock_guard<std::mutex> lock(r.mu);
  auto it = r.slot.find({d, instance});
  if (it == r.slot.end()) return nullptr;
  d->plugin_data[instance] = static_cast<uintptr_t>(it->second + 1);
  return At(it->second);
}

void Free(const mjData* d, int instance) {
  Registry& r = Reg();
  std::lock_guard<std::mutex> lock(r.mu);
  FreeLocked(r, d, instance);
}

Hydro* InstanceOf(mjData* d, int instance) {
  Slot* s = Own(d, instance);
  return s ? s->h : nullptr;
}

}  // namespace

void Hydro::RegisterPlugin() {
  mjpPlugin p;
  mjp_defaultPlugin(&p);
  p.name = kPluginName;
  p.capabilityflags |= mjPLUGIN_PASSIVE;
  p.nattribute = sizeof(kAttributes) / sizeof(kAttributes[0]);
  p.attributes = kAttributes;
  p.nstate = +[](const mjModel* m, int instance) { return StateSize(m, instance); };
  p.init = +[](const mjModel* m, mjData* d, int instance) {
    std::unique_ptr<Hydro> h = Hydro::Create(m, d, instance);
    if (!h) return -1;
    // a new mjData: no reset tally yet (mj_resetData, next, keeps it)
    mjtNum* st = d->plugin_state + m->plugin_stateadr[instance];
    std::fill_n(st, m->plugin_statenum[instance], 0.0);
    const uintptr_t v = Take(d, instance, st, h.get());
    if (v == 0) {
      mju_warning("%s instance %d: more than %d mjData hold an instance at once", kPluginName, instance,
                  kChunk * kMaxChunks);
      return -1;
    }
    h.release();  // the slot's
    d->plugin_data[instance] = v;
    return 0;
  };
  p.destroy = +[](mjData* d, int instance) {
    Free(d, instance);  // d's own instance (plugin_data may name another mjData's)
    d->plugin_data[instance] = 0;
  };
  p.copy = +[](mjData* dest, const mjModel* m, const mjData* src, int instance) {
    (void)src;
    // a fresh instance for the copy (the model scan is deterministic); the
    // ledger state is in plugin_state, which mj_copyData copies
    Slot* s = Own(dest, instance);
    if (!s) return;
    delete s->h;
    s->h = Hydro::Create(m, dest, instance).release();
  };
  p.reset = +[](const mjModel* m, mjtNum* state, void* data, int instance) {
    // data: plugin_data's value; its slot is this state's only if it holds this state
    const Slot* s = data ? At(reinterpret_cast<uintptr_t>(data) - 1) : nullptr;
    if (s && s->state.load(std::memory_order_acquire) == state && s->h) {
      s->h->Reset(m, state);
    } else if (data) {  // another mjData's number (a byte copy of its buffer): the model's values
      Hydro::ResetFromModel(m, instance, state);
    } else {
      std::fill_n(state, StateSize(m, instance), 0.0);
      state[Layout(m->nv, 2).record] = 1;
    }
  };
  p.compute = +[](const mjModel* m, mjData* d, int instance, int) {
    if (Hydro* h = InstanceOf(d, instance)) h->Compute(m, d, instance);
  };
  p.advance = +[](const mjModel* m, mjData* d, int instance) {
    if (Hydro* h = InstanceOf(d, instance)) h->Advance(m, d, instance);
  };
  p.visualize = +[](const mjModel* m, mjData* d, const mjvOption* opt, mjvScene* scn, int instance) {
    if (const Hydro* h = InstanceOf(d, instance)) h->Visualize(m, d, opt, scn);
  };
  mjp_registerPlugin(&p);
}

mjPLUGIN_LIB_INIT(aurgen_hydrostatics) { Hydro::RegisterPlugin(); }

}  // namespace aurgen::hydro
