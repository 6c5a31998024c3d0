"""A GPT-style character language model on minigrad (the shape of nanoGPT's model.py).

    tokens -> token embedding + position embedding
           -> n_layer x [x + attention(LayerNorm(x)),  x + MLP(LayerNorm(x))]
           -> LayerNorm -> logits = x @ token_embedding.T  (the head is tied to the embedding)
"""
from __future__ import annotations

import math
from dataclasses import dataclass, replace
from typing import Any, Callable, Iterable, Iterator, Sequence

import numpy as np

import minigrad.functional as F
from minigrad import Tensor, nn, no_grad

from .attention import KVCache, MultiHeadAttention, create_causal_mask


class CharTokenizer:
    """Characters <-> integer ids; the vocabulary is the sorted set of a text's characters."""

    def __init__(self, chars: str | list[str]) -> None:
        self.chars = sorted(set(chars))
        self.index = {c: i for i, c in enumerate(self.chars)}

    @classmethod
    def from_text(cls, text: str) -> CharTokenizer:
        return cls(text)

    @property
    def vocab_size(self) -> int:
        return len(self.chars)

    def encode(self, text: str) -> np.ndarray:
        unknown = sorted(set(text) - set(self.index))
        if unknown:
            raise ValueError(f"the text holds characters that are not in the vocabulary: "
                             f"{''.join(unknown)!r}; use only characters the model was trained on")
        return np.array([self.index[c] for c in text], dtype=np.int64)

    def default_prompt(self) -> str:
        """A newline (the start of a line) when the vocabulary has one, else its first character."""
        return "\n" if "\n" in self.index else self.chars[0]

    def decode(self, ids: Any) -> str:
        return "".join(self.chars[int(i)] for i in np.asarray(ids).reshape(-1))


@dataclass
class GPTConfig:
    vocab_size: int = 65
    block_size: int = 64
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    dropout: float = 0.0

    def validate(self) -> None:
        for name in ("vocab_size", "block_size", "n_layer", "n_head", "n_embd"):
            if getattr(self, name) <= 0:
                raise ValueError(f"{name} must be positive, got {getattr(self, name)}")
        if self.n_embd % self.n_head != 0:
            raise ValueError(f"n_embd ({self.n_embd}) must be divisible by n_head "
                             f"({self.n_head})")
        if not 0 <= self.dropout < 1:
            raise ValueError(f"dropout must be in [0, 1), got {self.dropout}")

    def parameter_shapes(self) -> dict[str, tuple[int, ...]]:
        """The name and shape of each parameter of the model this config describes, in
        `GPT.named_parameters` order, without building it (a large one takes minutes to build):
        what a checkpoint's weights must look like."""
        n = self.n_embd
        shapes = {"wte.weight": (self.vocab_size, n), "wpe.weight": (self.block_size, n)}
        block = self._block_shapes()
        for i in range(self.n_layer):
            shapes.update({f"blocks.{i}.{name}": shape for name, shape in block.items()})
        # the output head is the token embedding: no weight of its own
        shapes.update({"ln_f.weight": (n,), "ln_f.bias": (n,)})
        return shapes

    def _block_shapes(self) -> dict[str, tuple[int, ...]]:
        """A transformer block's parameters, named within the block."""
        n = self.n_embd

        def layer(name: str, n_in: int, n_out: int) -> dict[str, tuple[int, ...]]:
            return {f"{name}.weight": (n_out, n_in), f"{name}.bias": (n_out,)}

        def layer_norm(name: str) -> dict[str, tuple[int, ...]]:
            return {f"{name}.weight": (n,), f"{name}.bias": (n,)}

        return {**layer_norm("ln_1"),
                **{k: v for p in ("W_q", "W_k", "W_v", "W_o") for k, v in
                   layer(f"attn.{p}", n, n).items()},
                **layer_norm("ln_2"), **layer("mlp.fc", n, 4 * n), **layer("mlp.proj", 4 * n, n)}

    def num_parameters(self, non_embedding: bool = True) -> int:
        """`GPT.num_parameters` of the model this config describes, without building it."""
        def count(shapes: dict[str, tuple[int, ...]]) -> int:
            return sum(math.prod(shape) for shape in shapes.values())

        # the blocks counted as one block times n_layer: listing 100,000 blocks takes seconds
        total = (count(replace(self, n_layer=0).parameter_shapes()) +
                 self.n_layer * count(self._block_shapes()))
        return total - self.block_size * self.n_embd if non_embedding else total


