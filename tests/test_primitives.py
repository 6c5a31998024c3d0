"""Tier 1, primitives: every op in `minigrad.ops`, gradient-checked in float64 against finite
differences, and its forward values checked against numpy in float32 and float64.

CASES maps each primitive to cases that exercise it; test_every_primitive_has_a_case enumerates
`minigrad.ops.primitives()`, so a new primitive without a case fails the suite. Compositions are
tested in test_compositions.py, kernels in test_kernels.py.
"""
import math
import warnings

import numpy as np
import pytest

import minigrad
import minigrad.functional as F
from minigrad import Tensor, gradcheck, ops

from tests.helpers import (assert_keeps_float32, assert_raises_like_torch, distinct, leaf,
                           op_types, torch_or_skip)

rng = np.random.default_rng(77)


def const(data, dtype=np.float64):
    return Tensor(np.asarray(data, dtype=dtype))


def _written(a, index, value):
    """`a` (through a non-leaf copy) with `value` written at `index`, recorded as IndexPut."""
    out = a * 1.0
    out[index] = value
    return out


def _eigh_gauge_free(packed):
    """From Eigh's [w; V]: w and V diag(c) V.T, which do not depend on the eigenvectors'
    signs, in one tensor."""
    w, V = packed[..., 0, :], packed[..., 1:, :]
    c = np.linspace(-1.0, 2.0, V.shape[-1])
    return (V * c) @ V.mT + w.unsqueeze(-1)


def _svd_gauge_free(packed, m):
    """From Svd's [U; s; V] (U of m rows): U diag(c) V.T, U diag(c) U.T and V diag(c) V.T,
    which do not depend on the singular vectors' signs, and s, flattened into one tensor."""
    U, s, V = packed[..., :m, :], packed[..., m, :], packed[..., m + 1:, :]
    c = np.linspace(-1.0, 2.0, s.shape[-1])
    return minigrad.cat([((U * c) @ V.mT).flatten(-2), ((U * c) @ U.mT).flatten(-2),
                         ((V * c) @ V.mT).flatten(-2), s], dim=-1)


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
    ops.Tanh: [("plain", lambda a: a.tanh(), lambda: [leaf(3, 4)])],
    ops.Sigmoid: [("plain", lambda a: a.sigmoid(), lambda: [leaf(3, 4) * 3])],
    ops.Sin: [("plain", lambda a: a.sin(), lambda: [leaf(3, 4, low=-4.0, high=4.0)])],
    ops.Cos: [("plain", lambda a: a.cos(), lambda: [leaf(3, 4, low=-4.0, high=4.0)])],
    ops.Log1p: [("plain", lambda a: a.log1p(), lambda: [leaf(3, 4, low=-0.5, high=3.0)])],
    ops.Expm1: [("plain", lambda a: a.expm1(), lambda: [leaf(3, 4)])],
    ops.Erf: [
        ("core", lambda a: a.erf(), lambda: [leaf(3, 4, low=-2.0, high=2.0)]),
        # across all of the approximation's regions: |x| < 0.47, < 4, < 6 and beyond
        ("regions", lambda a: a.erf(), lambda: [Tensor(np.array(
            [-7.0, -4.5, -3.0, -0.46, 0.01, 0.3, 0.5, 1.7, 3.9, 4.2, 5.5, 6.5]),
            requires_grad=True)]),
    ],
    ops.Erfc: [
        ("regions", lambda a: a.erfc(), lambda: [Tensor(np.array(
            [-7.0, -3.0, -0.46, 0.01, 0.3, 0.5, 1.7, 3.9, 4.2, 5.5]), requires_grad=True)]),
    ],
    ops.Erfcx: [
        ("regions", lambda a: minigrad.special.erfcx(a), lambda: [Tensor(np.array(
            [-2.0, -1.0, -0.3, 0.01, 0.4, 0.6, 2.0, 3.9, 4.5, 30.0]), requires_grad=True)]),
    ],
    ops.Erfinv: [
        ("core", lambda a: a.erfinv(), lambda: [leaf(3, 4, low=-0.95, high=0.95)]),
        ("near_one", lambda a: a.erfinv(), lambda: [Tensor(np.array(
            [-0.999, -0.6, 0.45, 0.55, 0.9999]), requires_grad=True)]),
    ],
    ops.Ndtri: [
        ("core", lambda a: minigrad.special.ndtri(a), lambda: [leaf(3, 4, low=0.02, high=0.98)]),
        ("tails", lambda a: minigrad.special.ndtri(a), lambda: [Tensor(np.array(
            [1e-4, 0.2, 0.3, 0.7, 0.8, 1 - 1e-4]), requires_grad=True)]),
    ],
    ops.Lgamma: [
        ("positive", lambda a: a.lgamma(), lambda: [leaf(3, 4, low=0.1, high=30.0)]),
        ("negative", lambda a: a.lgamma(), lambda: [Tensor(np.array(
            [-0.5, -1.3, -2.7, -7.4]), requires_grad=True)]),
    ],
    ops.Polygamma: [
        ("digamma", lambda a: a.digamma(), lambda: [leaf(3, 4, low=0.1, high=30.0)]),
        ("trigamma", lambda a: a.polygamma(1), lambda: [leaf(3, 4, low=0.2, high=30.0)]),
        ("n_3", lambda a: a.polygamma(3), lambda: [leaf(3, 4, low=0.5, high=20.0)]),
        ("negative", lambda a: a.polygamma(2), lambda: [Tensor(np.array(
            [-0.5, -1.3, -2.7, -7.4]), requires_grad=True)]),
    ],
    ops.I0: [
        ("both_sides", lambda a: a.i0(), lambda: [Tensor(np.array(
            [-6.0, -3.0, -0.5, 1e-3, 0.2, 1.0, 4.0, 7.0]), requires_grad=True)]),
    ],
    ops.I0e: [
        ("both_sides", lambda a: minigrad.special.i0e(a), lambda: [Tensor(np.array(
            [-40.0, -3.0, -0.5, 0.2, 1.0, 7.0, 29.0, 31.0]), requires_grad=True)]),
    ],
    ops.I1e: [
        ("both_sides", lambda a: minigrad.special.i1e(a), lambda: [Tensor(np.array(
            [-40.0, -3.0, -0.5, 0.2, 1.0, 7.0, 29.0, 31.0]), requires_grad=True)]),
        ("zero", lambda a: minigrad.special.i1e(a), lambda: [Tensor(np.array([0.0]),
                                                                    requires_grad=True)]),
    ],
    ops.Zeta: [  # differentiable in q only, as PyTorch's
        ("q", lambda q: minigrad.special.zeta(np.array([1.5, 2.0, 3.7, 9.0]), q),
         lambda: [leaf(4, low=0.2, high=20.0)]),
        ("negative_q", lambda q: minigrad.special.zeta(np.array([2.0, 3.0, 4.0]), q),
         lambda: [Tensor(np.array([-0.5, -1.3, -7.4]), requires_grad=True)]),
    ],
    ops.Igamma: [  # differentiable in x only, as PyTorch's
        ("lower", lambda x: minigrad.igamma(np.array([0.3, 1.0, 2.5, 40.0]), x),
         lambda: [Tensor(np.array([0.7, 2.0, 1.5, 38.0]), requires_grad=True)]),
        ("upper", lambda x: minigrad.igammac(np.array([0.3, 1.0, 2.5, 40.0]), x),
         lambda: [Tensor(np.array([0.7, 2.0, 6.0, 45.0]), requires_grad=True)]),
    ],
    ops.Remainder: [
        ("broadcast", lambda a, b: a % b,
         lambda: [leaf(3, 4, low=-5.0, high=5.0), leaf(4, low=0.5, high=2.0)]),
        ("negative_divisor", lambda a, b: a % b,
         lambda: [leaf(2, 3, low=-5.0, high=5.0), leaf(2, 3, low=-2.0, high=-0.5)]),
        ("rmod", lambda b: 7.5 % b, lambda: [leaf(4, low=1.1, high=1.9)]),
    ],
    ops.Atan2: [
        ("broadcast", lambda a, b: a.atan2(b), lambda: [leaf(3, 4), leaf(4)]),
        # every quadrant, and points near the negative x-axis (atan2 jumps across it)
        ("quadrants", lambda a, b: a.atan2(b), lambda: [
            Tensor(np.array([0.5, 0.7, -0.4, -0.9, 0.3, -0.2]), requires_grad=True),
            Tensor(np.array([1.2, -0.8, -1.5, 0.6, -2.0, -2.0]), requires_grad=True)]),
        ("scalar", lambda a: a.atan2(2.0), lambda: [leaf(5)]),
    ],
    ops.Cast: [
        # float64 to float64 runs Cast too; narrower dtypes are too coarse for finite differences
        ("float64", lambda a: ops.Cast.apply(a, dtype=np.float64) * 2.0, lambda: [leaf(3, 2)]),
    ],
    ops.Where: [
        ("both", lambda a, b: minigrad.where(np.array([[True], [False], [True]]), a, b),
         lambda: [leaf(3, 4), leaf(4)]),
        ("scalar_other", lambda a: minigrad.where(np.array([True, False, True]), a, 0.0),
         lambda: [leaf(2, 3)]),
    ],
    ops.Sum: [
        ("all", lambda a: a.sum(), lambda: [leaf(3, 4)]),
        ("axis", lambda a: a.sum(axis=1), lambda: [leaf(2, 3, 4)]),
        ("tuple_keepdims", lambda a: a.sum(axis=(0, 2), keepdims=True), lambda: [leaf(2, 3, 4)]),
        ("negative_axis", lambda a: a.sum(axis=-1), lambda: [leaf(2, 3)]),
    ],
    ops.Max: [
        ("all", lambda a: a.max(), lambda: [distinct(3, 4)]),
        ("axis", lambda a: a.amax(axis=1), lambda: [distinct(2, 3, 4)]),
        ("tuple_keepdims", lambda a: a.amax(axis=(0, 2), keepdims=True),
         lambda: [distinct(2, 3, 4)]),
    ],
    ops.Min: [
        ("all", lambda a: a.min(), lambda: [distinct(3, 4)]),
        ("tuple_keepdims", lambda a: a.amin(dim=(0, 2), keepdim=True),
         lambda: [distinct(2, 3, 4)]),
    ],
    ops.Reshape: [
        ("plain", lambda a: a.reshape(4, 3) * const(np.arange(12.0).reshape(4, 3)),
         lambda: [leaf(3, 4)]),
        ("infer", lambda a: a.reshape(-1), lambda: [leaf(2, 3, 2)]),
    ],
    ops.Transpose: [
        ("reverse", lambda a: a.T, lambda: [leaf(3, 4)]),
        ("permutation", lambda a: a.permute(1, 2, 0), lambda: [leaf(2, 3, 4)]),
        ("negative_axes", lambda a: a.permute(-1, 0, 1), lambda: [leaf(2, 3, 4)]),
        ("swap_two", lambda a: a.transpose(0, 2), lambda: [leaf(2, 3, 4)]),
    ],
    ops.GetItem: [
        ("slices", lambda a: a[1:, ::2], lambda: [leaf(4, 5)]),
        ("int_none_ellipsis", lambda a: a[..., 1, None], lambda: [leaf(2, 3, 4)]),
        ("repeated_indices", lambda a: a[np.array([0, 2, 0, 0])], lambda: [leaf(3, 4)]),
        ("repeated_tuple_index", lambda a: a[:, (1, 1, 0)], lambda: [leaf(3, 4)]),
        ("tensor_index_pairs", lambda a: a[Tensor(np.array([1, 1])), np.array([2, 2])],
         lambda: [leaf(3, 4)]),
    ],
    ops.BroadcastTo: [
        ("new_and_size_1_dims", lambda a: a.expand(2, 3, 4), lambda: [leaf(3, 1)]),
        ("keep_with_minus_1", lambda a: a.expand(-1, 5) * const(np.arange(15.0).reshape(3, 5)),
         lambda: [leaf(3, 1)]),
    ],
    ops.ScatterAdd: [
        ("repeated_positions",
         lambda a, src: a.scatter_add(1, np.array([[0, 0, 2], [3, 1, 3]]), src),
         lambda: [leaf(2, 4), leaf(2, 3)]),
        ("src_larger_than_index",
         lambda a, src: a.scatter_add(0, np.array([[1, 0], [1, 1]]), src),
         lambda: [leaf(3, 2), leaf(3, 3)]),
    ],
    ops.IndexPut: [
        ("rows", lambda a, v: _written(a, slice(1, 3), v), lambda: [leaf(4, 3), leaf(3)]),
        ("index_arrays_and_int", lambda a, v: _written(a, (np.array([2, 0]), 1), v),
         lambda: [leaf(3, 4), leaf(2)]),
        ("bool_mask", lambda a, v: _written(a, np.array([True, False, True]), v),
         lambda: [leaf(3, 2), leaf(2, 2)]),
        ("zero_d", lambda a, v: _written(a, (), v), lambda: [leaf(), leaf()]),
    ],
    ops.Concat: [
        ("axis0", lambda a, b: minigrad.cat([a, b], dim=0), lambda: [leaf(2, 3), leaf(4, 3)]),
        ("axis_last", lambda a, b, c: minigrad.cat([a, b, c], dim=-1),
         lambda: [leaf(2, 1), leaf(2, 3), leaf(2, 2)]),
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
    # the factorizations' outputs are smooth in a only where the factors are unique: random
    # matrices (distinct eigen- and singular values), made symmetric or positive-definite
    # where the op needs it; the vectors enter through gauge-free products (their signs are
    # arbitrary)
    ops.Solve: [
        ("batched_broadcast", lambda a, b: ops.Solve.apply(a + 4 * np.eye(3), b),
         lambda: [leaf(2, 3, 3), leaf(3, 2)]),
        ("one_by_one", lambda a, b: ops.Solve.apply(a, b),
         lambda: [leaf(1, 1, low=0.5, high=2.0), leaf(1, 3)]),
    ],
    ops.LU: [  # the swaps' column gets no gradient: its entries are left out
        ("square", lambda a: ops.LU.apply(a)[..., :3], lambda: [leaf(2, 3, 3)]),
        ("wide", lambda a: ops.LU.apply(a)[..., :5], lambda: [leaf(3, 5)]),
        ("tall", lambda a: ops.LU.apply(a)[..., :3], lambda: [leaf(2, 5, 3)]),
    ],
    ops.Cholesky: [
        ("batched", lambda x: ops.Cholesky.apply(x @ x.mT + 3 * np.eye(3)),
         lambda: [leaf(2, 3, 3)]),
    ],
    ops.QR: [
        ("tall", lambda a: ops.QR.apply(a), lambda: [leaf(2, 5, 3)]),
        ("square", lambda a: ops.QR.apply(a), lambda: [leaf(3, 3)]),
        ("wide", lambda a: ops.QR.apply(a), lambda: [leaf(2, 3, 5)]),
        ("complete_wide", lambda a: ops.QR.apply(a, mode="complete"), lambda: [leaf(2, 4)]),
    ],
    ops.Eigh: [
        ("vectors", lambda x: _eigh_gauge_free(ops.Eigh.apply(x + x.mT)),
         lambda: [leaf(2, 4, 4)]),
        ("values", lambda x: ops.Eigh.apply(x + x.mT, eigenvectors=False),
         lambda: [leaf(2, 4, 4)]),
        ("upper_triangle", lambda x: _eigh_gauge_free(ops.Eigh.apply(x + x.mT, UPLO="U")),
         lambda: [leaf(3, 3)]),
    ],
    ops.Svd: [
        ("vectors_tall", lambda a: _svd_gauge_free(ops.Svd.apply(a), 5), lambda: [leaf(2, 5, 3)]),
        ("vectors_wide", lambda a: _svd_gauge_free(ops.Svd.apply(a), 3), lambda: [leaf(3, 5)]),
        ("values", lambda a: ops.Svd.apply(a, compute_uv=False), lambda: [leaf(2, 3, 4)]),
    ],
    ops.Unfold: [
        ("overlapping", lambda a: ops.Unfold.apply(a, kernel_size=(2, 3), dilation=(1, 1),
                                                   padding=((0, 0), (0, 0)), stride=(1, 1)),
         lambda: [leaf(2, 2, 4, 5)]),
        ("strided_dilated_padded", lambda a: ops.Unfold.apply(
            a, kernel_size=(3, 2), dilation=(2, 1), padding=((1, 2), (0, 1)), stride=(2, 3)),
         lambda: [leaf(1, 3, 6, 7)]),
        ("pad_value_and_gaps", lambda a: ops.Unfold.apply(  # stride > kernel: some entries unread
            a, kernel_size=(1, 2), dilation=(1, 1), padding=((1, 1), (1, 1)), stride=(3, 3),
            pad_value=-5.0), lambda: [leaf(2, 1, 5, 5)]),
    ],
}

