"""Reduction primitives over `axis` (an int, a tuple of ints, or None for all axes), with
`keepdims`. Their backward spreads G back over the reduced axes (`_expand`)."""
from __future__ import annotations

import numpy as np

from ..engine import Function


class Sum(Function):
    """out = a.sum(axis).   da = G broadcast back over the summed axes"""

    saves_inputs = False

    def forward(self, a: np.ndarray, axis: int | tuple[int, ...] | None = None,
                keepdims: bool = False) -> np.ndarray:
        self.axes = _normalize_axis("Sum", axis, a.ndim)
        self.keepdims, self.shape = keepdims, a.shape
        return a.sum(axis=self.axes, keepdims=keepdims)

    def backward(self, g: np.ndarray) -> np.ndarray:
        return _expand(g, self.axes, self.keepdims, self.shape)


class Max(Function):
    """out = a.max(axis).   da = G at the arg-max, 0 elsewhere; k tied maxima get G / k each"""

    saves_inputs = False

    reduce = staticmethod(np.max)

    def forward(self, a: np.ndarray, axis: int | tuple[int, ...] | None = None,
                keepdims: bool = False) -> np.ndarray:
        self.axes = _normalize_axis(type(self).__name__, axis, a.ndim)
        self.keepdims = keepdims
        out = self.reduce(a, axis=self.axes, keepdims=True)
        # a NaN is the max or min wherever there is one (as in numpy), so its NaNs get the
        # gradient (NaN != NaN is how to find them in any dtype)
        self.is_extreme = (a == out) | ((a != a) & (out != out))
        return out if keepdims else np.squeeze(out, axis=self.axes)

    def backward(self, g: np.ndarray) -> np.ndarray:
        if not self.keepdims:
            g = np.expand_dims(g, self.axes)
        ties = self.is_extreme.sum(axis=self.axes, keepdims=True)
        return np.where(self.is_extreme, g / ties.astype(g.dtype), g.dtype.type(0))


class Min(Max):
    """out = a.min(axis).   da = G at the arg-min, 0 elsewhere; k tied minima get G / k each
    (its own primitive rather than -max(-a), which is wrong for unsigned and bool arrays)"""

    reduce = staticmethod(np.min)


def _normalize_axis(op: str, axis: int | tuple[int, ...] | None, ndim: int) -> tuple[int, ...]:
    """`axis` as a sorted tuple of non-negative axes. A 0-d tensor accepts axis 0 or -1 (as in
    PyTorch) and reduces over nothing."""
    if axis is None:
        return tuple(range(ndim))
    axes = (axis,) if isinstance(axis, (int, np.integer)) else tuple(axis)
    for ax in axes:
        if not -max(ndim, 1) <= ax < max(ndim, 1):
            raise IndexError(f"{op}: axis {ax} is out of range for a tensor with {ndim} dims")
    return tuple(sorted({ax % ndim for ax in axes})) if ndim else ()


def _expand(g: np.ndarray, axes: tuple[int, ...], keepdims: bool,
            shape: tuple[int, ...]) -> np.ndarray:
    """Broadcast a reduced gradient back to the input's shape (a read-only view, no copy)."""
    if not keepdims:
        g = np.expand_dims(g, axes)
    return np.broadcast_to(g, shape)
