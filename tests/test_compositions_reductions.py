"""Reductions (sum, mean, max, min, amax, amin, argmax, argmin, prod, var, std, any, all,
logsumexp, cumsum, cumprod, norm): each against a hand-written numpy reference, gradient-checked
in float64 on primitives alone, float32 kept, and against PyTorch (values and gradients) when
it is installed; then the behaviours PyTorch defines at the edges: ties, zeros, 0-d tensors,
infinities, and the errors for bad dims.
"""
import math

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, gradcheck

from tests.helpers import assert_raises_like_torch
from tests.op_checks import (Case, check_against_torch, check_float32, check_forward,
                             check_gradcheck, torch_or_skip)

INF = math.inf


def _var(x, axis=None, correction=1, keepdims=False):
    centered = x - x.mean(axis=axis, keepdims=True)
    count = x.size // np.sum(x, axis=axis, keepdims=True).size
    return (centered ** 2).sum(axis=axis, keepdims=keepdims) / (count - correction)


def _p_norm(x, p, axis=None, keepdims=False):
    return (np.abs(x) ** p).sum(axis=axis, keepdims=keepdims) ** (1 / p)


def _running_extreme(x, axis, better):
    """Loops: the running max (better = >=) or min (<=) along `axis` and, among equal entries,
    the latest index reaching it."""
    x = np.moveaxis(x, axis, -1)
    values, indices = np.empty_like(x), np.empty(x.shape, dtype=np.int64)
    for pos in np.ndindex(*x.shape[:-1]):
        best = 0
        for i in range(x.shape[-1]):
            if better(x[pos + (i,)], x[pos + (best,)]):
                best = i
            values[pos + (i,)], indices[pos + (i,)] = x[pos + (best,)], best
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


def _log_cumsum_exp(x, axis):
    """log(sum(exp)) of each prefix along `axis`, with the prefix's own max taken out."""
    x = np.moveaxis(x, axis, -1)
    out = np.empty_like(x)
    for i in range(x.shape[-1]):
        m = x[..., :i + 1].max(axis=-1, keepdims=True)
        out[..., i] = (m + np.log(np.exp(x[..., :i + 1] - m).sum(axis=-1, keepdims=True)))[..., 0]
    return np.moveaxis(out, -1, axis)


def _sorted(x, axis, descending=False):
    """Values and indices sorted along `axis`, by sorting index lists with Python's sort."""
    x = np.moveaxis(x, axis, -1)
    indices = np.empty(x.shape, dtype=np.int64)
    for pos in np.ndindex(*x.shape[:-1]):
        row = x[pos]
        indices[pos] = sorted(range(len(row)), key=lambda i: row[i], reverse=descending)
    values = np.take_along_axis(x, indices, -1)
    return np.moveaxis(values, -1, axis), np.moveaxis(indices, -1, axis)