ALL_CASES = [(op, name, fn, make) for op, cases in CASES.items() for name, fn, make in cases]


def test_every_primitive_has_a_case():
    missing = [op.__name__ for op in ops.primitives() if not CASES.get(op)]
    assert not missing, f"primitives without a gradcheck case in CASES: {missing}"
    assert set(CASES) == set(ops.primitives())


@pytest.mark.parametrize("op,name,fn,make", ALL_CASES,
                         ids=[f"{op.__name__}-{name}" for op, name, _, _ in ALL_CASES])
def test_gradcheck(op, name, fn, make):
    inputs = make()
    inputs = [t if t.is_leaf else Tensor(t.data, requires_grad=True) for t in inputs]
    out = fn(*inputs)
    assert op in op_types(out), f"case {name} does not use {op.__name__}"
    assert out.dtype == np.float64
    assert gradcheck(fn, inputs)


class WrongSquare(minigrad.Function):
    """out = a**2, with a deliberately wrong backward (da = G * a instead of 2 G a)."""

    def forward(self, a):
        self.a = a
        return a * a

    def backward(self, g):
        return g * self.a


def test_gradcheck_catches_a_wrong_gradient():
    x = leaf(3, 2)
    with pytest.raises(minigrad.GradcheckError) as info:
        gradcheck(lambda a: WrongSquare.apply(a), [x])
    message = str(info.value)
    assert "input 0" in message and "analytic" in message and "numeric" in message


def test_gradcheck_catches_a_transposed_gradient():
    """A gradient that is right only up to a permutation passes a .sum() check but not ours."""

    class WrongTranspose(minigrad.Function):
        def forward(self, a):
            return a.T.copy()

        def backward(self, g):
            return g  # should be g.T; shapes agree for a square input

    x = leaf(3, 3)
    with pytest.raises(minigrad.GradcheckError):
        gradcheck(lambda a: WrongTranspose.apply(a), [x])


