"""Tier 2, compositions: the functions PyTorch has at the top level (`torch.cat`, `torch.where`,
`torch.zeros`, ...), exported as `minigrad.cat`, `minigrad.where`, `minigrad.zeros`, ...

Each is a primitive applied to its inputs or a few readable lines of Tensor methods; none has a
backward of its own.
"""
from __future__ import annotations

import math
from typing import Any, Sequence

import numpy as np

from . import ops
from .engine import ArrayLike
from .errors import InvalidArgumentError
from .creation import tensor
from .tensor import (Dim, Tensor, _as_array, _bool_mask, _dim, _dims, _older_unbiased_form,
                     _operand, _result_dtype)

__all__ = ["allclose", "as_tensor", "cat", "equal", "from_numpy", "is_tensor", "meshgrid", "stack",
           "std_mean", "var_mean", "where"]


# --------------------------------------------------------------------------------------------
# Tensors from arrays, and whole-tensor comparisons
# --------------------------------------------------------------------------------------------
def from_numpy(ndarray: np.ndarray) -> Tensor:
    """A tensor sharing `ndarray`'s memory and dtype: changing one changes the other."""
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"from_numpy: expected a numpy ndarray, got {type(ndarray).__name__}")
    return Tensor(ndarray, dtype=ndarray.dtype)


def as_tensor(data: ArrayLike, dtype: Any = None) -> Tensor:
    """`data` as a tensor without a copy where it can be: a tensor (in `dtype`) or a numpy array
    of that dtype shares its memory; anything else is copied as `minigrad.tensor` would."""
    if isinstance(data, Tensor):
        return data if dtype is None else data.to(dtype)
    if isinstance(data, np.ndarray) and (dtype is None or np.dtype(dtype) == data.dtype):
        return from_numpy(data)
    return tensor(data, dtype=dtype)


def is_tensor(obj: Any) -> bool:
    return isinstance(obj, Tensor)


def allclose(input: Tensor, other: Tensor, rtol: float = 1e-05, atol: float = 1e-08,
             equal_nan: bool = False) -> bool:
    """Whether |input - other| <= atol + rtol |other| everywhere (the shapes broadcast)."""
    return bool(input.isclose(other, rtol, atol, equal_nan).all())


def equal(input: Tensor, other: Tensor) -> bool:
    """Whether the two tensors have one shape and equal entries."""
    return input.shape == other.shape and bool((input == other).all())


# --------------------------------------------------------------------------------------------
# Joining and selecting
# --------------------------------------------------------------------------------------------
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dim `dim` (their other dims must agree). As in PyTorch, a
    1-D empty tensor, shape (0,), joins tensors of any shape: it adds no entries."""
    shapes = [t.shape for t in tensors]
    if not shapes or min(len(s) for s in shapes) == 0:
        raise InvalidArgumentError("cat: needs one or more tensors of at least 1 dim, got shapes "
                                   f"{shapes}")
    first = next((s for s in shapes if s != (0,)), shapes[0])  # the shape the others match
    d = _dim("cat", dim, len(first))
    if any(s != (0,) and (len(s) != len(first) or s[:d] + s[d + 1:] != first[:d] + first[d + 1:])
           for s in shapes):
        raise InvalidArgumentError(f"cat: shapes {shapes} must agree in every dim but dim {dim}")
    empty = first[:d] + (0,) + first[d + 1:]
    dtype = _result_dtype(*tensors)  # PyTorch's promotion: int64 with float32 is float32
    return ops.Concat.apply(*((t.reshape(empty) if t.shape == (0,) else t).to(dtype)
                              for t in tensors), axis=d)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of one shape along a new dim `dim`."""
    shapes = {t.shape for t in tensors}
    if len(shapes) != 1:
        raise InvalidArgumentError(f"stack: tensors must all have the same shape, got "
                                   f"{[t.shape for t in tensors]}")
    dim = _dim("stack", dim, len(shapes.pop()) + 1)  # a dim of the result: IndexError if not
    return cat([t.reshape(*t.shape[:dim], 1, *t.shape[dim:]) for t in tensors], dim)


