"""Tier 3, kernels: fused ops with a hand-derived backward, written for speed.

Each kernel replaces a composition of primitives from `minigrad.functional` (named in its
`replaces` attribute) and computes the same values and gradients (tested equal in float64 to
1e-10) with fewer, larger numpy calls and fewer temporaries. The functional API uses them unless
`minigrad.fused(False)` is in force; the compositions are the readable definition.
"""
from __future__ import annotations

import functools
import math

import numpy as np

from .engine import Function


class Softmax(Function):
    """out = exp(x - max) / sum(exp(x - max)) along `dim`.
    dx = out * (G - sum(G * out, dim))   (a fully masked row gives out = 0 and dx = 0)"""

    saves_output = True

    replaces = "softmax"

    def forward(self, x: np.ndarray, dim: int = -1) -> np.ndarray:
        self.dim = dim
        _, e, s = _stable_exp(x, dim)
        s[s == 0] = 1  # fully masked row: 0 / 1 = 0 instead of 0 / 0
        self.out = e / s
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        out = self.out
        return out * (g - (g * out).sum(axis=self.dim, keepdims=True))


class LogSoftmax(Function):
    """out = x - max - log(sum(exp(x - max))) along `dim`.
    dx = G - softmax(x) * sum(G, dim)"""

    saves_output = True

    replaces = "log_softmax"

    def forward(self, x: np.ndarray, dim: int = -1) -> np.ndarray:
        self.dim = dim
        m, e, s = _stable_exp(x, dim)
        with np.errstate(divide="ignore", invalid="ignore"):  # a fully masked row gives NaN
            self.out = x - (m + np.log(s))
        return self.out

    def backward(self, g: np.ndarray) -> np.ndarray:
        return g - np.exp(self.out) * g.sum(axis=self.dim, keepdims=True)


class CrossEntropy(Function):
    """Mean negative log-likelihood of integer `targets` (N,) under `logits` (N, C), fused with
    log-softmax:  loss = mean_i (logsumexp(x_i) - x_i[t_i]).
    dx = G * (softmax(x) - onehot(t)) / N"""

    replaces = "cross_entropy"

    def forward(self, logits: np.ndarray, targets: np.ndarray) -> np.ndarray:
        m, e, s = _stable_exp(logits, axis=1)
        self.probs = e / s
        self.targets = targets
        rows = np.arange(len(targets))
        return (m[:, 0] + np.log(s[:, 0]) - logits[rows, targets]).mean(dtype=logits.dtype)

    def backward(self, g: np.ndarray) -> np.ndarray:
        n = len(self.targets)
        dx = self.probs.copy()
        dx[np.arange(n), self.targets] -= 1
        dx *= g / n
        return dx


