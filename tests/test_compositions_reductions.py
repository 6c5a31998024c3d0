"""Reductions (sum, mean, max, min, amax, amin, argmax, argmin, prod, var, std, any, all,
logsumexp, cumsum, cumprod, norm, median, nanmedian, kthvalue): each against a hand-written
numpy reference, gradient-checked in float64 on primitives alone, float32 kept, and against
PyTorch (values and gradients) when it is installed; then the behaviours PyTorch defines at
the edges: ties, zeros, NaN, 0-d tensors, infinities, and the errors for bad dims.
"""
import inspect
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


def _kth_smallest(x, axis, k, keepdims=False):
    """The entry sorted k-th (from 0) along `axis` and its index, by _sorted's Python sort."""
    values, indices = (np.take(part, [k], axis=axis) for part in _sorted(x, axis))
    return (values, indices) if keepdims else (values.squeeze(axis), indices.squeeze(axis))


def _mode(x, axis, keepdims=False):
    """The most frequent entry along `axis` (among equally frequent ones the smallest) and its
    last index, by counting with a dict."""
    x = np.moveaxis(x, axis, -1)
    values, indices = np.empty(x.shape[:-1]), np.empty(x.shape[:-1], dtype=np.int64)
    for pos in np.ndindex(*x.shape[:-1]):
        counts = {}
        for value in x[pos]:
            counts[value] = counts.get(value, 0) + 1
        values[pos] = min(counts, key=lambda value: (-counts[value], value))
        indices[pos] = max(i for i, value in enumerate(x[pos]) if value == values[pos])
    if keepdims:
        return np.expand_dims(values, axis), np.expand_dims(indices, axis)
    return values, indices


def _covariance(x, w, correction=1, aweights=None):
    """sum_k w_k (x_ik - m_i)(x_jk - m_j) / (sum w - correction * sum(w a) / sum w), m the
    w-weighted means, by loops over the variables."""
    means = [(row * w).sum() / w.sum() for row in x]
    spread = 1 if aweights is None else (w * aweights).sum() / w.sum()
    out = np.empty((len(x), len(x)))
    for i, j in np.ndindex(*out.shape):
        out[i, j] = (w * (x[i] - means[i]) * (x[j] - means[j])).sum()
    out /= w.sum() - correction * spread
    return out[0, 0] if len(x) == 1 else out


COV_FW, COV_AW = np.array([1, 2, 1, 3, 1]), np.array([0.5, 1.0, 2.0, 1.0, 0.3])