SHAPE = [(2, 3, 4)]
SCALAR = [()]
CASES = {
    "sum_all": Case(lambda x: x.sum(), np.sum, SHAPE),
    "sum_dims_keepdim": Case(lambda x: x.sum(dim=(0, 2), keepdim=True),
                             lambda x: x.sum(axis=(0, 2), keepdims=True), SHAPE),
    "sum_negative_dim": Case(lambda x: x.sum(-1), lambda x: x.sum(axis=-1), SHAPE),
    "sum_0d_dim_minus_1": Case(lambda x: x.sum(-1), lambda x: x, SCALAR),
    "mean_dims": Case(lambda x: x.mean((1, -1)), lambda x: x.mean(axis=(1, 2)), SHAPE),
    "mean_0d_dim_0": Case(lambda x: x.mean(0, keepdim=True), lambda x: x, SCALAR),
    "max_all": Case(lambda x: x.max(), np.max, SHAPE, "distinct"),
    "max_dim": Case(lambda x: x.max(1), lambda x: (x.max(axis=1), x.argmax(axis=1)), SHAPE,
                    "distinct"),
    "max_dim_keepdim": Case(lambda x: x.max(-1, keepdim=True),
                            lambda x: (x.max(axis=-1, keepdims=True),
                                       x.argmax(axis=-1, keepdims=True)), SHAPE, "distinct"),
    "max_0d_dim_0": Case(lambda x: x.max(0), lambda x: (x, np.int64(0)), SCALAR),
    "min_all": Case(lambda x: x.min(), np.min, SHAPE, "distinct"),
    "max_other": Case(lambda x, y: x.max(y), np.maximum, [(2, 3), (3,)], "distinct"),
    "min_other_function": Case(lambda x, y: minigrad.min(x, y) if isinstance(x, Tensor)
                               else x.min(y), np.minimum, [(2, 3), (2, 1)], "distinct"),
    "min_dim": Case(lambda x: x.min(0), lambda x: (x.min(axis=0), x.argmin(axis=0)), SHAPE,
                    "distinct"),
    "amax_dims": Case(lambda x: x.amax((0, 2)), lambda x: x.max(axis=(0, 2)), SHAPE, "distinct"),
    "amin_keepdim": Case(lambda x: x.amin(1, keepdim=True), lambda x: x.min(1, keepdims=True),
                         SHAPE, "distinct"),
    "amax_0d": Case(lambda x: x.amax(-1), lambda x: x, SCALAR),
    "argmax_dim": Case(lambda x: x.argmax(1), lambda x: x.argmax(axis=1), SHAPE, "distinct",
                       differentiable=False),
    "argmax_all": Case(lambda x: x.argmax(), np.argmax, SHAPE, "distinct", differentiable=False),
    "argmin_all_keepdim": Case(lambda x: x.argmin(keepdim=True),
                               lambda x: np.argmin(x, keepdims=True), SHAPE, "distinct",
                               differentiable=False),
    "argmin_dim_keepdim": Case(lambda x: x.argmin(-1, keepdim=True),
                               lambda x: np.argmin(x, axis=-1, keepdims=True), SHAPE,
                               "distinct", differentiable=False),
    "argmax_0d": Case(lambda x: x.argmax(0), lambda x: np.int64(0), SCALAR,
                      differentiable=False),
    "prod_all": Case(lambda x: x.prod(), np.prod, [(7,)]),
    "prod_all_with_zero": Case(lambda x: x.prod(), np.prod, [(2, 3)], "zeros"),
    "prod_dim_with_zeros": Case(lambda x: x.prod(1), lambda x: x.prod(axis=1), [(4, 5)],
                                "zeros"),
    "prod_dims_keepdim": Case(lambda x: x.prod((0, 2), keepdim=True),
                              lambda x: x.prod(axis=(0, 2), keepdims=True), SHAPE,
                              torch_fn=lambda x: x.prod(2, keepdim=True).prod(0, keepdim=True)),
    "prod_0d": Case(lambda x: x.prod(0), lambda x: x, SCALAR),
    "var_all": Case(lambda x: x.var(), _var, SHAPE),
    "var_dim_correction_0": Case(lambda x: x.var(1, correction=0),
                                 lambda x: _var(x, 1, correction=0), SHAPE),
    "var_dims_unbiased_false_keepdim": Case(
        lambda x: x.var((0, 2), unbiased=False, keepdim=True),
        lambda x: _var(x, (0, 2), correction=0, keepdims=True), SHAPE),
    "std_dim": Case(lambda x: x.std(-1), lambda x: np.sqrt(_var(x, -1)), SHAPE),
    "std_correction_2": Case(lambda x: x.std(dim=1, correction=2),
                             lambda x: np.sqrt(_var(x, 1, correction=2)), SHAPE),
    "std_0d_correction_0": Case(lambda x: x.std(0, correction=0), lambda x: x * 0, SCALAR),
    "count_nonzero_all": Case(lambda x: x.count_nonzero(), np.count_nonzero, SHAPE, "zeros",
                              differentiable=False),
    "count_nonzero_dims": Case(lambda x: minigrad.count_nonzero(x, (0, 2)),
                               lambda x: np.count_nonzero(x, axis=(0, 2)), SHAPE, "zeros",
                               differentiable=False,
                               torch_fn=lambda x: torch_or_skip().count_nonzero(x, (0, 2))),
    "nansum_dim": Case(lambda x: minigrad.where(x.data > 0, x, float("nan")).nansum(1),
                       lambda x: np.nansum(np.where(x > 0, x, np.nan), axis=1), SHAPE,
                       torch_fn=lambda x: torch_or_skip().where(x > 0, x, float("nan")).nansum(1)),
    "any_dim": Case(lambda x: x.any(1), lambda x: x.any(axis=1), SHAPE, "zeros",
                    differentiable=False),
    "all_dim_keepdim": Case(lambda x: x.all(0, keepdim=True),
                            lambda x: x.all(axis=0, keepdims=True), [(2, 5)], "zeros",
                            differentiable=False),
    "logsumexp_dim": Case(lambda x: x.logsumexp(1), lambda x: np.log(np.exp(x).sum(axis=1)),
                          SHAPE),
    "logsumexp_dims_keepdim": Case(lambda x: x.logsumexp((0, 2), keepdim=True),
                                   lambda x: np.log(np.exp(x).sum(axis=(0, 2), keepdims=True)),
                                   SHAPE),
    "logsumexp_0d": Case(lambda x: x.logsumexp(0), lambda x: x, SCALAR),
    "cumsum_dim": Case(lambda x: x.cumsum(1), lambda x: np.cumsum(x, axis=1), [(3, 7, 2)]),
    "cumsum_negative_dim": Case(lambda x: x.cumsum(-1), lambda x: np.cumsum(x, axis=-1), SHAPE),
    "cumsum_0d": Case(lambda x: x.cumsum(0), lambda x: x, SCALAR),
    "cumprod_dim": Case(lambda x: x.cumprod(0), lambda x: np.cumprod(x, axis=0), [(6, 3)]),
    "cumprod_with_zeros": Case(lambda x: x.cumprod(1), lambda x: np.cumprod(x, axis=1), [(3, 9)],
                               "zeros"),
    "norm_default": Case(lambda x: x.norm(), lambda x: np.sqrt((x ** 2).sum()), SHAPE),
    "norm_p1_dim": Case(lambda x: x.norm(1, dim=1), lambda x: np.abs(x).sum(axis=1), SHAPE),
    "norm_p3_dims_keepdim": Case(lambda x: x.norm(3, dim=(0, 2), keepdim=True),
                                 lambda x: _p_norm(x, 3, (0, 2), True), SHAPE),
    "norm_p_half": Case(lambda x: x.norm(0.5, dim=-1), lambda x: _p_norm(x, 0.5, -1), SHAPE),
    "norm_p_minus_1": Case(lambda x: x.norm(-1, dim=0), lambda x: _p_norm(x, -1, 0), SHAPE),
    "norm_inf": Case(lambda x: x.norm(INF, dim=1), lambda x: np.abs(x).max(axis=1), SHAPE,
                     "distinct"),
    "norm_minus_inf": Case(lambda x: x.norm(-INF), lambda x: np.abs(x).min(), SHAPE, "distinct"),
    "norm_fro_two_dims": Case(lambda x: x.norm("fro", dim=(0, 1)),
                              lambda x: np.sqrt((x ** 2).sum(axis=(0, 1))), SHAPE),
    "norm_p0": Case(lambda x: x.norm(0, dim=1), lambda x: (x != 0).sum(axis=1).astype(float),
                    SHAPE, "zeros", differentiable=False),
    "norm_0d": Case(lambda x: x.norm(dim=0), np.abs, SCALAR),
    "cummax": Case(lambda x: x.cummax(1), lambda x: _running_extreme(x, 1, np.greater_equal),
                   SHAPE, "distinct"),
    "cummin_last_dim": Case(lambda x: x.cummin(-1),
                            lambda x: _running_extreme(x, -1, np.less_equal), SHAPE, "distinct"),
    "cummax_0d": Case(lambda x: x.cummax(0), lambda x: (x, np.int64(0)), SCALAR),
    "logcumsumexp": Case(lambda x: x.logcumsumexp(1), lambda x: _log_cumsum_exp(x, 1),
                         [(3, 7, 2)]),
    "logcumsumexp_0d": Case(lambda x: x.logcumsumexp(-1), lambda x: x, SCALAR),
    "sort": Case(lambda x: x.sort(1), lambda x: _sorted(x, 1), SHAPE, "distinct"),
    "sort_descending_default_dim": Case(lambda x: x.sort(descending=True),
                                        lambda x: _sorted(x, -1, descending=True), SHAPE,
                                        "distinct"),
    "argsort": Case(lambda x: x.argsort(0), lambda x: _sorted(x, 0)[1], SHAPE, "distinct",
                    differentiable=False),
    "topk": Case(lambda x: x.topk(2, dim=1),
                 lambda x: tuple(part[:, :2] for part in _sorted(x, 1, descending=True)), SHAPE,
                 "distinct"),
    "topk_smallest": Case(lambda x: x.topk(3, largest=False),
                          lambda x: tuple(part[..., :3] for part in _sorted(x, -1)), SHAPE,
                          "distinct"),
    "std_mean": Case(lambda x: minigrad.std_mean(x, 1),
                     lambda x: (np.sqrt(_var(x, 1)), x.mean(axis=1)), SHAPE,
                     torch_fn=lambda x: (x.std(1), x.mean(1))),
    "var_mean_keepdim": Case(lambda x: minigrad.var_mean(x, (0, 2), keepdim=True, correction=0),
                             lambda x: (_var(x, (0, 2), 0, True), x.mean((0, 2), keepdims=True)),
                             SHAPE, torch_fn=lambda x: (x.var((0, 2), keepdim=True, correction=0),
                                                        x.mean((0, 2), keepdim=True))),
}
DIFFERENTIABLE = [name for name, case in CASES.items() if case.differentiable]


