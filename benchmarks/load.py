"""Load for the benchmarks: busy processes competing for the cores, as a user's other work
does (`--load N` of train_step.py, generate.py and compare_commits.py)."""
from __future__ import annotations

import os
import subprocess
import sys
import time
from contextlib import contextmanager
from typing import Iterator

BUSY_LOOP = """
import os, sys, time
deadline, parent = float(sys.argv[1]), int(sys.argv[2])
# spin in pure Python until the deadline, or until the benchmark is gone (this process has then
# been re-parented), whichever comes first
x = 0
while time.monotonic() < deadline and os.getppid() == parent:
    for _ in range(100_000):
        x += 1
"""


@contextmanager
def busy_processes(n: int, seconds: float) -> Iterator[list[subprocess.Popen]]:
    """`n` processes each keeping a core busy, for at most `seconds` even if this one crashes
    or is killed (each stops at its own deadline), and stopped when the block ends."""
    deadline = time.monotonic() + seconds  # CLOCK_MONOTONIC: the same clock in every process
    procs: list[subprocess.Popen] = []
    try:
        for _ in range(n):
            procs.append(subprocess.Popen([sys.executable, "-c", BUSY_LOOP, repr(deadline),
                                           str(os.getpid())]))
        time.sleep(min(1.0, seconds))  # let them start and take their cores
        yield procs
    finally:
        for proc in procs:
            proc.terminate()
        for proc in procs:
            proc.wait()