def _renormed(x, p, axis, maxnorm):
    """Each slice along `axis` with a p-norm above maxnorm scaled by maxnorm / (norm + 1e-7)."""
    out = np.moveaxis(x.copy(), axis, 0)
    for i in range(out.shape[0]):
        norm = _p_norm(out[i], p)
        if norm > maxnorm:
            out[i] *= maxnorm / (norm + 1e-7)
    return np.moveaxis(out, 0, axis)


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
    "norm_p_none_dim": Case(lambda x: x.norm(None, 1), lambda x: np.sqrt((x ** 2).sum(1)),
                            SHAPE),
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
    "norm_nuc_dims_keepdim": Case(
        lambda x: x.norm("nuc", dim=(0, 2), keepdim=True),
        lambda x: np.linalg.svd(x.transpose(1, 0, 2), compute_uv=False).sum(-1)[None, :, None],
        SHAPE),
    "norm_nuc_matrix": Case(lambda x: x.norm("nuc"),
                            lambda x: np.linalg.svd(x, compute_uv=False).sum(), [(3, 4)]),
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
    "median_all_odd": Case(lambda x: x.median(), lambda x: sorted(x.ravel())[7], [(3, 5)],
                           "distinct"),
    "median_all_even_is_the_lower_middle": Case(lambda x: x.median(),
                                                lambda x: sorted(x.ravel())[11], SHAPE, "distinct"),
    "median_dim": Case(lambda x: x.median(1), lambda x: _kth_smallest(x, 1, 1), SHAPE,
                       "distinct"),
    "median_dim_even_keepdim": Case(lambda x: x.median(-1, keepdim=True),
                                    lambda x: _kth_smallest(x, 2, 1, keepdims=True), SHAPE,
                                    "distinct"),
    "median_function_dim_0": Case(lambda x: minigrad.median(x, 0) if isinstance(x, Tensor)
                                  else x.median(0), lambda x: _kth_smallest(x, 0, 0), SHAPE,
                                  "distinct"),
    "median_0d_dim_0": Case(lambda x: x.median(0), lambda x: (x, np.int64(0)), SCALAR),
    "nanmedian_dim_without_nan": Case(lambda x: x.nanmedian(2), lambda x: _kth_smallest(x, 2, 1),
                                      SHAPE, "distinct"),
    "nanmedian_all": Case(lambda x: x.nanmedian(), lambda x: sorted(x.ravel())[2], [(6,)],
                          "distinct"),
    "kthvalue_default_dim": Case(lambda x: x.kthvalue(3), lambda x: _kth_smallest(x, 2, 2), SHAPE,
                                 "distinct"),
    "kthvalue_dim_0_keepdim": Case(lambda x: x.kthvalue(2, 0, True),
                                   lambda x: _kth_smallest(x, 0, 1, keepdims=True), SHAPE,
                                   "distinct"),
    "kthvalue_0d": Case(lambda x: x.kthvalue(1, -1), lambda x: (x, np.int64(0)), SCALAR),
    "mode_distinct_is_the_smallest": Case(lambda x: x.mode(1),
                                          lambda x: (x.min(axis=1), x.argmin(axis=1)), SHAPE,
                                          "distinct"),
    "mode_repeated_zeros_keepdim": Case(lambda x: minigrad.mode(x, 0, True) if isinstance(
        x, Tensor) else x.mode(0, True), lambda x: _mode(x, 0, keepdims=True), [(9, 4)], "zeros",
        differentiable=False),
    "mode_0d": Case(lambda x: x.mode(), lambda x: (x, np.int64(0)), SCALAR),
    "nanmean_without_nan": Case(lambda x: x.nanmean((0, 2), keepdim=True),
                                lambda x: x.mean(axis=(0, 2), keepdims=True), SHAPE),
    "nanmean_with_nan": Case(  # a NaN where x <= -0.5: about a third of the entries
        lambda x: minigrad.where(x.data > -0.5, x, float("nan")).nanmean(1),
        lambda x: np.nanmean(np.where(x > -0.5, x, np.nan), axis=1), [(3, 6)],
        torch_fn=lambda x: torch_or_skip().where(x > -0.5, x, float("nan")).nanmean(1)),
    "aminmax": Case(lambda x: minigrad.aminmax(x) if isinstance(x, Tensor) else
                    torch_or_skip().aminmax(x), lambda x: (x.min(), x.max()), SHAPE, "distinct"),
    "aminmax_dim_keepdim": Case(lambda x: x.aminmax(dim=-1, keepdim=True),
                                lambda x: (x.min(-1, keepdims=True), x.max(-1, keepdims=True)),
                                SHAPE, "distinct"),
    "msort": Case(lambda x: x.msort(), lambda x: _sorted(x, 0)[0], SHAPE, "distinct"),
    "dist": Case(lambda x, y: x.dist(y, 3), lambda x, y: _p_norm(x - y, 3), [(3, 4), (4,)]),
    "dist_function_inf": Case(lambda x, y: minigrad.dist(x, y, math.inf) if isinstance(
        x, Tensor) else x.dist(y, math.inf), lambda x, y: np.abs(x - y).max(), [(3, 4), (3, 4)],
        "distinct"),
    "renorm": Case(lambda x: x.renorm(2, 0, 1.5), lambda x: _renormed(x, 2, 0, 1.5), [(4, 5)]),
    "renorm_p1_dim_1": Case(lambda x: minigrad.renorm(x, 1, 1, 2.0) if isinstance(x, Tensor)
                            else x.renorm(1, 1, 2.0), lambda x: _renormed(x, 1, 1, 2.0),
                            [(4, 5)]),
    "cov": Case(lambda x: minigrad.cov(x), lambda x: _covariance(x, np.ones(5)), [(3, 5)],
                torch_fn=lambda x: torch_or_skip().cov(x)),
    "cov_one_variable_correction_0": Case(
        lambda x: minigrad.cov(x, correction=0), lambda x: _covariance(x[None], np.ones(6), 0),
        [(6,)], torch_fn=lambda x: torch_or_skip().cov(x, correction=0)),
    "cov_weights": Case(lambda x: minigrad.cov(x, fweights=COV_FW, aweights=COV_AW),
                        lambda x: _covariance(x, COV_FW * COV_AW, 1, COV_AW), [(3, 5)],
                        torch_fn=lambda x: torch_or_skip().cov(
                            x, fweights=torch_or_skip().tensor(COV_FW),
                            aweights=torch_or_skip().tensor(COV_AW))),
    "corrcoef": Case(lambda x: minigrad.corrcoef(x), np.corrcoef, [(3, 5)],
                     torch_fn=lambda x: torch_or_skip().corrcoef(x)),
    "trapezoid": Case(lambda y: minigrad.trapezoid(y), lambda y: ((y[..., 1:] + y[..., :-1]) / 2)
                      .sum(-1), SHAPE, torch_fn=lambda y: torch_or_skip().trapezoid(y)),
    "trapezoid_dx_dim_0": Case(lambda y: minigrad.trapezoid(y, dx=0.5, dim=0),
                               lambda y: ((y[1:] + y[:-1]) / 2).sum(0) * 0.5, SHAPE,
                               torch_fn=lambda y: torch_or_skip().trapezoid(y, dx=0.5, dim=0)),
    "trapz": Case(lambda y: minigrad.trapz(y, dim=1), lambda y: ((y[:, 1:] + y[:, :-1]) / 2)
                  .sum(1), SHAPE, torch_fn=lambda y: torch_or_skip().trapz(y, dim=1)),
    "cumulative_trapezoid": Case(lambda y: minigrad.cumulative_trapezoid(y, dx=0.5, dim=0),
                                 lambda y: np.cumsum((y[1:] + y[:-1]) / 2 * 0.5, 0), SHAPE,
                                 torch_fn=lambda y: torch_or_skip().cumulative_trapezoid(
                                     y, dx=0.5, dim=0)),
    "cumulative_trapezoid_points": Case(
        lambda y, x: minigrad.cumulative_trapezoid(y, x),
        lambda y, x: np.cumsum((y[..., 1:] + y[..., :-1]) / 2 * np.diff(x), -1), [SHAPE[0], (4,)],
        torch_fn=lambda y, x: torch_or_skip().cumulative_trapezoid(y, x)),
    "trapezoid_points": Case(lambda y, x: minigrad.trapezoid(y, x, dim=0),
                             lambda y, x: (((y[1:] + y[:-1]) / 2) * np.diff(x)[:, None, None])
                             .sum(0), [(2, 3, 4), (2,)],
                             torch_fn=lambda y, x: torch_or_skip().trapezoid(y, x, dim=0)),
    "gradient": Case(lambda y: minigrad.gradient(y), lambda y: tuple(np.gradient(y)), SHAPE,
                     torch_fn=lambda y: torch_or_skip().gradient(y)),
    "gradient_spacing_edge_order_2": Case(
        lambda y: minigrad.gradient(y, spacing=[0.5, 2.0], dim=[2, 0], edge_order=2),
        lambda y: (np.gradient(y, 0.5, axis=2, edge_order=2),
                   np.gradient(y, 2.0, axis=0, edge_order=2)), [(3, 2, 4)],
        torch_fn=lambda y: torch_or_skip().gradient(y, spacing=[0.5, 2.0], dim=[2, 0],
                                                    edge_order=2)),
    # the coordinates are differentiable too, as in PyTorch
    "gradient_coordinates": Case(
        lambda y, x: minigrad.gradient(y, spacing=[x], dim=1),
        lambda y, x: tuple([np.gradient(y, x, axis=1)]), [(2, 4, 3), (4,)],
        torch_fn=lambda y, x: torch_or_skip().gradient(y, spacing=[x], dim=1)),
    "gradient_coordinates_edge_order_2": Case(
        lambda y, x: minigrad.gradient(y, spacing=(x,), dim=-1, edge_order=2),
        lambda y, x: tuple([np.gradient(y, x, axis=-1, edge_order=2)]), [(2, 5), (5,)],
        torch_fn=lambda y, x: torch_or_skip().gradient(y, spacing=(x,), dim=-1, edge_order=2)),
    "quantile_all": Case(lambda x: x.quantile(0.3), lambda x: np.quantile(x, 0.3), SHAPE,
                         "distinct"),
    "quantile_vector_dim": Case(lambda x: x.quantile(x.new_tensor([0.0, 0.1, 0.5, 1.0]), dim=1),
                                lambda x: np.quantile(x, [0.0, 0.1, 0.5, 1.0], axis=1), SHAPE,
                                "distinct"),
    "quantile_function_vector_keepdim": Case(
        lambda x: minigrad.quantile(x, x.new_tensor([0.25, 0.8]), keepdim=True)
        if isinstance(x, Tensor) else x.quantile(x.new_tensor([0.25, 0.8]), keepdim=True),
        lambda x: np.quantile(x, [0.25, 0.8], keepdims=True), SHAPE, "distinct"),
    **{f"quantile_dim_keepdim_{method}": Case(
        lambda x, method=method: x.quantile(0.45, -1, keepdim=True, interpolation=method),
        lambda x, method=method: np.quantile(x, 0.45, axis=-1, keepdims=True, method=method),
        SHAPE, "distinct") for method in ("lower", "higher", "midpoint", "nearest")},
    "quantile_nearest_rounds_halves_to_even": Case(  # positions 8 q = 0.5, 1.5, 2.5, 3.5
        lambda x: x.quantile(x.new_tensor([1 / 16, 3 / 16, 5 / 16, 7 / 16]), 0,
                             interpolation="nearest"),
        lambda x: np.sort(x, axis=0)[[0, 2, 2, 4]], [(9, 3)], "distinct"),
    "quantile_0d": Case(lambda x: x.quantile(0.7, 0), lambda x: x, SCALAR),
    "nanquantile_dim_without_nan": Case(lambda x: x.nanquantile(0.6, 0),
                                        lambda x: np.quantile(x, 0.6, axis=0), SHAPE, "distinct"),
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
    assert values.requires_grad


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
                                  [0.0], [5.0, 0.0, 0.0, 0.0, 2.0, 3.0, 7.0],
                                  # the NaN's and the infinity's own entries stay the product of
                                  # the others (PyTorch's: NaN; docs/api.md lists it)
                                  [2.0, np.nan, 3.0], [1.0, np.inf, 3.0], [np.inf, -np.inf, 0.5]])
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


