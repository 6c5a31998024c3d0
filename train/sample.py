"""Generate text from a trained checkpoint, streaming it as it is sampled:

    python -m train.sample [--out DIR | --checkpoint PATH] --prompt TEXT --tokens N
                           [--temperature T] [--top-k K] [--seed S]
"""
from __future__ import annotations

from .errors import run_cli_module

if __name__ == "__main__":  # before the slow imports below, so that they run within run_cli
    run_cli_module("train.sample")

import math  # noqa: E402

import numpy as np  # noqa: E402

from .cli import checkpoint_parser, load_model  # noqa: E402
from .config import MAX_SEED, RANGES  # noqa: E402
from .errors import UsageError  # noqa: E402
from .parallel import one_blas_thread  # noqa: E402


def main(argv: list[str] | None = None) -> int:
    p = checkpoint_parser("python -m train.sample",
                          "Sample text from a trained character model.")
    p.add_argument("--prompt", default=None, help="text to continue (default: a newline, or "
                   "the vocabulary's first character if it has none)")
    p.add_argument("--tokens", type=int, default=500, metavar="N",
                   help="characters to generate, >= 0 (default 500)")
    p.add_argument("--temperature", type=float, default=0.8, metavar="T",
                   help="a finite number >= 0: < 1 sharper, > 1 more random, 0 greedy "
                   "(default 0.8)")
    p.add_argument("--top-k", type=int, default=None, metavar="K",
                   help="sample only from the K likeliest, K >= 1 (default all)")
    p.add_argument("--seed", type=int, default=None, metavar="S", help="seed for reproducible "
                   f"samples, {RANGES['seed']} (default a fresh one each time)")
    args = p.parse_args(argv)
    if args.tokens < 0:
        raise UsageError(f"--tokens must be >= 0, got {args.tokens}")
    if not (math.isfinite(args.temperature) and args.temperature >= 0):
        raise UsageError(f"--temperature must be a finite number >= 0, got {args.temperature}")
    if args.top_k is not None and args.top_k <= 0:
        raise UsageError(f"--top-k must be >= 1, got {args.top_k}")
    if args.seed is not None and not 0 <= args.seed <= MAX_SEED:
        raise UsageError(f"--seed must be {RANGES['seed']}, got {args.seed}")
    if args.prompt == "":
        raise UsageError("--prompt is empty; give at least one character")

    ckpt, model, tokenizer = load_model(args)
    if (broken := ckpt.first_non_finite()) is not None:
        raise UsageError(f"the model's weights hold NaN or inf ({broken}), so it cannot be "
                         f"sampled; use a checkpoint saved before its training diverged")
    prompt = tokenizer.default_prompt() if args.prompt is None else args.prompt
    try:
        context = tokenizer.encode(prompt)
    except ValueError as err:
        raise UsageError(f"--prompt: {err}") from None
    # print, not sys.stdout.write: with stdout closed (`>&-`) it is None, and print writes nothing
    print(prompt, end="")
    with one_blas_thread():
        for ids in model.stream(context, args.tokens, args.temperature, args.top_k,
                                np.random.default_rng(args.seed)):
            print(tokenizer.decode(ids), end="", flush=True)
    print()
    return 0
