"""Text in, batches out: read a file (or the built-in corpus), split 90/10, draw random windows."""
from __future__ import annotations

from pathlib import Path

import numpy as np

import minigrad
import models
import train

from .errors import UsageError

PACKAGES = (minigrad, models, train)


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


def read_text(path: str | Path, encoding: str = "utf-8") -> str:
    """The file's text, or a UsageError saying what is wrong with it and what to do."""
    path = Path(path)
    if not path.exists():
        raise UsageError(f"{path}: no such file; give the path of a text file to train on")
    if path.is_dir():
        raise UsageError(f"{path} is a directory; give a text file inside it")
    try:
        raw = path.read_bytes()
    except OSError as err:
        raise UsageError(f"{path}: cannot read it ({err.strerror})") from None
    if not raw:
        raise UsageError(f"{path} is empty; give a file with some text in it")
    try:
        return raw.decode(encoding)
    except UnicodeDecodeError as err:
        line = raw.count(b"\n", 0, err.start) + 1
        raise UsageError(f"{path}: byte {err.start} (line {line}) is not valid {encoding}; pass "
                         f"--encoding with the file's encoding (e.g. --encoding latin-1)") from None
    except LookupError:
        raise UsageError(f"unknown --encoding {encoding!r}; try utf-8 or latin-1") from None


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
    """`batch_size` random windows: inputs x and the next-character targets y, (batch, block)."""
    starts = rng.integers(0, len(data) - block_size, size=batch_size)
    offsets = np.arange(block_size)
    x = data[starts[:, None] + offsets]
    y = data[starts[:, None] + offsets + 1]
    return x, y
