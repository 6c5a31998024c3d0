"""Scaled dot-product and multi-head attention, as in the attention tutorial, on minigrad.

    Attention(Q, K, V) = softmax(Q K^T / sqrt(d_k)) V

Each query scores every key by a dot product, the scores are scaled by 1/sqrt(d_k) (so their
spread does not grow with the head size and saturate the softmax), turned into weights that sum to
1, and the output is the weighted mix of the values. A mask (True = may attend) hides positions by
setting their scores to -inf before the softmax, which gives them weight 0.

Run `python -m models.attention` for the tutorial's worked example, step by step.
"""
from __future__ import annotations

import math
import signal
from typing import Any

import numpy as np

import minigrad.functional as F
from minigrad import Tensor, is_fused_enabled, is_grad_enabled, kernels, nn


def create_causal_mask(seq_len: int) -> np.ndarray:
    """Bool (seq_len, seq_len): True where query i may attend key j, i.e. j <= i."""
    return np.tril(np.ones((seq_len, seq_len), dtype=bool))


def _as_tensor(x: Any) -> Tensor:
    return x if isinstance(x, Tensor) else Tensor(x)


def scaled_dot_product_attention(query: Any, key: Any, value: Any,
                                 mask: Any = None) -> tuple[Tensor, Tensor]:
    """softmax(Q K^T / sqrt(d_k)) V for inputs (..., seq, d) with any leading batch dims.

    `mask` (True = may attend) broadcasts against the scores (..., seq_q, seq_k); a 2-D mask
    applies to every batch and head. Returns (output, attention_weights); a query whose every key
    is masked gets all-zero weights (and output), not NaN.
    """
    # the lines are in minigrad.functional.attention: scores = Q K^T / sqrt(d_k), masked_fill
    # with -inf where the mask is False, softmax over the keys, then the weighted sum of values;
    # with kernels on (the default) one fused op computes the same (minigrad.kernels.Attention)
    return F.attention(_as_tensor(query), _as_tensor(key), _as_tensor(value), mask)


class KVCache:
    """Keys and values of the tokens seen so far, (batch, heads, seq, head_dim) each, so that
    generating a token attends over them instead of recomputing the whole prefix."""

    def __init__(self) -> None:
        self.keys: np.ndarray | None = None
        self.values: np.ndarray | None = None

    def __len__(self) -> int:
        return 0 if self.keys is None else self.keys.shape[-2]

    def extend(self, keys: Tensor, values: Tensor) -> tuple[Tensor, Tensor]:
        """Append the new positions; return all keys and values so far."""
        if self.keys is None:
            self.keys, self.values = keys.data, values.data
        else:
            self.keys = np.concatenate([self.keys, keys.data], axis=-2)
            self.values = np.concatenate([self.values, values.data], axis=-2)
        return Tensor(self.keys), Tensor(self.values)