@pytest.mark.filterwarnings("ignore:overflow encountered:RuntimeWarning")  # the second's var
@pytest.mark.parametrize("values", [
    [1e19, 2e19, 3e19, 4e19],  # var 1.7e38: finite, though each square overflows float32
    [1e20, -1e20, 3e20, 2e19],  # var overflows, std 1.7e20 does not
    [1e-30, 2e-30, 3e-25],  # var underflows, std 1.7e-25 does not
])
def test_float32_var_and_std_overflow_and_underflow_only_where_torch_does(values):
    """Regression: the squares of x - mean overflowed float32 from about 1.8e19, giving inf
    (and underflowed below 1e-19, giving 0) where PyTorch, which accumulates in float64, gives
    a finite var and std with finite gradients."""
    torch = torch_or_skip()
    x = np.array([values, values[::-1]], dtype=np.float32)
    for op in ("var", "std"):
        leaf = Tensor(x, requires_grad=True)
        torch_leaf = torch.tensor(x, requires_grad=True)
        out, expected = getattr(leaf, op)(1), getattr(torch_leaf, op)(1)
        assert out.dtype == np.float32
        np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-6)
        (grad,) = minigrad.grad(out, [leaf], np.ones(2, dtype=np.float32))
        (expected_grad,) = torch.autograd.grad(expected, torch_leaf, torch.ones(2))
        np.testing.assert_allclose(grad, expected_grad.numpy(), rtol=1e-5, atol=1e-30)


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
    with pytest.raises(ValueError, match="norm: p must be a number, 'fro' or 'nuc'"):
        x.norm("max")
    with pytest.raises(IndexError, match="argmax: the dim searched is empty"):
        Tensor(np.ones((2, 0))).argmax(1)
    with pytest.raises(TypeError, match="dim=.*axis="):
        x.sum(dim=0, axis=0)