class MLP(nn.Module):
    """Linear to 4x the width, GELU, Linear back."""

    def __init__(self, n_embd: int, rng: np.random.Generator, dtype: Any) -> None:
        super().__init__()
        self.fc = nn.Linear(n_embd, 4 * n_embd, rng=rng, dtype=dtype)
        self.proj = nn.Linear(4 * n_embd, n_embd, rng=rng, dtype=dtype)

    def forward(self, x: Tensor) -> Tensor:
        return self.proj(F.gelu(self.fc(x), approximate="tanh"))


class Block(nn.Module):
    """Pre-LayerNorm transformer block: x + attn(ln_1(x)), then x + mlp(ln_2(x))."""

    def __init__(self, config: GPTConfig, rng: np.random.Generator, dtype: Any) -> None:
        super().__init__()
        self.ln_1 = nn.LayerNorm(config.n_embd, dtype=dtype)
        self.attn = MultiHeadAttention(config.n_embd, config.n_head, rng=rng, dtype=dtype)
        self.ln_2 = nn.LayerNorm(config.n_embd, dtype=dtype)
        self.mlp = MLP(config.n_embd, rng, dtype)
        self.dropout = nn.Dropout(config.dropout, rng=rng)

    def forward(self, x: Tensor, mask: np.ndarray, cache: KVCache | None = None) -> Tensor:
        h = self.ln_1(x)
        x = x + self.dropout(self.attn(h, h, h, mask, cache))
        return x + self.dropout(self.mlp(self.ln_2(x)))


# wraps an iterable of the work building a model does, given what that work is (see GPT)
Progress = Callable[[Sequence[Any], str], Iterable[Any]]