@pytest.mark.parametrize("fused", [True, False], ids=["kernels", "composed"])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_numpy(name, fused):
    check_forward(CASES[name], fused)


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_gradcheck_on_primitives_alone(name):
    check_gradcheck(CASES[name])


@pytest.mark.parametrize("name", DIFFERENTIABLE)
def test_keeps_float32(name):
    check_float32(CASES[name])


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch(name):
    check_against_torch(CASES[name])


# --------------------------------------------------------------------------------------------
# max and min: values and indices, and where the gradient goes
# --------------------------------------------------------------------------------------------
def test_max_with_dim_returns_values_and_indices():
    x = Tensor(np.array([[1.0, 5.0, 5.0], [7.0, -1.0, 7.0]]), requires_grad=True)
    result = x.max(dim=1)
    values, indices = result
    assert values is result.values and indices is result.indices
    np.testing.assert_array_equal(values.data, [5.0, 7.0])
    np.testing.assert_array_equal(indices.data, [1, 0])  # the first of tied maxima
    assert indices.dtype == np.int64 and not indices.requires_grad
    assert values.requires_grad and minigrad.max is Tensor.max


def test_max_with_dim_sends_the_gradient_to_the_index_returned():
    x = Tensor(np.array([[2.0, 2.0, 2.0], [0.0, 5.0, 1.0], [4.0, 4.0, -1.0]]),
               requires_grad=True)
    x.max(1).values.backward(np.array([3.0, 1.0, 2.0]))
    np.testing.assert_array_equal(x.grad, [[3.0, 0, 0], [0, 1.0, 0], [2.0, 0, 0]])
    y = Tensor(np.array([[1.0, 0.0], [0.0, 0.0]]), requires_grad=True)
    y.min(0).values.backward(np.array([1.0, 1.0]))
    np.testing.assert_array_equal(y.grad, [[0.0, 1.0], [1.0, 0.0]])


