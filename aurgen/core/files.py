"""The one writer: every file aurgen writes goes through here.

A file is written to a temp file beside its target and moved into place with
``os.replace``, so a reader never sees half a file. A *set* of files (one
vehicle's four files, a world's two) is staged in full before the first
rename, so a failure while staging leaves every target untouched. New files
get the permissions any other tool would give them: ``0o666`` less the user's
umask (0644 under umask 022), not ``mkstemp``'s 0600.

Output folders (``write_set(files, root=...)``, ``claim_dir``):

- every target must lie inside the output root; each folder below the root is
  opened name by name from the root's descriptor with ``O_NOFOLLOW``, and the
  lock, marker, temp and final files are opened and renamed relative to it
  (aurgen.core.outdir): a link planted anywhere below the root is refused, never
  followed;
- every check is made before the first write (``preflight``): a refusal writes
  nothing, not even a folder or a lock;
- a folder aurgen writes carries the marker ``.aurgen``, which lists the files
  aurgen wrote and the temp files it staged; aurgen writes into an existing
  folder only if it has the marker, or is empty, or holds nothing but
  aurgen-generated files; otherwise it refuses, naming a file that is not its
  own, and touches nothing;
- the set is written under an exclusive ``fcntl`` lock on each target folder
  (``.aurgen.lock``), so concurrent runs are serialised; under the lock, temp
  files a killed run left behind (those the marker lists) are removed first.
"""

from __future__ import annotations

import contextlib
import functools
import os
import tempfile
from pathlib import Path
from typing import Callable

from aurgen.core.outdir import (GENERATED, LOCK, MARKER, TMP_PREFIX, OutputError, _NOFOLLOW, _opened,  # noqa: F401
                                _stage_at, _unlink_at, _write_marker, check_dir, check_file, file_mode,
                                replace_file, umask)
from aurgen.core.outdir import preflight as _preflight


def _stage(target: Path, fill: Callable[[Path], None]) -> Path:
    """A temp file beside ``target``, filled by ``fill(tmp_path)`` and given the umask mode."""
    target.parent.mkdir(parents=True, exist_ok=True)
    fd, tmp = tempfile.mkstemp(dir=target.parent, prefix=TMP_PREFIX, suffix=".tmp")
    os.close(fd)
    try:
        fill(Path(tmp))
        os.chmod(tmp, file_mode())
    except BaseException:
        _unlink(tmp)
        raise
    return Path(tmp)


def _unlink(path) -> None:
    try:
        os.unlink(path)
    except OSError:
        pass


def _text_filler(text: str) -> Callable[[Path], None]:
    def fill(tmp: Path) -> None:
        with open(tmp, "w", encoding="utf-8", newline="\n") as fh:
            fh.write(text)
    return fill


def _filler(content) -> Callable[[Path], None]:
    """How a set's entry fills its temp file: text (UTF-8, LF), bytes as they are, or a callable."""
    if isinstance(content, str):
        return _text_filler(content)
    if isinstance(content, bytes):
        def fill(tmp: Path) -> None:
            with open(tmp, "wb") as fh:
                fh.write(content)
        return fill
    return content


def _os_refusal(fn):
    """``fn`` (a public writer here) with the operating system's refusals (OSError) raised as an
    OutputError naming the path and the reason, so the CLI reports it as bad input (exit 2)
    instead of a traceback. A temp file's name is reported as its folder (the temp file is
    aurgen's, the folder is the user's); the staged temp files are already removed."""

    @functools.wraps(fn)
    def wrapper(*args, **kwargs):
        try:
            return fn(*args, **kwargs)
        except OSError as exc:
            named = exc.filename and os.path.isabs(os.fsdecode(exc.filename))  # a dir_fd call names no folder
            where = Path(os.fsdecode(exc.filename)) if named else _subject(args, kwargs)
            if where is not None and where.name.startswith(TMP_PREFIX):
                where = where.parent
            what = f"{where}: " if where is not None else ""
            raise OutputError(f"{what}cannot write there ({exc.strerror or exc}); choose an output path "
                              f"in a folder you can write to") from None

    return wrapper


