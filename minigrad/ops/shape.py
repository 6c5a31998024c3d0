"""Primitives that move entries around without arithmetic: their backward moves G back the same
way."""
from __future__ import annotations

from typing import Any

import numpy as np

from ..engine import Function
from ..errors import InvalidArgumentError


class Reshape(Function):
    """out = a.reshape(shape).   da = G.reshape(a.shape)"""

    saves_inputs = False

    def forward(self, a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        self.in_shape = a.shape
        try:
            return a.reshape(shape)
        except ValueError:
            raise InvalidArgumentError(f"Reshape: cannot reshape a tensor of shape {a.shape} "
                                       f"({a.size} entries) into {tuple(shape)}") from None

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g.reshape(self.in_shape)


class Transpose(Function):
    """out = a.transpose(axes), so out.shape[i] = a.shape[axes[i]].
    da = G.transpose(argsort(axes))"""

    saves_inputs = False

    def forward(self, a: np.ndarray, axes: tuple[int, ...]) -> np.ndarray:
        self.axes = tuple(axes)
        try:
            return a.transpose(self.axes)
        except (ValueError, TypeError):
            raise InvalidArgumentError(f"Transpose: axes {self.axes} are not a permutation of the "
                                       f"{a.ndim} axes of a tensor of shape {a.shape}") from None

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g.transpose(np.argsort([ax % g.ndim for ax in self.axes]))


class GetItem(Function):
    """out = a[index]  (ints, slices, None, Ellipsis, integer or bool arrays).
    da = zeros like a, with G scatter-added at `index` (repeated indices accumulate)"""

    saves_inputs = False

    def forward(self, a: np.ndarray, index: Any) -> np.ndarray:
        self.index, self.shape = index, a.shape
        try:
            return a[index]
        except IndexError as err:
            raise IndexError(f"GetItem: {err} (tensor shape {a.shape})") from None

    def backward(self, g: np.ndarray) -> np.ndarray:
        da = np.zeros(self.shape, dtype=g.dtype)
        if _is_advanced(self.index):
            np.add.at(da, self.index, g)
        else:
            da[self.index] = g  # basic indexing picks each entry at most once
        return da


class ScatterAdd(Function):
    """out = a with src added at `index` (np.add.at: repeated positions accumulate; `index` as
    in GetItem, src shaped like a[index]).   da = G,  dsrc = G[index]
    (GetItem's adjoint: each one's backward is the other's forward)"""

    saves_inputs = False

    def forward(self, a: np.ndarray, src: np.ndarray, index: Any) -> np.ndarray:
        self.index = index
        out = a.copy()
        np.add.at(out, index, src)
        return out

    def backward(self, g: np.ndarray) -> tuple[np.ndarray, np.ndarray | None]:
        dsrc = g[self.index] if self.needs_input_grad[1] else None
        return g, dsrc


class IndexPut(Function):
    """out = a with value written at `index` (value broadcast to a[index]'s shape; `index` as
    in GetItem; of repeated positions one write is kept).
    da = G with zeros at `index`,  dvalue = G[index]   (what was overwritten gets no gradient)"""

    saves_inputs = False

    def forward(self, a: np.ndarray, value: np.ndarray, index: Any) -> np.ndarray:
        self.index = index
        out = a.copy()
        out[index] = value
        return out

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        da = None
        if self.needs_input_grad[0]:
            da = np.array(g)  # g.copy() of a 0-d gradient (a numpy scalar) is a scalar
            da[self.index] = 0
        dvalue = g[self.index] if self.needs_input_grad[1] else None
        return da, dvalue


class BroadcastTo(Function):
    """out = broadcast_to(a, shape): a repeated along new leading dims and along its dims of
    size 1.   da = G summed over the repeated dims (the engine's unbroadcast does that, so
    backward hands G back as it is)"""

    saves_inputs = False

    def forward(self, a: np.ndarray, shape: tuple[int, ...]) -> np.ndarray:
        return np.broadcast_to(a, shape)  # a read-only view: no copy

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g


class Concat(Function):
    """out = concatenate(tensors, axis).   d tensor_i = the slice of G that tensor_i filled"""

    saves_inputs = False

    def forward(self, *arrays: np.ndarray, axis: int = 0) -> np.ndarray:
        try:
            out = np.concatenate(arrays, axis=axis)
        except ValueError:  # numpy's AxisError is one
            raise InvalidArgumentError("Concat: cannot concatenate shapes "
                                       f"{[a.shape for a in arrays]} along axis {axis}") from None
        self.axis = axis % out.ndim
        self.splits = np.cumsum([a.shape[self.axis] for a in arrays])[:-1]
        return out

    def backward(self, g: np.ndarray) -> tuple[np.ndarray, ...]:
        return tuple(np.split(g, self.splits, axis=self.axis))


def _is_advanced(index: Any) -> bool:
    """True when numpy would use advanced (integer-array) indexing, which can repeat entries."""
    parts = index if isinstance(index, tuple) else (index,)
    return any(isinstance(p, (np.ndarray, list, tuple)) for p in parts)  # a tuple: a sequence