# Misuse that PyTorch rejects too, written once for both libraries (`m` is minigrad or torch).
TORCH_ERRORS = [
    lambda m, F: m.ones(2, 3, 4).norm("nuc"),  # the nuclear norm needs two dims
    lambda m, F: m.ones(2, 3, 4).norm("nuc", dim=1),
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


@pytest.mark.filterwarnings("ignore:invalid value:RuntimeWarning")  # the -inf entries' NaN
def test_logcumsumexp_gradient_at_an_infinity_is_its_limit():
    """At the one +inf of a slice: the sum of the gradients of the outputs from there on
    (PyTorch's NaN: docs/api.md lists it); values as PyTorch's."""
    x = Tensor(np.array([1.0, np.inf, 2.0]), requires_grad=True)
    out = x.logcumsumexp(0)
    np.testing.assert_array_equal(out.data, [1.0, np.inf, np.inf])
    out.backward(np.array([1.0, 2.0, 3.0]))
    np.testing.assert_array_equal(x.grad, [1.0, 5.0, 0.0])


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
    assert minigrad.norm(x).item() == math.sqrt(55)
    assert sum([1, 2]) == 3  # Python's builtins stay themselves


def test_top_level_functions_take_the_tensor_as_input_as_torch_does():
    x = Tensor(np.arange(6.0).reshape(2, 3))
    np.testing.assert_array_equal(minigrad.sum(input=x, dim=1).data, [3.0, 12.0])
    np.testing.assert_array_equal(minigrad.transpose(input=x, dim0=0, dim1=1).data, x.data.T)
    assert list(inspect.signature(minigrad.cumsum).parameters)[:2] == ["input", "dim"]
    with pytest.raises(TypeError, match="must be Tensor, not ndarray"):
        minigrad.sum(x.data)  # torch.sum refuses an array too; a method call would misbehave


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


# --------------------------------------------------------------------------------------------
# median, nanmedian and kthvalue: the lower middle, ties, NaN, and the edges
# --------------------------------------------------------------------------------------------
def _values_indices_and_gradient(op, data, *args, **kwargs):
    """(values, indices or None, gradient of sum(values * w)) of minigrad's op and of torch's."""
    torch = torch_or_skip()
    results = []
    for lib_tensor in (lambda a: Tensor(a.copy(), requires_grad=True),
                       lambda a: torch.tensor(a, requires_grad=True)):
        x = lib_tensor(np.asarray(data, dtype=np.float64))
        out = getattr(x, op)(*args, **kwargs)
        values, indices = out if isinstance(out, tuple) else (out, None)
        weights = np.random.default_rng(3).standard_normal(values.shape)
        (values * (Tensor(weights) if isinstance(x, Tensor) else torch.tensor(weights))
         ).sum().backward()
        as_array = (lambda t: t.data) if isinstance(x, Tensor) else (
            lambda t: t.detach().numpy())
        results.append((as_array(values), None if indices is None else as_array(indices),
                        np.asarray(x.grad)))
    return results


@pytest.mark.parametrize("op", ["median", "nanmedian"])
@pytest.mark.parametrize("data", [[1.0, 1.0, 2.0, 1.0, 3.0], [2.0, 2.0], [0.5, 0.5, 4.0, 4.0]])
def test_median_of_every_entry_shares_the_gradient_among_ties_as_torch(op, data):
    (got, _, got_grad), (want, _, want_grad) = _values_indices_and_gradient(op, data)
    np.testing.assert_array_equal(got, want)
    np.testing.assert_allclose(got_grad, want_grad, rtol=1e-15)


def test_median_along_a_dim_with_ties_picks_an_entry_equal_to_torchs():
    """PyTorch leaves which of equal entries an index names unspecified: the values must agree,
    and the index must name an entry of that value, which gets the whole gradient."""
    data = np.array([[2.0, 1.0, 2.0, 1.0, 2.0, 1.0], [3.0, 3.0, 3.0, 0.0, 0.0, 5.0]])
    for op, args in [("median", (1,)), ("nanmedian", (1,)), ("kthvalue", (2, 1)),
                     ("kthvalue", (5, -1))]:
        (got, indices, grad), (want, _, _) = _values_indices_and_gradient(op, data, *args)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(np.take_along_axis(data, indices[:, None], 1)[:, 0], want)
        assert (grad != 0).sum(axis=1).tolist() == [1, 1]


def test_median_is_nan_at_a_nan_and_nanmedian_skips_them_as_torch():
    nan = math.nan
    data = [[1.0, nan, 2.0, nan], [3.0, 1.0, 0.0, 2.0], [nan, 4.0, 6.0, 5.0]]
    for op in ("median", "nanmedian"):
        (got, indices, grad), (want, want_indices, want_grad) = _values_indices_and_gradient(
            op, data, 1)
        np.testing.assert_array_equal(got, want)
        np.testing.assert_array_equal(indices, want_indices)
        np.testing.assert_array_equal(grad, want_grad)
        (got, _, grad), (want, _, want_grad) = _values_indices_and_gradient(op, data)
        np.testing.assert_array_equal(got, want)  # a NaN: every NaN shares the gradient
        np.testing.assert_allclose(grad, want_grad, rtol=1e-15)
    # NaN counts as the largest entry for kthvalue, as for sort
    (got, indices, _), (want, want_indices, _) = _values_indices_and_gradient(
        "kthvalue", [nan, 1.0, 3.0], 3)
    assert math.isnan(got) and math.isnan(want) and indices == want_indices == 0


def test_nanmedian_of_only_nans_is_nan_at_a_nan():
    """PyTorch's index among NaNs depends on its selection algorithm; minigrad's is the first."""
    values, indices = Tensor(np.full((2, 4), np.nan)).nanmedian(1)
    assert np.isnan(values.data).all() and indices.tolist() == [0, 0]
    assert np.isnan(Tensor(np.full(3, np.nan)).nanmedian().item())


def test_median_keeps_integers_and_the_empty_cases_follow_torch():
    torch = torch_or_skip()
    ints = np.array([[5, 1, 4, 2], [0, 9, 7, 3]], dtype=np.int32)
    for op, args in [("median", ()), ("median", (1,)), ("nanmedian", (0, True)),
                     ("kthvalue", (3,))]:
        out = getattr(Tensor(ints), op)(*args)
        expected = getattr(torch.from_numpy(ints), op)(*args)
        out, expected = (out, expected) if isinstance(out, tuple) else ((out,), (expected,))
        for got, want in zip(out, expected):
            assert str(want.dtype) == f"torch.{got.dtype}"
            np.testing.assert_array_equal(got.data, want.numpy())
    empty = Tensor(np.zeros(0), requires_grad=True)
    median = empty.median()
    assert median.shape == () and math.isnan(median.item()) and torch.zeros(0).median().isnan()
    median.backward()
    assert empty.grad.shape == (0,)
    values, indices = Tensor(np.zeros((2, 0))).median(0)
    assert values.shape == indices.shape == tuple(torch.zeros(2, 0).median(0).values.shape)
    kept = Tensor(np.arange(6.0).reshape(2, 3)).median(keepdim=True)
    assert kept.shape == (1, 1) and kept.item() == 2.0  # keepdim without dim, as max()


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.zeros(0, 3).median(0),  # no entry to take the median of
    lambda m, F: m.zeros(2, 0).nanmedian(-1),
    lambda m, F: m.ones(2, 3).median(2),
    lambda m, F: m.ones(()).nanmedian(1),
    lambda m, F: m.tensor([True, False]).median(),
    lambda m, F: m.ones(2, 3).kthvalue(0),
    lambda m, F: m.ones(2, 3).kthvalue(4),
    lambda m, F: m.ones(2, 3).kthvalue(3, 0),
    lambda m, F: m.ones(2, 3).kthvalue(1, -3),
    lambda m, F: m.ones(0, 3).kthvalue(1, 0),  # IndexError (regression: RuntimeError)
    lambda m, F: m.tensor([True, False]).kthvalue(1),  # bools (regression: taken)
    lambda m, F: m.tensor([True, False]).topk(1),
])
def test_median_and_kthvalue_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_quantile_is_nan_at_a_nan_and_nanquantile_skips_them_as_torch():
    nan = math.nan
    data = [[1.0, nan, 3.0, 2.0, nan], [nan] * 5, [4.0, 1.0, 2.0, 0.5, 7.0]]
    for op in ("quantile", "nanquantile"):
        for method in ("linear", "lower", "higher", "midpoint", "nearest"):
            (got, _, grad), (want, _, want_grad) = _values_indices_and_gradient(
                op, data, 0.4, 1, interpolation=method)
            np.testing.assert_allclose(got, want, rtol=1e-15)
            np.testing.assert_allclose(grad, want_grad, rtol=1e-15)
    assert np.isnan(Tensor(np.array(data)).quantile(0.5).item())
    assert Tensor(np.array(data)).nanquantile(0.5).item() == np.nanquantile(data, 0.5)