def _subject(args, kwargs) -> Path | None:
    """What a writer was asked to write (its ``root``, else its first target), for an OSError
    that names no file."""
    if kwargs.get("root") is not None:
        return Path(kwargs["root"])
    first = args[0] if args else None
    if isinstance(first, dict):
        first = next(iter(first), None)
    return Path(first) if first is not None else None


def confine(root: Path, target: Path) -> Path:
    """``target`` (absolute, symlinks of its folders resolved) if it lies inside ``root``; else
    an OutputError. A target that is itself a symlink is refused too."""
    root_r = Path(os.path.realpath(root))
    target = Path(os.path.abspath(target))
    if target == Path(os.path.abspath(root)):
        return root_r  # the root itself (a folder the user named): its own path is theirs to choose
    parent_r = Path(os.path.realpath(target.parent))
    if not (parent_r == root_r or parent_r.is_relative_to(root_r)):
        raise OutputError(f"{target}: outside the output root {root_r} (a symbolic link?); refusing to write")
    if os.path.islink(target):
        raise OutputError(f"{target}: a symbolic link; refusing to write through it")
    return parent_r / target.name


preflight = _os_refusal(_preflight)


@_os_refusal
def claim_dir(folder: Path, root: Path | None = None) -> Path:
    """Make ``folder`` an aurgen output folder (inside ``root``; the folder itself without one)
    and return it resolved. Created (with parents) and marked if absent; an existing folder must
    carry the marker, be empty, or hold only aurgen-generated files; else OutputError."""
    folder = Path(os.path.abspath(folder))
    if root is None:
        check_dir(folder)
        root = folder
    preflight([], root, [folder])
    with _opened({folder: []}, root):
        pass
    return Path(os.path.realpath(folder))


@contextlib.contextmanager
def locked(folders):
    """Exclusive fcntl locks on ``folders`` (taken in sorted order, so runs cannot deadlock); the
    lock file opened without following a link."""
    import fcntl

    fds = []
    try:
        for folder in sorted(set(map(str, folders))):
            fd = os.open(os.path.join(folder, LOCK), os.O_RDWR | os.O_CREAT | _NOFOLLOW, file_mode())
            fds.append(fd)
            fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        for fd in reversed(fds):
            os.close(fd)  # closing releases the lock


def _check_targets(targets) -> None:
    for t in targets:
        if os.path.islink(t):
            raise OutputError(f"{t}: a symbolic link; refusing to write through it (nothing was written)")
        if t.exists() and not t.is_file():
            raise OutputError(f"{t}: exists and is not a regular file; nothing was written")


@_os_refusal
def write_set(files: dict, root: Path | None = None, prune=()) -> list[Path]:
    """Write ``{target: text, bytes or fill(tmp_path)}`` as a set: all staged first, then all moved into place.

    With ``root``: every target must lie inside it; every check (:func:`preflight`) is made before
    the first write; each folder is opened name by name from the root without following a link,
    created and marked, and locked while the set is written; its marker lists the temp files
    staged and then the files written (a name is aurgen's only if a marker lists it, or it starts
    with aurgen's header). If staging any file fails, the temp files are removed and no target is
    touched. ``prune`` (with ``root``): folders of the set whose other files aurgen wrote (those
    their marker lists, regular files) are removed once the set is in place: folders that hold
    exactly what this set writes (a vehicle's meshes). Returns the targets in the given order.
    """
    targets = [Path(t) for t in files]
    if root is None:
        _check_targets(targets)
        staged = []
        try:
            for target, text in zip(targets, files.values()):
                staged.append((_stage(target, _filler(text)), target))
        except BaseException:
            for tmp, _ in staged:
                _unlink(tmp)
            raise
        for tmp, target in staged:
            os.replace(tmp, target)
        return targets
    preflight(targets, root)  # a refusal writes nothing: not even a folder or a lock
    groups: dict = {}
    for t in targets:
        groups.setdefault(Path(os.path.abspath(t.parent)), []).append(t.name)
    with _opened(groups, root) as fds:
        staged: list = []
        try:
            for target, text in zip(targets, files.values()):
                folder = Path(os.path.abspath(target.parent))
                fd, m = fds[folder]
                filler = _filler(text)
                staged.append((fd, _stage_at(fd, folder, filler, m), target.name, m))
        except BaseException:
            for fd, tmp, _, m in staged:
                _unlink_at(fd, tmp)
                m.tmps.discard(tmp)
            for fd, m in {id(m): (fd, m) for fd, _, _, m in staged}.values():
                with contextlib.suppress(OSError):
                    _write_marker(fd, m)
            raise
        for fd, tmp, name, m in staged:
            os.replace(tmp, name, src_dir_fd=fd, dst_dir_fd=fd)
            m.tmps.discard(tmp)
            m.files.add(name)
        pruned = {Path(os.path.abspath(p)) for p in prune}
        for folder, (fd, m) in fds.items():
            if folder in pruned:
                _prune(fd, m, set(groups[folder]))
        for fd, m in {id(m): (fd, m) for fd, _, _, m in staged}.values():
            m.legacy = False
            _write_marker(fd, m)
    return targets