def test_full_max_and_amax_share_the_gradient_among_ties():
    x = Tensor(np.array([1.0, 3.0, 3.0]), requires_grad=True)
    x.max().backward()
    np.testing.assert_array_equal(x.grad, [0.0, 0.5, 0.5])
    y = Tensor(np.array([[2.0, 2.0, 2.0], [4.0, 4.0, -1.0]]), requires_grad=True)
    y.amin(1).backward(np.array([3.0, 1.0]))
    np.testing.assert_allclose(y.grad, [[1.0, 1.0, 1.0], [0.0, 0.0, 1.0]], rtol=1e-15)


@pytest.mark.parametrize("op", ["max", "min", "amax", "amin"])
def test_ties_route_the_gradient_as_torch_does(op):
    torch = torch_or_skip()
    data = np.array([[2.0, 2.0, 2.0], [0.0, 5.0, 5.0], [4.0, -1.0, 4.0]])
    x, t = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    g = np.array([3.0, 1.0, 2.0])
    for leaf, dims in ((x, 1), (t, 1)):
        out = getattr(leaf, op)(dims)
        out = out[0] if isinstance(out, tuple) else out
        out.backward(g if leaf is x else torch.tensor(g))
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-15)
    x2, t2 = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    getattr(x2, op)().backward()
    getattr(t2, op)().backward()
    np.testing.assert_allclose(x2.grad, t2.grad.numpy(), rtol=1e-15)


@pytest.mark.parametrize("op", ["max", "min"])
def test_a_nan_is_the_extreme_and_takes_the_gradient(op):
    x = Tensor(np.array([1.0, np.nan, 3.0]), requires_grad=True)
    out = getattr(x, op)()
    assert np.isnan(out.item())
    out.backward()
    np.testing.assert_array_equal(x.grad, [0.0, 1.0, 0.0])
    torch = torch_or_skip()
    t = torch.tensor([1.0, np.nan, 3.0], requires_grad=True)
    getattr(t, op)().backward()
    np.testing.assert_array_equal(x.grad, t.grad.numpy())


def test_max_of_int_and_bool_tensors():
    ints = Tensor(np.array([[3, 200, 7]], dtype=np.uint8))
    assert ints.min().item() == 3 and ints.max(1).values.data.tolist() == [200]
    assert ints.min(1).indices.data.tolist() == [0]
    flags = Tensor(np.array([True, False]))
    assert flags.min().item() is False and flags.amax().item() is True


# --------------------------------------------------------------------------------------------
# prod, cumprod, cumsum: exact gradients through zeros, integer accumulation
# --------------------------------------------------------------------------------------------
def _others_product(x):
    """d prod(x) / d x_i = the product of every other entry, by explicit loops."""
    return np.array([np.prod(np.delete(x, i)) for i in range(len(x))])


@pytest.mark.parametrize("data", [[0.0, 2.0, 3.0], [0.0, 2.0, 0.0], [1.5, -2.0, 3.0, 0.5, 4.0],
                                  [0.0], [5.0, 0.0, 0.0, 0.0, 2.0, 3.0, 7.0]])
def test_prod_gradient_is_the_product_of_the_others_even_with_zeros(data):
    x = Tensor(np.array(data), requires_grad=True)
    out = x.prod()
    np.testing.assert_allclose(out.item(), np.prod(data), rtol=1e-15)
    out.backward()
    np.testing.assert_allclose(x.grad, _others_product(np.array(data)), rtol=1e-15)


def test_cumprod_gradient_with_zeros_matches_a_loop():
    data = np.array([2.0, 0.0, 3.0, 0.0, 5.0])
    x = Tensor(data, requires_grad=True)
    g = np.array([1.0, -2.0, 0.5, 3.0, 1.5])
    x.cumprod(0).backward(g)
    # d/dx_j sum_i g_i prod_{k<=i} x_k = sum_{i>=j} g_i prod_{k<=i, k!=j} x_k
    expected = [sum(g[i] * np.prod(np.delete(data[:i + 1], j)) for i in range(j, 5))
                for j in range(5)]
    np.testing.assert_allclose(x.grad, expected, rtol=1e-15)
    torch = torch_or_skip()
    t = torch.tensor(data, requires_grad=True)
    t.cumprod(0).backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-15)