def test_quantile_keeps_float32_in_its_positions_as_torch():
    """The position q (n - 1) is computed in the tensor's dtype, as PyTorch computes it."""
    torch = torch_or_skip()
    data = np.random.default_rng(4).standard_normal((7, 33)).astype(np.float32)
    q = np.array([0.1, 0.37, 0.93], dtype=np.float32)
    out = Tensor(data).quantile(Tensor(q), dim=1)
    expected = torch.from_numpy(data).quantile(torch.from_numpy(q), dim=1)
    assert out.dtype == np.float32 and out.shape == tuple(expected.shape) == (3, 7)
    np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.zeros(0).quantile(0.5),
    lambda m, F: m.zeros(3, 0).nanquantile(0.5, dim=0),
    lambda m, F: m.tensor([1, 2, 3]).quantile(0.5),
    lambda m, F: m.ones(3).quantile(1.5),
    lambda m, F: m.ones(3).nanquantile(m.tensor([0.5, -0.1])),
    lambda m, F: m.ones(3).quantile(m.tensor([[0.5]])),
    lambda m, F: m.ones(3).quantile(m.tensor([0.5], dtype=m.float64)),
    lambda m, F: m.ones(3).quantile(0.5, interpolation="cubic"),
    lambda m, F: m.ones(2, 3).quantile(0.5, dim=2),
])
def test_quantile_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_mode_follows_torch_on_repeats_ties_nan_and_bools():
    """The smallest of the most frequent entries, at its last place; NaNs are one value."""
    torch = torch_or_skip()
    nan = math.nan
    rng = np.random.default_rng(6)
    cases = [([[1.0, 2.0, 2.0, 1.0, 3.0], [5.0, 5.0, 4.0, 4.0, 4.0]], ()),
             ([2.0, 1.0, 2.0, 1.0], ()), ([nan, 1.0, 1.0], ()), ([nan, nan, 1.0, 1.0], ()),
             (rng.integers(0, 3, (4, 5, 6)), (1,)), (rng.integers(0, 3, (4, 5, 6)), (0, True)),
             ([True, False, True], ()), (np.zeros((2, 0)), (0,))]
    for data, args in cases:
        data = np.array(data)
        got, want = Tensor(data).mode(*args), torch.from_numpy(data).mode(*args)
        for mine, theirs in zip(got, want):
            assert str(theirs.dtype) == f"torch.{mine.dtype}"
            np.testing.assert_array_equal(mine.data, theirs.numpy())
    assert math.isnan(Tensor([nan, nan, 1.0]).mode().values.item())
    (_, _, grad), (_, _, want_grad) = _values_indices_and_gradient("mode",
                                                                   [1.0, 2.0, 2.0, 1.0, 2.0])
    np.testing.assert_array_equal(grad, want_grad)  # all to the index returned


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.zeros(0).mode(),
    lambda m, F: m.zeros(3, 0).mode(1),
    lambda m, F: m.ones(2, 3).mode(2),
])
def test_mode_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# counting and sorted places, outside the graph: bincount, histc, searchsorted, bucketize
# --------------------------------------------------------------------------------------------
def _same_as_torch(got, expected):
    assert got.shape == tuple(expected.shape) and str(expected.dtype) == f"torch.{got.dtype}"
    np.testing.assert_array_equal(got.data, expected.numpy())