class MultiHeadAttention(nn.Module):
    """Project to queries, keys and values, split the embedding into `num_heads` heads, attend in
    each head independently, concatenate the heads and project back.

    `forward(query, key, value, mask=None)` takes (batch, seq, embedding_dimension) inputs; the
    last attention weights, (batch, heads, seq_q, seq_k), are kept in `attention_weights`.
    """

    def __init__(self, embedding_dimension: int, num_heads: int,
                 rng: np.random.Generator | None = None, dtype: Any = np.float32) -> None:
        super().__init__()
        if num_heads <= 0 or embedding_dimension % num_heads != 0:
            raise ValueError(f"MultiHeadAttention: embedding_dimension ({embedding_dimension}) "
                             f"must be divisible by num_heads ({num_heads})")
        self.num_heads = num_heads
        self.head_dim = embedding_dimension // num_heads
        self.W_q = nn.Linear(embedding_dimension, embedding_dimension, rng=rng, dtype=dtype)
        self.W_k = nn.Linear(embedding_dimension, embedding_dimension, rng=rng, dtype=dtype)
        self.W_v = nn.Linear(embedding_dimension, embedding_dimension, rng=rng, dtype=dtype)
        self.W_o = nn.Linear(embedding_dimension, embedding_dimension, rng=rng, dtype=dtype)
        self.attention_weights: np.ndarray | None = None
        # W_q, W_k, W_v stay three parameters, but their arrays are consecutive views of one
        # weight and one bias buffer, so that generating a token multiplies by all three without
        # copying them together (which took as long as the product)
        self._packed: dict[str, np.ndarray] = {}
        self._packed_views: dict[str, list[np.ndarray]] = {}
        for name in ("weight", "bias"):
            linears = (self.W_q, self.W_k, self.W_v)
            self._packed[name] = np.concatenate([getattr(lin, name).data for lin in linears])
            self._packed_views[name] = np.split(self._packed[name], len(linears))
            for linear, part in zip(linears, self._packed_views[name]):
                getattr(linear, name).data = part

    def _split_heads(self, x: Tensor) -> Tensor:
        batch, seq, _ = x.shape  # (B, T, C) -> (B, H, T, D)
        return x.reshape(batch, seq, self.num_heads, self.head_dim).permute(0, 2, 1, 3)

    def _projections(self) -> list[Tensor]:
        return [t for linear in (self.W_q, self.W_k, self.W_v) for t in (linear.weight,
                                                                          linear.bias)]

    def forward(self, query: Any, key: Any, value: Any, mask: Any = None,
                cache: KVCache | None = None) -> Tensor:
        """With a `cache`, key/value are only the new positions; earlier ones come from it."""
        if query is key is value and cache is None:
            # the lines below for one input, or one kernel (F.self_attention)
            out, weights = F.self_attention(_as_tensor(query), *self._projections(),
                                            self.num_heads, mask)
            self.attention_weights = weights.data
            return self.W_o(out)
        if query is key is value and is_fused_enabled() and not is_grad_enabled():
            # generation: the kernel attends over the cache too (it would cut the keys' and
            # values' gradients, so only when no graph is recorded)
            return self.W_o(self._cached_self_attention(_as_tensor(query), mask, cache))
        q = self._split_heads(self.W_q(_as_tensor(query)))
        k = self._split_heads(self.W_k(_as_tensor(key)))
        v = self._split_heads(self.W_v(_as_tensor(value)))
        if cache is not None:
            k, v = cache.extend(k, v)
        out, weights = scaled_dot_product_attention(q, k, v, mask)
        self.attention_weights = weights.data
        batch, _, seq, _ = out.shape
        merged = out.permute(0, 2, 1, 3).reshape(batch, seq, self.num_heads * self.head_dim)
        return self.W_o(merged)

    def _cached_self_attention(self, x: Tensor, mask: Any, cache: KVCache) -> Tensor:
        """What forward computes before W_o for new positions `x` after those in `cache`, as
        one kernel (minigrad.kernels.SelfAttention, with the cached keys and values as `past`;
        tested equal to the lines of forward)."""
        width = self.num_heads * self.head_dim
        if x.ndim != 3 or x.shape[-1] != width:
            raise ValueError(f"MultiHeadAttention: expected input (batch, seq, {width}), got "
                             f"{x.shape}")
        projections = self._projections()
        # the packed buffers, while every array is still the view made of them (Module.astype
        # or an assignment replaces them)
        views = [view for pair in zip(*self._packed_views.values()) for view in pair]
        packed = None
        if all(t.data is view for t, view in zip(projections, views)):
            packed = (self._packed["weight"], self._packed["bias"])
        weights: list[np.ndarray] = []
        keys_values: list[tuple[np.ndarray, np.ndarray]] = []
        merged = kernels.SelfAttention.apply(
            x, *projections, mask=None if mask is None else np.asarray(mask, dtype=bool),
            num_heads=self.num_heads, weights_out=weights,
            past=(cache.keys, cache.values) if len(cache) else None,
            keys_values_out=keys_values, packed=packed)
        cache.keys, cache.values = keys_values[0]
        weights[0].flags.writeable = False  # the kernel's own array: backward reads it
        self.attention_weights = weights[0]
        return merged


