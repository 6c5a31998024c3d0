"""The checks that the test files of composed ops (test_compositions_<family>.py) run on each
entry of their CASES table: forward against a hand-written numpy reference, float64 gradcheck on
primitives alone (under `minigrad.fused(False)`), float32 kept, and values and gradients against
PyTorch when it is installed.

A case's `fn` takes minigrad tensors and returns a Tensor or a tuple of them (split, max(dim));
unless the case gives a `torch_fn`, the same `fn` is called on torch tensors, which works
whenever it only calls methods both libraries share under one name and meaning.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, gradcheck, ops

from tests.helpers import assert_keeps_float32, op_types, torch_or_skip


@dataclass
class Case:
    fn: Callable[..., Any]
    reference: Callable[..., Any]  # on float64 numpy arrays: the expected array (or tuple)
    shapes: list[tuple[int, ...]]
    data: str = "normal"           # how inputs are drawn: see `inputs`
    torch_fn: Callable[..., Any] | None = None
    differentiable: bool = True
    tolerance: dict = field(default_factory=lambda: dict(rtol=1e-12, atol=1e-12))


def inputs(case: Case, seed: int = 0) -> list[np.ndarray]:
    """float64 inputs: "normal" N(0, 1) kept 0.1 away from 0 (a kink of abs, norm, ...),
    "distinct" entries 0.1 apart (no ties for max and argmax, no kink for finite differences),
    "zeros" N(0, 1) with about a third of the entries exactly 0, "positive" in [0.5, 2]."""
    rng = np.random.default_rng(seed)
    arrays = []
    for shape in case.shapes:
        if case.data == "distinct":
            size = int(np.prod(shape))
            a = (rng.permutation(size) * 0.1 - size * 0.05 + rng.uniform(0, 0.01, size))
            a = a.reshape(shape)
        elif case.data == "positive":
            a = rng.uniform(0.5, 2.0, size=shape)
        else:
            a = rng.standard_normal(shape)
            a = np.where(np.abs(a) < 0.1, 0.5, a)
            if case.data == "zeros":
                a = np.where(rng.random(shape) < 0.35, 0.0, a)
        arrays.append(np.asarray(a, dtype=np.float64))
    return arrays


def pieces(out: Any) -> list:
    """An op's result as a list of tensors (a Tensor, or the parts of a tuple)."""
    return list(out) if isinstance(out, tuple) else [out]


def joined(out: Any) -> Tensor:
    """The floating-point parts of an op's result, flattened into one tensor (for gradcheck)."""
    parts = [p.reshape(-1) for p in pieces(out) if p.dtype.kind == "f"]
    return parts[0] if len(parts) == 1 else minigrad.cat(parts)


def check_forward(case: Case, fused: bool) -> None:
    arrays = inputs(case)
    with minigrad.fused(fused):
        out = pieces(case.fn(*[Tensor(a) for a in arrays]))
    expected = pieces(case.reference(*arrays))
    assert len(out) == len(expected)
    for got, want in zip(out, expected):
        want = np.asarray(want)
        assert got.shape == want.shape, (got.shape, want.shape)
        if want.dtype.kind in "iub":
            assert got.dtype == want.dtype or (got.dtype == np.int64 and want.dtype.kind == "i")
            np.testing.assert_array_equal(got.data, want)
        else:
            assert got.dtype == np.float64
            np.testing.assert_allclose(got.data, want, **case.tolerance)


def check_gradcheck(case: Case) -> None:
    leaves = [Tensor(a, requires_grad=True) for a in inputs(case, seed=1)]
    with minigrad.fused(False):
        out = joined(case.fn(*leaves))
        assert op_types(out) <= set(ops.primitives())
        assert gradcheck(lambda *xs: joined(case.fn(*xs)), leaves)


def check_float32(case: Case) -> None:
    """float32 in, float32 out, and every primitive's backward returns float32 gradients."""
    def run(*leaves):
        out = pieces(case.fn(*leaves))
        assert all(p.dtype == np.float32 for p in out if p.dtype.kind == "f")
        return joined(tuple(out))

    with minigrad.fused(False):
        assert_keeps_float32(run, [Tensor(a.astype(np.float32), requires_grad=True)
                                   for a in inputs(case)])


def check_against_torch(case: Case) -> None:
    """Values, and the gradients of sum(out_i * w_i) over the float outputs, against PyTorch."""
    torch = torch_or_skip()
    arrays = inputs(case)
    ours = [Tensor(a.copy(), requires_grad=case.differentiable) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=case.differentiable) for a in arrays]
    out = pieces(case.fn(*ours))
    expected = pieces((case.torch_fn or case.fn)(*theirs))
    assert len(out) == len(expected)
    weights = np.random.default_rng(2)
    loss_ours, loss_theirs = 0.0, 0.0
    for got, want in zip(out, expected):
        assert got.shape == tuple(want.shape)
        np.testing.assert_allclose(got.data, want.detach().numpy(), **case.tolerance)
        if case.differentiable and got.dtype.kind == "f":
            w = weights.standard_normal(got.shape)
            loss_ours = (got * w).sum() + loss_ours
            loss_theirs = (want * torch.tensor(w)).sum() + loss_theirs
    if not case.differentiable:
        return
    loss_ours.backward()
    loss_theirs.backward()
    for mine, torch_leaf in zip(ours, theirs):
        want = torch_leaf.grad
        got = mine.grad if mine.grad is not None else np.zeros(mine.shape)
        np.testing.assert_allclose(got, np.zeros(mine.shape) if want is None else want.numpy(),
                                   **case.tolerance)
