"""Tokens per second of GPT.generate with and without the key/value cache.

    python benchmarks/generate.py [--tokens 500] [--json PATH]

The baby GPT (n_layer 4, n_head 4, n_embd 128, block 64, vocab 65; weights untrained, which
does not change the cost) generates `--tokens` new tokens from a one-token prompt, both ways.
"""
from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source checkout

import minigrad  # noqa: E402
from benchmarks.cli import add_json_option, at_least  # noqa: E402
from benchmarks.machine import describe, machine_info  # noqa: E402
from models import GPT, GPTConfig  # noqa: E402


def main() -> int:
    minigrad.keep_freed_memory()  # as `python -m train` does: measure what users run
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--tokens", type=at_least(1), default=500, help="new tokens to generate")
    p.add_argument("--repeat", type=at_least(1), default=3,
                   help="runs of each mode; the best counts")
    add_json_option(p)
    args = p.parse_args()
    model = GPT(GPTConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128), seed=0)
    results = {}
    modes = (("without cache", False), ("with KV cache", True))
    for _, use_cache in modes:  # warm-up: first calls pay for imports and allocations
        model.generate(np.zeros((1, 1), dtype=np.int64), 20, use_cache=use_cache)
    best = {name: float("inf") for name, _ in modes}
    for _ in range(args.repeat):  # interleaved, best of `repeat`: the least disturbed run
        for name, use_cache in modes:
            start = time.perf_counter()
            model.generate(np.zeros((1, 1), dtype=np.int64), args.tokens,
                           rng=np.random.default_rng(0), use_cache=use_cache)
            best[name] = min(best[name], time.perf_counter() - start)
    for name, seconds in best.items():
        results[name] = {"seconds": seconds, "tokens_per_s": args.tokens / seconds}
    speedup = results["with KV cache"]["tokens_per_s"] / results["without cache"]["tokens_per_s"]
    print(describe(machine := machine_info()))
    print(f"generating {args.tokens} tokens with the baby GPT (best of {args.repeat} runs)")
    for name, r in results.items():
        print(f"  {name:<15}{r['tokens_per_s']:10.0f} tokens/s  ({r['seconds']:.2f} s)")
    print(f"  KV cache speed-up: {speedup:.1f}x")
    results["speedup"] = speedup
    results["machine"] = machine
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