def meshgrid(*tensors: Tensor | Sequence[Tensor], indexing: str = "ij") -> tuple[Tensor, ...]:
    """Coordinate grids from 1-D (or 0-d) tensors, as torch.meshgrid: the k-th output holds
    tensors[k]'s entries along dim k and repeats them along the others. indexing="xy" swaps
    the first two dims (Cartesian, as numpy's default)."""
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if indexing not in ("ij", "xy"):
        raise InvalidArgumentError(f"meshgrid: indexing must be 'ij' or 'xy', got {indexing!r}")
    if any(t.ndim > 1 for t in tensors):
        raise InvalidArgumentError(f"meshgrid: needs 0-d or 1-D tensors, got shapes "
                                   f"{[t.shape for t in tensors]}")
    axes = list(range(len(tensors)))
    if indexing == "xy" and len(axes) > 1:
        axes[0], axes[1] = 1, 0
    shape = [0] * len(tensors)
    for axis, t in zip(axes, tensors):
        shape[axis] = t.numel()
    grids = []
    for axis, t in zip(axes, tensors):
        along = [1] * len(tensors)
        along[axis] = t.numel()
        grids.append(t.reshape(along).expand(shape))
    return tuple(grids)


def where(condition: ArrayLike, input: ArrayLike | None = None, other: ArrayLike | None = None
          ) -> Tensor | tuple[Tensor, ...]:
    """`input` where `condition` (a bool tensor) is True, else `other` (they broadcast), in
    their promoted dtype (PyTorch's: a Python number takes a tensor's dtype, int and float
    tensors meet in the float's). With the condition alone, nonzero(condition, as_tuple=True),
    as PyTorch's."""
    if input is None and other is None:
        return Tensor._make(np.asarray(_as_array(condition))).nonzero(as_tuple=True)
    if input is None or other is None:
        raise TypeError("where: give both input and other, or the condition alone")
    cond = _bool_mask("where", condition)
    input, other = _operand(input), _operand(other)
    dtype = _result_dtype(input, other)
    input, other = (x.to(dtype) if isinstance(x, Tensor) else Tensor._make(np.asarray(x, dtype))
                    for x in (input, other))
    return ops.Where.apply(input, other, cond=cond)


# --------------------------------------------------------------------------------------------
# Statistics in pairs
# --------------------------------------------------------------------------------------------
def std_mean(input: Tensor, dim: Dim = None, unbiased: bool | None = None, keepdim: bool = False,
             *, correction: float | None = None, axis: Dim = None) -> tuple[Tensor, Tensor]:
    """(std, mean) over `dim`, as torch.std_mean; the arguments are std's."""
    dim, unbiased = _older_unbiased_form(_dims(dim, axis), unbiased)
    return input.std(dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim)


def var_mean(input: Tensor, dim: Dim = None, unbiased: bool | None = None, keepdim: bool = False,
             *, correction: float | None = None, axis: Dim = None) -> tuple[Tensor, Tensor]:
    """(var, mean) over `dim`, as torch.var_mean; the arguments are var's."""
    dim, unbiased = _older_unbiased_form(_dims(dim, axis), unbiased)
    return input.var(dim, unbiased, keepdim, correction=correction), input.mean(dim, keepdim)


