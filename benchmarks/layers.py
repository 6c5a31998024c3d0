"""The baby GPT's layers one at a time, minigrad vs PyTorch, on one thread each: forward plus
backward at a data-parallel worker's shapes, and the matrix products' GFLOP/s.

    python benchmarks/layers.py [--repeat 200] [--json PATH]

A worker of the default training mode runs half of a batch of 12 x 64 on one core with one BLAS
thread, so its step is the sum of these layers' times (4 blocks of them), plus Python. Where a
layer is slower than PyTorch's here, the training step is too; the products show how much of
that is the BLAS library's. PyTorch (an optional extra) is skipped when absent.
"""
from __future__ import annotations

import argparse
import json
import statistics
import sys
import time
from pathlib import Path
from typing import Any, Callable

import numpy as np
from threadpoolctl import threadpool_limits

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source checkout

import minigrad  # noqa: E402
import minigrad.functional as F  # noqa: E402
from benchmarks.cli import add_json_option, at_least  # noqa: E402
from benchmarks.machine import describe, machine_info  # noqa: E402

ROWS, WIDTH, HEADS, SEQ = 6 * 64, 128, 4, 64  # half of batch 12 x 64; n_embd 128, 4 heads
HEAD = WIDTH // HEADS
BATCH = ROWS // SEQ

# name -> (input shapes, the layer in minigrad, the layer in PyTorch (given its functional module))
LAYERS: dict[str, tuple[list[tuple[int, ...]], Callable[..., Any], Callable[..., Any]]] = {
    "Linear 128 -> 512 (mlp.fc)": ([(ROWS, WIDTH), (4 * WIDTH, WIDTH), (4 * WIDTH,)],
                                   F.linear, lambda tf: tf.linear),
    "Linear 512 -> 128 (mlp.proj)": ([(ROWS, 4 * WIDTH), (WIDTH, 4 * WIDTH), (WIDTH,)],
                                     F.linear, lambda tf: tf.linear),
    "Linear 128 -> 128 (attn.W_o)": ([(ROWS, WIDTH), (WIDTH, WIDTH), (WIDTH,)],
                                     F.linear, lambda tf: tf.linear),
    "GELU, tanh": ([(ROWS, 4 * WIDTH)], lambda x: F.gelu(x, approximate="tanh"),
                   lambda tf: lambda x: tf.gelu(x, approximate="tanh")),
    "LayerNorm": ([(ROWS, WIDTH), (WIDTH,), (WIDTH,)],
                  lambda x, w, b: F.layer_norm(x, (WIDTH,), w, b),
                  lambda tf: lambda x, w, b: tf.layer_norm(x, (WIDTH,), w, b)),
    "causal attention, 4 heads": ([(BATCH, HEADS, SEQ, HEAD)] * 3,
                                  lambda q, k, v: F.scaled_dot_product_attention(
                                      q, k, v, is_causal=True),
                                  lambda tf: lambda q, k, v: tf.scaled_dot_product_attention(
                                      q, k, v, is_causal=True)),
}

# (rows, inner, columns) of the step's matrix products at a worker's shapes
PRODUCTS = {"x W_fc^T": (ROWS, WIDTH, 4 * WIDTH), "h W_proj^T": (ROWS, 4 * WIDTH, WIDTH),
            "dW_fc = G^T x": (4 * WIDTH, ROWS, WIDTH), "x W_qkv^T": (ROWS, WIDTH, 3 * WIDTH),
            "inner dim = head size": (BATCH * HEADS * SEQ, HEAD, SEQ)}


def median_us(fn: Callable[[], Any], repeat: int) -> float:
    """The median time of `fn` in microseconds, after a few untimed calls."""
    for _ in range(max(3, repeat // 20)):
        fn()
    times = []
    for _ in range(repeat):
        start = time.perf_counter()
        fn()
        times.append(time.perf_counter() - start)
    return statistics.median(times) * 1e6


def layer_step(shapes: list[tuple[int, ...]], layer: Callable[..., Any],
               leaf: Callable[[np.ndarray], Any], grad: Callable[[Any, list[Any]], Any]
               ) -> Callable[[], Any]:
    """A call of `layer`'s forward and backward on fixed random inputs of `shapes`, made by
    `leaf` (a library's tensor that requires grad); `grad(out, inputs)` is its backward."""
    rng = np.random.default_rng(0)
    inputs = [leaf(rng.standard_normal(s).astype(np.float32)) for s in shapes]
    return lambda: grad(layer(*inputs), inputs)


def gflops(product: Callable[[], Any], flop: int, repeat: int) -> float:
    return flop / median_us(product, repeat) / 1e3


def main() -> int:
    minigrad.keep_freed_memory()  # as `python -m train` does: measure what users run
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=at_least(1), default=200, help="timed calls per layer")
    add_json_option(p)
    args = p.parse_args()
    try:
        import torch
        import torch.nn.functional as torch_functional

        torch.set_num_threads(1)
    except ImportError:
        torch = None
    results: dict[str, Any] = {"layers_us": {}, "products_gflops": {}}
    with threadpool_limits(limits=1, user_api="blas"):
        for name, (shapes, ours, theirs) in LAYERS.items():
            row = {"minigrad": median_us(layer_step(
                shapes, ours, lambda a: minigrad.Tensor(a, requires_grad=True),
                lambda out, inputs: minigrad.grad(out, inputs,
                                                  grad_outputs=np.ones(out.shape, np.float32))),
                args.repeat)}
            if torch is not None:
                row["pytorch"] = median_us(layer_step(
                    shapes, theirs(torch_functional), lambda a: torch.tensor(a, requires_grad=True),
                    lambda out, inputs: torch.autograd.grad(out, inputs, torch.ones_like(out))),
                    args.repeat)
            results["layers_us"][name] = row
        rng = np.random.default_rng(0)
        for name, (m, k, n) in PRODUCTS.items():
            a = rng.standard_normal((m, k)).astype(np.float32)
            b = rng.standard_normal((k, n)).astype(np.float32)
            row = {"numpy": gflops(lambda: a @ b, 2 * m * k * n, args.repeat)}
            if torch is not None:
                ta, tb = torch.from_numpy(a), torch.from_numpy(b)
                row["pytorch"] = gflops(lambda: ta @ tb, 2 * m * k * n, args.repeat)
            results["products_gflops"][f"{name} ({m}x{k} @ {k}x{n})"] = row
    print(describe(machine := machine_info()))
    print(f"PyTorch {torch.__version__}, 1 thread" if torch is not None else
          "PyTorch not installed: minigrad alone")
    print(f"\nforward + backward at a data-parallel worker's shapes ({ROWS} rows), one thread, "
          f"median us")
    print(f"{'layer':<32}{'minigrad':>10}{'pytorch':>10}{'ratio':>8}")
    for name, row in results["layers_us"].items():
        theirs = row.get("pytorch")
        print(f"{name:<32}{row['minigrad']:10.0f}" + (
            f"{theirs:10.0f}{row['minigrad'] / theirs:7.2f}x" if theirs else ""))
    print("\nmatrix products, one thread, GFLOP/s")
    print(f"{'product':<45}{'numpy':>8}{'pytorch':>9}")
    for name, row in results["products_gflops"].items():
        theirs = row.get("pytorch")
        print(f"{name:<45}{row['numpy']:8.1f}" + (f"{theirs:9.1f}" if theirs else ""))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine, **results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
