"""The matrix product primitive, with numpy's rules: 1-D operands and broadcast batch dims."""
from __future__ import annotations

import numpy as np

from ..engine import Function
from ..errors import InvalidArgumentError


class MatMul(Function):
    """out = a @ b (np.matmul: 1-D, 2-D or batched N-D with broadcast batch dims).
    da = G @ b.T,  db = a.T @ G   (.T swaps the last two axes; batch dims summed where broadcast;
    a 1-D operand is treated as a row (a) or column (b) vector)"""

    reads_inputs_for_the_others = True

    def forward(self, a: np.ndarray, b: np.ndarray) -> np.ndarray:
        self.a, self.b = a, b
        try:
            return a @ b
        except ValueError:
            raise _shape_error(a.shape, b.shape) from None

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, np.ndarray | None]:
        a, b = self.a, self.b
        # view 1-D operands as matrices, so one formula covers all cases
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        if b.ndim == 1:
            g = g[..., None]
        if a.ndim == 1:
            g = g[..., None, :]
        da = _squeeze_to(g @ np.swapaxes(b2, -1, -2), a) if self.needs_input_grad[0] else None
        db = _squeeze_to(np.swapaxes(a2, -1, -2) @ g, b) if self.needs_input_grad[1] else None
        return da, db


def _squeeze_to(grad: np.ndarray, operand: np.ndarray) -> np.ndarray:
    """A 1-D operand's gradient, computed as a row or column matrix, back to 1-D (batch dims it
    was broadcast over stay: the engine sums them away)."""
    if operand.ndim == 1:
        grad = grad.sum(axis=tuple(range(grad.ndim - 2))).reshape(operand.shape)
    return grad


def _shape_error(a_shape: tuple[int, ...], b_shape: tuple[int, ...]) -> InvalidArgumentError:
    return InvalidArgumentError(f"MatMul: shapes {a_shape} and {b_shape} do not fit: the last dim "
                                f"of the first must equal the second-to-last dim of the second, "
                                f"and the batch dims (all but the last two) must broadcast")
