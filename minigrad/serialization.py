"""Saving and loading state dicts: minigrad.save and minigrad.load, for what torch.save and
torch.load are used for most, a model's or an optimizer's state_dict().

    minigrad.save(model.state_dict(), "model.npz")
    model.load_state_dict(minigrad.load("model.npz"))

The file is a numpy .npz archive, one array per name, read without pickle (so loading a file
runs no code from it). Saving to a path writes a temporary file beside it and renames it over
the old one, so a crash or kill midway leaves the previous file whole.
"""
from __future__ import annotations

import os
import zipfile
from pathlib import Path
from typing import IO, Any, BinaryIO, Callable, Mapping

import numpy as np

from .tensor import Tensor

__all__ = ["load", "save"]

ZIP_MAGIC = b"PK\x03\x04"  # how a .npz file (a zip archive) begins


def save(obj: Mapping[str, Any], f: str | os.PathLike | IO[bytes]) -> None:
    """Write a dict of names to tensors, arrays or numbers (a state_dict) to a path or a binary
    file object."""
    if not isinstance(obj, Mapping) or not all(isinstance(k, str) for k in obj):
        raise TypeError(f"save: expected a dict with str keys (a state_dict), got "
                        f"{type(obj).__name__}")
    arrays = {name: np.asarray(value.data if isinstance(value, Tensor) else value)
              for name, value in obj.items()}
    for name, array in arrays.items():
        if array.dtype == object:
            raise TypeError(f"save: {name!r} is a {type(obj[name]).__name__}, not a tensor, an "
                            f"array or a number")
    if isinstance(f, (str, os.PathLike)):
        replace_atomically(Path(f), lambda out: _write_npz(out, arrays))
    else:
        _write_npz(f, arrays)


class UnreadableEntry(ValueError):
    """An entry of an archive that `load` cannot read as an array (`name`, `reason`)."""

    def __init__(self, name: str, reason: str) -> None:
        super().__init__(f"load: entry {name!r} cannot be read ({reason})")
        self.name, self.reason = name, reason


def _write_npz(f: BinaryIO, arrays: Mapping[str, np.ndarray]) -> None:
    """The .npz layout np.savez writes, one "<name>.npy" entry per array, written directly so
    that any name works (np.savez takes `file` and `allow_pickle` for its own arguments)."""
    with zipfile.ZipFile(f, "w", zipfile.ZIP_STORED, allowZip64=True) as archive:
        for name, array in arrays.items():
            with archive.open(f"{name}.npy", "w", force_zip64=True) as entry:
                np.lib.format.write_array(entry, array, allow_pickle=False)


def load(f: str | os.PathLike | IO[bytes]) -> dict[str, np.ndarray]:
    """The dict `save` wrote, each value a numpy array (load_state_dict takes them). A file
    that is not such an archive (a .npy array, a pickle, a PyTorch file) raises ValueError."""
    if isinstance(f, (str, os.PathLike)):
        with open(f, "rb") as opened:
            return load(opened)
    if f.read(len(ZIP_MAGIC)) != ZIP_MAGIC:  # np.load would read it as a .npy or a pickle
        raise ValueError("load: it is not a .npz archive of arrays (what minigrad.save writes)")
    f.seek(-len(ZIP_MAGIC), os.SEEK_CUR)
    with np.load(f, allow_pickle=False) as archive:
        if not all(entry.endswith(".npy") for entry in archive.zip.namelist()):
            raise ValueError("load: the archive holds entries that are not arrays (a PyTorch "
                             "file?); minigrad reads the .npz files minigrad.save writes")
        arrays = {}
        for name in archive.files:
            try:
                arrays[name] = archive[name]
            except ValueError as err:  # an object array, which only a pickle could read
                raise UnreadableEntry(name, str(err)) from None
        return arrays


def temporary_path(path: Path) -> Path:
    """The temporary file `replace_atomically` writes beside `path`. Only a kill midway (which
    no clean-up survives) leaves one behind; removing it is safe while nothing writes `path`."""
    return path.with_name(f".minigrad-{path.name}.tmp")


def replace_atomically(path: Path, write: Callable[[BinaryIO], Any]) -> None:
    """Call `write` on a temporary file beside `path`, then rename it over `path`: readers see
    the old content or the new, never a mix, and a failure leaves no temporary file."""
    temporary = temporary_path(path)
    try:
        with open(temporary, "wb") as f:
            write(f)
            f.flush()
            os.fsync(f.fileno())
        os.replace(temporary, path)
    except BaseException:
        temporary.unlink(missing_ok=True)
        raise
    _sync_directory(path.parent)  # the rename itself survives a power cut


def _sync_directory(directory: Path) -> None:
    try:
        fd = os.open(directory, os.O_RDONLY)
    except OSError:
        return
    try:
        os.fsync(fd)
    except OSError:
        pass  # some file systems cannot sync a directory; the rename still happened
    finally:
        os.close(fd)