def test_gradcheck_takes_one_tensor_as_the_one_input_as_torch():
    """torch.autograd.gradcheck wraps a lone tensor; iterating it would pass its rows instead."""
    torch = pytest.importorskip("torch", reason="PyTorch not installed: not compared")
    values = rng.standard_normal((3, 2))
    theirs = torch.autograd.gradcheck(lambda a: (a * a).sum(0),
                                      torch.tensor(values, requires_grad=True))
    assert gradcheck(lambda a: (a * a).sum(0), Tensor(values, requires_grad=True)) == theirs


def test_gradcheck_failure_is_a_runtime_error_or_false_as_torch():
    """torch's GradcheckError is a RuntimeError; raise_exception=False returns False instead."""
    torch = pytest.importorskip("torch", reason="PyTorch not installed: not compared")

    class TorchWrongSquare(torch.autograd.Function):
        @staticmethod
        def forward(ctx, a):
            ctx.save_for_backward(a)
            return a * a

        @staticmethod
        def backward(ctx, g):
            return g * ctx.saved_tensors[0]  # should be 2 g a

    values = rng.standard_normal(3) + 2
    for check, wrong, x in ((torch.autograd.gradcheck, TorchWrongSquare.apply,
                             torch.tensor(values, requires_grad=True)),
                            (gradcheck, WrongSquare.apply, Tensor(values, requires_grad=True))):
        with pytest.raises(RuntimeError):
            check(wrong, (x,))
        assert check(wrong, (x,), raise_exception=False) is False


def test_gradcheck_rejects_float32_inputs():
    with pytest.raises(TypeError, match="float64"):
        gradcheck(lambda a: a * 2, [Tensor(np.ones(3, dtype=np.float32), requires_grad=True)])


def test_gradcheck_accepts_a_non_leaf_input():
    a = leaf(3)
    b = a * 2.0  # not a leaf: its gradient never lands in .grad
    assert gradcheck(lambda b: b.exp(), [b])


def test_gradcheck_takes_a_generator_of_inputs():
    """Regression: gradcheck read its inputs twice, so a generator (model.parameters() is one
    now) was empty by the time fn was called."""
    module = minigrad.nn.Linear(3, 2).astype(np.float64)
    assert gradcheck(lambda w, b: (w * w).sum() + b.exp().sum(), module.parameters())


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



DTYPES = [np.float32, np.float64]
TOL = {np.float32: dict(rtol=2e-6, atol=1e-6), np.float64: dict(rtol=1e-13, atol=1e-14)}


def data(*shape, dtype=np.float64, low=None, high=None):
    if low is not None:
        return rng.uniform(low, high, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


# --------------------------------------------------------------------------------------------
# forward values against numpy
# --------------------------------------------------------------------------------------------
UNARY = {
    "neg": (lambda t: -t, lambda x: -x, None),
    "exp": (lambda t: t.exp(), np.exp, None),
    "log": (lambda t: t.log(), np.log, (0.1, 5.0)),
    "sqrt": (lambda t: t.sqrt(), np.sqrt, (0.0, 5.0)),
    "tanh": (lambda t: t.tanh(), np.tanh, None),
    "sigmoid": (lambda t: t.sigmoid(), lambda x: 1 / (1 + np.exp(-x)), None),
    "square": (lambda t: t ** 2, lambda x: x * x, None),
    "sin": (lambda t: t.sin(), np.sin, None),
    "cos": (lambda t: t.cos(), np.cos, None),
    "log1p": (lambda t: t.log1p(), np.log1p, (-0.9, 5.0)),
    "expm1": (lambda t: t.expm1(), np.expm1, None),
    "erf": (lambda t: t.erf(), np.vectorize(math.erf), None),
    "erfc": (lambda t: t.erfc(), np.vectorize(math.erfc), None),
    "lgamma": (lambda t: t.lgamma(), np.vectorize(math.lgamma), (0.1, 30.0)),
    "i0": (lambda t: t.i0(), np.i0, None),
    "i0e": (minigrad.special.i0e, lambda x: np.i0(x) * np.exp(-np.abs(x)), None),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", list(UNARY))
def test_unary_forward_matches_numpy(name, dtype):
    op, reference, domain = UNARY[name]
    low, high = domain if domain else (None, None)
    x = data(3, 5, dtype=dtype, low=low, high=high) * (1 if domain else 3)
    out = op(Tensor(x))
    assert out.dtype == dtype and out.shape == x.shape
    expected = reference(x.astype(np.float64))
    np.testing.assert_allclose(out.data, expected, **TOL[dtype])


def test_sigmoid_does_not_overflow_for_large_inputs():
    x = Tensor(np.array([-1000.0, -50.0, 0.0, 50.0, 1000.0]))
    with np.errstate(over="raise", invalid="raise", divide="raise"):
        out = x.sigmoid().data
    expected = [0.0, 1 / (1 + math.exp(50)), 0.5, 1 / (1 + math.exp(-50)), 1.0]
    np.testing.assert_allclose(out, expected, rtol=1e-15, atol=0)


BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "pow": (lambda a, b: a ** b, np.power),
    "atan2": (lambda a, b: a.atan2(b), np.arctan2),
    "matmul": (lambda a, b: a @ b, None),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow", "atan2"])
def test_binary_forward_matches_numpy(name, dtype):
    op, reference = BINARY[name]
    a = data(2, 3, 4, dtype=dtype, low=0.5, high=2.0)
    b = data(3, 1, dtype=dtype, low=0.5, high=2.0) * np.array([[1], [-1], [1]], dtype=dtype)
    out = op(Tensor(a), Tensor(b))
    assert out.dtype == dtype and out.shape == (2, 3, 4)
    np.testing.assert_allclose(out.data, reference(a.astype(np.float64), b.astype(np.float64)),
                               **TOL[dtype])


def _matmul_reference(a, b):
    """Plain-loop matrix product with numpy's rules for 1-D and batched operands."""
    a2 = a[None, :] if a.ndim == 1 else a
    b2 = b[:, None] if b.ndim == 1 else b
    batch = np.broadcast_shapes(a2.shape[:-2], b2.shape[:-2])
    A = np.broadcast_to(a2, batch + a2.shape[-2:])
    B = np.broadcast_to(b2, batch + b2.shape[-2:])
    out = np.zeros(batch + (A.shape[-2], B.shape[-1]))
    for idx in np.ndindex(*batch):
        for i in range(A.shape[-2]):
            for j in range(B.shape[-1]):
                out[idx + (i, j)] = sum(float(A[idx + (i, k)]) * float(B[idx + (k, j)])
                                        for k in range(A.shape[-1]))
    if a.ndim == 1:
        out = out[..., 0, :]
    if b.ndim == 1:
        out = out[..., 0]
    return out


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("sa,sb", [
    ((3, 4), (4, 5)), ((2, 3, 4), (4, 5)), ((3, 4), (2, 4, 5)), ((2, 1, 3, 4), (3, 4, 2)),
    ((4,), (4, 3)), ((2, 3, 4), (4,)), ((4,), (4,)),
])
def test_matmul_forward_matches_loops(sa, sb, dtype):
    a, b = data(*sa, dtype=dtype), data(*sb, dtype=dtype)
    out = Tensor(a) @ Tensor(b)
    expected = _matmul_reference(a, b)
    assert out.dtype == dtype and out.shape == expected.shape
    tol = dict(rtol=1e-5, atol=1e-5) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(out.data, expected, **tol)


def _mT(x):
    return np.swapaxes(x, -1, -2)


def _eye_like(x, k):
    """The identity of size k, one per matrix of x's batch."""
    return np.broadcast_to(np.eye(k), x.shape[:-2] + (k, k))


LINALG_TOL = {np.float32: dict(rtol=1e-4, atol=1e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


@pytest.mark.parametrize("dtype", DTYPES)
def test_linalg_primitives_forward_give_their_factorizations(dtype):
    """Each factorization, in the input's dtype, multiplies back to its input, with the factors
    of the shape, triangle, order and orthogonality promised."""
    tol = LINALG_TOL[dtype]
    a, b = data(2, 3, 3, dtype=dtype) + 4 * np.eye(3, dtype=dtype), data(3, 2, dtype=dtype)
    x = ops.Solve.apply(Tensor(a), Tensor(b))
    assert x.dtype == dtype
    np.testing.assert_allclose(a @ x.data, np.broadcast_to(b, (2, 3, 2)), **tol)

    spd = a @ _mT(a)
    L = ops.Cholesky.apply(Tensor(spd)).data
    assert L.dtype == dtype and np.all(np.triu(L, 1) == 0) and np.all(np.diagonal(L, 0, -2, -1) > 0)
    np.testing.assert_allclose(L @ _mT(L), spd, **tol)

    for shape, mode, k in [((2, 5, 3), "reduced", 3), ((3, 5), "reduced", 3),
                           ((5, 3), "complete", 5)]:
        m, n = shape[-2:]
        c = data(*shape, dtype=dtype)
        packed = ops.QR.apply(Tensor(c), mode=mode).data
        assert packed.dtype == dtype and packed.shape == shape[:-2] + (k, m + n)
        Q, R = _mT(packed[..., :m]), packed[..., m:]
        assert np.all(np.tril(R, -1) == 0)
        np.testing.assert_allclose(_mT(Q) @ Q, _eye_like(Q, k), **tol)
        np.testing.assert_allclose(Q @ R, c, **tol)

    sym = data(2, 4, 4, dtype=dtype)
    sym = sym + _mT(sym)
    packed = ops.Eigh.apply(Tensor(sym)).data
    w, V = packed[..., 0, :], packed[..., 1:, :]
    assert packed.dtype == dtype and np.all(np.diff(w, axis=-1) > 0)
    np.testing.assert_allclose((V * w[..., None, :]) @ _mT(V), sym, **tol)
    np.testing.assert_array_equal(ops.Eigh.apply(Tensor(sym), eigenvectors=False).data, w)

    for shape in [(2, 5, 3), (3, 4)]:
        m, k = shape[-2], min(shape[-2:])
        c = data(*shape, dtype=dtype)
        packed = ops.Svd.apply(Tensor(c)).data
        U, s, V = packed[..., :m, :], packed[..., m, :], packed[..., m + 1:, :]
        assert packed.dtype == dtype and np.all(np.diff(s, axis=-1) < 0) and np.all(s > 0)
        np.testing.assert_allclose(_mT(U) @ U, _eye_like(U, k), **tol)
        np.testing.assert_allclose(_mT(V) @ V, _eye_like(V, k), **tol)
        np.testing.assert_allclose((U * s[..., None, :]) @ _mT(V), c, **tol)
        np.testing.assert_array_equal(ops.Svd.apply(Tensor(c), compute_uv=False).data, s)


def test_eigh_reads_the_triangle_uplo_names():
    lower = np.array([[2.0, 0.0], [1.0, 2.0]])  # as symmetric from its lower triangle: 1 and 3
    np.testing.assert_allclose(ops.Eigh.apply(Tensor(lower), eigenvectors=False).data, [1, 3])
    np.testing.assert_allclose(ops.Eigh.apply(Tensor(lower), UPLO="U", eigenvectors=False).data,
                               [2, 2])


@pytest.mark.parametrize("factorize", [
    lambda a: ops.QR.apply(a), lambda a: ops.Eigh.apply(a + a.mT), lambda a: ops.Svd.apply(a),
    lambda a: ops.Eigh.apply(a + a.mT, eigenvectors=False),
    lambda a: ops.Svd.apply(a, compute_uv=False)])
def test_factorizations_backward_survives_a_change_of_their_output(factorize):
    """Regression: QR declared that its backward reads its output, so changing the output in
    place refused backward, which reads only the factors it keeps. The others never did."""
    a = leaf(3, 3)
    out = factorize(a)
    [expected] = minigrad.grad(factorize(a), [a], np.ones(out.shape))
    with minigrad.no_grad():
        out.add_(1.0)
    out.backward(np.ones(out.shape))
    np.testing.assert_allclose(a.grad, expected, rtol=1e-12)


@pytest.mark.parametrize("shape,mode", [((3, 3), "r"), ((4, 2), "complete")])
def test_qr_backward_refuses_where_q_does_not_determine_it(shape, mode):
    """As PyTorch: mode 'r' has no Q to differentiate through, and a tall complete Q's extra
    columns are not functions of a."""
    packed = ops.QR.apply(leaf(*shape), mode=mode)
    with pytest.raises(RuntimeError, match="not differentiable"):
        packed.sum().backward()


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["sum", "amax", "amin"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, False), (-1, True),
                                           ((0, 2), False), ((1, 2), True)])
def test_reduction_forward_matches_numpy(name, axis, keepdims, dtype):
    x = data(2, 3, 4, dtype=dtype)
    out = getattr(Tensor(x), name)(axis=axis, keepdims=keepdims)
    expected = getattr(np, name)(x.astype(np.float64), axis=axis, keepdims=keepdims)
    assert out.dtype == dtype and out.shape == np.shape(expected)
    np.testing.assert_allclose(out.data, expected, **TOL[dtype])


@pytest.mark.parametrize("op", [ops.Max, ops.Min])
def test_max_and_min_over_full_axes_of_a_tensor_with_an_empty_axis(op):
    # (0, 3) over axis 1, as torch.amax(dim=1) allows: no rows, so an empty (0,) result
    x = Tensor(np.zeros((0, 3)), requires_grad=True)
    out = op.apply(x, axis=1)
    assert out.shape == (0,) and op.apply(x, axis=-1, keepdims=True).shape == (0, 1)
    out.backward(np.zeros(0))
    assert x.grad.shape == (0, 3)


@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_ops_forward_match_numpy(dtype):
    x, y = data(2, 3, 4, dtype=dtype), data(2, 3, 4, dtype=dtype)
    tx, ty = Tensor(x), Tensor(y)
    cases = [
        (tx.reshape(6, 4), x.reshape(6, 4)),
        (tx.permute(2, 0, 1), x.transpose(2, 0, 1)),
        (tx.transpose(0, 2), np.swapaxes(x, 0, 2)),
        (tx.T, x.T),
        # PyTorch's order: the int selects first, then the array indexes the last dim
        (tx[1, ::2, np.array([0, 0, 3])], x[1][::2][:, np.array([0, 0, 3])]),
        (minigrad.cat([tx, ty], dim=1), np.concatenate([x, y], axis=1)),
    ]
    for out, expected in cases:
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.data, expected)


# --------------------------------------------------------------------------------------------
# Pow at a = 0 (regression: the gradients were NaN or -inf where their limits are 0)
# --------------------------------------------------------------------------------------------
def test_pow_gradients_at_zero_base_and_zero_exponent():
    a = Tensor(np.array([0.0, 0.0, 0.0, 0.0, 2.0, 0.0]), requires_grad=True)
    b = Tensor(np.array([2.0, 0.0, -1.0, 0.5, 0.0, 3.0]), requires_grad=True)
    with np.errstate(divide="ignore"):  # forward: 0**-1 = inf
        out = (a ** b).sum()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # the masked infinities and NaNs must not warn
        out.backward()
    # d(a**b)/da = b a**(b-1): 0 for 0**2 and 0**3, 0 for x**0, -inf and inf for 0**-1, 0**0.5
    np.testing.assert_array_equal(a.grad, [0.0, 0.0, -np.inf, np.inf, 0.0, 0.0])
    # d(a**b)/db = a**b log(a): 0 at a = 0 for b >= 0; 0**-1 = inf times log 0 = -inf
    np.testing.assert_array_equal(b.grad, [0.0, 0.0, -np.inf, 0.0, math.log(2.0), 0.0])


def test_pow_scalar_exponent_zero_and_zero_base_with_positive_exponent():
    x = Tensor(np.array([0.0, 1.5]), requires_grad=True)
    (x ** 0.0).sum().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.0])
    e = Tensor(np.array([0.5, 2.0]), requires_grad=True)
    (0.0 ** e).sum().backward()
    np.testing.assert_array_equal(e.grad, [0.0, 0.0])


