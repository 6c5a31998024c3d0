"""Tier 2, compositions: the functions PyTorch has at the top level (`torch.cat`, `torch.where`,
`torch.zeros`, ...), exported as `minigrad.cat`, `minigrad.where`, `minigrad.zeros`, ...

Each is a primitive applied to its inputs or a few readable lines of Tensor methods; none has a
backward of its own.
"""
from __future__ import annotations

from typing import Sequence

import numpy as np

from . import ops
from .engine import ArrayLike
from .tensor import Tensor, _as_array

__all__ = ["cat", "stack", "where"]


# --------------------------------------------------------------------------------------------
# Joining and selecting
# --------------------------------------------------------------------------------------------
def cat(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors along an existing dim `dim` (their other dims must agree)."""
    return ops.Concat.apply(*tensors, axis=dim)


def stack(tensors: Sequence[Tensor], dim: int = 0) -> Tensor:
    """Join tensors of one shape along a new dim `dim`."""
    shapes = {t.shape for t in tensors}
    if len(shapes) != 1:
        raise ValueError(f"stack: tensors must all have the same shape, got "
                         f"{[t.shape for t in tensors]}")
    ndim = len(shapes.pop()) + 1
    if not -ndim <= dim < ndim:
        raise ValueError(f"stack: dim {dim} is out of range for the result's {ndim} dims")
    dim %= ndim
    return cat([t.reshape(*t.shape[:dim], 1, *t.shape[dim:]) for t in tensors], dim)


def where(condition: ArrayLike, input: ArrayLike, other: ArrayLike) -> Tensor:
    """`input` where `condition` is True, else `other` (they broadcast; a scalar takes the
    other's dtype)."""
    if isinstance(input, Tensor):
        other = input._lift(other)
    elif isinstance(other, Tensor):
        input = other._lift(input)
    return ops.Where.apply(input, other, cond=np.asarray(_as_array(condition), dtype=bool))
