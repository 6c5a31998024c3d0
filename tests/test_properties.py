"""Property tests over random shapes: broadcasting binary ops and reductions agree with numpy in
value, and their gradients agree with an independent computation (a scatter-add through an index
map, not minigrad's `unbroadcast`) and with finite differences."""
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from hypothesis.extra.numpy import array_shapes, mutually_broadcastable_shapes

import minigrad
from minigrad import Tensor, gradcheck

SETTINGS = settings(max_examples=40, deadline=None)
seeds = st.integers(0, 2**32 - 1)


def reduce_to(full: np.ndarray, shape: tuple) -> np.ndarray:
    """Gradient of an input of `shape` that was broadcast to `full.shape`: every input entry
    collects the upstream entries it was copied to. Computed as a scatter-add through a map from
    output positions to input positions (np.bincount), independent of minigrad's unbroadcast."""
    size = int(np.prod(shape))
    owner = np.broadcast_to(np.arange(size).reshape(shape), full.shape)
    return np.bincount(owner.ravel(), weights=full.ravel(), minlength=size).reshape(shape)


def nonzero(rng, shape):
    """Entries with |x| in [0.5, 2], for divisors."""
    return rng.choice([-1.0, 1.0], size=shape) * rng.uniform(0.5, 2.0, size=shape)


# op name -> (minigrad op, numpy op, local derivatives (a, b, G) -> (dA, dB) on broadcast arrays)
BINARY = {
    "add": (lambda a, b: a + b, np.add, lambda a, b, g: (g, g)),
    "sub": (lambda a, b: a - b, np.subtract, lambda a, b, g: (g, -g)),
    "mul": (lambda a, b: a * b, np.multiply, lambda a, b, g: (g * b, g * a)),
    "div": (lambda a, b: a / b, np.divide, lambda a, b, g: (g / b, -g * a / b ** 2)),
}


@pytest.mark.parametrize("name", list(BINARY))
@SETTINGS
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=4, max_side=4),
       seed=seeds)
def test_binary_op_forward_and_gradient(name, shapes, seed):
    op, np_op, local = BINARY[name]
    rng = np.random.default_rng(seed)
    (sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    a_data = rng.standard_normal(sa)
    b_data = nonzero(rng, sb) if name == "div" else rng.standard_normal(sb)
    a, b = Tensor(a_data, requires_grad=True), Tensor(b_data, requires_grad=True)

    out = op(a, b)
    assert out.shape == out_shape and out.dtype == np.float64
    np.testing.assert_allclose(out.data, np_op(a_data, b_data), rtol=1e-15, atol=0)

    g = rng.standard_normal(out_shape)
    out.backward(g)
    a_full, b_full = np.broadcast_to(a_data, out_shape), np.broadcast_to(b_data, out_shape)
    da_full, db_full = local(a_full, b_full, g)
    assert a.grad.shape == sa and b.grad.shape == sb
    # the sums run in a different order than minigrad's, so allow for rounding on cancellation
    np.testing.assert_allclose(a.grad, reduce_to(np.broadcast_to(da_full, out_shape), sa),
                               rtol=1e-11, atol=1e-10)
    np.testing.assert_allclose(b.grad, reduce_to(np.broadcast_to(db_full, out_shape), sb),
                               rtol=1e-11, atol=1e-10)


@pytest.mark.parametrize("name", list(BINARY))
@settings(max_examples=15, deadline=None)
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       seed=seeds)
def test_binary_op_gradcheck(name, shapes, seed):
    op = BINARY[name][0]
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a = Tensor(rng.standard_normal(sa), requires_grad=True)
    b = Tensor(nonzero(rng, sb) if name == "div" else rng.standard_normal(sb), requires_grad=True)
    assert gradcheck(op, [a, b], seed=seed % 1000)


@pytest.mark.parametrize("name", list(BINARY))
@settings(max_examples=15, deadline=None)
@given(shapes=mutually_broadcastable_shapes(num_shapes=2, min_dims=0, max_dims=3, max_side=3),
       seed=seeds)
def test_binary_op_float32_stays_float32(name, shapes, seed):
    op, np_op, _ = BINARY[name]
    rng = np.random.default_rng(seed)
    sa, sb = shapes.input_shapes
    a_data = rng.standard_normal(sa).astype(np.float32)
    b_data = nonzero(rng, sb).astype(np.float32)
    a, b = Tensor(a_data, requires_grad=True), Tensor(b_data, requires_grad=True)
    out = op(a, b)
    assert out.dtype == np.float32
    np.testing.assert_array_equal(out.data, np_op(a_data, b_data))
    out.backward(np.ones(out.shape, dtype=np.float32))
    assert a.grad.dtype == np.float32 and b.grad.dtype == np.float32


@SETTINGS
@given(shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=4, max_side=4),
       seed=seeds)
