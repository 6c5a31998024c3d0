"""Every op of minigrad, one class each, grouped in files by family."""
import re

from .elementwise import (Abs, Add, Div, Exp, Gelu, Log, MaskedFill, Mul, Neg, Pow, Relu,
                          Sigmoid, Sqrt, Sub, Tanh, Where)
from .matmul import MatMul
from .nn_ops import Affine, Attention, CrossEntropy, Dropout, Embedding, LayerNorm, LogSoftmax, Softmax
from .reductions import Max, Mean, Sum
from .shape import Concat, GetItem, Reshape, Stack, Transpose

__all__ = [
    "Abs", "Add", "Affine", "Attention", "Concat", "CrossEntropy", "Div", "Dropout", "Embedding", "Exp", "Gelu",
    "GetItem", "LayerNorm", "Log", "LogSoftmax", "MaskedFill", "MatMul", "Max", "Mean", "Mul",
    "Neg", "Pow", "Relu", "Reshape", "Sigmoid", "Softmax", "Sqrt", "Stack", "Sub", "Sum", "Tanh",
    "Transpose", "Where",
]


def gradient_table() -> str:
    """Every op's forward and gradient formulas, read from their docstrings, as a Markdown table
    (docs/backward.md embeds it; `python -m minigrad.ops` prints it).

    An op's docstring opens with its forward formula followed by the gradient of each input,
    written `da = ...` (d + the input's name); everything before the first of those is the
    forward column."""
    from ..engine import Function

    rows = ["| op | forward | gradient (G = gradient of the output) | file |",
            "| --- | --- | --- | --- |"]
    for op in Function.registry:
        if not op.__module__.startswith(__name__ + "."):
            continue
        summary = " ".join((op.__doc__ or "").split("\n\n")[0].split()).replace("|", "\\|")
        split = re.search(r"\bd(\w+| tensor_i) = ", summary)
        if split is None:
            raise ValueError(f"{op.__name__}'s docstring states no gradient (`dx = ...`)")
        forward, gradient = summary[: split.start()].strip(), summary[split.start():]
        source = "minigrad/ops/" + op.__module__.rsplit(".", 1)[1] + ".py"
        rows.append(f"| `{op.__name__}` | {forward} | {gradient} | `{source}` |")
    return "\n".join(rows)