def test_bincount_counts_or_sums_weights_as_torch():
    torch = torch_or_skip()
    values = np.array([1, 3, 3, 0, 5])
    cases = [(values, {}), (values, {"minlength": 8}), (np.zeros(0, np.int64), {}),
             (np.array([1, 2], np.uint8), {}),
             (values, {"weights": np.full(5, 0.5, np.float32)}),
             (values, {"weights": np.arange(5, dtype=np.int32)})]  # integer weights: float64
    for data, kwargs in cases:
        got = Tensor(data).bincount(**{k: Tensor(v) if isinstance(v, np.ndarray) else v
                                       for k, v in kwargs.items()})
        expected = torch.from_numpy(data).bincount(
            **{k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v
               for k, v in kwargs.items()})
        _same_as_torch(got, expected)
    assert minigrad.bincount(Tensor(values)).tolist() == [1, 1, 0, 2, 0, 1]
    # empty with weights: the weights' dtype (PyTorch's int64 is listed among the differences)
    empty = Tensor(np.zeros(0, np.int64)).bincount(Tensor(np.zeros(0, np.float32)), minlength=3)
    assert empty.dtype == np.float32 and empty.tolist() == [0.0, 0.0, 0.0]


def test_histc_puts_entries_in_torchs_bins():
    """Including float32 entries on a bin edge, where the bin is computed as PyTorch does."""
    torch = torch_or_skip()
    rng = np.random.default_rng(8)
    small = np.array([1.0, 2.0, 1.0, 4.0, 2.5, 9.0, -1.0, np.nan])
    for data in [small, rng.standard_normal(1000), rng.standard_normal(1000).astype(np.float32),
                 np.array([2.0, 2.0]), np.zeros(0, np.float32)]:
        for args in [(4, 0, 3), (7, -1.5, 9.0), (13, 0.1, 0.7), (100,), (3,)]:
            if np.isnan(data).any() and len(args) == 1:
                continue  # the range would come from the entries, and be NaN
            _same_as_torch(Tensor(data).histc(*args), torch.from_numpy(data).histc(*args))


def test_histogram_counts_weights_and_densities_as_torch():
    torch = torch_or_skip()
    rng = np.random.default_rng(9)
    for data in [np.array([1.0, 2.0, 1.0, 4.0]), rng.standard_normal(500),
                 rng.standard_normal(500).astype(np.float32), np.array([3.0, 3.0]),
                 np.zeros(0, np.float32)]:
        weight = rng.uniform(0, 2, data.shape).astype(data.dtype)
        for bins, kwargs in [(4, {}), (3, {"range": (0.0, 3.0)}), (5, {"density": True}),
                             (np.array([-1.0, 0.0, 1.5, 4.0]), {}),
                             (2, {"weight": weight, "density": True}),
                             (np.array([0.0, 1.0, 2.0]), {"weight": weight})]:
            ours = {k: Tensor(v) if isinstance(v, np.ndarray) else v for k, v in kwargs.items()}
            theirs = {k: torch.from_numpy(v) if isinstance(v, np.ndarray) else v
                      for k, v in kwargs.items()}
            edges = np.asarray(bins, dtype=data.dtype)
            got = minigrad.histogram(Tensor(data), Tensor(edges) if edges.ndim else bins, **ours)
            expected = torch.histogram(torch.from_numpy(data),
                                       torch.from_numpy(edges) if edges.ndim else bins, **theirs)
            for part, want in zip(got, expected):
                assert part.shape == tuple(want.shape)
                assert str(want.dtype) == f"torch.{part.dtype}"
                np.testing.assert_allclose(part.data, want.numpy(), rtol=1e-5, atol=1e-6)
    hist, bin_edges = Tensor(np.array([0.5, 2.0])).histogram(2)  # the method, a named pair
    assert hist.tolist() == [1.0, 1.0] and bin_edges.tolist() == [0.5, 1.25, 2.0]
    data = rng.standard_normal(50)  # bins by default 100, as PyTorch's
    for got, want in zip(minigrad.histogram(Tensor(data)), torch.histogram(torch.from_numpy(data))):
        np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-12)