def _prune(fd: int, m, keep: set) -> None:
    """Remove the files of folder ``fd`` that its marker ``m`` lists and ``keep`` does not (regular
    files only, never through a link); they leave the marker."""
    import stat

    for name in sorted(m.files - keep):
        st = os.lstat(name, dir_fd=fd) if _exists_at(fd, name) else None
        if st is not None and stat.S_ISREG(st.st_mode):
            with contextlib.suppress(OSError):
                os.unlink(name, dir_fd=fd)
        m.files.discard(name)


def _exists_at(fd: int, name: str) -> bool:
    try:
        os.lstat(name, dir_fd=fd)
        return True
    except OSError:
        return False


def check_replaceable(target: Path, ours: Callable[[bytes], bool]) -> None:
    """OutputError unless ``target`` is absent, or a regular file whose first bytes ``ours``
    recognises as aurgen's: a file the user names for an output (``aurgen sim --out``) is
    replaced only if aurgen wrote it, never a file of theirs (or the model being simulated), and
    never through a link (aurgen.core.outdir.check_file: read from its folder's descriptor)."""
    check_file(Path(target), ours)


@_os_refusal
def write_with(target: Path, fill: Callable[[Path], None], ours: Callable[[bytes], bool] | None = None) -> Path:
    """Write one file atomically through ``fill(tmp_path)``, which writes the whole file
    (a CSV writer, ``matplotlib``'s ``savefig``). The target is replaced only if ``fill`` returns,
    and, with ``ours``, only if it is absent or aurgen's (:func:`check_replaceable`); the temp file
    and the rename are relative to the folder's descriptor, never through a link
    (aurgen.core.outdir.replace_file)."""
    return replace_file(Path(target), fill, ours)


@_os_refusal
def append_text(target: Path, text: str, root: Path) -> Path:
    """Append ``text`` (UTF-8) to ``target``, a journal written row by row (``aurgen sweep``'s results).

    Confined to ``root`` and its folder claimed as :func:`write_set` does; appended under the
    folder's lock in one ``O_APPEND`` write, so concurrent appends do not interleave; the file is
    created with the umask mode if absent; a symbolic link or a non-regular file is refused.
    """
    target = Path(target)
    folder = Path(os.path.abspath(target.parent))
    preflight([target], root)
    with _opened({folder: [target.name]}, root) as fds:
        fd, m = fds[folder]
        if target.name not in m.files:
            m.files.add(target.name)
            _write_marker(fd, m)
        f = os.open(target.name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | _NOFOLLOW, file_mode(), dir_fd=fd)
        try:
            data = text.encode("utf-8")
            while data:
                data = data[os.write(f, data):]
        finally:
            os.close(f)
    return Path(os.path.realpath(folder)) / target.name