def test_empty_product_is_one_and_empty_sum_zero():
    x = Tensor(np.zeros((3, 0)))
    np.testing.assert_array_equal(x.prod(1).data, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(x.sum(1).data, [0.0, 0.0, 0.0])


@pytest.mark.parametrize("dim", [None, 0, 1])
def test_empty_product_stays_in_the_graph(dim):
    # as PyTorch: the product of nothing requires grad, and the gradient is empty
    x = Tensor(np.zeros((0, 3)), requires_grad=True)
    out = x.prod() if dim is None else x.prod(dim)
    assert out.requires_grad
    out.sum().backward()
    assert x.grad.shape == (0, 3)


def test_integer_and_bool_tensors_accumulate_in_int64():
    flags = Tensor(np.array([True, True, False, True]))
    assert flags.cumsum(0).data.tolist() == [1, 2, 2, 3] and flags.cumsum(0).dtype == np.int64
    small = Tensor(np.array([100, 100, 100], dtype=np.int8))
    assert small.prod().item() == 1_000_000 and small.prod().dtype == np.int64
    assert small.cumprod(0).data.tolist() == [100, 10_000, 1_000_000]
    pixels = Tensor(np.array([[200, 100], [3, 4]], dtype=np.uint8))  # numpy's sum: uint64
    for total in (pixels.sum(), pixels.sum(0), pixels.nansum(), pixels.trace()):
        assert total.dtype == np.int64
    assert pixels.sum().item() == 307


def test_cumsum_matches_numpy_on_a_long_dim():
    data = np.random.default_rng(5).standard_normal((2, 1000))
    np.testing.assert_allclose(Tensor(data).cumsum(1).data, np.cumsum(data, axis=1),
                               rtol=1e-10, atol=1e-12)


# --------------------------------------------------------------------------------------------
# var, std, norm, logsumexp at the edges
# --------------------------------------------------------------------------------------------
def test_var_spellings_of_the_correction_agree():
    x = Tensor(np.random.default_rng(3).standard_normal((4, 5)))
    population = _var(x.data, 1, correction=0)
    for out in (x.var(1, False), x.var(1, unbiased=False), x.var(1, correction=0),
                x.var(axis=1, correction=0)):
        np.testing.assert_allclose(out.data, population, rtol=1e-14)
    np.testing.assert_allclose(x.var(True).item(), _var(x.data), rtol=1e-14)
    np.testing.assert_allclose(x.var(False).item(), _var(x.data, correction=0), rtol=1e-14)


def test_var_without_degrees_of_freedom_is_nan_or_inf_as_in_torch():
    with np.errstate(divide="ignore", invalid="ignore"):
        assert np.isnan(Tensor(np.array([1.0])).var().item())
        assert Tensor(np.array([1.0, 2.0])).var(correction=2).item() == INF


def test_std_of_a_constant_has_gradient_zero_as_in_torch():
    x = Tensor(np.full((2, 3), 4.0), requires_grad=True)
    out = x.std(1)
    np.testing.assert_array_equal(out.data, [0.0, 0.0])
    out.backward(np.ones(2))
    np.testing.assert_array_equal(x.grad, np.zeros((2, 3)))


@pytest.mark.parametrize("p", [2, "fro", 1, 3, 0.5, -1, INF, -INF])
def test_norm_of_zeros_has_gradient_zero(p):
    x = Tensor(np.zeros(3), requires_grad=True)
    out = x.norm(p)
    assert out.item() == 0.0
    out.backward()
    np.testing.assert_array_equal(x.grad, np.zeros(3))


@pytest.mark.parametrize("p", [2, 1, 3, 0.5, -1, INF, -INF, 0])
def test_norm_with_some_zero_entries_matches_torch(p):
    torch = torch_or_skip()
    data = np.array([[0.0, 1.0, -2.0], [3.0, 0.0, 0.0], [0.0, 0.0, 0.0]])
    x, t = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    out, expected = x.norm(p, dim=1), t.norm(p, dim=1)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-14)
    if p == 0:  # a count: no gradient
        assert not out.requires_grad
        return
    g = np.array([1.0, -2.0, 0.5])
    out.backward(g)
    expected.backward(torch.tensor(g))
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-14, atol=1e-15)


def test_logsumexp_is_stable_and_handles_infinities():
    x = Tensor(np.array([[1000.0, 1000.0], [-1000.0, -INF], [-INF, -INF], [INF, 1.0]]),
               requires_grad=True)
    with np.errstate(divide="ignore"):
        out = x.logsumexp(1)
    np.testing.assert_allclose(out.data, [1000.0 + math.log(2.0), -1000.0, -INF, INF],
                               rtol=1e-15)
    with np.errstate(invalid="ignore"):  # rows of -inf get NaN gradients, as in PyTorch
        out[:2].sum().backward()
    np.testing.assert_allclose(x.grad[:2], [[0.5, 0.5], [1.0, 0.0]], rtol=1e-15)


def test_logsumexp_of_integers_and_bools_is_float32_as_in_torch():
    torch = torch_or_skip()
    for data in (np.array([[1, 2, 3], [-4, 0, 4]]), np.array([[True, False, True]])):
        out = Tensor(data).logsumexp(1)
        expected = torch.tensor(data).logsumexp(1)
        assert out.dtype == np.float32 and str(expected.dtype) == "torch.float32"
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6)