def test_searchsorted_and_bucketize_match_torch():
    torch = torch_or_skip()
    boundaries = np.array([1.0, 3.0, 5.0, 7.0, 9.0])
    values = np.array([[3.0, 6.0, 9.0], [0.0, 6.0, 10.0]])
    rows = np.array([[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]])
    for kwargs in [{}, {"right": True}, {"side": "right"}, {"side": "left"}, {"out_int32": True}]:
        _same_as_torch(minigrad.searchsorted(Tensor(boundaries), Tensor(values), **kwargs),
                       torch.searchsorted(torch.from_numpy(boundaries),
                                          torch.from_numpy(values), **kwargs))
    firsts = values[:, :2].copy()  # contiguous: PyTorch warns about a strided view
    _same_as_torch(minigrad.searchsorted(Tensor(rows), Tensor(firsts)),
                   torch.searchsorted(torch.from_numpy(rows), torch.from_numpy(firsts)))
    unsorted, sorter = np.array([5.0, 1.0, 3.0]), np.array([1, 2, 0])
    _same_as_torch(minigrad.searchsorted(Tensor(unsorted), Tensor(values), sorter=Tensor(sorter)),
                   torch.searchsorted(torch.from_numpy(unsorted), torch.from_numpy(values),
                                      sorter=torch.from_numpy(sorter)))
    _same_as_torch(minigrad.searchsorted(Tensor(boundaries), 3.0),
                   torch.searchsorted(torch.from_numpy(boundaries), 3.0))
    for kwargs in [{}, {"right": True}, {"out_int32": True}]:
        _same_as_torch(minigrad.bucketize(Tensor(values), Tensor(boundaries), **kwargs),
                       torch.bucketize(torch.from_numpy(values), torch.from_numpy(boundaries),
                                       **kwargs))
    _same_as_torch(minigrad.bucketize(4.0, Tensor(boundaries)),
                   torch.bucketize(4.0, torch.from_numpy(boundaries)))


def test_searchsorted_and_bucketize_with_nan_match_torch():
    """Regression: numpy's searchsorted orders NaN after every number, so a NaN value landed
    before a trailing NaN boundary and NaN boundaries at the front were skipped past by no
    value; PyTorch's binary search moves past any boundary that is not >= (right: >) the
    value, and every comparison with NaN is false."""
    torch = torch_or_skip()
    values = np.array([np.nan, 0.0, 2.0, 3.5, 5.0, np.inf, -np.inf])
    for boundaries in [[1.0, 2.0, 3.0, np.nan], [np.nan, np.nan, 1.0, 2.0],
                       [1.0, np.nan, 3.0, 4.0], [np.nan, np.nan]]:
        boundaries = np.array(boundaries)
        for right in (False, True):
            _same_as_torch(minigrad.searchsorted(Tensor(boundaries), Tensor(values), right=right),
                           torch.searchsorted(torch.from_numpy(boundaries),
                                              torch.from_numpy(values), right=right))
            _same_as_torch(minigrad.bucketize(Tensor(values), Tensor(boundaries), right=right),
                           torch.bucketize(torch.from_numpy(values), torch.from_numpy(boundaries),
                                           right=right))
    rows = np.array([[1.0, 2.0, np.nan], [np.nan, 0.0, 5.0]])
    row_values = np.array([[np.nan, 1.5], [0.0, np.nan]])
    _same_as_torch(minigrad.searchsorted(Tensor(rows), Tensor(row_values)),
                   torch.searchsorted(torch.from_numpy(rows), torch.from_numpy(row_values)))


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.tensor([-1, 2]).bincount(),
    lambda m, F: m.tensor([1.0, 2.0]).bincount(),
    lambda m, F: m.tensor([True, False]).bincount(),
    lambda m, F: m.zeros(2, 2, dtype=m.int64).bincount(),
    lambda m, F: m.tensor([1, 2]).bincount(m.ones(3)),
    lambda m, F: m.tensor([1, 2]).bincount(minlength=-1),
    lambda m, F: m.tensor([1, 2]).histc(3),
    lambda m, F: m.ones(3).histc(0),
    lambda m, F: m.ones(3).histc(4, 3, 1),
    lambda m, F: m.tensor([0.0, float("nan")]).histc(2),
    lambda m, F: m.tensor([0.0, float("inf")]).histc(2),
    lambda m, F: m.histogram(m.tensor([1, 2]), 2),
    lambda m, F: m.histogram(m.ones(3), 0),
    lambda m, F: m.histogram(m.ones(3), 2, range=(2.0, 1.0)),
    lambda m, F: m.searchsorted(m.ones(3), m.ones(2), right=True, side="left"),
    lambda m, F: m.searchsorted(m.ones(2, 3), m.ones(2)),
    lambda m, F: m.bucketize(m.ones(2), m.ones(2, 2)),
])
def test_counting_and_searching_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_nanmean_of_only_nans_is_nan_and_aminmax_names_its_parts_as_torch():
    torch = torch_or_skip()
    data = np.array([[np.nan, np.nan], [1.0, np.nan]])
    got, expected = Tensor(data).nanmean(1), torch.tensor(data).nanmean(1)
    np.testing.assert_array_equal(got.data, expected.numpy())
    assert Tensor(data).nanmean(dtype=np.float32).dtype == np.float32
    pair, their_pair = Tensor(np.arange(6).reshape(2, 3)).aminmax(dim=0), torch.arange(
        6).reshape(2, 3).aminmax(dim=0)
    np.testing.assert_array_equal(pair.min.data, their_pair.min.numpy())
    np.testing.assert_array_equal(pair.max.data, their_pair.max.numpy())
    for misuse in (lambda m, F: m.tensor([1, 2]).nanmean(), lambda m, F: m.ones(0, 2).aminmax()):
        assert_raises_like_torch(misuse)


