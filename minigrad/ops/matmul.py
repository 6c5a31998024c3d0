"""Matrix product, with numpy's rules: 1-D operands and broadcast batch dimensions."""
from __future__ import annotations

import numpy as np

from ..engine import Function, unbroadcast


class MatMul(Function):
    """out = a @ b (np.matmul: 1-D, 2-D or batched N-D with broadcast batch dims).
    da = G @ b.T,  db = a.T @ G   (.T swaps the last two axes; batch dims summed where broadcast;
    a 1-D operand is treated as a row (a) or column (b) vector)"""

    def forward(self, a, b):
        if a.ndim == 0 or b.ndim == 0 or a.shape[-1] != b.shape[-2 if b.ndim > 1 else 0]:
            raise ValueError(f"MatMul: shapes {a.shape} and {b.shape} do not fit: the last dim of "
                             f"the first must equal the second-to-last dim of the second")
        self.a, self.b = a, b
        if b.ndim == 2 and a.ndim > 2:
            # (..., k) @ (k, n) as one 2-D GEMM over all the leading rows: BLAS likes it big
            return (a.reshape(-1, a.shape[-1]) @ b).reshape(*a.shape[:-1], b.shape[1])
        return a @ b

    def backward(self, g):
        a, b = self.a, self.b
        # view 1-D operands as matrices, so one formula covers all cases
        a2 = a[None, :] if a.ndim == 1 else a
        b2 = b[:, None] if b.ndim == 1 else b
        if b.ndim == 1:
            g = g[..., None]
        if a.ndim == 1:
            g = g[..., None, :]
        da = db = None
        if self.needs_input_grad[0]:
            if b2.ndim == 2 and g.ndim > 2:
                da = (g.reshape(-1, g.shape[-1]) @ b2.T).reshape(*g.shape[:-1], b2.shape[0])
            else:
                da = g @ np.swapaxes(b2, -1, -2)
            da = unbroadcast(da, a2.shape).reshape(a.shape)
        if self.needs_input_grad[1]:
            if b2.ndim == 2 and a2.ndim > 2:
                # the weight's gradient sums over every leading row: one (k, rows) @ (rows, n) GEMM
                db = a2.reshape(-1, a2.shape[-1]).T @ g.reshape(-1, g.shape[-1])
            else:
                db = unbroadcast(np.swapaxes(a2, -1, -2) @ g, b2.shape)
            db = db.reshape(b.shape)
        return da, db
