"""Text in, batches out: read a file (or the built-in corpus), map its characters to ids, split
90/10, draw random windows.

Memory stays a small multiple of the text's size: the file's bytes, its decoded text, and one
id per character in the smallest unsigned integer type that holds the vocabulary (one byte for
up to 256 distinct characters), converted a slice at a time.
"""
from __future__ import annotations

import os
import stat
from pathlib import Path

import numpy as np

import minigrad
import models
import train

from .errors import UsageError

PACKAGES = (minigrad, models, train)
MEMORY_PER_BYTE = 3  # bytes of memory per byte of FILE: its bytes, the text, the ids (ASCII)
ENCODE_SLICE = 1 << 16  # characters converted at a time: little memory, few numpy calls


def default_corpus() -> tuple[str, list[Path]]:
    """minigrad's own source and docs: every *.py and *.md of the installed packages, plus the
    README and docs/ beside them when present (a source checkout). Sorted, so always the same."""
    files: set[Path] = set()
    for package in PACKAGES:
        root = Path(package.__file__).resolve().parent
        files.update(root.rglob("*.py"))
        files.update(root.rglob("*.md"))
    project = Path(minigrad.__file__).resolve().parent.parent
    files.update(p for p in [project / "README.md"] if p.is_file())
    files.update((project / "docs").glob("*.md"))
    ordered = sorted(files)
    text = "\n".join(p.read_text(encoding="utf-8") for p in ordered)
    return text, ordered


def available_memory() -> int | None:
    """Bytes of memory the system can give without swapping (Linux's MemAvailable), else its
    physical memory, if known."""
    try:
        with open("/proc/meminfo", "rb") as f:
            for line in f:
                if line.startswith(b"MemAvailable:"):
                    return int(line.split()[1]) * 1024
    except (OSError, ValueError, IndexError):
        pass
    try:
        return os.sysconf("SC_PAGE_SIZE") * os.sysconf("SC_PHYS_PAGES")
    except (AttributeError, ValueError, OSError):
        return None


KINDS = [(stat.S_ISDIR, "a directory; give a text file inside it"),
         (stat.S_ISFIFO, "a FIFO (named pipe), not a regular file; save the text to a file first"),
         (stat.S_ISCHR, "a device, not a regular file; give a text file"),
         (stat.S_ISBLK, "a device, not a regular file; give a text file"),
         (stat.S_ISSOCK, "a socket, not a regular file; give a text file")]


def unreadable(path: Path, err: OSError) -> UsageError:
    return UsageError(f"{path}: cannot read it ({err.strerror}); give a text file you can read")


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The file's text, or a UsageError saying what is wrong with it and what to do.

    Only regular files: a FIFO could block forever and a device could be endless. The size is
    checked against the memory available before anything is read."""
    path = Path(path)
    try:
        # O_NONBLOCK: opening a FIFO that has no writer returns at once instead of waiting
        fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))  # (none on Windows)
    except FileNotFoundError:
        raise UsageError(f"{path}: no such file; give the path of a text file to train "
                         f"on") from None
    except OSError as err:
        raise unreadable(path, err) from None
    info = os.fstat(fd)
    for is_kind, what in KINDS:
        if is_kind(info.st_mode):
            os.close(fd)
            raise UsageError(f"{path} is {what}")
    with os.fdopen(fd, "rb") as f:
        size = info.st_size  # 0 for the files of /proc and /sys too, which are not empty
        available = available_memory()
        if available is not None and size * MEMORY_PER_BYTE > available:
            raise UsageError(f"{path} is {size / 1e9:.1f} GB; reading it needs about "
                             f"{size * MEMORY_PER_BYTE / 1e9:.1f} GB of memory but "
                             f"{available / 1e9:.1f} GB is available: train on a part of it "
                             f"(e.g. head -c 100M FILE > part.txt)")
        try:
            raw = f.read(size) if size else f.read()  # one that grows meanwhile: as it was
        except OSError as err:
            raise unreadable(path, err) from None
    if not raw:
        raise UsageError(f"{path} is empty; give a file with some text in it")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise UsageError(f"{path}: byte {err.start} (line {line}) is not valid {encoding}; pass "
                         f"--encoding with the file's encoding (e.g. --encoding latin-1)") from None
    except UnicodeError as err:  # a decoder that does not say where (punycode, idna)
        raise UsageError(f"{path} is not valid {encoding} ({err}); pass --encoding with the "
                         f"file's encoding (e.g. --encoding utf-8)") from None


def vocabulary(text: str) -> list[str]:
    """The text's distinct characters in code point order (any Unicode, NUL included)."""
    return sorted(set(text))


def id_dtype(vocab_size: int) -> np.dtype:
    """The smallest unsigned integer type that holds ids 0 .. vocab_size - 1."""
    return np.dtype(np.min_scalar_type(max(vocab_size - 1, 0)))


def encode(text: str, vocab: list[str]) -> np.ndarray:
    """The id of each character of `text` in `vocab`, as `id_dtype(len(vocab))`; a UsageError
    names the characters the vocabulary lacks."""
    codes = np.array([ord(c) for c in vocab], dtype=np.int64)
    table = np.full(codes.max() + 2, -1, dtype=np.int32)  # code point -> id; -1: not in vocab
    table[codes] = np.arange(len(vocab), dtype=np.int32)
    ids = np.empty(len(text), dtype=id_dtype(len(vocab)))
    for start in range(0, len(text), ENCODE_SLICE):
        piece = text[start:start + ENCODE_SLICE]
        # surrogatepass: a text may hold lone surrogates (e.g. from --encoding raw_unicode_escape)
        points = np.frombuffer(piece.encode("utf-32-le", "surrogatepass"), dtype=np.uint32)
        # code points past the table's end (all unknown) read its last entry, a -1
        piece_ids = table[np.minimum(points, len(table) - 1)]
        if (piece_ids < 0).any():
            unknown = "".join(sorted(set(piece) - set(vocab)))
            raise UsageError(f"the text holds characters that are not in the model's "
                             f"vocabulary: {unknown!r}; train on a text made of the characters "
                             f"the model knows, or start a new run")
        ids[start:start + len(piece)] = piece_ids
    return ids


def split(data: np.ndarray, block_size: int) -> tuple[np.ndarray, np.ndarray]:
    """First 90% for training, last 10% for validation; each must hold one window + 1 token."""
    if len(data) < block_size + 1:
        raise UsageError(f"the text has {len(data)} characters but --block-size {block_size} "
                         f"needs at least {block_size + 1}; use a longer text or a smaller "
                         f"--block-size")
    n = int(0.9 * len(data))
    train_data, val_data = data[:n], data[n:]
    if len(val_data) < block_size + 1:
        # a short text: validate on its tail window, overlapping training, rather than refuse
        val_data = data[-(block_size + 1):]
    if len(train_data) < block_size + 1:
        train_data = data[: block_size + 1]
    return train_data, val_data


def get_batch(data: np.ndarray, batch_size: int, block_size: int,
              rng: np.random.Generator) -> tuple[np.ndarray, np.ndarray]:
    """`batch_size` random windows: inputs x and the next-character targets y, (batch, block),
    as int64 whatever type `data` stores its ids in."""
    starts = rng.integers(0, len(data) - block_size, size=batch_size)
    windows = starts[:, None] + np.arange(block_size)
    return data[windows].astype(np.int64), data[windows + 1].astype(np.int64)