# --------------------------------------------------------------------------------------------
# Einstein summation
# --------------------------------------------------------------------------------------------
def einsum(equation: str, *operands: Tensor | Sequence[Tensor]) -> Tensor:
    """Einstein summation, as torch.einsum: one letter per dim of each operand, "ij,jk->ik"
    (a matrix product), "bij,bjk->bik", "ii->i" (a diagonal), "ii" (a trace), "...ij->...ji";
    without "->" the output is the letters used once, in alphabetical order, after the "..."
    dims. Dims of size 1 broadcast. The operands come as arguments or as one list.

    Composed, not a primitive: each repeated letter within an operand takes a diagonal, then
    the operands are contracted left to right, each pair as one batched matmul (shared letters
    kept for the output are the batch, shared letters summed are the inner dim; a broadcast
    multiply when none is summed), so the work runs in BLAS and the gradient comes from
    Transpose, Reshape, MatMul, Mul and Sum."""
    if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
        operands = tuple(operands[0])
    inputs, output = _einsum_labels(equation, [t.ndim for t in operands])
    sizes = _einsum_sizes(equation, inputs, operands)
    terms = []
    for t, labels in zip(operands, inputs):
        while len(set(labels)) < len(labels):  # a repeated letter: its diagonal
            first = next(i for i, label in enumerate(labels) if labels.count(label) > 1)
            second = labels.index(labels[first], first + 1)
            t = t.diagonal(0, first, second)
            kept = [x for i, x in enumerate(labels) if i not in (first, second)]
            labels = kept + [labels[first]]  # diagonal puts the diagonal last
        if any(n != sizes[label] for n, label in zip(t.shape, labels)):
            t = t.expand([sizes[label] for label in labels])  # dims of size 1 broadcast
        terms.append((t, labels))
    result, labels = terms[0]
    for k, (t, t_labels) in enumerate(terms[1:], start=2):
        needed = set(output).union(*(later for _, later in terms[k:]))
        result, labels = _contract(result, labels, t, t_labels, needed)
    result, labels = _sum_out(result, labels, set(output))
    return result if labels == output else result.permute([labels.index(x) for x in output])


def _einsum_labels(equation: str, ndims: list[int]) -> tuple[list[list[str]], list[str]]:
    """Each operand's labels and the output's, one per dim: the equation's letters, with "..."
    standing for labels "...0", "...1", ... numbered from the right, so that ellipses covering
    different numbers of dims line up (and broadcast) as numpy aligns shapes."""
    lhs, arrow, rhs = equation.replace(" ", "").partition("->")
    terms = lhs.split(",")
    if len(terms) != len(ndims):
        raise InvalidArgumentError(f"einsum: equation {equation!r} has {len(terms)} operand(s), "
                                   f"but {len(ndims)} were given")
    inputs = []
    for k, (term, ndim) in enumerate(zip(terms, ndims)):
        letters = _einsum_letters(equation, term)
        if "..." not in term and len(letters) != ndim or len(letters) > ndim:
            raise InvalidArgumentError(f"einsum: operand {k} has {ndim} dims, but its subscripts "
                                       f"{term!r} in {equation!r} name {len(letters)}")
        inputs.append(_expand_ellipsis(term, ndim - len(letters)))
    ellipsis = max(([x for x in labels if x.startswith("...")] for labels in inputs), key=len,
                   default=[])
    if not arrow:
        used = [x for labels in inputs for x in labels if not x.startswith("...")]
        return inputs, ellipsis + sorted(x for x in set(used) if used.count(x) == 1)
    output = _expand_ellipsis(rhs, len(ellipsis))
    for x in _einsum_letters(equation, rhs):
        if output.count(x) > 1 or not any(x in labels for labels in inputs):
            raise InvalidArgumentError(f"einsum: output subscript {x!r} in {equation!r} must "
                                       "appear once in the output and in some operand")
    return inputs, output


def _einsum_letters(equation: str, term: str) -> str:
    """The letters of one term (checked: ASCII letters and at most one "...")."""
    letters = term.replace("...", "", 1)
    if not all(c.isascii() and c.isalpha() for c in letters):
        raise InvalidArgumentError("einsum: subscripts must be letters (and one '...' per term), "
                                   f"got {term!r} in {equation!r}")
    return letters


def _expand_ellipsis(term: str, count: int) -> list[str]:
    before, dots, after = term.partition("...")
    return [*before, *(f"...{i}" for i in reversed(range(count if dots else 0))), *after]


