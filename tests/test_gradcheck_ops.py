"""Every op of minigrad, gradient-checked in float64 against finite differences.

CASES maps each op class to cases that exercise it; test_every_op_has_a_case enumerates the
registry of Function subclasses, so a new op without a case fails the suite.
"""
import numpy as np
import pytest

import minigrad
import minigrad.functional as F
from minigrad import Tensor, gradcheck, ops

from tests.graph_walk import graph_tensors

rng = np.random.default_rng(1234)


def leaf(*shape, low=None, high=None, away_from=None):
    """A float64 leaf requiring grad; `away_from` keeps entries >= 0.1 from that kink."""
    if low is not None:
        data = rng.uniform(low, high, size=shape)
    else:
        data = rng.standard_normal(shape)
    if away_from is not None:
        data = np.where(np.abs(data - away_from) < 0.1, away_from + 0.5, data)
    return Tensor(data, requires_grad=True)


def distinct(*shape):
    """Entries spaced well apart, so max has no ties and finite differences stay off the kink."""
    data = rng.permutation(np.prod(shape)).reshape(shape) * 0.1 + rng.uniform(0, 0.01, shape)
    return Tensor(data, requires_grad=True)


def const(data, dtype=np.float64):
    return Tensor(np.asarray(data, dtype=dtype))