def test_pow_gradients_at_zero_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: the cross-checks "
                                "against it are skipped")
    base = np.array([0.0, 0.0, 0.0, 0.0, 2.0, -1.0, 0.0])
    exponent = np.array([2.0, 0.0, -1.0, 0.5, 0.0, 0.5, 3.0])
    a, b = Tensor(base, requires_grad=True), Tensor(exponent, requires_grad=True)
    with np.errstate(divide="ignore", invalid="ignore"):  # forward: 0**-1 = inf, (-1)**0.5
        (a ** b).sum().backward()
    ta = torch.tensor(base, requires_grad=True)
    tb = torch.tensor(exponent, requires_grad=True)
    (ta ** tb).sum().backward()
    np.testing.assert_array_equal(a.grad, ta.grad.numpy())
    np.testing.assert_array_equal(b.grad, tb.grad.numpy())


def test_atan2_gradient_at_the_origin_is_zero_as_in_torch():
    torch = pytest.importorskip("torch", reason="PyTorch not installed: the cross-checks "
                                "against it are skipped")
    # the origin (also when a * a + b * b underflows to 0), and points beside it
    y, x = np.array([0.0, -0.0, 1e-170, 0.0, 2.0]), np.array([0.0, 0.0, 0.0, -1.0, 3.0])
    a, b = Tensor(y, requires_grad=True), Tensor(x, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no 0 / 0 computed
        a.atan2(b).sum().backward()
    ta, tb = torch.tensor(y, requires_grad=True), torch.tensor(x, requires_grad=True)
    ta.atan2(tb).sum().backward()
    np.testing.assert_array_equal(a.grad, ta.grad.numpy())
    np.testing.assert_array_equal(b.grad, tb.grad.numpy())


# --------------------------------------------------------------------------------------------
# Accuracy of the primitives that exist for accuracy
# --------------------------------------------------------------------------------------------
def test_erf_is_accurate_to_float64_rounding_on_the_whole_line():
    x = np.concatenate([np.linspace(-7, 7, 200_001), np.geomspace(1e-300, 30, 3000),
                        -np.geomspace(1e-300, 30, 3000),
                        [0.46875, np.nextafter(0.46875, 1), 4.0, np.nextafter(4.0, 5), 6.0]])
    got = Tensor(x).erf().data
    expected = np.array([math.erf(v) for v in x])
    ulps = np.abs(got - expected) / np.spacing(np.abs(expected))
    assert ulps.max() <= 4, f"erf off by {ulps.max()} ulp at x = {x[np.argmax(ulps)]}"
    assert np.max(np.abs(got - expected) / np.abs(expected)) < 1e-15


def test_erf_special_values():
    out = Tensor(np.array([0.0, -0.0, np.inf, -np.inf, np.nan, 1e308, -1e-320])).erf().data
    np.testing.assert_array_equal(out[:4], [0.0, -0.0, 1.0, -1.0])
    assert np.signbit(out[1]) and np.isnan(out[4]) and out[5] == 1.0
    assert out[6] == pytest.approx(2 / math.sqrt(math.pi) * -1e-320, rel=1e-3)  # subnormal


def test_erf_float32_keeps_its_dtype_and_is_correctly_rounded():
    x = np.linspace(-5, 5, 1001, dtype=np.float32)
    out = Tensor(x).erf()
    assert out.dtype == np.float32
    expected = np.array([math.erf(v) for v in x.astype(np.float64)]).astype(np.float32)
    np.testing.assert_array_equal(out.data, expected)


# --------------------------------------------------------------------------------------------
# The special functions' primitives (Erfc, Erfcx, Erfinv, Ndtri, Lgamma, Polygamma, I0e, I1e)
# against PyTorch: wide ranges, their poles and infinities, float32, gradients
# --------------------------------------------------------------------------------------------
def _spread(low, high, *, tiny=True, huge=False):
    """Random entries in [low, high], plus magnitudes from 1e-300 up (to 1e300 with `huge`)
    on the sides of 0 that [low, high] reaches."""
    magnitudes = np.geomspace(1e-300, 1e300 if huge else max(abs(low), abs(high)), 500)
    parts = [rng.uniform(low, high, 5000)]
    if tiny and high > 0:
        parts.append(magnitudes[magnitudes <= (high if not huge else np.inf)])
    if tiny and low < 0:
        parts.append(-magnitudes[magnitudes <= (-low if not huge else np.inf)])
    return np.concatenate(parts)


special = minigrad.special
# name: (minigrad function, torch function, float64 inputs, rtol). PyTorch's own trigamma is
# accurate to about 5e-10 only (its asymptotic series stops early): minigrad's, 1e-15, is checked
# against closed forms below. Its polygamma of n >= 2 loops once per unit below 0, so the
# negative inputs stay above -40.
SPECIAL = {
    "erfc": (Tensor.erfc, "erfc", lambda: _spread(-30, 30, huge=True), 1e-12),
    "erfcx": (special.erfcx, "special.erfcx", lambda: _spread(-26, 1e4, huge=True), 1e-12),
    "erfinv": (Tensor.erfinv, "erfinv", lambda: np.concatenate(
        [_spread(-1, 1), 1 - np.geomspace(1e-16, 0.5, 300)]), 1e-12),
    "ndtri": (special.ndtri, "special.ndtri", lambda: np.concatenate(
        [_spread(0, 1), 1 - np.geomspace(1e-16, 0.5, 300)]), 1e-12),
    "lgamma": (Tensor.lgamma, "lgamma", lambda: _spread(-50, 50, huge=True), 1e-12),
    "digamma": (Tensor.digamma, "digamma", lambda: _spread(-50, 50, huge=True), 1e-12),
    "trigamma": (lambda x: x.polygamma(1), lambda torch, x: torch.polygamma(1, x),
                 lambda: _spread(-40, 1e6), 1e-9),
    "polygamma_2": (lambda x: x.polygamma(2), lambda torch, x: torch.polygamma(2, x),
                    lambda: _spread(-40, 1e6), 1e-11),
    "polygamma_5": (lambda x: minigrad.polygamma(5, x), lambda torch, x: torch.polygamma(5, x),
                    lambda: _spread(-40, 100), 1e-12),
    "i0e": (special.i0e, "special.i0e", lambda: _spread(-800, 800, huge=True), 1e-12),
    "i1e": (special.i1e, "special.i1e", lambda: _spread(-800, 800, huge=True), 1e-12),
}


def _torch_special(torch, name):
    """The torch function `name` ("erfc", "special.i0e") or given as a function of torch."""
    if callable(name):
        return lambda x: name(torch, x)
    function = torch
    for attribute in name.split("."):
        function = getattr(function, attribute)
    return function


@pytest.mark.parametrize("name", list(SPECIAL))
def test_special_function_matches_torch_on_wide_ranges(name):
    torch = torch_or_skip()
    fn, torch_name, make, rtol = SPECIAL[name]
    x = make()
    expected = _torch_special(torch, torch_name)(torch.tensor(x)).numpy()
    got = fn(Tensor(x)).data
    # atol: near a root (lgamma at 1 and 2 and between the negative poles, digamma at 1.46)
    # both round their last terms differently
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=1e-15)


