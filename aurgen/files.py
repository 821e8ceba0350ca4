"""The one writer: every file aurgen writes goes through here.

A file is written to a temp file beside its target and moved into place with
``os.replace``, so a reader never sees half a file. A *set* of files (one
vehicle's four files, a world's two) is staged in full before the first
rename, so a failure while staging leaves every target untouched. New files
get the permissions any other tool would give them: ``0o666`` less the user's
umask (0644 under umask 022), not ``mkstemp``'s 0600.
"""

from __future__ import annotations

import os
import tempfile
from pathlib import Path
from typing import Callable

TMP_PREFIX = ".aurgen-"


def umask() -> int:
    """The process umask, read without changing it where the OS allows (Linux ``/proc``)."""
    try:
        with open("/proc/self/status", encoding="ascii") as fh:
            for line in fh:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)  # elsewhere: the classic read (set, then restore)
    os.umask(mask)
    return mask


def file_mode() -> int:
    """Mode for a new regular file: 0o666 less the umask."""
    return 0o666 & ~umask()


def dir_mode() -> int:
    """Mode for a new directory: 0o777 less the umask."""
    return 0o777 & ~umask()


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


def write_set(files: dict[Path, str]) -> list[Path]:
    """Write ``{target: text}`` as a set: all staged first, then all moved into place.

    If staging any file fails, the temp files are removed and no target is
    touched. Returns the targets in the given order.
    """
    staged: list[tuple[Path, Path]] = []
    try:
        for target, text in files.items():
            staged.append((_stage(Path(target), _text_filler(text)), Path(target)))
    except BaseException:
        for tmp, _ in staged:
            _unlink(tmp)
        raise
    for tmp, target in staged:
        os.replace(tmp, target)
    return [t for _, t in staged]


def write_text(target: Path, text: str) -> Path:
    """Write one text file atomically (UTF-8, ``\\n`` line ends)."""
    return write_set({Path(target): text})[0]


def write_with(target: Path, fill: Callable[[Path], None]) -> Path:
    """Write one file atomically through ``fill(tmp_path)``, which writes the whole file
    (a CSV writer, ``matplotlib``'s ``savefig``). The target is replaced only if ``fill`` returns."""
    target = Path(target)
    tmp = _stage(target, fill)
    os.replace(tmp, target)
    return target


def staging_dir(beside: Path) -> Path:
    """A new empty directory next to ``beside`` (same file system, so it can be renamed into
    place), with the umask's directory mode."""
    beside = Path(beside)
    beside.parent.mkdir(parents=True, exist_ok=True)
    d = Path(tempfile.mkdtemp(dir=beside.parent, prefix=TMP_PREFIX))
    os.chmod(d, dir_mode())
    return d