# each case: (id, fn, inputs)
CASES = {
    ops.Add: [
        ("same", lambda a, b: a + b, lambda: [leaf(3, 4), leaf(3, 4)]),
        ("broadcast", lambda a, b: a + b, lambda: [leaf(2, 3, 4), leaf(3, 1)]),
        ("scalar", lambda a: 2.5 + a, lambda: [leaf(3)]),
    ],
    ops.Sub: [
        ("broadcast", lambda a, b: a - b, lambda: [leaf(4, 1), leaf(5)]),
        ("rsub", lambda a: 1.0 - a, lambda: [leaf(2, 2)]),
    ],
    ops.Mul: [
        ("broadcast", lambda a, b: a * b, lambda: [leaf(2, 3, 4), leaf(1, 4)]),
        ("scalar", lambda a: a * 3.0, lambda: [leaf(3)]),
    ],
    ops.Div: [
        ("broadcast", lambda a, b: a / b, lambda: [leaf(3, 4), leaf(4, low=0.5, high=2.0)]),
        ("rdiv", lambda a: 1.0 / a, lambda: [leaf(3, low=0.5, high=2.0)]),
    ],
    ops.Neg: [("plain", lambda a: -a, lambda: [leaf(3, 2)])],
    ops.Pow: [
        ("scalar_exponent", lambda a: a ** 3, lambda: [leaf(3, 4)]),
        ("tensor_exponent", lambda a, b: a ** b,
         lambda: [leaf(3, 4, low=0.5, high=2.0), leaf(4, low=-1.0, high=2.0)]),
        ("rpow", lambda b: 2.0 ** b, lambda: [leaf(5)]),
    ],
    ops.Exp: [("plain", lambda a: a.exp(), lambda: [leaf(3, 4)])],
    ops.Log: [("plain", lambda a: a.log(), lambda: [leaf(3, 4, low=0.2, high=3.0)])],
    ops.Sqrt: [("plain", lambda a: a.sqrt(), lambda: [leaf(3, 4, low=0.2, high=3.0)])],
    ops.Abs: [("plain", lambda a: a.abs(), lambda: [leaf(3, 4, away_from=0.0)])],
    ops.Tanh: [("plain", lambda a: a.tanh(), lambda: [leaf(3, 4)])],
    ops.Sigmoid: [("plain", lambda a: a.sigmoid(), lambda: [leaf(3, 4) * 3])],
    ops.Relu: [("plain", lambda a: a.relu(), lambda: [leaf(3, 4, away_from=0.0)])],
    ops.Gelu: [("plain", lambda a: F.gelu(a), lambda: [leaf(4, 5) * 2])],
    ops.MaskedFill: [
        ("broadcast_mask", lambda a: a.masked_fill(np.array([True, False, False, True]), -7.0),
         lambda: [leaf(3, 4)]),
        ("tensor_mask", lambda a: a.masked_fill(Tensor(np.tri(3, dtype=bool)), 0.0),
         lambda: [leaf(2, 3, 3)]),
    ],
    ops.Where: [
        ("both", lambda a, b: F.where(np.array([[True], [False], [True]]), a, b),
         lambda: [leaf(3, 4), leaf(4)]),
        ("scalar_other", lambda a: F.where(np.array([True, False, True]), a, 0.0),
         lambda: [leaf(2, 3)]),
    ],
    ops.Sum: [
        ("all", lambda a: a.sum(), lambda: [leaf(3, 4)]),
        ("axis", lambda a: a.sum(axis=1), lambda: [leaf(2, 3, 4)]),
        ("tuple_keepdims", lambda a: a.sum(axis=(0, 2), keepdims=True), lambda: [leaf(2, 3, 4)]),
        ("negative_axis", lambda a: a.sum(axis=-1), lambda: [leaf(2, 3)]),
    ],
    ops.Mean: [
        ("all", lambda a: a.mean(), lambda: [leaf(3, 4)]),
        ("axis_keepdims", lambda a: a.mean(axis=0, keepdims=True), lambda: [leaf(3, 4)]),
        ("tuple", lambda a: a.mean(axis=(1, 2)), lambda: [leaf(2, 3, 4)]),
    ],
    ops.Max: [
        ("all", lambda a: a.max(), lambda: [distinct(3, 4)]),
        ("axis", lambda a: a.max(axis=1), lambda: [distinct(2, 3, 4)]),
        ("tuple_keepdims", lambda a: a.max(axis=(0, 2), keepdims=True), lambda: [distinct(2, 3, 4)]),
    ],
    ops.Reshape: [
        ("plain", lambda a: a.reshape(4, 3) * const(np.arange(12.0).reshape(4, 3)),
         lambda: [leaf(3, 4)]),
        ("infer", lambda a: a.reshape(-1), lambda: [leaf(2, 3, 2)]),
    ],
    ops.Transpose: [
        ("reverse", lambda a: a.T, lambda: [leaf(3, 4)]),
        ("permutation", lambda a: a.transpose(1, 2, 0), lambda: [leaf(2, 3, 4)]),
        ("negative_axes", lambda a: a.transpose(-1, 0, 1), lambda: [leaf(2, 3, 4)]),
    ],
    ops.GetItem: [
        ("slices", lambda a: a[1:, ::2], lambda: [leaf(4, 5)]),
        ("int_none_ellipsis", lambda a: a[..., 1, None], lambda: [leaf(2, 3, 4)]),
        ("repeated_indices", lambda a: a[np.array([0, 2, 0, 0])], lambda: [leaf(3, 4)]),
        ("tensor_index_pairs", lambda a: a[Tensor(np.array([1, 1])), np.array([2, 2])],
         lambda: [leaf(3, 4)]),
    ],
    ops.Concat: [
        ("axis0", lambda a, b: F.concat([a, b], axis=0), lambda: [leaf(2, 3), leaf(4, 3)]),
        ("axis_last", lambda a, b, c: F.concat([a, b, c], axis=-1),
         lambda: [leaf(2, 1), leaf(2, 3), leaf(2, 2)]),
    ],
    ops.Stack: [
        ("axis0", lambda a, b: F.stack([a, b]), lambda: [leaf(2, 3), leaf(2, 3)]),
        ("axis1", lambda a, b, c: F.stack([a, b, c], axis=1),
         lambda: [leaf(2, 3), leaf(2, 3), leaf(2, 3)]),
    ],
    ops.MatMul: [
        ("2d", lambda a, b: a @ b, lambda: [leaf(3, 4), leaf(4, 5)]),
        ("batched", lambda a, b: a @ b, lambda: [leaf(2, 3, 4), leaf(2, 4, 5)]),
        ("broadcast_batch", lambda a, b: a @ b, lambda: [leaf(2, 1, 3, 4), leaf(3, 4, 2)]),
        ("nd_by_2d", lambda a, b: a @ b, lambda: [leaf(2, 3, 4), leaf(4, 5)]),
        ("2d_by_nd", lambda a, b: a @ b, lambda: [leaf(3, 4), leaf(2, 4, 5)]),
        ("vec_mat", lambda a, b: a @ b, lambda: [leaf(4), leaf(2, 4, 3)]),
        ("mat_vec", lambda a, b: a @ b, lambda: [leaf(2, 3, 4), leaf(4)]),
        ("vec_vec", lambda a, b: a @ b, lambda: [leaf(4), leaf(4)]),
    ],
    ops.Softmax: [
        ("last", lambda a: F.softmax(a), lambda: [leaf(3, 5)]),
        ("axis0", lambda a: F.softmax(a, axis=0), lambda: [leaf(4, 3)]),
        ("masked", lambda a: F.softmax(a.masked_fill(~np.tri(4, dtype=bool), -np.inf)),
         lambda: [leaf(2, 4, 4)]),
        ("fully_masked_row", lambda a: F.softmax(
            a.masked_fill(np.array([[False, True, False], [True, True, True]]), -np.inf)),
         lambda: [leaf(2, 3)]),
    ],
    ops.Affine: [
        ("3d", lambda x, w, b: F.linear(x, w, b), lambda: [leaf(2, 3, 4), leaf(4, 5), leaf(5)]),
        ("2d", lambda x, w, b: F.linear(x, w, b), lambda: [leaf(3, 4), leaf(4, 2), leaf(2)]),
        ("1d", lambda x, w, b: F.linear(x, w, b), lambda: [leaf(4), leaf(4, 2), leaf(2)]),
    ],
    ops.Attention: [
        ("causal", lambda q, k, v: F.attention(q, k, v, np.tri(4, dtype=bool))[0],
         lambda: [leaf(2, 2, 4, 3), leaf(2, 2, 4, 3), leaf(2, 2, 4, 3)]),
        ("cross_lengths", lambda q, k, v: F.attention(q, k, v)[0],
         lambda: [leaf(2, 3, 4), leaf(2, 5, 4), leaf(2, 5, 2)]),
        ("broadcast_kv", lambda q, k, v: F.attention(q, k, v)[0],
         lambda: [leaf(2, 3, 4), leaf(5, 4), leaf(5, 3)]),
        ("fully_masked_row", lambda q, k, v: F.attention(
            q, k, v, np.array([[True, False, True], [False, False, False]]))[0],
         lambda: [leaf(2, 4), leaf(3, 4), leaf(3, 2)]),
    ],
    ops.LogSoftmax: [
        ("last", lambda a: F.log_softmax(a), lambda: [leaf(3, 5)]),
        ("axis1", lambda a: F.log_softmax(a, axis=1), lambda: [leaf(2, 4, 3)]),
    ],
    ops.CrossEntropy: [
        ("plain", lambda a: F.cross_entropy(a, np.array([0, 3, 3, 1])), lambda: [leaf(4, 5)]),
        ("tensor_targets", lambda a: F.cross_entropy(a, Tensor(np.array([2, 0]))),
         lambda: [leaf(2, 3)]),
    ],
    ops.LayerNorm: [
        ("affine", lambda x, w, b: F.layer_norm(x, w, b), lambda: [leaf(2, 3, 5), leaf(5), leaf(5)]),
        ("no_affine", lambda x: F.layer_norm(x), lambda: [leaf(4, 6)]),
    ],
    ops.Embedding: [
        ("repeated", lambda w: F.embedding(w, np.array([[0, 2, 2], [4, 0, 2]])),
         lambda: [leaf(5, 3)]),
        ("1d_table", lambda w: F.embedding(w, np.array([0, 2, 2])), lambda: [leaf(5)]),
        ("3d_table", lambda w: F.embedding(w, np.array([[1, 1], [3, 0]])), lambda: [leaf(4, 2, 3)]),
    ],
    ops.Dropout: [
        ("seeded", lambda x: F.dropout(x, 0.3, training=True, rng=np.random.default_rng(7)),
         lambda: [leaf(4, 6)]),
    ],
}