def test_where_forward_and_gradient(shapes, seed):
    rng = np.random.default_rng(seed)
    (sc, sa, sb), out_shape = shapes.input_shapes, shapes.result_shape
    cond = rng.random(sc) < 0.5
    a_data, b_data = rng.standard_normal(sa), rng.standard_normal(sb)
    a, b = Tensor(a_data, requires_grad=True), Tensor(b_data, requires_grad=True)
    out = minigrad.where(cond, a, b)
    assert out.shape == out_shape
    np.testing.assert_array_equal(out.data, np.where(cond, a_data, b_data))

    g = rng.standard_normal(out_shape)
    out.backward(g)
    cond_full = np.broadcast_to(cond, out_shape)
    np.testing.assert_allclose(a.grad, reduce_to(g * cond_full, sa), rtol=1e-11, atol=1e-10)
    np.testing.assert_allclose(b.grad, reduce_to(g * ~cond_full, sb), rtol=1e-11, atol=1e-10)


@settings(max_examples=15, deadline=None)
@given(shapes=mutually_broadcastable_shapes(num_shapes=3, min_dims=0, max_dims=3, max_side=3),
       seed=seeds)
def test_where_gradcheck(shapes, seed):
    rng = np.random.default_rng(seed)
    sc, sa, sb = shapes.input_shapes
    cond = rng.random(sc) < 0.5
    a = Tensor(rng.standard_normal(sa), requires_grad=True)
    b = Tensor(rng.standard_normal(sb), requires_grad=True)
    assert gradcheck(lambda x, y: minigrad.where(cond, x, y), [a, b], seed=seed % 1000)


# --------------------------------------------------------------------------------------------
# reductions
# --------------------------------------------------------------------------------------------
@st.composite
def shape_and_axis(draw, max_dims=4, max_side=4):
    shape = draw(array_shapes(min_dims=1, max_dims=max_dims, min_side=1, max_side=max_side))
    ndim = len(shape)
    kind = draw(st.sampled_from(["none", "int", "tuple"]))
    if kind == "none":
        axis = None
    elif kind == "int":
        axis = draw(st.integers(-ndim, ndim - 1))
    else:
        axes = draw(st.lists(st.integers(0, ndim - 1), min_size=1, max_size=ndim, unique=True))
        # mix positive and negative spellings of the same axes
        axis = tuple(ax - ndim if draw(st.booleans()) else ax for ax in axes)
    return shape, axis, draw(st.booleans())


def distinct_values(rng, shape):
    """Entries at least 0.1 apart, so max has a unique arg-max and finite differences are clean."""
    size = int(np.prod(shape))
    return (rng.permutation(size) * 0.1 + rng.uniform(0, 0.01, size)).reshape(shape)


def owner_of_each_entry(shape, axis):
    """For every input entry, the flat index of the output entry it is reduced into."""
    reduced = np.sum(np.zeros(shape), axis=axis, keepdims=True).shape
    return np.broadcast_to(np.arange(int(np.prod(reduced))).reshape(reduced), shape)


REDUCTIONS = {
    "sum": (lambda t, axis, keepdims: t.sum(axis=axis, keepdims=keepdims), np.sum),
    "mean": (lambda t, axis, keepdims: t.mean(axis=axis, keepdims=keepdims), np.mean),
    "amax": (lambda t, axis, keepdims: t.amax(axis=axis, keepdims=keepdims), np.max),
}


@pytest.mark.parametrize("name", list(REDUCTIONS))
@SETTINGS
@given(case=shape_and_axis(), seed=seeds)
def test_reduction_forward_and_gradient(name, case, seed):
    shape, axis, keepdims = case
    op, np_op = REDUCTIONS[name]
    rng = np.random.default_rng(seed)
    data = distinct_values(rng, shape) if name == "amax" else rng.standard_normal(shape)
    x = Tensor(data, requires_grad=True)
    out = op(x, axis, keepdims)
    expected = np_op(data, axis=axis, keepdims=keepdims)
    assert out.shape == np.shape(expected) and out.dtype == np.float64
    np.testing.assert_allclose(out.data, expected, rtol=1e-13, atol=1e-13)

    g = rng.standard_normal(out.shape)
    out.backward(g)
    owner = owner_of_each_entry(shape, axis)
    g_at_owner = g.ravel()[owner]  # the upstream entry each input entry contributed to
    if name == "sum":
        expected_grad = g_at_owner
    elif name == "mean":
        expected_grad = g_at_owner * (g.size / data.size)  # 1 / (entries per output)
    else:
        best = np.max(data, axis=axis, keepdims=True)
        expected_grad = np.where(data == best, g_at_owner, 0.0)
        assert np.count_nonzero(data == best) == g.size  # one arg-max per output entry
    assert x.grad.shape == shape
    np.testing.assert_allclose(x.grad, expected_grad, rtol=1e-14, atol=0)