def _einsum_sizes(equation: str, inputs: list[list[str]], operands: Sequence[Tensor]
                  ) -> dict[str, int]:
    """Each label's size; a dim of size 1 broadcasts to the label's other size, and a letter
    repeated within one operand must have one size there."""
    sizes: dict[str, int] = {}
    for k, (labels, t) in enumerate(zip(inputs, operands)):
        own: dict[str, int] = {}
        for label, n in zip(labels, t.shape):
            if own.setdefault(label, n) != n:
                raise InvalidArgumentError(f"einsum: subscript {label!r} is repeated in operand "
                                           f"{k} of {equation!r} with different sizes "
                                           f"{own[label]} and {n}")
            if sizes.get(label, 1) not in (1, n) and n != 1:
                raise InvalidArgumentError(f"einsum: subscript {label!r} in {equation!r} has size "
                                           f"{n} in operand {k} but size {sizes[label]} before")
            sizes[label] = n if n != 1 else sizes.get(label, 1)
    return sizes


def _sum_out(t: Tensor, labels: list[str], keep: set[str]) -> tuple[Tensor, list[str]]:
    """t summed over the dims whose labels are not in `keep`."""
    summed = [i for i, label in enumerate(labels) if label not in keep]
    if not summed:
        return t, labels
    return t.sum(summed), [label for label in labels if label in keep]


def _contract(a: Tensor, a_labels: list[str], b: Tensor, b_labels: list[str], keep: set[str]
              ) -> tuple[Tensor, list[str]]:
    """a times b, summed over the labels they share that `keep` lacks, as one batched matmul:
    (batch, a's own, summed) @ (batch, summed, b's own), where batch are the shared labels
    kept."""
    a, a_labels = _sum_out(a, a_labels, keep | set(b_labels))
    b, b_labels = _sum_out(b, b_labels, keep | set(a_labels))
    batch = [x for x in a_labels if x in b_labels and x in keep]
    summed = [x for x in a_labels if x in b_labels and x not in keep]
    a_own = [x for x in a_labels if x not in b_labels]
    b_own = [x for x in b_labels if x not in a_labels]
    size = dict(zip(a_labels, a.shape)) | dict(zip(b_labels, b.shape))

    def grouped(t: Tensor, labels: list[str], groups: list[list[str]]) -> Tensor:
        """t with its dims ordered as `groups` and each group merged into one dim."""
        order = [labels.index(x) for group in groups for x in group]
        return t.permute(order).reshape([math.prod(size[x] for x in g) for g in groups])

    a3 = grouped(a, a_labels, [batch, a_own, summed])
    b3 = grouped(b, b_labels, [batch, summed, b_own])
    # nothing to sum: the inner dim has size 1, and broadcasting multiplies faster than a
    # matmul of 1 x 1 matrices
    product = a3 @ b3 if summed else a3 * b3
    labels = batch + a_own + b_own
    return product.reshape([size[x] for x in labels]), labels


# --------------------------------------------------------------------------------------------
# The Tensor methods PyTorch also has as functions: torch.sum(x, 1) is x.sum(1)
# --------------------------------------------------------------------------------------------
_METHODS = (
    "sum", "mean", "max", "min", "amax", "amin", "argmax", "argmin", "prod", "var", "std",
    "any", "all", "logsumexp", "cumsum", "cumprod", "norm", "logcumsumexp", "cummax", "cummin",
    "sort", "argsort", "topk", "unique",
    "reshape", "permute", "transpose", "flatten", "unflatten", "squeeze", "unsqueeze", "movedim",
    "broadcast_to", "tile", "flip", "roll", "narrow", "split", "chunk", "unbind", "gather",
    "nonzero", "index_select", "take", "scatter_add",
    "scatter", "scatter_reduce", "repeat_interleave", "diag",
    "masked_select", "tril", "triu", "diagonal", "matmul", "dot", "outer",
    "masked_fill", "clone", "numel", "mm", "bmm", "mv", "addmm", "t", "trace", "select",
    "swapaxes", "swapdims", "count_nonzero", "nansum", "softmax", "log_softmax", "addcmul",
    "addcdiv", "frac", "clamp_min", "clamp_max",
)
__all__ += ["einsum", *_METHODS]


def __getattr__(name: str):
    """minigrad.sum and the like are the Tensor methods themselves (one definition, two
    spellings). They are looked up here (PEP 562) rather than assigned, so that `sum`, `max`,
    `min`, `any` and `all` in this module keep meaning Python's builtins."""
    if name in _METHODS:
        return getattr(Tensor, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