ALL_CASES = [(op, name, fn, make) for op, cases in CASES.items() for name, fn, make in cases]


def test_every_op_has_a_case():
    own_ops = [op for op in minigrad.Function.registry if op.__module__.startswith("minigrad.")]
    assert len(own_ops) >= 30
    missing = [op.__name__ for op in own_ops if not CASES.get(op)]
    assert not missing, f"ops without a gradcheck case in CASES: {missing}"


@pytest.mark.parametrize("op,name,fn,make", ALL_CASES,
                         ids=[f"{op.__name__}-{name}" for op, name, _, _ in ALL_CASES])
def test_gradcheck(op, name, fn, make):
    inputs = make()
    inputs = [t if t.is_leaf else Tensor(t.data, requires_grad=True) for t in inputs]
    out = fn(*inputs)
    ops_used = {type(t.grad_fn) for t in graph_tensors(out) if t.grad_fn is not None}
    assert op in ops_used, f"case {name} does not use {op.__name__}"
    assert out.dtype == np.float64
    assert gradcheck(fn, inputs)


def test_gradcheck_catches_a_wrong_gradient():
    class WrongSquare(minigrad.Function):
        """out = a**2, with a deliberately wrong backward (da = G * a instead of 2 G a)."""

        def forward(self, a):
            self.a = a
            return a * a

        def backward(self, g):
            return g * self.a

    try:
        x = leaf(3, 2)
        with pytest.raises(minigrad.GradcheckError) as info:
            gradcheck(lambda a: WrongSquare.apply(a), [x])
        message = str(info.value)
        assert "input 0" in message and "analytic" in message and "numeric" in message
    finally:
        minigrad.Function.registry.remove(WrongSquare)


