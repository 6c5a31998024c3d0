"""Per-op overhead on tiny arrays: minigrad vs numpy (and PyTorch when installed), in microseconds.

    python benchmarks/ops.py [--repeat 2000] [--json PATH]

On a 4x4 float32 array the arithmetic is nearly free, so the time is what each library spends
around it: minigrad's Tensor wrapping and graph recording, PyTorch's dispatcher and autograd.
"""
from __future__ import annotations

import argparse
import json
import sys
import timeit
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))  # run from a source checkout

import minigrad  # noqa: E402
import minigrad.functional as F  # noqa: E402
from benchmarks.cli import add_json_option, at_least  # noqa: E402
from benchmarks.machine import describe, machine_info  # noqa: E402


def cases(lib: str, grad: bool):
    """name -> zero-argument callable doing one op on tiny inputs."""
    a_np = np.random.default_rng(0).standard_normal((4, 4)).astype(np.float32)
    b_np = np.random.default_rng(1).standard_normal((4, 4)).astype(np.float32)
    if lib == "numpy":
        a, b = a_np, b_np
        return {"add": lambda: a + b, "mul": lambda: a * b, "matmul": lambda: a @ b,
                "exp": lambda: np.exp(a), "sum": lambda: a.sum(), "reshape": lambda: a.reshape(16),
                "getitem": lambda: a[1:3],
                "softmax": lambda: (lambda e: e / e.sum(-1, keepdims=True))(
                    np.exp(a - a.max(-1, keepdims=True)))}
    if lib == "minigrad":
        a, b = minigrad.Tensor(a_np, requires_grad=grad), minigrad.Tensor(b_np, requires_grad=grad)
        return {"add": lambda: a + b, "mul": lambda: a * b, "matmul": lambda: a @ b,
                "exp": lambda: a.exp(), "sum": lambda: a.sum(), "reshape": lambda: a.reshape(16),
                "getitem": lambda: a[1:3], "softmax": lambda: F.softmax(a)}
    import torch

    a, b = (torch.tensor(x, requires_grad=grad) for x in (a_np, b_np))
    return {"add": lambda: a + b, "mul": lambda: a * b, "matmul": lambda: a @ b,
            "exp": lambda: a.exp(), "sum": lambda: a.sum(), "reshape": lambda: a.reshape(16),
            "getitem": lambda: a[1:3], "softmax": lambda: torch.softmax(a, -1)}


def main() -> int:
    minigrad.keep_freed_memory()  # as `python -m train` does: measure what users run
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--repeat", type=at_least(1), default=2000, help="calls per measurement")
    add_json_option(p)
    args = p.parse_args()
    try:
        import torch

        torch.set_num_threads(1)
        libs = ["numpy", "minigrad", "torch"]
    except ImportError:
        libs = ["numpy", "minigrad"]

    columns = [("numpy", False)] + [(lib, g) for lib in libs[1:] for g in (False, True)]
    table = {f"{lib}{' +grad' if g else ''}": cases(lib, g) for lib, g in columns}
    results: dict[str, dict[str, float]] = {name: {} for name in table["numpy"]}
    for op in results:
        for column, fns in table.items():
            # best of 5 runs: the least disturbed by the rest of the machine
            best = min(timeit.repeat(fns[op], number=args.repeat, repeat=5))
            results[op][column] = best / args.repeat * 1e6
    print(describe(machine := machine_info()))
    if "torch" in libs:
        print(f"PyTorch {torch.__version__}, 1 thread")
    print("microseconds per call on a 4x4 float32 array (best of 5 runs of "
          f"{args.repeat} calls)")
    print(f"{'op':<10}" + "".join(f"{c:>16}" for c in table))
    for op, row in results.items():
        print(f"{op:<10}" + "".join(f"{row[c]:16.2f}" for c in table))
    if args.json:
        Path(args.json).write_text(json.dumps({"machine": machine, **results}, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
