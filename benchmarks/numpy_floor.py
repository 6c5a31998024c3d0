"""The baby GPT's training step written by hand in plain numpy, with no autograd: the floor that
minigrad's engine (graph building, the backward loop, one op at a time) is measured against.

`benchmarks/train_step.py` times it as one of its interleaved modes. It is the code a careful
person writes without an engine: the forward keeps what the backward needs, the backward is the
chain rule spelled out, the three attention projections are one matrix (as in nanoGPT), and the
optimizer is the same AdamW with clipping. It starts from a minigrad GPT's weights, and
tests/test_benchmarks.py checks its loss and gradients equal minigrad's.
"""
from __future__ import annotations

import math
from typing import Callable, Iterator

import numpy as np

from models import GPT

_GELU_C, _GELU_K = math.sqrt(2 / math.pi), 0.044715


def _layer_norm(x, w, b, eps=1e-5):
    mean = x.mean(-1, keepdims=True)
    centered = x - mean
    rstd = 1 / np.sqrt((centered * centered).mean(-1, keepdims=True) + x.dtype.type(eps))
    xhat = centered * rstd
    return xhat * w + b, (xhat, rstd, w)


def _layer_norm_backward(g, cache):
    xhat, rstd, w = cache
    dxhat = g * w
    dx = rstd * (dxhat - dxhat.mean(-1, keepdims=True)
                 - xhat * (dxhat * xhat).mean(-1, keepdims=True))
    return dx, (g * xhat).sum((0, 1)), g.sum((0, 1))


class NumpyGPT:
    """A minigrad GPT's weights as plain arrays, with a hand-written forward and backward."""

    def __init__(self, model: GPT) -> None:
        c = model.config
        self.n_head, self.n_layer = c.n_head, c.n_layer
        state = model.state_dict()
        self.params: dict[str, np.ndarray] = {"wte": state["wte.weight"],
                                              "wpe": state["wpe.weight"],
                                              "ln_f.w": state["ln_f.weight"],
                                              "ln_f.b": state["ln_f.bias"]}
        for i in range(c.n_layer):
            s = f"blocks.{i}."
            self.params.update({
                f"{i}.ln_1.w": state[s + "ln_1.weight"], f"{i}.ln_1.b": state[s + "ln_1.bias"],
                f"{i}.qkv.w": np.concatenate([state[s + f"attn.W_{n}.weight"] for n in "qkv"]),
                f"{i}.qkv.b": np.concatenate([state[s + f"attn.W_{n}.bias"] for n in "qkv"]),
                f"{i}.o.w": state[s + "attn.W_o.weight"], f"{i}.o.b": state[s + "attn.W_o.bias"],
                f"{i}.ln_2.w": state[s + "ln_2.weight"], f"{i}.ln_2.b": state[s + "ln_2.bias"],
                f"{i}.fc.w": state[s + "mlp.fc.weight"], f"{i}.fc.b": state[s + "mlp.fc.bias"],
                f"{i}.proj.w": state[s + "mlp.proj.weight"],
                f"{i}.proj.b": state[s + "mlp.proj.bias"]})
        self.mask = np.tril(np.ones((c.block_size, c.block_size), dtype=bool))

    def loss_and_grads(self, idx: np.ndarray,
                       targets: np.ndarray) -> tuple[float, dict[str, np.ndarray]]:
        p, grads = self.params, {}
        batch, seq = idx.shape
        width = p["wte"].shape[1]
        heads, head = self.n_head, width // self.n_head
        scale = p["wte"].dtype.type(1 / math.sqrt(head))
        causal = self.mask[:seq, :seq]

        # ---- forward ----
        x = p["wte"][idx] + p["wpe"][:seq]
        caches = []
        for i in range(self.n_layer):
            h, ln_1 = _layer_norm(x, p[f"{i}.ln_1.w"], p[f"{i}.ln_1.b"])
            qkv = h @ p[f"{i}.qkv.w"].T + p[f"{i}.qkv.b"]
            q, k, v = (qkv[..., j * width:(j + 1) * width].reshape(batch, seq, heads, head)
                       .transpose(0, 2, 1, 3) for j in range(3))
            scores = np.where(causal, q @ k.transpose(0, 1, 3, 2) * scale, -np.inf)
            weights = np.exp(scores - scores.max(-1, keepdims=True))
            weights /= weights.sum(-1, keepdims=True)
            merged = (weights @ v).transpose(0, 2, 1, 3).reshape(batch, seq, width)
            x = x + merged @ p[f"{i}.o.w"].T + p[f"{i}.o.b"]
            h2, ln_2 = _layer_norm(x, p[f"{i}.ln_2.w"], p[f"{i}.ln_2.b"])
            fc = h2 @ p[f"{i}.fc.w"].T + p[f"{i}.fc.b"]
            t = np.tanh(_GELU_C * (fc + _GELU_K * fc * fc * fc))
            gelu = 0.5 * fc * (1 + t)
            x = x + gelu @ p[f"{i}.proj.w"].T + p[f"{i}.proj.b"]
            caches.append((h, ln_1, q, k, v, weights, merged, h2, ln_2, fc, t, gelu))
        xf, ln_f = _layer_norm(x, p["ln_f.w"], p["ln_f.b"])
        logits = (xf @ p["wte"].T).reshape(batch * seq, -1)
        rows, flat_targets = np.arange(batch * seq), targets.reshape(-1)
        shifted = logits - logits.max(-1, keepdims=True)
        probs = np.exp(shifted)
        total = probs.sum(-1, keepdims=True)
        probs /= total
        loss = float(np.mean(np.log(total[:, 0]) - shifted[rows, flat_targets]))

        # ---- backward ----
        dlogits = probs
        dlogits[rows, flat_targets] -= 1
        dlogits /= batch * seq
        grads["wte"] = dlogits.T @ xf.reshape(-1, width)
        dx, grads["ln_f.w"], grads["ln_f.b"] = _layer_norm_backward(
            (dlogits @ p["wte"]).reshape(batch, seq, width), ln_f)
        for i in reversed(range(self.n_layer)):
            h, ln_1, q, k, v, weights, merged, h2, ln_2, fc, t, gelu = caches[i]
            # MLP
            rows_g = dx.reshape(-1, width)
            grads[f"{i}.proj.w"] = rows_g.T @ gelu.reshape(-1, gelu.shape[-1])
            grads[f"{i}.proj.b"] = rows_g.sum(0)
            dgelu = dx @ p[f"{i}.proj.w"]
            dfc = dgelu * (0.5 * (1 + t) + 0.5 * fc * (1 - t * t) * _GELU_C
                           * (1 + 3 * _GELU_K * fc * fc))
            grads[f"{i}.fc.w"] = dfc.reshape(-1, dfc.shape[-1]).T @ h2.reshape(-1, width)
            grads[f"{i}.fc.b"] = dfc.sum((0, 1))
            dh2, grads[f"{i}.ln_2.w"], grads[f"{i}.ln_2.b"] = _layer_norm_backward(
                dfc @ p[f"{i}.fc.w"], ln_2)
            dx = dx + dh2
            # attention
            rows_g = dx.reshape(-1, width)
            grads[f"{i}.o.w"] = rows_g.T @ merged.reshape(-1, width)
            grads[f"{i}.o.b"] = rows_g.sum(0)
            dy = (dx @ p[f"{i}.o.w"]).reshape(batch, seq, heads, head).transpose(0, 2, 1, 3)
            dv = weights.transpose(0, 1, 3, 2) @ dy
            dweights = dy @ v.transpose(0, 1, 3, 2)
            dscores = weights * (dweights - (dweights * weights).sum(-1, keepdims=True)) * scale
            dq, dk = dscores @ k, dscores.transpose(0, 1, 3, 2) @ q
            dqkv = np.concatenate([d.transpose(0, 2, 1, 3).reshape(batch, seq, width)
                                   for d in (dq, dk, dv)], axis=-1)
            grads[f"{i}.qkv.w"] = dqkv.reshape(-1, 3 * width).T @ h.reshape(-1, width)
            grads[f"{i}.qkv.b"] = dqkv.sum((0, 1))
            dh, grads[f"{i}.ln_1.w"], grads[f"{i}.ln_1.b"] = _layer_norm_backward(
                dqkv @ p[f"{i}.qkv.w"], ln_1)
            dx = dx + dh
        grads["wpe"] = np.zeros_like(p["wpe"])
        grads["wpe"][:seq] = dx.sum(0)
        np.add.at(grads["wte"], idx.reshape(-1), dx.reshape(-1, width))
        return loss, grads