def test_logsumexp_needs_a_dim_as_in_torch():
    with pytest.raises(TypeError):
        Tensor(np.ones(3)).logsumexp()


# --------------------------------------------------------------------------------------------
# argmax, any, all
# --------------------------------------------------------------------------------------------
def test_argmax_picks_the_first_tie_and_nan_like_torch():
    x = Tensor(np.array([[1.0, 3.0, 3.0], [np.nan, 2.0, np.nan]]))
    assert x.argmax(1).data.tolist() == [1, 0]
    assert x.argmax().item() == 3 and x.argmin(1).data.tolist() == [0, 0]


def test_argmax_of_bools_is_that_of_their_int_values():
    # PyTorch has no bool kernel (other suites, tinygrad's, take bools); the answer is the ints'
    x = Tensor(np.array([[False, True, True], [False, False, False]]))
    assert x.argmax(1).data.tolist() == [1, 0] and x.argmin(1).data.tolist() == [0, 0]
    assert x.argmax().item() == 1 and Tensor(np.array([True, False])).argmin().item() == 1


def test_any_and_all_return_bool_tensors_without_grad():
    x = Tensor(np.array([[0.0, 0.0], [0.0, 2.0]]), requires_grad=True)
    for out, expected in ((x.any(), True), (x.all(), False), (x.any(1), [False, True]),
                          (x.all(dim=(0, 1), keepdim=True), [[False]])):
        assert out.dtype == np.bool_ and not out.requires_grad
        assert out.data.tolist() == expected


# --------------------------------------------------------------------------------------------
# dims: ints, tuples, negatives, 0-d tensors, and the errors
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "prod", "var", "std", "any",
                                "all", "logsumexp", "norm", "argmax", "max", "min", "cumsum",
                                "cumprod"])
def test_0d_tensors_accept_dim_0_and_minus_1(op):
    x = Tensor(np.array(2.5))
    for dim in (0, -1):
        kwargs = {"correction": 0} if op in ("var", "std") else {}
        out = getattr(x, op)(dim=dim, **kwargs) if op != "norm" else x.norm(dim=dim)
        out = out[0] if isinstance(out, tuple) else out
        assert out.shape == ()
    with pytest.raises(IndexError, match=op):
        getattr(x, op)(dim=1) if op != "norm" else x.norm(dim=1)


@pytest.mark.parametrize("op", ["sum", "mean", "amax", "amin", "prod", "var", "std", "any",
                                "all", "logsumexp", "argmax", "argmin", "max", "min", "cumsum",
                                "cumprod"])
def test_out_of_range_dim_is_an_index_error_naming_the_function(op):
    x = Tensor(np.ones((2, 3)))
    with pytest.raises(IndexError, match=rf"{op}: dim 2 is out of range .* 2 dims"):
        getattr(x, op)(2)
    with pytest.raises(IndexError, match=rf"{op}: dim -3"):
        getattr(x, op)(dim=-3)


def test_repeated_dims_and_bad_arguments_are_rejected():
    x = Tensor(np.ones((2, 3)))
    with pytest.raises(ValueError, match="sum: dims .* more than once"):
        x.sum((1, -1))
    with pytest.raises(TypeError, match="max: dim must be an int.*amax"):
        x.max((0, 1))
    with pytest.raises(TypeError, match="var: give correction= or unbiased="):
        x.var(0, unbiased=True, correction=0)
    with pytest.raises(ValueError, match="norm: p must be a number or 'fro'"):
        x.norm("nuc")
    with pytest.raises(IndexError, match="argmax: the dim searched is empty"):
        Tensor(np.ones((2, 0))).argmax(1)
    with pytest.raises(TypeError, match="dim=.*axis="):
        x.sum(dim=0, axis=0)


# Misuse that PyTorch rejects too, written once for both libraries (`m` is minigrad or torch).
TORCH_ERRORS = [
    lambda m, F: m.tensor([1.5, 2.5]).mean(dtype=m.int64),  # a mean is not an integer
    lambda m, F: m.ones(2, 3).sum(5),
    lambda m, F: m.ones(()).sum(1),
    lambda m, F: m.ones(3, 4).sum((0, 0)),
    lambda m, F: m.ones(3, 4).amax((1, -1)),
    lambda m, F: m.ones(20).cumsum(1),
    lambda m, F: m.ones(2, 3).max((0, 1)),
    lambda m, F: m.ones(0, 3).max(),
    lambda m, F: m.ones(0, 3).max(0),
    lambda m, F: m.ones(0, 3).amax(0),
    lambda m, F: m.ones(0, 3).argmax(),
    lambda m, F: m.ones(0, 3).argmax(0),
    lambda m, F: m.ones(3).var(unbiased=True, correction=1),
    lambda m, F: m.ones(4).topk(5),
    lambda m, F: m.ones(4).topk(-1),
    lambda m, F: m.ones(2, 2).norm("bad"),
    # floats only (regression: integers were converted to float32 silently)
    lambda m, F: m.tensor([[1, 0, 3], [2, 2, 1]]).var(),
    lambda m, F: m.tensor([[1, 0, 3], [2, 2, 1]], dtype=m.int32).std(0),
    lambda m, F: m.tensor([True, False]).var(),
    lambda m, F: m.std_mean(m.tensor([1, 2, 4])),
    lambda m, F: m.tensor([[1, 2], [3, 4]]).logcumsumexp(1),
    lambda m, F: m.tensor([3, 4]).norm(),
    lambda m, F: m.tensor([3, 0]).norm(0),
    lambda m, F: F.normalize(m.tensor([[3, 4]])),
    lambda m, F: m.unique(m.tensor(3), dim=0),
    lambda m, F: m.unique(m.tensor([3]), dim=1),
    lambda m, F: m.unique(m.zeros(2, 0), dim=0),  # empty slices (regression: one was kept)
    lambda m, F: m.zeros(0, 2).unique(dim=-1),
]


