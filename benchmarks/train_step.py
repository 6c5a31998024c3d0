"""Time full training steps of nanoGPT's CPU "baby GPT" in minigrad, side by side with PyTorch.

    python benchmarks/train_step.py [--steps 30] [--warmup 5] [--load N] [--json PATH] [--profile]

The model: n_layer 4, n_head 4, n_embd 128, block 64, batch 12, vocab 65, tied head; a step is
forward, backward, gradient clipping at 1.0 and AdamW. Modes are timed interleaved in one process,
a few steps each in turn (minigrad 1 thread, minigrad --threads 2, the same step hand-written in
plain numpy with no autograd (benchmarks/numpy_floor.py), PyTorch, minigrad 1 thread, ...), so
machine noise hits all of them alike; compare the ratios. PyTorch (an optional extra,
never a minigrad dependency) runs on 2 threads and is skipped when absent. With `--load N` every
mode is timed a second time, interleaved the same way, while N busy processes compete for the
cores, and each mode's slowdown against its own quiet time is reported. Peak memory (RSS) is
measured in a fresh process per framework. Then the per-step share of the main ops in minigrad
(each op's forward and backward timed); `--profile` adds a cProfile of minigrad steps. The CPU,
usable cores, numpy and BLAS (library, kernel, threads) are printed first.
"""
from __future__ import annotations

import argparse
import cProfile
import json
import math
import pstats
import resource
import statistics
import subprocess
import sys
import time
from collections import defaultdict
from pathlib import Path
from typing import Any, Callable

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source checkout

import minigrad  # noqa: E402
from benchmarks.cli import add_json_option, at_least  # noqa: E402
from benchmarks.load import busy_processes  # noqa: E402
from benchmarks.machine import describe, machine_info  # noqa: E402
from benchmarks.numpy_floor import numpy_floor_step  # noqa: E402
from minigrad import optim  # noqa: E402
from models import GPT, GPTConfig  # noqa: E402
from train.parallel import DataParallel  # noqa: E402

FLOOR = "numpy, no autograd"
CONFIG = GPTConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128, dropout=0.0)
BATCH = 12


def batches(seed: int = 0):
    rng = np.random.default_rng(seed)
    while True:
        x = rng.integers(0, CONFIG.vocab_size, (BATCH, CONFIG.block_size))
        yield x, np.roll(x, -1, axis=1)


# ---- minigrad ----
def minigrad_step(threads: int) -> Callable[[], float]:
    model = GPT(CONFIG, seed=0)
    params = list(model.parameters())
    opt = optim.AdamW(params, lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)
    data = batches()
    parallel = DataParallel(model, threads) if threads > 1 else None

    def step() -> float:
        x, y = next(data)
        if parallel is not None:
            loss = parallel.backward(x, y)
        else:
            _, loss_t = model(x, y)
            model.zero_grad()
            loss_t.backward()
            loss = loss_t.item()
        optim.clip_grad_norm_(params, 1.0)
        opt.step()
        return loss

    step.model = model  # type: ignore[attr-defined]
    step.optimizer = opt  # type: ignore[attr-defined]
    return step


# ---- the same step in plain numpy, no autograd (benchmarks/numpy_floor.py) ----
def floor_step() -> Callable[[], float]:
    return numpy_floor_step(GPT(CONFIG, seed=0), batches(), lr=1e-3, betas=(0.9, 0.99),
                            weight_decay=0.1)


