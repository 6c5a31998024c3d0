"""How a run writes into OUT so that nothing is lost, whatever happens:

- a file is either replaced atomically (minigrad.serialization's `replace_atomically`: a
  temporary file beside it, flushed to disk, renamed over it) or only appended to
  (`append_line`), so a crash, a full disk or a kill at any moment leaves its previous content
  whole;
- one run at a time (`OutDir`): a lock on a file in OUT, which the operating system releases
  when the process ends, even by kill -9; the temporary file that a kill -9 mid-save leaves
  behind is removed by the next run, once it holds the lock.

The names this module creates in OUT start with ".minigrad-", so they never collide with a
user's file.
"""
from __future__ import annotations

import errno
import os
from pathlib import Path
from typing import Any, Iterable

try:
    import fcntl
except ImportError:  # Windows: no flock; keeping to one run per OUT is then up to the user
    fcntl = None  # type: ignore[assignment]

from minigrad.serialization import temporary_path

from .errors import UsageError

LOCK_NAME = ".minigrad-train.lock"


def append_line(path: Path, line: str) -> None:
    """Append one line and flush it to disk; if the write fails, the file is cut back to its
    previous end, so no half line stays behind."""
    # unbuffered: a buffered file's truncate would first flush what the failed write left in
    # its buffer, failing again, and the part of the line that fit on the disk stayed there
    with open(path, "ab", buffering=0) as f:
        end = f.tell()
        data = memoryview(line.encode("utf-8") + b"\n")
        try:
            while data:  # a write may take only a part (the disk fills up): then the rest
                data = data[f.write(data):]
            os.fsync(f.fileno())
        except OSError:
            f.truncate(end)
            raise


def cannot_write(path: Path, reason: str) -> UsageError:
    return UsageError(f"cannot write to --out {path} ({reason}); choose a directory you can "
                      f"write to")


def check_can_write(path: Path) -> None:
    """The UsageError `OutDir` would raise on entering, raised before a run's slow work (reading
    FILE, building the model): `path` must be a directory this process can write into, or one
    it can create (the nearest existing directory above it writable). Creates nothing."""
    existing = path
    while not os.path.lexists(existing) and existing != existing.parent:
        existing = existing.parent
    if not existing.is_dir():
        # lexists: a symbolic link to nothing ends the walk too, and is no file
        what = "a broken symbolic link" if not existing.exists() else "a file"
        if existing == path:
            raise cannot_write(path, f"it is {what}, not a training directory")
        raise cannot_write(path, f"{existing} is {what}, not a directory")
    if not os.access(existing, os.W_OK | os.X_OK):
        read_only = hasattr(os, "statvfs") and os.statvfs(existing).f_flag & os.ST_RDONLY
        reason = os.strerror(errno.EROFS if read_only else errno.EACCES)
        raise cannot_write(path, reason if existing == path else f"{reason}: {existing}")


class OutDir:
    """OUT, held by this run alone while the `with` block runs.

    Entering creates OUT if needed, takes the lock (a second run gets a UsageError naming the
    first one's pid), then removes the temporary files of `written` (the names of the files the
    run replaces atomically) that a killed run left. Leaving releases the lock, removes the lock
    file, and removes the directories it created if the run wrote nothing into them, so a failed
    run leaves no empty OUT behind.
    """

    def __init__(self, path: Path, written: Iterable[str] = ()) -> None:
        self.path = path
        self.lock_path = path / LOCK_NAME
        self.written = tuple(written)
        self._created: list[Path] = []
        self._lock_fd: int | None = None

    def __enter__(self) -> OutDir:
        try:
            self._make_directories()
            self._lock()
            self._remove_leftovers()
        except BaseException:
            self._remove_created()
            raise
        return self

    def __exit__(self, *exc: Any) -> None:
        self._unlock()
        self._remove_created()

    def _unlock(self) -> None:
        if self._lock_fd is not None:
            self.lock_path.unlink(missing_ok=True)  # while still locked: see _lock
            os.close(self._lock_fd)
            self._lock_fd = None

    def _make_directories(self) -> None:
        missing = []
        for directory in [self.path, *self.path.parents]:
            if directory.exists():
                break
            missing.append(directory)
        try:
            for directory in reversed(missing):
                directory.mkdir()
                self._created.append(directory)
            if not self.path.is_dir():
                raise NotADirectoryError(20, "Not a directory")
        except OSError as err:
            raise cannot_write(self.path, err.strerror or str(err)) from None

    def _lock(self) -> None:
        while True:
            try:
                fd = os.open(self.lock_path, os.O_RDWR | os.O_CREAT, 0o644)
            except OSError as err:
                raise cannot_write(self.path, err.strerror or str(err)) from None
            if fcntl is None:
                break
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except BlockingIOError:
                holder = os.read(fd, 32).decode("ascii", "replace").strip()
                os.close(fd)
                pid = f" (pid {holder})" if holder.isdigit() else ""
                raise UsageError(f"another run{pid} is writing {self.path}; wait for it to "
                                 f"finish or stop it, or choose another --out") from None
            except OSError as err:  # a file system without locks
                os.close(fd)
                raise UsageError(f"cannot lock {self.lock_path} ({err.strerror or err}); "
                                 f"choose an --out on a local file system") from None
            # the file may have been removed by the run that held it just before we got the
            # lock: then we hold a lock nobody else can see, so try again on the new file
            try:
                if os.path.samestat(os.fstat(fd), os.stat(self.lock_path)):
                    break
            except FileNotFoundError:
                pass
            os.close(fd)
        self._lock_fd = fd
        try:
            os.ftruncate(fd, 0)
            os.write(fd, f"{os.getpid()}\n".encode())
        except OSError as err:  # a full disk: no checkpoint could be written either
            self._unlock()
            raise cannot_write(self.path, err.strerror or str(err)) from None

    def _remove_leftovers(self) -> None:
        # under the lock only: another run's save in progress writes the same temporary name
        for name in self.written:
            leftover = temporary_path(self.path / name)
            if leftover.is_dir():  # not a file of ours: the user's, left alone
                continue
            try:
                leftover.unlink(missing_ok=True)
            except OSError:  # harmless: the next save replaces it
                pass

    def _remove_created(self) -> None:
        for directory in reversed(self._created):
            try:
                directory.rmdir()  # only if empty: whatever the run wrote stays
            except OSError:
                break
        self._created = []