# each function at its poles, zeros and infinities, where the value is a convention: PyTorch's
SPECIAL_POINTS = [0.0, -0.0, 1.0, 2.0, -1.0, -2.0, -0.5, np.inf, -np.inf, np.nan, 1e-300,
                  -1e-300, 1e300, -1e300, 0.5, -2.5]


@pytest.mark.parametrize("name", ["erfc", "erfcx", "erfinv", "ndtri", "lgamma", "digamma",
                                  "polygamma_2", "polygamma_5", "i0e", "i1e"])
def test_special_function_matches_torch_at_its_special_points(name):
    torch = torch_or_skip()
    fn, torch_name, _, rtol = SPECIAL[name]
    x = np.array(SPECIAL_POINTS + [1 - 2 ** -53, -1 + 2 ** -53])
    if name.startswith("polygamma"):  # PyTorch's zeta gives NaN at +inf, its limit is 0
        x = x[x != np.inf]
    with np.errstate(all="ignore"):
        expected = _torch_special(torch, torch_name)(torch.tensor(x)).numpy()
    got = fn(Tensor(x)).data
    np.testing.assert_allclose(got, expected, rtol=rtol, atol=0)
    np.testing.assert_array_equal(np.signbit(got[got == 0]), np.signbit(expected[got == 0]))


def test_lgamma_matches_torch_to_a_few_ulps_where_it_has_no_root():
    """lgamma is evaluated in numpy, whole arrays at a time (it called math.lgamma entry by
    entry, at about 1.5 us each): Stirling's series from 10 on, the recurrence down to the Taylor
    series at 1 and 2 below, the reflection below 0 with sin's argument reduced exactly. Within
    8 ulps of PyTorch's (glibc's) away from the roots, where the reflection's cancellation costs
    digits (the wide-range test above covers those); and PyTorch's values at the extremes:
    subnormals of either sign, the largest floats, the last negative non-integers."""
    torch = torch_or_skip()
    x = np.concatenate([rng.uniform(2.5, 10, 2000), rng.uniform(0, 0.5, 2000),
                        np.geomspace(10, 1e305, 2000), -np.geomspace(10.2, 1e15, 2000) - 0.5,
                        [5e-324, -5e-324, 2.2e-308, -2.2e-308, 2.5e305, 2.6e305, 1.7e308,
                         -2.0 ** 52 + 0.5, -2.0 ** 52, -1e300, -0.0, 0.0, np.inf, -np.inf, np.nan]])
    expected = torch.lgamma(torch.tensor(x)).numpy()
    got = Tensor(x).lgamma().data
    finite = np.isfinite(expected)
    ulps = np.abs(got[finite] - expected[finite]) / np.spacing(np.abs(expected[finite]))
    assert ulps.max() <= 8
    np.testing.assert_array_equal(got[~finite], expected[~finite])


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_zeta_matches_torch_on_wide_ranges(dtype):
    """special.zeta(x, q), the Hurwitz zeta function, with its gradient in q, -x zeta(x + 1, q):
    x from just above 1 to 1e4, q from 1e-3 to 1e7 (PyTorch's beyond 1e8 is a two-term
    asymptotic form, 1e-14 off), and q below 0 for integer x, in float64 and float32 (computed
    in float64 and rounded once, so float32 within a few of PyTorch's float32 roundings)."""
    torch = torch_or_skip()
    x = np.concatenate([1 + np.geomspace(1e-6, 1, 300), rng.uniform(2, 60, 300),
                        np.geomspace(60, 1e4, 100), rng.integers(2, 9, 300).astype(float)])
    q = np.concatenate([np.geomspace(1e-3, 1e7, 700),
                        -rng.uniform(0.05, 6, 300) - rng.integers(0, 6, 300) * 0.5])
    x, q = x.astype(dtype), q.astype(dtype)
    rtol = 1e-13 if dtype == np.float64 else 5e-6
    theirs = torch.tensor(q, requires_grad=True)
    expected = torch.special.zeta(torch.tensor(x), theirs)
    leaf = Tensor(q, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        out = minigrad.special.zeta(Tensor(x), leaf)
        upstream = rng.standard_normal(q.shape).astype(dtype)
        (grad,) = minigrad.grad(out, [leaf], upstream)
    (expected_grad,) = torch.autograd.grad(expected, theirs, torch.tensor(upstream))
    assert out.dtype == grad.dtype == dtype
    atol = np.finfo(dtype).tiny  # results below it are subnormals, rounded coarser
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=rtol, atol=atol)
    np.testing.assert_allclose(grad, expected_grad.numpy(), rtol=rtol, atol=atol)