class LayerNorm(Function):
    """Normalise over the last axis, then scale and shift:
    xhat = (x - mean) / sqrt(var + eps),  out = xhat * w + b.
    dw = sum(G * xhat),  db = sum(G)   (over all leading axes)
    dx = (dxhat - mean(dxhat) - xhat * mean(dxhat * xhat)) / sqrt(var + eps),  dxhat = G * w"""

    replaces = "layer_norm"

    def forward(self, x: np.ndarray, weight: np.ndarray, bias: np.ndarray,
                eps: float = 1e-5) -> np.ndarray:
        rows = x.reshape(-1, x.shape[-1])  # every leading axis is a row to normalise
        xhat = rows - _row_means(rows)[:, None]
        var = _row_means(xhat * xhat)
        self.rstd = (1 / np.sqrt(var + x.dtype.type(eps)))[:, None]
        xhat *= self.rstd
        self.xhat, self.weight, self.shape = xhat, weight, x.shape
        out = xhat * weight
        out += bias
        return out.reshape(x.shape)

    def backward(self, g: np.ndarray
                 ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        xhat, weight = self.xhat, self.weight
        g = g.reshape(xhat.shape)
        g_xhat = g * xhat
        dw = _column_sums(g_xhat) if self.needs_input_grad[1] else None
        db = _column_sums(g) if self.needs_input_grad[2] else None
        dx = None
        if self.needs_input_grad[0]:
            # the row means of dxhat = G * w and of dxhat * xhat are G and G * xhat times w / n:
            # matrix-vector products, with no dxhat * xhat pass
            weight_mean = weight / weight.dtype.type(len(weight))
            dx = g * weight
            dx -= (g @ weight_mean)[:, None]
            dx -= np.multiply(xhat, (g_xhat @ weight_mean)[:, None], out=g_xhat)
            dx *= self.rstd
            dx = dx.reshape(self.shape)
        return dx, dw, db


_GELU_C = math.sqrt(2 / math.pi)
_GELU_K = 0.044715


class Gelu(Function):
    """GELU, tanh approximation (GPT-2):  out = 0.5 a (1 + tanh(u)),  u = c (a + 0.044715 a**3),
    c = sqrt(2/pi).
    da = G * (s + out (1 - s) c' (1 + 3 * 0.044715 a**2)),  s = 0.5 (1 + tanh(u)), c' = 2c

    0.5 (1 + tanh(u)) is the logistic sigmoid of 2u, 1 / (1 + exp(-2u)): one exp, which numpy
    computes faster than tanh, and nothing left to add or halve. Both passes work in place on a
    few buffers (no temporary per arithmetic step); the backward reuses the forward's a**2, s and
    output. a**2 is a*a: np.power is many times slower."""

    saves_output = True

    replaces = "gelu"

    def forward(self, a: np.ndarray) -> np.ndarray:
        k, c = a.dtype.type(_GELU_K), a.dtype.type(_GELU_C)
        square = a * a
        s = square * (-2 * c * k)
        s -= 2 * c
        s *= a  # -2u
        with np.errstate(over="ignore"):  # exp(-2u) = inf for a << 0: s = 1 / inf = 0, its limit
            np.exp(s, out=s)
        s += 1
        np.divide(1, s, out=s)  # faster than np.reciprocal
        out = a * s
        self.square, self.s, self.out = square, s, out
        return out

    def backward(self, g: np.ndarray) -> np.ndarray:
        k, c = g.dtype.type(_GELU_K), g.dtype.type(_GELU_C)
        s = self.s
        da = self.square * (6 * c * k)  # becomes c' (1 + 3k a^2), then the whole derivative
        da += 2 * c
        # (1 - s) before out: for large a it is 0, where c' (1 + 3k a^2) * out would overflow
        # first (inf * 0 = NaN; float32 from a ~ 1e13)
        da *= np.subtract(1, s, dtype=s.dtype)
        da *= self.out
        da += s
        da *= g
        return da


class Affine(Function):
    """A Linear layer as one op: out = x @ W.T + b, x (..., in), W (out, in), b (out,) optional.
    dx = G @ W,  dW = G.T @ x,  db = sum(G)   (x and G flattened to rows: one GEMM each, however
    many leading dims x has)"""

    replaces = "linear"
    reads_inputs_for_the_others = True  # x for dW, W for dx; the bias for nothing

    def forward(self, x: np.ndarray, weight: np.ndarray,
                bias: np.ndarray | None = None) -> np.ndarray:
        rows = _as_rows(x)
        out = rows @ weight.T
        if bias is not None:
            out += bias
        self.rows, self.weight, self.shape = rows, weight, x.shape
        return out.reshape(*x.shape[:-1], weight.shape[0])

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, ...]:
        g = _as_rows(g)
        dx = (g @ self.weight).reshape(self.shape) if self.needs_input_grad[0] else None
        dw = g.T @ self.rows if self.needs_input_grad[1] else None
        if len(self.needs_input_grad) == 2:  # no bias
            return dx, dw
        db = _column_sums(g) if self.needs_input_grad[2] else None
        return dx, dw, db


def _as_rows(a: np.ndarray) -> np.ndarray:
    """`a` as a matrix whose rows are its last dim's vectors; with the row count spelled out,
    as -1 is ambiguous for a last dim of size 0."""
    return a.reshape(math.prod(a.shape[:-1]), a.shape[-1])


class Embedding(Function):
    """Rows of a table picked by integer ids:  out = weight[ids]   (ids of any shape).
    dweight = zeros like weight, with each row of G added at its id (repeated ids accumulate)

    The backward sorts the ids and sums each id's rows with one np.add.reduceat: np.add.at
    scatters row by row and costs several times more."""

    replaces = "embedding"
    saves_inputs = False  # backward reads the ids and weight's shape, never its values

    def forward(self, weight: np.ndarray, ids: np.ndarray) -> np.ndarray:
        self.ids, self.shape = ids.reshape(-1), weight.shape
        return np.take(weight, ids, axis=0)

    def backward(self, g: np.ndarray) -> np.ndarray:
        dw = np.zeros(self.shape, dtype=g.dtype)
        if self.ids.size:
            order = np.argsort(self.ids, kind="stable")  # stable: each id's rows in order
            ids = self.ids[order]
            starts = np.flatnonzero(np.r_[True, ids[1:] != ids[:-1]])  # first row of each id
            rows = g.reshape(len(self.ids), -1)[order]
            dw.reshape(self.shape[0], -1)[ids[starts]] = np.add.reduceat(rows, starts)
        return dw


