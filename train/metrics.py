"""OUT/metrics.jsonl: one JSON object per evaluation, appended as the run goes.

Each row holds `step`, `train_loss`, `val_loss`, `lr` (the learning rate of the step that led
there), `ms_per_step` and `tokens_per_s` (the training speed since the previous row, or since the
run resumed; null when no step was taken since, as at step 0).
"""
from __future__ import annotations

import json
import math
import os
import stat
from pathlib import Path
from typing import Any

from minigrad.serialization import replace_atomically

from .errors import UsageError
from .files import append_line

FILENAME = "metrics.jsonl"
FIELDS = ("step", "train_loss", "val_loss", "lr", "ms_per_step", "tokens_per_s")


def parse_row(line: str) -> dict[str, Any]:
    """One line as a row, or a ValueError saying what is wrong with it."""
    row = json.loads(line)  # json.JSONDecodeError is a ValueError
    if not isinstance(row, dict) or set(row) != set(FIELDS):
        raise ValueError(f"expected an object with the fields {', '.join(FIELDS)}")
    if not (isinstance(row["step"], int) and not isinstance(row["step"], bool) and
            row["step"] >= 0):
        raise ValueError(f"step {row['step']!r} is not an integer >= 0")
    for name in FIELDS[1:]:
        value = row[name]
        if value is None and name in ("ms_per_step", "tokens_per_s"):
            continue
        if isinstance(value, bool) or not isinstance(value, (int, float)) or \
                not math.isfinite(value):
            raise ValueError(f"{name} {value!r} is not a finite number")
    return row


class MetricsLog:
    """The rows of this run so far, and the file they go to.

    The first write of a new run replaces the file (atomically); later ones append. On resume the
    file's good rows up to the checkpoint's step are kept, in increasing step order: if that is
    not the whole file (a damaged line, a step out of order, or rows the checkpoint does not
    cover), the first write replaces it with them.
    """

    def __init__(self, path: Path, rows: list[dict[str, Any]], rewrite: bool) -> None:
        self.path = path
        self.rows = rows
        self._rewrite = rewrite

    @classmethod
    def new(cls, path: Path) -> MetricsLog:
        return cls(path, [], rewrite=True)

    @classmethod
    def resume(cls, path: Path, step: int) -> tuple[MetricsLog, str | None]:
        """The log of a run resumed at `step`, and a one-line warning if the file is damaged."""
        if not path.exists():
            return cls(path, [], rewrite=True), None
        try:
            # O_NONBLOCK: a FIFO put there would block the open until a writer came, and no
            # stop signal could end the wait
            fd = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
            with os.fdopen(fd, "rb") as f:
                if not stat.S_ISREG(os.fstat(fd).st_mode):
                    raise UsageError(f"{path} is not a regular file; move it away to resume "
                                     f"without the earlier metrics")
                content = f.read()
        except OSError as err:
            raise UsageError(f"cannot read {path} ({err.strerror or err}); move it away to "
                             f"resume without the earlier metrics") from None
        rows, damaged = [], []
        for number, line in enumerate(content.split(b"\n"), start=1):
            if not line:
                continue
            try:
                row = parse_row(line.decode("utf-8"))
                if rows and row["step"] <= rows[-1]["step"]:  # the loss chart needs an order
                    raise ValueError(f"step {row['step']} comes after step {rows[-1]['step']}")
                rows.append(row)
            except ValueError as err:  # UnicodeDecodeError and JSONDecodeError included
                damaged.append(f"line {number}: {err}")
        kept = [r for r in rows if r["step"] <= step]
        warning = None
        if damaged:
            warning = (f"{path} has {len(damaged)} damaged line(s), skipped ({damaged[0]}); its "
                       f"{len(kept)} good rows are kept")
        return cls(path, kept, rewrite=bool(damaged) or len(kept) < len(rows)), warning

    def append(self, row: dict[str, Any]) -> None:
        """Record one evaluation; raises OSError if it cannot be written (the file keeps its
        previous content)."""
        if self._rewrite:
            text = "".join(json.dumps(r) + "\n" for r in [*self.rows, row])
            replace_atomically(self.path, lambda f: f.write(text.encode("utf-8")))
            self._rewrite = False
        else:
            append_line(self.path, json.dumps(row))
        self.rows.append(row)