def test_unique_consecutive_matches_torch():
    torch = torch_or_skip()
    cases = [(np.array([1, 1, 2, 2, 3, 1, 1, 2]), dict(return_inverse=True, return_counts=True)),
             (np.array([[1, 1], [1, 2]]), dict(return_inverse=True)),
             (np.array([[1, 1], [1, 1], [2, 3]]), dict(dim=0, return_counts=True)),
             (np.array([[1, 1, 2], [1, 1, 3]]), dict(dim=1, return_inverse=True)),
             (np.array([2.0, np.nan, np.nan]), {}), (np.zeros(0), dict(return_counts=True))]
    for data, kwargs in cases:
        out = Tensor(data).unique_consecutive(**kwargs)
        expected = torch.from_numpy(data).unique_consecutive(**kwargs)
        out, expected = (out, expected) if isinstance(out, tuple) else ((out,), (expected,))
        assert len(out) == len(expected)
        for got, want in zip(out, expected):
            _same_as_torch(got, want)


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.cov(m.ones(2, 3, 4)),
    lambda m, F: m.cov(m.ones(2, 3), fweights=m.tensor([1, 2])),
    lambda m, F: m.cov(m.ones(2, 3), fweights=m.tensor([1.0, 2.0, 1.0])),
    lambda m, F: m.cov(m.ones(2, 3), aweights=m.tensor([1.0, -2.0, 1.0])),
    lambda m, F: m.cov(m.ones(2, 3), aweights=m.tensor([0.0, 0.0, 0.0])),
    lambda m, F: m.ones(4).renorm(2, 0, 1.0),
    lambda m, F: m.ones(()).renorm(2, 0, 1.0),
    lambda m, F: m.cov(m.ones(2, 3), fweights=m.tensor([0, 0, 0])),
    lambda m, F: m.ones(()).unique_consecutive(dim=0),
])
def test_cov_unique_consecutive_and_renorm_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_trapezoids_of_an_empty_dim_and_of_a_0_d_tensor_as_torch():
    torch = torch_or_skip()
    for shape, kwargs in [((3, 0), {}), ((3, 0), {"dx": 2.0}), ((0,), {}), ((3, 0), {"dim": 0}),
                          ((3, 1), {})]:
        out = minigrad.trapezoid(minigrad.ones(*shape), **kwargs)
        expected = torch.trapezoid(torch.ones(*shape), **kwargs)
        assert out.shape == tuple(expected.shape) and out.tolist() == expected.tolist()
    out = minigrad.trapezoid(minigrad.ones(3, 0), minigrad.ones(0))
    assert out.tolist() == torch.trapezoid(torch.ones(3, 0), torch.ones(0)).tolist()
    assert_raises_like_torch(lambda m, F: m.trapezoid(m.tensor(2.0)))
    for shape in [(3, 0), (3, 1), (0,)]:
        out = minigrad.cumulative_trapezoid(minigrad.ones(*shape))
        expected = torch.cumulative_trapezoid(torch.ones(*shape))
        assert out.shape == tuple(expected.shape) and out.tolist() == expected.tolist()
    out = minigrad.cumulative_trapezoid(minigrad.tensor([1, 2, 4]))  # integers: float32
    assert out.dtype == np.float32 and out.tolist() == [1.5, 4.5]
    assert_raises_like_torch(lambda m, F: m.cumulative_trapezoid(m.tensor(2.0)))


def test_gradient_of_integers_small_dims_and_0_d_tensors_as_torch():
    torch = torch_or_skip()
    for call in [lambda lib: lib.gradient(lib.tensor([1, 2, 4]), spacing=0.5),
                 lambda lib: lib.gradient(lib.tensor([[1, 2], [4, 8]], dtype=lib.int32)),
                 lambda lib: lib.gradient(lib.tensor([3.0, 1.0, 2.0]), edge_order=2),
                 lambda lib: lib.gradient(lib.tensor(2.0))]:
        out, expected = call(minigrad), call(torch)
        assert len(out) == len(expected)
        for got, want in zip(out, expected):
            assert got.shape == tuple(want.shape) and str(want.dtype) == f"torch.{got.dtype}"
            np.testing.assert_allclose(got.data, want.numpy(), rtol=1e-6)


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.gradient(m.ones(2), edge_order=2),
    lambda m, F: m.gradient(m.ones(1)),
    lambda m, F: m.gradient(m.ones(3), edge_order=3),
    lambda m, F: m.gradient(m.ones(3, 3), spacing=[1.0, 2.0, 3.0]),
    lambda m, F: m.gradient(m.ones(3), spacing=[]),
    lambda m, F: m.gradient(m.ones(3, 3), dim=[0, 0]),
    lambda m, F: m.gradient(m.ones(3, 3), dim=2),
])
def test_gradient_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_gradient_refuses_coordinates_of_another_length():
    """PyTorch gives NaN everywhere for them; minigrad says what is wrong."""
    with pytest.raises(ValueError, match="coordinates along dim 0 must be 1-D of size 3"):
        minigrad.gradient(minigrad.ones(3), spacing=(minigrad.ones(4),))


def test_sum_to_size_undoes_expand_as_torch():
    torch = torch_or_skip()
    data = np.random.default_rng(11).standard_normal((2, 3, 4))
    for size in [(3, 1), ((1, 3, 4),), (4,), (2, 1, 1), (2, 3, 4)]:
        x = Tensor(data, requires_grad=True)
        out = x.sum_to_size(*size)
        expected = torch.tensor(data).sum_to_size(*size)
        assert out.shape == tuple(expected.shape)
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-12)
        out.sum().backward()
        np.testing.assert_array_equal(x.grad, np.ones(data.shape))
    assert_raises_like_torch(lambda m, F: m.ones(2, 3).sum_to_size(4))


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