def test_zeta_matches_torch_at_its_poles_and_outside_its_domain():
    """inf at x = 1 and at q = 0, -1, -2, ..., -inf; NaN below x = 1, at NaN, and for q < 0
    with x no integer; zeta(x, 1) is Riemann's, zeta(inf, 1) = 1. At q = +inf, and at
    x = +inf with q > 1, minigrad gives the limit 0 where PyTorch's is NaN (docs/api.md)."""
    torch = torch_or_skip()
    inf, nan = np.inf, np.nan
    x = np.array([1.0, 0.5, -2.0, nan, 2.0, 2.0, 2.0, 2.0, 2.0, 2.5, 3.0, inf, inf, inf, 1e300,
                  1.0, 2.0, 2.0, 3.0])
    q = np.array([1.0, 1.0, 1.0, 1.0, 0.0, -0.0, -1.0, -inf, nan, -2.5, -2.5, 1.0, 0.5, -0.5,
                  0.5, nan, 5e-324, 1.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        got = minigrad.special.zeta(Tensor(x), Tensor(q)).data
    np.testing.assert_allclose(got, torch.special.zeta(torch.tensor(x), torch.tensor(q)).numpy(),
                               rtol=1e-15, atol=0)
    np.testing.assert_allclose(got[-2:], [math.pi ** 2 / 6, 1.2020569031595942], rtol=1e-15)
    np.testing.assert_array_equal(minigrad.special.zeta(Tensor([2.0, inf, inf]),
                                                        Tensor([inf, 2.0, inf])).data, 0.0)


def test_zeta_has_no_gradient_in_x_as_torch():
    """PyTorch records zeta for a tensor x that requires grad and raises NotImplementedError in
    backward; minigrad too, and q's gradient stays available when x needs none. Dtypes:
    PyTorch's promotion (integers give float32, float32 with float64 gives float64)."""
    torch = torch_or_skip()
    for lib, tensor in ((minigrad, Tensor), (torch, torch.tensor)):
        x = tensor(np.array([2.0, 3.0]), requires_grad=True)
        out = lib.special.zeta(x, 2.0)
        assert out.requires_grad
        with pytest.raises(NotImplementedError):
            out.sum().backward()
    def wrapped(tensor, value):  # arrays as the library's tensors, Python numbers as they are
        return tensor(value) if isinstance(value, np.ndarray) else value

    for x, q in [(np.array([2, 3]), np.array([1, 2])), (np.float32([2.0]), np.array([1.0])),
                 (np.float32([2.0]), 1.0), (2.0, np.array([1.0]))]:
        ours = minigrad.special.zeta(wrapped(Tensor, x), wrapped(Tensor, q))
        theirs = torch.special.zeta(wrapped(torch.tensor, x), wrapped(torch.tensor, q))
        assert str(theirs.dtype) == f"torch.{ours.dtype}"


def test_igamma_and_igammac_are_their_closed_forms():
    """P(1, x) = 1 - exp(-x), P(1/2, x) = erf(sqrt(x)), and for whole a = n,
    Q(n, x) = exp(-x) * sum over k < n of x**k / k!; Q computed directly keeps its small values
    (Q(1, 700) = exp(-700), where 1 - P would be 0)."""
    x = np.geomspace(1e-6, 700, 400)
    p1 = minigrad.igamma(np.ones_like(x), Tensor(x)).data
    np.testing.assert_allclose(p1, -np.expm1(-x), rtol=1e-14)
    half = minigrad.igamma(np.full_like(x, 0.5), Tensor(x)).data
    np.testing.assert_allclose(half, [math.erf(math.sqrt(v)) for v in x], rtol=1e-14)
    for n in (1, 3, 10, 30):
        q = minigrad.igammac(np.full_like(x, float(n)), Tensor(x)).data
        expected = [math.exp(-v) * sum(v ** k / math.factorial(k) for k in range(n)) for v in x]
        np.testing.assert_allclose(q, expected, rtol=1e-12, atol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_igamma_and_igammac_match_torch(dtype):
    """Values and x's gradient, x^(a - 1) e^-x / Gamma(a) (negated for Q), over a from 1e-3 to
    1e4 and x around it, in float64 and float32; PyTorch's edges (NaN below 0 and at
    a = x = 0, the limits 0 and 1); a may not require grad, in both; integers raise
    NotImplementedError, in both."""
    torch = torch_or_skip()
    a = np.exp(rng.uniform(np.log(1e-3), np.log(1e4), 600))
    x = a * np.exp(rng.uniform(-2, 2, 600))
    a, x = a.astype(dtype), x.astype(dtype)
    # PyTorch's asymptotic expansion for larger a is 1e-9 from the exact values (docs/api.md).
    # Its float32 kernel computes in float32 (values 5e-5, gradients 5e-3 from the exact ones
    # for large a); minigrad rounds its float64 results, so float32 is checked against
    # PyTorch's float64 results for the same inputs
    rtol = 1e-8 if dtype == np.float64 else 1e-6
    for name in ("igamma", "igammac"):
        theirs = torch.tensor(x.astype(np.float64), requires_grad=True)
        expected = getattr(torch, name)(torch.tensor(a.astype(np.float64)), theirs)
        leaf = Tensor(x, requires_grad=True)
        with warnings.catch_warnings():
            warnings.simplefilter("error")
            out = getattr(minigrad, name)(Tensor(a), leaf)
            (grad,) = minigrad.grad(out, [leaf], np.ones_like(x))
        (expected_grad,) = torch.autograd.grad(expected.sum(), theirs)
        assert out.dtype == grad.dtype == dtype
        tiny = np.finfo(dtype).tiny
        np.testing.assert_allclose(out.data, expected.detach().numpy().astype(dtype),
                                   rtol=rtol, atol=tiny)
        np.testing.assert_allclose(grad, expected_grad.numpy().astype(dtype), rtol=rtol,
                                   atol=tiny)
    inf, nan = np.inf, np.nan
    edge_a = np.array([0.0, 0.0, 1.0, -1.0, 1.0, inf, inf, 2.0, 1.0, nan])
    edge_x = np.array([0.0, 2.0, 0.0, 1.0, -1.0, 1.0, inf, inf, nan, 1.0])
    for name in ("igamma", "igammac"):
        np.testing.assert_array_equal(
            getattr(minigrad, name)(Tensor(edge_a), Tensor(edge_x)).data,
            getattr(torch, name)(torch.tensor(edge_a), torch.tensor(edge_x)).numpy())
    for lib, tensor in ((minigrad, Tensor), (torch, torch.tensor)):
        shape = tensor(np.array([2.0, 3.0]), requires_grad=True)
        with pytest.raises(NotImplementedError):
            lib.igamma(shape, tensor(np.array([1.0, 2.0]))).sum().backward()
        with pytest.raises(NotImplementedError):
            lib.igammac(lib.tensor([1, 2]), lib.tensor([2, 3]))
    assert minigrad.special.gammainc is minigrad.igamma
    assert minigrad.special.gammaincc is minigrad.igammac


def test_igamma_and_igammac_of_a_huge_a():
    """Regression: from a of about 1e8 on, with x near a, the series and the continued fraction
    took about 9 sqrt(a) steps (seconds at 1e8, forever at 1e17). Against PyTorch where its
    expansion holds (x within 4.5 sqrt(a) of a, up to a = 1e12; beyond, it is off by up to 100%,
    docs/api.md), values, and x's gradient at a = 1e6; for a = 1e17 and 1e20,
    x = a + k sqrt(a), k from -8 to 8, against the normal limit with its first correction,
    P = Phi(k) - phi(k) (k^2 - 1) / (3 sqrt(a)), whose next term is below 1e-11 there, and
    its derivative."""
    torch = torch_or_skip()
    a = np.repeat([1e6, 3e8, 1e12], 9)
    x = a + np.tile(np.linspace(-4, 4, 9), 3) * np.sqrt(a)
    for name in ("igamma", "igammac"):
        leaf = Tensor(x, requires_grad=True)
        out = getattr(minigrad, name)(Tensor(a), leaf)
        (grad,) = minigrad.grad(out, [leaf], np.ones_like(x))
        theirs = torch.tensor(x, requires_grad=True)
        expected = getattr(torch, name)(torch.tensor(a), theirs)
        (expected_grad,) = torch.autograd.grad(expected.sum(), theirs)
        np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-8)
        # PyTorch's gradient, exp((a - 1) log(x) - x - lgamma(a)), loses about a * 1e-16 of
        # its exponent to cancellation: 0.4% at a = 1e12
        np.testing.assert_allclose(grad[:9], expected_grad.numpy()[:9], rtol=1e-8)
    # mpmath's gammainc at 40 digits, where the expansion takes over
    a, x = Tensor(np.array([1e6])), Tensor(np.array([1001000.0]))
    np.testing.assert_allclose(minigrad.igamma(a, x).data, [0.84134478636834029163], rtol=1e-15)
    np.testing.assert_allclose(minigrad.igammac(a, x).data, [0.15865521363165970837],
                               rtol=1e-14)
    for a in (1e17, 1e20):
        x = a + np.linspace(-8, 8, 17) * np.sqrt(a)
        k = (x - a) / np.sqrt(a)  # of x as rounded
        below, above = (np.array([math.erfc(sign * v / math.sqrt(2)) / 2 for v in k])
                        for sign in (-1, 1))  # Phi(k) and 1 - Phi(k), each to every digit
        correction = np.exp(-k ** 2 / 2) / math.sqrt(2 * math.pi) * (k ** 2 - 1) / (3 * a ** 0.5)
        np.testing.assert_allclose(minigrad.igamma(Tensor(np.full(17, a)), Tensor(x)).data,
                                   below - correction, rtol=1e-10)
        np.testing.assert_allclose(minigrad.igammac(Tensor(np.full(17, a)), Tensor(x)).data,
                                   above + correction, rtol=1e-10)
        # x's gradient, the density: phi(k) (1 + (k^3 - 3 k) / (3 sqrt(a))) / sqrt(a); it was
        # 1e-6 off at a = 1e20, a (log1p(t) - t) losing its digits to cancellation
        leaf = Tensor(x, requires_grad=True)
        (grad,) = minigrad.grad(minigrad.igamma(Tensor(np.full(17, a)), leaf), [leaf],
                                np.ones(17))
        density = (np.exp(-k ** 2 / 2) / math.sqrt(2 * math.pi)
                   * (1 + (k ** 3 - 3 * k) / (3 * a ** 0.5)) / a ** 0.5)
        np.testing.assert_allclose(grad, density, rtol=1e-10)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_igamma_gradient_at_x_zero_matches_torch(dtype):
    """Regression: x's gradient at x = 0 was NaN (0 / 0) for every a; it is x^(a - 1) / Gamma(a)
    there, as PyTorch's: inf for a < 1, 0 for a > 1 (NaN at a = 1, PyTorch's 0 * log(0))."""
    torch = torch_or_skip()
    a = np.array([0.25, 0.5, 1.0, 2.0, 40.0], dtype)
    for name in ("igamma", "igammac"):
        leaf = Tensor(np.zeros(5, dtype), requires_grad=True)
        (grad,) = minigrad.grad(getattr(minigrad, name)(Tensor(a), leaf), [leaf], np.ones(5))
        theirs = torch.zeros(5, dtype=getattr(torch, np.dtype(dtype).name), requires_grad=True)
        (expected,) = torch.autograd.grad(getattr(torch, name)(torch.tensor(a), theirs).sum(),
                                          theirs)
        assert grad.dtype == dtype
        np.testing.assert_array_equal(grad, expected.numpy())


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_i0_gradient_is_i1_near_zero_and_where_i0_overflows(dtype):
    """i0's derivative is i1: x / 2 to every digit near 0 (as i1e - sign i0e + sign i0e, the
    derivative of i0e(x) exp(|x|), it cancelled to 0 there), and +-inf past i0's overflow
    (709.8 in float64, 91.9 in float32), where that product's derivative was inf - inf = NaN.
    PyTorch's gradient, for both."""
    x = np.array([-1e-30, 1e-30, 1e-8, -2e-3, 0.0, 3.0, -95.0, 95.0, 800.0, -800.0],
                 dtype=dtype)
    leaf_x = Tensor(x, requires_grad=True)
    with np.errstate(all="ignore"):
        leaf_x.i0().sum().backward()
        expected = minigrad.special.i1(Tensor(x.astype(np.float64))).data.astype(dtype)
    assert leaf_x.grad.dtype == dtype
    np.testing.assert_allclose(leaf_x.grad.data, expected, rtol=1e-6 if dtype == np.float32
                               else 1e-14, atol=0)
    torch = torch_or_skip()
    t = torch.tensor(x, requires_grad=True)
    torch.i0(t).sum().backward()
    np.testing.assert_allclose(leaf_x.grad.data, t.grad.numpy(), rtol=1e-5, atol=0)


@pytest.mark.parametrize("dtype", [np.float64, np.float32])
def test_i1e_gradient_is_one_half_at_subnormal_inputs(dtype):
    """i1e'(0) = 1/2, and below the smallest normal float i1e(x) / x, a term of the gradient,
    was the quotient of a rounded subnormal: 1 at 5e-324, so the gradient was 1 (PyTorch's: 1/2)."""
    tiny = np.finfo(dtype).tiny
    x = np.array([np.finfo(dtype).smallest_subnormal, -3 * np.finfo(dtype).smallest_subnormal,
                  tiny / 3, 0.0, tiny], dtype=dtype)
    leaf = Tensor(x, requires_grad=True)
    (grad,) = minigrad.grad(minigrad.special.i1e(leaf), [leaf], np.ones(5, dtype))
    np.testing.assert_array_equal(grad, np.full(5, 0.5, dtype))
    torch = torch_or_skip()
    t = torch.tensor(x, requires_grad=True)
    torch.special.i1e(t).sum().backward()
    np.testing.assert_array_equal(grad, t.grad.numpy())


def test_polygamma_at_its_poles_and_at_inf():
    """At the poles 0, -1, -2, ... and -inf, (-1)**(n+1) inf for every n >= 1 (PyTorch's for
    n >= 2; its trigamma gives 6.6e32 at -1, from sin(-pi) != 0, and NaN at -inf), and the
    limit 0 at +inf (PyTorch: 0 for n = 1, NaN for n >= 2)."""
    x = Tensor(np.array([0.0, -0.0, -1.0, -7.0, -np.inf, np.inf]))
    np.testing.assert_array_equal(x.polygamma(1).data, [np.inf] * 5 + [0.0])
    np.testing.assert_array_equal(x.polygamma(2).data, [-np.inf] * 5 + [0.0])
    np.testing.assert_array_equal(x.polygamma(3).data, [np.inf] * 5 + [0.0])


@pytest.mark.parametrize("n", [1, 2, 3, 6])
def test_polygamma_matches_closed_forms(n):
    """psi_n(1) = (-1)**(n+1) n! zeta(n + 1), psi_n(1/2) = (2**(n+1) - 1) psi_n(1), and the
    recurrence psi_n(x + 1) = psi_n(x) + (-1)**n n! / x**(n+1), across the point where
    the computation switches from the recurrence to the asymptotic series."""
    zeta = {2: math.pi ** 2 / 6, 3: 1.2020569031595942, 4: math.pi ** 4 / 90,
            7: 1.0083492773819228}[n + 1]
    at_one = (-1) ** (n + 1) * math.factorial(n) * zeta
    got = Tensor(np.array([1.0, 0.5])).polygamma(n).data
    np.testing.assert_allclose(got, [at_one, (2 ** (n + 1) - 1) * at_one], rtol=2e-15)
    # x on a grid of 1/64, so that x + 1 is exact; above 0 psi_n(x + 1) and -step have the
    # sign of psi_n(x), so their difference does not cancel; below 0, near the zeros between
    # the poles, the sum's terms do: n! / f**(n+1) and n! / (1 - f)**(n+1) for
    # f = x - floor(x) are larger than the result there
    for x, rtol in [(rng.integers(7, 1920, 200) / 64, 1e-13),
                    (-rng.integers(3, 61, 50) / 64 - 3, 1e-10)]:
        step = (-1) ** n * math.factorial(n) / x ** (n + 1)
        np.testing.assert_allclose(Tensor(x).polygamma(n).data,
                                   Tensor(x + 1).polygamma(n).data - step, rtol=rtol)


def test_bessel_functions_match_their_integrals():
    """I_v(x) = (1/pi) * integral over [0, pi] of exp(x cos t) cos(v t) dt, scaled by
    exp(-|x|): the trapezoid rule is exact to rounding for this periodic integrand."""
    x = np.concatenate([rng.uniform(-60, 60, 200), [0.0, 29.9, 30.1, -30.1]])
    t = np.linspace(0, np.pi, 2001)
    for order, fn in [(0, special.i0e), (1, special.i1e)]:
        integrand = np.exp(np.outer(np.abs(x), np.cos(t)) - np.abs(x)[:, None]) * np.cos(order * t)
        expected = np.trapezoid(integrand, t, axis=1) / np.pi * np.sign(x) ** order
        np.testing.assert_allclose(fn(Tensor(x)).data, expected, rtol=1e-13, atol=1e-300)


def test_erfinv_and_ndtri_invert_erf_and_ndtr_to_the_last_digits():
    y = np.concatenate([rng.uniform(-1, 1, 2000), np.geomspace(1e-300, 0.5, 200)])
    x = Tensor(y).erfinv()
    np.testing.assert_allclose(x.erf().data, y, rtol=1e-15)
    p = np.geomspace(1e-300, 0.5, 300)
    # ndtr magnifies its argument's rounding by about x**2 (1400 at x = -37, p = 1e-300)
    np.testing.assert_allclose(special.ndtr(special.ndtri(Tensor(p))).data, p, rtol=1e-11)
    assert special.ndtri(Tensor(np.array([1e-300]))).data[0] == pytest.approx(-37.0470962993612,
                                                                               rel=1e-14)


@pytest.mark.parametrize("name", list(SPECIAL))
def test_special_function_keeps_float32_and_matches_torch_there(name):
    """float32 in, float32 out: computed in float64 and rounded once, so within an ulp or two
    of PyTorch's float32 routines."""
    torch = torch_or_skip()
    fn, torch_name, make, _ = SPECIAL[name]
    x = make()
    x = x[np.abs(x) < np.finfo(np.float32).max].astype(np.float32)
    x = x[np.abs(x) < 40] if name.startswith(("trigamma", "polygamma")) else x
    got = fn(Tensor(x))
    assert got.dtype == np.float32
    with np.errstate(all="ignore"):
        expected = _torch_special(torch, torch_name)(torch.tensor(x)).numpy()
    finite = np.isfinite(expected) & (np.abs(expected) > np.finfo(np.float32).tiny)
    # float32's own routines in PyTorch lose a few more digits near roots and poles
    close = np.isclose(got.data[finite], expected[finite], rtol=1e-5, atol=1e-6)
    assert close.mean() > 0.999, x[finite][~close][:5]
    assert_keeps_float32(fn, [Tensor(x[np.isfinite(got.data)][:50], requires_grad=True)])


GRADIENT_TOLERANCE = {
    # digamma's gradient is trigamma, which PyTorch computes with sin(pi x) below 0 without
    # reducing x, losing up to 7 digits near the poles
    "digamma": dict(rtol=1e-6),
    # 2x erfcx(x) - 2/sqrt(pi) cancels for large x, here as in PyTorch
    "erfcx": dict(atol=1e-14),
}


@pytest.mark.parametrize("name", list(SPECIAL))
def test_special_function_gradient_matches_torch(name):
    torch = torch_or_skip()
    fn, torch_name, make, rtol = SPECIAL[name]
    x = make()
    # far out only the forward differs, and it is checked above; from 2**52 on every float is an
    # integer, a pole of trigamma (digamma's gradient), where PyTorch's is finite
    x = x[np.abs(x) < 1e15][::20]
    leaf_ = Tensor(x, requires_grad=True)
    upstream = rng.standard_normal(x.shape)
    (grad,) = minigrad.grad(fn(leaf_), [leaf_], upstream)
    torch_leaf = torch.tensor(x, requires_grad=True)
    (expected,) = torch.autograd.grad(_torch_special(torch, torch_name)(torch_leaf), torch_leaf,
                                      torch.tensor(upstream))
    tolerance = dict(rtol=max(rtol, 1e-11), atol=1e-15) | GRADIENT_TOLERANCE.get(name, {})
    np.testing.assert_allclose(grad, expected.numpy(), **tolerance)


def test_erfcx_float32_gradient_keeps_float32_digits_where_it_cancels():
    """erfcx'(x) = 2x erfcx(x) - 2/sqrt(pi) cancels for large x: taken in float32 it lost 3
    digits at x = 100 and all of them at 1e4 (-1.2e-7 for -5.6e-9); taken in float64, as the
    forward is, it keeps float32's up to 1e4. Against the asymptotic series -(1/sqrt(pi)) sum
    of (-1)**n (2n+1)!! / 2**n / x**(2n+2), 7 terms, exact to float64 rounding for x >= 10."""
    x = np.array([10.0, 30.0, 100.0, 713.0, 3000.0, 1e4], dtype=np.float32)
    leaf_x = Tensor(x, requires_grad=True)
    minigrad.special.erfcx(leaf_x).sum().backward()
    assert leaf_x.grad.dtype == np.float32
    x64 = x.astype(np.float64)
    double_factorials = np.cumprod([1.0, 3.0, 5.0, 7.0, 9.0, 11.0, 13.0])
    series = sum((-1) ** n * double_factorials[n] / 2 ** n / x64 ** (2 * n + 2)
                 for n in range(7))
    np.testing.assert_allclose(leaf_x.grad.data, -series / math.sqrt(math.pi), rtol=2e-7)


@pytest.mark.parametrize("name", ["erf", "erfc", "erfcx", "erfinv", "ndtri", "lgamma", "digamma",
                                  "trigamma", "polygamma_3", "i0", "i0e", "i1e"])
@pytest.mark.parametrize("value", [0.3, -0.3])
def test_special_primitive_of_a_0_dim_tensor_as_of_one_entry(name, value):
    """Regression: digamma and polygamma (so lgamma's backward too) raised TypeError for a 0-d
    tensor: numpy's arithmetic on a 0-d array gives a scalar, which they wrote into by mask."""
    fn = {"erf": Tensor.erf, "erfc": Tensor.erfc, "erfcx": special.erfcx,
          "erfinv": Tensor.erfinv, "ndtri": special.ndtri, "lgamma": Tensor.lgamma,
          "digamma": Tensor.digamma, "trigamma": lambda x: x.polygamma(1),
          "polygamma_3": lambda x: x.polygamma(3), "i0": Tensor.i0, "i0e": special.i0e,
          "i1e": special.i1e}[name]
    value = abs(value) if name == "ndtri" else value
    scalar, entry = Tensor(value, requires_grad=True), Tensor([value], requires_grad=True)
    out, expected = fn(scalar), fn(entry)
    assert out.shape == ()
    out.backward()
    expected.sum().backward()
    assert out.item() == expected.item()
    assert scalar.grad.item() == entry.grad.item()


def test_special_functions_refuse_what_torch_refuses():
    assert_raises_like_torch(lambda lib, F: lib.polygamma(-1, lib.ones(3)))
    assert_raises_like_torch(lambda lib, F: lib.polygamma(1.0, lib.ones(3)))
    assert_raises_like_torch(lambda lib, F: lib.ones(3).polygamma(True))
    assert_raises_like_torch(lambda lib, F: lib.mvlgamma(lib.ones(3), 0))
    assert_raises_like_torch(lambda lib, F: lib.mvlgamma(lib.ones(3), 2.0))


def test_log1p_and_expm1_are_accurate_near_zero():
    tiny = np.array([1e-10, -3e-12, 1e-300])
    np.testing.assert_allclose(Tensor(tiny).log1p().data, [math.log1p(v) for v in tiny],
                               rtol=1e-15)
    np.testing.assert_allclose(Tensor(tiny).expm1().data, [math.expm1(v) for v in tiny],
                               rtol=1e-15)
    assert Tensor(np.float32([1e-8])).log1p().data[0] == np.float32(1e-8)  # log(1 + x) gives 0


def test_remainder_is_exact_for_large_quotients_and_follows_the_divisor_sign():
    a = np.array([1e20, 5.0, -5.0, 5.0, -5.5, 7.0])
    b = np.array([3.0, 3.0, 3.0, -3.0, 2.0, 7.0])
    out = (Tensor(a) % Tensor(b)).data
    np.testing.assert_array_equal(out, [x % y for x, y in zip(a, b)])  # Python's %
    assert out[0] == 1.0  # 10**20 = 1 (mod 3); a - floor(a / b) * b gives 0


def test_getitem_gradient_accumulates_repeats_of_a_tuple_index():
    """Regression: a tuple inside the index (a sequence of indices) was taken for basic
    indexing in backward, so a repeated entry got its gradient once instead of adding up."""
    x = Tensor(np.arange(6.0).reshape(2, 3), requires_grad=True)
    x[:, (1, 1, 0)].sum().backward()
    np.testing.assert_array_equal(x.grad, [[1.0, 2.0, 0.0], [1.0, 2.0, 0.0]])
    y = Tensor(np.arange(3.0), requires_grad=True)
    y[(2, 2, 2), ].sum().backward()
    np.testing.assert_array_equal(y.grad, [0.0, 0.0, 3.0])


def test_cast_gradient_comes_back_in_the_input_dtype():
    x = Tensor(np.array([1.0, 2.0], dtype=np.float32), requires_grad=True)
    y = x.double()
    assert y.dtype == np.float64 and ops.Cast in op_types(y)
    (y * y).sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_array_equal(x.grad, [2.0, 4.0])


# --------------------------------------------------------------------------------------------
# Unfold against a loop reference and against PyTorch's F.unfold
# --------------------------------------------------------------------------------------------
def _unfold_reference(x, kernel, dilation, padding, stride, pad_value):
    """Window by window, entry by entry: out[n, c, i, j, y, x] = padded[n, c, y*sh + i*dh, ...]."""
    (kh, kw), (dh, dw), ((top, bottom), (left, right)), (sh, sw) = kernel, dilation, padding, stride
    n, c, h, w = x.shape
    padded = np.full((n, c, h + top + bottom, w + left + right), pad_value)
    padded[:, :, top:top + h, left:left + w] = x
    out_h = (padded.shape[2] - dh * (kh - 1) - 1) // sh + 1
    out_w = (padded.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, c, kh, kw, out_h, out_w))
    for i, j, y, z in np.ndindex(kh, kw, out_h, out_w):
        out[:, :, i, j, y, z] = padded[:, :, y * sh + i * dh, z * sw + j * dw]
    return out


UNFOLD_SETTINGS = [
    ((2, 2), (1, 1), ((0, 0), (0, 0)), (1, 1), 0.0),
    ((3, 2), (2, 1), ((1, 2), (0, 1)), (2, 3), 0.0),
    ((1, 3), (1, 2), ((2, 2), (1, 1)), (1, 2), -np.inf),
]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("kernel,dilation,padding,stride,pad_value", UNFOLD_SETTINGS)
def test_unfold_forward_matches_loops(kernel, dilation, padding, stride, pad_value, dtype):
    x = data(2, 3, 6, 7, dtype=dtype)
    out = ops.Unfold.apply(Tensor(x), kernel_size=kernel, dilation=dilation, padding=padding,
                           stride=stride, pad_value=pad_value)
    assert out.dtype == dtype
    np.testing.assert_array_equal(out.data, _unfold_reference(x, kernel, dilation, padding,
                                                              stride, pad_value))


def test_unfold_backward_adds_up_the_windows_that_read_each_entry():
    """With G = 1 everywhere, each input entry's gradient counts the windows that read it."""
    x = Tensor(np.zeros((1, 1, 4, 4)), requires_grad=True)
    ops.Unfold.apply(x, kernel_size=(2, 2), dilation=(1, 1), padding=((0, 0), (0, 0)),
                     stride=(1, 1)).sum().backward()
    np.testing.assert_array_equal(x.grad[0, 0], [[1, 2, 2, 1], [2, 4, 4, 2], [2, 4, 4, 2],
                                                 [1, 2, 2, 1]])


@pytest.mark.parametrize("kernel,dilation,padding,stride", [
    ((2, 2), (1, 1), (0, 0), (1, 1)),
    ((3, 2), (2, 1), (1, 0), (2, 3)),
    ((1, 3), (1, 2), (2, 1), (1, 2)),
])
def test_unfold_matches_torch(kernel, dilation, padding, stride):
    torch = pytest.importorskip("torch", reason="PyTorch not installed: the cross-checks against "
                                                "it are skipped")
    x = data(2, 3, 6, 7)
    ours = F.unfold(Tensor(x), kernel, dilation, padding, stride)
    theirs = torch.nn.functional.unfold(torch.tensor(x), kernel, dilation, padding, stride)
    np.testing.assert_array_equal(ours.data, theirs.numpy())