class NumpyAdamW:
    """torch.optim.AdamW's update on a dict of arrays, after clipping the global gradient norm."""

    def __init__(self, params: dict[str, np.ndarray], lr: float, betas: tuple[float, float],
                 weight_decay: float, eps: float = 1e-8, max_norm: float = 1.0) -> None:
        self.params, self.lr, self.betas, self.eps = params, lr, betas, eps
        self.weight_decay, self.max_norm, self.t = weight_decay, max_norm, 0
        self.m = {k: np.zeros_like(v) for k, v in params.items()}
        self.v = {k: np.zeros_like(v) for k, v in params.items()}

    def step(self, grads: dict[str, np.ndarray]) -> None:
        norm = math.sqrt(sum(float(np.vdot(g, g)) for g in grads.values()))
        clip = self.max_norm / (norm + 1e-6) if norm > self.max_norm else 1.0
        self.t += 1
        (b1, b2), lr = self.betas, self.lr
        for name, p in self.params.items():
            g = grads[name] * p.dtype.type(clip)
            p *= 1 - lr * self.weight_decay
            self.m[name] = b1 * self.m[name] + (1 - b1) * g
            self.v[name] = b2 * self.v[name] + (1 - b2) * g * g
            denom = np.sqrt(self.v[name]) / math.sqrt(1 - b2 ** self.t) + self.eps
            p -= (lr / (1 - b1 ** self.t)) * self.m[name] / denom


def numpy_floor_step(model: GPT, batches: Iterator[tuple[np.ndarray, np.ndarray]],
                     lr: float, betas: tuple[float, float],
                     weight_decay: float) -> Callable[[], float]:
    """One training step (forward, backward, clip at 1.0, AdamW) of `model`'s weights per call."""
    net = NumpyGPT(model)
    opt = NumpyAdamW(net.params, lr, betas, weight_decay)

    def step() -> float:
        loss, grads = net.loss_and_grads(*next(batches))
        opt.step(grads)
        return loss

    return step