def test_unique_matches_pytorch():
    torch = torch_or_skip()
    assert minigrad.unique(Tensor(np.array([3, 1, 3, 2]))).tolist() == [1, 2, 3]
    cases = [
        (np.array([3.0, np.nan, 1.0, np.nan, 3.0]), dict(return_inverse=True, return_counts=True)),
        (np.array([[3, 1], [1, 1]]), dict(return_inverse=True)),
        (np.array([[1, 2], [1, 2], [0, 5]]), dict(dim=0, return_inverse=True, return_counts=True)),
        (np.array([[1, 2, 1], [0, 5, 0]]), dict(dim=-1, return_counts=True)),
        (np.array(3), dict(return_inverse=True)),
        (np.zeros(0), dict(return_inverse=True, return_counts=True)),
        (np.array([True, False, True]), {}),
    ]
    for data, kwargs in cases:
        out = Tensor(data).unique(**kwargs)
        expected = torch.unique(torch.from_numpy(data), **kwargs)
        out, expected = (out, expected) if isinstance(out, tuple) else ((out,), (expected,))
        assert len(out) == len(expected)
        for got, want in zip(out, expected):
            assert str(want.dtype) == f"torch.{got.dtype}" and got.shape == tuple(want.shape)
            np.testing.assert_array_equal(got.data, want.numpy())


def test_any_and_all_of_uint8_are_uint8_as_in_pytorch():
    """PyTorch's documented exception: uint8 in, uint8 out (bool for every other dtype)."""
    torch = torch_or_skip()
    data = np.array([[0, 3, 0], [1, 2, 0]], np.uint8)
    for name, kwargs in [("any", {}), ("all", {}), ("any", {"dim": 1}), ("all", {"dim": 0}),
                         ("all", {"dim": 1, "keepdim": True})]:
        out = getattr(Tensor(data), name)(**kwargs)
        expected = getattr(torch.from_numpy(data), name)(**kwargs)
        assert out.dtype == np.uint8 and str(expected.dtype) == "torch.uint8"
        np.testing.assert_array_equal(out.data, expected.numpy())
    assert Tensor(data.astype(np.int32)).any(1).dtype == np.bool_


@pytest.mark.parametrize("misuse", TORCH_ERRORS)
def test_errors_are_of_pytorchs_class(misuse):
    assert_raises_like_torch(misuse)


def test_cummax_and_cummin_ties_and_nan_follow_torch():
    """Among equal entries the latest index; a NaN stays the extreme; the gradient of each
    value goes to the entry at its index."""
    torch = torch_or_skip()
    data = np.array([1.0, 1.0, 0.0, 1.0, 2.0, 2.0, np.nan, 3.0])
    for op in ("cummax", "cummin"):
        x = Tensor(data, requires_grad=True)
        values, indices = getattr(x, op)(0)
        tx = torch.tensor(data, requires_grad=True)
        expected = getattr(torch, op)(tx, 0)
        np.testing.assert_array_equal(values.data, expected.values.detach().numpy())
        np.testing.assert_array_equal(indices.data, expected.indices.numpy())
        upstream = np.arange(1.0, 9.0)
        values.backward(upstream)
        expected.values.backward(torch.tensor(upstream))
        np.testing.assert_array_equal(x.grad, tx.grad.numpy())


def test_logcumsumexp_is_stable_far_apart():
    """The first entry of [0, 100] stays 0 in float32 (exp(-100) is a float32 denormal)."""
    torch = torch_or_skip()
    x = Tensor(np.array([0.0, 100.0, -50.0, 100.0], dtype=np.float32), requires_grad=True)
    out = x.logcumsumexp(0)
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.data, [0.0, 100.0, 100.0, 100.0 + math.log(2)], rtol=1e-7)
    out.sum().backward()
    tx = torch.tensor(x.data, requires_grad=True)
    torch.logcumsumexp(tx, 0).sum().backward()
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-5, atol=1e-30)