class Attention(Function):
    """Scaled dot-product attention as one op:
    S = Q K^T * scale (1/sqrt(d) by default), S = -inf where mask is False, P = softmax(S) over
    keys, out = P V.
    dV = P^T G,  dP = G V^T,  dS = P * (dP - sum(dP * P, keys)) * scale,  dQ = dS K,
    dK = dS^T Q   (masked entries have P = 0, so dS = 0 there; a fully masked row gives 0)"""

    replaces = "attention"

    def forward(self, q: np.ndarray, k: np.ndarray, v: np.ndarray,
                mask: np.ndarray | None = None, scale: float | None = None,
                weights_out: list[np.ndarray] | None = None) -> np.ndarray:
        self.scale = 1 / math.sqrt(q.shape[-1]) if scale is None else scale
        out, self.p = _attend(q, k, v, mask, self.scale)
        self.q, self.k, self.v = q, k, v
        if weights_out is not None:
            weights_out.append(self.p)
        return out

    def backward(self, g: np.ndarray
                 ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
        return _attend_backward(g, self.p, self.q, self.k, self.v, self.scale,
                                self.needs_input_grad)


class SelfAttention(Function):
    """Multi-head self-attention up to the output projection, as one op: the query, key and
    value projections of one input x (B, T, C) with one GEMM, then Attention in each of `h`
    heads of size d = C / h, the heads merged back to (B, T, C):
    [Q K V] = x [W_q; W_k; W_v]^T + [b_q b_k b_v],  out = merge_heads(attention(Q, K, V, mask))
    dx = G_qkv [W_q; W_k; W_v],  d[W_q; W_k; W_v] = G_qkv^T x,  d[b_q b_k b_v] = sum(G_qkv),
    G_qkv = [dQ dK dV] merged (Attention's gradients, computed from G split into heads)

    It replaces `self_attention`: the three `linear` calls, the head split, `attention` and the
    head merge. The projections read and write one (B, T, 3, h, d) buffer whose heads are
    strided views, so no head split or merge copies anything. `past` = (keys, values), arrays
    (B, h, T_past, d) of earlier positions (a KV cache), are put before the new keys and values
    as constants; `keys_values_out` receives all the keys and values attended over. `packed` =
    ([W_q; W_k; W_v], [b_q b_k b_v]) when the caller keeps the three weights and biases as
    consecutive views of these arrays (`models.attention.MultiHeadAttention` does, and passes
    the cache): generating a token, copying them together took as long as the product with
    them."""

    replaces = "self_attention"

    def forward(self, x: np.ndarray, w_q: np.ndarray, b_q: np.ndarray, w_k: np.ndarray,
                b_k: np.ndarray, w_v: np.ndarray, b_v: np.ndarray,
                mask: np.ndarray | None = None, num_heads: int = 1,
                weights_out: list[np.ndarray] | None = None,
                past: tuple[np.ndarray, np.ndarray] | None = None,
                keys_values_out: list[tuple[np.ndarray, np.ndarray]] | None = None,
                packed: tuple[np.ndarray, np.ndarray] | None = None) -> np.ndarray:
        batch, seq, width = x.shape
        self.rows = x.reshape(-1, width)
        self.weight = np.concatenate([w_q, w_k, w_v]) if packed is None else packed[0]
        qkv = self.rows @ self.weight.T
        qkv += np.concatenate([b_q, b_k, b_v]) if packed is None else packed[1]
        self.heads = (batch, seq, num_heads, width // num_heads)
        q, k, v = _heads_of(qkv.reshape(batch, seq, 3, *self.heads[2:]))
        self.past_len = 0
        if past is not None:
            self.past_len = past[0].shape[-2]
            k, v = (np.concatenate([old, new], axis=-2) for old, new in zip(past, (k, v)))
        if keys_values_out is not None:
            keys_values_out.append((k, v))
        merged = np.empty(self.heads, dtype=x.dtype)
        self.scale = 1 / math.sqrt(self.heads[3])
        _, self.p = _attend(q, k, v, mask, self.scale, out=merged.transpose(0, 2, 1, 3))
        self.q, self.k, self.v = q, k, v
        if weights_out is not None:
            weights_out.append(self.p)
        return merged.reshape(x.shape)

    def backward(self, g: np.ndarray) -> tuple[np.ndarray | None, ...]:
        batch, seq, heads, head = self.heads
        g_qkv = np.empty((batch, seq, 3, heads, head), dtype=g.dtype)
        dq, dk, dv = _heads_of(g_qkv)
        g_heads = g.reshape(self.heads).transpose(0, 2, 1, 3)
        if self.past_len:  # the cached positions are constants: keep the new ones' gradients
            _, dk_all, dv_all = _attend_backward(g_heads, self.p, self.q, self.k, self.v,
                                                 self.scale, (True, True, True),
                                                 out=(dq, None, None))
            dk[...], dv[...] = dk_all[..., self.past_len:, :], dv_all[..., self.past_len:, :]
        else:
            _attend_backward(g_heads, self.p, self.q, self.k, self.v, self.scale,
                             (True, True, True), out=(dq, dk, dv))
        g_rows = g_qkv.reshape(batch * seq, -1)
        needs = self.needs_input_grad
        dx = (g_rows @ self.weight).reshape(batch, seq, -1) if needs[0] else None
        dw = np.split(g_rows.T @ self.rows, 3) if any(needs[1::2]) else (None,) * 3
        db = np.split(_column_sums(g_rows), 3) if any(needs[2::2]) else (None,) * 3
        return dx, dw[0], db[0], dw[1], db[1], dw[2], db[2]


def _heads_of(qkv: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Q, K and V as (B, h, T, d) views of a (B, T, 3, h, d) array."""
    return tuple(qkv[:, :, i].transpose(0, 2, 1, 3) for i in range(3))


def _attend(q: np.ndarray, k: np.ndarray, v: np.ndarray, mask: np.ndarray | None, scale: float,
            out: np.ndarray | None = None) -> tuple[np.ndarray, np.ndarray]:
    """softmax(Q K^T * scale, masked) V over the last two axes, into `out` when given;
    returns (out, P)."""
    scores = q @ np.swapaxes(k, -1, -2)
    scores *= scores.dtype.type(scale)
    if mask is not None:
        np.copyto(scores, -np.inf, where=~mask)
    # softmax in place over the keys (last axis); no keys: max -inf (`initial`), output zeros
    m = scores.max(axis=-1, keepdims=True, initial=-np.inf)
    if mask is not None:
        m[np.isneginf(m)] = 0  # a fully masked row: exp(-inf - 0) = 0, not NaN
    scores -= m
    np.exp(scores, out=scores)
    total = _last_axis_sums(scores)
    if mask is not None:
        total[total == 0] = 1  # a fully masked row's weights stay 0
    scores /= total
    return np.matmul(scores, v, out=out), scores


def _attend_backward(g: np.ndarray, p: np.ndarray, q: np.ndarray, k: np.ndarray,
                     v: np.ndarray, scale: float, needs: tuple[bool, ...],
                     out: tuple[np.ndarray | None, ...] = (None, None, None)
                     ) -> tuple[np.ndarray | None, np.ndarray | None, np.ndarray | None]:
    """(dQ, dK, dV) of `_attend` for the inputs in `needs`, into the arrays of `out`."""
    dq_out, dk_out, dv_out = out
    dv = np.matmul(np.swapaxes(p, -1, -2), g, out=dv_out) if needs[2] else None
    ds = g @ np.swapaxes(v, -1, -2)  # dP, turned into dS in place
    ds -= _last_axis_sums(ds * p)
    ds *= p
    ds *= ds.dtype.type(scale)
    dq = np.matmul(ds, k, out=dq_out) if needs[0] else None
    dk = np.matmul(np.swapaxes(ds, -1, -2), q, out=dk_out) if needs[1] else None
    return dq, dk, dv


# --------------------------------------------------------------------------------------------
# Helpers: row sums and means as matrix-vector products (BLAS does them several times faster
# than np.sum / np.mean over a short last axis)
# --------------------------------------------------------------------------------------------
def _stable_exp(x: np.ndarray, axis: int) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """exp(x - max) and its sum along `axis`. A row that is entirely -inf (fully masked) has
    max -inf; shifting by 0 instead keeps it at exp(-inf) = 0 rather than NaN (a row holding
    +inf or NaN stays NaN, as in PyTorch, without numpy's warning about inf - inf: about 2 us
    a call, lost in the noise of a (12, 4, 64, 64) softmax's 1 ms). An empty `axis` has max
    -inf too (`initial`)."""
    m = x.max(axis=axis, keepdims=True, initial=-np.inf)
    m[np.isneginf(m)] = 0
    with np.errstate(invalid="ignore"):
        e = np.exp(x - m)
    return m, e, e.sum(axis=axis, keepdims=True)


@functools.lru_cache(maxsize=64)
def _constant_vector(n: int, value: float, dtype: np.dtype) -> np.ndarray:
    vector = np.full(n, value, dtype=dtype)
    vector.flags.writeable = False  # shared between calls
    return vector


def _row_means(rows: np.ndarray) -> np.ndarray:
    """Mean of each row of a 2-D array."""
    return rows @ _constant_vector(rows.shape[1], 1 / rows.shape[1], rows.dtype)


def _last_axis_sums(x: np.ndarray) -> np.ndarray:
    """x.sum(axis=-1, keepdims=True)."""
    return (x @ _constant_vector(x.shape[-1], 1.0, x.dtype))[..., None]


def _column_sums(rows: np.ndarray) -> np.ndarray:
    """Sum over the rows of a 2-D array."""
    return _constant_vector(rows.shape[0], 1.0, rows.dtype) @ rows