@pytest.mark.parametrize("name", list(REDUCTIONS))
@settings(max_examples=20, deadline=None)
@given(case=shape_and_axis(max_dims=3, max_side=3), seed=seeds)
def test_reduction_gradcheck(name, case, seed):
    shape, axis, keepdims = case
    op = REDUCTIONS[name][0]
    rng = np.random.default_rng(seed)
    data = distinct_values(rng, shape) if name == "amax" else rng.standard_normal(shape)
    x = Tensor(data, requires_grad=True)
    assert gradcheck(lambda t: op(t, axis, keepdims), [x], seed=seed % 1000)


@settings(max_examples=30, deadline=None)
@given(case=shape_and_axis(max_dims=3, max_side=4), seed=seeds)
def test_max_with_ties_splits_gradient(case, seed):
    shape, axis, keepdims = case
    rng = np.random.default_rng(seed)
    data = rng.integers(0, 3, size=shape).astype(np.float64)  # many ties
    x = Tensor(data, requires_grad=True)
    out = x.amax(axis=axis, keepdims=keepdims)
    g = rng.standard_normal(out.shape)
    out.backward(g)
    owner = owner_of_each_entry(shape, axis)
    is_max = data == np.max(data, axis=axis, keepdims=True)
    ties = np.bincount(owner[is_max], minlength=g.size)  # how many maxima each output has
    expected = np.where(is_max, g.ravel()[owner] / ties[owner], 0.0)
    np.testing.assert_allclose(x.grad, expected, rtol=1e-14, atol=0)
    # the gradient of each output entry is distributed, not duplicated
    np.testing.assert_allclose(np.bincount(owner.ravel(), weights=x.grad.ravel(),
                                           minlength=g.size), g.ravel(), rtol=1e-12, atol=1e-12)


# --------------------------------------------------------------------------------------------
# composed reductions and einsum
# --------------------------------------------------------------------------------------------
COMPOSED_REDUCTIONS = {
    "prod": (lambda t, axis, keepdims: t.prod(axis, keepdims), np.prod),
    "var": (lambda t, axis, keepdims: t.var(axis, keepdim=keepdims, correction=0), np.var),
    "std": (lambda t, axis, keepdims: t.std(axis, keepdim=keepdims, correction=0), np.std),
    "logsumexp": (lambda t, axis, keepdims: t.logsumexp(axis, keepdims),
                  lambda x, axis, keepdims: np.log(np.exp(x).sum(axis=axis, keepdims=keepdims))),
    "amin": (lambda t, axis, keepdims: t.amin(axis, keepdims), np.min),
    "norm": (lambda t, axis, keepdims: t.norm(dim=axis, keepdim=keepdims),
             lambda x, axis, keepdims: np.sqrt((x * x).sum(axis=axis, keepdims=keepdims))),
}


@pytest.mark.parametrize("name", list(COMPOSED_REDUCTIONS))
@settings(max_examples=20, deadline=None)
@given(case=shape_and_axis(max_dims=3, max_side=4), seed=seeds)
def test_composed_reduction_matches_numpy_and_gradcheck(name, case, seed):
    shape, axis, keepdims = case
    op, np_op = COMPOSED_REDUCTIONS[name]
    rng = np.random.default_rng(seed)
    data = distinct_values(rng, shape) if name == "amin" else rng.standard_normal(shape)
    x = Tensor(data, requires_grad=True)
    out = op(x, axis, keepdims)
    expected = np_op(data, axis=axis, keepdims=keepdims)
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out.data, expected, rtol=1e-12, atol=1e-12)
    with minigrad.fused(False):
        assert gradcheck(lambda t: op(t, axis, keepdims), [x], seed=seed % 1000)


@st.composite
def einsum_problems(draw):
    """A random einsum equation over letters a-d (each with one size), explicit or implicit,
    and operand shapes that fit it."""
    sizes = {c: draw(st.integers(1, 3)) for c in "abcd"}
    terms = draw(st.lists(st.lists(st.sampled_from("abcd"), max_size=3), min_size=1,
                          max_size=3))
    equation = ",".join("".join(t) for t in terms)
    used = sorted({c for t in terms for c in t})
    if used and draw(st.booleans()):
        output = draw(st.lists(st.sampled_from(used), unique=True, max_size=len(used)))
        equation += "->" + "".join(output)
    return equation, [tuple(sizes[c] for c in t) for t in terms]


@settings(max_examples=60, deadline=None)
@given(problem=einsum_problems(), seed=seeds)
def test_einsum_matches_numpy_and_gradcheck(problem, seed):
    equation, shapes = problem
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s) for s in shapes]
    operands = [Tensor(a, requires_grad=True) for a in arrays]
    out = minigrad.einsum(equation, *operands)
    expected = np.einsum(equation, *arrays)
    assert out.shape == expected.shape
    np.testing.assert_allclose(out.data, expected, rtol=1e-12, atol=1e-12)
    with minigrad.fused(False):
        assert gradcheck(lambda *xs: minigrad.einsum(equation, *xs), operands, seed=seed % 1000)
