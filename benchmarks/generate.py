"""Tokens per second of GPT.generate with and without the key/value cache.

    python benchmarks/generate.py [--tokens 500] [--repeat 3] [--blas-threads 1] [--load N]
                                  [--json PATH]

The baby GPT (n_layer 4, n_head 4, n_embd 128, block 64, vocab 65; weights untrained, which
does not change the cost) generates `--tokens` new tokens from a one-token prompt, both ways,
with BLAS on one thread as `python -m train.sample` runs it. With `--load N` both are timed
again while N busy processes compete for the cores.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

import numpy as np
from threadpoolctl import ThreadpoolController

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source checkout

import minigrad  # noqa: E402
from benchmarks.cli import add_json_option, at_least  # noqa: E402
from benchmarks.load import busy_processes  # noqa: E402
from benchmarks.machine import describe, machine_info  # noqa: E402
from models import GPT, GPTConfig  # noqa: E402

MODES = (("without cache", False), ("with KV cache", True))


def time_modes(model: GPT, tokens: int, repeat: int) -> dict[str, dict[str, float]]:
    """Seconds and tokens/s of each mode, the best of `repeat` interleaved runs (the least
    disturbed one)."""
    best = {name: float("inf") for name, _ in MODES}
    for _ in range(repeat):
        for name, use_cache in MODES:
            start = time.perf_counter()
            model.generate(np.zeros((1, 1), dtype=np.int64), tokens,
                           rng=np.random.default_rng(0), use_cache=use_cache)
            best[name] = min(best[name], time.perf_counter() - start)
    return {name: {"seconds": s, "tokens_per_s": tokens / s} for name, s in best.items()}


def report(results: dict[str, Any]) -> float:
    """Print each mode's speed; return the cache's speed-up."""
    for name, _ in MODES:
        r = results[name]
        print(f"  {name:<15}{r['tokens_per_s']:10.0f} tokens/s  ({r['seconds']:.2f} s)")
    speedup = results["with KV cache"]["tokens_per_s"] / results["without cache"]["tokens_per_s"]
    print(f"  KV cache speed-up: {speedup:.1f}x")
    return speedup


def main() -> int:
    minigrad.keep_freed_memory()  # as `python -m train` does: measure what users run
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tokens", type=at_least(1), default=500, help="new tokens to generate")
    p.add_argument("--repeat", type=at_least(1), default=3,
                   help="runs of each mode; the best counts")
    p.add_argument("--blas-threads", type=at_least(1), default=1, metavar="N",
                   help="BLAS threads (default 1, as python -m train.sample)")
    p.add_argument("--load", type=at_least(0), default=0, metavar="N",
                   help="then time both modes again while N busy processes compete for the "
                        "cores")
    add_json_option(p)
    args = p.parse_args()
    model = GPT(GPTConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128), seed=0)
    with ThreadpoolController().limit(limits=args.blas_threads, user_api="blas"):
        for _, use_cache in MODES:  # warm-up: first calls pay for imports and allocations
            model.generate(np.zeros((1, 1), dtype=np.int64), 20, use_cache=use_cache)
        started = time.perf_counter()
        results: dict[str, Any] = {"quiet": time_modes(model, args.tokens, args.repeat)}
        if args.load:
            # a generous bound: the loaded runs take a few times the quiet ones
            with busy_processes(args.load, 60 + 10 * (time.perf_counter() - started)):
                results["loaded"] = time_modes(model, args.tokens, args.repeat)
    print(describe(machine := machine_info()))
    print(f"generating {args.tokens} tokens with the baby GPT, BLAS on {args.blas_threads} "
          f"thread(s) (best of {args.repeat} runs)")
    results["quiet"]["speedup"] = report(results["quiet"])
    if args.load:
        print(f"the same while {args.load} busy process(es) compete for the cores")
        results["loaded"]["speedup"] = report(results["loaded"])
    results["machine"] = machine
    results["blas_threads"] = args.blas_threads
    results["load"] = args.load
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
