"""Tier 1, primitives: the ops whose backward must be written by hand, one class each.

Forward and backward sit side by side, with the gradient formula in the docstring, and forward
is plain math: no speed tricks (those are kernels, `minigrad/kernels.py`) and no input checks in
front of it (those are in the public entry points: Tensor methods and `minigrad.functional`).
Everything else is composed from these.
"""
from __future__ import annotations

import re
import sys

from ..engine import Function
from .elementwise import (Add, Atan2, Cast, Cos, Div, Erf, Erfc, Erfcx, Erfinv, Exp, Expm1, I0,
                          I0e, I1e, Igamma, Lgamma, Log, Log1p, Mul, Ndtri, Neg, Polygamma, Pow,
                          Remainder, Sigmoid, Sin, Sqrt, Sub, Tanh, Where, Zeta)
from .linalg import LU, QR, Cholesky, Eigh, Solve, Svd
from .matmul import MatMul
from .reductions import Max, Min, Sum
from .shape import BroadcastTo, Concat, GetItem, IndexPut, Reshape, ScatterAdd, Transpose
from .unfold import Unfold

__all__ = [
    "Add", "Atan2", "BroadcastTo", "Cast", "Cholesky", "Concat", "Cos", "Div", "Eigh", "Erf",
    "Erfc", "Erfcx", "Erfinv", "Exp", "Expm1", "GetItem", "I0", "I0e", "I1e", "Igamma",
    "IndexPut", "LU", "Lgamma", "Log", "Log1p", "MatMul", "Max", "Min", "Mul", "Ndtri", "Neg",
    "Polygamma", "Pow", "QR", "Remainder", "Reshape", "ScatterAdd", "Sigmoid", "Sin", "Solve",
    "Sqrt", "Sub", "Sum", "Svd", "Tanh", "Transpose", "Unfold", "Where", "Zeta",
]


def primitives() -> list[type[Function]]:
    """minigrad's primitive op classes, in the order of `__all__`."""
    return [globals()[name] for name in __all__]


def kernels() -> list[type[Function]]:
    """minigrad's fused kernel classes, in the order they are defined."""
    from .. import kernels as module

    return [k for k in vars(module).values()
            if isinstance(k, type) and issubclass(k, Function) and k.__module__ == module.__name__]


def gradient_table(ops: list[type[Function]]) -> str:
    """The forward and gradient formulas of `ops`, read from their docstrings, as a Markdown
    table (docs/backward.md embeds one for the primitives and one for the kernels;
    `python -m minigrad.ops` prints both).

    An op's docstring opens with its forward formula followed by the gradient of each input,
    written `da = ...` (d + the input's name); everything before the first of those is the
    forward column."""
    rows = ["| op | forward | gradient (G = gradient of the output) | file |",
            "| --- | --- | --- | --- |"]
    for op in ops:
        summary = " ".join((op.__doc__ or "").split("\n\n")[0].split()).replace("|", "\\|")
        split = re.search(r"\bd(\w+| tensor_i) = ", summary)
        if split is None:
            raise ValueError(f"{op.__name__}'s docstring states no gradient (`dx = ...`)")
        forward, gradient = summary[: split.start()].strip(), summary[split.start():]
        source = sys.modules[op.__module__].__file__.split("minigrad/", 1)[1]
        rows.append(f"| `{op.__name__}` | {forward} | {gradient} | `minigrad/{source}` |")
    return "\n".join(rows)