class GPT(nn.Module):
    """The character language model. `forward(idx, targets)` -> (logits, loss or None)."""

    def __init__(self, config: GPTConfig, seed: int = 0, dtype: Any = np.float32,
                 progress: Progress | None = None) -> None:
        """`progress(items, what)`, if given, wraps the two loops that build the model (over
        its blocks, then over its parameters to initialise them), e.g. to show a progress bar
        while a large model builds for minutes."""
        super().__init__()
        config.validate()
        progress = progress or (lambda items, what: items)
        self.config = config
        rng = np.random.default_rng(seed)
        self.rng = rng  # the dropout masks, unless seeded per step (train.parallel.seed_dropout)
        self.wte = nn.Embedding(config.vocab_size, config.n_embd, rng=rng, dtype=dtype)
        self.wpe = nn.Embedding(config.block_size, config.n_embd, rng=rng, dtype=dtype)
        self.dropout = nn.Dropout(config.dropout, rng=rng)
        self.blocks = nn.ModuleList(Block(config, rng, dtype)
                                    for _ in progress(range(config.n_layer), "building blocks"))
        self.ln_f = nn.LayerNorm(config.n_embd, dtype=dtype)
        # GPT-2 initialisation: N(0, 0.02), zero biases, and the projections that feed the
        # residual stream scaled by 1/sqrt(2 n_layer) so the stream's variance does not grow
        # with depth
        for name, p in progress(list(self.named_parameters()), "initialising parameters"):
            if name.endswith("bias"):
                p.data[...] = 0
            elif not name.startswith("ln") and ".ln_" not in name:
                std = 0.02 / math.sqrt(2 * config.n_layer) if name.endswith(
                    ("W_o.weight", "mlp.proj.weight")) else 0.02
                p.data[...] = rng.normal(0.0, std, p.shape)

    def num_parameters(self, non_embedding: bool = True) -> int:
        """Parameter count; like nanoGPT, the position embedding is left out by default (the
        token embedding is counted, since it is also the output head)."""
        n = super().num_parameters()
        return n - self.wpe.weight.numel() if non_embedding else n

    def forward(self, idx: Any, targets: Any = None,
                caches: list[KVCache] | None = None) -> tuple[Tensor, Tensor | None]:
        """idx: int (batch, seq) token ids. With `caches` (one per block), idx holds only the
        new tokens, which attend over the cached ones too."""
        idx = np.asarray(idx.data if isinstance(idx, Tensor) else idx)
        if idx.ndim != 2:
            raise ValueError(f"GPT: idx must be (batch, seq) token ids, got shape {idx.shape}")
        past = len(caches[0]) if caches else 0
        seq = idx.shape[1]
        if past + seq > self.config.block_size:
            raise ValueError(f"GPT: {past + seq} positions exceed block_size "
                             f"{self.config.block_size}")
        x = self.wte(idx) + self.wpe(np.arange(past, past + seq))
        x = self.dropout(x)
        # new queries see every cached key; a single new token sees everything, so no mask
        mask = create_causal_mask(past + seq)[past:] if seq > 1 else None
        for i, block in enumerate(self.blocks):
            x = block(x, mask, caches[i] if caches else None)
        x = self.ln_f(x)
        logits = F.linear(x, self.wte.weight)  # the head shares the token embedding
        if targets is None:
            return logits, None
        targets = np.asarray(targets.data if isinstance(targets, Tensor) else targets)
        vocab = self.config.vocab_size
        loss = F.cross_entropy(logits.reshape(-1, vocab), targets.reshape(-1))
        return logits, loss

    def stream(self, idx: Any, max_new_tokens: int, temperature: float = 1.0,
               top_k: int | None = None, rng: np.random.Generator | None = None,
               use_cache: bool = True) -> Iterator[np.ndarray]:
        """Yield each new batch of token ids (batch,) as it is sampled.

        Without the cache every token re-runs the model on the last block_size tokens (as
        nanoGPT). With it, each token attends over cached keys and values; when the cache
        reaches block_size it is rebuilt from the last block_size // 2 tokens, so each token
        costs about two single-position steps instead of a full block.
        """
        if not (math.isfinite(temperature) and temperature >= 0):
            raise ValueError(f"temperature must be a number >= 0 (0 = greedy), got {temperature}")
        if top_k is not None and top_k <= 0:
            raise ValueError(f"top_k must be positive, got {top_k}")
        rng = rng if rng is not None else np.random.default_rng()
        idx = np.array(idx, dtype=np.int64)
        if idx.ndim == 1:
            idx = idx[None, :]
        if idx.shape[1] == 0:
            raise ValueError("generate needs at least one token of context")
        was_training = self.training
        self.eval()
        block = self.config.block_size
        try:
            caches: list[KVCache] | None = None
            for _ in range(max_new_tokens):
                with no_grad():
                    if not use_cache:
                        logits, _ = self(idx[:, -block:])
                    elif caches is None or len(caches[0]) >= block:
                        keep = idx.shape[1] if caches is None else max(1, block // 2)
                        caches = [KVCache() for _ in self.blocks]
                        logits, _ = self(idx[:, -min(keep, block):], caches=caches)
                    else:
                        logits, _ = self(idx[:, -1:], caches=caches)
                next_ids = _sample(logits.data[:, -1, :], temperature, top_k, rng)
                # only the last block_size tokens can be attended to: keep no more
                idx = np.concatenate([idx[:, -block:], next_ids[:, None]], axis=1)
                yield next_ids
        finally:
            self.train(was_training)

    def generate(self, idx: Any, max_new_tokens: int, temperature: float = 1.0,
                 top_k: int | None = None, rng: np.random.Generator | None = None,
                 use_cache: bool = True) -> np.ndarray:
        """The context `idx` (batch, seq) followed by `max_new_tokens` sampled tokens."""
        idx = np.array(idx, dtype=np.int64)
        new = list(self.stream(idx, max_new_tokens, temperature, top_k, rng, use_cache))
        context = idx if idx.ndim == 2 else idx[None, :]
        return np.concatenate([context, *(n[:, None] for n in new)], axis=1)


def _sample(logits: np.ndarray, temperature: float, top_k: int | None,
            rng: np.random.Generator) -> np.ndarray:
    """One token id per row of `logits` (batch, vocab)."""
    if temperature == 0:
        return logits.argmax(axis=-1)
    # the maximum is subtracted before scaling: with a temperature near 0 the others go to -inf
    # and the likeliest keeps 0, i.e. greedy (dividing first would make inf - inf = nan)
    logits = logits.astype(np.float64)
    with np.errstate(over="ignore"):
        logits = (logits - logits.max(axis=-1, keepdims=True)) / temperature
    if top_k is not None and top_k < logits.shape[-1]:
        kth = np.sort(logits, axis=-1)[:, -top_k][:, None]
        logits = np.where(logits < kth, -np.inf, logits)
    probs = np.exp(logits)
    probs /= probs.sum(axis=-1, keepdims=True)
    u = rng.random((len(probs), 1))
    return np.minimum((probs.cumsum(axis=-1) < u).sum(axis=-1), probs.shape[-1] - 1)