# ----------------------------------------------------------------------------------------------
# The tutorial's demo: python -m models.attention
# ----------------------------------------------------------------------------------------------
SHADES = " .:░▒▓█"  # weight 0, then up to 1/6, 2/6, ... 6/6
LEGEND = ("legend: ' ' 0  . <=1/6  : <=2/6  ░ <=3/6  ▒ <=4/6  ▓ <=5/6  █ <=1\n"
          "        rows: queries, columns: keys")  # two lines, so it fits in 80 columns


def heatmap(weights: np.ndarray, row_labels: list[str], col_labels: list[str],
            show_values: bool = True, cell_width: int | None = None) -> str:
    """Weights in [0, 1] as a grid of block shades (darker = more attention), one row per query.

    With `show_values` each cell also prints the weight; without, cells are `cell_width`
    characters of shade only, so 40 keys fit in 80 columns."""
    if cell_width is None:
        cell_width = 8 if show_values else 2
    width = max([cell_width] + [len(c) for c in col_labels])
    if not np.isfinite(weights).all():
        width = max(width, 3)  # a model with NaN weights: its cells say "nan"
    label_w = max(len(r) for r in row_labels)
    lines = [" " * (label_w + 1) + "".join(c.center(width) for c in col_labels).rstrip()]
    for label, row in zip(row_labels, weights):
        cells = []
        for w in row:
            if not math.isfinite(w):
                cells.append(f"{w:.2f}".center(width))
                continue
            shade = SHADES[min(len(SHADES) - 1, math.ceil(round(float(w), 2) * (len(SHADES) - 1)))]
            cell = f"{shade * 2} {w:.2f}" if show_values else shade * cell_width
            cells.append(cell.center(width))
        lines.append(f"{label.rjust(label_w)} " + "".join(cells).rstrip())
    lines.append(LEGEND)
    return "\n".join(lines)


def _table(matrix: np.ndarray, labels: list[str]) -> str:
    header = " " * 6 + "".join(f"{c:>8}" for c in labels)
    rows = [f"{r:>5} " + "".join(f"{x:8.4f}" for x in row) for r, row in zip(labels, matrix)]
    return "\n".join([header, *rows])


def demo() -> None:
    tokens = ["cat", "sat", "mat"]
    X = np.array([[1.0, 0.5, 0.2, 0.8], [0.3, 0.9, 0.1, 0.4], [0.6, 0.2, 0.7, 0.3]])
    print("Scaled dot-product attention, step by step (identity projections: Q = K = V = X)\n")
    print("X (one row per token, d_k = 4):")
    for t, row in zip(tokens, X):
        print(f"  {t}: {row}")
    q = k = v = Tensor(X, dtype=np.float64)
    d_k = X.shape[-1]
    scores = q @ k.T
    print(f"\n1. scores = Q K^T  (query row . key column)\n{_table(scores.data, tokens)}")
    scaled = scores * (1 / math.sqrt(d_k))
    print(f"\n2. scaled = scores / sqrt(d_k) = scores / {math.sqrt(d_k):g}\n"
          f"{_table(scaled.data, tokens)}")
    weights = F.softmax(scaled, dim=-1)
    print(f"\n3. weights = softmax(scaled) (each row sums to 1)\n{_table(weights.data, tokens)}")
    output = weights @ v
    print("\n4. output = weights V (each token becomes a weighted mix of the values)")
    for t, row in zip(tokens, output.data):
        print(f"  {t}: {np.round(row, 4)}")
    out, w = scaled_dot_product_attention(X, X, X)
    assert np.allclose(out.data, output.data)
    print("\nscaled_dot_product_attention(X, X, X) gives the same output.\n")
    print(heatmap(w.data, tokens, tokens))

    print("\nWith a causal mask (a token sees only itself and the tokens before it):")
    mask = create_causal_mask(3)
    print("mask =\n" + "\n".join("  " + " ".join("1" if m else "0" for m in row) for row in mask))
    _, w_causal = scaled_dot_product_attention(X, X, X, mask)
    print()
    print(heatmap(w_causal.data, tokens, tokens))


if __name__ == "__main__":
    if hasattr(signal, "SIGPIPE"):  # none on Windows
        signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly, as a Unix tool
    demo()
