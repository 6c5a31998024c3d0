"""Generate text from a trained checkpoint, streaming it as it is sampled:

    python -m train.sample [--out DIR | --checkpoint PATH] --prompt TEXT --tokens N
                           [--temperature T] [--top-k K] [--seed S]
"""
from __future__ import annotations

import argparse
import math
import sys
from pathlib import Path

import numpy as np

from . import checkpoint
from .errors import UsageError, run_cli


def checkpoint_path(args: argparse.Namespace) -> Path:
    return Path(args.checkpoint) if args.checkpoint else Path(args.out) / "ckpt.npz"


def add_checkpoint_options(p: argparse.ArgumentParser) -> None:
    where = p.add_mutually_exclusive_group()
    where.add_argument("--out", default="out", help="training directory holding ckpt.npz "
                       "(default out/)")
    where.add_argument("--checkpoint", help="path of a checkpoint file (instead of --out)")


def main(argv: list[str] | None = None) -> int:
    p = argparse.ArgumentParser(prog="python -m train.sample",
                                description="Sample text from a trained character model.")
    add_checkpoint_options(p)
    p.add_argument("--prompt", default=None, help="text to continue (default: a newline, or "
                   "the vocabulary's first character if it has none)")
    p.add_argument("--tokens", type=int, default=500, help="characters to generate (default 500)")
    p.add_argument("--temperature", type=float, default=0.8,
                   help="< 1 sharper, > 1 more random, 0 greedy (default 0.8)")
    p.add_argument("--top-k", type=int, default=None, help="sample only from the K likeliest")
    p.add_argument("--seed", type=int, default=None, help="seed for reproducible samples")
    args = p.parse_args(argv)
    if args.tokens < 0:
        raise UsageError(f"--tokens must be >= 0, got {args.tokens}")
    if not (math.isfinite(args.temperature) and args.temperature >= 0):
        raise UsageError(f"--temperature must be a number >= 0, got {args.temperature}")
    if args.top_k is not None and args.top_k <= 0:
        raise UsageError(f"--top-k must be positive, got {args.top_k}")
    if args.prompt == "":
        raise UsageError("--prompt is empty; give at least one character")

    model, tokenizer = checkpoint.load(checkpoint_path(args)).build_model()
    if args.prompt is None:
        args.prompt = tokenizer.default_prompt()
    try:
        context = tokenizer.encode(args.prompt)
    except ValueError as err:
        raise UsageError(f"--prompt: {err}") from None
    sys.stdout.write(args.prompt)
    for ids in model.stream(context, args.tokens, args.temperature, args.top_k,
                            np.random.default_rng(args.seed)):
        sys.stdout.write(tokenizer.decode(ids))
        sys.stdout.flush()
    sys.stdout.write("\n")
    return 0


if __name__ == "__main__":
    sys.exit(run_cli(main))