def test_gradcheck_catches_a_transposed_gradient():
    """A gradient that is right only up to a permutation passes a .sum() check but not ours."""

    class WrongTranspose(minigrad.Function):
        def forward(self, a):
            return a.T.copy()

        def backward(self, g):
            return g  # should be g.T; shapes agree for a square input

    try:
        x = leaf(3, 3)
        with pytest.raises(minigrad.GradcheckError):
            gradcheck(lambda a: WrongTranspose.apply(a), [x])
    finally:
        minigrad.Function.registry.remove(WrongTranspose)


def test_gradcheck_rejects_float32_inputs():
    with pytest.raises(TypeError, match="float64"):
        gradcheck(lambda a: a * 2, [Tensor(np.ones(3, dtype=np.float32), requires_grad=True)])


def test_gradcheck_accepts_a_non_leaf_input():
    a = leaf(3)
    b = a * 2.0  # not a leaf: its gradient never lands in .grad
    assert gradcheck(lambda b: b.exp(), [b])


@pytest.mark.parametrize("where", ["input", "output"])
def test_gradcheck_refuses_non_finite_values(where):
    """NaN and inf compare false to everything: with one in an input or the output, a wrong
    backward would pass unnoticed, so gradcheck says which values are not finite instead."""

    class WrongSquare(minigrad.Function):
        def forward(self, a):
            self.a = a
            return a * a

        def backward(self, g):
            return g * self.a  # should be 2 g a

    try:
        x = leaf(3, 2)
        if where == "input":  # a constant input that is NaN makes every output NaN
            constant = Tensor(np.full((3, 2), np.nan))
            fn, inputs, culprit = (lambda a, c: WrongSquare.apply(a) + c * 0.0), [x, constant], \
                "input 1"
        else:  # one infinite output makes every finite difference inf - inf = NaN
            shift = Tensor(np.array([[np.inf, 0.0]] * 3))
            fn, inputs, culprit = (lambda a: WrongSquare.apply(a) + shift), [x], "output"
        with pytest.raises(minigrad.GradcheckError, match="non-finite") as info:
            gradcheck(fn, inputs)
        assert culprit in str(info.value)
    finally:
        minigrad.Function.registry.remove(WrongSquare)
