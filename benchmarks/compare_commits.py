"""A baby-GPT training step of two commits of this repository, timed interleaved in one run.

    python benchmarks/compare_commits.py BASE [HEAD] [--steps 40] [--block 5] [--threads N]
                                         [--load N]

Each commit is checked out (`git worktree`) into a temporary folder and runs in its own Python
process; the driver alternates blocks of steps between the two processes, so both meet the same
moments of a shared, noisy machine. One step is forward, backward, gradient clipping and AdamW
on nanoGPT's baby GPT (batch 12 x 64) in one Python thread, with each commit's default ops, or
with `--threads N` data parallel over N threads as `python -m train` runs it (both commits need
train/parallel.py). `--load N` times everything while N busy processes compete for the cores.
The first step of every block is untimed: BLAS threads spin for a while after their last call and
would otherwise steal the next block's cores.
"""
from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
import tempfile
from contextlib import nullcontext
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a source checkout

from benchmarks.cli import add_json_option, at_least  # noqa: E402
from benchmarks.load import busy_processes  # noqa: E402

WORKER = r"""
import json, sys, time
import numpy as np
sys.path.insert(0, sys.argv[1])
import minigrad
from minigrad import optim
from models import GPT, GPTConfig
if hasattr(minigrad, "keep_freed_memory"):
    minigrad.keep_freed_memory()  # a no-op on commits that did it on import
model = GPT(GPTConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128), seed=0)
opt = optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)
rng = np.random.default_rng(0)
threads = int(sys.argv[2])
if threads > 1:
    from train.parallel import DataParallel
    parallel = DataParallel(model, threads)


def step():
    x = rng.integers(0, 65, (12, 64))
    y = np.roll(x, -1, axis=1)
    if threads > 1:
        parallel.backward(x, y)
    else:
        _, loss = model(x, y)
        opt.zero_grad()
        loss.backward()
    optim.clip_grad_norm_(model.parameters(), 1.0)
    opt.step()

for line in sys.stdin:
    n = int(line)
    step()  # untimed: see the module docstring
    times = []
    for _ in range(n):
        start = time.perf_counter()
        step()
        times.append(time.perf_counter() - start)
    print(json.dumps(times), flush=True)
"""


def checkout(rev: str, into: Path) -> Path:
    done = subprocess.run(["git", "-C", str(ROOT), "worktree", "add", "--detach", "-f",
                           str(into), rev], capture_output=True, text=True)
    if done.returncode:
        print(f"error: cannot check out {rev!r} ({done.stderr.strip().splitlines()[-1]}); "
              f"give a commit of this repository, e.g. HEAD~3", file=sys.stderr)
        sys.exit(2)
    return into


def main() -> int:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("base", help="the commit to compare against (e.g. HEAD~3)")
    p.add_argument("head", nargs="?", default="HEAD", help="the commit to measure (default HEAD)")
    p.add_argument("--steps", type=at_least(1), default=40, help="timed steps per commit")
    p.add_argument("--block", type=at_least(1), default=5,
                   help="timed steps in a row per commit")
    p.add_argument("--threads", type=at_least(1), default=1,
                   help="data-parallel threads per step (default 1: the plain one-thread step)")
    p.add_argument("--load", type=at_least(0), default=0, metavar="N",
                   help="time while N busy processes compete for the cores")
    add_json_option(p)
    args = p.parse_args()

    with tempfile.TemporaryDirectory(prefix="minigrad-compare-") as tmp:
        revs = {"base": args.base, "head": args.head}
        trees: dict[str, Path] = {}
        try:  # the finally removes what was checked out, also when the second checkout fails
            for name, rev in revs.items():
                trees[name] = checkout(rev, Path(tmp) / name)
            workers = {name: subprocess.Popen([sys.executable, "-c", WORKER, str(tree),
                                               str(args.threads)],
                                              stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                              text=True)
                       for name, tree in trees.items()}
            times: dict[str, list[float]] = {name: [] for name in workers}
            for name, proc in workers.items():  # warm-up block, untimed
                proc.stdin.write("3\n")
                proc.stdin.flush()
                proc.stdout.readline()
            # the busy processes stop by themselves after an hour if this one is killed
            with busy_processes(args.load, 3600) if args.load else nullcontext():
                while min(len(t) for t in times.values()) < args.steps:
                    for name, proc in workers.items():
                        proc.stdin.write(f"{args.block}\n")
                        proc.stdin.flush()
                        times[name] += json.loads(proc.stdout.readline())
                        print(f"\r{name}: {len(times[name])}/{args.steps} steps", end="",
                              file=sys.stderr, flush=True)
            print(file=sys.stderr)
            for proc in workers.values():
                proc.stdin.close()
                proc.wait()
        finally:
            for tree in trees.values():
                subprocess.run(["git", "-C", str(ROOT), "worktree", "remove", "--force",
                                str(tree)], capture_output=True)
    medians = {name: statistics.median(t) * 1000 for name, t in times.items()}
    print(f"{'commit':<8}{'rev':<14}{'median ms/step':>16}{'min':>9}{'max':>9}")
    for name, t in times.items():
        print(f"{name:<8}{revs[name]:<14}{medians[name]:>16.1f}{min(t) * 1000:>9.1f}"
              f"{max(t) * 1000:>9.1f}")
    print(f"head / base: {medians['head'] / medians['base']:.3f}x")
    if args.json:
        Path(args.json).write_text(json.dumps({"revs": revs, "threads": args.threads,
                                               "load": args.load, "ms_per_step": medians},
                                              indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
