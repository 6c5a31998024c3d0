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
from pathlib import Path
from typing import IO, Any, BinaryIO, Callable, Mapping

import numpy as np

from .tensor import Tensor

__all__ = ["load", "save"]


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
        replace_atomically(Path(f), lambda out: np.savez(out, **arrays))
    else:
        np.savez(f, **arrays)


def load(f: str | os.PathLike | IO[bytes]) -> dict[str, np.ndarray]:
    """The dict `save` wrote, each value a numpy array (load_state_dict takes them)."""
    with np.load(f, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


def replace_atomically(path: Path, write: Callable[[BinaryIO], Any]) -> None:
    """Call `write` on a temporary file beside `path`, then rename it over `path`: readers see
    the old content or the new, never a mix, and a failure leaves no temporary file."""
    temporary = path.with_name(f".minigrad-{path.name}.tmp")
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