# ---- PyTorch: the same model, written here for the benchmark ----
def torch_step() -> Callable[[], float]:
    import torch
    import torch.nn as tnn
    import torch.nn.functional as TF

    torch.set_num_threads(2)
    torch.manual_seed(0)
    c = CONFIG

    class Block(tnn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.ln_1, self.ln_2 = tnn.LayerNorm(c.n_embd), tnn.LayerNorm(c.n_embd)
            self.qkv = tnn.Linear(c.n_embd, 3 * c.n_embd)
            self.proj = tnn.Linear(c.n_embd, c.n_embd)
            self.fc = tnn.Linear(c.n_embd, 4 * c.n_embd)
            self.fc_proj = tnn.Linear(4 * c.n_embd, c.n_embd)

        def forward(self, x):
            b, t, e = x.shape
            q, k, v = self.qkv(self.ln_1(x)).split(e, dim=2)
            q, k, v = (z.view(b, t, c.n_head, e // c.n_head).transpose(1, 2) for z in (q, k, v))
            y = TF.scaled_dot_product_attention(q, k, v, is_causal=True)
            x = x + self.proj(y.transpose(1, 2).reshape(b, t, e))
            return x + self.fc_proj(TF.gelu(self.fc(self.ln_2(x)), approximate="tanh"))

    class TorchGPT(tnn.Module):
        def __init__(self) -> None:
            super().__init__()
            self.wte = tnn.Embedding(c.vocab_size, c.n_embd)
            self.wpe = tnn.Embedding(c.block_size, c.n_embd)
            self.blocks = tnn.ModuleList(Block() for _ in range(c.n_layer))
            self.ln_f = tnn.LayerNorm(c.n_embd)

        def forward(self, idx, targets):
            x = self.wte(idx) + self.wpe(torch.arange(idx.shape[1]))
            for block in self.blocks:
                x = block(x)
            logits = self.ln_f(x) @ self.wte.weight.T
            return TF.cross_entropy(logits.view(-1, c.vocab_size), targets.view(-1))

    model = TorchGPT()
    opt = torch.optim.AdamW(model.parameters(), lr=1e-3, betas=(0.9, 0.99), weight_decay=0.1)
    data = batches()

    def step() -> float:
        x, y = (torch.from_numpy(a) for a in next(data))
        loss = model(x, y)
        opt.zero_grad(set_to_none=True)
        loss.backward()
        torch.nn.utils.clip_grad_norm_(model.parameters(), 1.0)
        opt.step()
        return loss.item()

    return step


def have_torch() -> bool:
    try:
        import torch  # noqa: F401
    except ImportError:
        return False
    return True


# ---- op shares ----
CATEGORIES = {"MatMul": "matmul", "Affine": "matmul", "Attention": "attention (fused op)",
              "SelfAttention": "attention (fused op, with the Q/K/V matmul)",
              "Softmax": "attention (softmax, mask)", "Where": "attention (softmax, mask)",
              "Gelu": "GELU", "LayerNorm": "layer norm", "CrossEntropy": "cross-entropy",
              "Embedding": "embedding"}


def profile_shares(step: Callable[[], float], n: int) -> dict[str, float]:
    """Milliseconds per step in each family of ops, the optimizer, and the rest (Python)."""
    spent: dict[str, float] = defaultdict(float)

    def timed(fn: Callable, label: str) -> Callable:
        def wrapper(*args, **kwargs):
            start = time.perf_counter()
            try:
                return fn(*args, **kwargs)
            finally:
                spent[label] += time.perf_counter() - start
        return wrapper

    patched = []
    for op in minigrad.ops.primitives() + minigrad.ops.kernels():
        label = CATEGORIES.get(op.__name__, "other ops")
        for method in ("forward", "backward"):
            original = op.__dict__.get(method)
            if original is not None:
                patched.append((op, method, original))
                setattr(op, method, timed(original, label))
    opt = step.optimizer  # type: ignore[attr-defined]
    original_step = opt.step
    opt.step = timed(original_step, "optimizer (clip + AdamW)")
    original_clip = optim.clip_grad_norm_
    optim.clip_grad_norm_ = timed(original_clip, "optimizer (clip + AdamW)")
    try:
        start = time.perf_counter()
        for _ in range(n):
            step()
        total = time.perf_counter() - start
    finally:
        for op, method, original in patched:
            setattr(op, method, original)
        opt.step = original_step
        optim.clip_grad_norm_ = original_clip
    shares = {k: v * 1000 / n for k, v in sorted(spent.items(), key=lambda kv: -kv[1])}
    shares["Python (graph, backward loop, model code)"] = total * 1000 / n - sum(shares.values())
    shares["total"] = total * 1000 / n
    return shares


def peak_rss_of_this_process_mb() -> float:
    """VmHWM from /proc (Linux): unlike ru_maxrss it is not inherited from the parent process
    across fork + exec, which would make every child report the benchmark's own peak."""
    status = Path("/proc/self/status")
    if status.exists():
        for line in status.read_text().splitlines():
            if line.startswith("VmHWM:"):
                return int(line.split()[1]) / 1024
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def peak_rss_mb(mode: str, steps: int) -> float:
    """Run `steps` steps of one mode in a fresh process and return its peak RSS."""
    out = subprocess.run([sys.executable, __file__, "--rss-only", mode, "--steps", str(steps)],
                         capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def time_interleaved(modes: dict[str, Callable[[], float]], steps: int,
                     block: int) -> dict[str, list[float]]:
    """Milliseconds of `steps` steps per mode, run in turn in blocks of `block`."""
    times: dict[str, list[float]] = {name: [] for name in modes}
    for _ in range(math.ceil(steps / block)):
        for name, step in modes.items():  # interleaved in blocks: AAAA BBBB CCCC AAAA ...
            # the first step of a block is not timed: the previous mode's BLAS and OpenMP
            # threads spin for ~0.1 s after their last call and would steal its cores
            step()
            for _ in range(block):
                start = time.perf_counter()
                step()
                times[name].append((time.perf_counter() - start) * 1000)
    return times


def summarize(times: dict[str, list[float]]) -> dict[str, dict[str, float | None]]:
    """Median, min and max per mode, and the median's ratio to PyTorch's (None without it)."""
    torch_median = statistics.median(times["pytorch"]) if "pytorch" in times else None
    summary = {}
    for name, ts in times.items():
        median = statistics.median(ts)
        summary[name] = {"median_ms": median, "min_ms": min(ts), "max_ms": max(ts),
                         "ratio_to_pytorch": median / torch_median if torch_median else None}
    return summary


def ratio(value: float | None) -> str:
    return f"{value:.2f}x" if value else "-"


def main() -> int:
    minigrad.keep_freed_memory()  # as `python -m train` does: measure what users run
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--steps", type=at_least(1), default=30, help="timed steps per mode")
    p.add_argument("--warmup", type=at_least(0), default=5, help="untimed steps per mode first")
    p.add_argument("--block", type=at_least(1), default=5, help="timed steps in a row per mode")
    p.add_argument("--load", type=at_least(0), default=0, metavar="N",
                   help="then time every mode again while N busy processes compete for the "
                        "cores, and report each mode's slowdown")
    add_json_option(p)
    p.add_argument("--profile", action="store_true",
                   help="also print a cProfile of minigrad steps (the hottest functions)")
    p.add_argument("--no-torch", action="store_true", help="skip PyTorch even if installed")
    p.add_argument("--rss-only", choices=["minigrad", "minigrad-threads2", "floor", "torch"],
                   help=argparse.SUPPRESS)
    args = p.parse_args()

    if args.rss_only:
        step = {"minigrad": lambda: minigrad_step(1), "minigrad-threads2": lambda: minigrad_step(2),
                "floor": floor_step, "torch": torch_step}[args.rss_only]()
        for _ in range(args.steps):
            step()
        print(peak_rss_of_this_process_mb())
        return 0

    machine = machine_info()
    print(describe(machine))
    modes: dict[str, Callable[[], float]] = {"minigrad": minigrad_step(1),
                                             "minigrad --threads 2": minigrad_step(2),
                                             FLOOR: floor_step()}
    if have_torch() and not args.no_torch:
        import torch

        modes["pytorch"] = torch_step()
        print(f"PyTorch {torch.__version__}, {torch.get_num_threads()} threads")
    for step in modes.values():
        for _ in range(args.warmup):
            step()
    started = time.perf_counter()
    quiet = summarize(time_interleaved(modes, args.steps, args.block))
    loaded = None
    if args.load:
        # a generous bound: the loaded pass takes a few times the quiet one
        with busy_processes(args.load, 60 + 10 * (time.perf_counter() - started)):
            loaded = summarize(time_interleaved(modes, args.steps, args.block))

    rss = {"minigrad": peak_rss_mb("minigrad", args.warmup + 5),
           "minigrad --threads 2": peak_rss_mb("minigrad-threads2", args.warmup + 5),
           FLOOR: peak_rss_mb("floor", args.warmup + 5)}
    if "pytorch" in modes:
        rss["pytorch"] = peak_rss_mb("torch", args.warmup + 5)

    size = minigrad.nn.Module.num_parameters(modes["minigrad"].model)  # type: ignore[attr-defined]
    print(f"\nbaby GPT training step ({size / 1e6:.2f}M parameters, batch {BATCH} x "
          f"{CONFIG.block_size}), {args.steps} steps per mode, interleaved in blocks of "
          f"{args.block}")
    print(f"{'mode':<24}{'median ms':>10}{'min':>8}{'max':>8}{'/ pytorch':>11}{'peak RSS MB':>13}")
    results: dict[str, Any] = {"machine": machine, "load": args.load}
    for name, r in quiet.items():
        results[name] = {**r, "peak_rss_mb": rss.get(name)}
        print(f"{name:<24}{r['median_ms']:10.1f}{r['min_ms']:8.1f}{r['max_ms']:8.1f}"
              f"{ratio(r['ratio_to_pytorch']):>11}{rss.get(name, 0):13.0f}")
    if loaded is not None:
        print(f"\nthe same, timed again while {args.load} busy process(es) compete for the "
              f"{machine['usable_cores']} usable cores")
        print(f"{'mode':<24}{'median ms':>10}{'min':>8}{'max':>8}{'/ pytorch':>11}"
              f"{'/ quiet':>9}")
        for name, r in loaded.items():
            slowdown = r["median_ms"] / quiet[name]["median_ms"]
            results[name].update(loaded=r, slowdown=slowdown)
            print(f"{name:<24}{r['median_ms']:10.1f}{r['min_ms']:8.1f}{r['max_ms']:8.1f}"
                  f"{ratio(r['ratio_to_pytorch']):>11}{slowdown:8.2f}x")
    shares = profile_shares(modes["minigrad"], args.steps)
    results["minigrad_shares_ms"] = shares
    total = shares["total"]
    print("\nwhere a minigrad step (1 thread) goes, ms per step (timed per op, so a bit slower):")
    for name, ms in shares.items():
        print(f"  {name:<44}{ms:8.2f}{100 * ms / total:7.1f}%")
    if args.profile:
        print("\ncProfile of minigrad steps (1 thread), by own time:")
        profiler = cProfile.Profile()
        profiler.runcall(lambda: [modes["minigrad"]() for _ in range(args.steps)])
        pstats.Stats(profiler).sort_stats("tottime").print_stats(20)
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