def test_sort_is_stable_and_puts_nan_last_or_first_as_torch():
    torch = torch_or_skip()
    data = np.array([2.0, np.nan, 1.0, 2.0, 0.0, 1.0])
    for descending in (False, True):
        values, indices = Tensor(data).sort(descending=descending)
        expected = torch.tensor(data).sort(descending=descending, stable=True)
        np.testing.assert_array_equal(values.data, expected.values.numpy())
        np.testing.assert_array_equal(indices.data, expected.indices.numpy())
    ints = Tensor(np.array([[3, 1, 2], [0, 0, 5]], dtype=np.int32))
    assert ints.sort(1).values.dtype == np.int32 and ints.argsort(1).tolist() == [[1, 2, 0],
                                                                                   [0, 1, 2]]
    assert Tensor(np.zeros((0, 5))).sort(0).values.shape == (0, 5)


def test_topk_takes_the_first_of_equal_entries_and_checks_k():
    flags = Tensor(np.array([1, 1, 0, 1, 0, 1, 0, 0, 1, 0, 0, 0, 1, 0]))
    assert flags.topk(3).indices.tolist() == [0, 1, 3]
    assert flags.topk(3, largest=False).indices.tolist() == [2, 4, 6]
    with pytest.raises(ValueError, match="topk: k must be"):
        Tensor(np.zeros(4)).topk(5)
    scalar = Tensor(np.array(2.5)).topk(1)
    assert scalar.values.shape == () and scalar.indices.item() == 0


def test_reductions_convert_to_dtype_first_as_torch():
    torch = torch_or_skip()
    data = np.arange(1, 7, dtype=np.int32).reshape(2, 3)
    for op in ("sum", "mean", "prod"):
        out = getattr(Tensor(data), op)(1, dtype=np.float64)
        expected = getattr(torch.from_numpy(data), op)(1, dtype=torch.float64)
        assert out.dtype == np.float64
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-15)
    x = Tensor(np.array([1.5, 2.5]), requires_grad=True)
    out = x.sum(dtype=np.float32)
    assert out.dtype == np.float32
    out.backward()
    np.testing.assert_array_equal(x.grad, [1.0, 1.0])  # through the float conversion
    assert Tensor(data).cumsum(1, dtype=np.float32).dtype == np.float32


def test_std_mean_and_var_mean_match_torch():
    torch = torch_or_skip()
    data = np.random.default_rng(5).standard_normal((3, 4, 5))
    for kw in ({}, {"dim": (1, 2)}, {"dim": 0, "keepdim": True, "correction": 0}):
        for name in ("std_mean", "var_mean"):
            ours = getattr(minigrad, name)(Tensor(data), **kw)
            theirs = getattr(torch, name)(torch.tensor(data), **kw)
            for got, want in zip(ours, theirs):
                np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12)
    for name in ("std_mean", "var_mean"):  # the older (input, unbiased) form: every dim
        ours = getattr(minigrad, name)(Tensor(data), False)
        theirs = getattr(torch, name)(torch.tensor(data), False)
        for got, want in zip(ours, theirs):
            np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12)


def test_top_level_functions_are_the_methods():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(minigrad.sum(x, 1).data, [3.0, 12.0])
    np.testing.assert_array_equal(minigrad.max(x, 0).indices.data, [1, 1, 1])
    assert minigrad.logsumexp is Tensor.logsumexp and minigrad.norm(x).item() == math.sqrt(55)
    assert sum([1, 2]) == 3  # Python's builtins stay themselves


def test_numpy_spellings_axis_and_keepdims_still_work():
    x = Tensor(np.arange(24.0).reshape(2, 3, 4))
    np.testing.assert_array_equal(x.sum(axis=(0, 2), keepdims=True).data,
                                  x.data.sum(axis=(0, 2), keepdims=True))
    np.testing.assert_array_equal(x.amax(axis=-1).data, x.data.max(axis=-1))
    np.testing.assert_array_equal(x.max(axis=1).values.data, x.data.max(axis=1))


def test_gradcheck_of_a_chain_of_reductions():
    x = Tensor(np.random.default_rng(9).standard_normal((3, 4)), requires_grad=True)
    with minigrad.fused(False):
        assert gradcheck(lambda t: t.std(1).logsumexp(0) * t.norm() + t.cumsum(1).prod(), [x])


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.zeros(0, 3).amax(0),  # the dim reduced is empty: no max to take
    lambda lib, F: lib.zeros(0, 3).amin(dim=(0, 1)),
    lambda lib, F: lib.zeros(0, 3).amax(),
    lambda lib, F: lib.zeros(0, 3).amax(()),  # () is every dim, as None
    lambda lib, F: lib.zeros(0, 3).amin([]),
    lambda lib, F: lib.zeros(0, 3).max(),
    lambda lib, F: lib.zeros(2, 0).min(),
])
def test_max_and_min_of_nothing_raise_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_norm_with_dtype_converts_the_tensor_first_as_torch():
    torch = torch_or_skip()
    data = np.array([[1.0, -2.0], [3.0, 4.0]], dtype=np.float32)
    x, t = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    out, expected = x.norm(1.5, dim=1, dtype=np.float64), t.norm(1.5, dim=1, dtype=torch.float64)
    assert out.dtype == np.float64
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12)
    out.sum().backward()
    expected.sum().backward()
    assert x.grad.dtype == np.float32
    np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-6)
    assert_raises_like_torch(lambda lib, F: lib.norm(lib.tensor([3, 4]), dtype=lib.float32))
