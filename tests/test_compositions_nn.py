"""minigrad.functional's convolution, pooling, losses (the margin and likelihood ones too),
normalize, rms_norm, prelu, pixel_shuffle, softmin and scaled_dot_product_attention, and the nn
modules built on them.

Every case in CASES runs against a hand-written numpy reference (loops over windows and samples,
written from PyTorch's documented formulas) with kernels on and off, against PyTorch in values
and gradients (when PyTorch is installed), through gradcheck under `minigrad.fused(False)` on
primitives alone, and in float32. Then: the behaviours PyTorch pins down (ties in max pooling,
ignored targets, fully masked rows, dropout in attention), bad arguments, nn modules against
PyTorch's with copied weights, and a small convolutional network that learns.
"""
from __future__ import annotations

import inspect
import math
import subprocess
import sys
from collections import OrderedDict
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

import numpy as np
import pytest

import minigrad
import minigrad.functional as F
from minigrad import Tensor, gradcheck, kernels, nn, ops

from tests.helpers import (assert_keeps_float32, assert_raises_like_torch,
                           assert_stops_quietly_when_its_reader_is_gone, op_types,
                           torch_or_skip)

rng = np.random.default_rng(2024)
# PyTorch's own note on its padding='same' with even kernels (it pads a copy, as we do)
pytestmark = [pytest.mark.filterwarnings("ignore:Using padding='same':UserWarning"),
              # and on kl_div's reduction='mean', whose meaning it plans to change
              pytest.mark.filterwarnings("ignore:reduction. 'mean' divides:UserWarning"),
              # and on its Transformer's nested-tensor fast path, which minigrad does not have
              pytest.mark.filterwarnings("ignore:enable_nested_tensor is True:UserWarning")]


@pytest.fixture(scope="module")
def torch():
    return torch_or_skip()


@pytest.fixture(params=[True, False], ids=["kernels", "composed"])
def mode(request):
    with minigrad.fused(request.param):
        yield request.param


# --------------------------------------------------------------------------------------------
# numpy references, written from PyTorch's documentation, loop by loop
# --------------------------------------------------------------------------------------------
def _pair(value):
    return (value, value) if isinstance(value, int) else tuple(value)


def ref_conv2d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """out[n, o, y, z] = b[o] + sum over the group's input channels c and kernel offsets (i, j)
    of padded[n, c, y*sh + i*dh, z*sw + j*dw] * w[o, c, i, j]."""
    if x.ndim == 3:
        return ref_conv2d(x[None], w, b, stride, padding, dilation, groups)[0]
    (sh, sw), (dh, dw) = _pair(stride), _pair(dilation)
    out_channels, group_channels, kh, kw = w.shape
    if padding == "valid":
        pads = ((0, 0), (0, 0))
    elif padding == "same":  # PyTorch: total d (k - 1); an odd total puts the extra one after
        pads = tuple((d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2)
                     for d, k in ((dh, kh), (dw, kw)))
    else:
        pads = tuple((p, p) for p in _pair(padding))
    n, c, h, width = x.shape
    padded = np.zeros((n, c, h + sum(pads[0]), width + sum(pads[1])))
    padded[:, :, pads[0][0]:pads[0][0] + h, pads[1][0]:pads[1][0] + width] = x
    out_h = (padded.shape[2] - dh * (kh - 1) - 1) // sh + 1
    out_w = (padded.shape[3] - dw * (kw - 1) - 1) // sw + 1
    out = np.zeros((n, out_channels, out_h, out_w))
    per_group = out_channels // groups
    for o, y, z in np.ndindex(out_channels, out_h, out_w):
        first = o // per_group * group_channels
        for ci, i, j in np.ndindex(group_channels, kh, kw):
            out[:, o, y, z] += padded[:, first + ci, y * sh + i * dh, z * sw + j * dw] * \
                w[o, ci, i, j]
        out[:, o, y, z] += 0 if b is None else b[o]
    return out


def ref_conv1d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """A 1-D convolution is a 2-D one over an image of height 1."""
    pad = padding if isinstance(padding, str) else (0, _single(padding))
    out = ref_conv2d(x[..., None, :], w[..., None, :], b, (1, _single(stride)), pad,
                     (1, _single(dilation)), groups)
    return out[..., 0, :]


def ref_conv_transpose(x, w, b=None, stride=1, padding=0, output_padding=0, groups=1,
                       dilation=1):
    """Any number of spatial dims: each input entry adds its weighted kernel into the output,
    full[n, o, y*s + i*d ...] += x[n, c, y ...] * w[c, o', i ...] (o' = o within c's group),
    then `padding` cropped from each side; output_padding extends the end. An unbatched input
    is one sample."""
    dims = w.ndim - 2
    if x.ndim == dims + 1:
        return ref_conv_transpose(x[None], w, b, stride, padding, output_padding, groups,
                                  dilation)[0]
    each = (lambda v: (v,) * dims if isinstance(v, int) else tuple(v))
    stride, padding, output_padding, dilation = map(each, (stride, padding, output_padding,
                                                           dilation))
    n, in_channels, *sizes = x.shape
    _, group_out, *kernel = w.shape
    full = np.zeros((n, group_out * groups) + tuple(
        (m - 1) * s + d * (k - 1) + 1 + extra
        for m, s, d, k, extra in zip(sizes, stride, dilation, kernel, output_padding)))
    per_group = in_channels // groups
    for c, o in np.ndindex(in_channels, group_out):
        for at in np.ndindex(*sizes):
            for offset in np.ndindex(*kernel):
                target = tuple(y * s + i * d for y, s, i, d in zip(at, stride, offset, dilation))
                full[(slice(None), c // per_group * group_out + o) + target] += \
                    x[(slice(None), c) + at] * w[(c, o) + offset]
    out = full[(slice(None), slice(None)) + tuple(slice(p, full.shape[2 + i] - p)
                                                  for i, p in enumerate(padding))]
    return out if b is None else out + b.reshape((-1,) + (1,) * dims)


def ref_avg_pool3d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
                   count_include_pad=True):
    """The mean of each window over the entries inside the input, divided by the window clipped
    to the padded input (or to the input without count_include_pad), as PyTorch counts."""
    triple = (lambda v: (v,) * 3 if isinstance(v, int) else tuple(v))
    kernel, padding = triple(kernel_size), triple(padding)
    stride = kernel if stride is None else triple(stride)
    sizes = x.shape[2:]
    outs = [_ref_pool_size(n, k, s, p, 1, ceil_mode)
            for n, k, s, p in zip(sizes, kernel, stride, padding)]
    out = np.zeros(x.shape[:2] + tuple(outs))
    for at in np.ndindex(*outs):
        starts = [o * s - p for o, s, p in zip(at, stride, padding)]
        ends = [min(a + k, n + p) for a, k, n, p in zip(starts, kernel, sizes, padding)]
        inside = tuple(slice(max(a, 0), min(e, n)) for a, e, n in zip(starts, ends, sizes))
        count = math.prod((e - a) if count_include_pad else (min(e, n) - max(a, 0))
                          for a, e, n in zip(starts, ends, sizes))
        out[(slice(None), slice(None)) + at] = x[(slice(None), slice(None)) + inside].sum(
            axis=(2, 3, 4)) / count
    return out


def ref_conv3d(x, w, b=None, stride=1, padding=0, dilation=1, groups=1):
    """out[n, o, a, y, z] = b[o] + sum over the group's channels and the kernel offsets of
    padded[n, c, a*s0 + i*d0, y*s1 + j*d1, z*s2 + k*d2] * w[o, c, i, j, k]."""
    triple = (lambda v: (v,) * 3 if isinstance(v, int) else tuple(v))
    stride, padding, dilation = triple(stride), triple(padding), triple(dilation)
    padded = np.pad(x, [(0, 0), (0, 0)] + [(p, p) for p in padding])
    out_channels, group_channels = w.shape[:2]
    sizes = [(n - d * (k - 1) - 1) // s + 1
             for n, k, s, d in zip(padded.shape[2:], w.shape[2:], stride, dilation)]
    out = np.zeros((x.shape[0], out_channels, *sizes))
    per_group = out_channels // groups
    for o, a, y, z in np.ndindex(out_channels, *sizes):
        first = o // per_group * group_channels
        for c, i, j, k in np.ndindex(group_channels, *w.shape[2:]):
            out[:, o, a, y, z] += w[o, c, i, j, k] * padded[
                :, first + c, a * stride[0] + i * dilation[0], y * stride[1] + j * dilation[1],
                z * stride[2] + k * dilation[2]]
    return out if b is None else out + b[:, None, None, None]


def ref_cubic_weights(t, a=-0.75):
    """Keys' cubic convolution kernel at the distances of the four neighbours from one before
    floor(s) to two after, for s = floor(s) + t (PyTorch's and OpenCV's a = -0.75)."""
    def kernel(d):
        d = abs(d)
        return ((a + 2) * d - (a + 3)) * d * d + 1 if d <= 1 else \
            a * d ** 3 - 5 * a * d * d + 8 * a * d - 4 * a
    return [kernel(t + 1), kernel(t), kernel(1 - t), kernel(2 - t)]


def ref_interpolate(x, size, mode, align_corners=False):
    """One output entry at a time, from PyTorch's formulas: nearest reads floor(i * in / out),
    nearest-exact floor((i + 0.5) * in / out); the linear modes weigh, per dim, the entries
    at floor(s) and floor(s) + 1 of the source point s = (i + 0.5) * in / out - 0.5 (at least
    0), or i * (in - 1) / (out - 1) with aligned corners; bicubic the four from floor(s) - 1
    to floor(s) + 2 (s not raised to 0; the edge entry read for those outside)."""
    spatial = x.shape[2:]
    out = np.zeros(x.shape[:2] + tuple(size))
    for target in np.ndindex(*size):
        terms = [((), 1.0)]  # (source index, weight) pairs, one dim at a time
        for i, n_in, n_out in zip(target, spatial, size):
            if mode == "nearest":
                options = [(min(math.floor(i * n_in / n_out), n_in - 1), 1.0)]
            elif mode == "nearest-exact":
                options = [(min(math.floor((i + 0.5) * n_in / n_out), n_in - 1), 1.0)]
            elif mode == "bicubic":
                source = i * (n_in - 1) / (n_out - 1) if align_corners else \
                    (i + 0.5) * n_in / n_out - 0.5
                low = math.floor(source)
                options = [(min(max(low - 1 + k, 0), n_in - 1), w)
                           for k, w in enumerate(ref_cubic_weights(source - low))]
            else:
                if align_corners:
                    source = i * (n_in - 1) / (n_out - 1) if n_out > 1 else 0.0
                else:
                    source = max((i + 0.5) * n_in / n_out - 0.5, 0.0)
                low = min(math.floor(source), n_in - 1)
                options = [(low, 1 - (source - low)), (min(low + 1, n_in - 1), source - low)]
            terms = [(index + (j,), weight * w) for index, weight in terms for j, w in options]
        for index, weight in terms:
            out[(slice(None), slice(None)) + target] += weight * x[(slice(None), slice(None))
                                                                   + index]
    return out


def ref_max_unpool2d(x, indices, size):
    out = np.zeros(x.shape[:2] + (size[0] * size[1],))
    for n, c, y, z in np.ndindex(*x.shape):
        out[n, c, indices[n, c, y, z]] = x[n, c, y, z]
    return out.reshape(x.shape[:2] + tuple(size))


def _single(value):
    return value if isinstance(value, int) else value[0]


def _ref_pool_size(size, k, s, p, d, ceil_mode):
    """PyTorch's pooling output size: floor (or ceil) of (size + 2p - d(k-1) - 1) / s, plus one;
    in ceil mode a last window starting beyond the input and its left padding is dropped."""
    out = (math.ceil if ceil_mode else math.floor)((size + 2 * p - d * (k - 1) - 1) / s) + 1
    if ceil_mode and (out - 1) * s >= size + p:
        out -= 1
    return out


def ref_max_pool2d(x, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False):
    """(values, flat indices h*W + w): the first maximum of each window, over the positions
    inside the input (padding never wins)."""
    (kh, kw), (ph, pw), (dh, dw) = _pair(kernel_size), _pair(padding), _pair(dilation)
    sh, sw = _pair(kernel_size if stride is None else stride)
    n, c, h, width = x.shape
    out_h = _ref_pool_size(h, kh, sh, ph, dh, ceil_mode)
    out_w = _ref_pool_size(width, kw, sw, pw, dw, ceil_mode)
    values = np.full((n, c, out_h, out_w), -np.inf)
    indices = np.zeros((n, c, out_h, out_w), dtype=np.int64)
    for y, z, i, j in np.ndindex(out_h, out_w, kh, kw):
        r, q = y * sh - ph + i * dh, z * sw - pw + j * dw
        if 0 <= r < h and 0 <= q < width:
            better = x[:, :, r, q] > values[:, :, y, z]  # strictly: the first maximum stays
            values[:, :, y, z] = np.where(better, x[:, :, r, q], values[:, :, y, z])
            indices[:, :, y, z] = np.where(better, r * width + q, indices[:, :, y, z])
    return values, indices


def ref_avg_pool2d(x, kernel_size, stride=None, padding=0, ceil_mode=False,
                   count_include_pad=True, divisor_override=None):
    """Each window's sum over the input positions, divided by the window's size clipped to the
    padded input (or to the input alone without count_include_pad), or by divisor_override."""
    (kh, kw), (ph, pw) = _pair(kernel_size), _pair(padding)
    sh, sw = _pair(kernel_size if stride is None else stride)
    n, c, h, width = x.shape
    out_h = _ref_pool_size(h, kh, sh, ph, 1, ceil_mode)
    out_w = _ref_pool_size(width, kw, sw, pw, 1, ceil_mode)
    out = np.zeros((n, c, out_h, out_w))
    for y, z in np.ndindex(out_h, out_w):
        top, left = y * sh - ph, z * sw - pw
        bottom, right = min(top + kh, h + ph), min(left + kw, width + pw)
        window_size = (bottom - top) * (right - left)
        top, left, bottom, right = max(top, 0), max(left, 0), min(bottom, h), min(right, width)
        total = x[:, :, top:bottom, left:right].sum(axis=(2, 3))
        divisor = divisor_override or (window_size if count_include_pad
                                       else (bottom - top) * (right - left))
        out[:, :, y, z] = total / divisor
    return out


def _log_softmax(x, axis):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(axis=axis, keepdims=True))


def ref_cross_entropy(x, target, weight=None, ignore_index=-100, reduction="mean",
                      label_smoothing=0.0, log_probs=False):
    """Sample by sample. Class indices: loss = (1 - e) w[t] (-logp[t]) + e/C sum_c w[c] (-logp[c])
    (0 for an ignored target), 'mean' = sum / sum of w[t] over the targets kept. Probabilities:
    loss = -sum_c w[c] ((1 - e) p[c] + e/C) logp[c], 'mean' = sum / number of samples."""
    if x.ndim == 1:
        out = ref_cross_entropy(x[None], np.asarray(target)[None], weight, ignore_index,
                                "none" if reduction == "none" else reduction, label_smoothing,
                                log_probs)
        return out[0] if reduction == "none" else out
    classes = x.shape[1]
    weight = np.ones(classes) if weight is None else weight
    logp = np.moveaxis(x if log_probs else _log_softmax(x, axis=1), 1, -1)  # (N, ..., C)
    soft = np.asarray(target).dtype.kind == "f"
    targets = np.moveaxis(target, 1, -1) if soft else np.asarray(target)
    losses = np.zeros(logp.shape[:-1])
    denominator = 0.0
    for idx in np.ndindex(*losses.shape):
        if soft:
            smoothed = (1 - label_smoothing) * targets[idx] + label_smoothing / classes
            losses[idx] = -(weight * smoothed * logp[idx]).sum()
            denominator += 1
        elif targets[idx] != ignore_index:
            t = targets[idx]
            losses[idx] = (1 - label_smoothing) * weight[t] * -logp[idx][t] + \
                label_smoothing / classes * (weight * -logp[idx]).sum()
            denominator += weight[t]
    if reduction == "none":
        return losses
    return losses.sum() if reduction == "sum" else losses.sum() / denominator


def ref_binary_cross_entropy(p, t, weight=None, reduction="mean"):
    with np.errstate(divide="ignore"):
        losses = -(t * np.maximum(np.log(p), -100) + (1 - t) * np.maximum(np.log(1 - p), -100))
    return _ref_reduce(losses * (1 if weight is None else weight), reduction)


def ref_bce_with_logits(x, t, weight=None, reduction="mean", pos_weight=None):
    pos_weight = 1 if pos_weight is None else pos_weight
    losses = (1 - t) * x + (1 + (pos_weight - 1) * t) * np.logaddexp(0, -x)
    return _ref_reduce(losses * (1 if weight is None else weight), reduction)


def _ref_reduce(losses, reduction):
    return {"none": losses, "sum": losses.sum(), "mean": losses.mean()}[reduction]


def ref_normalize(x, p=2.0, dim=1, eps=1e-12):
    return x / np.maximum(np.linalg.norm(x, ord=p, axis=dim, keepdims=True), eps)


def ref_softmin(x, dim):
    e = np.exp(-x - (-x).max(axis=dim, keepdims=True))
    return e / e.sum(axis=dim, keepdims=True)


def ref_standardize(x, axes, eps=1e-5):
    return (x - x.mean(axis=axes, keepdims=True)) / np.sqrt(x.var(axis=axes, keepdims=True)
                                                             + eps)


def ref_cosine_embedding(a, b, y, margin):
    """1 - cos where y is 1, max(0, cos - margin) where it is -1, cos as PyTorch computes it."""
    cos = (a * b).sum(-1) / np.sqrt(((a * a).sum(-1) + 1e-12) * ((b * b).sum(-1) + 1e-12))
    return np.where(y == 1, 1 - cos, np.maximum(0, cos - margin))


def ref_multi_margin(x, target, p, margin, weight):
    """For each row: the sum over the other classes of weight[y] max(0, margin - x[y] + x[i])**p,
    over the number of classes, by loops."""
    out = np.zeros(len(x))
    for n, (row, y) in enumerate(zip(x, target)):
        for i in range(len(row)):
            if i != y:
                out[n] += weight[y] * max(0.0, margin - row[y] + row[i]) ** p
    return out / x.shape[1]


def ref_stirling(n):
    """Stirling's approximation of log(n!), n log n - n + log(2 pi n) / 2."""
    return n * np.log(n) - n + 0.5 * np.log(2 * np.pi * n)


def ref_distance(a, b, p=2, eps=1e-6):
    """pairwise_distance: the p-norm of a - b + eps over the last dim."""
    return (np.abs(a - b + eps) ** p).sum(-1) ** (1 / p)


def ref_embedding_bag(weight, ids, offsets=None, mode="mean", per_sample_weights=None,
                      include_last_offset=False, padding_idx=None):
    """Each bag's rows summed, averaged or maxed, by loops: the rows of a 2-D ids, or the runs
    of a 1-D ids between offsets (to the end of ids, or to offsets[-1] with
    include_last_offset); entries equal to padding_idx left out; an empty bag is zeros."""
    if ids.ndim == 2:
        ids, offsets = ids.reshape(-1), np.arange(0, ids.size, ids.shape[1])
        per_sample_weights = None if per_sample_weights is None else per_sample_weights.ravel()
    ends = list(offsets[1:]) if include_last_offset else list(offsets[1:]) + [len(ids)]
    padding_idx = None if padding_idx is None else padding_idx % len(weight)
    out = np.zeros((len(ends), weight.shape[1]))
    for bag, (start, end) in enumerate(zip(offsets, ends)):
        picked = [weight[ids[i]] * (1 if per_sample_weights is None else per_sample_weights[i])
                  for i in range(start, end) if ids[i] != padding_idx]
        if picked:
            out[bag] = {"sum": np.sum, "mean": np.mean, "max": np.max}[mode](picked, axis=0)
    return out


def ref_ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
                 zero_infinity=False):
    """Graves et al. (2006), eq. 6-8, by loops in log space: alpha[t, s] over the target with
    blanks around and between its labels; -log(alpha[T-1, last] + alpha[T-1, last - 1])."""
    losses = []
    for n, (steps, length) in enumerate(zip(input_lengths, target_lengths)):
        labels = targets[n][:length] if targets.ndim == 2 else \
            targets[sum(target_lengths[:n]):sum(target_lengths[:n]) + length]
        extended = [blank]
        for label in labels:
            extended += [label, blank]
        alpha = np.full((max(steps, 1), len(extended)), -np.inf)
        if steps == 0:
            losses.append(0.0 if length == 0 else np.inf)
            continue
        alpha[0, 0] = log_probs[0, n, blank]
        if length:
            alpha[0, 1] = log_probs[0, n, extended[1]]
        for t in range(1, steps):
            for s, label in enumerate(extended):
                total = alpha[t - 1, s]
                if s >= 1:
                    total = np.logaddexp(total, alpha[t - 1, s - 1])
                if s >= 2 and label != blank and label != extended[s - 2]:
                    total = np.logaddexp(total, alpha[t - 1, s - 2])
                alpha[t, s] = total + log_probs[t, n, label]
        end = alpha[steps - 1, -1] if length == 0 else \
            np.logaddexp(alpha[steps - 1, -1], alpha[steps - 1, -2])
        losses.append(-end)
    losses = np.array(losses)
    if zero_infinity:
        losses = np.where(np.isinf(losses), 0.0, losses)
    if reduction == "mean":
        return (losses / np.maximum(target_lengths, 1)).mean()
    return _ref_reduce(losses, reduction)


def ref_pixel_shuffle(x, r):
    """out[..., c, h * r + i, w * r + j] = x[..., c * r * r + i * r + j, h, w], by loops."""
    *batch, channels, height, width = x.shape
    out = np.empty((*batch, channels // (r * r), height * r, width * r))
    for c, h, w, i, j in np.ndindex(channels // (r * r), height, width, r, r):
        out[..., c, h * r + i, w * r + j] = x[..., c * r * r + i * r + j, h, w]
    return out


def ref_pixel_unshuffle(x, r):
    """The inverse: out[..., c * r * r + i * r + j, h, w] = x[..., c, h * r + i, w * r + j]."""
    *batch, channels, height, width = x.shape
    out = np.empty((*batch, channels * r * r, height // r, width // r))
    for c, h, w, i, j in np.ndindex(channels, height // r, width // r, r, r):
        out[..., c * r * r + i * r + j, h, w] = x[..., c, h * r + i, w * r + j]
    return out


def ref_group_norm(x, groups, weight, bias, eps=1e-5):
    n, c = x.shape[:2]
    out = ref_standardize(x.reshape(n, groups, -1), 2, eps).reshape(x.shape)
    along = (c,) + (1,) * (x.ndim - 2)
    return out * weight.reshape(along) + bias.reshape(along)


def ref_huber(x, y, delta):
    d = np.abs(x - y)
    return np.where(d < delta, 0.5 * d * d, delta * (d - 0.5 * delta))


def ref_kl_div(x, t, log_target=False):
    if log_target:
        return np.exp(t) * (t - x)
    return np.where(t == 0, 0.0, t * np.log(np.where(t == 0, 1.0, t))) - t * x


def ref_adaptive_avg_pool2d(x, out_h, out_w):
    h, w = x.shape[-2:]
    out = np.empty(x.shape[:-2] + (out_h, out_w))
    for i in range(out_h):
        for j in range(out_w):
            rows = slice(i * h // out_h, -(-(i + 1) * h // out_h))
            cols = slice(j * w // out_w, -(-(j + 1) * w // out_w))
            out[..., i, j] = x[..., rows, cols].mean(axis=(-2, -1))
    return out


def ref_adaptive_avg_pool3d(x, sizes):
    """Each output entry the mean of its bins, [floor(i n / out), ceil((i + 1) n / out)) per
    dim."""
    out = np.empty(x.shape[:-3] + tuple(sizes))
    for place in np.ndindex(*sizes):
        box = tuple(slice(i * n // o, -(-(i + 1) * n // o))
                    for i, n, o in zip(place, x.shape[-3:], sizes))
        out[(Ellipsis, *place)] = x[(Ellipsis, *box)].mean(axis=(-3, -2, -1))
    return out


def ref_cosine_similarity(a, b, dim=1, eps=1e-8):
    norm = lambda v: np.maximum(np.linalg.norm(v, axis=dim, keepdims=True), eps)  # noqa: E731
    return ((a / norm(a)) * (b / norm(b))).sum(axis=dim)


def ref_attention(q, k, v, mask=None, is_causal=False, scale=None):
    """softmax(q k^T * scale + mask) v; a row with no key left gets weights 0."""
    scores = q @ np.swapaxes(k, -1, -2) * (1 / math.sqrt(q.shape[-1]) if scale is None else scale)
    if is_causal:
        mask = np.tril(np.ones((q.shape[-2], k.shape[-2]), dtype=bool))
    if mask is not None:
        scores = np.where(mask, scores, -np.inf) if mask.dtype == bool else scores + mask
    top = scores.max(axis=-1, keepdims=True)
    e = np.exp(scores - np.where(np.isfinite(top), top, 0))
    total = e.sum(axis=-1, keepdims=True)
    return np.where(total > 0, e / np.where(total > 0, total, 1), 0) @ v


# --------------------------------------------------------------------------------------------
# the cases
# --------------------------------------------------------------------------------------------
@dataclass
class Case:
    ours: Callable            # minigrad tensors -> Tensor
    reference: Callable       # float64 arrays -> array
    theirs: Callable | None   # (torch, torch tensors) -> torch tensor
    inputs: Callable          # () -> float64 arrays, one per differentiable input


def normal(*shape):
    return lambda: rng.standard_normal(shape)


def distinct(*shape):
    """Entries at least 0.05 apart, so max pooling has no ties and finite differences stay on one
    side of every kink."""
    return lambda: (rng.permutation(math.prod(shape)).reshape(shape) * 0.05
                    + rng.uniform(0, 0.01, shape) - 0.025 * math.prod(shape))


def uniform(low, high, *shape):
    return lambda: rng.uniform(low, high, shape)


def make_inputs(makers):
    return lambda: [make() for make in makers]


def conv_case(dims, x_shape, w_shape, bias=True, **kw):
    ours_fn, ref_fn = (F.conv1d, ref_conv1d) if dims == 1 else (F.conv2d, ref_conv2d)
    makers = [normal(*x_shape), normal(*w_shape)] + ([normal(w_shape[0])] if bias else [])
    torch_name = f"conv{dims}d"
    return Case(lambda x, w, *b: ours_fn(x, w, *b, **kw),
                lambda x, w, *b: ref_fn(x, w, *b, **kw),
                lambda torch, x, w, *b: getattr(torch.nn.functional, torch_name)(x, w, *b, **kw),
                make_inputs(makers))


def max_pool_case(x_shape, **kw):
    return Case(lambda x: F.max_pool2d(x, **kw),
                lambda x: _unbatched(lambda x4: ref_max_pool2d(x4, **kw)[0], x),
                lambda torch, x: torch.nn.functional.max_pool2d(x, **kw),
                make_inputs([distinct(*x_shape)]))


def avg_pool_case(x_shape, **kw):
    return Case(lambda x: F.avg_pool2d(x, **kw),
                lambda x: _unbatched(lambda x4: ref_avg_pool2d(x4, **kw), x),
                lambda torch, x: torch.nn.functional.avg_pool2d(x, **kw),
                make_inputs([normal(*x_shape)]))


def _as_2d(kw):
    """A 1-D pool's arguments as the 2-D pool's over a height of 1 (for the references)."""
    height = {"kernel_size": 1, "stride": 1, "padding": 0, "dilation": 1}
    return {k: (height[k], v) if k in height else v for k, v in kw.items()}


def max_pool1d_case(x_shape, **kw):
    return Case(lambda x: F.max_pool1d(x, **kw),
                lambda x: _unbatched(lambda x4: ref_max_pool2d(x4, **_as_2d(kw))[0],
                                     x[..., None, :])[..., 0, :],
                lambda torch, x: torch.nn.functional.max_pool1d(x, **kw),
                make_inputs([distinct(*x_shape)]))


def avg_pool1d_case(x_shape, **kw):
    return Case(lambda x: F.avg_pool1d(x, **kw),
                lambda x: _unbatched(lambda x4: ref_avg_pool2d(x4, **_as_2d(kw)),
                                     x[..., None, :])[..., 0, :],
                lambda torch, x: torch.nn.functional.avg_pool1d(x, **kw),
                make_inputs([normal(*x_shape)]))


def _unbatched(fn, x):
    return fn(x) if x.ndim == 4 else fn(x[None])[0]


def _torch_kwargs(torch, kw):
    """Arrays among the keyword arguments as torch tensors."""
    return {k: torch.as_tensor(v) if isinstance(v, np.ndarray) else v for k, v in kw.items()}


def cross_entropy_case(x_shape, target, **kw):
    """`target`: integer class indices, or float probabilities (then a differentiable input)."""
    if np.asarray(target).dtype.kind == "f":
        return Case(lambda x, t: F.cross_entropy(x, t, **kw),
                    lambda x, t: ref_cross_entropy(x, t, **kw),
                    lambda torch, x, t: torch.nn.functional.cross_entropy(
                        x, t, **_torch_kwargs(torch, kw)),
                    make_inputs([normal(*x_shape), lambda: target]))
    return Case(lambda x: F.cross_entropy(x, target, **kw),
                lambda x: ref_cross_entropy(x, target, **kw),
                lambda torch, x: torch.nn.functional.cross_entropy(
                    x, torch.as_tensor(target), **_torch_kwargs(torch, kw)),
                make_inputs([normal(*x_shape)]))


def nll_case(x_shape, target, **kw):
    return Case(lambda x: F.nll_loss(x, target, **kw),
                lambda x: ref_cross_entropy(x, target, log_probs=True, **kw),
                lambda torch, x: torch.nn.functional.nll_loss(x, torch.as_tensor(target),
                                                              **_torch_kwargs(torch, kw)),
                make_inputs([normal(*x_shape)]))


def sdpa_case(shapes, mask=None, **kw):
    """`mask` a bool array (a constant) or "float" (then a differentiable input of the scores'
    shape)."""
    if isinstance(mask, str):
        return Case(lambda q, k, v, m: F.scaled_dot_product_attention(q, k, v, m, **kw),
                    lambda q, k, v, m: ref_attention(q, k, v, m, **kw),
                    lambda torch, q, k, v, m: torch.nn.functional.scaled_dot_product_attention(
                        q, k, v, m, **kw),
                    make_inputs([normal(*s) for s in shapes]))
    return Case(lambda q, k, v: F.scaled_dot_product_attention(q, k, v, mask, **kw),
                lambda q, k, v: ref_attention(q, k, v, mask, **kw),
                lambda torch, q, k, v: torch.nn.functional.scaled_dot_product_attention(
                    q, k, v, None if mask is None else torch.as_tensor(mask), **kw),
                make_inputs([normal(*s) for s in shapes]))


def transposed_case(x_shape, w_shape, bias=True, **kw):
    groups = kw.get("groups", 1)
    makers = [normal(*x_shape), normal(*w_shape)] + ([normal(w_shape[1] * groups)] if bias
                                                      else [])
    return Case(lambda x, w, *b: F.conv_transpose2d(x, w, *b, **kw),
                lambda x, w, *b: ref_conv_transpose(x, w, *b, **kw),
                lambda torch, x, w, *b: torch.nn.functional.conv_transpose2d(x, w, *b, **kw),
                make_inputs(makers))


def interpolate_case(x_shape, size, mode, **kw):
    sizes = (size,) * (len(x_shape) - 2) if isinstance(size, int) else size
    return Case(lambda x: F.interpolate(x, size, mode=mode, **kw),
                lambda x: ref_interpolate(x, sizes, mode, **kw),
                lambda torch, x: torch.nn.functional.interpolate(x, size, mode=mode, **kw),
                make_inputs([normal(*x_shape)]))


UNPOOL_INDICES = ref_max_pool2d(np.random.default_rng(6).standard_normal((1, 2, 4, 6)), 2)[1]


def _targets(shape, classes, ignore=()):
    """Class indices with `ignore` = [(position, value)] overwritten (e.g. by ignore_index)."""
    t = np.random.default_rng(int(np.prod(shape)) + classes).integers(0, classes, shape)
    for position, value in ignore:
        t[position] = value
    return t


def _probabilities(shape, class_dim=1):
    e = np.exp(np.random.default_rng(7).standard_normal(shape))
    return e / e.sum(axis=class_dim, keepdims=True)


WEIGHT4 = np.array([0.5, 2.0, 1.0, 1.5])
LABELS = np.array([[1.0, 0.0, 1.0, 0.0], [0.0, 0.0, 0.0, 1.0], [1.0, 1.0, 1.0, 1.0]])
CLASSES3 = np.array([1, 0, 3])
SIGNS6 = np.array([1.0, -1.0, -1.0, 1.0, -1.0, 1.0])     # the targets of the margin losses
COUNTS = np.random.default_rng(4).poisson(2.0, (5, 4)).astype(np.float64)
RUNNING_MEAN, RUNNING_VAR = np.array([0.5, -1.0, 0.0]), np.array([2.0, 0.5, 1.0])
QKV = [(2, 2, 3, 4), (2, 2, 5, 4), (2, 2, 5, 3)]  # (batch, heads, L=3, E) and S=5 keys
MASK = np.random.default_rng(3).random((3, 5)) > 0.4
MASK[1] = False  # a query that sees no key
MASK[0, 0] = True

BAG_IDS = np.array([1, 2, 4, 5, 4, 3, 2, 9])
BAG_OFFSETS = np.array([0, 4, 4, 6])  # the second bag is empty
CTC_TARGETS = np.array([[1, 2, 2, 0], [3, 1, 4, 4], [2, 3, 0, 0]])


def embedding_bag_case(ids, offsets, weighted=False, **kw):
    """F.embedding_bag of a weight (10, 3) with distinct entries (max has no ties), and of
    per-sample weights of the ids' shape when `weighted`."""
    def theirs(torch, weight, *per_sample):
        return torch.nn.functional.embedding_bag(
            torch.tensor(ids), weight, None if offsets is None else torch.tensor(offsets),
            per_sample_weights=per_sample[0] if per_sample else None, **kw)

    def ours(weight, *per_sample):
        return F.embedding_bag(ids, weight, offsets, per_sample_weights=(per_sample or [None])[0],
                               **kw)

    def reference(weight, *per_sample):
        return ref_embedding_bag(weight, ids, offsets, per_sample_weights=(per_sample or [None])[0],
                                 **kw)

    makers = [distinct(10, 3)] + ([normal(*ids.shape)] if weighted else [])
    return Case(ours, reference, theirs, make_inputs(makers))


def ref_log_softmax(x):
    shifted = x - x.max(-1, keepdims=True)
    return shifted - np.log(np.exp(shifted).sum(-1, keepdims=True))


def ctc_case(targets, input_lengths, target_lengths, **kw):
    """F.ctc_loss of log_softmax(logits (7, 3, 5)): through log_softmax, PyTorch's gradient
    is the derivative of its loss (for log_probs alone it is not; see the test below)."""
    lengths = np.array(input_lengths), np.array(target_lengths)
    return Case(lambda x: F.ctc_loss(F.log_softmax(x, -1), targets, *lengths, **kw),
                lambda x: ref_ctc_loss(ref_log_softmax(x), targets, *lengths, **kw),
                lambda torch, x: torch.nn.functional.ctc_loss(
                    x.log_softmax(-1), torch.tensor(targets), *map(torch.tensor, lengths), **kw),
                make_inputs([normal(7, 3, 5)]))


CASES = {
    # conv2d: stride, padding (int, tuple, 'same', 'valid'), dilation, groups, bias, odd sizes
    "conv2d": conv_case(2, (2, 3, 5, 6), (4, 3, 3, 3)),
    "conv2d_1x1_no_bias": conv_case(2, (1, 2, 4, 3), (3, 2, 1, 1), bias=False),
    "conv2d_stride": conv_case(2, (2, 2, 7, 6), (3, 2, 3, 2), stride=2),
    "conv2d_tuples": conv_case(2, (1, 2, 6, 7), (2, 2, 3, 3), stride=(2, 1), padding=(1, 2)),
    "conv2d_dilation": conv_case(2, (1, 2, 7, 7), (2, 2, 3, 3), dilation=2, padding=1),
    "conv2d_groups": conv_case(2, (2, 4, 5, 5), (6, 2, 3, 3), groups=2, padding=1),
    "conv2d_depthwise": conv_case(2, (1, 3, 5, 4), (3, 1, 2, 2), groups=3, stride=(1, 2)),
    "conv2d_same": conv_case(2, (1, 2, 5, 6), (3, 2, 3, 5), padding="same"),
    "conv2d_same_even": conv_case(2, (1, 2, 6, 5), (2, 2, 4, 2), bias=False, padding="same",
                                  dilation=(1, 2)),
    "conv2d_valid": conv_case(2, (1, 2, 5, 5), (2, 2, 3, 3), padding="valid"),
    "conv2d_everything": conv_case(2, (2, 4, 8, 7), (4, 2, 3, 2), stride=(2, 3), padding=(2, 1),
                                   dilation=(2, 1), groups=2),
    "conv2d_unbatched": conv_case(2, (2, 5, 5), (3, 2, 3, 3), padding=1),
    "conv2d_kernel_fills_input": conv_case(2, (2, 2, 3, 2), (2, 2, 3, 2)),
    # conv1d
    "conv1d": conv_case(1, (2, 3, 7), (4, 3, 3)),
    "conv1d_stride_padding": conv_case(1, (2, 2, 8), (3, 2, 2), stride=3, padding=2),
    "conv1d_dilation_groups": conv_case(1, (1, 4, 9), (2, 2, 3), bias=False, dilation=2, groups=2),
    "conv1d_same": conv_case(1, (1, 2, 6), (2, 2, 4), padding="same"),
    "conv1d_unbatched": conv_case(1, (3, 6), (2, 3, 2), stride=(2,)),
    # max_pool2d (distinct inputs: the gradient of tied maxima is tested separately)
    "max_pool2d": max_pool_case((2, 2, 6, 6), kernel_size=2),
    "max_pool2d_overlapping": max_pool_case((1, 2, 5, 6), kernel_size=3, stride=1),
    "max_pool2d_rectangular": max_pool_case((1, 2, 5, 7), kernel_size=(2, 3), stride=(1, 2)),
    "max_pool2d_padding": max_pool_case((2, 1, 7, 7), kernel_size=3, stride=2, padding=1),
    "max_pool2d_ceil": max_pool_case((1, 2, 6, 7), kernel_size=3, stride=2, padding=1,
                                     ceil_mode=True),
    "max_pool2d_ceil_odd": max_pool_case((1, 1, 5, 7), kernel_size=2, ceil_mode=True),
    "max_pool2d_dilation": max_pool_case((1, 2, 7, 6), kernel_size=3, stride=2, dilation=2,
                                         padding=1),
    "max_pool2d_everything": max_pool_case((1, 1, 8, 9), kernel_size=(3, 2), stride=(2, 3),
                                           padding=(1, 1), dilation=(1, 2), ceil_mode=True),
    "max_pool2d_unbatched": max_pool_case((2, 5, 4), kernel_size=2, stride=1),
    "max_pool1d": max_pool1d_case((2, 3, 9), kernel_size=3, stride=2, padding=1, dilation=1),
    "max_pool1d_dilation_ceil": max_pool1d_case((1, 2, 10), kernel_size=2, dilation=2,
                                                ceil_mode=True),
    "max_pool1d_unbatched": max_pool1d_case((2, 7), kernel_size=2),
    # avg_pool2d
    "avg_pool2d": avg_pool_case((2, 2, 6, 6), kernel_size=2),
    "avg_pool2d_overlapping": avg_pool_case((1, 2, 5, 6), kernel_size=3, stride=1),
    "avg_pool2d_padding": avg_pool_case((2, 1, 7, 6), kernel_size=3, stride=2, padding=1),
    "avg_pool2d_exclude_pad": avg_pool_case((1, 2, 7, 6), kernel_size=3, stride=2, padding=1,
                                            count_include_pad=False),
    "avg_pool2d_ceil": avg_pool_case((1, 2, 6, 7), kernel_size=(3, 2), stride=2, padding=1,
                                     ceil_mode=True),
    "avg_pool2d_ceil_exclude_pad": avg_pool_case((1, 1, 7, 5), kernel_size=3, stride=2,
                                                 padding=1, ceil_mode=True,
                                                 count_include_pad=False),
    "avg_pool2d_divisor": avg_pool_case((1, 2, 5, 5), kernel_size=3, stride=1,
                                        divisor_override=4),
    "avg_pool2d_unbatched": avg_pool_case((2, 5, 4), kernel_size=(2, 1)),
    "avg_pool1d": avg_pool1d_case((2, 3, 9), kernel_size=3, stride=2, padding=1,
                                  count_include_pad=False),
    "avg_pool1d_ceil_unbatched": avg_pool1d_case((2, 8), kernel_size=3, ceil_mode=True),
    # cross_entropy and nll_loss
    "cross_entropy": cross_entropy_case((5, 4), _targets(5, 4)),
    "cross_entropy_sum": cross_entropy_case((5, 4), _targets(5, 4), reduction="sum"),
    "cross_entropy_none": cross_entropy_case((5, 4), _targets(5, 4), reduction="none"),
    "cross_entropy_ignored": cross_entropy_case((6, 4), _targets(6, 4, [(1, -100), (4, -100)])),
    "cross_entropy_ignore_index": cross_entropy_case((6, 4), _targets(6, 4, [(0, 2)]),
                                                     ignore_index=2, reduction="none"),
    "cross_entropy_weight": cross_entropy_case((6, 4), _targets(6, 4), weight=WEIGHT4),
    "cross_entropy_weight_ignored": cross_entropy_case(
        (6, 4), _targets(6, 4, [(3, 1)]), weight=WEIGHT4, ignore_index=1),
    "cross_entropy_smoothing": cross_entropy_case((5, 4), _targets(5, 4), label_smoothing=0.1),
    "cross_entropy_smoothing_weight_ignored": cross_entropy_case(
        (6, 4), _targets(6, 4, [(2, -100)]), weight=WEIGHT4, label_smoothing=0.3),
    "cross_entropy_smoothing_sum": cross_entropy_case((5, 4), _targets(5, 4, [(0, -100)]),
                                                      label_smoothing=0.2, reduction="sum"),
    "cross_entropy_spatial": cross_entropy_case((2, 4, 3, 2), _targets((2, 3, 2), 4),
                                                reduction="none"),
    "cross_entropy_spatial_mean": cross_entropy_case(
        (2, 4, 3), _targets((2, 3), 4, [((0, 1), -100)]), weight=WEIGHT4, label_smoothing=0.1),
    "cross_entropy_unbatched": cross_entropy_case((4,), np.array(2)),
    "cross_entropy_unbatched_none": cross_entropy_case((4,), np.array(3), reduction="none",
                                                       label_smoothing=0.2),
    "cross_entropy_probs": cross_entropy_case((5, 4), _probabilities((5, 4))),
    "cross_entropy_probs_smoothing_weight": cross_entropy_case(
        (5, 4), _probabilities((5, 4)), weight=WEIGHT4, label_smoothing=0.2, reduction="sum"),
    "cross_entropy_probs_spatial": cross_entropy_case((2, 4, 3), _probabilities((2, 4, 3)),
                                                      reduction="none"),
    "cross_entropy_probs_unbatched": cross_entropy_case((4,), _probabilities((4,), 0)),
    "nll_loss": nll_case((5, 4), _targets(5, 4)),
    "nll_loss_weight_ignored_sum": nll_case((6, 4), _targets(6, 4, [(5, -100)]), weight=WEIGHT4,
                                            reduction="sum"),
    "nll_loss_spatial_none": nll_case((2, 4, 3), _targets((2, 3), 4, [((1, 2), 0)]),
                                      ignore_index=0, reduction="none"),
    "nll_loss_unbatched": nll_case((4,), np.array(1)),
    # PyTorch's weighted mean of one sample divides by its class weight: -log p[t] again
    "nll_loss_unbatched_weight": nll_case((4,), np.array(1), weight=WEIGHT4),
    "cross_entropy_unbatched_weight": cross_entropy_case((4,), np.array(2), weight=WEIGHT4,
                                                         label_smoothing=0.1),
    # binary cross-entropy, mse, l1
    "binary_cross_entropy": Case(
        lambda p, t: F.binary_cross_entropy(p, t), ref_binary_cross_entropy,
        lambda torch, p, t: torch.nn.functional.binary_cross_entropy(p, t),
        make_inputs([uniform(0.05, 0.95, 3, 4), uniform(0, 1, 3, 4)])),
    "binary_cross_entropy_weight_none": Case(  # PyTorch has no gradient for its weight
        lambda p, t: F.binary_cross_entropy(p, t, WEIGHT4[:3], reduction="none"),
        lambda p, t: ref_binary_cross_entropy(p, t, WEIGHT4[:3], "none"),
        lambda torch, p, t: torch.nn.functional.binary_cross_entropy(
            p, t, torch.tensor(WEIGHT4[:3]), reduction="none"),
        make_inputs([uniform(0.05, 0.95, 2, 3), uniform(0, 1, 2, 3)])),
    "bce_with_logits": Case(
        lambda x, t: F.binary_cross_entropy_with_logits(x, t),
        ref_bce_with_logits,
        lambda torch, x, t: torch.nn.functional.binary_cross_entropy_with_logits(x, t),
        make_inputs([normal(3, 4), uniform(0, 1, 3, 4)])),
    "bce_with_logits_weights_sum": Case(  # PyTorch has no gradient for the weights
        lambda x, t: F.binary_cross_entropy_with_logits(x, t, WEIGHT4[:3, None],
                                                        reduction="sum", pos_weight=WEIGHT4),
        lambda x, t: ref_bce_with_logits(x, t, WEIGHT4[:3, None], "sum", WEIGHT4),
        lambda torch, x, t: torch.nn.functional.binary_cross_entropy_with_logits(
            x, t, torch.tensor(WEIGHT4[:3, None]), reduction="sum",
            pos_weight=torch.tensor(WEIGHT4)),
        make_inputs([normal(3, 4), uniform(0, 1, 3, 4)])),
    "margin_ranking_loss": Case(
        lambda a, b: F.margin_ranking_loss(a, b, SIGNS6, 0.3),
        lambda a, b: np.maximum(0, 0.3 - SIGNS6 * (a - b)).mean(),
        lambda torch, a, b: torch.nn.functional.margin_ranking_loss(a, b, torch.tensor(SIGNS6),
                                                                    0.3),
        make_inputs([normal(6), normal(6)])),
    "hinge_embedding_loss_sum": Case(
        lambda x: F.hinge_embedding_loss(x, SIGNS6.reshape(2, 3), 0.7, reduction="sum"),
        lambda x: np.where(SIGNS6.reshape(2, 3) == 1, x, np.maximum(0, 0.7 - x)).sum(),
        lambda torch, x: torch.nn.functional.hinge_embedding_loss(
            x, torch.tensor(SIGNS6.reshape(2, 3)), 0.7, reduction="sum"),
        make_inputs([normal(2, 3)])),
    "soft_margin_loss_none": Case(
        lambda x: F.soft_margin_loss(x, SIGNS6, reduction="none"),
        lambda x: np.log1p(np.exp(-SIGNS6 * x)),
        lambda torch, x: torch.nn.functional.soft_margin_loss(x, torch.tensor(SIGNS6),
                                                              reduction="none"),
        make_inputs([normal(6)])),
    "cosine_embedding_loss": Case(
        lambda a, b: F.cosine_embedding_loss(a, b, SIGNS6, 0.2),
        lambda a, b: ref_cosine_embedding(a, b, SIGNS6, 0.2).mean(),
        lambda torch, a, b: torch.nn.functional.cosine_embedding_loss(a, b, torch.tensor(SIGNS6),
                                                                      0.2),
        make_inputs([normal(6, 4), normal(6, 4)])),
    "triplet_margin_loss": Case(
        F.triplet_margin_loss,
        lambda a, b, c: np.maximum(ref_distance(a, b) - ref_distance(a, c) + 1.0, 0).mean(),
        lambda torch, a, b, c: torch.nn.functional.triplet_margin_loss(a, b, c),
        make_inputs([normal(5, 4), normal(5, 4), normal(5, 4)])),
    "triplet_margin_loss_swap_p1": Case(
        lambda a, b, c: F.triplet_margin_loss(a, b, c, margin=0.5, p=1, swap=True,
                                              reduction="none"),
        lambda a, b, c: np.maximum(ref_distance(a, b, 1) - np.minimum(
            ref_distance(a, c, 1), ref_distance(b, c, 1)) + 0.5, 0),
        lambda torch, a, b, c: torch.nn.functional.triplet_margin_loss(
            a, b, c, margin=0.5, p=1, swap=True, reduction="none"),
        make_inputs([normal(5, 4), normal(5, 4), normal(5, 4)])),
    "gaussian_nll_loss": Case(
        F.gaussian_nll_loss,
        lambda x, t, v: (0.5 * (np.log(v) + (x - t) ** 2 / v)).mean(),
        lambda torch, x, t, v: torch.nn.functional.gaussian_nll_loss(x, t, v),
        make_inputs([normal(5, 4), normal(5, 4), uniform(0.1, 2.0, 5, 4)])),
    "gaussian_nll_loss_full_one_var_per_sample": Case(
        lambda x, t, v: F.gaussian_nll_loss(x, t, v, full=True, reduction="sum"),
        lambda x, t, v: (0.5 * (np.log(v[:, None]) + (x - t) ** 2 / v[:, None]
                                + np.log(2 * np.pi))).sum(),
        lambda torch, x, t, v: torch.nn.functional.gaussian_nll_loss(x, t, v, full=True,
                                                                      reduction="sum"),
        make_inputs([normal(5, 4), normal(5, 4), uniform(0.1, 2.0, 5)])),
    "gaussian_nll_loss_var_of_size_1_in_a_middle_dim": Case(  # PyTorch's (4, 1, 32, 32) case
        F.gaussian_nll_loss,
        lambda x, t, v: (0.5 * (np.log(v) + (x - t) ** 2 / v)).mean(),
        lambda torch, x, t, v: torch.nn.functional.gaussian_nll_loss(x, t, v),
        make_inputs([normal(3, 4, 2), normal(3, 4, 2), uniform(0.1, 2.0, 3, 1, 2)])),
    "poisson_nll_loss": Case(
        lambda x: F.poisson_nll_loss(x, COUNTS),
        lambda x: (np.exp(x) - COUNTS * x).mean(),
        lambda torch, x: torch.nn.functional.poisson_nll_loss(x, torch.tensor(COUNTS)),
        make_inputs([normal(5, 4)])),
    "poisson_nll_loss_rate_full": Case(
        lambda x: F.poisson_nll_loss(x, COUNTS, log_input=False, full=True, eps=1e-3),
        lambda x: (x - COUNTS * np.log(x + 1e-3) + np.where(
            COUNTS > 1, ref_stirling(np.maximum(COUNTS, 1)), 0)).mean(),
        lambda torch, x: torch.nn.functional.poisson_nll_loss(
            x, torch.tensor(COUNTS), log_input=False, full=True, eps=1e-3),
        make_inputs([uniform(0.2, 3.0, 5, 4)])),
    "bilinear": Case(F.bilinear,
                     lambda a, b, w, c: np.einsum("ni,oij,nj->no", a, w, b) + c,
                     lambda torch, a, b, w, c: torch.nn.functional.bilinear(a, b, w, c),
                     make_inputs([normal(2, 3), normal(2, 4), normal(5, 3, 4), normal(5)])),
    "bilinear_batched_no_bias": Case(
        F.bilinear, lambda a, b, w: np.einsum("bni,oij,bnj->bno", a, w, b),
        lambda torch, a, b, w: torch.nn.functional.bilinear(a, b, w),
        make_inputs([normal(2, 3, 3), normal(2, 3, 4), normal(5, 3, 4)])),
    "multilabel_soft_margin_loss": Case(
        lambda x: F.multilabel_soft_margin_loss(x, LABELS),
        lambda x: (-(LABELS * np.log(1 / (1 + np.exp(-x)))
                     + (1 - LABELS) * np.log(1 / (1 + np.exp(x))))).mean(-1).mean(),
        lambda torch, x: torch.nn.functional.multilabel_soft_margin_loss(x, torch.tensor(LABELS)),
        make_inputs([normal(3, 4)])),
    "multilabel_soft_margin_loss_weight_none": Case(
        lambda x: F.multilabel_soft_margin_loss(x, LABELS, WEIGHT4, reduction="none"),
        lambda x: (-(LABELS * np.log(1 / (1 + np.exp(-x)))
                     + (1 - LABELS) * np.log(1 / (1 + np.exp(x)))) * WEIGHT4).mean(-1),
        lambda torch, x: torch.nn.functional.multilabel_soft_margin_loss(
            x, torch.tensor(LABELS), torch.tensor(WEIGHT4), reduction="none"),
        make_inputs([normal(3, 4)])),
    "multi_margin_loss": Case(
        lambda x: F.multi_margin_loss(x, CLASSES3),
        lambda x: ref_multi_margin(x, CLASSES3, 1, 1.0, np.ones(4)).mean(),
        lambda torch, x: torch.nn.functional.multi_margin_loss(x, torch.tensor(CLASSES3)),
        make_inputs([distinct(3, 4)])),
    "multi_margin_loss_p2_weight_none": Case(
        lambda x: F.multi_margin_loss(x, CLASSES3, 2, 0.5, WEIGHT4, reduction="none"),
        lambda x: ref_multi_margin(x, CLASSES3, 2, 0.5, WEIGHT4),
        lambda torch, x: torch.nn.functional.multi_margin_loss(
            x, torch.tensor(CLASSES3), 2, 0.5, torch.tensor(WEIGHT4), reduction="none"),
        make_inputs([distinct(3, 4)])),
    "mse_loss": Case(lambda x, y: F.mse_loss(x, y), lambda x, y: ((x - y) ** 2).mean(),
                     lambda torch, x, y: torch.nn.functional.mse_loss(x, y),
                     make_inputs([normal(3, 4), normal(3, 4)])),
    "mse_loss_none": Case(lambda x, y: F.mse_loss(x, y, reduction="none"),
                          lambda x, y: (x - y) ** 2,
                          lambda torch, x, y: torch.nn.functional.mse_loss(x, y,
                                                                           reduction="none"),
                          make_inputs([normal(2, 3), normal(2, 3)])),
    "l1_loss_sum": Case(lambda x, y: F.l1_loss(x, y, reduction="sum"),
                        lambda x, y: np.abs(x - y).sum(),
                        lambda torch, x, y: torch.nn.functional.l1_loss(x, y, reduction="sum"),
                        make_inputs([normal(3, 4), normal(3, 4)])),
    "l1_loss": Case(lambda x, y: F.l1_loss(x, y), lambda x, y: np.abs(x - y).mean(),
                    lambda torch, x, y: torch.nn.functional.l1_loss(x, y),
                    make_inputs([normal(3, 4), normal(3, 4)])),
    "smooth_l1_loss": Case(lambda x, y: F.smooth_l1_loss(x, y, beta=0.7),
                           lambda x, y: (ref_huber(x, y, 0.7) / 0.7).mean(),
                           lambda torch, x, y: torch.nn.functional.smooth_l1_loss(x, y, beta=0.7),
                           make_inputs([normal(3, 4), normal(3, 4)])),
    "smooth_l1_loss_beta0_none": Case(
        lambda x, y: F.smooth_l1_loss(x, y, reduction="none", beta=0.0),
        lambda x, y: np.abs(x - y),
        lambda torch, x, y: torch.nn.functional.smooth_l1_loss(x, y, reduction="none", beta=0.0),
        make_inputs([normal(2, 3), normal(2, 3)])),
    "huber_loss_sum": Case(lambda x, y: F.huber_loss(x, y, "sum", delta=0.5),
                           lambda x, y: ref_huber(x, y, 0.5).sum(),
                           lambda torch, x, y: torch.nn.functional.huber_loss(x, y, "sum",
                                                                              delta=0.5),
                           make_inputs([normal(3, 4), normal(3, 4)])),
    "kl_div_batchmean": Case(lambda x, t: F.kl_div(x, t, reduction="batchmean"),
                             lambda x, t: ref_kl_div(x, t).sum() / x.shape[0],
                             lambda torch, x, t: torch.nn.functional.kl_div(
                                 x, t, reduction="batchmean"),
                             make_inputs([normal(3, 4), uniform(0.1, 1, 3, 4)])),
    "kl_div_mean": Case(lambda x, t: F.kl_div(x, t),
                        lambda x, t: ref_kl_div(x, t).mean(),
                        lambda torch, x, t: torch.nn.functional.kl_div(x, t, reduction="mean"),
                        make_inputs([normal(3, 4), uniform(0.1, 1, 3, 4)])),
    "kl_div_log_target_none": Case(
        lambda x, t: F.kl_div(x, t, reduction="none", log_target=True),
        lambda x, t: ref_kl_div(x, t, log_target=True),
        lambda torch, x, t: torch.nn.functional.kl_div(x, t, reduction="none", log_target=True),
        make_inputs([normal(2, 3), normal(2, 3)])),
    # normalisation layers
    "batch_norm_training": Case(
        lambda x, w, b: F.batch_norm(x, None, None, w, b, training=True),
        lambda x, w, b: (ref_standardize(x, (0, 2)) * w[:, None] + b[:, None]),
        lambda torch, x, w, b: torch.nn.functional.batch_norm(x, None, None, w, b,
                                                              training=True),
        make_inputs([normal(4, 3, 5), normal(3), normal(3)])),
    "batch_norm_eval": Case(
        lambda x, w: F.batch_norm(x, Tensor(RUNNING_MEAN), Tensor(RUNNING_VAR), w, eps=0.1),
        lambda x, w: ((x - RUNNING_MEAN[:, None, None]) / np.sqrt(RUNNING_VAR[:, None, None]
                                                                  + 0.1) * w[:, None, None]),
        lambda torch, x, w: torch.nn.functional.batch_norm(
            x, torch.tensor(RUNNING_MEAN), torch.tensor(RUNNING_VAR), w, eps=0.1),
        make_inputs([normal(2, 3, 2, 4), normal(3)])),
    "group_norm": Case(lambda x, w, b: F.group_norm(x, 2, w, b),
                       lambda x, w, b: ref_group_norm(x, 2, w, b),
                       lambda torch, x, w, b: torch.nn.functional.group_norm(x, 2, w, b),
                       make_inputs([normal(3, 4, 5), normal(4), normal(4)])),
    "group_norm_2d_no_affine": Case(
        lambda x: F.group_norm(x, 3, eps=0.01),
        lambda x: ref_group_norm(x, 3, np.ones(6), np.zeros(6), 0.01),
        lambda torch, x: torch.nn.functional.group_norm(x, 3, eps=0.01),
        make_inputs([normal(2, 6, 3, 2)])),
    "rms_norm": Case(lambda x: F.rms_norm(x, (4,)),
                     lambda x: x / np.sqrt((x ** 2).mean(-1, keepdims=True)
                                           + np.finfo(np.float64).eps),
                     lambda torch, x: torch.nn.functional.rms_norm(x, (4,)),
                     make_inputs([normal(2, 3, 4)])),
    "rms_norm_two_dims_weight_eps": Case(
        lambda x, w: F.rms_norm(x, [3, 4], w, eps=1e-3),
        lambda x, w: x / np.sqrt((x ** 2).mean((-2, -1), keepdims=True) + 1e-3) * w,
        lambda torch, x, w: torch.nn.functional.rms_norm(x, [3, 4], w, eps=1e-3),
        make_inputs([normal(2, 3, 4), normal(3, 4)])),
    "prelu_per_channel": Case(F.prelu, lambda x, w: np.where(x > 0, x, w[:, None] * x),
                              lambda torch, x, w: torch.nn.functional.prelu(x, w),
                              make_inputs([normal(2, 3, 4), normal(3)])),
    "prelu_one_slope": Case(F.prelu, lambda x, w: np.where(x > 0, x, w * x),
                            lambda torch, x, w: torch.nn.functional.prelu(x, w),
                            make_inputs([normal(5), normal(1)])),
    "pixel_shuffle": Case(lambda x: F.pixel_shuffle(x, 2), lambda x: ref_pixel_shuffle(x, 2),
                          lambda torch, x: torch.nn.functional.pixel_shuffle(x, 2),
                          make_inputs([normal(2, 8, 2, 3)])),
    "pixel_shuffle_unbatched": Case(lambda x: F.pixel_shuffle(x, 3),
                                    lambda x: ref_pixel_shuffle(x, 3),
                                    lambda torch, x: torch.nn.functional.pixel_shuffle(x, 3),
                                    make_inputs([normal(9, 2, 1)])),
    "pixel_unshuffle": Case(lambda x: F.pixel_unshuffle(x, 2), lambda x: ref_pixel_unshuffle(x, 2),
                            lambda torch, x: torch.nn.functional.pixel_unshuffle(x, 2),
                            make_inputs([normal(2, 1, 2, 4, 6)])),
    # a weight (in_features,): one output, its dim dropped (PyTorch's docs allow bias (),
    # which its own kernel refuses; the reference adds it after)
    "linear_1d_weight": Case(F.linear, lambda x, w: x @ w,
                             lambda torch, x, w: torch.nn.functional.linear(x, w),
                             make_inputs([normal(2, 3, 4), normal(4)])),
    "linear_1d_weight_0d_bias": Case(F.linear, lambda x, w, b: x @ w + b,
                                     lambda torch, x, w, b: torch.nn.functional.linear(x, w) + b,
                                     make_inputs([normal(3, 4), normal(4), normal()])),
    # a bias that only broadcasts to the output (PyTorch's addmm takes it; not the fused kernel)
    "linear_bias_of_one": Case(F.linear, lambda x, w, b: x @ w.T + b,
                               lambda torch, x, w, b: torch.nn.functional.linear(x, w, b),
                               make_inputs([normal(3, 4), normal(5, 4), normal(1)])),
    "linear_bias_per_row": Case(F.linear, lambda x, w, b: x @ w.T + b,
                                lambda torch, x, w, b: torch.nn.functional.linear(x, w, b),
                                make_inputs([normal(3, 4), normal(5, 4), normal(3, 5)])),
    "cosine_similarity": Case(F.cosine_similarity, ref_cosine_similarity,
                              lambda torch, a, b: torch.nn.functional.cosine_similarity(a, b),
                              make_inputs([normal(3, 4), normal(3, 4)])),
    "cosine_similarity_broadcast_last": Case(
        lambda a, b: F.cosine_similarity(a, b, dim=-1),
        lambda a, b: ref_cosine_similarity(*np.broadcast_arrays(a, b), dim=-1),
        lambda torch, a, b: torch.nn.functional.cosine_similarity(a, b, dim=-1),
        make_inputs([normal(2, 3, 4), normal(3, 4)])),
    "adaptive_avg_pool2d": Case(lambda x: F.adaptive_avg_pool2d(x, (2, 3)),
                                lambda x: ref_adaptive_avg_pool2d(x, 2, 3),
                                lambda torch, x: torch.nn.functional.adaptive_avg_pool2d(
                                    x, (2, 3)),
                                make_inputs([normal(2, 3, 4, 6)])),
    "adaptive_avg_pool2d_overlapping_bins": Case(
        lambda x: F.adaptive_avg_pool2d(x, (3, None)),
        lambda x: ref_adaptive_avg_pool2d(x, 3, 4),
        lambda torch, x: torch.nn.functional.adaptive_avg_pool2d(x, (3, None)),
        make_inputs([normal(2, 5, 4)])),
    "adaptive_avg_pool2d_one": Case(lambda x: F.adaptive_avg_pool2d(x, 1),
                                    lambda x: x.mean(axis=(2, 3), keepdims=True),
                                    lambda torch, x: torch.nn.functional.adaptive_avg_pool2d(
                                        x, 1),
                                    make_inputs([normal(2, 3, 5, 7)])),
    # normalize, softmin
    "normalize": Case(F.normalize, ref_normalize, lambda torch, x: torch.nn.functional.normalize(x),
                      make_inputs([normal(3, 4)])),
    "normalize_p1_dim0": Case(lambda x: F.normalize(x, p=1, dim=0),
                              lambda x: ref_normalize(x, 1, 0),
                              lambda torch, x: torch.nn.functional.normalize(x, p=1, dim=0),
                              make_inputs([normal(3, 4)])),
    "normalize_p3_last": Case(lambda x: F.normalize(x, 3.0, -1),
                              lambda x: ref_normalize(x, 3, -1),
                              lambda torch, x: torch.nn.functional.normalize(x, 3.0, -1),
                              make_inputs([normal(2, 3, 4)])),
    "normalize_inf": Case(lambda x: F.normalize(x, math.inf),
                          lambda x: ref_normalize(x, np.inf),
                          lambda torch, x: torch.nn.functional.normalize(x, math.inf),
                          make_inputs([distinct(3, 4)])),
    "softmin": Case(lambda x: F.softmin(x, dim=0), lambda x: ref_softmin(x, 0),
                    lambda torch, x: torch.nn.functional.softmin(x, dim=0),
                    make_inputs([normal(3, 4)])),
    # scaled_dot_product_attention
    "sdpa": sdpa_case(QKV),
    "sdpa_causal": sdpa_case([(2, 4, 3)] * 3, is_causal=True),
    "sdpa_causal_fewer_queries": sdpa_case([(2, 3, 4), (2, 5, 4), (2, 5, 2)], is_causal=True),
    "sdpa_causal_more_queries": sdpa_case([(5, 4), (3, 4), (3, 2)], is_causal=True),
    "sdpa_bool_mask": sdpa_case(QKV, MASK),
    "sdpa_batched_bool_mask_scale": sdpa_case(QKV, np.stack([MASK, ~MASK])[:, None], scale=0.3),
    "sdpa_float_mask": sdpa_case([(2, 3, 4), (2, 5, 4), (2, 5, 2), (3, 5)], "float"),
    "sdpa_float_mask_batched_scale": sdpa_case([(2, 3, 4), (5, 4), (5, 2), (2, 1, 5)], "float",
                                               scale=1.5),
    # transposed and 3-D convolution
    "conv_transpose2d": transposed_case((2, 3, 4, 5), (3, 2, 3, 3)),
    "conv_transpose2d_stride_padding_output_padding": transposed_case(
        (1, 2, 3, 4), (2, 3, 3, 2), stride=(2, 3), padding=1, output_padding=(1, 2)),
    "conv_transpose2d_groups_dilation_no_bias": transposed_case(
        (2, 4, 3, 4), (4, 1, 2, 3), bias=False, groups=2, dilation=(2, 1), padding=(0, 1)),
    "conv_transpose2d_unbatched": transposed_case((3, 4, 4), (3, 2, 2, 2), stride=2),
    "conv_transpose1d": Case(
        lambda x, w, b: F.conv_transpose1d(x, w, b, stride=3, padding=1, output_padding=2),
        lambda x, w, b: ref_conv_transpose(x, w, b, stride=3, padding=1, output_padding=2),
        lambda torch, x, w, b: torch.nn.functional.conv_transpose1d(
            x, w, b, stride=3, padding=1, output_padding=2),
        make_inputs([normal(2, 3, 5), normal(3, 2, 3), normal(2)])),
    "conv_transpose3d": Case(
        lambda x, w: F.conv_transpose3d(x, w, stride=(1, 2, 1), groups=2),
        lambda x, w: ref_conv_transpose(x, w, stride=(1, 2, 1), groups=2),
        lambda torch, x, w: torch.nn.functional.conv_transpose3d(x, w, stride=(1, 2, 1),
                                                                 groups=2),
        make_inputs([normal(1, 4, 2, 3, 2), normal(4, 1, 2, 2, 3)])),
    "avg_pool3d": Case(lambda x: F.avg_pool3d(x, (3, 2, 2), stride=2, padding=1),
                       lambda x: ref_avg_pool3d(x, (3, 2, 2), 2, 1),
                       lambda torch, x: torch.nn.functional.avg_pool3d(x, (3, 2, 2), stride=2,
                                                                       padding=1),
                       make_inputs([normal(2, 2, 5, 4, 5)])),
    "avg_pool3d_ceil_padding_not_counted": Case(
        lambda x: F.avg_pool3d(x, 3, stride=2, padding=1, ceil_mode=True,
                               count_include_pad=False),
        lambda x: ref_avg_pool3d(x, 3, 2, 1, True, False),
        lambda torch, x: torch.nn.functional.avg_pool3d(x, 3, stride=2, padding=1,
                                                        ceil_mode=True, count_include_pad=False),
        make_inputs([normal(1, 2, 4, 6, 5)])),
    "conv3d": Case(lambda x, w, b: F.conv3d(x, w, b), ref_conv3d,
                   lambda torch, x, w, b: torch.nn.functional.conv3d(x, w, b),
                   make_inputs([normal(2, 2, 4, 5, 4), normal(3, 2, 2, 3, 2), normal(3)])),
    "conv3d_stride_padding_dilation_groups": Case(
        lambda x, w: F.conv3d(x, w, stride=(2, 1, 1), padding=1, dilation=(1, 1, 2), groups=2),
        lambda x, w: ref_conv3d(x, w, None, (2, 1, 1), 1, (1, 1, 2), 2),
        lambda torch, x, w: torch.nn.functional.conv3d(x, w, stride=(2, 1, 1), padding=1,
                                                       dilation=(1, 1, 2), groups=2),
        make_inputs([normal(1, 4, 5, 3, 4), normal(2, 2, 2, 2, 2)])),
    # interpolate
    "interpolate_linear_down": interpolate_case((2, 3, 13), size=9, mode="linear"),
    "interpolate_linear_up_aligned": interpolate_case((1, 2, 5), size=12, mode="linear",
                                                      align_corners=True),
    "interpolate_bilinear": interpolate_case((1, 2, 6, 4), size=(4, 7), mode="bilinear"),
    "interpolate_bilinear_aligned": interpolate_case((1, 2, 4, 5), size=(7, 3),
                                                     mode="bilinear", align_corners=True),
    "interpolate_trilinear": interpolate_case((1, 1, 3, 2, 4), size=(4, 3, 3), mode="trilinear"),
    "interpolate_nearest": interpolate_case((2, 1, 7, 5), size=(4, 8), mode="nearest"),
    "interpolate_nearest_exact": interpolate_case((2, 1, 5), size=9, mode="nearest-exact"),
    "interpolate_bicubic": interpolate_case((1, 2, 5, 4), size=(3, 9), mode="bicubic"),
    "interpolate_bicubic_aligned": interpolate_case((2, 1, 3, 4), size=(7, 2), mode="bicubic",
                                                    align_corners=True),
    "interpolate_area": Case(  # adaptive_avg_pool's bins
        lambda x: F.interpolate(x, size=(3, 4), mode="area"),
        lambda x: ref_adaptive_avg_pool2d(x, 3, 4),
        lambda torch, x: torch.nn.functional.interpolate(x, size=(3, 4), mode="area"),
        make_inputs([normal(1, 2, 7, 3)])),
    "interpolate_area_3d_scale_factor": Case(  # the size floor(5 * 0.5) along D, 4 and 6
        lambda x: F.interpolate(x, scale_factor=(0.5, 2, 1.5), mode="area"),
        lambda x: ref_adaptive_avg_pool3d(x, (2, 4, 6)),
        lambda torch, x: torch.nn.functional.interpolate(x, scale_factor=(0.5, 2, 1.5),
                                                         mode="area"),
        make_inputs([normal(1, 2, 5, 2, 4)])),
    "interpolate_bilinear_scale_factor_keeping_a_size": Case(
        # floor(3 * 1.3) = 3: PyTorch copies that dim (reads entry i at i) whatever the scale
        lambda x: F.interpolate(x, scale_factor=(2, 1.3), mode="bilinear"),
        lambda x: ref_interpolate(x, (4, 3), "bilinear"),
        lambda torch, x: torch.nn.functional.interpolate(x, scale_factor=(2, 1.3),
                                                         mode="bilinear"),
        make_inputs([normal(1, 2, 2, 3)])),
    "interpolate_scale_factor": Case(
        lambda x: F.interpolate(x, scale_factor=2, mode="bilinear"),
        lambda x: ref_interpolate(x, (6, 8), "bilinear"),
        lambda torch, x: torch.nn.functional.interpolate(x, scale_factor=2, mode="bilinear"),
        make_inputs([normal(1, 2, 3, 4)])),
    # embedding_bag: bags by offsets (one empty) or rows, padding, per-sample weights
    "embedding_bag_sum": embedding_bag_case(BAG_IDS, BAG_OFFSETS, mode="sum"),
    "embedding_bag_mean_padding": embedding_bag_case(BAG_IDS, BAG_OFFSETS, padding_idx=4),
    "embedding_bag_max": embedding_bag_case(BAG_IDS, BAG_OFFSETS, mode="max", padding_idx=-1),
    "embedding_bag_last_offset": embedding_bag_case(BAG_IDS, np.array([0, 3, 3, 8]),
                                                    mode="max", include_last_offset=True),
    "embedding_bag_2d": embedding_bag_case(BAG_IDS.reshape(2, 4), None, padding_idx=2),
    "embedding_bag_weighted": embedding_bag_case(BAG_IDS, BAG_OFFSETS, weighted=True,
                                                 mode="sum", padding_idx=9),
    "embedding_bag_weighted_2d": embedding_bag_case(BAG_IDS.reshape(4, 2), None, weighted=True,
                                                    mode="sum"),
    # ctc_loss of log_softmax(logits): padded and concatenated targets, repeated labels (which
    # need a blank between), shorter inputs, an empty target, blank other than 0, unbatched
    "ctc_loss_mean": ctc_case(CTC_TARGETS, [7, 5, 4], [3, 4, 1]),
    "ctc_loss_mean_empty_target": ctc_case(CTC_TARGETS, [7, 5, 4], [3, 4, 0]),
    "ctc_loss_sum_concatenated": ctc_case(np.array([1, 2, 2, 3, 1, 4, 4, 2]), [7, 7, 2],
                                          [3, 4, 1], reduction="sum"),
    "ctc_loss_none_empty_target": ctc_case(CTC_TARGETS, [6, 7, 3], [3, 0, 2],
                                           reduction="none"),
    "ctc_loss_blank_last": ctc_case(CTC_TARGETS - 1 + 4 * (CTC_TARGETS == 0), [7, 6, 7],
                                    [2, 3, 2], blank=4, reduction="none"),
    "ctc_loss_unbatched": Case(
        lambda x: F.ctc_loss(F.log_softmax(x, -1), CTC_TARGETS[0, :3], 6, 3, reduction="none"),
        lambda x: ref_ctc_loss(ref_log_softmax(x)[:, None], CTC_TARGETS[:1], [6], [3],
                               reduction="none")[0],
        lambda torch, x: torch.nn.functional.ctc_loss(
            x.log_softmax(-1), torch.tensor(CTC_TARGETS[0, :3]), torch.tensor(6), torch.tensor(3),
            reduction="none"),
        make_inputs([normal(7, 5)])),
    # max_unpool2d: indices as max_pool2d returns them for a fixed input
    "max_unpool2d": Case(lambda v: F.max_unpool2d(v, UNPOOL_INDICES, 2),
                         lambda v: ref_max_unpool2d(v, UNPOOL_INDICES, (4, 6)),
                         lambda torch, v: torch.nn.functional.max_unpool2d(
                             v, torch.as_tensor(UNPOOL_INDICES), 2),
                         make_inputs([normal(1, 2, 2, 3)])),
}


# --------------------------------------------------------------------------------------------
# every case: numpy, PyTorch, gradcheck, float32
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("name", list(CASES))
def test_matches_numpy_reference(name, mode):
    case = CASES[name]
    arrays = case.inputs()
    out = case.ours(*[Tensor(a) for a in arrays])
    expected = case.reference(*arrays)
    assert out.shape == np.shape(expected)
    np.testing.assert_allclose(out.data, expected, rtol=1e-10, atol=1e-12)


def _torch_values_and_grads(torch, case, arrays, upstream):
    inputs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = case.theirs(torch, *inputs)
    out.backward(torch.tensor(upstream))
    return out.detach().numpy(), [t.grad.numpy() for t in inputs]


@pytest.mark.parametrize("name", list(CASES))
def test_matches_torch_in_values_and_gradients(name, mode, torch):
    case = CASES[name]
    arrays = case.inputs()
    inputs = [Tensor(a, requires_grad=True) for a in arrays]
    out = case.ours(*inputs)
    upstream = np.cos(np.arange(out.numel()) + 0.5).reshape(out.shape)
    grads = minigrad.grad(out, inputs, upstream)
    expected, expected_grads = _torch_values_and_grads(torch, case, arrays, upstream)
    np.testing.assert_allclose(out.data, expected, rtol=1e-10, atol=1e-12)
    for i, (g, e) in enumerate(zip(grads, expected_grads)):
        np.testing.assert_allclose(g, e, rtol=1e-9, atol=1e-12, err_msg=f"input {i}")


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_on_primitives_alone(name):
    case = CASES[name]
    inputs = [Tensor(a, requires_grad=True) for a in case.inputs()]
    with minigrad.fused(False):
        assert op_types(case.ours(*inputs)) <= set(ops.primitives())
        assert gradcheck(case.ours, inputs)


@pytest.mark.parametrize("name", list(CASES))
def test_keeps_float32(name, mode):
    """float32 in, float32 out, and every op's backward returns float32 gradients (checked
    before the engine casts them to their input's dtype)."""
    case = CASES[name]
    inputs = [Tensor(a.astype(np.float32), requires_grad=True) for a in case.inputs()]
    assert_keeps_float32(case.ours, inputs)


# --------------------------------------------------------------------------------------------
# unfold
# --------------------------------------------------------------------------------------------
def test_unfold_is_the_windows_as_columns():
    x = np.arange(2 * 3 * 4 * 5, dtype=np.float64).reshape(2, 3, 4, 5)
    out = F.unfold(Tensor(x), (2, 3), padding=1, stride=(2, 1))
    padded = np.pad(x, ((0, 0), (0, 0), (1, 1), (1, 1)))
    columns = [padded[:, :, y:y + 2, z:z + 3].reshape(2, -1) for y in range(0, 5, 2)
               for z in range(5)]
    np.testing.assert_array_equal(out.data, np.stack(columns, axis=-1))
    np.testing.assert_array_equal(F.unfold(Tensor(x[0]), (2, 3), padding=1, stride=(2, 1)).data,
                                  out.data[0])


def test_unfold_matches_torch_unbatched(torch):
    x = rng.standard_normal((3, 5, 6))
    np.testing.assert_array_equal(F.unfold(Tensor(x), 2, dilation=2, stride=(1, 2)).data,
                                  torch.nn.functional.unfold(torch.tensor(x), 2, dilation=2,
                                                             stride=(1, 2)).numpy())


@pytest.mark.parametrize("name", ["conv1d", "conv2d", "conv3d", "conv_transpose1d"])
def test_convolutions_of_an_empty_batch_are_empty_as_torch(torch, name):
    """Regression: conv1d (and conv_transpose1d, built on it) reshaped an empty batch with
    -1, which has no single answer for 0 entries."""
    dims = int(name[-2])
    x = Tensor(np.zeros((0, 2) + (5,) * dims), requires_grad=True)
    w = Tensor(np.ones((2, 2) + (3,) * dims))
    out = getattr(F, name)(x, w)
    out.sum().backward()
    expected = getattr(torch.nn.functional, name)(torch.zeros(x.shape, dtype=torch.float64),
                                                  torch.tensor(w.data))
    assert out.shape == tuple(expected.shape) and x.grad.shape == x.shape


def test_conv2d_is_unfold_then_matmul():
    """The composition: unfold, one matrix product with the reshaped weight, reshape."""
    x = Tensor(rng.standard_normal((1, 2, 4, 4)), requires_grad=True)
    w = Tensor(rng.standard_normal((3, 2, 2, 2)), requires_grad=True)
    assert op_types(F.conv2d(x, w)) == {ops.Unfold, ops.Reshape, ops.MatMul}


# --------------------------------------------------------------------------------------------
# pooling: ties, indices
# --------------------------------------------------------------------------------------------
def test_max_pool_gives_a_tied_windows_gradient_to_its_first_maximum():
    x = Tensor(np.zeros((1, 1, 4, 4)), requires_grad=True)
    F.max_pool2d(x, 2).sum().backward()
    expected = np.zeros((4, 4))
    expected[::2, ::2] = 1.0  # one winner per window: its top-left entry
    np.testing.assert_array_equal(x.grad[0, 0], expected)


def test_max_pool_ties_and_overlaps_match_torch(torch):
    x = np.round(rng.standard_normal((2, 2, 6, 5)))  # many ties
    ours = Tensor(x, requires_grad=True)
    out, indices = F.max_pool2d(ours, 3, stride=1, padding=1, return_indices=True)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    theirs = torch.tensor(x, requires_grad=True)
    t_out, t_indices = torch.nn.functional.max_pool2d(theirs, 3, stride=1, padding=1,
                                                      return_indices=True)
    t_out.backward(torch.tensor(upstream))
    np.testing.assert_array_equal(out.data, t_out.detach().numpy())
    np.testing.assert_array_equal(indices.data, t_indices.numpy())
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("kw", [
    dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1, ceil_mode=True),
    dict(kernel_size=(3, 2), stride=(2, 3), padding=(1, 1), dilation=(1, 2), ceil_mode=True),
])
def test_max_pool_indices_match_reference(kw):
    x = rng.standard_normal((2, 3, 7, 8))
    out, indices = F.max_pool2d(Tensor(x), **kw, return_indices=True)
    expected, expected_indices = ref_max_pool2d(x, **kw)
    np.testing.assert_array_equal(out.data, expected)
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(indices.data, expected_indices)
    _, unbatched = F.max_pool2d(Tensor(x[0]), **kw, return_indices=True)
    np.testing.assert_array_equal(unbatched.data, expected_indices[0])


def test_max_pool_of_integers_stays_integer_as_torch(torch):
    data = np.random.default_rng(8).integers(-50, 50, (2, 2, 7, 6)).astype(np.int32)
    for kw in ({"kernel_size": 2}, {"kernel_size": 3, "stride": 2, "padding": 1},
               {"kernel_size": (2, 3), "padding": 1, "ceil_mode": True}):
        out, indices = F.max_pool2d(Tensor(data), return_indices=True, **kw)
        expected = torch.nn.functional.max_pool2d(torch.from_numpy(data), return_indices=True,
                                                  **kw)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out.data, expected[0].numpy())
        np.testing.assert_array_equal(indices.data, expected[1].numpy())


def test_max_unpool_puts_the_pooled_maxima_back_and_takes_output_size(torch):
    x = np.random.default_rng(9).standard_normal((2, 3, 6, 7))
    values, indices = F.max_pool2d(Tensor(x), 3, stride=2, padding=1, return_indices=True)
    out = F.max_unpool2d(values, indices, 3, stride=2, padding=1, output_size=(9, 9, 6, 7))
    expected = torch.nn.functional.max_unpool2d(
        torch.tensor(values.data), torch.tensor(indices.data), 3, stride=2, padding=1,
        output_size=(9, 9, 6, 7))
    np.testing.assert_array_equal(out.data, expected.numpy())
    kept = out.data != 0  # the maxima, at the places they came from
    np.testing.assert_array_equal(out.data[kept], x[kept])


def test_interpolate_nearest_picks_pytorchs_source_where_in_over_out_rounds(torch):
    """PyTorch computes nearest's scale in float32: for 10 -> 6, entry 3 reads source 4
    (3 * 10/6 = 5 exactly, but 3 * float32(10/6) = 4.9999...)."""
    x = np.arange(2 * 10, dtype=np.float32).reshape(1, 2, 10)
    for mode in ("nearest", "nearest-exact"):
        out = F.interpolate(Tensor(x), 6, mode=mode)
        expected = torch.nn.functional.interpolate(torch.from_numpy(x), 6, mode=mode)
        np.testing.assert_array_equal(out.data, expected.numpy())
    ints = np.arange(30, dtype=np.uint8).reshape(1, 1, 5, 6)
    out = F.interpolate(Tensor(ints), (3, 4))
    assert out.dtype == np.uint8
    np.testing.assert_array_equal(out.data, torch.nn.functional.interpolate(
        torch.from_numpy(ints), (3, 4)).numpy())


@pytest.mark.parametrize("shape", [(2, 3, 7), (3, 7), (0, 2, 5)])
@pytest.mark.parametrize("output_size", [1, 3, 7, 9, (4,)])
def test_adaptive_avg_pool1d_matches_its_bins_and_torch(torch, shape, output_size):
    x = rng.standard_normal(shape)
    ours = Tensor(x, requires_grad=True)
    out = F.adaptive_avg_pool1d(ours, output_size)
    size, length = _pair(output_size)[0], shape[-1]
    bins = [x[..., i * length // size:-(-(i + 1) * length // size)].mean(-1)
            for i in range(size)]
    np.testing.assert_allclose(out.data, np.stack(bins, -1), rtol=1e-12)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    theirs = torch.tensor(x, requires_grad=True)
    torch.nn.functional.adaptive_avg_pool1d(theirs, output_size).backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.adaptive_avg_pool1d(m.ones(1, 2, 3, 4), 2),
    lambda m, F: F.adaptive_avg_pool1d(m.ones(1, 2, 4), (2, 2)),
    lambda m, F: F.adaptive_avg_pool1d(m.ones(1, 2, 4), -1),
    lambda m, F: F.adaptive_avg_pool1d(m.ones(1, 2, 0), 2),
])
def test_adaptive_avg_pool1d_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


def test_max_pool_propagates_nan_as_torch(torch):
    x = rng.standard_normal((1, 1, 4, 4))
    x[0, 0, 1, 2] = np.nan
    np.testing.assert_array_equal(F.max_pool2d(Tensor(x), 2).data,
                                  torch.nn.functional.max_pool2d(torch.tensor(x), 2).numpy())


def _max_pool_against_torch(torch, x, **kw):
    ours = Tensor(x, requires_grad=True)
    out, indices = F.max_pool2d(ours, return_indices=True, **kw)
    out.backward(np.ones(out.shape))
    theirs = torch.tensor(x, requires_grad=True)
    t_out, t_indices = torch.nn.functional.max_pool2d(theirs, return_indices=True, **kw)
    t_out.backward(torch.ones_like(t_out))
    np.testing.assert_array_equal(out.data, t_out.detach().numpy())
    np.testing.assert_array_equal(indices.data, t_indices.numpy())
    np.testing.assert_array_equal(ours.grad, theirs.grad.numpy())


def test_max_pool_gives_a_window_of_minus_inf_to_its_first_entry_inside_as_torch(torch):
    """Regression: the -inf padding tied with the -inf entries and won, so the index pointed
    into the padding (negative) and the gradient was lost."""
    _max_pool_against_torch(torch, np.full((1, 1, 5, 4), -np.inf), kernel_size=3, stride=1,
                            padding=1)
    _max_pool_against_torch(torch, np.full((1, 1, 6, 6), -np.inf), kernel_size=(3, 2),
                            stride=2, padding=1, dilation=(2, 1), ceil_mode=True)


def test_max_pool_gives_a_window_of_nans_its_last_nan_as_torch(torch):
    """PyTorch's scan replaces its maximum by any later NaN: the last NaN wins."""
    x = np.arange(16.0).reshape(1, 1, 4, 4)
    x[0, 0, 0, :2] = x[0, 0, 1, 0] = x[0, 0, 2, 3] = np.nan
    _max_pool_against_torch(torch, x, kernel_size=2)
    _max_pool_against_torch(torch, x, kernel_size=3, stride=1, padding=1)


# --------------------------------------------------------------------------------------------
# losses: the fused kernel and the edge cases
# --------------------------------------------------------------------------------------------
def test_softmax_and_log_softmax_of_empty_tensors_match_torch(torch, mode):
    """Regression: the row max of an empty dim raised numpy's ValueError."""
    for fn in ("softmax", "log_softmax"):
        for shape, dim in [((0, 3), 0), ((0, 3), 1), ((2, 0), 1), ((0,), 0)]:
            x = Tensor(np.zeros(shape, np.float32), requires_grad=True)
            with np.errstate(divide="ignore", invalid="ignore"):  # log of an empty sum, 0
                out = getattr(F, fn)(x, dim)
                out.sum().backward()
            expected = getattr(torch.nn.functional, fn)(torch.zeros(shape), dim)
            assert out.shape == tuple(expected.shape) and out.dtype == np.float32
            assert x.grad.shape == shape


def test_softmax_dtype_argument_and_tensor_methods_match_torch(torch, mode):
    x = rng.standard_normal((3, 4)).astype(np.float32)
    for name in ("softmax", "log_softmax", "softmin"):
        out = getattr(F, name)(Tensor(x), 0, dtype=np.float64)
        expected = getattr(torch.nn.functional, name)(torch.tensor(x), 0, dtype=torch.float64)
        assert out.dtype == np.float64
        np.testing.assert_allclose(out.data, expected.numpy(), rtol=1e-12)
    for name in ("softmax", "log_softmax"):
        out = getattr(Tensor(x), name)(-1)
        np.testing.assert_allclose(out.data, getattr(torch.tensor(x), name)(-1).numpy(),
                                   rtol=1e-6, atol=1e-7)


def test_cross_entropy_uses_the_fused_kernel_only_for_the_plain_case():
    x = Tensor(rng.standard_normal((4, 3)), requires_grad=True)
    plain = np.array([0, 2, 1, 1])
    assert kernels.CrossEntropy in op_types(F.cross_entropy(x, plain))
    for loss in (F.cross_entropy(x, plain, reduction="sum"),
                 F.cross_entropy(x, np.array([0, -100, 1, 1])),
                 F.cross_entropy(x, plain, label_smoothing=0.1),
                 F.cross_entropy(x, plain, WEIGHT4[:3]),
                 F.cross_entropy(x, _probabilities((4, 3)))):
        assert kernels.CrossEntropy not in op_types(loss)


def test_cross_entropy_with_every_target_ignored_is_nan_with_zero_gradient(mode):
    """PyTorch's answer: the mean over no targets is NaN, and no gradient flows."""
    x = Tensor(rng.standard_normal((3, 4)), requires_grad=True)
    with np.errstate(all="raise"):  # and no 0/0 along the way
        loss = F.cross_entropy(x, np.full(3, -100))
        loss.backward()
    assert np.isnan(loss.item())
    np.testing.assert_array_equal(x.grad, 0.0)
    assert F.cross_entropy(x, np.full(3, -100), reduction="sum").item() == 0.0


def test_cross_entropy_ignored_target_with_infinite_logit_is_not_nan():
    x = Tensor(np.array([[-np.inf, 0.0, 1.0], [0.5, 0.0, 1.0]]), requires_grad=True)
    loss = F.cross_entropy(x, np.array([-100, 2]))
    loss.backward()
    expected = -_log_softmax(x.data[1:], axis=1)[0, 2]
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-14)
    assert np.all(np.isfinite(x.grad))


def test_binary_cross_entropy_floors_the_log_at_minus_100(torch):
    p = np.array([0.0, 1.0, 0.0, 1.0, 1e-60, 0.5])
    t = np.array([1.0, 0.0, 0.0, 1.0, 1.0, 0.5])
    ours = F.binary_cross_entropy(Tensor(p, requires_grad=True), t, reduction="none")
    np.testing.assert_allclose(ours.data, [100, 100, 0, 0, 100, math.log(2)], rtol=1e-14)
    theirs = torch.nn.functional.binary_cross_entropy(torch.tensor(p), torch.tensor(t),
                                                      reduction="none")
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-14)
    ours.sum().backward()  # finite everywhere (0 where the floor holds)


def test_bce_with_logits_is_stable_and_exact_at_zero(torch):
    x = np.array([-800.0, -40.0, 0.0, 0.0, 40.0, 800.0])
    t = np.array([1.0, 1.0, 1.0, 0.0, 0.0, 0.0])
    ours = Tensor(x, requires_grad=True)
    with np.errstate(over="raise"):
        loss = F.binary_cross_entropy_with_logits(ours, t, reduction="none",
                                                  pos_weight=np.array(2.0))
    loss.sum().backward()
    theirs = torch.tensor(x, requires_grad=True)
    t_loss = torch.nn.functional.binary_cross_entropy_with_logits(
        theirs, torch.tensor(t), reduction="none", pos_weight=torch.tensor(2.0))
    t_loss.sum().backward()
    np.testing.assert_allclose(loss.data, t_loss.detach().numpy(), rtol=1e-12, atol=1e-15)
    # d/dx at 0: (pos_weight t + 1 - t) sigmoid(0) - pos_weight t = -1 for t = 1, 0.5 for t = 0
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(ours.grad[2:4], [-1.0, 0.5], rtol=1e-15)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf])
@pytest.mark.parametrize("dim", [(0, 2), (-1,), [1, 0]])
def test_normalize_over_several_dims_matches_torch(torch, p, dim):
    """Regression: a tuple dim raised a TypeError comparing it with an int."""
    x = rng.standard_normal((2, 3, 4))
    ours = Tensor(x, requires_grad=True)
    out = F.normalize(ours, p, dim)
    theirs = torch.tensor(x, requires_grad=True)
    expected = torch.nn.functional.normalize(theirs, p, dim)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12)
    upstream = rng.standard_normal(x.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("misuse", [lambda m, F: F.normalize(m.ones(2, 3), dim=(0, 2)),
                                    lambda m, F: F.normalize(m.ones(2, 3), dim=(1, 1))])
def test_normalize_refuses_dims_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_linear_with_no_input_features_is_its_bias_as_torch(torch, mode):
    """Regression: the fused kernel reshaped (..., 0) with -1, ambiguous for 0 entries."""
    x = Tensor(np.zeros((2, 3, 0)), requires_grad=True)
    w = Tensor(np.zeros((4, 0)), requires_grad=True)
    b = Tensor(np.arange(4.0), requires_grad=True)
    out = F.linear(x, w, b)
    np.testing.assert_array_equal(out.data, torch.nn.functional.linear(
        torch.zeros(2, 3, 0), torch.zeros(4, 0), torch.arange(4.0)).numpy())
    out.sum().backward()
    assert x.grad.shape == x.shape and w.grad.shape == w.shape
    np.testing.assert_array_equal(b.grad, [6.0] * 4)
    no_outputs = F.linear(Tensor(np.ones((2, 3)), requires_grad=True), Tensor(np.ones((0, 3))))
    no_outputs.sum().backward()
    assert no_outputs.shape == (2, 0)


def test_replicate_padding_of_an_empty_dim_raises_as_torch():
    """Regression: it raised numpy's IndexError, reading the edge entry of nothing."""
    assert_raises_like_torch(lambda m, F: F.pad(m.ones(2, 0), (1, 1), mode="replicate"))


def test_normalize_leaves_a_zero_vector_zero_with_a_finite_gradient(torch):
    x = np.array([[0.0, 0.0, 0.0], [3.0, 4.0, 0.0]])
    ours = Tensor(x, requires_grad=True)
    F.normalize(ours).sum().backward()
    theirs = torch.tensor(x, requires_grad=True)
    torch.nn.functional.normalize(theirs).sum().backward()
    np.testing.assert_allclose(F.normalize(Tensor(x)).data, [[0, 0, 0], [0.6, 0.8, 0]])
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-12)


def test_cosine_similarity_clamps_a_small_norm_in_value_only_as_torch(torch):
    """PyTorch clamps the norms to eps in place under no_grad: the value divides by eps, the
    gradient still flows through the (unclamped) norm."""
    x, y = np.array([1e-4, 1e-4]), np.array([1.0, 2.0])  # ||x|| = 1.4e-4 < eps
    ours = [Tensor(x, requires_grad=True), Tensor(y, requires_grad=True)]
    out = F.cosine_similarity(*ours, dim=0, eps=1e-3)
    out.backward()
    theirs = [torch.tensor(x, requires_grad=True), torch.tensor(y, requires_grad=True)]
    t_out = torch.nn.functional.cosine_similarity(*theirs, dim=0, eps=1e-3)
    t_out.backward()
    assert out.item() == pytest.approx(3e-4 / (1e-3 * math.sqrt(5)), rel=1e-12)
    assert out.item() == pytest.approx(t_out.item(), rel=1e-12)
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad, b.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("p", [1.0, 2.0, 3.0, math.inf, -math.inf, 0.5])
@pytest.mark.parametrize("shapes, keepdim", [(((3, 4), (3, 4)), False), (((2, 3, 4), (4,)), True),
                                             (((4,), (4,)), False), (((), ()), False)])
def test_pairwise_distance_matches_its_formula_and_torch(torch, p, shapes, keepdim):
    a, b = (rng.standard_normal(shape) for shape in shapes)
    a.flat[0] = b.flat[0] if b.ndim == a.ndim else a.flat[0]  # a zero difference, eps keeps it
    ours = [Tensor(a, requires_grad=True), Tensor(b, requires_grad=True)]
    out = F.pairwise_distance(*ours, p, keepdim=keepdim)
    diff = np.abs(np.atleast_1d(a - b + 1e-6))
    expected = (diff.max(-1, keepdims=keepdim) if p == math.inf
                else diff.min(-1, keepdims=keepdim) if p == -math.inf
                else (diff ** p).sum(-1, keepdims=keepdim) ** (1 / p))
    np.testing.assert_allclose(out.data, expected.reshape(out.shape), rtol=1e-12)
    theirs = [torch.tensor(a, requires_grad=True), torch.tensor(b, requires_grad=True)]
    t_out = torch.nn.functional.pairwise_distance(*theirs, p, keepdim=keepdim)
    assert out.shape == tuple(t_out.shape)
    out.sum().backward()
    t_out.sum().backward()
    for x, t in zip(ours, theirs):
        np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_pairwise_distance_refuses_shapes_that_do_not_broadcast_as_torch():
    assert_raises_like_torch(lambda m, F: F.pairwise_distance(m.ones(3, 4), m.ones(3, 5)))


def test_cosine_similarity_rejects_integer_inputs_as_torch():
    for a, b in (([[1, 2]], [[3, 4]]), ([[True]], [[False]])):
        assert_raises_like_torch(lambda m, F: F.cosine_similarity(m.tensor(a), m.tensor(b)))
    np.testing.assert_allclose(
        F.cosine_similarity(minigrad.tensor([[3, 4]]), Tensor(np.array([[4.0, 3.0]]))).data,
        [24 / 25], rtol=1e-7)  # an integer meeting a float is promoted, as in torch


def test_kl_div_target_gradient_at_a_zero_target_is_minus_input():
    """docs/api.md's differences: t log t is taken as 0 at t = 0, so d/dt is -input there
    (PyTorch's NaN, 0 * log 0, is not copied); elsewhere log t + 1 - input."""
    x, t = Tensor(np.array([-1.0, -2.0]), requires_grad=True), \
        Tensor(np.array([0.0, 0.5]), requires_grad=True)
    F.kl_div(x, t, reduction="sum").backward()
    np.testing.assert_allclose(t.grad, [1.0, math.log(0.5) + 1 + 2.0], rtol=1e-12)


@pytest.mark.parametrize("shape", [(0, 4, 3), (0, 4)])
def test_group_norm_of_an_empty_batch_is_empty_as_torch(shape):
    x = Tensor(np.ones(shape), requires_grad=True)
    out = F.group_norm(x, 2, Tensor(np.ones(4)), Tensor(np.zeros(4)))
    assert out.shape == shape  # torch.nn.functional.group_norm's shape too
    out.sum().backward()
    assert x.grad.shape == shape


@pytest.mark.parametrize("loss", [F.mse_loss, F.l1_loss, F.smooth_l1_loss, F.huber_loss,
                                  F.kl_div])
def test_loss_target_broadcasts_one_way_only(loss):
    """docs/api.md's differences: a target larger than the input raises (PyTorch broadcasts
    the input to it, with a warning for all but kl_div)."""
    with pytest.raises(ValueError, match="does not broadcast to the input's shape"):
        loss(Tensor(np.ones(4)), np.ones((3, 4)))
    assert loss(Tensor(np.ones((3, 4))), np.ones(4), reduction="none").shape == (3, 4)


def test_mse_loss_target_may_broadcast_to_the_input():
    x = rng.standard_normal((3, 4))
    y = rng.standard_normal(4)
    np.testing.assert_allclose(F.mse_loss(Tensor(x), y).item(), ((x - y) ** 2).mean(),
                               rtol=1e-14)


# --------------------------------------------------------------------------------------------
# scaled_dot_product_attention
# --------------------------------------------------------------------------------------------
def test_sdpa_runs_on_the_attention_kernel_when_the_mask_is_bool():
    q, k, v = (Tensor(rng.standard_normal(s), requires_grad=True) for s in QKV)
    assert kernels.Attention in op_types(F.scaled_dot_product_attention(q, k, v, MASK))
    assert kernels.Attention in op_types(F.scaled_dot_product_attention(q, k, v,
                                                                        is_causal=True))
    float_mask = np.where(MASK, 0.0, -np.inf)
    assert kernels.Attention not in op_types(F.scaled_dot_product_attention(q, k, v,
                                                                            float_mask))


def test_sdpa_fully_masked_rows_give_zero_like_torch(mode, torch):
    """A query that may see no key: output 0 and no gradient, bool or float (-inf) mask."""
    arrays = [rng.standard_normal(s) for s in QKV]
    for mask in (MASK, np.where(MASK, 0.0, -np.inf)):
        inputs = [Tensor(a, requires_grad=True) for a in arrays]
        out = F.scaled_dot_product_attention(*inputs, mask)
        out.sum().backward()
        theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
        t_out = torch.nn.functional.scaled_dot_product_attention(*theirs, torch.tensor(mask))
        t_out.sum().backward()
        np.testing.assert_array_equal(out.data[:, :, 1], 0.0)
        np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-12, atol=1e-14)
        for ours, t in zip(inputs, theirs):
            np.testing.assert_allclose(ours.grad, t.grad.numpy(), rtol=1e-10, atol=1e-14)


def test_sdpa_grouped_query_attention_matches_torch(torch):
    q, k, v = rng.standard_normal((2, 4, 3, 5)), rng.standard_normal((2, 2, 6, 5)), \
        rng.standard_normal((2, 2, 6, 3))
    ours = F.scaled_dot_product_attention(Tensor(q), Tensor(k), Tensor(v), is_causal=True,
                                          enable_gqa=True)
    theirs = torch.nn.functional.scaled_dot_product_attention(
        torch.tensor(q), torch.tensor(k), torch.tensor(v), is_causal=True, enable_gqa=True)
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-12, atol=1e-14)
    repeated = np.repeat(np.arange(2), 2)
    np.testing.assert_allclose(ours.data, ref_attention(q, k[:, repeated], v[:, repeated],
                                                        is_causal=True), rtol=1e-12)


def test_dropout_of_integers_as_torch(torch):
    """Regression: integers were scaled by 1/(1-p) cast to their dtype (1/0.7 to 1, 1/0.5 to 2,
    and p=0.3 gave int64's minimum); PyTorch refuses them where it scales, and where it does
    not (eval, p=0, p=1) returns integers."""
    data = np.arange(1, 7)
    for p, training in ((0.0, True), (0.5, False), (1.0, True)):
        out = F.dropout(Tensor(data), p, training)
        expected = torch.nn.functional.dropout(torch.from_numpy(data), p, training)
        assert out.dtype == np.int64
        np.testing.assert_array_equal(out.data, expected.numpy())
    for p in (0.3, 0.5):
        assert_raises_like_torch(lambda m, F: F.dropout(m.tensor([1, 2, 3]), p))


def test_sdpa_dropout_is_seeded_and_unbiased():
    q, k, v = (Tensor(rng.standard_normal(s)) for s in [(3, 4), (5, 4), (5, 2)])
    plain = F.scaled_dot_product_attention(q, k, v).data
    a = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4, rng=np.random.default_rng(1))
    b = F.scaled_dot_product_attention(q, k, v, dropout_p=0.4, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(a.data, b.data)
    assert not np.allclose(a.data, plain)
    draws = np.random.default_rng(2)
    mean = np.mean([F.scaled_dot_product_attention(q, k, v, dropout_p=0.4, rng=draws).data
                    for _ in range(1500)], axis=0)
    np.testing.assert_allclose(mean, plain, atol=0.1)  # inverted dropout keeps the expectation
    np.testing.assert_array_equal(
        F.scaled_dot_product_attention(q, k, v, dropout_p=1.0).data, 0.0)


def test_sdpa_dropout_gradient_flows_through_the_kept_weights():
    q, k, v = (Tensor(rng.standard_normal(s), requires_grad=True) for s in
               [(3, 4), (5, 4), (5, 2)])
    with minigrad.fused(False):
        fn = lambda q, k, v: F.scaled_dot_product_attention(  # noqa: E731
            q, k, v, dropout_p=0.3, rng=np.random.default_rng(4))
        assert gradcheck(fn, [q, k, v])


# --------------------------------------------------------------------------------------------
# bad arguments: clear errors naming the function
# --------------------------------------------------------------------------------------------
X4 = Tensor(np.zeros((1, 2, 5, 5)))
W4 = Tensor(np.zeros((3, 2, 3, 3)))
LOGITS = Tensor(np.zeros((3, 4)))
Q = Tensor(np.zeros((2, 3, 4)))

BAD_CALLS = [
    (lambda: F.conv2d(Tensor(np.zeros((2, 5, 5))).reshape(50), W4), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, Tensor(np.zeros((3, 3, 3, 3)))), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, Tensor(np.zeros((3, 1, 3, 3))), groups=2), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, W4, groups=0), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, W4, Tensor(np.zeros(2))), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, W4, stride=2, padding="same"), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, W4, padding="full"), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, W4, padding=-1), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, W4, stride=0), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, W4, dilation=(1, 2, 3)), ValueError, "conv2d"),
    (lambda: F.conv2d(X4, Tensor(np.zeros((3, 2, 6, 3)))), ValueError, "conv2d"),
    (lambda: F.conv2d(Tensor(np.zeros((1, 2, 5, 5), dtype=np.int64)), W4), TypeError, "conv2d"),
    (lambda: F.conv1d(X4, W4), ValueError, "conv1d"),
    (lambda: F.unfold(Tensor(np.zeros((5, 5))), 2), ValueError, "unfold"),
    (lambda: F.unfold(X4, 6), ValueError, "unfold"),
    (lambda: F.max_pool2d(X4, 3, padding=2), ValueError, "max_pool2d"),
    (lambda: F.max_pool2d(X4, 7), ValueError, "max_pool2d"),
    (lambda: F.max_pool2d(X4, 0), ValueError, "max_pool2d"),
    (lambda: F.avg_pool2d(X4, 2, divisor_override=0), ValueError, "avg_pool2d"),
    (lambda: F.avg_pool2d(Tensor(np.zeros(5)), 2), ValueError, "avg_pool2d"),
    (lambda: F.cross_entropy(LOGITS, np.array([0, 1, 2]), reduction="avg"), ValueError,
     "cross_entropy"),
    (lambda: F.cross_entropy(LOGITS, np.array([0, 1, 2]), label_smoothing=1.5), ValueError,
     "cross_entropy"),
    (lambda: F.cross_entropy(LOGITS, np.array([0, 1, 2]), np.ones(3)), ValueError,
     "cross_entropy"),
    (lambda: F.cross_entropy(LOGITS, np.array([[0, 1, 2]])), ValueError, "cross_entropy"),
    (lambda: F.cross_entropy(LOGITS, np.array([0, 1, 4])), IndexError, "cross_entropy"),
    (lambda: F.cross_entropy(LOGITS, np.array([0, 1, -1])), IndexError, "cross_entropy"),
    (lambda: F.cross_entropy(LOGITS, np.zeros((3, 3))), ValueError, "cross_entropy"),
    (lambda: F.cross_entropy(Tensor(np.float64(1.0)), np.array(0)), ValueError,
     "cross_entropy"),
    (lambda: F.nll_loss(LOGITS, np.zeros((3, 4))), TypeError, "nll_loss"),
    (lambda: F.nll_loss(LOGITS, np.array([0, 1, 2]), reduction=None), ValueError, "nll_loss"),
    (lambda: F.binary_cross_entropy(Tensor(np.array([0.5, 1.5])), np.ones(2)), ValueError,
     "binary_cross_entropy"),
    (lambda: F.binary_cross_entropy(Tensor(np.array([0.5, 0.5])), np.ones(3)), ValueError,
     "binary_cross_entropy"),
    (lambda: F.binary_cross_entropy_with_logits(LOGITS, np.ones(4)), ValueError,
     "binary_cross_entropy_with_logits"),
    (lambda: F.mse_loss(LOGITS, np.ones((3, 1, 4))), ValueError, "mse_loss"),
    (lambda: F.l1_loss(LOGITS, np.ones(3)), ValueError, "l1_loss"),
    (lambda: F.normalize(LOGITS, p=0), ValueError, "normalize"),
    (lambda: F.normalize(LOGITS, dim=2), IndexError, "normalize"),
    (lambda: F.scaled_dot_product_attention(Q, Q, Q, np.ones((3, 3), bool), is_causal=True),
     ValueError, "scaled_dot_product_attention"),
    (lambda: F.scaled_dot_product_attention(Q, Q, Q, np.ones((3, 3), int)), TypeError,
     "scaled_dot_product_attention"),
    (lambda: F.scaled_dot_product_attention(Q, Q, Q, np.ones((3, 4), bool)), ValueError,
     "scaled_dot_product_attention"),
    (lambda: F.scaled_dot_product_attention(Q, Q, Q, dropout_p=1.5), ValueError,
     "scaled_dot_product_attention"),
    (lambda: F.scaled_dot_product_attention(Q, Tensor(np.zeros((2, 3, 5))), Q), ValueError,
     "scaled_dot_product_attention"),
    (lambda: F.scaled_dot_product_attention(Q, Tensor(np.zeros((3, 3, 4))), Q, enable_gqa=True),
     ValueError, "scaled_dot_product_attention"),
    (lambda: F.conv_transpose2d(X4, Tensor(np.zeros((3, 2, 3, 3)))), ValueError,
     "conv_transpose2d"),
    (lambda: F.conv_transpose2d(X4, Tensor(np.zeros((2, 2, 3)))), ValueError,
     "conv_transpose2d"),
    (lambda: F.conv_transpose2d(X4, W4[:2], output_padding=1), ValueError,
     "conv_transpose2d: output_padding"),
    (lambda: F.conv_transpose2d(X4, W4[:2], Tensor(np.zeros(3))), ValueError,
     "conv_transpose2d: bias"),
    (lambda: F.conv3d(X4, W4), ValueError, "conv3d"),
    (lambda: F.conv_transpose3d(X4, W4), ValueError, "conv_transpose3d"),
    (lambda: F.avg_pool3d(Tensor(np.zeros((2, 5, 5))), 2), ValueError, "avg_pool3d"),
    (lambda: F.avg_pool3d(X4.reshape(1, 2, 5, 5, 1), 2), ValueError, "avg_pool3d"),
    (lambda: F.conv3d(X4.reshape(1, 2, 5, 5, 1), Tensor(np.zeros((1, 2, 2, 2, 2)))), ValueError,
     "conv3d: the kernel"),
    (lambda: F.interpolate(X4, 3, mode="lanczos"), NotImplementedError, "interpolate: mode"),
    (lambda: F.interpolate(X4[0], 3, mode="bicubic"), NotImplementedError,
     "interpolate: mode 'bicubic'"),
    (lambda: F.interpolate(X4, 3, mode="area", align_corners=False), ValueError,
     "interpolate: align_corners"),
    (lambda: F.interpolate(X4, 3, mode="linear"), NotImplementedError,
     "interpolate: mode 'linear'"),
    (lambda: F.interpolate(X4), ValueError, "interpolate: give size or scale_factor"),
    (lambda: F.interpolate(X4, 3, align_corners=True), ValueError, "interpolate: align_corners"),
    (lambda: F.max_unpool2d(X4, np.zeros((1, 2, 5, 5), dtype=int) + 200, 2), IndexError,
     "max_unpool2d: indices"),
    (lambda: F.max_unpool2d(X4, np.zeros((2, 2)), 2), ValueError, "max_unpool2d: indices"),
    (lambda: nn.Conv2d(4, 3, 3, groups=2), ValueError, "Conv2d"),
    (lambda: nn.Conv2d(4, 4, (3, 3, 3)), ValueError, "Conv2d"),
    (lambda: nn.Flatten(2, 1)(LOGITS.reshape(1, 3, 4)), ValueError, "Flatten"),
    (lambda: nn.Sequential().append(F.relu), TypeError, "Sequential"),
    # new checks raise what PyTorch raises for the same misuse
    (lambda: F.smooth_l1_loss(LOGITS, LOGITS, beta=-1.0), RuntimeError, "smooth_l1_loss"),
    (lambda: F.huber_loss(LOGITS, LOGITS, delta=0.0), RuntimeError, "huber_loss"),
    (lambda: F.kl_div(LOGITS, LOGITS, reduction="avg"), ValueError, "kl_div"),
    # PyTorch's third positional parameter is size_average, so reduction must be named
    (lambda: F.kl_div(LOGITS, LOGITS, "sum"), TypeError, "kl_div"),
    (lambda: F.group_norm(Tensor(np.zeros((2, 4, 3))), 3), RuntimeError, "group_norm"),
    (lambda: nn.GroupNorm(3, 4), ValueError, "GroupNorm"),
    (lambda: F.batch_norm(LOGITS, None, None), RuntimeError, "batch_norm"),
    (lambda: F.batch_norm(LOGITS[:1], None, None, training=True), ValueError, "batch_norm"),
    (lambda: F.batch_norm(LOGITS, Tensor(np.zeros(4)), None, training=True), ValueError,
     "batch_norm: running_mean and running_var must either both be None or neither"),
    (lambda: F.batch_norm(LOGITS, None, Tensor(np.ones(4)), training=True), ValueError,
     "batch_norm: running_mean and running_var must either both be None or neither"),
    (lambda: F.batch_norm(LOGITS, Tensor(np.zeros(3)), Tensor(np.ones(3))), RuntimeError,
     "batch_norm: running_mean"),
    (lambda: nn.BatchNorm1d(4)(X4), ValueError, "BatchNorm1d: expected 2D or 3D input"),
    (lambda: nn.BatchNorm2d(2)(X4[0]), ValueError, "BatchNorm2d: expected 4D input"),
    (lambda: nn.Embedding(3, 2, padding_idx=3), AssertionError, "Embedding: padding_idx"),
    (lambda: F.embedding(np.array([0]), LOGITS, padding_idx=-4), AssertionError,
     "embedding: padding_idx"),
    (lambda: F.adaptive_avg_pool2d(LOGITS, 1), ValueError, "adaptive_avg_pool2d"),
    (lambda: F.adaptive_avg_pool2d(X4, (1, 2, 3)), ValueError, "adaptive_avg_pool2d"),
]


@pytest.mark.parametrize("call,error,name", BAD_CALLS,
                         ids=[f"{i}-{name}" for i, (_, _, name) in enumerate(BAD_CALLS)])
def test_bad_arguments_raise_clear_errors(call, error, name):
    with pytest.raises(error, match=name):
        call()


# Bad arguments that PyTorch rejects too, written once for both libraries: `m` is minigrad or
# torch, `F` its functional module.
TORCH_ERRORS = [
    lambda m, F: F.softmax(m.tensor([1, 2]), 0),  # floats only, unless dtype= converts first
    lambda m, F: F.log_softmax(m.tensor([[1, 2]]), -1),
    lambda m, F: m.tensor([True, False]).softmax(0),
    *[lambda m, F, name=name: getattr(F, name)(m.tensor([[1, -2]]))
      for name in ("gelu", "leaky_relu", "elu", "celu", "selu", "silu", "softplus", "mish",
                   "logsigmoid", "hardsigmoid", "hardswish")],
    *[lambda m, F, name=name: getattr(F, name)(m.tensor([1, 2]), m.tensor([1, 3]))
      for name in ("mse_loss", "smooth_l1_loss", "huber_loss", "kl_div")],
    lambda m, F: F.nll_loss(m.tensor([[1, 2]]), m.tensor([1])),
    # integer logits: refused before the fused kernel is chosen, which would fail otherwise
    lambda m, F: F.cross_entropy(m.tensor([[1, 2], [3, 4]]), m.tensor([1, 0])),
    lambda m, F: F.binary_cross_entropy(m.tensor([1, 0]), m.tensor([1.0, 0.0])),
    lambda m, F: F.scaled_dot_product_attention(*[m.ones(1, 2, 3, dtype=m.int64)] * 3),
    lambda m, F: F.binary_cross_entropy_with_logits(m.tensor([1, 2]), m.tensor([1.0, 0.0])),
    lambda m, F: F.linear(m.ones(2, 3), m.ones(4, 5)),
    lambda m, F: F.linear(m.ones(2, 3), m.ones(4, 3), m.ones(3)),  # a bias that does not broadcast
    # normalisation is float math: one rule for layer_norm, batch_norm and group_norm
    lambda m, F: F.batch_norm(m.tensor([[1, 2], [3, 5]]), None, None, training=True),
    lambda m, F: F.group_norm(m.tensor([[1, 2], [3, 5]]), 1),
    lambda m, F: F.embedding(m.ones(2), m.ones(5, 3)),
    lambda m, F: F.embedding(m.tensor([7]), m.ones(5, 3)),
    lambda m, F: F.embedding(m.tensor([1]), m.ones(5)),  # a 1-D weight was taken
    lambda m, F: F.cosine_similarity(m.ones(3, 4), m.ones(3, 5)),  # raised numpy's ValueError
    lambda m, F: F.layer_norm(m.ones(2, 3), (4,)),
    lambda m, F: F.layer_norm(m.tensor([[1, 2, 3]]), (3,)),  # raised numpy's UFuncTypeError
    lambda m, F: F.normalize(m.ones(2, 3), dim=5),
    lambda m, F: F.dropout(m.ones(2), p=1.5),
    lambda m, F: F.conv2d(m.ones(4, 4), m.ones(1, 1, 3, 3)),
    lambda m, F: F.conv2d(m.ones(1, 2, 4, 4), m.ones(1, 1, 3, 3)),
    lambda m, F: F.conv2d(m.ones(1, 1, 4, 4), m.ones(1, 1, 3, 3), stride=0),
    lambda m, F: F.conv2d(m.ones(1, 1, 6, 7), m.ones(1, 1, 3, 3), dilation=3),
    lambda m, F: F.conv2d(m.ones(1, 1, 4, 4), m.ones(1, 1, 3, 3), padding="same", stride=2),
    # a size that is not an int: PyTorch's TypeError (a str was a ValueError)
    lambda m, F: F.conv2d(m.ones(1, 1, 4, 4), m.ones(1, 1, 3, 3), stride="2"),
    lambda m, F: F.conv_transpose2d(m.ones(1, 1, 4, 4), m.ones(1, 1, 3, 3), padding="same"),
    lambda m, F: F.avg_pool2d(m.ones(1, 1, 4, 4), "2"),
    lambda m, F: F.max_pool2d(m.ones(1, 1, 4, 4), 2.0),
    lambda m, F: F.unfold(m.ones(1, 1, 4, 4), (2, 2.0)),
    lambda m, F: F.interpolate(m.ones(1, 1, 5), scale_factor=0.1),  # no entry left: was empty
    lambda m, F: F.conv_transpose2d(m.ones(2, 16, 2, 2), m.ones(16, 32, 3, 3), padding=(1, 1, 1)),
    lambda m, F: F.conv_transpose2d(m.ones(1, 2, 4, 4), m.ones(2, 3, 3, 3), output_padding=1),
    lambda m, F: F.conv3d(m.ones(1, 2, 2, 4, 4), m.ones(3, 2, 3, 3, 3)),
    lambda m, F: F.max_pool2d(m.ones(1, 1, 4, 4), 2, padding=2),
    lambda m, F: F.avg_pool2d(m.ones(1, 1, 2, 2), 3),
    lambda m, F: F.avg_pool2d(m.ones(1, 1, 4, 4), 2, divisor_override=0),
    lambda m, F: F.max_unpool2d(m.ones(1, 1, 2, 2), m.zeros(1, 1, 2, 3, dtype=m.int64), 2),
    lambda m, F: F.max_unpool2d(m.ones(1, 1, 2, 2), m.full((1, 1, 2, 2), 99), 2),
    *[lambda m, F, size=size: F.max_unpool2d(m.ones(1, 1, 2, 2), m.zeros(1, 1, 2, 2, dtype=m.int64),
                                             2, output_size=size)
      for size in ((6, 4), (4, 2), (1, 1, 4), (1, 1, 1, 4, 4))],  # all were taken
    lambda m, F: F.interpolate(m.ones(1, 1, 4, 4), size=(2, 2), mode="typo"),
    lambda m, F: F.interpolate(m.ones(1, 1, 4, 4), size=(2, 2), mode="linear"),
    lambda m, F: F.interpolate(m.ones(1, 1, 4, 4), size=(2, 2), scale_factor=2),
    lambda m, F: F.interpolate(m.ones(1, 1, 4, 4), scale_factor=-1.0),
    lambda m, F: F.gelu(m.ones(2), approximate="bad"),
    lambda m, F: F.celu(m.ones(2), alpha=0.0),
    lambda m, F: F.hardtanh(m.ones(2), 1.0, -1.0),
    lambda m, F: F.cross_entropy(m.ones(2, 3), m.tensor([0, 1]), label_smoothing=2.0),
    lambda m, F: F.cross_entropy(m.ones(32, 10), m.zeros(32, 1, dtype=m.int64)),
    lambda m, F: F.cross_entropy(m.ones(2, 3), m.tensor([0, 5])),
    lambda m, F: F.cross_entropy(m.ones(2, 3), m.tensor([0, 1]), weight=m.ones(4)),
    lambda m, F: F.cross_entropy(m.ones(2, 3), m.tensor([0, 1]), reduction="bad"),
    *[lambda m, F, i=i: F.cross_entropy(m.ones(2, 3), m.ones(2, 3) / 3, ignore_index=i)
      for i in (0, 2, 7)],  # was ignored for probabilities
    lambda m, F: F.nll_loss(m.ones(2, 3), m.ones(2)),
    lambda m, F: F.nll_loss(m.ones(4, 10), m.zeros(3, dtype=m.int64)),
    lambda m, F: F.binary_cross_entropy(m.ones(2) * 2, m.ones(2)),
    lambda m, F: F.binary_cross_entropy(m.ones(2) * 0.5, m.ones(3) * 0.5),
    lambda m, F: F.mse_loss(m.ones(2), m.ones(3)),
    lambda m, F: F.scaled_dot_product_attention(m.ones(1, 2, 4), m.ones(1, 2, 5), m.ones(1, 2, 4)),
    lambda m, F: F.scaled_dot_product_attention(m.ones(1, 2, 4), m.ones(1, 2, 4), m.ones(1, 2, 4),
                                                attn_mask=m.ones(2, 2, dtype=m.int64)),
    lambda m, F: F.scaled_dot_product_attention(m.ones(1, 2, 4), m.ones(1, 2, 4), m.ones(1, 2, 4),
                                                attn_mask=m.ones(2, 2, dtype=m.bool),
                                                is_causal=True),
    lambda m, F: F.batch_norm(m.ones(4, 3), m.zeros(3), None, training=True),
    lambda m, F: F.batch_norm(m.ones(4, 3), None, m.ones(3), training=True),
    lambda m, F: F.batch_norm(m.ones(4, 3), None, m.ones(3)),
    # integer inputs: PyTorch has no kernel for them ("not implemented for 'Long'")
    lambda m, F: F.unfold(m.ones(1, 1, 4, 4, dtype=m.int64), 2),
    lambda m, F: F.adaptive_avg_pool2d(m.ones(1, 1, 4, 4, dtype=m.int64), 2),
    lambda m, F: F.max_unpool2d(m.ones(1, 1, 2, 2, dtype=m.int64),
                                m.zeros(1, 1, 2, 2, dtype=m.int64), 2),
    lambda m, F: F.adaptive_avg_pool2d(m.ones(1, 1, 4, 4), -1),
    lambda m, F: F.adaptive_avg_pool2d(m.ones(1, 1, 4, 4), (2,)),
    lambda m, F: F.adaptive_avg_pool2d(m.ones(1, 1, 4, 4), (1, 2, 3)),
    lambda m, F: F.adaptive_avg_pool2d(m.ones(1, 1, 0, 4), 2),
    lambda m, F: F.adaptive_avg_pool2d(m.ones(2, 4, 0), (0, 2)),
    lambda m, F: m.nn.Dropout(1.5),
    lambda m, F: m.nn.Conv2d(3, 4, 3, groups=2),
    lambda m, F: m.nn.Conv2d(3, 4, 3, padding_mode="mirror"),
    lambda m, F: m.nn.Conv2d(3, 4, 3, padding="full"),
    lambda m, F: m.nn.Conv2d(3, 4, 3, stride=2, padding="same"),  # when made, not when run
    lambda m, F: m.nn.ConvTranspose2d(3, 4, 3, padding_mode="reflect"),
    lambda m, F: m.nn.Conv1d(3, 4, 3, padding=3, padding_mode="reflect")(m.ones(1, 3, 3)),
    lambda m, F: m.nn.Flatten(0, 5)(m.ones(2, 3)),
    lambda m, F: m.nn.Flatten(2, 1)(m.ones(2, 3, 4)),
    lambda m, F: m.nn.Sequential().append(3),
    lambda m, F: m.optim.SGD([], lr=0.1),
]


@pytest.mark.filterwarnings("ignore:Using a target size:UserWarning")  # PyTorch's, for mse_loss
@pytest.mark.parametrize("misuse", TORCH_ERRORS)
def test_bad_arguments_raise_pytorchs_class(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# nn modules against PyTorch's, weights copied through the state dict
# --------------------------------------------------------------------------------------------
def _load_from_torch(module, torch_module):
    module.load_state_dict({k: v.detach().numpy() for k, v in torch_module.state_dict().items()})


def _compare_modules(torch, ours, theirs, x, loss_target=None):
    """Same output and same parameter gradients (of a weighted sum of the output)."""
    out = ours(Tensor(x, requires_grad=True))
    t_out = theirs(torch.tensor(x, requires_grad=True))
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    upstream = np.cos(np.arange(out.numel())).reshape(out.shape)
    out.backward(upstream)
    t_out.backward(torch.tensor(upstream))
    t_params = dict(theirs.named_parameters())
    assert [n for n, _ in ours.named_parameters()] == list(t_params)
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad, t_params[name].grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("kw", [
    dict(), dict(stride=2, padding=1, bias=False), dict(padding="same", dilation=2, groups=2),
])
def test_conv2d_module_matches_torch(torch, kw):
    ours = nn.Conv2d(4, 6, (3, 2), **kw, dtype=np.float64)
    theirs = torch.nn.Conv2d(4, 6, (3, 2), **kw, dtype=torch.float64)
    assert {k: v.shape for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    for attribute in ("in_channels", "out_channels", "kernel_size", "stride", "padding",
                      "dilation", "groups"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    _load_from_torch(ours, theirs)
    _compare_modules(torch, ours, theirs, rng.standard_normal((2, 4, 7, 6)))


@pytest.mark.parametrize("padding_mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("dims, kw", [
    (1, dict(padding=2, stride=2)), (2, dict(padding=(1, 2), groups=2)),
    (2, dict(padding="same", dilation=(2, 1))),  # odd totals: the extra entry goes after
    (3, dict(padding=1)), (2, dict(padding="valid")),
])
def test_conv_padding_modes_match_torch(torch, padding_mode, dims, kw):
    """The input is padded in that mode, then convolved without padding, as PyTorch's."""
    name = f"Conv{dims}d"
    ours = getattr(nn, name)(4, 6, (3, 2, 2)[:dims], **kw, padding_mode=padding_mode,
                             dtype=np.float64)
    theirs = getattr(torch.nn, name)(4, 6, (3, 2, 2)[:dims], **kw, padding_mode=padding_mode,
                                     dtype=torch.float64)
    assert repr(ours) == repr(theirs) and ours.padding_mode == padding_mode
    _load_from_torch(ours, theirs)
    _compare_modules(torch, ours, theirs, rng.standard_normal((2, 4, 7, 6, 5)[:dims + 2]))
    _compare_modules(torch, ours, theirs, rng.standard_normal((4, 7, 6, 5)[:dims + 1]))


def test_conv1d_module_matches_torch(torch):
    ours = nn.Conv1d(4, 2, 3, stride=2, padding=1, groups=2, dtype=np.float64)
    theirs = torch.nn.Conv1d(4, 2, 3, stride=2, padding=1, groups=2, dtype=torch.float64)
    _load_from_torch(ours, theirs)
    _compare_modules(torch, ours, theirs, rng.standard_normal((3, 4, 9)))


def test_conv_init_is_uniform_within_torch_bounds():
    conv = nn.Conv2d(8, 64, (3, 5), groups=2, rng=np.random.default_rng(0))
    bound = 1 / math.sqrt(8 // 2 * 3 * 5)
    assert conv.weight.shape == (64, 4, 3, 5) and conv.weight.dtype == np.float32
    for p in (conv.weight.data, conv.bias.data):
        assert np.abs(p).max() <= bound
    # uniform on [-b, b]: standard deviation b / sqrt(3)
    assert abs(conv.weight.data.std() - bound / math.sqrt(3)) < 0.05 * bound
    again = nn.Conv2d(8, 64, (3, 5), groups=2, rng=np.random.default_rng(0))
    np.testing.assert_array_equal(again.weight.data, conv.weight.data)


def _torch_cnn(torch):
    tnn = torch.nn
    return tnn.Sequential(
        tnn.Conv2d(2, 4, 3, padding=1), tnn.ReLU(), tnn.MaxPool2d(2),
        tnn.Conv2d(4, 3, 2), tnn.Tanh(), tnn.AvgPool2d(2, stride=1),
        tnn.Flatten(), tnn.Linear(3 * 1 * 1, 5), tnn.Sigmoid(), tnn.GELU(approximate="tanh"),
    ).double()


def _minigrad_cnn():
    return nn.Sequential(
        nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
        nn.Conv2d(4, 3, 2), nn.Tanh(), nn.AvgPool2d(2, stride=1),
        nn.Flatten(), nn.Linear(3 * 1 * 1, 5), nn.Sigmoid(), nn.GELU(approximate="tanh"),
    ).astype(np.float64)


def test_sequential_cnn_matches_torch_with_its_state_dict(torch):
    theirs, ours = _torch_cnn(torch), _minigrad_cnn()
    _load_from_torch(ours, theirs)  # names '0.weight', '3.bias', ...: no renaming, no transposes
    _compare_modules(torch, ours, theirs, rng.standard_normal((3, 2, 6, 6)))


@pytest.mark.parametrize("make", [
    lambda tnn, w: tnn.CrossEntropyLoss(),
    lambda tnn, w: tnn.CrossEntropyLoss(weight=w, ignore_index=1, label_smoothing=0.1),
    lambda tnn, w: tnn.CrossEntropyLoss(reduction="sum", label_smoothing=0.2),
    lambda tnn, w: tnn.MSELoss(), lambda tnn, w: tnn.MSELoss(reduction="none"),
    lambda tnn, w: tnn.L1Loss(reduction="sum"),
])
def test_loss_modules_match_torch(torch, make):
    theirs = make(torch.nn, torch.tensor(WEIGHT4))
    ours = make(nn, WEIGHT4)
    x = rng.standard_normal((6, 4))
    target = _targets(6, 4) if isinstance(ours, nn.CrossEntropyLoss) else rng.standard_normal(
        (6, 4))
    loss = ours(Tensor(x), target)
    expected = theirs(torch.tensor(x), torch.as_tensor(target))
    np.testing.assert_allclose(loss.data, expected.numpy(), rtol=1e-12)


def test_pooling_flatten_and_activation_modules_match_torch(torch):
    x = rng.standard_normal((2, 3, 7, 6))
    pairs = [
        (nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True),
         torch.nn.MaxPool2d(3, stride=2, padding=1, ceil_mode=True)),
        (nn.AvgPool2d((2, 3), count_include_pad=False, padding=1),
         torch.nn.AvgPool2d((2, 3), count_include_pad=False, padding=1)),
        (nn.Flatten(), torch.nn.Flatten()), (nn.Flatten(0, 2), torch.nn.Flatten(0, 2)),
        (nn.Flatten(-2), torch.nn.Flatten(-2)), (nn.ReLU(), torch.nn.ReLU()),
        (nn.Tanh(), torch.nn.Tanh()), (nn.Sigmoid(), torch.nn.Sigmoid()),
        (nn.GELU("tanh"), torch.nn.GELU("tanh")),
    ]
    for ours, theirs in pairs:
        np.testing.assert_allclose(ours(Tensor(x)).data, theirs(torch.tensor(x)).numpy(),
                                   rtol=1e-12, atol=1e-14, err_msg=type(ours).__name__)
    for ours, theirs in [(nn.MaxPool2d(3), torch.nn.MaxPool2d(3)),
                         (nn.AvgPool2d(2, 1), torch.nn.AvgPool2d(2, 1))]:
        assert (ours.kernel_size, ours.stride, ours.padding) == \
            (theirs.kernel_size, theirs.stride, theirs.padding)
    out, indices = nn.MaxPool2d(2, return_indices=True)(Tensor(x))
    np.testing.assert_array_equal(indices.data, torch.nn.MaxPool2d(2, return_indices=True)(
        torch.tensor(x))[1].numpy())


def test_gelu_module_defaults_to_exact_as_in_torch():
    assert nn.GELU().approximate == "none"


def test_flatten_reshapes_like_numpy():
    x = Tensor(np.arange(24.0).reshape(2, 3, 4))
    assert nn.Flatten()(x).shape == (2, 12)
    assert nn.Flatten(0, 1)(x).shape == (6, 4)
    assert nn.Flatten(1, 1)(x).shape == (2, 3, 4)
    np.testing.assert_array_equal(nn.Flatten(0)(x).data, np.arange(24.0))


def test_sequential_is_indexable_iterable_and_registers_children():
    layers = [nn.Linear(3, 4), nn.ReLU(), nn.Linear(4, 2)]
    model = nn.Sequential(*layers)
    assert len(model) == 3 and list(model) == layers
    assert model[0] is layers[0] and model[-1] is layers[2]
    head = model[1:]
    assert isinstance(head, nn.Sequential) and list(head) == layers[1:]
    assert [n for n, _ in head.named_modules()][1:] == ["1", "2"]  # names kept, as in PyTorch
    assert [n for n, _ in model.named_parameters()] == ["0.weight", "0.bias", "2.weight",
                                                        "2.bias"]
    x = Tensor(rng.standard_normal((5, 3)))
    np.testing.assert_array_equal(model(x).data, layers[2](layers[1](layers[0](x))).data)
    named = nn.Sequential(OrderedDict([("encoder", layers[0]), ("act", layers[1])]))
    assert [n for n, _ in named.named_parameters()] == ["encoder.weight", "encoder.bias"]
    model.append(nn.Tanh())
    assert len(model) == 4 and isinstance(model[3], nn.Tanh)
    model.eval()
    assert not model[0].training


# --------------------------------------------------------------------------------------------
# a convolutional network learns (examples/conv_classifier.py)
# --------------------------------------------------------------------------------------------
def test_conv_classifier_example_learns_well_below_chance():
    from examples.conv_classifier import CLASSES, accuracy, make_images, train

    model, losses = train(steps=120, seed=0)
    chance = math.log(len(CLASSES))
    assert abs(np.mean(losses[:5]) - chance) < 0.3  # starts near chance
    assert np.mean(losses[-20:]) < 0.25 * chance
    images, labels = make_images(300, np.random.default_rng(1))
    assert accuracy(model, images, labels) > 0.9


def test_conv_classifier_example_takes_its_settings_and_stops_quietly_without_a_reader():
    result = subprocess.run([sys.executable, "-m", "examples.conv_classifier", "--steps", "0"],
                            cwd=Path(__file__).parents[1], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2 and "--steps" in result.stderr
    assert_stops_quietly_when_its_reader_is_gone("examples.conv_classifier", "--steps", "1")


def test_conv_classifier_example_refuses_a_negative_seed_in_one_line():
    result = subprocess.run([sys.executable, "-m", "examples.conv_classifier", "--seed", "-1"],
                            cwd=Path(__file__).parents[1], capture_output=True, text=True,
                            timeout=120)
    assert result.returncode == 2 and "Traceback" not in result.stderr
    assert result.stderr.count("error:") == 1 and "--seed" in result.stderr


# --------------------------------------------------------------------------------------------
# normalisation, embedding and activation modules against PyTorch's
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("momentum", [0.1, None])
@pytest.mark.parametrize("name,shape", [("BatchNorm1d", (4, 3)), ("BatchNorm1d", (4, 3, 5)),
                                        ("BatchNorm2d", (2, 3, 4, 5))])
def test_batch_norm_modules_match_torch_in_training_and_eval(torch, name, shape, momentum):
    """Three training steps (outputs, input and parameter gradients, running statistics with
    PyTorch's unbiased variance), then eval mode on the running statistics."""
    ours = getattr(nn, name)(3, momentum=momentum, dtype=np.float64)
    theirs = getattr(torch.nn, name)(3, momentum=momentum, dtype=torch.float64)
    data = np.random.default_rng(5)
    for _ in range(3):
        x = data.standard_normal(shape) * 2 + 1
        _compare_modules(torch, ours, theirs, x)
        ours.zero_grad()
        theirs.zero_grad()
    state, expected = ours.state_dict(), theirs.state_dict()
    assert list(state) == list(expected)  # weight, bias, running_mean, running_var, count
    for key, value in expected.items():
        assert state[key].dtype == value.numpy().dtype, key
        np.testing.assert_allclose(state[key], value.numpy(), rtol=1e-12, err_msg=key)
    ours.eval(), theirs.eval()
    _compare_modules(torch, ours, theirs, data.standard_normal(shape))
    assert all(np.array_equal(ours.state_dict()[key], value) for key, value in state.items())


@pytest.mark.parametrize("shape", [(2, 3, 5), (2, 3, 4, 2), (1, 3, 2, 2, 2)])
@pytest.mark.parametrize("stats, use_input_stats", [(False, True), (True, True), (True, False)])
def test_instance_norm_matches_torch(torch, shape, stats, use_input_stats):
    """Values, gradients, and the running statistics moved towards the samples' average
    (unbiased variance), or used in their place."""
    x, weight, bias = rng.standard_normal(shape), rng.standard_normal(3), rng.standard_normal(3)
    start = [rng.standard_normal(3), rng.uniform(0.5, 2, 3)]
    upstream = rng.standard_normal(shape)
    results = []
    for lib, functional in ((minigrad, F), (torch, torch.nn.functional)):
        inputs = [lib.tensor(a, requires_grad=True) for a in (x, weight, bias)]
        running = [lib.tensor(a.copy()) for a in start] if stats else [None, None]
        out = functional.instance_norm(inputs[0], *running, *inputs[1:],
                                       use_input_stats=use_input_stats, momentum=0.3, eps=1e-3)
        out.backward(lib.tensor(upstream))
        results.append([out.detach().numpy() if lib is torch else out.data,
                        *[np.asarray(t.grad) for t in inputs],
                        *[np.asarray(r.numpy() if lib is torch else r.data)
                          for r in running if r is not None]])
    for ours, theirs in zip(*results):
        np.testing.assert_allclose(ours, theirs, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.instance_norm(m.ones(2, 3)), lambda m, F: F.instance_norm(m.ones(2, 3, 1)),
    lambda m, F: F.instance_norm(m.ones(2, 3, 4), weight=m.ones(4)),
    lambda m, F: F.instance_norm(m.ones(2, 3, 4), m.zeros(3), None),
])
def test_instance_norm_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


def test_instance_norm_of_one_spatial_element_names_itself_and_the_input():
    """Regression: the error came from the batch_norm it calls, naming batch_norm and the
    reshaped (1, N * C, ...) input."""
    with pytest.raises(ValueError, match=r"instance_norm: .*\(2, 3, 1\)"):
        F.instance_norm(Tensor(np.ones((2, 3, 1))))


def test_batch_norm_of_no_channels_is_empty_as_torch(torch):
    """Regression: the count per channel divided the size by the number of channels, 0."""
    out = F.batch_norm(Tensor(np.zeros((2, 0, 3))), None, None, training=True)
    assert out.shape == tuple(torch.nn.functional.batch_norm(
        torch.zeros(2, 0, 3), None, None, training=True).shape)


def test_batch_norm_without_affine_or_running_stats_matches_torch(torch):
    ours = nn.BatchNorm1d(3, affine=False, track_running_stats=False, dtype=np.float64)
    theirs = torch.nn.BatchNorm1d(3, affine=False, track_running_stats=False,
                                  dtype=torch.float64)
    assert ours.state_dict() == {} == dict(theirs.state_dict())
    assert ours.running_mean is None and ours.weight is None
    ours.eval(), theirs.eval()  # still the batch's statistics
    x = rng.standard_normal((5, 3))
    np.testing.assert_allclose(ours(Tensor(x)).data, theirs(torch.tensor(x)).numpy(),
                               rtol=1e-12, atol=1e-14)


def test_batch_norm_loads_a_torch_state_dict_and_keeps_float32():
    theirs_state = {"weight": np.full(3, 2.0, np.float32), "bias": np.zeros(3, np.float32),
                    "running_mean": np.ones(3, np.float32),
                    "running_var": np.full(3, 4.0, np.float32),
                    "num_batches_tracked": np.array(7)}
    bn = nn.BatchNorm1d(3).eval()
    bn.load_state_dict(theirs_state)
    out = bn(Tensor(np.full((2, 3), 3.0, np.float32)))
    assert out.dtype == np.float32 and int(bn.num_batches_tracked.data) == 7
    np.testing.assert_allclose(out.data, 2 * (3 - 1) / np.sqrt(4 + 1e-5), rtol=1e-6)
    assert bn.astype(np.float64).running_var.dtype == np.float64
    assert bn.num_batches_tracked.dtype == np.int64  # integer buffers are not cast


def test_group_norm_module_matches_torch(torch):
    ours, theirs = nn.GroupNorm(2, 4, dtype=np.float64), torch.nn.GroupNorm(2, 4).double()
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(rng.standard_normal(4)))
        theirs.bias.copy_(torch.tensor(rng.standard_normal(4)))
    _load_from_torch(ours, theirs)
    _compare_modules(torch, ours, theirs, rng.standard_normal((2, 4, 3, 3)))
    assert nn.GroupNorm(2, 4, affine=False).state_dict() == {}


@pytest.mark.parametrize("padding_idx", [1, -1])
def test_embedding_padding_row_is_zero_and_gets_no_gradient_as_in_torch(torch, padding_idx):
    ours = nn.Embedding(4, 3, padding_idx=padding_idx, rng=rng, dtype=np.float64)
    theirs = torch.nn.Embedding(4, 3, padding_idx=padding_idx).double()
    assert ours.padding_idx == theirs.padding_idx
    np.testing.assert_array_equal(ours.weight.data[ours.padding_idx], 0.0)
    np.testing.assert_array_equal(theirs.weight.detach().numpy()[theirs.padding_idx], 0.0)
    ours.weight.data[ours.padding_idx] = 5.0  # a row the user changed is still looked up
    theirs.load_state_dict({"weight": torch.tensor(ours.weight.data)})
    ids = np.array([[0, 1, 3], [3, 2, 1]])
    for fused in (True, False):
        with minigrad.fused(fused):
            ours.zero_grad()
            theirs.zero_grad()
            out, t_out = ours(ids), theirs(torch.tensor(ids))
            np.testing.assert_array_equal(out.data, t_out.detach().numpy())
            upstream = rng.standard_normal(out.shape)
            out.backward(upstream)
            t_out.backward(torch.tensor(upstream))
            np.testing.assert_allclose(ours.weight.grad, theirs.weight.grad.numpy(), rtol=1e-12)
            assert not ours.weight.grad[ours.padding_idx].any()


def test_identity_silu_softmax_and_log_softmax_modules_match_torch(torch):
    x = rng.standard_normal((2, 3, 4))
    pairs = [(nn.Identity(7, key="ignored"), torch.nn.Identity(7, key="ignored")),
             (nn.SiLU(), torch.nn.SiLU()), (nn.Softmax(1), torch.nn.Softmax(1)),
             (nn.Softmax(dim=-1), torch.nn.Softmax(dim=-1)),
             (nn.LogSoftmax(0), torch.nn.LogSoftmax(0))]
    for ours, theirs in pairs:
        _compare_modules(torch, ours, theirs, x)
    assert nn.Softmax().dim == -1  # PyTorch's None picks a dim from the shape, with a warning
    # separate classes, as in PyTorch: a LogSoftmax is not a Softmax
    assert not isinstance(torch.nn.LogSoftmax(), torch.nn.Softmax)
    assert not isinstance(nn.LogSoftmax(), nn.Softmax)
    assert not isinstance(nn.Softmax(), nn.LogSoftmax)


@pytest.mark.parametrize("name, args", [
    ("ReLU6", ()), ("SELU", ()), ("Mish", ()), ("Hardsigmoid", ()), ("Hardswish", ()),
    ("LogSigmoid", ()), ("Softsign", ()), ("LeakyReLU", (0.2,)), ("ELU", (0.7,)),
    ("CELU", (1.5,)), ("Softplus", (2.0, 3.0)), ("Hardtanh", (-0.5, 2.0)), ("Softmin", (1,)),
    ("Unflatten", (2, (2, 2))), ("AdaptiveAvgPool2d", ((2, None),)),
])
def test_activation_and_shape_modules_match_torch(torch, name, args):
    x = rng.uniform(-4, 7, size=(2, 3, 4, 5))
    _compare_modules(torch, getattr(nn, name)(*args), getattr(torch.nn, name)(*args), x)


@pytest.mark.parametrize("shape, dim", [((3, 4), -1), ((4, 3), 0), ((2, 6, 3), 1), ((2,), 0)])
def test_glu_matches_its_formula_and_torch(torch, shape, dim):
    x = rng.standard_normal(shape)
    ours = Tensor(x, requires_grad=True)
    out = F.glu(ours, dim)
    a, b = np.split(x, 2, axis=dim)
    np.testing.assert_allclose(out.data, a / (1 + np.exp(-b)), rtol=1e-12)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    theirs = torch.tensor(x, requires_grad=True)
    torch.nn.functional.glu(theirs, dim).backward(torch.tensor(upstream))
    np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.glu(m.ones(3, 5)), lambda m, F: F.glu(m.ones(4, 3), 0 + 1),
    lambda m, F: F.glu(m.tensor(1.0)), lambda m, F: F.glu(m.ones(2, 4), 2),
])
def test_glu_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("name, args", [("MaxPool1d", (2, 1, 1, 2)),
                                        ("AvgPool1d", (3, 2, 1, True, False))])
def test_pool1d_modules_match_torch(torch, name, args):
    x = rng.standard_normal((2, 3, 9))
    _compare_modules(torch, getattr(nn, name)(*args), getattr(torch.nn, name)(*args), x)


@pytest.mark.parametrize("name, kwargs, target", [
    ("NLLLoss", dict(ignore_index=1), lambda: rng.integers(0, 4, size=6)),
    ("BCELoss", dict(reduction="sum"), lambda: rng.uniform(0, 1, size=(6, 4))),
    ("BCEWithLogitsLoss", dict(pos_weight=np.array([1.0, 2.0, 0.5, 3.0])),
     lambda: rng.uniform(0, 1, size=(6, 4))),
    ("SmoothL1Loss", dict(beta=0.5), lambda: rng.standard_normal((6, 4))),
    ("HuberLoss", dict(delta=0.3, reduction="none"), lambda: rng.standard_normal((6, 4))),
    ("KLDivLoss", dict(reduction="batchmean"), lambda: rng.uniform(0.1, 1, size=(6, 4))),
])
def test_nll_bce_smooth_l1_huber_and_kl_loss_modules_match_torch(torch, name, kwargs, target):
    x = rng.uniform(0.05, 0.95, size=(6, 4))
    if name in ("NLLLoss", "KLDivLoss"):
        x = np.log(x)
    t = target()
    torch_kwargs = {k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                    for k, v in kwargs.items()}
    ours, theirs = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**torch_kwargs)
    leaf, t_leaf = Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    out, t_out = ours(leaf, t), theirs(t_leaf, torch.tensor(t))
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-10)
    out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(leaf.grad, t_leaf.grad.numpy(), rtol=1e-10, atol=1e-12)


def test_module_dict_and_parameter_list_register_under_torchs_names(torch):
    ours = nn.ModuleDict({"proj": nn.Linear(3, 2), "act": nn.ReLU()})
    ours["head"] = nn.Linear(2, 1)
    theirs = torch.nn.ModuleDict({"proj": torch.nn.Linear(3, 2), "act": torch.nn.ReLU()})
    theirs["head"] = torch.nn.Linear(2, 1)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert list(ours) == list(theirs) and len(ours) == len(theirs) and "act" in ours
    del ours["act"]
    del theirs["act"]
    assert list(ours.keys()) == list(theirs.keys())
    params = nn.ParameterList([Tensor(np.ones(2)), nn.Parameter(np.zeros(3))])
    t_params = torch.nn.ParameterList([torch.ones(2), torch.nn.Parameter(torch.zeros(3))])
    params.append(Tensor(np.ones(1)))
    t_params.append(torch.ones(1))
    assert list(params.state_dict()) == list(t_params.state_dict())
    assert all(isinstance(p, nn.Parameter) and p.requires_grad for p in params)
    assert [p.shape for p in params] == [tuple(p.shape) for p in t_params]


def _check_attention_layer_against_torch(torch, ours, theirs, arrays, masks, average):
    """ours and theirs (same parameters) on the same query, key and value: outputs, attention
    weights, and the gradients of the inputs and of every parameter."""
    leaves = [Tensor(a, requires_grad=True) for a in arrays]
    t_leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    ours.zero_grad()
    theirs.zero_grad()
    out, weights = ours(*leaves, **masks, average_attn_weights=average)
    t_out, t_weights = theirs(*t_leaves, **{k: torch.tensor(v) for k, v in masks.items()},
                              average_attn_weights=average)
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights.data, t_weights.detach().numpy(), rtol=1e-10, atol=1e-12)
    upstream = rng.standard_normal(out.shape)
    (out * upstream).sum().backward()
    (t_out * torch.tensor(upstream)).sum().backward()
    for leaf, t_leaf in zip(leaves, t_leaves):
        np.testing.assert_allclose(leaf.grad, t_leaf.grad.numpy(), rtol=1e-9, atol=1e-12)
    t_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad, t_params[name].grad.numpy(), rtol=1e-9, atol=1e-12,
                                   err_msg=name)


@pytest.mark.parametrize("batch_first, unbatched, masks", [
    (False, False, "bool"), (True, False, "float"), (False, True, "none"), (True, False, "none")])
def test_multihead_attention_matches_torch(torch, batch_first, unbatched, masks):
    """Output, weights (averaged and per head) and the gradients of inputs and parameters,
    with PyTorch's parameters loaded through the state dict."""
    E, H, L, S, N = 8, 2, 5, 4, 2
    theirs = torch.nn.MultiheadAttention(E, H, batch_first=batch_first).double()
    ours = nn.MultiheadAttention(E, H, batch_first=batch_first, dtype=np.float64)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})

    def layout(length):
        return (length, E) if unbatched else (N, length, E) if batch_first else (length, N, E)

    arrays = [rng.standard_normal(layout(L)), rng.standard_normal(layout(S)),
              rng.standard_normal(layout(S))]
    kwargs = {}
    if masks == "bool":
        attn = rng.random((L, S)) < 0.3
        attn[:, 0] = False  # every query sees a key (PyTorch gives NaN otherwise)
        kwargs = dict(attn_mask=attn, key_padding_mask=np.array([[0, 0, 1, 0], [0, 1, 0, 0]],
                                                                 dtype=bool))
    elif masks == "float":
        kwargs = dict(attn_mask=rng.standard_normal((N * H, L, S)),
                      key_padding_mask=rng.standard_normal((N, S)))
    for average in (True, False):
        _check_attention_layer_against_torch(torch, ours, theirs, arrays, kwargs, average)
    out, weights = ours(*[Tensor(a) for a in arrays], need_weights=False)
    assert weights is None and out.shape == arrays[0].shape


@pytest.mark.parametrize("kdim, vdim, add_bias_kv, add_zero_attn, batch_first, unbatched", [
    (6, 3, False, False, False, False), (None, None, True, False, False, False),
    (None, None, False, True, True, False), (6, 3, True, True, False, False),
    (None, 5, True, True, False, True),
])
def test_multihead_attention_with_kdim_vdim_and_added_positions_matches_torch(
        torch, kdim, vdim, add_bias_kv, add_zero_attn, batch_first, unbatched):
    """kdim/vdim (separate q, k, v projection weights), add_bias_kv and add_zero_attn, given
    positionally in PyTorch's order, with bool masks (the added positions stay unmasked):
    parameter names, outputs, weights per head and every gradient."""
    E, H, L, S, N = 8, 2, 5, 4, 2
    settings = (E, H, 0.0, True, add_bias_kv, add_zero_attn, kdim, vdim, batch_first)
    theirs = torch.nn.MultiheadAttention(*settings).double()
    ours = nn.MultiheadAttention(*settings, dtype=np.float64)
    assert [n for n, _ in ours.named_parameters()] == [n for n, _ in theirs.named_parameters()]
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})

    def layout(length, width):
        return (length, width) if unbatched else (N, length, width) if batch_first else \
            (length, N, width)

    arrays = [rng.standard_normal(layout(length, width)) for length, width in
              ((L, E), (S, kdim or E), (S, vdim or E))]
    attn_mask = rng.random((L, S)) < 0.3
    attn_mask[:, 0] = False
    padding = np.array([[0, 0, 1, 0], [0, 1, 0, 0]], dtype=bool)
    masks = dict(attn_mask=attn_mask, key_padding_mask=padding[0] if unbatched else padding)
    _check_attention_layer_against_torch(torch, ours, theirs, arrays, masks, average=False)


def test_multihead_attention_initialises_and_refuses_as_torch(torch):
    layer = nn.MultiheadAttention(64, 4, rng=np.random.default_rng(0))
    bound = math.sqrt(6 / (64 + 3 * 64))  # Glorot on (3E, E)
    assert np.abs(layer.in_proj_weight.data).max() <= bound
    assert np.abs(layer.in_proj_weight.data).max() > 0.95 * bound
    assert not layer.in_proj_bias.data.any() and not layer.out_proj.bias.data.any()
    assert nn.MultiheadAttention(8, 2, bias=False).state_dict().keys() == \
        torch.nn.MultiheadAttention(8, 2, bias=False).state_dict().keys()
    with pytest.raises(ValueError, match="divisible"):  # PyTorch: an AssertionError
        nn.MultiheadAttention(10, 3)
    x = np.zeros((3, 1, 8))
    for lib, make in ((torch, torch.tensor), (minigrad, Tensor)):
        with pytest.raises(RuntimeError):
            lib.nn.MultiheadAttention(8, 2)(make(x), make(x), make(x), is_causal=True)
        for masks in (dict(attn_mask=np.zeros((3, 3), np.int64)),
                      dict(key_padding_mask=np.zeros((1, 3), np.int64))):
            with pytest.raises(AssertionError):  # an integer mask is neither kind
                lib.nn.MultiheadAttention(8, 2)(make(x), make(x), make(x),
                                                **{k: make(v) for k, v in masks.items()})


RECURRENT = [
    ("RNN", dict(num_layers=2)), ("RNN", dict(nonlinearity="relu", bias=False)),
    ("LSTM", dict()), ("LSTM", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("LSTM", dict(proj_size=2)), ("LSTM", dict(proj_size=3, num_layers=2, bidirectional=True)),
    ("GRU", dict(num_layers=2)), ("GRU", dict(bidirectional=True)),
]


@pytest.mark.parametrize("name, kwargs", RECURRENT)
@pytest.mark.parametrize("unbatched", [False, True])
def test_recurrent_layers_match_torch(torch, name, kwargs, unbatched):
    """Outputs, final states and the gradients of the input, the initial states and every
    parameter, with PyTorch's parameters loaded through the state dict."""
    theirs = getattr(torch.nn, name)(3, 4, **kwargs).double()
    ours = getattr(nn, name)(3, 4, **kwargs, dtype=np.float64)
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    layers = kwargs.get("num_layers", 1) * (2 if kwargs.get("bidirectional") else 1)
    x = rng.standard_normal((5, 3) if unbatched else (2, 5, 3) if kwargs.get("batch_first")
                            else (5, 2, 3))
    sizes = [kwargs.get("proj_size") or 4] + ([4] if name == "LSTM" else [])  # h's, c's
    states = [rng.standard_normal((layers, size) if unbatched else (layers, 2, size))
              for size in sizes]
    leaves = [Tensor(a, requires_grad=True) for a in (x, *states)]
    t_leaves = [torch.tensor(a, requires_grad=True) for a in (x, *states)]
    hx, t_hx = (tuple(leaves[1:]), tuple(t_leaves[1:])) if name == "LSTM" else \
        (leaves[1], t_leaves[1])
    out, final = ours(leaves[0], hx)
    t_out, t_final = theirs(t_leaves[0], t_hx)
    finals = final if name == "LSTM" else (final,)
    t_finals = t_final if name == "LSTM" else (t_final,)
    loss, t_loss = 0.0, 0.0
    for got, want in zip((out, *finals), (t_out, *t_finals)):
        np.testing.assert_allclose(got.data, want.detach().numpy(), rtol=1e-10, atol=1e-12)
        weights = rng.standard_normal(got.shape)
        loss = (got * weights).sum() + loss
        t_loss = (want * torch.tensor(weights)).sum() + t_loss
    loss.backward()
    t_loss.backward()
    _assert_gradients_match(leaves, t_leaves, ours, theirs)


def _assert_gradients_match(leaves, t_leaves, ours, theirs):
    """The inputs' and the parameters' gradients of a layer and of its PyTorch twin agree."""
    for leaf, t_leaf in zip(leaves, t_leaves):
        np.testing.assert_allclose(leaf.grad, t_leaf.grad.numpy(), rtol=1e-9, atol=1e-12)
    t_params = dict(theirs.named_parameters())
    assert [n for n, _ in ours.named_parameters()] == list(t_params)
    for param_name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad, t_params[param_name].grad.numpy(), rtol=1e-9,
                                   atol=1e-12, err_msg=param_name)


@pytest.mark.parametrize("name, kwargs", [
    ("RNNCell", dict()), ("RNNCell", dict(nonlinearity="relu", bias=False)), ("LSTMCell", dict()),
    ("LSTMCell", dict(bias=False)), ("GRUCell", dict()),
])
@pytest.mark.parametrize("unbatched", [False, True])
@pytest.mark.parametrize("given_state", [False, True])
def test_recurrent_cells_match_torch(torch, name, kwargs, unbatched, given_state):
    """Three steps of the cell, each fed the state the last returned (zeros first, unless
    given): the states and the gradients of the inputs, the first state and the parameters."""
    theirs = getattr(torch.nn, name)(3, 4, **kwargs).double()
    ours = getattr(nn, name)(3, 4, **kwargs, dtype=np.float64)
    assert repr(ours) == repr(theirs)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    count = 2 if name == "LSTMCell" else 1
    data = [rng.standard_normal((3, 3) if unbatched else (3, 2, 3))]
    data += [rng.standard_normal((4,) if unbatched else (2, 4)) for _ in range(count)
             if given_state]
    leaves = [Tensor(a, requires_grad=True) for a in data]
    t_leaves = [torch.tensor(a, requires_grad=True) for a in data]
    results = []
    for lib_leaves, cell in ((leaves, ours), (t_leaves, theirs)):
        state = None if not given_state else tuple(lib_leaves[1:]) if count == 2 else \
            lib_leaves[1]
        for step in range(3):
            state = cell(lib_leaves[0][step], state)
        results.append(state if count == 2 else (state,))
    weights = [rng.standard_normal(r.shape) for r in results[1]]
    for got, want in zip(*results):
        np.testing.assert_allclose(got.data, want.detach().numpy(), rtol=1e-10, atol=1e-12)
    sum((r * w).sum() for r, w in zip(results[0], weights)).backward()
    sum((r * torch.tensor(w)).sum() for r, w in zip(results[1], weights)).backward()
    _assert_gradients_match(leaves, t_leaves, ours, theirs)


def test_recurrent_dropout_between_layers_is_seeded_and_off_in_eval():
    x = Tensor(rng.standard_normal((6, 2, 3)))
    runs = [nn.GRU(3, 5, num_layers=3, dropout=0.5, rng=np.random.default_rng(4))(x)[0].data
            for _ in range(2)]
    np.testing.assert_array_equal(runs[0], runs[1])
    layer = nn.GRU(3, 5, num_layers=3, dropout=0.5, rng=np.random.default_rng(4))
    plain = nn.GRU(3, 5, num_layers=3, rng=np.random.default_rng(4))
    assert not np.allclose(layer(x)[0].data, plain(x)[0].data)
    layer.eval()
    np.testing.assert_array_equal(layer(x)[0].data, plain(x)[0].data)
    bound = 1 / math.sqrt(5)  # PyTorch's initialisation: uniform in +-1/sqrt(hidden_size)
    assert all(np.abs(p.data).max() <= bound for p in layer.parameters())


def test_recurrent_base_classes_as_torch(torch):
    """RNNBase and RNNCellBase are the layers' and cells' base classes, and made directly
    (with PyTorch's `mode` and `num_chunks`) have the parameters theirs have, and no forward."""
    for lib in (nn, torch.nn):
        assert all(isinstance(layer, lib.RNNBase) for layer in (
            lib.RNN(2, 3), lib.LSTM(2, 3), lib.GRU(2, 3)))
        assert all(isinstance(cell, lib.RNNCellBase) for cell in (
            lib.RNNCell(2, 3), lib.LSTMCell(2, 3), lib.GRUCell(2, 3)))
    assert [nn.RNN(2, 3, nonlinearity=n).mode for n in ("tanh", "relu")] == \
        [torch.nn.RNN(2, 3, nonlinearity=n).mode for n in ("tanh", "relu")]
    for make in (lambda lib: lib.RNNBase("LSTM", 3, 4, 2, proj_size=2),
                 lambda lib: lib.RNNBase("GRU", 3, 4, bidirectional=True, bias=False),
                 lambda lib: lib.RNNCellBase(3, 4, True, 2),
                 lambda lib: lib.RNNCellBase(3, 4, False, 3)):
        ours, theirs = make(nn), make(torch.nn)
        assert repr(ours) == repr(theirs)
        assert [(n, tuple(p.shape)) for n, p in ours.named_parameters()] == \
            [(n, tuple(p.shape)) for n, p in theirs.named_parameters()]
        with pytest.raises(NotImplementedError):
            theirs(torch.zeros(2, 1, 3))
        with pytest.raises(NotImplementedError):
            ours(Tensor(np.zeros((2, 1, 3))) if isinstance(ours, nn.RNNBase) else
                 Tensor(np.zeros((2, 3))))
    for lib in (nn, torch.nn):
        with pytest.raises(ValueError, match="Unrecognized RNN mode"):
            lib.RNNBase("RNN", 3, 4)


@pytest.mark.parametrize("misuse", [
    lambda lib: lib.nn.LSTM(3, 4)(lib.zeros(5, 2, 2)),  # the wrong input size
    lambda lib: lib.nn.GRU(3, 4)(lib.zeros(5, 2, 3), lib.zeros(2, 2, 4)),  # h_0 for 2 layers
    lambda lib: lib.nn.GRUCell(3, 4)(lib.zeros(2, 5, 3)),  # a sequence: the layer's input
    lambda lib: lib.nn.LSTM(3, 4, proj_size=4),  # must be smaller than hidden_size
    # proj_size is LSTM's alone (ours raises when made)
    lambda lib: lib.nn.GRU(3, 4, 1, True, False, 0.0, False, 2)(lib.zeros(5, 2, 3)),
    lambda lib: lib.nn.LSTM(3, 4, proj_size=2)(lib.zeros(5, 2, 3), (lib.zeros(1, 2, 4),
                                                                   lib.zeros(1, 2, 4))),
    lambda lib: lib.nn.LSTMCell(3, 4)(lib.zeros(2, 3), (lib.zeros(3, 4), lib.zeros(3, 4))),
    lambda lib: lib.nn.RNNCell(3, 4)(lib.zeros(3), lib.zeros(1, 4)),  # a batched state
    lambda lib: lib.nn.RNNCell(3, 4, nonlinearity="sigmoid")(lib.zeros(2, 3)),  # made: ours
])
def test_recurrent_layers_refuse_what_torch_refuses(torch, misuse):
    with pytest.raises(Exception) as expected:
        misuse(torch)
    with pytest.raises(expected.type):
        misuse(minigrad)


def _layers_to_print(lib):
    n = lib.nn
    return [n.Sequential(n.Linear(2, 3), n.ReLU(), n.Sequential(n.Linear(3, 1, bias=False),
                                                              n.Tanh())),
            n.Embedding(65, 128), n.Embedding(10, 4, padding_idx=0), n.Conv2d(3, 16, 3),
            n.Conv2d(3, 16, (3, 5), stride=2, padding=1, dilation=2, bias=False),
            n.Conv1d(4, 8, 3, padding="same"), n.MaxPool2d(2), n.AvgPool2d(3, 2, 1),
            n.Flatten(), n.GELU(approximate="tanh"), n.Softmax(dim=-1), n.LeakyReLU(0.2),
            n.ELU(), n.Softplus(), n.Hardtanh(), n.Unflatten(1, (2, 2)),
            n.AdaptiveAvgPool2d((2, 3)), n.LSTM(3, 4),
            n.GRU(3, 4, num_layers=2, batch_first=True, dropout=0.5, bidirectional=True),
            n.ModuleList([n.Identity(), n.SiLU()]), n.CrossEntropyLoss(), n.MaxPool1d(2),
            n.AvgPool1d(3, padding=1), n.RNN(3, 4, nonlinearity="relu"),
            n.ModuleList([n.Linear(2, 2), n.Linear(2, 2), n.ReLU(), n.Linear(2, 2)]),
            n.Dropout(0.1), n.Dropout2d(0.3, True)]


def test_modules_print_as_torch_does(torch):
    for ours, theirs in zip(_layers_to_print(minigrad), _layers_to_print(torch)):
        assert repr(ours) == repr(theirs)
    assert repr(nn.LayerNorm(8)) == repr(torch.nn.LayerNorm(8))


def test_multihead_attention_takes_an_unbatched_key_padding_mask_as_torch(torch):
    theirs = torch.nn.MultiheadAttention(8, 2).double()
    ours = nn.MultiheadAttention(8, 2, dtype=np.float64)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    q, kv = rng.standard_normal((3, 8)), rng.standard_normal((4, 8))
    padding = np.array([False, True, False, False])
    out, weights = ours(Tensor(q), Tensor(kv), Tensor(kv), key_padding_mask=padding)
    t_out, t_weights = theirs(torch.tensor(q), torch.tensor(kv), torch.tensor(kv),
                              key_padding_mask=torch.tensor(padding))
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(weights.data, t_weights.detach().numpy(), rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("per_head", [False, True])
def test_multihead_attention_float_masks_get_their_gradient_as_torch(torch, per_head):
    """A float attn_mask or key_padding_mask that requires grad (a learned additive bias, as
    in T5 or ALiBi) gets PyTorch's gradient; it was taken as an array, its gradient None."""
    theirs = torch.nn.MultiheadAttention(8, 2).double()
    ours = nn.MultiheadAttention(8, 2, dtype=np.float64)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = rng.standard_normal((3, 2, 8))
    bias = rng.standard_normal((2 * 2, 3, 3) if per_head else (3, 3))
    padding = rng.standard_normal((2, 3))
    t_bias, t_padding = (torch.tensor(a, requires_grad=True) for a in (bias, padding))
    o_bias, o_padding = (Tensor(a, requires_grad=True) for a in (bias, padding))
    t_out = theirs(*(torch.tensor(x),) * 3, attn_mask=t_bias, key_padding_mask=t_padding)[0]
    out = ours(*(Tensor(x),) * 3, attn_mask=o_bias, key_padding_mask=o_padding)[0]
    (t_out ** 2).sum().backward()
    (out ** 2).sum().backward()
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(o_bias.grad, t_bias.grad.numpy(), rtol=1e-9, atol=1e-12)
    np.testing.assert_allclose(o_padding.grad, t_padding.grad.numpy(), rtol=1e-9, atol=1e-12)


def test_multihead_attention_casts_a_float_mask_to_the_model_dtype(torch):
    """A float64 mask (numpy's default) on a float32 model: cast, the output float32 and
    PyTorch's with the mask in float32 (PyTorch raises for the float64 one)."""
    theirs = torch.nn.MultiheadAttention(8, 2)
    ours = nn.MultiheadAttention(8, 2)
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    x = rng.standard_normal((3, 2, 8)).astype(np.float32)
    bias = rng.standard_normal((3, 3))
    out = ours(*(Tensor(x),) * 3, attn_mask=bias)[0]
    t_out = theirs(*(torch.tensor(x),) * 3, attn_mask=torch.tensor(bias, dtype=torch.float32))[0]
    assert out.dtype == np.float32
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-5, atol=1e-6)
    with pytest.raises(RuntimeError):
        theirs(*(torch.tensor(x),) * 3, attn_mask=torch.tensor(bias))


def test_multihead_attention_refuses_a_key_padding_mask_of_the_other_kind_as_torch(torch):
    """A batched query of batch 1 with an unbatched (S,) mask, and an unbatched query with a
    batched (1, S) mask: AssertionError, as PyTorch's (the first was taken as the batch's)."""
    for query_shape, padding_shape in (((3, 1, 8), (3,)), ((3, 8), (1, 3))):
        x, padding = np.zeros(query_shape), np.zeros(padding_shape, bool)
        for lib, make in ((torch, torch.tensor), (minigrad, Tensor)):
            with pytest.raises(AssertionError):
                lib.nn.MultiheadAttention(8, 2)(make(x), make(x), make(x),
                                                key_padding_mask=make(padding))


def test_module_dict_deletes_and_refuses_as_torch(torch):
    for lib in (minigrad, torch):
        modules = lib.nn.ModuleDict({"a": lib.nn.ReLU(), "b": lib.nn.Tanh()})
        del modules["a"]
        assert not hasattr(modules, "a") and list(modules) == ["b"]
        with pytest.raises(KeyError):
            del modules["a"]
        with pytest.raises(KeyError):
            lib.nn.ModuleDict({"keys": lib.nn.ReLU()})  # would hide the method
        with pytest.raises(TypeError):
            lib.nn.ModuleDict({"a": 3})


def test_pixel_unshuffle_undoes_pixel_shuffle():
    x = Tensor(rng.standard_normal((2, 12, 3, 2)))
    np.testing.assert_array_equal(F.pixel_unshuffle(F.pixel_shuffle(x, 2), 2).data, x.data)


def test_rms_norm_default_eps_is_the_dtypes_epsilon_as_torch(torch):
    """Rows of zeros show the eps: x / sqrt(eps) is 0, and its gradient 1 / sqrt(eps)."""
    for dtype in (np.float32, np.float64):
        data = np.zeros((2, 3), dtype)
        x = Tensor(data, requires_grad=True)
        F.rms_norm(x, (3,)).sum().backward()
        tx = torch.tensor(data, requires_grad=True)
        torch.nn.functional.rms_norm(tx, (3,)).sum().backward()
        np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-6)


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.prelu(m.ones(3), m.ones(3)),
    lambda m, F: F.prelu(m.ones(2, 3), m.ones(2)),
    lambda m, F: F.prelu(m.ones(2, 3), m.ones(1, 3)),
    lambda m, F: F.rms_norm(m.ones(2, 3), (2,)),
    lambda m, F: F.rms_norm(m.ones(2, 3), (3,), m.ones(2)),
    lambda m, F: F.pixel_shuffle(m.ones(7, 2, 3), 2),
    lambda m, F: F.pixel_shuffle(m.ones(2, 3), 2),
    lambda m, F: F.pixel_shuffle(m.ones(1, 8, 2, 3), 0),
    lambda m, F: F.pixel_unshuffle(m.ones(1, 2, 3, 6), 2),
])
def test_new_layers_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_margin_losses_at_their_edges_follow_torch(torch):
    """The gradient passes where a clamp at 0 is met exactly; hinge_embedding_loss's targets
    other than 1 and -1 add both terms; gaussian_nll_loss raises a small variance to eps in
    value only."""
    cases = [
        (lambda F, x: F.margin_ranking_loss(x, x * 1.0, x.new_tensor([1.0, -1.0])),
         [1.0, 2.0]),
        (lambda F, x: F.hinge_embedding_loss(x, x.new_tensor([-1.0, -1.0, 0.0, 2.0])),
         [1.0, 0.3, 0.5, -0.5]),
        (lambda F, x: F.cosine_embedding_loss(x.reshape(1, 3), x.new_tensor([[1.0, 2.0, 3.0]]),
                                              x.new_tensor([-1.0])), [0.0, 0.0, 0.0]),
        (lambda F, x: F.gaussian_nll_loss(x.new_tensor([0.5, 1.0, -1.0]),
                                          x.new_tensor([0.0, 0.0, 0.0]), x),
         [1e-8, 0.0, 2.0]),
    ]
    for loss, data in cases:
        ours = Tensor(np.array(data), requires_grad=True)
        theirs = torch.tensor(data, dtype=torch.float64, requires_grad=True)
        got, expected = loss(F, ours), loss(torch.nn.functional, theirs)
        np.testing.assert_allclose(got.data, expected.detach().numpy(), rtol=1e-12)
        got.backward()
        expected.backward()
        np.testing.assert_allclose(ours.grad, theirs.grad.numpy(), rtol=1e-8)


def test_nll_loss_and_cross_entropy_take_negative_class_weights_as_torch(torch):
    """'mean' divides by the targets' total weight whatever its sign (it was NaN unless
    positive)."""
    x = np.random.default_rng(12).standard_normal((3, 4))
    target, weight = np.array([1, 1, 0]), np.array([1.0, -1.0, 2.0, 4.0])
    for name in ("nll_loss", "cross_entropy"):
        leaf, torch_leaf = Tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        out = getattr(F, name)(leaf, target, weight)
        expected = getattr(torch.nn.functional, name)(torch_leaf, torch.tensor(target),
                                                      torch.tensor(weight))
        np.testing.assert_allclose(out.item(), expected.item(), rtol=1e-12)
        out.backward()
        expected.backward()
        np.testing.assert_allclose(leaf.grad, torch_leaf.grad.numpy(), rtol=1e-12)


def test_poisson_nll_loss_full_has_a_finite_target_gradient_at_zero(torch):
    """PyTorch's is NaN there (0 log 0 in the Stirling term it then masks out); elsewhere they
    agree."""
    target = np.array([0.0, 1.0, 2.0, 3.0])
    ours = Tensor(target.copy(), requires_grad=True)
    theirs = torch.tensor(target, requires_grad=True)
    F.poisson_nll_loss(Tensor(np.full(4, 0.3)), ours, full=True).backward()
    torch.nn.functional.poisson_nll_loss(torch.full((4,), 0.3, dtype=torch.float64), theirs,
                                         full=True).backward()
    assert np.isfinite(ours.grad).all() and torch.isnan(theirs.grad[0])
    np.testing.assert_allclose(ours.grad[1:], theirs.grad.numpy()[1:], rtol=1e-12)


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.triplet_margin_loss(m.ones(2, 3), m.ones(2, 3), m.ones(3), margin=1.0),
    lambda m, F: F.triplet_margin_loss(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3), margin=0.0),
    lambda m, F: F.cosine_embedding_loss(m.ones(2, 3), m.ones(2, 4), m.ones(2)),
    lambda m, F: F.gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), m.ones(3, 3)),
    lambda m, F: F.gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), m.ones(1, 1)),
    # integer 0/1 labels for the losses of probabilities: PyTorch refuses them
    lambda m, F: F.binary_cross_entropy(m.ones(2, 3) / 2, m.ones(2, 3, dtype=m.int64)),
    lambda m, F: F.binary_cross_entropy_with_logits(m.ones(2, 3), m.ones(2, 3, dtype=m.int64)),
    lambda m, F: m.nn.BCEWithLogitsLoss()(m.ones(2, 3), m.ones(2, 3, dtype=m.bool)),
    lambda m, F: F.kl_div(m.ones(2, 3), m.ones(2, 3, dtype=m.int64), reduction="sum"),
    lambda m, F: F.gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), -m.ones(2, 3)),
    lambda m, F: F.soft_margin_loss(m.ones(2), m.ones(2), reduction="average"),
])
def test_new_losses_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("name, args", [
    ("Hardshrink", ()), ("Softshrink", (0.3,)), ("Tanhshrink", ()), ("Threshold", (0.1, 2.0)),
    ("PixelShuffle", (2,)), ("PixelUnshuffle", (2,)),
])
def test_new_activation_and_shuffle_modules_match_torch(torch, name, args):
    x = rng.uniform(-2, 2, size=(2, 4, 4, 6))
    ours, theirs = getattr(nn, name)(*args), getattr(torch.nn, name)(*args)
    _compare_modules(torch, ours, theirs, x)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("make", [
    lambda lib, dtype: lib.nn.PReLU(dtype=dtype),
    lambda lib, dtype: lib.nn.PReLU(4, 0.1, dtype=dtype),
    lambda lib, dtype: lib.nn.RMSNorm(6, dtype=dtype),
    lambda lib, dtype: lib.nn.RMSNorm([5, 6], eps=1e-3, dtype=dtype),
    lambda lib, dtype: lib.nn.RMSNorm(6, elementwise_affine=False, dtype=dtype),
])
def test_prelu_and_rms_norm_modules_match_torch(torch, make):
    ours, theirs = make(minigrad, np.float64), make(torch, torch.float64)
    assert repr(ours) == repr(theirs)
    assert {k: v.shape for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    _compare_modules(torch, ours, theirs, rng.standard_normal((3, 4, 5, 6)))


def test_bilinear_module_matches_torch_with_its_parameters(torch):
    ours = nn.Bilinear(3, 4, 5, rng=np.random.default_rng(0), dtype=np.float64)
    theirs = torch.nn.Bilinear(3, 4, 5, dtype=torch.float64)
    assert repr(ours) == repr(theirs) and repr(nn.Bilinear(2, 2, 1, bias=False)) == repr(
        torch.nn.Bilinear(2, 2, 1, bias=False))
    assert {k: v.shape for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    assert np.abs(ours.weight.data).max() <= 1 / np.sqrt(3)  # PyTorch's bound, 1/sqrt(in1)
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(ours.weight.data))
        theirs.bias.copy_(torch.tensor(ours.bias.data))
    x1, x2 = rng.standard_normal((2, 6, 3)), rng.standard_normal((2, 6, 4))
    np.testing.assert_allclose(ours(Tensor(x1), Tensor(x2)).data,
                               theirs(torch.tensor(x1), torch.tensor(x2)).detach().numpy(),
                               rtol=1e-12)


@pytest.mark.parametrize("name, kwargs, inputs", [
    ("MarginRankingLoss", dict(margin=0.2), lambda: [rng.standard_normal(6),
                                                     rng.standard_normal(6), SIGNS6]),
    ("CosineEmbeddingLoss", dict(margin=0.1, reduction="sum"),
     lambda: [rng.standard_normal((6, 3)), rng.standard_normal((6, 3)), SIGNS6]),
    ("HingeEmbeddingLoss", dict(margin=0.5), lambda: [rng.standard_normal(6), SIGNS6]),
    ("SoftMarginLoss", dict(reduction="none"), lambda: [rng.standard_normal(6), SIGNS6]),
    ("TripletMarginLoss", dict(margin=0.5, p=1.0, swap=True),
     lambda: [rng.standard_normal((4, 3)) for _ in range(3)]),
    ("GaussianNLLLoss", dict(full=True), lambda: [rng.standard_normal((4, 3)),
                                                  rng.standard_normal((4, 3)),
                                                  rng.uniform(0.5, 2, (4, 3))]),
    ("PoissonNLLLoss", dict(log_input=False, full=True),
     lambda: [rng.uniform(0.5, 2, (4, 3)), COUNTS[:4, :3]]),
    ("MultiLabelSoftMarginLoss", dict(reduction="sum"),
     lambda: [rng.standard_normal((4, 3)), (rng.uniform(size=(4, 3)) > 0.5).astype(float)]),
    ("MultiMarginLoss", dict(p=2, margin=0.5), lambda: [rng.standard_normal((4, 3)),
                                                         np.array([0, 2, 1, 1])]),
])
def test_new_loss_modules_match_torch(torch, name, kwargs, inputs):
    """The first input requires grad; the others are given as they are (targets)."""
    arrays = inputs()
    leaf, t_leaf = Tensor(arrays[0], requires_grad=True), torch.tensor(arrays[0],
                                                                        requires_grad=True)
    ours, theirs = getattr(nn, name)(**kwargs), getattr(torch.nn, name)(**kwargs)
    out = ours(leaf, *arrays[1:]) if name != "TripletMarginLoss" else ours(
        leaf, *map(Tensor, arrays[1:]))
    t_out = theirs(t_leaf, *map(torch.tensor, arrays[1:]))
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-10)
    out.sum().backward()
    t_out.sum().backward()
    np.testing.assert_allclose(leaf.grad, t_leaf.grad.numpy(), rtol=1e-10, atol=1e-12)
    assert repr(ours) == repr(theirs)


@pytest.mark.parametrize("name, shape, channels", [
    ("dropout1d", (4, 6, 5), 2), ("dropout1d", (8, 5), 1), ("dropout2d", (4, 6, 3, 5), 2),
    ("dropout2d", (4, 6, 5), 2),  # 3-D: read as (N, C, L), as PyTorch does
    ("dropout3d", (2, 4, 2, 3, 4), 2), ("dropout3d", (8, 2, 3, 4), 1),
])
def test_channel_dropout_zeroes_whole_channels_and_scales_the_rest(name, shape, channels):
    x = Tensor(rng.uniform(1, 2, shape), requires_grad=True)
    out = getattr(F, name)(x, 0.4, rng=np.random.default_rng(5))
    ratio = np.round(out.data / x.data, 12).reshape(math.prod(shape[:channels]), -1)
    assert set(np.unique(ratio)) <= {0.0, round(1 / 0.6, 12)}
    assert (ratio == ratio[:, :1]).all()  # one draw per channel
    assert 0 < (ratio[:, 0] == 0).sum() < len(ratio)
    again = getattr(F, name)(x, 0.4, rng=np.random.default_rng(5))
    np.testing.assert_array_equal(out.data, again.data)
    out.sum().backward()
    np.testing.assert_allclose(x.grad, out.data / x.data)
    assert getattr(F, name)(x, 0.4, training=False) is x


def test_channel_dropout_modules_drop_channels_while_training_only():
    x = Tensor(rng.uniform(1, 2, (2, 3, 4, 5, 6)))
    for layer, sample in ((nn.Dropout1d(0.5), x[0, 0]), (nn.Dropout2d(0.5), x[0]),
                          (nn.Dropout3d(0.5), x)):
        assert layer.eval()(sample) is sample
        dropped = layer.train()(sample).data == 0
        channels = dropped.reshape(math.prod(sample.shape[:-(layer_dims(layer))]), -1)
        assert (channels.all(1) | ~channels.any(1)).all()  # whole channels or nothing


def layer_dims(layer):
    """The spatial dims a channel dropout layer treats as one channel."""
    return {nn.Dropout1d: 1, nn.Dropout2d: 2, nn.Dropout3d: 3}[type(layer)]


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.dropout1d(m.ones(2, 3, 4, 5)),
    lambda m, F: F.dropout1d(m.ones(3)),
    lambda m, F: F.dropout2d(m.ones(2, 3), 1.5),
])
def test_channel_dropout_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.bilinear(m.ones(2, 3), m.ones(2, 4), m.ones(5, 3, 3)),
    lambda m, F: F.multi_margin_loss(m.ones(3, 4), m.tensor([1, 0, 3]), p=3),
    lambda m, F: F.multi_margin_loss(m.ones(3, 4), m.tensor([1, 0, 4])),
])
def test_bilinear_and_multi_margin_loss_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# In-place activations: inplace=True, F.relu_ and the like, Tensor.relu_ and the like
# --------------------------------------------------------------------------------------------
IN_PLACE_ACTIVATIONS = [  # (name of F's function, its arguments after the input)
    ("relu", ()), ("relu6", ()), ("elu", (0.7,)), ("celu", (1.5,)), ("selu", ()),
    ("leaky_relu", (0.2,)), ("hardtanh", (-0.5, 2.0)), ("threshold", (0.1, 2.0)),
    ("hardsigmoid", ()), ("hardswish", ()), ("silu", ()), ("mish", ()),
]


@pytest.mark.parametrize("name, args", IN_PLACE_ACTIVATIONS)
def test_inplace_true_writes_into_a_tensor_that_records_nothing_as_torch(torch, name, args):
    data = rng.uniform(-4, 7, size=(3, 5))
    ours, theirs = Tensor(data.copy()), torch.tensor(data.copy())
    out = getattr(F, name)(ours, *args, inplace=True)
    expected = getattr(torch.nn.functional, name)(theirs, *args, inplace=True)
    assert out is ours and expected is theirs
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-12, atol=1e-15)
    with minigrad.no_grad():  # a tensor requiring grad is written into too under no_grad
        leaf = Tensor(data.copy(), requires_grad=True)
        assert getattr(F, name)(leaf, *args, inplace=True) is leaf
    np.testing.assert_allclose(leaf.data, theirs.numpy(), rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("name, args", IN_PLACE_ACTIVATIONS)
def test_inplace_true_while_recording_changes_the_input_with_torchs_gradients(torch, name, args):
    """PyTorch records the op in place, and so does minigrad: the input itself is changed and
    returned, every reference to it sees the new values, and the gradient is PyTorch's; a leaf
    that requires grad is refused, as in PyTorch."""
    data = rng.uniform(-4, 7, size=(3, 5))
    upstream = rng.standard_normal((3, 5))
    grads, values = [], []
    for lib, functional in ((minigrad, F), (torch, torch.nn.functional)):
        leaf = lib.tensor(data, requires_grad=True)
        hidden = leaf * 2.0
        alias = hidden
        assert getattr(functional, name)(hidden, *args, inplace=True) is hidden
        (alias * lib.tensor(upstream)).sum().backward()
        values.append(alias.detach().numpy().copy())
        grads.append(leaf.grad.numpy().copy())
    np.testing.assert_allclose(*values, rtol=1e-12, atol=1e-15)
    # rtol: PyTorch's hardsigmoid slope is 1/6 rounded to float32 (docs/api.md)
    np.testing.assert_allclose(*grads, rtol=1e-7, atol=1e-15)
    assert_raises_like_torch(lambda m, F: getattr(F, name)(
        m.tensor(data, requires_grad=True), *args, inplace=True))


def test_inplace_true_on_a_view_while_recording_returns_a_new_tensor():
    """The documented difference: a view's change would not reach the graph of the tensor it
    views, so the view stays as it was and the result comes back as a new tensor."""
    leaf = Tensor(rng.standard_normal((2, 3)), requires_grad=True)
    hidden = leaf * 1.0
    row = hidden[0]
    out = F.relu(row, inplace=True)
    assert out is not row and np.array_equal(row.data, hidden.data[0])
    np.testing.assert_array_equal(out.data, np.maximum(hidden.data[0], 0))


@pytest.mark.parametrize("name, args", [  # those PyTorch has with a trailing underscore
    (name, args) for name, args in IN_PLACE_ACTIVATIONS
    if name in ("relu", "elu", "celu", "selu", "leaky_relu", "hardtanh", "threshold")])
def test_underscore_functions_write_into_their_input_as_torch(torch, name, args):
    data = rng.uniform(-4, 7, size=(3, 5))
    ours, theirs = Tensor(data.copy()), torch.tensor(data.copy())
    assert getattr(F, name + "_")(ours, *args) is ours
    getattr(torch.nn.functional, name + "_")(theirs, *args)
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-12, atol=1e-15)
    # as add_: refused while recording for a leaf requiring grad, as PyTorch (RuntimeError);
    # recorded for a tensor in a graph, with PyTorch's gradient
    assert_raises_like_torch(lambda m, F: getattr(F, name + "_")(
        m.ones(3, requires_grad=True), *args))
    grads = []
    for lib, functional in ((minigrad, F), (torch, torch.nn.functional)):
        leaf = lib.tensor(data, requires_grad=True)
        hidden = leaf * 2.0
        assert getattr(functional, name + "_")(hidden, *args) is hidden
        (hidden * lib.tensor(data)).sum().backward()
        grads.append(leaf.grad.numpy().copy())
    np.testing.assert_allclose(*grads, rtol=1e-12, atol=1e-15)


@pytest.mark.parametrize("method, args", [
    ("relu_", ()), ("sigmoid_", ()), ("tanh_", ()), ("clamp_", (-0.5, 1.0)),
    ("clip_", (None, 0.3)), ("masked_fill_", ("mask", 2.5)),
])
def test_in_place_methods_write_into_the_tensor_as_torch(torch, method, args):
    data = rng.standard_normal((3, 4))
    mask = rng.standard_normal(4) > 0
    ours, theirs = Tensor(data.copy()), torch.tensor(data.copy())
    our_args = [Tensor(mask) if a == "mask" else a for a in args]
    their_args = [torch.tensor(mask) if a == "mask" else a for a in args]
    assert getattr(ours, method)(*our_args) is ours
    getattr(theirs, method)(*their_args)
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-15, atol=0)
    leaf = Tensor(data.copy(), requires_grad=True)
    with minigrad.no_grad():
        assert getattr(leaf, method)(*our_args) is leaf  # allowed under no_grad, as add_
    np.testing.assert_allclose(leaf.data, theirs.numpy(), rtol=1e-15, atol=0)
    assert_raises_like_torch(lambda m, F: getattr(m.ones(3, 4, requires_grad=True), method)(
        *[m.tensor(mask) if a == "mask" else a for a in args]))


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.tensor([1, -2]).sigmoid_(),  # a float result does not fit an integer tensor
    lambda m, F: m.tensor([1, -2]).tanh_(),
    lambda m, F: m.tensor([True]).relu_(),
    lambda m, F: m.ones(2).masked_fill_(m.ones(3, 2, dtype=m.bool), 1.0),
    lambda m, F: F.relu_(m.tensor([True])),
    lambda m, F: m.tensor([1, 4]).sqrt_(),  # the in-place variants: a float result, int tensor
    lambda m, F: m.tensor([1, 4]).div_(m.tensor([2, 2])),
    lambda m, F: m.tensor([1, 4]).pow_(0.5),
    lambda m, F: m.tensor([True, False]).add_(1),
    lambda m, F: m.ones(2).float_power_(2),  # float64 only
    lambda m, F: m.ones(2, dtype=m.float64).bitwise_and_(m.ones(2, dtype=m.float64)),
    lambda m, F: m.ones(3).hypot_(m.ones(2, 3)),  # the result's shape is not the tensor's
    lambda m, F: m.ones(3).t_().cumsum_(1),
    lambda m, F: m.ones(3).cumsum_(0, dtype=m.float64),  # the result is written into x
    lambda m, F: m.ones(3).cumprod_(0, dtype=m.int64),
])
def test_in_place_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# In-place variants of the methods: x.exp_() and the like (minigrad/tensor.py's _IN_PLACE_OF)
# --------------------------------------------------------------------------------------------
_SHAPE = (3, 4)
_Y = rng.standard_normal(_SHAPE)
_POSITIVE = rng.uniform(0.5, 2.0, _SHAPE)
_WHOLE = rng.integers(0, 3, _SHAPE).astype(np.float64)  # comparisons with ties
_INTEGERS = rng.integers(1, 30, _SHAPE)
_NONFINITE = np.where(rng.random(_SHAPE) < 0.5, [[np.nan, np.inf, -np.inf, 0.5]], _Y)
# (method, its arguments, its keyword arguments, x's entries: an array, or "uniform" in
# (0.1, 0.9), "normal", "above1" in (1.1, 3), "integers"); arrays become the library's tensors
IN_PLACE_VARIANTS = [
    *[(name, (), {}, "uniform") for name in (
        "abs", "absolute", "acos", "arccos", "arcsin", "arcsinh", "arctan", "arctanh", "asin",
        "asinh", "atan", "atanh", "cos", "cosh", "deg2rad", "digamma", "erf", "erfc", "erfinv",
        "exp", "exp2", "expm1", "frac", "i0", "lgamma", "log", "log10", "log1p", "log2",
        "logit", "neg", "negative", "rad2deg", "reciprocal", "rsqrt", "sin", "sinc", "sinh",
        "sqrt", "square", "tan", "tril")],
    *[(name, (), {}, "normal") for name in ("ceil", "floor", "round", "trunc", "sign", "sgn")],
    *[(name, (), {}, "above1") for name in ("acosh", "arccosh")],
    ("round", (), {"decimals": 1}, "normal"), ("triu", (1,), {}, "normal"),
    ("addcdiv", (_Y, _POSITIVE), {"value": 0.5}, "uniform"),
    ("addcmul", (_Y, _POSITIVE), {"value": -2.0}, "uniform"),
    ("addmm", (_Y[:, :2], _Y[:2]), {"beta": 0.5, "alpha": 2.0}, "normal"),
    ("atan2", (_Y,), {}, "normal"), ("arctan2", (_Y,), {}, "normal"),
    ("clamp_max", (0.5,), {}, "uniform"), ("clamp_min", (_Y,), {}, "normal"),
    ("copysign", (_Y,), {}, "uniform"), ("cumprod", (1,), {}, "normal"),
    ("cumsum", (0,), {}, "normal"), ("divide", (_POSITIVE,), {"rounding_mode": None}, "normal"),
    ("true_divide", (_POSITIVE,), {}, "normal"), ("floor_divide", (_POSITIVE,), {}, "normal"),
    ("fmod", (_POSITIVE,), {}, "normal"), ("remainder", (_POSITIVE,), {}, "normal"),
    ("multiply", (_Y,), {}, "normal"), ("subtract", (_Y,), {"alpha": 2.0}, "normal"),
    *[(name, (_WHOLE,), {}, _WHOLE[::-1].copy()) for name in (
        "eq", "ne", "lt", "le", "gt", "ge", "greater", "greater_equal", "less", "less_equal",
        "not_equal", "logical_and", "logical_or", "logical_xor")],
    ("lt", (1.0,), {}, _WHOLE), ("logical_not", (), {}, _WHOLE),
    ("float_power", (_Y,), {}, "uniform"), ("float_power", (2,), {}, "normal"),
    ("heaviside", (_Y,), {}, _WHOLE - 1), ("hypot", (_Y,), {}, "normal"),
    ("index_reduce", (0, np.array([0, 2, 0]), _POSITIVE, "prod"), {}, "normal"),
    ("put", (np.array([1, 5, 1]), np.array([2.0, 3.0, 4.0])), {"accumulate": True}, "normal"),
    ("lerp", (_Y, 0.3), {}, "normal"), ("mvlgamma", (2,), {}, "above1"),
    ("nan_to_num", (), {"posinf": 9.0, "neginf": -9.0}, _NONFINITE),
    ("nextafter", (_Y,), {}, "normal"), ("polygamma", (1,), {}, "uniform"),
    ("pow", (_Y,), {}, "uniform"), ("pow", (2,), {}, "normal"),
    ("renorm", (2, 0, 1.0), {}, "normal"), ("xlogy", (_POSITIVE,), {}, "uniform"),
    ("igamma", (_POSITIVE,), {}, "uniform"), ("igammac", (_POSITIVE,), {}, "uniform"),
    ("addbmm", (rng.standard_normal((2, 3, 5)), rng.standard_normal((2, 5, 4))),
     {"beta": 0.5, "alpha": 2.0}, "normal"),
    ("baddbmm", (rng.standard_normal((3, 3, 5)), rng.standard_normal((3, 5, 4))),
     {"alpha": -1.5}, rng.standard_normal((3, 3, 4))),
    ("addmv", (rng.standard_normal((3, 4)), rng.standard_normal(4)), {"beta": 2.0},
     rng.standard_normal(3)),
    ("addr", (rng.standard_normal(3), rng.standard_normal(4)), {"alpha": 0.5}, "normal"),
    ("fix", (), {}, "normal"), ("ldexp", (_INTEGERS % 4,), {}, "normal"),
    *[(name, (_INTEGERS,), {}, "integers") for name in (
        "bitwise_and", "bitwise_or", "bitwise_xor", "gcd", "lcm")],
    ("bitwise_left_shift", (_INTEGERS % 5,), {}, "integers"),
    ("bitwise_right_shift", (_INTEGERS % 5,), {}, "integers"),
    ("bitwise_not", (), {}, "integers"),
]
# gradient 0 in minigrad, as a step function's, where PyTorch has none to compare with: its
# heaviside_ and floor_divide_ raise in backward, and its logical_and_ and the like are not
# recorded, the tensor keeping its old graph (docs/api.md)
_ZERO_GRADIENT = {"heaviside", "floor_divide", "logical_and", "logical_or", "logical_xor",
                  "logical_not"}
# PyTorch's in-place variant has no derivative, its method has
_TORCH_OUT_OF_PLACE_GRADIENT = {"acosh", "arccosh", "asinh", "arcsinh", "atanh", "arctanh"}


def _entries(kind):
    if isinstance(kind, np.ndarray):
        return kind.copy()
    return {"uniform": lambda: rng.uniform(0.1, 0.9, _SHAPE), "normal": lambda: _Y * 3,
            "above1": lambda: rng.uniform(1.1, 3.0, _SHAPE),
            "integers": lambda: rng.integers(-40, 40, _SHAPE)}[kind]()


def _call_in_place(lib, x, name, args, kwargs):
    """x.name_(*args, **kwargs) with the arrays among the arguments as lib's tensors, floats in
    x's dtype (heaviside, index_reduce and put take no other)."""
    def converted(value):
        if not isinstance(value, np.ndarray):
            return value
        return lib.tensor(value).to(x.dtype) if value.dtype.kind == "f" else lib.tensor(value)
    return getattr(x, name + "_")(*map(converted, args),
                                  **{key: converted(value) for key, value in kwargs.items()})


def _case_id(case):
    name, args, kwargs, _ = case
    return "-".join([name, *(["args"] if args else []), *kwargs])


@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta:UserWarning")
@pytest.mark.parametrize("name, args, kwargs, kind", IN_PLACE_VARIANTS,
                         ids=map(_case_id, IN_PLACE_VARIANTS))
def test_in_place_variants_write_into_the_tensor_as_torch(torch, name, args, kwargs, kind):
    data = _entries(kind)
    written = []
    for lib in (minigrad, torch):
        x = lib.tensor(data.copy())
        assert _call_in_place(lib, x, name, args, kwargs) is x
        written.append(x.numpy())
    assert written[0].dtype == written[1].dtype
    np.testing.assert_allclose(*written, rtol=1e-8, atol=1e-14)  # polygamma's series: 1e-9 apart
    if data.dtype.kind != "f":
        return
    if name in ("igamma", "igammac"):  # no derivative with respect to x itself, in either
        for lib in (minigrad, torch):
            hidden = lib.tensor(data, requires_grad=True) * 1.0
            _call_in_place(lib, hidden, name, args, kwargs)
            with pytest.raises(NotImplementedError, match="derivative"):
                hidden.sum().backward()
        return
    # recorded in a graph: PyTorch's values and gradients; float32 stays float32
    weights = rng.standard_normal(data.shape)
    grads = []
    for lib in (minigrad, torch):
        leaf = lib.tensor(data, requires_grad=True)
        hidden = leaf * 1.0
        if lib is torch and name in _TORCH_OUT_OF_PLACE_GRADIENT:
            hidden = getattr(hidden, name)(*args)
        elif lib is torch and name in _ZERO_GRADIENT:
            grads.append(np.zeros(data.shape))
            continue
        else:
            assert _call_in_place(lib, hidden, name, args, kwargs) is hidden
        assert hidden.requires_grad
        np.testing.assert_allclose(hidden.detach().numpy(), written[1], rtol=1e-8, atol=1e-14)
        (hidden * lib.tensor(weights)).sum().backward()
        grads.append(leaf.grad.numpy(force=True))  # force: PyTorch's sgn_ gives a ZeroTensor
    np.testing.assert_allclose(*grads, rtol=1e-8, atol=1e-12)  # digamma's series: 1e-9 apart
    if name != "float_power":  # which writes float64 only (its own test)
        leaf = Tensor(data.astype(np.float32), requires_grad=True)
        hidden = leaf * 1.0
        _call_in_place(minigrad, hidden, name, args, kwargs)
        assert hidden.dtype == np.float32
        (hidden * 2.0).sum().backward()
        assert leaf.grad.dtype == np.float32
    # refused for a leaf that requires grad while recording, as PyTorch's (which writes into
    # one with logical_and_ and the like, not recorded: docs/api.md)
    if name.startswith("logical"):
        with pytest.raises(RuntimeError, match="leaf tensor that requires grad"):
            _call_in_place(minigrad, Tensor(data, requires_grad=True), name, args, kwargs)
    else:
        assert_raises_like_torch(lambda m, F: _call_in_place(
            m, m.tensor(data, requires_grad=True), name, args, kwargs))


# torch.exp_(x) and the like: the top-level spellings of in-place methods (minigrad/pointwise.py)
TOP_LEVEL_IN_PLACE = {  # name -> (x's entries, the arguments after x)
    "addmv": (rng.standard_normal(3), (rng.standard_normal((3, 4)), rng.standard_normal(4))),
    "clamp": ("normal", (-0.5, 0.5)), "clamp_max": ("normal", (0.5,)),
    "clamp_min": ("normal", (-0.5,)), "clip": ("normal", (None, 0.3)), "fill": ("normal", (2.5,)),
    "gcd": ("integers", (_INTEGERS,)), "lcm": ("integers", (_INTEGERS,)),
    "index_put": ("normal", ((np.array([0, 2]),), np.array([7.0]))),
    "ldexp": ("normal", (_INTEGERS % 4,)), "xlogy": ("uniform", (_POSITIVE,)),
    "nan_to_num": (_NONFINITE, ()), "acosh": ("above1", ()), "arccosh": ("above1", ()),
    "celu": ("normal", (0.7,)), "threshold": ("normal", (0.1, -3.0)),
}


@pytest.mark.parametrize("name", [*minigrad.pointwise._IN_PLACE_FUNCTIONS, "celu", "selu",
                                  "threshold"])
def test_top_level_in_place_functions_change_their_input_as_torch(torch, name):
    kind, args = TOP_LEVEL_IN_PLACE.get(name, ("uniform", ()))
    data = _entries(kind)
    written = []
    for lib in (minigrad, torch):
        x = lib.tensor(data.copy())
        converted = [tuple(lib.tensor(v) for v in a) if isinstance(a, tuple)
                     else lib.tensor(a) if isinstance(a, np.ndarray) else a for a in args]
        assert getattr(lib, name + "_")(x, *converted) is x
        written.append(x.numpy())
    assert written[0].dtype == written[1].dtype
    np.testing.assert_allclose(*written, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("shape, wrap", [((3, 3), False), ((7, 3), False), ((7, 3), True),
                                         ((3, 7), True), ((3, 3, 3), False), ((0, 0), False)])
def test_fill_diagonal_is_torchs_in_place_and_in_the_graph(torch, shape, wrap):
    data = rng.standard_normal(shape)
    results = []
    for lib in (minigrad, torch):
        leaf = lib.tensor(data, requires_grad=True)
        hidden = leaf * 2.0
        assert hidden.fill_diagonal_(-5.0, wrap=wrap) is hidden
        (hidden * lib.tensor(data)).sum().backward()
        results.append((hidden.detach().numpy(), leaf.grad.numpy()))
    for ours, theirs in zip(*results):
        np.testing.assert_array_equal(ours, theirs)


@pytest.mark.parametrize("shape", [(3,), (2, 3, 3)])
def test_fill_diagonal_refuses_what_torch_refuses(shape):
    assert_raises_like_torch(lambda lib, F: lib.zeros(*shape).fill_diagonal_(1.0))


def test_tensor_methods_cov_corrcoef_prelu_hardshrink_and_unsafe_splits_are_torchs(torch):
    data = rng.standard_normal((3, 6))
    weights = np.array([0.25])
    calls = [lambda x, lib: x.cov(correction=0), lambda x, lib: x.corrcoef(),
             lambda x, lib: x.prelu(lib.tensor(weights)), lambda x, lib: x.hardshrink(0.7),
             lambda x, lib: x.unsafe_chunk(2, 1)[1], lambda x, lib: x.unsafe_split(2)[1],
             lambda x, lib: x.unsafe_split_with_sizes([1, 5], 1)[1]]
    for call in calls:
        ours = call(minigrad.tensor(data), minigrad)
        theirs = call(torch.tensor(data), torch)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)


def test_apply_and_map_call_a_python_function_per_entry_as_torch(torch):
    data = np.array([[1.5, -2.0], [0.25, 4.0]])
    results = []
    for lib in (minigrad, torch):
        x = lib.tensor(data.copy())
        assert x.apply_(lambda v: v * v - 1) is x
        assert x.map_(lib.tensor(np.array([10.0, 20.0])), lambda a, b: a + b) is x
        integers = lib.tensor([1, 2, 5]).apply_(lambda v: v / 2)  # cast back to int64
        results.append((x.numpy(), integers.numpy()))
    for ours, theirs in zip(*results):
        assert ours.dtype == theirs.dtype
        np.testing.assert_array_equal(ours, theirs)
    for make in (lambda lib: lib.ones(2, requires_grad=True),
                 lambda lib: lib.ones(2, requires_grad=True) * 1):
        assert_raises_like_torch(lambda lib, F: make(lib).apply_(float))


@pytest.mark.parametrize("sizes", [(2, 2), ((3, 2),), (6,), (0,)])
def test_resize_keeps_the_row_major_entries_as_torch(torch, sizes):
    data = np.arange(6.0).reshape(2, 3)
    ours, theirs = minigrad.tensor(data).resize_(*sizes), torch.tensor(data).resize_(*sizes)
    assert ours.shape == tuple(theirs.shape)
    np.testing.assert_array_equal(ours.numpy(), theirs.numpy())
    assert minigrad.tensor(data).resize_as_(minigrad.zeros(3, 2)).shape == (3, 2)
    assert_raises_like_torch(lambda lib, F: lib.ones(2, requires_grad=True).resize_(3))


def test_range_includes_its_end_and_warns_as_torch(torch):
    for args, kwargs in [((1, 4), {}), ((0, 1, 0.3), {}), ((5, 1, -2), {}), ((0, 1, 0.1), {}),
                         ((1.5, 3), {}), ((1, 4), {"dtype": "int64"})]:
        with pytest.warns(UserWarning, match="deprecated"):
            ours = minigrad.range(*args, **{k: getattr(minigrad, v) for k, v in kwargs.items()})
        with pytest.warns(UserWarning):
            theirs = torch.range(*args, **{k: getattr(torch, v) for k, v in kwargs.items()})
        assert str(theirs.dtype) == f"torch.{ours.dtype}"
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6)
    with pytest.warns(UserWarning):
        assert_raises_like_torch(lambda lib, F: lib.range(1, 0))


def test_top_level_dropouts_and_feature_dropout_as_torch(torch):
    """torch.dropout_(x, p, train) writes into x; torch.feature_dropout drops whole channels
    of (N, C, *), and refuses fewer than 2 dims."""
    x = minigrad.ones(2, 3)
    assert minigrad.dropout_(x, 1.0, True) is x and not x.numpy().any()
    kept = minigrad.feature_dropout(minigrad.ones(40, 3, 4), 0.5, True).numpy()
    assert set(np.unique(kept)) <= {0.0, 2.0} and (kept == kept[..., :1]).all()
    assert 0 < (kept == 0).mean() < 1
    for name in ("dropout_", "alpha_dropout_", "feature_alpha_dropout_", "feature_dropout_"):
        y = minigrad.ones(2, 3)
        assert getattr(minigrad, name)(y, 0.0, True) is y
    assert_raises_like_torch(lambda lib, F: lib.feature_dropout(lib.ones(3), 0.5, True))


def test_every_in_place_variant_is_tested_and_names_its_method():
    from minigrad.tensor import _IN_PLACE_OF, _SHAPE_IN_PLACE_OF
    assert {case[0] for case in IN_PLACE_VARIANTS} == set(_IN_PLACE_OF)
    assert {case[0] for case in SHAPE_IN_PLACE} == set(_SHAPE_IN_PLACE_OF)
    for name in _IN_PLACE_OF + _SHAPE_IN_PLACE_OF:
        method = getattr(Tensor, name + "_")
        assert method.__name__ == name + "_" and f"x.{name}(...)" in method.__doc__
        assert inspect.signature(method) == inspect.signature(getattr(Tensor, name))


SHAPE_IN_PLACE = [  # (method, arguments, x's shape)
    ("squeeze", (), (3, 1, 4)), ("squeeze", (1,), (3, 1, 4)), ("squeeze", ((0, 1),), (3, 1, 4)),
    ("unsqueeze", (-1,), (3, 1, 4)), ("t", (), (3, 4)), ("transpose", (0, 2), (3, 1, 4)),
    ("swapaxes", (2, 0), (3, 1, 4)), ("swapdims", (1, 2), (3, 1, 4)),
]


@pytest.mark.parametrize("name, args, shape", SHAPE_IN_PLACE)
def test_shape_methods_in_place_keep_sharing_memory_as_torch(torch, name, args, shape):
    data = rng.standard_normal(shape)
    seen = []
    for lib in (minigrad, torch):
        x = lib.tensor(data.copy())
        view = x.reshape(-1)  # made before: still shows x's memory after the change
        assert getattr(x, name + "_")(*args) is x
        with lib.no_grad():
            x.mul_(2.0)
        assert view._version == x._version == 2
        seen.append((tuple(x.shape), x.numpy().copy(), view.numpy().copy()))
    (ours, our_values, our_view), (theirs, their_values, their_view) = seen
    assert ours == theirs
    np.testing.assert_array_equal(our_values, their_values)
    np.testing.assert_array_equal(our_view, their_view)


@pytest.mark.parametrize("name, args, shape", SHAPE_IN_PLACE)
def test_shape_methods_in_place_record_as_torch(torch, name, args, shape):
    """Recorded, the tensor takes the new shape and graph; an op that used it before the
    change gets the gradient of the shape it saw."""
    data = rng.standard_normal(shape)
    grads = []
    for lib in (minigrad, torch):
        leaf = lib.tensor(data, requires_grad=True)
        hidden = leaf * 2.0
        before = hidden * 3.0
        assert getattr(hidden, name + "_")(*args) is hidden
        weights = lib.arange(hidden.numel(), dtype=lib.float64).reshape(hidden.shape)
        ((hidden * weights).sum() + (before * before).sum()).backward()
        grads.append(leaf.grad.numpy())
    np.testing.assert_allclose(*grads, rtol=1e-14)
    leaf = Tensor(data.astype(np.float32), requires_grad=True)
    hidden = leaf * 2.0
    getattr(hidden, name + "_")(*args)
    hidden.sum().backward()
    assert hidden.dtype == leaf.grad.dtype == np.float32


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.ones(3, 1, requires_grad=True).squeeze_(),  # a leaf that requires grad
    lambda m, F: m.ones(2, 3, 4).t_(),
    lambda m, F: m.ones(2, 3).transpose_(0, 2),
    lambda m, F: m.ones(2, 3).unsqueeze_(3),
])
def test_shape_methods_in_place_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_shape_methods_in_place_refuse_a_view_while_recording():
    """docs/api.md: recording gives the tensor an array of its own, which would silently stop
    showing the memory of the tensor it views."""
    hidden = Tensor(np.ones((2, 3)), requires_grad=True) * 2.0
    view = hidden[1:]
    with pytest.raises(RuntimeError, match="view"):
        view.unsqueeze_(0)
    with minigrad.no_grad():
        assert view.unsqueeze_(0).shape == (1, 1, 3)


def test_an_in_place_activation_after_use_is_caught_by_backward():
    """The version check of every in-place change: sin saved y's value, relu_ changed it."""
    x = Tensor(rng.standard_normal(4), requires_grad=True)
    y = x * 1.0
    out = y.sin()
    with minigrad.no_grad():
        F.relu(y, inplace=True)
    with pytest.raises(RuntimeError, match="changed by an in-place operation"):
        out.sum().backward()


@pytest.mark.parametrize("name, args", [
    ("ReLU", ()), ("ReLU6", ()), ("SELU", ()), ("Mish", ()), ("SiLU", ()), ("Hardsigmoid", ()),
    ("Hardswish", ()), ("LeakyReLU", (0.2,)), ("ELU", (0.7,)), ("CELU", (1.5,)),
    ("Hardtanh", (-0.5, 2.0)), ("Threshold", (0.1, 2.0)),
])
def test_activation_modules_take_inplace_as_torch(torch, name, args):
    data = rng.uniform(-4, 7, size=(2, 3, 4))
    for inplace in (False, True):
        ours = getattr(nn, name)(*args, inplace=inplace)
        theirs = getattr(torch.nn, name)(*args, inplace=inplace)
        assert repr(ours) == repr(theirs) and ours.inplace == theirs.inplace
        leaf, their_leaf = Tensor(data, requires_grad=True), torch.tensor(data,
                                                                          requires_grad=True)
        out, expected = ours(leaf * 2.0), theirs(their_leaf * 2.0)  # recording: a new tensor
        np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-15)
        out.sum().backward()
        expected.sum().backward()
        np.testing.assert_allclose(leaf.grad, their_leaf.grad.numpy(), rtol=1e-7, atol=1e-15)
        x = Tensor(data.copy())
        assert (ours(x) is x) == inplace
        np.testing.assert_allclose(x.data, theirs(torch.tensor(data.copy())).numpy()
                                   if inplace else data, rtol=1e-12, atol=1e-15)


# --------------------------------------------------------------------------------------------
# PyTorch's positional arguments: a call written for PyTorch means the same here
# --------------------------------------------------------------------------------------------
DROPOUT_SHAPES = {"dropout": (3, 4), "dropout1d": (2, 3, 4), "dropout2d": (2, 3, 4, 2),
                  "dropout3d": (2, 3, 2, 2, 2)}


@pytest.mark.parametrize("name", DROPOUT_SHAPES)
def test_dropout_takes_inplace_fourth_as_torch(torch, name):
    """F.dropout(input, p, training, inplace); p = 1 and training=False give a result that does
    not depend on the mask, so PyTorch's can be compared."""
    data = rng.uniform(1, 2, size=DROPOUT_SHAPES[name])
    for p, training in ((1.0, True), (0.5, False)):
        ours, theirs = Tensor(data.copy()), torch.tensor(data.copy())
        out = getattr(F, name)(ours, p, training, True)
        expected = getattr(torch.nn.functional, name)(theirs, p, training, True)
        assert out is ours and expected is theirs
        np.testing.assert_array_equal(ours.data, theirs.numpy())


@pytest.mark.parametrize("name", DROPOUT_SHAPES)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_dropout_inplace_writes_the_mask_it_would_return_recorded_while_recording(name, dtype):
    data = rng.uniform(1, 2, size=DROPOUT_SHAPES[name]).astype(dtype)
    fresh = getattr(F, name)(Tensor(data), 0.5, rng=np.random.default_rng(7))
    ours = Tensor(data.copy())
    assert getattr(F, name)(ours, 0.5, True, True, rng=np.random.default_rng(7)) is ours
    assert ours.dtype == dtype
    np.testing.assert_array_equal(ours.data, fresh.data)
    # recording a graph: the input changed in place and recorded, as the activations' inplace
    leaf = Tensor(data, requires_grad=True)
    hidden = leaf * 1.0
    out = getattr(F, name)(hidden, 0.5, True, True, rng=np.random.default_rng(7))
    assert out is hidden
    np.testing.assert_array_equal(out.data, fresh.data)
    out.sum().backward()
    np.testing.assert_allclose(leaf.grad, fresh.data / data, rtol=1e-6)  # the scaled mask


@pytest.mark.parametrize("name", ["Dropout", "Dropout1d", "Dropout2d", "Dropout3d"])
def test_dropout_modules_take_inplace_second_as_torch(torch, name):
    ours, theirs = getattr(nn, name)(1.0, True), getattr(torch.nn, name)(1.0, True)
    assert repr(ours) == repr(theirs) and ours.inplace and theirs.inplace
    data = rng.uniform(1, 2, size=DROPOUT_SHAPES[name.lower()])
    x, their_x = Tensor(data.copy()), torch.tensor(data.copy())
    assert ours(x) is x and theirs(their_x) is their_x
    np.testing.assert_array_equal(x.data, their_x.numpy())
    assert not getattr(nn, name)(0.5).inplace
    with pytest.raises(TypeError):  # minigrad's rng is keyword-only: never where inplace was
        getattr(nn, name)(0.5, False, np.random.default_rng(0))


TORCH_POSITIONAL_LAYERS = [  # every argument by position, up to the last minigrad takes
    lambda n: n.Linear(3, 2, False),
    lambda n: n.Bilinear(3, 2, 4, False),
    lambda n: n.Conv1d(2, 4, 3, 2, 1, 1, 2, False, "reflect"),
    lambda n: n.Conv2d(2, 4, 3, 2, 1, 2, 1, True, "circular"),
    lambda n: n.Conv3d(2, 4, 2, 1, 0, 1, 2, False, "replicate"),
    lambda n: n.ConvTranspose1d(2, 4, 3, 2, 1, 1, 2, False, 1, "zeros"),
    lambda n: n.ConvTranspose2d(2, 4, 3, 2, 1, 1, 1, True, 2, "zeros"),
    lambda n: n.ConvTranspose3d(2, 4, 2, 2, 0, 1, 2, False, 1, "zeros"),
    lambda n: n.Embedding(10, 3, 0, 1.5, 1.0),
    lambda n: n.RNN(3, 4, 2, "relu", False, True, 0.5, True),
    lambda n: n.LSTM(3, 4, 2, False, True, 0.5, True, 2),
    lambda n: n.GRU(3, 4, 2, True, True, 0.0, True),
    lambda n: n.RNNCell(3, 4, False, "relu"),
    lambda n: n.LSTMCell(3, 4, False),
    lambda n: n.GRUCell(3, 4, False),
    lambda n: n.Dropout(0.2, True),
    lambda n: n.BatchNorm1d(3, 1e-3, 0.2, False, False),
    lambda n: n.InstanceNorm2d(3, 1e-3, 0.2, True, True),
    lambda n: n.GroupNorm(2, 4, 1e-3, False),
    lambda n: n.LayerNorm(4, 1e-3, True, False),
    lambda n: n.RMSNorm(4, 1e-3, False),
    lambda n: n.PReLU(3, 0.1),
]


@pytest.mark.parametrize("make", TORCH_POSITIONAL_LAYERS)
def test_layers_take_torchs_positional_arguments(torch, make):
    ours, theirs = make(nn), make(torch.nn)
    assert repr(ours) == repr(theirs)
    assert {name: p.shape for name, p in ours.named_parameters()} == \
        {name: tuple(p.shape) for name, p in theirs.named_parameters()}


def test_embedding_takes_max_norm_and_norm_type_by_position_as_torch(torch):
    """nn.Embedding(num, dim, padding_idx, max_norm, norm_type): rows longer than max_norm (in
    the 1-norm here) are scaled down to it when looked up."""
    theirs = torch.nn.Embedding(6, 3, None, 1.5, 1.0).double()
    ours = nn.Embedding(6, 3, None, 1.5, 1.0, dtype=np.float64)
    rows = rng.uniform(-2, 2, (6, 3))  # 1-norms up to 6: some above max_norm, whatever the seed
    rows[1] = [2.0, -1.0, 0.5]
    with torch.no_grad():
        theirs.weight.copy_(torch.tensor(rows))
    ours.weight.data[...] = rows
    indices = np.array([[1, 4], [0, 1]])
    expected = theirs(torch.tensor(indices))
    np.testing.assert_allclose(ours(Tensor(indices)).data, expected.detach().numpy(),
                               rtol=1e-12)
    np.testing.assert_allclose(np.abs(ours.weight.data[[0, 1, 4]]).sum(1).max(), 1.5)


def test_layers_forward_arguments_are_named_and_ordered_as_torchs(torch):
    """layer(input=x) as in PyTorch (and RMSNorm's x, as its). Containers' forward, and the
    recurrent base classes' (their subclasses' shared one), is not PyTorch's abstract one."""
    checked = 0
    for name in dir(nn):
        ours, theirs = getattr(nn, name), getattr(torch.nn, name, None)
        if (name.startswith("_") or theirs is None or name in (
                "Module", "ModuleDict", "ModuleList", "ParameterList", "ParameterDict",
                "RNNBase", "RNNCellBase") or not isinstance(ours, type)
                or not issubclass(ours, nn.Module)):
            continue
        assert list(inspect.signature(ours.forward).parameters) == \
            list(inspect.signature(theirs.forward).parameters), name
        checked += 1
    assert checked > 100
    x = rng.standard_normal((2, 3))
    layer = torch.nn.Linear(3, 2).double()
    ours = nn.Linear(3, 2, dtype=np.float64)
    ours.load_state_dict({k: v.numpy() for k, v in layer.state_dict().items()})
    np.testing.assert_allclose(ours(input=Tensor(x)).data,
                               layer(input=torch.tensor(x)).detach().numpy(), rtol=1e-12)


def _positional_arrays():
    """Shared float64 inputs for the PyTorch-style calls below."""
    draw = np.random.default_rng(5).standard_normal
    return {"x": draw((2, 3, 6, 6)), "w": draw((4, 3, 3, 3)), "b": draw(4), "v": draw((2, 5)),
            "u": draw((2, 5)), "s": draw((2, 4, 5)), "g": draw(5), "i": np.array([[0, 3], [2, 0]]),
            "e": draw((4, 5)), "y": np.array([1, 0]), "seq": draw((2, 2, 3, 4)),
            "wt": draw((3, 2, 3, 3)), "n": draw((2, 5)), "mean": np.zeros(4), "var": np.ones(4)}


TORCH_STYLE_F_CALLS = [  # every argument by position, as code written for PyTorch passes them
    lambda F, a: F.conv2d(a["x"], a["w"], a["b"], 2, 1, 1, 1),
    lambda F, a: F.conv_transpose2d(a["x"], a["wt"], None, 2, 1, 1, 1, 2),
    lambda F, a: F.max_pool2d(a["x"], 3, 2, 1, 2, True, False),
    lambda F, a: F.avg_pool2d(a["x"], 3, 2, 1, True, False, 5),
    lambda F, a: F.adaptive_max_pool2d(a["x"], (2, 3), False),
    lambda F, a: F.interpolate(a["x"], None, 1.5, "bilinear", True),
    lambda F, a: F.pad(a["x"], (1, 2, 0, 1), "constant", 0.5),
    lambda F, a: F.unfold(a["x"], 2, 2, 1, 2),
    lambda F, a: F.layer_norm(a["v"], (5,), a["g"], a["g"], 1e-3),
    lambda F, a: F.group_norm(a["s"], 2, a["g"][:4], a["g"][:4], 1e-3),
    lambda F, a: F.batch_norm(a["s"], a["mean"], a["var"], a["g"][:4], a["g"][1:], True, 0.2,
                              1e-3),
    lambda F, a: F.normalize(a["v"], 1.0, 0, 1e-6),
    lambda F, a: F.embedding(a["i"], a["e"], 0, 1.0, 1.0),
    lambda F, a: F.linear(a["v"], a["e"], a["g"][:4]),
    lambda F, a: F.softmax(a["v"], 0),
    lambda F, a: F.log_softmax(a["v"], 0),
    lambda F, a: F.leaky_relu(a["v"], 0.1, False),
    lambda F, a: F.elu(a["v"], 0.5, False),
    lambda F, a: F.hardtanh(a["v"], -0.5, 0.5, False),
    lambda F, a: F.softplus(a["v"], 2.0, 1.0),
    lambda F, a: F.threshold(a["v"], 0.1, 20.0, False),
    lambda F, a: F.glu(a["s"], 1),
    lambda F, a: F.cosine_similarity(a["v"], a["u"], 0, 1e-6),
    lambda F, a: F.pairwise_distance(a["v"], a["u"], 1.0, 1e-6, True),
    lambda F, a: F.huber_loss(a["v"], a["u"], "sum", 0.5),
    lambda F, a: F.triplet_margin_loss(a["v"], a["u"], a["n"], 0.5, 1.0, 1e-6, True),
    lambda F, a: F.cross_entropy(a["v"], a["y"], a["g"]),
    lambda F, a: F.multi_margin_loss(a["v"], a["y"], 2, 0.5, a["g"]),
    lambda F, a: F.poisson_nll_loss(a["v"], a["u"].__abs__(), True, True),
    lambda F, a: F.gaussian_nll_loss(a["v"], a["u"], a["u"].__abs__() + 0.1, True, 1e-3, "sum"),
    lambda F, a: F.scaled_dot_product_attention(a["seq"], a["seq"], a["seq"], None, 0.0, True),
    lambda F, a: F.dropout(a["v"], 0.5, False, True),
]


@pytest.mark.parametrize("call", TORCH_STYLE_F_CALLS)
def test_functional_calls_written_for_torch_give_torchs_results(torch, call):
    arrays = _positional_arrays()
    ours = call(F, {k: Tensor(v.copy()) for k, v in arrays.items()})
    theirs = call(torch.nn.functional, {k: torch.tensor(v.copy()) for k, v in arrays.items()})
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-10, atol=1e-12)


def test_minigrads_own_layer_arguments_are_keyword_only():
    """rng and dtype (PyTorch's layers take device before dtype) never take the place of one
    of PyTorch's positional arguments."""
    for name in dir(nn):
        cls = getattr(nn, name)
        if name.startswith("_") or not (isinstance(cls, type) and issubclass(cls, nn.Module)):
            continue
        parameters = inspect.signature(cls.__init__).parameters
        for extra in ("rng", "dtype"):
            if extra in parameters:
                assert parameters[extra].kind is inspect.Parameter.KEYWORD_ONLY, (name, extra)


# --------------------------------------------------------------------------------------------
# Layers for functions of F that had none
# --------------------------------------------------------------------------------------------
def _class_or_multilabel_targets(kind, shape):
    """Integer class targets or 0/1 multilabel targets for the loss modules below."""
    if kind == "classes":
        return rng.integers(0, shape[1], size=shape[0])
    return (rng.uniform(size=shape) > 0.5).astype(np.float64)


@pytest.mark.parametrize("make, shapes, target", [
    (lambda lib, dtype: lib.nn.Bilinear(3, 4, 5, dtype=dtype), [(6, 3), (6, 4)], None),
    (lambda lib, dtype: lib.nn.Bilinear(3, 2, 1, bias=False, dtype=dtype), [(2, 6, 3), (2, 6, 2)],
     None),
    (lambda lib, dtype: lib.nn.MultiLabelSoftMarginLoss(), [(4, 5)], "multilabel"),
    (lambda lib, dtype: lib.nn.MultiLabelSoftMarginLoss(
        lib.tensor([0.5, 1.0, 2.0, 0.1, 1.5], dtype=dtype), reduction="sum"), [(4, 5)],
     "multilabel"),
    (lambda lib, dtype: lib.nn.MultiMarginLoss(), [(4, 5)], "classes"),
    (lambda lib, dtype: lib.nn.MultiMarginLoss(2, 0.7, lib.tensor([0.5, 1.0, 2.0, 0.1, 1.5],
                                                                  dtype=dtype),
                                               reduction="none"), [(4, 5)], "classes"),
    (lambda lib, dtype: lib.nn.LPPool1d(2, 3, 2), [(2, 3, 8)], None),
    (lambda lib, dtype: lib.nn.LPPool1d(4, 2), [(3, 7)], None),
    (lambda lib, dtype: lib.nn.LPPool2d(2, (3, 2), 2, True), [(2, 3, 7, 6)], None),
    (lambda lib, dtype: lib.nn.LPPool2d(1, 2), [(3, 4, 6)], None),
    (lambda lib, dtype: lib.nn.LPPool3d(2.0, 2, 1), [(1, 2, 3, 4, 3)], None),
    (lambda lib, dtype: lib.nn.LocalResponseNorm(3), [(2, 5, 4)], None),
    (lambda lib, dtype: lib.nn.LocalResponseNorm(4, 0.1, 0.5, 2.0), [(2, 6, 3, 2)], None),
    (lambda lib, dtype: lib.nn.LocalResponseNorm(2, 1.0), [(2, 3, 2, 2, 3)], None),
    (lambda lib, dtype: lib.nn.RReLU().eval(), [(3, 4)], None),
    (lambda lib, dtype: lib.nn.RReLU(0.2, 0.4).eval(), [(3, 4)], None),
    (lambda lib, dtype: lib.nn.ChannelShuffle(2), [(2, 6, 3)], None),
    (lambda lib, dtype: lib.nn.ChannelShuffle(3), [(1, 6, 2, 2)], None),
    (lambda lib, dtype: lib.nn.GLU(), [(3, 4)], None),
    (lambda lib, dtype: lib.nn.GLU(0), [(4, 3)], None),
    (lambda lib, dtype: lib.nn.Softmax2d(), [(2, 3, 4, 5)], None),
    (lambda lib, dtype: lib.nn.Softmax2d(), [(3, 4, 5)], None),
    (lambda lib, dtype: lib.nn.CosineSimilarity(), [(3, 4), (3, 4)], None),
    (lambda lib, dtype: lib.nn.CosineSimilarity(0, 1e-3), [(3, 4), (3, 1)], None),
    (lambda lib, dtype: lib.nn.PairwiseDistance(), [(3, 4), (3, 4)], None),
    (lambda lib, dtype: lib.nn.PairwiseDistance(1.0, 1e-3, True), [(3, 4), (3, 4)], None),
    (lambda lib, dtype: lib.nn.AdaptiveAvgPool1d(3), [(2, 3, 7)], None),
    (lambda lib, dtype: lib.nn.AdaptiveAvgPool3d((2, None, 3)), [(2, 3, 5, 2, 7)], None),
    (lambda lib, dtype: lib.nn.AdaptiveAvgPool3d(4), [(3, 5, 2, 7)], None),
    (lambda lib, dtype: lib.nn.AvgPool3d(2, 1, 1, count_include_pad=False), [(1, 2, 3, 4, 4)],
     None),
    (lambda lib, dtype: lib.nn.Unfold((2, 3), 1, 1, 2), [(2, 3, 5, 6)], None),
    (lambda lib, dtype: lib.nn.Upsample(scale_factor=2), [(1, 2, 3, 4)], None),
    (lambda lib, dtype: lib.nn.Upsample((5, 7), mode="bilinear", align_corners=True),
     [(1, 2, 3, 4)], None),
    (lambda lib, dtype: lib.nn.UpsamplingNearest2d(scale_factor=3), [(2, 1, 3, 2)], None),
    (lambda lib, dtype: lib.nn.UpsamplingBilinear2d((4, 5)), [(1, 2, 3, 3)], None),
    # integer factors in a tuple are shown as floats, (2.0, 3.0), as PyTorch's repr
    (lambda lib, dtype: lib.nn.Upsample(scale_factor=(2, 3)), [(1, 2, 3, 4)], None),
    (lambda lib, dtype: lib.nn.UpsamplingBilinear2d(scale_factor=(2, 1)), [(1, 2, 3, 3)], None),
    *[(lambda lib, dtype, name=name, padding=padding: getattr(lib.nn, name)(padding),
       [shape], None)
      for name, padding, shape in [
          ("ZeroPad1d", (1, 2), (2, 3, 4)), ("ZeroPad2d", 1, (2, 3, 4)),
          ("ZeroPad3d", (1, 0, 2, 1, 0, 1), (1, 2, 3, 4)), ("ReflectionPad1d", 2, (2, 3, 4)),
          ("ReflectionPad2d", (1, 2, 0, 1), (1, 2, 3, 4)), ("ReflectionPad3d", 1, (1, 2, 3, 3, 4)),
          ("ReplicationPad1d", (0, 3), (2, 3, 4)), ("ReplicationPad2d", 2, (1, 2, 3, 4)),
          ("ReplicationPad3d", (1, 0, 2, 1, 0, 1), (1, 2, 3, 3, 4)),
          ("CircularPad1d", 2, (2, 3, 4)), ("CircularPad2d", (1, 2, 0, 1), (1, 2, 3, 4)),
          ("CircularPad3d", 1, (1, 2, 3, 3, 4))]],
    *[(lambda lib, dtype, name=name, padding=padding: getattr(lib.nn, name)(padding, -1.5),
       [shape], None)
      for name, padding, shape in [("ConstantPad1d", (2, -1), (2, 3, 4)),
                                   ("ConstantPad2d", 1, (3, 4)),
                                   ("ConstantPad3d", (0, 1, 1, 0, 2, 2), (1, 2, 2, 3))]],
])
def test_new_modules_match_torch_in_values_and_gradients(torch, make, shapes, target):
    ours, theirs = make(minigrad, np.float64), make(torch, torch.float64)
    assert repr(ours) == repr(theirs)
    assert {k: v.shape for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    their_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():
        p.data[...] = their_params[name].detach().numpy()
    data = [rng.standard_normal(shape) for shape in shapes]
    args = [Tensor(a, requires_grad=True) for a in data]
    their_args = [torch.tensor(a, requires_grad=True) for a in data]
    extra, their_extra = [], []
    if target is not None:
        targets = _class_or_multilabel_targets(target, shapes[0])
        extra, their_extra = [targets], [torch.tensor(targets)]
    out, expected = ours(*args, *extra), theirs(*their_args, *their_extra)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    upstream = np.cos(np.arange(out.numel())).reshape(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    for a, t in zip(args, their_args):
        np.testing.assert_allclose(a.grad, t.grad.numpy(), rtol=1e-9, atol=1e-12)
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad, their_params[name].grad.numpy(), rtol=1e-9,
                                   atol=1e-12, err_msg=name)


@pytest.mark.filterwarnings("ignore:Since version 1.3.0:UserWarning")  # PyTorch's, size 1
@pytest.mark.parametrize("size", [(2, 3, 4, 5), (1, 1, 1, 3), (2, 3, 2, 4, 5)])
@pytest.mark.parametrize("align_corners", [False, True])
def test_affine_grid_matches_torch(torch, size, align_corners):
    spatial = len(size) - 2
    data = rng.standard_normal((size[0], spatial, spatial + 1))
    theta, their_theta = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    grid = F.affine_grid(theta, size, align_corners)
    expected = torch.nn.functional.affine_grid(their_theta, size, align_corners)
    np.testing.assert_allclose(grid.data, expected.detach().numpy(), rtol=1e-12, atol=1e-15)
    upstream = rng.standard_normal(grid.shape)
    grid.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(theta.grad, their_theta.grad.numpy(), rtol=1e-10)
    assert F.affine_grid(Tensor(data.astype(np.float32)), size).dtype == np.float32


@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("input_shape, grid_shape", [((2, 3, 4, 5), (2, 3, 6, 2)),
                                                     ((2, 3, 4, 5, 3), (2, 3, 2, 4, 3))])
def test_grid_sample_matches_torch(torch, mode, padding_mode, align_corners, input_shape,
                                   grid_shape):
    """Places inside and outside [-1, 1], 2-D and 3-D (trilinear; bicubic is 2-D only, as in
    PyTorch): the values and the gradients of the input and of the grid (nearest's zeros, as
    PyTorch's, where minigrad's was None before)."""
    if mode == "bicubic" and len(input_shape) == 5:
        assert_raises_like_torch(lambda lib, F: F.grid_sample(
            lib.zeros(input_shape), lib.zeros(grid_shape), mode, padding_mode, align_corners))
        return
    data, places = rng.standard_normal(input_shape), rng.uniform(-1.6, 1.6, grid_shape)
    leaves = [Tensor(a, requires_grad=True) for a in (data, places)]
    their_leaves = [torch.tensor(a, requires_grad=True) for a in (data, places)]
    out = F.grid_sample(*leaves, mode, padding_mode, align_corners)
    expected = torch.nn.functional.grid_sample(*their_leaves, mode, padding_mode, align_corners)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(leaves[0].grad, their_leaves[0].grad.numpy(), rtol=1e-9,
                               atol=1e-12)
    np.testing.assert_allclose(leaves[1].grad, their_leaves[1].grad.numpy(), rtol=1e-9,
                               atol=1e-12)


@pytest.mark.parametrize("align_corners", [False, True])
def test_grid_sample_at_the_identity_grid_gives_the_input(align_corners):
    x = Tensor(rng.standard_normal((2, 3, 4, 5)).astype(np.float32))
    grid = F.affine_grid(Tensor(np.tile(np.eye(2, 3, dtype=np.float32), (2, 1, 1))),
                         x.shape, align_corners)
    volume = Tensor(rng.standard_normal((2, 3, 4, 5, 3)).astype(np.float32))
    volume_grid = F.affine_grid(Tensor(np.tile(np.eye(3, 4, dtype=np.float32), (2, 1, 1))),
                                volume.shape, align_corners)
    for mode in ("bilinear", "nearest", "bicubic"):
        for data, places in ((x, grid), (volume, volume_grid))[:2 if mode != "bicubic" else 1]:
            out = F.grid_sample(data, places, mode, align_corners=align_corners)
            assert out.dtype == np.float32
            np.testing.assert_allclose(out.data, data.data, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("p", [2.0, 1.0, 3.0, math.inf])
def test_pdist_matches_torch(torch, p):
    """Each pair of rows i < j once, in PyTorch's order; values and gradients."""
    data = rng.standard_normal((5, 3))
    x, tx = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    out, expected = F.pdist(x, p), torch.nn.functional.pdist(tx, p)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-10)
    assert F.pdist(Tensor(data.astype(np.float32)), p).dtype == np.float32


MULTILABEL_TARGETS = np.array([[3, 0, -1, 1, 2], [1, 2, 3, 4, 0], [-1, 1, 2, 3, 4],
                               [2, 2, -1, 0, 0]])  # up to the first -1; class 2 twice


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
@pytest.mark.parametrize("unbatched", [False, True])
def test_multilabel_margin_loss_matches_torch(torch, reduction, unbatched):
    targets = MULTILABEL_TARGETS[0] if unbatched else MULTILABEL_TARGETS
    data = rng.standard_normal(targets.shape)
    x, tx = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    out = nn.MultiLabelMarginLoss(reduction=reduction)(x, targets)
    expected = torch.nn.MultiLabelMarginLoss(reduction=reduction)(tx, torch.tensor(targets))
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)
    assert F.multilabel_margin_loss(Tensor(data.astype(np.float32)), targets).dtype == np.float32


@pytest.mark.parametrize("kwargs", [
    dict(), dict(margin=0.5, swap=True, reduction="sum"),
    dict(distance_function="cosine", reduction="none"),
])
def test_triplet_margin_with_distance_loss_matches_torch(torch, kwargs):
    """The default distance is pairwise_distance; a function given is called as PyTorch
    calls it."""
    data = [rng.standard_normal((4, 5)) for _ in range(3)]
    leaves = [Tensor(a, requires_grad=True) for a in data]
    their_leaves = [torch.tensor(a, requires_grad=True) for a in data]
    cosine = kwargs.pop("distance_function", None) == "cosine"
    ours = nn.TripletMarginWithDistanceLoss(
        distance_function=(lambda a, b: 1 - F.cosine_similarity(a, b)) if cosine else None,
        **kwargs)
    theirs = torch.nn.TripletMarginWithDistanceLoss(
        distance_function=(lambda a, b: 1 - torch.nn.functional.cosine_similarity(a, b))
        if cosine else None, **kwargs)
    assert repr(ours) == repr(theirs)  # without a function: a PairwiseDistance() child
    out, expected = ours(*leaves), theirs(*their_leaves)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    for leaf, their_leaf in zip(leaves, their_leaves):
        np.testing.assert_allclose(leaf.grad, their_leaf.grad.numpy(), rtol=1e-10)


@pytest.mark.parametrize("name", ["AlphaDropout", "FeatureAlphaDropout"])
def test_alpha_dropouts_are_the_identity_in_eval_mode_and_keep_zero_mean_unit_variance(torch,
                                                                                       name):
    """Training: each entry (channel) is kept as a x + alpha' a p or dropped to alpha' a (p - 1),
    PyTorch's formulas (alpha' = SELU's scale * alpha), and standard normal inputs stay so;
    seeded by rng."""
    ours, theirs = getattr(nn, name)(0.3), getattr(torch.nn, name)(0.3)
    assert repr(ours) == repr(theirs)
    data = rng.standard_normal((400, 50, 10))
    ours.eval()
    np.testing.assert_array_equal(ours(Tensor(data)).data, data)
    ours.train()
    out = getattr(nn, name)(0.3, rng=np.random.default_rng(3))(Tensor(data)).data
    np.testing.assert_array_equal(
        out, getattr(nn, name)(0.3, rng=np.random.default_rng(3))(Tensor(data)).data)
    saturation = 1.0507009873554804934193349852946 * 1.6732632423543772848170429916717
    a = 1 / math.sqrt((saturation ** 2 * 0.3 + 1) * 0.7)
    kept = np.isclose(out, a * data + saturation * a * 0.3, rtol=0, atol=1e-12)
    dropped = np.isclose(out, saturation * a * (0.3 - 1), rtol=0, atol=1e-12)
    assert (kept | dropped).all() and 0.28 < dropped.mean() < 0.32
    if name == "FeatureAlphaDropout":  # one draw per (sample, channel)
        assert (dropped.all(-1) | ~dropped.any(-1)).all()
    assert abs(out.mean()) < 0.02 and abs(out.std() - 1) < 0.02


def test_rrelu_draws_a_slope_per_negative_entry_while_training():
    """Slopes uniform in [lower, upper] (each the entry's gradient), seeded by `rng`; the
    entries >= 0 pass unchanged."""
    data = rng.standard_normal(2000)
    outs = []
    for _ in range(2):
        x = Tensor(data, requires_grad=True)
        out = nn.RReLU(0.1, 0.3, rng=np.random.default_rng(5))(x)
        out.sum().backward()
        outs.append(out.data)
        negative = data < 0
        slopes = out.data[negative] / data[negative]
        assert 0.1 <= slopes.min() < 0.11 and 0.29 < slopes.max() <= 0.3
        np.testing.assert_allclose(x.grad[negative], slopes)
        assert (x.grad[~negative] == 1).all() and (out.data[~negative] == data[~negative]).all()
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.parametrize("size", [1, 2, 3, 4, 5])
def test_cross_map_lrn2d_matches_torch_where_its_running_sum_is_right(torch, size):
    """Values as torch's for inputs whose channel 0 is zero: torch's running sum over the
    channels never takes channel 0's square out again (an index off by one), which then
    changes nothing. Its backward fails torch's own gradcheck (and raises for size 1), so the
    gradient is checked against finite differences. For an odd size the layer is
    LocalResponseNorm, for any input."""
    data = rng.standard_normal((2, 7, 3, 2))
    data[:, 0] = 0
    ours, theirs = nn.CrossMapLRN2d(size, 0.3, 0.6, 1.5), torch.nn.CrossMapLRN2d(size, 0.3, 0.6,
                                                                                1.5)
    assert repr(ours) == repr(theirs)
    np.testing.assert_allclose(ours(Tensor(data)).data, theirs(torch.tensor(data)).numpy(),
                               rtol=1e-12, atol=1e-14)
    assert gradcheck(ours, [Tensor(rng.standard_normal((1, 5, 2, 2)), requires_grad=True)])
    if size % 2:
        other = rng.standard_normal((2, 7, 3, 2))
        np.testing.assert_allclose(ours(Tensor(other)).data, nn.LocalResponseNorm(
            size, 0.3, 0.6, 1.5)(Tensor(other)).data, rtol=1e-12)
    x = Tensor(rng.standard_normal((1, 3, 2, 2)).astype(np.float32))
    assert ours(x).dtype == np.float32
    assert_raises_like_torch(lambda lib, F_: lib.nn.CrossMapLRN2d(3)(lib.ones(3, 4, 4)))


def test_nll_loss2d_is_nll_loss_as_torch(torch):
    weight = rng.uniform(0.5, 2, 4)
    scores = F.log_softmax(Tensor(rng.standard_normal((2, 4, 3, 5))), 1).data
    target = rng.integers(0, 4, (2, 3, 5))
    target[0, 0, 0] = 1
    with pytest.warns(FutureWarning, match="deprecated"):
        theirs = torch.nn.NLLLoss2d(torch.tensor(weight), ignore_index=1, reduction="sum")
    ours = nn.NLLLoss2d(weight, ignore_index=1, reduction="sum")
    assert isinstance(ours, nn.NLLLoss) and repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    x, tx = Tensor(scores, requires_grad=True), torch.tensor(scores, requires_grad=True)
    loss, expected = ours(x, target), theirs(tx, torch.tensor(target))
    assert loss.item() == pytest.approx(expected.item(), rel=1e-12)
    loss.backward()
    expected.backward()
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12)


def _adaptive_softmax_pair(torch, *args, **kwargs):
    """An AdaptiveLogSoftmaxWithLoss of ours with the weights of a float64 one of torch's."""
    theirs = torch.nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs).double()
    ours = nn.AdaptiveLogSoftmaxWithLoss(*args, **kwargs, dtype=np.float64)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    return ours, theirs


@pytest.mark.parametrize("args, kwargs", [
    ((8, 10, [3, 6]), dict(div_value=2.0)),
    ((6, 20, [5]), dict(head_bias=True)),
    ((16, 30, [2, 10, 25]), dict()),
])
def test_adaptive_log_softmax_with_loss_matches_torch(torch, args, kwargs):
    """Output, loss and every gradient as torch's with the same weights (targets in the
    shortlist and in some clusters, not all), and log_prob and predict."""
    ours, theirs = _adaptive_softmax_pair(torch, *args, **kwargs)
    data = rng.standard_normal((7, args[0]))
    target = np.array([0, 1, args[2][0], args[1] - 1, 2, args[2][0] + 1, 1])
    x, tx = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    result, expected = ours(x, target), theirs(tx, torch.tensor(target))
    assert type(result).__name__ == "_ASMoutput" and result._fields == ("output", "loss")
    np.testing.assert_allclose(result.output.data, expected.output.detach().numpy(),
                               rtol=1e-12)
    assert result.loss.item() == pytest.approx(expected.loss.item(), rel=1e-12)
    weights = rng.standard_normal(7)
    (result.loss + (result.output * Tensor(weights)).sum()).backward()
    (expected.loss + (expected.output * torch.tensor(weights)).sum()).backward()
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    theirs_params = dict(theirs.named_parameters())
    for name, p in ours.named_parameters():  # a cluster no target is in: no gradient
        expected_grad = theirs_params[name].grad
        assert (p.grad is None) == (expected_grad is None), name
        if p.grad is not None:
            np.testing.assert_allclose(p.grad, expected_grad.numpy(), rtol=1e-9, atol=1e-12,
                                       err_msg=name)
    log_prob = ours.log_prob(Tensor(data))
    np.testing.assert_allclose(log_prob.data, theirs.log_prob(torch.tensor(data)).detach().numpy(),
                               rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(np.exp(log_prob.data).sum(1), 1, rtol=1e-12)
    np.testing.assert_allclose(log_prob.data[np.arange(7), target], result.output.data,
                               rtol=1e-12)
    predicted = ours.predict(Tensor(data))
    assert predicted.dtype == np.int64
    np.testing.assert_array_equal(predicted.data, theirs.predict(torch.tensor(data)).numpy())


def test_adaptive_log_softmax_with_loss_of_one_sample_and_float32(torch):
    ours, theirs = _adaptive_softmax_pair(torch, 8, 10, [3, 6], div_value=2.0)
    data = rng.standard_normal(8)
    result, expected = ours(Tensor(data), np.array(7)), theirs(torch.tensor(data),
                                                               torch.tensor(7))
    assert result.output.shape == () and result.loss.shape == ()
    assert result.output.item() == pytest.approx(expected.output.item(), rel=1e-12)
    layer = nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 6])
    out = layer(Tensor(data.astype(np.float32)[None]), np.array([4]))
    assert out.output.dtype == out.loss.dtype == np.float32
    assert layer.log_prob(Tensor(data.astype(np.float32)[None])).dtype == np.float32


@pytest.mark.parametrize("misuse", [
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, []),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3, 3]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [0, 4]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [4, 10]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [5, 2]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [2.5]),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(m.ones(3, 8), m.tensor([1, 20, 3])),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(m.ones(3, 8), m.tensor([1, -1, 3])),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(m.ones(3, 8), m.tensor([1, 2])),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(m.ones(3, 8), m.tensor([[1, 2]])),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(m.ones(8), m.tensor([1])),
    lambda m: m.nn.AdaptiveLogSoftmaxWithLoss(8, 10, [3])(m.ones(3, 8), m.tensor([1., 2, 3])),
])
def test_adaptive_log_softmax_with_loss_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(lambda lib, F: misuse(lib))


def test_rrelu_in_place_as_torch(torch):
    """F.rrelu_ writes into its input: out of training with the mean slope, as torch's; while
    training with slopes drawn from `rng`, the same as F.rrelu's of that rng."""
    data = rng.standard_normal((3, 4)).astype(np.float32)
    ours, theirs = Tensor(data.copy()), torch.tensor(data)
    assert F.rrelu_(ours, 0.1, 0.3) is ours
    torch.nn.functional.rrelu_(theirs, 0.1, 0.3)
    assert ours.dtype == np.float32
    np.testing.assert_allclose(ours.data, theirs.numpy(), rtol=1e-6)
    trained = Tensor(data.copy())
    F.rrelu_(trained, 0.1, 0.3, True, rng=np.random.default_rng(1))
    np.testing.assert_array_equal(trained.data, F.rrelu(Tensor(data), 0.1, 0.3, True,
                                                         rng=np.random.default_rng(1)).data)
    leaf = Tensor(data, requires_grad=True)
    assert_raises_like_torch(lambda lib, F_: F_.rrelu_(
        leaf if lib is minigrad else torch.tensor(data, requires_grad=True)))


@pytest.mark.parametrize("name, kwargs, theirs_kwargs", [
    ("upsample", dict(scale_factor=2), dict(scale_factor=2)),
    ("upsample", dict(size=(5, 7), mode="bilinear", align_corners=False),
     dict(size=(5, 7), mode="bilinear", align_corners=False)),
    ("upsample_nearest", dict(size=(6, 3)), dict(size=(6, 3))),
    ("upsample_bilinear", dict(scale_factor=2), dict(scale_factor=2)),
    ("upsample_bilinear", dict(size=(3, 5)), dict(size=(3, 5))),
])
def test_upsample_aliases_are_interpolate_as_torch(torch, name, kwargs, theirs_kwargs):
    """The deprecated names give interpolate's values and gradients, upsample_bilinear with
    align_corners=True, as torch's (whose deprecation warning is left out)."""
    data = rng.standard_normal((2, 3, 4, 5))
    x, tx = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    out = getattr(F, name)(x, **kwargs)
    with pytest.warns(UserWarning, match="deprecated"):
        expected = getattr(torch.nn.functional, name)(tx, **theirs_kwargs)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-10, atol=1e-12)
    if name == "upsample_bilinear":
        np.testing.assert_array_equal(out.data, F.interpolate(
            Tensor(data), **kwargs, mode="bilinear", align_corners=True).data)


@pytest.mark.parametrize("hard", [False, True])
@pytest.mark.parametrize("dim", [-1, 0])
def test_gumbel_softmax_samples_the_concrete_distribution(hard, dim):
    """Soft: softmax((logits + g) / tau) with g = -log(Exp(1)) from `rng`, summing to 1 along
    dim; hard: its argmax one-hot, with the soft sample's gradient (straight-through); the
    argmax follows softmax(logits) (the Gumbel-max trick)."""
    logits = rng.standard_normal((4, 3)).astype(np.float32)
    x = Tensor(logits, requires_grad=True)
    out = F.gumbel_softmax(x, 0.5, hard, dim=dim, rng=np.random.default_rng(7))
    gumbels = -np.log(np.random.default_rng(7).standard_exponential(logits.shape))
    scaled = (logits + gumbels) / 0.5
    soft = np.exp(scaled - scaled.max(dim, keepdims=True))
    soft /= soft.sum(dim, keepdims=True)
    assert out.dtype == np.float32
    if hard:
        expected = (soft == soft.max(dim, keepdims=True)).astype(np.float32)
        np.testing.assert_allclose(out.data, expected, atol=1e-6)
    else:
        np.testing.assert_allclose(out.data, soft, rtol=1e-5)
    np.testing.assert_allclose(out.data.sum(dim), 1, rtol=1e-6)
    weights = rng.standard_normal(logits.shape).astype(np.float32)
    (out * Tensor(weights)).sum().backward()
    # the soft sample's gradient: softmax's Jacobian at soft, divided by tau
    expected_grad = soft * (weights - (soft * weights).sum(dim, keepdims=True)) / 0.5
    np.testing.assert_allclose(x.grad, expected_grad, rtol=1e-4, atol=1e-6)
    draws = F.gumbel_softmax(Tensor(np.tile(logits[:1], (20000, 1))), hard=True,
                             rng=np.random.default_rng(3)).data.mean(0)
    probabilities = np.exp(logits[0]) / np.exp(logits[0]).sum()
    np.testing.assert_allclose(draws, probabilities, atol=0.015)


def test_gumbel_softmax_matches_torch_in_distribution(torch):
    """torch's samples (from its generator) and ours have the same mean, hard and soft."""
    logits = np.array([0.5, -1.0, 2.0, 0.0])
    theirs = torch.nn.functional.gumbel_softmax(torch.tensor(logits).repeat(20000, 1),
                                                tau=2.0, hard=False)
    ours = F.gumbel_softmax(Tensor(np.tile(logits, (20000, 1))), tau=2.0,
                            rng=np.random.default_rng(0))
    np.testing.assert_allclose(ours.data.mean(0), theirs.numpy().mean(0), atol=0.01)
    assert_raises_like_torch(lambda lib, F_: F_.gumbel_softmax(lib.tensor([1, 2])))


@pytest.mark.parametrize("dims, shape, output_size", [
    (1, (2, 3, 8), None), (1, (3, 8), [9]), (3, (2, 2, 4, 6, 4), None),
    (3, (1, 2, 4, 4, 6), [1, 2, 5, 5, 7]),
])
def test_max_unpool1d_and_3d_put_max_pools_entries_back_as_torch(torch, dims, shape,
                                                                output_size):
    """Values, and the gradient of the entries put back (stride = kernel size: no index is
    named twice)."""
    data = rng.permutation(math.prod(shape)).reshape(shape) * 0.1
    pooled, indices = getattr(torch.nn.functional, f"max_pool{dims}d")(
        torch.tensor(data), 2, return_indices=True)
    ours, theirs = getattr(nn, f"MaxUnpool{dims}d")(2), getattr(torch.nn, f"MaxUnpool{dims}d")(2)
    assert repr(ours) == repr(theirs)
    x = Tensor(pooled.numpy(), requires_grad=True)
    tx = pooled.clone().requires_grad_()
    out, expected = ours(x, indices.numpy(), output_size), theirs(tx, indices, output_size)
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_array_equal(x.grad, tx.grad.numpy())


def test_max_unpool2d_module_inverts_max_pool2d_as_torch(torch):
    data = rng.standard_normal((2, 3, 4, 6))
    pooled, indices = F.max_pool2d(Tensor(data), 2, return_indices=True)
    ours, theirs = nn.MaxUnpool2d(2), torch.nn.MaxUnpool2d(2)
    assert repr(ours) == repr(theirs)
    their_pooled, their_indices = torch.nn.functional.max_pool2d(torch.tensor(data), 2,
                                                                 return_indices=True)
    np.testing.assert_array_equal(ours(pooled, indices).data,
                                  theirs(their_pooled, their_indices).numpy())
    np.testing.assert_array_equal(ours(pooled, indices, (5, 7)).data,
                                  theirs(their_pooled, their_indices, (5, 7)).numpy())


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.nn.MultiMarginLoss(p=3),
    lambda m, F: m.nn.Softmax2d()(m.ones(2, 3)),
    lambda m, F: m.nn.LocalResponseNorm(2)(m.ones(2, 3)),
    lambda m, F: F.pdist(m.ones(2, 3, 4)),
    lambda m, F: m.nn.ChannelShuffle(4)(m.ones(2, 6, 3)),
    lambda m, F: F.grid_sample(m.ones(1, 1, 3, 3), m.zeros(1, 2, 2, 2), mode="area"),
    lambda m, F: m.nn.MaxUnpool1d(2)(m.ones(1, 2, 3), m.zeros(1, 2, 3, dtype=m.int64), [9]),
    lambda m, F: F.max_unpool3d(m.ones(1, 1, 1, 1, 1), m.zeros(1, 1, 1, 1, 2, dtype=m.int64),
                                2),
    lambda m, F: F.grid_sample(m.ones(1, 1, 3, 3), m.zeros(1, 2, 2, 2), padding_mode="wrap"),
    lambda m, F: F.grid_sample(m.ones(2, 1, 3, 3), m.zeros(1, 2, 2, 2), align_corners=False),
    lambda m, F: F.grid_sample(m.ones(1, 1, 3, 3), m.zeros(1, 2, 2, 2, dtype=m.float64),
                               align_corners=False),  # no promotion: one dtype for both
    lambda m, F: F.grid_sample(m.ones(1, 1, 2, 2, 2, dtype=m.float64),
                               m.zeros(1, 1, 1, 1, 3), mode="nearest", align_corners=False),
    lambda m, F: F.affine_grid(m.zeros(1, 2, 3), (1, 1, 4, 4, 4), align_corners=False),
    lambda m, F: m.nn.LPPool2d(2, 3)(m.ones(1, 2, 2, 2)),
    lambda m, F: m.nn.Bilinear(2, 3, 4)(m.ones(5, 3), m.ones(5, 3)),
    lambda m, F: m.nn.ZeroPad2d((1, 2, 3))(m.ones(2, 3, 4)),  # minigrad: in the constructor
])
def test_new_modules_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# max_pool3d and the adaptive max pools: values, indices and gradients as PyTorch's
# --------------------------------------------------------------------------------------------
def _max_pool_data(shape, kind):
    """Entries with no ties, with ties and a NaN, or all -inf (where the padding ties)."""
    if kind == "distinct":
        return rng.permutation(np.prod(shape)).reshape(shape) * 0.1
    if kind == "ties_and_nan":
        data = np.round(rng.standard_normal(shape))
        data[..., 0, 1] = np.nan
        return data
    return np.full(shape, -np.inf)


def _compare_max_pools(torch, ours, theirs, data):
    x, tx = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    (out, indices), (expected, expected_indices) = ours(x), theirs(tx)
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    assert indices.dtype == np.int64
    np.testing.assert_array_equal(indices.data, expected_indices.numpy())
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_array_equal(x.grad, tx.grad.numpy())


@pytest.mark.parametrize("kind", ["distinct", "ties_and_nan", "all_minus_inf"])
@pytest.mark.parametrize("shape", [(2, 3, 5, 6, 7), (3, 4, 5, 5)])
@pytest.mark.parametrize("kwargs", [
    dict(kernel_size=2), dict(kernel_size=(2, 3, 2), stride=(1, 2, 1), padding=(1, 1, 0)),
    dict(kernel_size=3, stride=2, padding=1, dilation=(1, 2, 1), ceil_mode=True),
    dict(kernel_size=2, ceil_mode=True),
])
def test_max_pool3d_matches_torch(torch, kwargs, shape, kind):
    _compare_max_pools(torch, lambda x: F.max_pool3d(x, **kwargs, return_indices=True),
                       lambda x: torch.nn.functional.max_pool3d(x, **kwargs,
                                                                return_indices=True),
                       _max_pool_data(shape, kind))


@pytest.mark.parametrize("kind", ["distinct", "ties_and_nan"])
@pytest.mark.parametrize("output_size, shape", [
    (3, (2, 3, 7, 9)), ((2, 5), (3, 5, 4)), ((None, 3), (2, 3, 7, 9)), ((7, 1), (1, 7, 9)),
    ((9, 10), (1, 2, 4, 5)),
])
def test_adaptive_max_pool2d_matches_torch(torch, output_size, shape, kind):
    _compare_max_pools(torch, lambda x: F.adaptive_max_pool2d(x, output_size, True),
                       lambda x: torch.nn.functional.adaptive_max_pool2d(x, output_size, True),
                       _max_pool_data(shape, kind))


@pytest.mark.parametrize("output_size, shape", [(3, (2, 3, 7)), (5, (3, 4)), (1, (2, 1, 6))])
def test_adaptive_max_pool1d_matches_torch(torch, output_size, shape):
    _compare_max_pools(torch, lambda x: F.adaptive_max_pool1d(x, output_size, True),
                       lambda x: torch.nn.functional.adaptive_max_pool1d(x, output_size, True),
                       _max_pool_data(shape, "ties_and_nan"))


@pytest.mark.parametrize("make, shape", [
    (lambda lib: lib.nn.MaxPool3d(2, 1, 1, 2, ceil_mode=True), (2, 2, 5, 4, 6)),
    (lambda lib: lib.nn.MaxPool3d((1, 2, 2)), (2, 4, 4, 6)),
    (lambda lib: lib.nn.AdaptiveMaxPool2d((2, None)), (2, 3, 5, 4)),
    (lambda lib: lib.nn.AdaptiveMaxPool1d(3), (2, 3, 7)),
    (lambda lib: lib.nn.AdaptiveMaxPool3d((2, None, 3)), (2, 3, 5, 2, 7)),
    (lambda lib: lib.nn.AdaptiveMaxPool3d(4), (2, 5, 3, 6)),
])
def test_max_pool3d_and_adaptive_max_pool_modules_match_torch(torch, make, shape):
    ours, theirs = make(minigrad), make(torch)
    assert repr(ours) == repr(theirs)
    _compare_modules(torch, ours, theirs, rng.standard_normal(shape))
    x = Tensor(rng.standard_normal(shape).astype(np.float32))
    assert ours(x).dtype == np.float32
    ours.return_indices = theirs.return_indices = True
    _compare_max_pools(torch, ours, theirs, _max_pool_data(shape, "ties_and_nan"))


@pytest.mark.parametrize("name, args, shape", [
    ("max_pool1d_with_indices", (3, 3, 1), (2, 3, 9)),  # windows that do not overlap: the
    ("max_pool2d_with_indices", (2,), (2, 3, 5, 6)),  # gradients are then exactly torch's
    ("max_pool2d_with_indices", ((2, 3), (2, 3), 1, 1, True), (3, 5, 7)),
    ("max_pool3d_with_indices", (2, 2, 1, 2), (2, 2, 5, 4, 6)),
    ("adaptive_max_pool1d_with_indices", (3,), (2, 3, 7)),
    ("adaptive_max_pool2d_with_indices", ((2, None),), (2, 3, 5, 4)),
    ("adaptive_max_pool3d_with_indices", (2,), (1, 2, 5, 3, 4)),
])
@pytest.mark.parametrize("return_indices", [False, True])
def test_max_pools_with_indices_return_both_as_torch(torch, name, args, shape, return_indices):
    """Output and indices whatever return_indices says (its last positional argument)."""
    positional = len(inspect.signature(getattr(F, name)).parameters) - 1 - len(args)
    extra = (return_indices,) if positional == 1 else ()
    rest = dict(return_indices=return_indices) if not extra else {}
    _compare_max_pools(torch, lambda x: getattr(F, name)(x, *args, *extra, **rest),
                       lambda x: getattr(torch.nn.functional, name)(x, *args, *extra, **rest),
                       _max_pool_data(shape, "ties_and_nan"))


@pytest.mark.parametrize("dims, shape, kwargs", [
    (2, (2, 3, 9, 11), dict(kernel_size=2, output_size=4)),
    (2, (3, 10, 7), dict(kernel_size=(3, 2), output_size=(5, 6))),  # unbatched, overlapping
    (2, (1, 2, 8, 8), dict(kernel_size=2, output_ratio=(0.5, 0.8))),
    (2, (2, 2, 5, 6), dict(kernel_size=(2, 3), output_size=(1, 4))),  # one place: size - k
    (3, (2, 2, 7, 6, 9), dict(kernel_size=2, output_size=(3, 4, 5))),
    (3, (2, 6, 5, 8), dict(kernel_size=(2, 1, 3), output_ratio=0.6)),
])
@pytest.mark.parametrize("dtype", [np.float64, np.float32])
@pytest.mark.parametrize("kind", ["distinct", "ties_and_nan"])
def test_fractional_max_pool_matches_torch_given_the_same_samples(torch, dims, shape, kwargs,
                                                                  dtype, kind):
    """Values, indices and gradients as torch's for the same `_random_samples` (in the
    input's dtype, in which both compute the places)."""
    data = _max_pool_data(shape, kind).astype(dtype)
    batch = shape[0] if len(shape) == dims + 2 else 1
    samples = rng.random((batch, shape[-dims - 1], dims)).astype(dtype)
    name = f"fractional_max_pool{dims}d"
    x, tx = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    out, indices = getattr(F, name)(x, **kwargs, return_indices=True, _random_samples=samples)
    expected, expected_indices = getattr(torch.nn.functional, name)(
        tx, **kwargs, return_indices=True, _random_samples=torch.tensor(samples))
    assert out.dtype == dtype and indices.dtype == np.int64
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    np.testing.assert_array_equal(indices.data, expected_indices.numpy())
    upstream = rng.standard_normal(out.shape).astype(dtype)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-6, atol=1e-6)
    with_indices = getattr(F, name + "_with_indices")(Tensor(data), **kwargs,
                                                      _random_samples=samples)
    np.testing.assert_array_equal(with_indices[1].data, indices.data)


def test_fractional_max_pool_draws_graham_windows_and_takes_their_maxima():
    """Without samples: u = rng.random((N, C, 2)) ([..., 0] for W, [..., 1] for H), and each
    output is the maximum of the k-wide window starting at floor((i + u) * alpha) -
    floor(u * alpha), alpha = (size - k) / (out - 1), the last at size - k (Graham 2014),
    computed here in numpy; floor(size * ratio) outputs per dim."""
    data = rng.permutation(2 * 3 * 11 * 13).reshape(2, 3, 11, 13).astype(np.float64)
    out, indices = F.fractional_max_pool2d(Tensor(data), (3, 2), output_ratio=(0.5, 0.7),
                                           return_indices=True, rng=np.random.default_rng(4))
    assert out.shape == indices.shape == (2, 3, 5, 9)
    samples = np.random.default_rng(4).random((2, 3, 2))

    def starts(u, size, k, count):
        alpha = (size - k) / (count - 1)
        return [math.floor((i + u) * alpha) - math.floor(u * alpha)
                for i in range(count - 1)] + [size - k]

    for n, c in np.ndindex(2, 3):
        for i, top in enumerate(starts(samples[n, c, 1], 11, 3, 5)):
            for j, left in enumerate(starts(samples[n, c, 0], 13, 2, 9)):
                window = data[n, c, top:top + 3, left:left + 2]
                assert out.data[n, c, i, j] == window.max()
                row, col = np.unravel_index(window.argmax(), window.shape)
                assert indices.data[n, c, i, j] == (top + row) * 13 + left + col
    again = F.fractional_max_pool2d(Tensor(data), (3, 2), output_ratio=(0.5, 0.7),
                                    rng=np.random.default_rng(4))
    np.testing.assert_array_equal(out.data, again.data)


@pytest.mark.parametrize("make", [
    lambda lib: lib.nn.FractionalMaxPool2d(2, output_ratio=0.5),
    lambda lib: lib.nn.FractionalMaxPool2d((2, 3), (4, 3), return_indices=True,
                                           _random_samples=lib.tensor([[[0.2, 0.7]]])),
    lambda lib: lib.nn.FractionalMaxPool3d(2, output_size=3,
                                           _random_samples=lib.tensor([[[0.2, 0.7, 0.1]]])),
])
def test_fractional_max_pool_modules_as_torch(torch, make):
    ours, theirs = make(minigrad), make(torch)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for attribute in ("kernel_size", "output_size", "output_ratio", "return_indices"):
        assert getattr(ours, attribute) == getattr(theirs, attribute), attribute
    if ours._random_samples is not None:
        shape = (1, 1, 8, 7) if isinstance(ours, nn.FractionalMaxPool3d) is False else \
            (1, 1, 6, 7, 8)
        data = rng.standard_normal(shape).astype(np.float32)
        got, expected = ours(Tensor(data)), theirs(torch.tensor(data))
        got, expected = (got, expected) if not ours.return_indices else (got[0], expected[0])
        np.testing.assert_array_equal(got.data, expected.numpy())


@pytest.mark.parametrize("misuse", [
    lambda m, F_: m.nn.FractionalMaxPool2d(2),
    lambda m, F_: m.nn.FractionalMaxPool2d(2, 3, 0.5),
    lambda m, F_: m.nn.FractionalMaxPool2d(2, output_ratio=1.5),
    lambda m, F_: m.nn.FractionalMaxPool3d(2, output_ratio=(0.5, 0.0, 0.5)),
    lambda m, F_: F_.fractional_max_pool2d(m.ones(1, 1, 5, 5), 2),
    lambda m, F_: F_.fractional_max_pool2d(m.ones(1, 1, 5, 5), 3, output_size=4),
    lambda m, F_: F_.fractional_max_pool3d(m.ones(1, 1, 5, 5, 5), 2, output_size=2,
                                           _random_samples=m.ones(1, 1, 2) / 2),
])
def test_fractional_max_pool_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)


def test_max_pool3d_takes_integers_as_torch(torch):
    data = rng.integers(-9, 9, size=(2, 3, 4, 4, 4))
    np.testing.assert_array_equal(F.max_pool3d(Tensor(data), 2).data,
                                  torch.nn.functional.max_pool3d(torch.tensor(data), 2).numpy())


@pytest.mark.parametrize("kwargs, shape", [
    # W = 1, kernel 2 dilated by 2, padding 1: each window's w positions are -1 and 1
    (dict(kernel_size=(2, 1, 2), stride=(1, 2, 3), padding=(1, 0, 1), dilation=(2, 1, 2),
          ceil_mode=True), (1, 2, 6, 4, 1)),
    (dict(kernel_size=(2, 1, 1), stride=1, padding=(1, 0, 0), dilation=(2, 1, 1)),
     (2, 1, 1, 3, 2)),
    (dict(kernel_size=(1, 1, 2), stride=(3, 2, 2), padding=(0, 0, 1), dilation=(1, 2, 2)),
     (2, 2, 1, 1)),
])
def test_max_pool3d_window_of_padding_alone_as_torch(torch, kwargs, shape):
    """A dilated window that straddles a small dim holds only padding: PyTorch gives -inf and
    the index where its scan would start (start += dilation while < 0), which may lie outside
    the plane; minigrad the same, with no gradient (it raised on that index)."""
    data = rng.standard_normal(shape)
    x = Tensor(data, requires_grad=True)
    out, indices = F.max_pool3d(x, **kwargs, return_indices=True)
    expected, their_indices = torch.nn.functional.max_pool3d(torch.tensor(data), **kwargs,
                                                             return_indices=True)
    assert np.isneginf(out.data).any()
    np.testing.assert_array_equal(out.data, expected.numpy())
    np.testing.assert_array_equal(indices.data, their_indices.numpy())
    # the windows with an entry inside: gradient as torch's (theirs for padding alone writes
    # at that start index, outside the window, even outside the tensor: not compared, and
    # torch's backward is not run where an index lies outside the plane)
    upstream = np.where(np.isneginf(out.data), 0.0, rng.standard_normal(out.shape))
    (out.masked_fill(np.isneginf(out.data), 0.0) * Tensor(upstream)).sum().backward()
    if (indices.data >= math.prod(shape[-3:])).any():
        assert np.isfinite(x.grad).all()
        return
    their_x = torch.tensor(data, requires_grad=True)
    their_out = torch.nn.functional.max_pool3d(their_x, **kwargs)
    their_out.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad, their_x.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.max_pool3d(m.ones(2, 3, 4, 4), 5),
    lambda m, F: F.max_pool3d(m.ones(2, 3, 4, 4), 2, padding=2),
    lambda m, F: F.max_pool3d(m.ones(3, 4), 2),
    lambda m, F: F.adaptive_max_pool2d(m.ones(2, 3, 0, 4), 2),
    lambda m, F: F.adaptive_max_pool2d(m.ones(3), 2),
    lambda m, F: F.adaptive_max_pool2d(m.ones(1, 4, 4, dtype=m.int64), 2),
    lambda m, F: F.adaptive_max_pool1d(m.ones(2, 3, 4, 4), 2),
])
def test_max_pool3d_and_adaptive_max_pool_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# fold: unfold's adjoint
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("output_size, kernel_size, kwargs", [
    ((4, 5), 2, {}), ((6, 7), (2, 3), dict(dilation=(1, 2), padding=(1, 2), stride=(2, 1))),
    (5, 3, dict(stride=2, padding=1)), ((3, 3), 3, {}), ((2, 4), 1, dict(stride=2)),
])
@pytest.mark.parametrize("batched", [True, False])
def test_fold_matches_torch_and_is_unfolds_adjoint(torch, output_size, kernel_size, kwargs,
                                                   batched):
    sizes = (output_size,) * 2 if isinstance(output_size, int) else output_size
    image = rng.standard_normal((2, 3, *sizes))
    columns_shape = F.unfold(Tensor(image), kernel_size, **kwargs).shape
    data = rng.standard_normal(columns_shape if batched else columns_shape[1:])
    x, tx = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
    out = F.fold(x, output_size, kernel_size, **kwargs)
    expected = torch.nn.functional.fold(tx, output_size, kernel_size, **kwargs)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-14)
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-12, atol=1e-14)
    # the adjoint: <fold(c), u> == <c, unfold(u)>, by the math rather than by PyTorch
    np.testing.assert_allclose(x.grad, F.unfold(Tensor(upstream), kernel_size, **kwargs).data,
                               rtol=1e-12, atol=1e-14)
    assert gradcheck(lambda c: F.fold(c, output_size, kernel_size, **kwargs),
                     [Tensor(data, requires_grad=True)])
    assert F.fold(Tensor(data.astype(np.float32)), output_size, kernel_size,
                  **kwargs).dtype == np.float32


def test_fold_module_matches_torch(torch):
    ours, theirs = nn.Fold((4, 5), 2, padding=1), torch.nn.Fold((4, 5), 2, padding=1)
    assert repr(ours) == repr(theirs)
    _compare_modules(torch, ours, theirs, rng.standard_normal((2, 12, 30)))


@pytest.mark.parametrize("misuse", [
    lambda m, F: F.fold(m.ones(2, 7, 12), (4, 5), 2),  # 7 is no multiple of kH * kW
    lambda m, F: F.fold(m.ones(2, 12, 11), (4, 5), 2),  # 12 blocks fit, not 11
    lambda m, F: F.fold(m.ones(2, 3, 4, 4), (4, 5), 2),
    lambda m, F: F.fold(m.ones(2, 12, 12), (4, 5), 0),
])
def test_fold_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# embedding's max_norm: the rows looked up renormalised in place
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("max_norm, norm_type", [(1.0, 2.0), (2.5, 1.0), (0.5, np.inf),
                                                 (100.0, 2.0)])
def test_embedding_max_norm_renormalises_the_rows_used_as_torch(torch, max_norm, norm_type):
    table = rng.standard_normal((6, 3)) * 3
    ids = np.array([[0, 2], [2, 5]])
    weight, their_weight = Tensor(table.copy(), requires_grad=True), torch.tensor(
        table.copy(), requires_grad=True)
    out = F.embedding(ids, weight, max_norm=max_norm, norm_type=norm_type)
    expected = torch.nn.functional.embedding(torch.tensor(ids), their_weight, max_norm=max_norm,
                                             norm_type=norm_type)
    np.testing.assert_allclose(weight.data, their_weight.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12)
    # by the formula: the rows used now have norm min(norm, max_norm) (up to the 1e-7); the
    # others are untouched
    norms = np.linalg.norm(table[[0, 2, 5]], ord=norm_type, axis=1)
    np.testing.assert_allclose(np.linalg.norm(weight.data[[0, 2, 5]], ord=norm_type, axis=1),
                               np.minimum(norms, max_norm), rtol=1e-6)
    np.testing.assert_array_equal(weight.data[[1, 3, 4]], table[[1, 3, 4]])
    upstream = rng.standard_normal(out.shape)
    out.backward(upstream)
    expected.backward(torch.tensor(upstream))
    np.testing.assert_allclose(weight.grad, their_weight.grad.numpy(), rtol=1e-12)


def test_embedding_max_norm_changes_the_weight_a_graph_used_before_as_torch(torch):
    """The renormalisation is an in-place change of weight: a graph that read weight before
    refuses its backward, in both libraries."""
    table = rng.standard_normal((4, 3)) * 3
    for lib, F_ in ((minigrad, F), (torch, torch.nn.functional)):
        weight = lib.tensor(table, requires_grad=True)
        earlier = (weight * weight).sum()
        F_.embedding(lib.tensor([1, 2]), weight, max_norm=1.0)
        with pytest.raises(RuntimeError):
            earlier.backward()


def test_embedding_max_norm_looked_up_twice_backward_as_torch(torch):
    """One Embedding with max_norm used twice in a forward (overlapping ids): the second look-up
    renormalises rows the first used, but embedding's backward reads only the ids, so PyTorch
    runs backward, and so must the fused kernel (and the GetItem path)."""
    table = rng.standard_normal((6, 4)) * 3
    ids_a, ids_b = np.array([0, 1]), np.array([1, 2, 3])
    theirs = torch.tensor(table, requires_grad=True)
    first = torch.nn.functional.embedding(torch.tensor(ids_a), theirs, max_norm=1.0)
    second = torch.nn.functional.embedding(torch.tensor(ids_b), theirs, max_norm=1.0)
    (2 * first.sum() + (second * second).sum()).backward()
    for fused in (True, False):
        with minigrad.fused(fused):
            weight = Tensor(table.copy(), requires_grad=True)
            first = F.embedding(ids_a, weight, max_norm=1.0)
            second = F.embedding(ids_b, weight, max_norm=1.0)
            (2 * first.sum() + (second * second).sum()).backward()
        np.testing.assert_allclose(weight.data, theirs.detach().numpy(), rtol=1e-12)
        np.testing.assert_allclose(weight.grad, theirs.grad.numpy(), rtol=1e-12)


def test_embedding_module_max_norm_as_torch(torch):
    for kwargs in (dict(max_norm=1.5), dict(max_norm=2.0, norm_type=1.0, padding_idx=0), {}):
        ours = nn.Embedding(5, 3, **kwargs, dtype=np.float64)
        theirs = torch.nn.Embedding(5, 3, **kwargs, dtype=torch.float64)
        assert repr(ours) == repr(theirs)
        with torch.no_grad():
            theirs.weight.copy_(torch.tensor(ours.weight.data * 3))
        with minigrad.no_grad():
            ours.weight.mul_(3)
        ids = np.array([[1, 4, 4], [0, 2, 1]])
        np.testing.assert_allclose(ours(ids).data, theirs(torch.tensor(ids)).detach().numpy(),
                                   rtol=1e-12)
        np.testing.assert_allclose(ours.weight.data, theirs.weight.detach().numpy(), rtol=1e-12)
    pretrained = nn.Embedding.from_pretrained(np.full((3, 2), 4.0), max_norm=1.0)
    assert repr(pretrained) == repr(torch.nn.Embedding.from_pretrained(torch.full((3, 2), 4.0),
                                                                       max_norm=1.0))
    np.testing.assert_allclose(pretrained(np.array([1])).data, [[1 / 2 ** 0.5] * 2], rtol=1e-6)


# --------------------------------------------------------------------------------------------
# BatchNorm3d and the InstanceNorm layers
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("make, shape", [
    (lambda lib, dtype: lib.nn.BatchNorm3d(3, dtype=dtype), (2, 3, 2, 3, 4)),
    (lambda lib, dtype: lib.nn.InstanceNorm1d(3, dtype=dtype), (2, 3, 5)),
    (lambda lib, dtype: lib.nn.InstanceNorm1d(3, dtype=dtype), (3, 5)),
    (lambda lib, dtype: lib.nn.InstanceNorm2d(3, affine=True, track_running_stats=True,
                                              dtype=dtype), (2, 3, 4, 5)),
    (lambda lib, dtype: lib.nn.InstanceNorm2d(3, momentum=None, track_running_stats=True,
                                              dtype=dtype), (3, 4, 5)),
    (lambda lib, dtype: lib.nn.InstanceNorm3d(2, 1e-3, 0.3, True, bias=False, dtype=dtype),
     (2, 2, 3, 2, 4)),
])
def test_batch_norm_3d_and_instance_norm_modules_match_torch(torch, make, shape):
    ours, theirs = make(minigrad, np.float64), make(torch, torch.float64)
    assert repr(ours) == repr(theirs)
    assert {k: v.shape for k, v in ours.state_dict().items()} == \
        {k: tuple(v.shape) for k, v in theirs.state_dict().items()}
    for _ in range(2):  # training: the batch's statistics, the running ones updated
        data = rng.standard_normal(shape) * 2 + 1
        x, tx = Tensor(data, requires_grad=True), torch.tensor(data, requires_grad=True)
        out, expected = ours(x), theirs(tx)
        np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-10, atol=1e-12)
        upstream = np.cos(np.arange(out.numel())).reshape(out.shape)
        out.backward(upstream)
        expected.backward(torch.tensor(upstream))
        np.testing.assert_allclose(x.grad, tx.grad.numpy(), rtol=1e-9, atol=1e-12)
    their_state = theirs.state_dict()
    for name, value in ours.state_dict().items():
        np.testing.assert_allclose(value.data, their_state[name].numpy(), rtol=1e-12,
                                   err_msg=name)
    ours.eval(), theirs.eval()
    data = rng.standard_normal(shape)
    np.testing.assert_allclose(ours(Tensor(data)).data,
                               theirs(torch.tensor(data)).detach().numpy(), rtol=1e-10,
                               atol=1e-12)


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.nn.InstanceNorm1d(3, affine=True)(m.randn(2, 4, 5)),
    lambda m, F: m.nn.InstanceNorm2d(3)(m.randn(3, 5)),
    lambda m, F: m.nn.BatchNorm3d(3)(m.randn(2, 3, 4, 5)),
])
def test_instance_norm_and_batch_norm_3d_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


# --------------------------------------------------------------------------------------------
# Transformer layers against PyTorch's, weights copied through the state dict
# --------------------------------------------------------------------------------------------
def _copy_torch_state(ours, theirs):
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})


def _check_like_torch(torch, ours, theirs, arrays, kwargs, rtol=1e-9):
    """ours(*arrays, **kwargs) against theirs in value and in the gradients of the inputs and
    of every parameter (the same names, in the same order), for one random upstream gradient."""
    leaves = [Tensor(a, requires_grad=True) for a in arrays]
    t_leaves = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = ours(*leaves, **kwargs)
    t_out = theirs(*t_leaves, **{k: torch.tensor(v) if isinstance(v, np.ndarray) else v
                                 for k, v in kwargs.items()})
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=rtol, atol=1e-11)
    upstream = rng.standard_normal(out.shape)
    (out * upstream).sum().backward()
    (t_out * torch.tensor(upstream)).sum().backward()
    for leaf, t_leaf in zip(leaves, t_leaves):
        np.testing.assert_allclose(leaf.grad, t_leaf.grad.numpy(), rtol=rtol, atol=1e-11)
    t_params = dict(theirs.named_parameters())
    assert [name for name, _ in ours.named_parameters()] == list(t_params)
    for name, p in ours.named_parameters():
        np.testing.assert_allclose(p.grad, t_params[name].grad.numpy(), rtol=rtol, atol=1e-11,
                                   err_msg=name)
    return out


def _sequence(length, batch, batch_first, width=8):
    shape = (length, width) if batch is None else (batch, length, width) if batch_first \
        else (length, batch, width)
    return rng.standard_normal(shape)


def _masks(kind, length, source, batch):
    """An attn mask (length, source) and key padding mask (batch, source) of `kind`, every
    query left at least one key (PyTorch's weights are NaN otherwise)."""
    if kind == "none":
        return None, None
    if kind == "causal":
        return np.triu(np.full((length, source), -np.inf), 1), None
    attn = rng.random((length, source)) < 0.3
    attn[:, 0] = False
    padding = np.zeros((batch, source), bool)
    padding[-1, -2:] = True
    if kind == "float":
        return np.where(attn, -np.inf, rng.standard_normal(attn.shape)), \
            np.where(padding, -np.inf, 0.0)
    return attn, padding


TRANSFORMER_LAYOUTS = [  # batch_first, norm_first, masks, training, activation
    (False, False, "bool", False, "relu"), (True, True, "float", True, "gelu"),
    (True, False, "causal", True, "relu"), (False, True, "none", False, "gelu"),
]


@pytest.mark.parametrize("batch_first, norm_first, masks, training, activation",
                         TRANSFORMER_LAYOUTS)
def test_transformer_encoder_matches_torch(torch, batch_first, norm_first, masks, training,
                                           activation):
    """A TransformerEncoder of 2 layers with a final norm, PyTorch's state dict loaded, in
    values and in the gradients of the input and every parameter (float64, dropout 0)."""
    settings = dict(dim_feedforward=16, dropout=0.0, activation=activation,
                    batch_first=batch_first, norm_first=norm_first)
    theirs = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, **settings), 2,
                                         torch.nn.LayerNorm(8), enable_nested_tensor=False)
    theirs.double().train(training)
    ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, **settings, dtype=np.float64),
                                 2, nn.LayerNorm(8, dtype=np.float64),
                                 enable_nested_tensor=False).train(training)
    _copy_torch_state(ours, theirs)
    mask, padding = _masks(masks, 5, 5, 3)
    kwargs = dict(mask=mask, src_key_padding_mask=padding)
    if masks == "causal":
        kwargs["is_causal"] = True
    _check_like_torch(torch, ours, theirs, [_sequence(5, 3, batch_first)],
                      {k: v for k, v in kwargs.items() if v is not None})


@pytest.mark.parametrize("batch_first, norm_first, masks, training, activation",
                         TRANSFORMER_LAYOUTS)
def test_transformer_matches_torch(torch, batch_first, norm_first, masks, training, activation):
    """nn.Transformer (encoder and decoder, each 2 layers): every mask and key padding mask,
    values and the gradients of src, tgt and every parameter."""
    settings = dict(d_model=8, nhead=2, num_encoder_layers=2, num_decoder_layers=2,
                    dim_feedforward=16, dropout=0.0, activation=activation,
                    batch_first=batch_first, norm_first=norm_first)
    theirs = torch.nn.Transformer(**settings).double().train(training)
    ours = nn.Transformer(**settings, dtype=np.float64).train(training)
    _copy_torch_state(ours, theirs)
    src_mask, src_padding = _masks(masks, 5, 5, 3)
    tgt_mask, tgt_padding = _masks(masks, 4, 4, 3)
    memory_mask, memory_padding = _masks("bool" if masks == "causal" else masks, 4, 5, 3)
    kwargs = dict(src_mask=src_mask, tgt_mask=tgt_mask, memory_mask=memory_mask,
                  src_key_padding_mask=src_padding, tgt_key_padding_mask=tgt_padding,
                  memory_key_padding_mask=memory_padding)
    if masks == "causal":
        kwargs.update(src_is_causal=True, tgt_is_causal=True)
    _check_like_torch(torch, ours, theirs,
                      [_sequence(5, 3, batch_first), _sequence(4, 3, batch_first)],
                      {k: v for k, v in kwargs.items() if v is not None})


@pytest.mark.parametrize("norm_first", [False, True])
def test_transformer_layers_unbatched_and_without_bias_match_torch(torch, norm_first):
    """The layers alone on unbatched inputs, with bias=False and an activation module."""
    settings = dict(dim_feedforward=16, dropout=0.0, norm_first=norm_first, bias=False)
    theirs = torch.nn.TransformerDecoderLayer(8, 4, activation=torch.nn.GELU(), **settings)
    theirs.double()
    ours = nn.TransformerDecoderLayer(8, 4, activation=nn.GELU(), **settings, dtype=np.float64)
    _copy_torch_state(ours, theirs)
    padding = np.array([False, True, False, False, False])
    _check_like_torch(torch, ours, theirs, [_sequence(3, None, False), _sequence(5, None, False)],
                      dict(memory_key_padding_mask=padding,
                           tgt_mask=np.triu(np.ones((3, 3), bool), 1)))
    theirs = torch.nn.TransformerEncoderLayer(8, 4, **settings).double()
    ours = nn.TransformerEncoderLayer(8, 4, **settings, dtype=np.float64)
    _copy_torch_state(ours, theirs)
    _check_like_torch(torch, ours, theirs, [_sequence(5, None, False)],
                      dict(src_key_padding_mask=padding))


def test_transformer_keeps_float32_and_builds_torchs_state_dict(torch):
    ours = nn.Transformer(8, 2, 1, 1, 16, rng=np.random.default_rng(0))
    theirs = torch.nn.Transformer(8, 2, 1, 1, 16)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert all(ours.state_dict()[k].shape == tuple(v.shape)
               for k, v in theirs.state_dict().items())
    assert all(p.dtype == np.float32 for p in ours.parameters())
    src = Tensor(rng.standard_normal((5, 2, 8)).astype(np.float32), requires_grad=True)
    tgt = Tensor(rng.standard_normal((4, 2, 8)).astype(np.float32), requires_grad=True)
    out = ours(src, tgt, tgt_mask=nn.Transformer.generate_square_subsequent_mask(4))
    assert out.dtype == np.float32 and out.shape == (4, 2, 8)
    out.sum().backward()
    assert src.grad.dtype == np.float32 and tgt.grad.dtype == np.float32
    assert all(p.grad.dtype == np.float32 for p in ours.parameters())


def test_transformer_initialises_as_torch():
    """Glorot-uniform for every matrix (PyTorch's _reset_parameters), zero attention biases,
    LayerNorms at ones and zeros; the stacked layers start equal, as deep copies."""
    model = nn.Transformer(16, 4, 2, 2, 32, rng=np.random.default_rng(0))
    for name, p in model.named_parameters():
        if p.ndim > 1:
            bound = math.sqrt(6 / sum(p.shape))
            assert np.abs(p.data).max() <= bound and np.abs(p.data).max() > 0.9 * bound, name
        elif "norm" in name:
            assert np.all(p.data == (1 if name.endswith("weight") else 0)), name
    encoder = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16), 3)
    first, *others = [dict(layer.named_parameters()) for layer in encoder.layers]
    for other in others:
        for name, p in other.items():
            np.testing.assert_array_equal(p.data, first[name].data)
            assert p is not first[name]


def test_transformer_takes_a_custom_encoder_and_decoder(torch):
    """custom_encoder and custom_decoder replace the stacks (here, stacks without the final
    norms) and are called with PyTorch's keyword arguments."""
    settings = dict(d_model=8, nhead=2, dim_feedforward=16, dropout=0.0)
    ours = nn.Transformer(
        **settings, dtype=np.float64,  # stacks of one layer, without their final norm
        custom_encoder=nn.TransformerEncoder(
            nn.TransformerEncoderLayer(**settings, dtype=np.float64), 1),
        custom_decoder=nn.TransformerDecoder(
            nn.TransformerDecoderLayer(**settings, dtype=np.float64), 1))
    theirs = torch.nn.Transformer(
        **settings,
        custom_encoder=torch.nn.TransformerEncoder(
            torch.nn.TransformerEncoderLayer(**settings), 1, enable_nested_tensor=False),
        custom_decoder=torch.nn.TransformerDecoder(
            torch.nn.TransformerDecoderLayer(**settings), 1)).double()
    assert list(ours.state_dict()) == list(theirs.state_dict())
    _copy_torch_state(ours, theirs)
    _check_like_torch(torch, ours, theirs, [_sequence(5, 2, False), _sequence(3, 2, False)],
                      dict(src_key_padding_mask=np.array([[0, 0, 0, 1, 1], [0] * 5], bool)))

def test_transformer_generate_square_subsequent_mask_as_torch(torch):
    for dtype, t_dtype in ((None, None), (np.float64, torch.float64)):
        mask = nn.Transformer.generate_square_subsequent_mask(4, dtype=dtype)
        t_mask = torch.nn.Transformer.generate_square_subsequent_mask(4, dtype=t_dtype)
        np.testing.assert_array_equal(mask.data, t_mask.numpy())
        assert mask.dtype == t_mask.numpy().dtype


def test_transformer_dropout_is_seeded_differs_between_layers_and_is_off_in_eval():
    x = Tensor(rng.standard_normal((6, 2, 8)))

    def encoder(dropout):
        layer = nn.TransformerEncoderLayer(8, 2, 16, dropout, rng=np.random.default_rng(3))
        return nn.TransformerEncoder(layer, 2)

    model, plain = encoder(0.5), encoder(0.0)  # the same weights: dropout draws nothing at init
    np.testing.assert_array_equal(model(x).data, encoder(0.5)(x).data)
    assert not np.allclose(model(x).data, plain(x).data)
    first, second = model.layers
    assert first.dropout1.rng is second.dropout1.rng is second.self_attn.rng  # shared, not copied
    np.testing.assert_array_equal(model.eval()(x).data, plain(x).data)


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.nn.TransformerEncoderLayer(8, 2, activation="tanh"),
    lambda lib, F: lib.nn.TransformerEncoderLayer(8, 2)(lib.zeros(3, 1, 8), is_causal=True),
    lambda lib, F: lib.nn.TransformerDecoderLayer(8, 2)(lib.zeros(3, 1, 8), lib.zeros(2, 1, 8),
                                                     tgt_is_causal=True),
    lambda lib, F: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(3, 2, 8), lib.zeros(3, 1, 8)),
    lambda lib, F: lib.nn.Transformer(8, 2, 1, 1, 16)(lib.zeros(3, 2, 6), lib.zeros(3, 2, 6)),
    lambda lib, F: lib.nn.TransformerEncoderLayer(8, 2)(
        lib.zeros(3, 1, 8), src_mask=lib.zeros(3, 3, dtype=lib.int64)),
])
def test_transformer_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.filterwarnings("ignore:The PyTorch API of nested tensors:UserWarning")
def test_transformer_encoder_computes_padded_positions_where_torchs_fast_path_gives_zeros(torch):
    """PyTorch's eval-mode inference (batch_first, no grad) packs the unpadded positions into a
    nested tensor and returns 0 at the padded ones; minigrad computes them as PyTorch's other
    path does, and agrees with both elsewhere."""
    theirs = torch.nn.TransformerEncoder(
        torch.nn.TransformerEncoderLayer(8, 2, 16, batch_first=True), 2).double().eval()
    ours = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, batch_first=True,
                                                            dtype=np.float64), 2).eval()
    _copy_torch_state(ours, theirs)
    x, padding = rng.standard_normal((2, 5, 8)), np.array([[0, 0, 0, 0, 0], [0, 0, 0, 1, 1]], bool)
    out = ours(Tensor(x), src_key_padding_mask=padding).data
    with torch.no_grad():
        fast = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(padding)).numpy()
    slow = theirs(torch.tensor(x), src_key_padding_mask=torch.tensor(padding)).detach().numpy()
    np.testing.assert_allclose(out, slow, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(out[~padding], fast[~padding], rtol=1e-10, atol=1e-12)
    assert not fast[padding].any() and out[padding].all()


# --------------------------------------------------------------------------------------------
# embedding_bag and EmbeddingBag
# --------------------------------------------------------------------------------------------
@pytest.mark.parametrize("mode_name", ["sum", "mean", "max"])
def test_embedding_bag_of_empty_bags_is_zeros_with_no_gradient(torch, mode_name):
    """Every bag empty (offsets all equal to the input's length, or input empty), as
    PyTorch: zeros, and no gradient to the weight."""
    weight = Tensor(rng.standard_normal((5, 3)), requires_grad=True)
    t_weight = torch.tensor(weight.data, requires_grad=True)
    for ids, offsets in ((np.array([1, 2]), np.array([0, 2, 2])),
                         (np.zeros(0, np.int64), np.array([0, 0]))):
        weight.grad, t_weight.grad = None, None
        out = F.embedding_bag(ids, weight, offsets, mode=mode_name)
        t_out = torch.nn.functional.embedding_bag(torch.tensor(ids), t_weight,
                                                  torch.tensor(offsets), mode=mode_name)
        np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-12)
        assert not out.data[-1].any()
        out.sum().backward()
        t_out.sum().backward()
        np.testing.assert_allclose(weight.grad, t_weight.grad.numpy(), rtol=1e-12)


def test_embedding_bag_last_offset_ends_the_last_bag_as_documented():
    """With include_last_offset, offsets[-1] is "the ending index position of the last bag"
    (PyTorch's documentation); ids after it are in no bag. (PyTorch's CPU kernel runs the last
    bag to the end of the input instead.)"""
    weight = rng.standard_normal((10, 3))
    ids, offsets = np.array([1, 2, 4, 5, 4, 3, 2, 9]), np.array([0, 2, 5])
    out = F.embedding_bag(ids, Tensor(weight), offsets, mode="sum", include_last_offset=True)
    np.testing.assert_allclose(out.data, [weight[[1, 2]].sum(0), weight[[4, 5, 4]].sum(0)],
                               rtol=1e-12)


def test_embedding_bag_module_matches_torch_and_loads_its_state_dict(torch):
    kwargs = dict(mode="max", padding_idx=-2, max_norm=1.5)
    theirs = torch.nn.EmbeddingBag(10, 3, **kwargs).double()
    ours = nn.EmbeddingBag(10, 3, **kwargs, rng=np.random.default_rng(0), dtype=np.float64)
    assert repr(ours) == repr(theirs) and ours.padding_idx == theirs.padding_idx == 8
    assert not ours.weight.data[8].any()  # the padding row starts at zero, as PyTorch's
    ours.load_state_dict({k: v.detach().numpy() for k, v in theirs.state_dict().items()})
    ids, offsets = np.array([1, 8, 4, 5, 4, 3, 2, 9]), np.array([0, 3, 3])
    out = ours(ids, offsets)
    t_out = theirs(torch.tensor(ids), torch.tensor(offsets))
    np.testing.assert_allclose(out.data, t_out.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(ours.weight.data, theirs.weight.detach().numpy(), rtol=1e-12)
    upstream = rng.standard_normal(out.shape)
    (out * upstream).sum().backward()
    (t_out * torch.tensor(upstream)).sum().backward()
    np.testing.assert_allclose(ours.weight.grad, theirs.weight.grad.numpy(), rtol=1e-12)
    summed = nn.EmbeddingBag.from_pretrained(theirs.weight.detach().numpy(), mode="sum",
                                             include_last_offset=True)
    t_summed = torch.nn.EmbeddingBag.from_pretrained(theirs.weight.detach(), mode="sum",
                                                     include_last_offset=True)
    assert not summed.weight.requires_grad and repr(summed) == repr(t_summed)
    weights = rng.standard_normal(8)
    np.testing.assert_allclose(
        summed(ids, np.array([0, 3, 8]), Tensor(weights)).data,
        t_summed(torch.tensor(ids), torch.tensor([0, 3, 8]), torch.tensor(weights)).numpy(),
        rtol=1e-12)
    assert nn.EmbeddingBag(4, 2).weight.dtype == np.float32
    assert repr(nn.EmbeddingBag(5, 2)) == repr(torch.nn.EmbeddingBag(5, 2))


@pytest.mark.parametrize("misuse", [
    lambda lib, F: F.embedding_bag(lib.tensor([[1, 2]]), lib.ones(4, 2), lib.tensor([0])),
    lambda lib, F: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2)),
    lambda lib, F: F.embedding_bag(lib.tensor([[[1]]]), lib.ones(4, 2)),
    lambda lib, F: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([[0]])),
    lambda lib, F: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([1])),
    lambda lib, F: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([0, 3])),
    lambda lib, F: F.embedding_bag(lib.tensor([1, 2]), lib.ones(4, 2), lib.tensor([0.0])),
    lambda lib, F: F.embedding_bag(lib.tensor([1, 4]), lib.ones(4, 2), lib.tensor([0])),
    lambda lib, F: F.embedding_bag(lib.tensor([1.0]), lib.ones(4, 2), lib.tensor([0])),
    lambda lib, F: F.embedding_bag(lib.tensor([1]), lib.ones(4), lib.tensor([0])),
    lambda lib, F: F.embedding_bag(lib.tensor([1]), lib.ones(4, 2), lib.tensor([0]),
                                   mode="min"),
    lambda lib, F: F.embedding_bag(lib.tensor([1]), lib.ones(4, 2), lib.tensor([0]),
                                   per_sample_weights=lib.ones(1)),
    lambda lib, F: F.embedding_bag(lib.tensor([1]), lib.ones(4, 2), lib.tensor([0]),
                                   mode="sum", per_sample_weights=lib.ones(2)),
    lambda lib, F: F.embedding_bag(lib.tensor([1]), lib.ones(4, 2), lib.tensor([0]),
                                   mode="sum", per_sample_weights=lib.ones(1).double()),
    lambda lib, F: F.embedding_bag(lib.tensor([1]), lib.ones(4, 2), lib.tensor([0]),
                                   padding_idx=4),
    lambda lib, F: lib.nn.EmbeddingBag(4, 2, padding_idx=4),
])
def test_embedding_bag_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_embedding_bag_max_gives_a_tie_to_its_first_entry_as_torch(torch):
    weight = Tensor(np.ones((4, 2)), requires_grad=True)
    t_weight = torch.ones(4, 2, dtype=torch.float64, requires_grad=True)
    F.embedding_bag(np.array([[2, 0, 1]]), weight, mode="max").sum().backward()
    torch.nn.functional.embedding_bag(torch.tensor([[2, 0, 1]]), t_weight,
                                      mode="max").sum().backward()
    np.testing.assert_array_equal(weight.grad, t_weight.grad.numpy())
    assert weight.grad[2].all() and weight.grad.sum() == 2


def test_embedding_bag_of_no_bags_or_bags_of_no_columns():
    """Where PyTorch crashes (no offsets) or raises (a (B, 0) input): (0, dim), and zeros."""
    weight = Tensor(rng.standard_normal((4, 3)), requires_grad=True)
    assert F.embedding_bag(np.array([1, 2]), weight, np.zeros(0, np.int64)).shape == (0, 3)
    assert F.embedding_bag(np.array([1, 2]), weight, np.array([0]),
                           include_last_offset=True).shape == (0, 3)
    for mode_name in ("sum", "mean", "max"):
        out = F.embedding_bag(np.zeros((2, 0), np.int64), weight, mode=mode_name)
        np.testing.assert_array_equal(out.data, np.zeros((2, 3)))


def test_embedding_bag_refuses_decreasing_offsets_which_torch_does_not_check():
    with pytest.raises(RuntimeError, match="never decrease"):
        F.embedding_bag(np.array([1, 2, 3]), Tensor(np.ones((4, 2))), np.array([0, 2, 1]))


# --------------------------------------------------------------------------------------------
# ctc_loss and CTCLoss
# --------------------------------------------------------------------------------------------
def _ctc_inputs():
    logits = rng.standard_normal((7, 3, 5))
    return logits - np.log(np.exp(logits).sum(-1, keepdims=True))


def test_ctc_loss_gradient_is_its_derivative_where_torchs_adds_the_probabilities(torch):
    """For log_probs alone, PyTorch's gradient is the derivative of its loss plus exp(log_probs)
    times the loss's upstream gradient, at the steps each sample reads (the gradient with
    respect to the logits of a log_softmax, which the term cancels through; the ctc_loss cases
    above check that path). minigrad's is the derivative itself (gradcheck)."""
    log_probs, lengths = _ctc_inputs(), (np.array([7, 5, 4]), np.array([3, 4, 1]))
    leaf = Tensor(log_probs, requires_grad=True)
    with minigrad.fused(False):
        assert gradcheck(lambda x: F.ctc_loss(x, CTC_TARGETS, *lengths, reduction="sum"),
                         [leaf])
    upstream = np.array([0.5, -1.0, 2.0])
    (F.ctc_loss(leaf, CTC_TARGETS, *lengths, reduction="none") * upstream).sum().backward()
    t_leaf = torch.tensor(log_probs, requires_grad=True)
    t_loss = torch.nn.functional.ctc_loss(t_leaf, torch.tensor(CTC_TARGETS),
                                          *map(torch.tensor, lengths), reduction="none")
    (t_loss * torch.tensor(upstream)).sum().backward()
    read = np.arange(7)[:, None, None] < lengths[0][:, None]
    np.testing.assert_allclose(t_leaf.grad.numpy(),
                               leaf.grad + np.where(read, np.exp(log_probs) * upstream[:, None], 0),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("zero_infinity", [False, True])
def test_ctc_loss_of_an_impossible_alignment_as_torch(torch, reduction, zero_infinity):
    """Sample 0 has 2 steps for 3 labels; sample 1 needs a blank between its repeated labels,
    so 2 steps do not fit either. Their loss is inf (0 with zero_infinity), as PyTorch's. With
    zero_infinity their gradient is 0, as PyTorch's; without it, PyTorch's is NaN at the steps
    they read and minigrad's 0 (the loss is inf whatever log_probs are). The third sample's
    gradient is PyTorch's either way."""
    logits = rng.standard_normal((7, 3, 5))
    targets, lengths = np.array([[1, 2, 2], [3, 3, 0], [2, 4, 1]]), \
        (np.array([2, 2, 6]), np.array([3, 2, 3]))
    leaf, t_leaf = Tensor(logits, requires_grad=True), torch.tensor(logits, requires_grad=True)
    loss = F.ctc_loss(F.log_softmax(leaf, -1), targets, *lengths, reduction=reduction,
                      zero_infinity=zero_infinity)
    t_loss = torch.nn.functional.ctc_loss(t_leaf.log_softmax(-1), torch.tensor(targets),
                                          *map(torch.tensor, lengths), reduction=reduction,
                                          zero_infinity=zero_infinity)
    np.testing.assert_allclose(loss.data, t_loss.detach().numpy(), rtol=1e-10)
    assert np.isinf(loss.data).any() != zero_infinity
    if reduction == "none":
        np.testing.assert_array_equal(np.isinf(loss.data), [not zero_infinity] * 2 + [False])
    else:
        loss.backward()
        t_loss.backward()
        np.testing.assert_allclose(leaf.grad[:, 2], t_leaf.grad[:, 2].numpy(), rtol=1e-9,
                                   atol=1e-12)
        assert not leaf.grad[:, :2].any()
        assert np.isnan(t_leaf.grad[:2, :2].numpy()).all() != zero_infinity


def test_ctc_loss_keeps_float32_and_its_module_matches_torch(torch):
    log_probs, lengths = _ctc_inputs(), (np.array([7, 5, 4]), np.array([3, 4, 1]))
    for blank, reduction in ((0, "mean"), (0, "none")):
        module = nn.CTCLoss(blank, reduction)
        t_module = torch.nn.CTCLoss(blank, reduction)
        np.testing.assert_allclose(
            module(Tensor(log_probs), CTC_TARGETS, *lengths).data,
            t_module(torch.tensor(log_probs), torch.tensor(CTC_TARGETS),
                     *map(torch.tensor, lengths)).numpy(), rtol=1e-10)
    single = Tensor(log_probs.astype(np.float32), requires_grad=True)
    assert_keeps_float32(lambda x: F.ctc_loss(x, CTC_TARGETS, *lengths, reduction="none"),
                         [single])


@pytest.mark.parametrize("misuse", [
    lambda lib, F: F.ctc_loss(lib.zeros(4, 2, 3), lib.tensor([[1, 2]] * 2), lib.tensor([5, 4]),
                              lib.tensor([2, 2])),  # an input length past T
    lambda lib, F: F.ctc_loss(lib.zeros(4, 2, 3), lib.tensor([[1, 2]] * 2), lib.tensor([4, 4]),
                              lib.tensor([3, 2])),  # a target length past S
    lambda lib, F: F.ctc_loss(lib.zeros(4, 2, 3), lib.tensor([[1, 2]] * 2), lib.tensor([4]),
                              lib.tensor([2, 2])),
    lambda lib, F: F.ctc_loss(lib.zeros(4, 2, 3), lib.tensor([1, 2, 1]), lib.tensor([4, 4]),
                              lib.tensor([2, 2])),  # concatenated targets too short
    lambda lib, F: F.ctc_loss(lib.zeros(4, 2, 3), lib.tensor([[1, 2]] * 2), lib.tensor([-1, 4]),
                              lib.tensor([2, 2])),
    lambda lib, F: F.ctc_loss(lib.zeros(4, 2, 3, dtype=lib.int64), lib.tensor([[1, 2]] * 2),
                              lib.tensor([4, 4]), lib.tensor([2, 2])),
    lambda lib, F: F.ctc_loss(lib.zeros(4, 2, 3), lib.tensor([[1, 2]] * 2), lib.tensor([4, 4]),
                              lib.tensor([2, 2]), reduction="average"),
    lambda lib, F: F.ctc_loss(lib.zeros(4, 2, 3), lib.tensor([[1, 2]] * 2), lib.tensor([4, 4]),
                              lib.tensor([2, 2]), blank=3),
])
def test_ctc_loss_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("targets", [np.array([[1, 0]]), np.array([[1, 3]]),
                                     np.array([[1.0, 2.0]])])
def test_ctc_loss_refuses_targets_that_torch_does_not_check(targets):
    """A label equal to the blank or outside [0, C) (PyTorch computes with it, reading outside
    log_probs for the latter), or labels that are not integers (PyTorch truncates them)."""
    with pytest.raises((RuntimeError, TypeError), match="ctc_loss"):
        F.ctc_loss(Tensor(np.zeros((4, 1, 3))), targets, [4], [2])


# --------------------------------------------------------------------------------------------
# torch.celu, torch.conv2d, ...: the top-level spellings of nn.functional's ops, with PyTorch's
# top-level signatures
# --------------------------------------------------------------------------------------------
def _positive(*shape):
    return lambda r: r.uniform(0.5, 2.0, shape)


def _normal(*shape):
    return lambda r: r.standard_normal(shape)


def _signs(*shape):
    return lambda r: np.where(r.random(shape) < 0.5, -1.0, 1.0)


TOP_LEVEL = {  # name: (call on lib and its float64 inputs, makers of the inputs)
    "celu": (lambda lib, x: lib.celu(x, 0.5), [_normal(3, 4)]),
    "selu": (lambda lib, x: lib.selu(x), [_normal(3, 4)]),
    "threshold": (lambda lib, x: lib.threshold(x, 0.3, -2.0), [_normal(3, 4)]),
    "prelu": (lambda lib, x, w: lib.prelu(x, w), [_normal(2, 3, 4), _positive(3)]),
    "rrelu": (lambda lib, x: lib.rrelu(x, 0.1, 0.3), [_normal(3, 4)]),
    "hardshrink": (lambda lib, x: lib.hardshrink(x, 0.4), [_normal(3, 4)]),
    "dropout_off": (lambda lib, x: lib.dropout(x, 0.5, False), [_normal(3, 4)]),
    "alpha_dropout_off": (lambda lib, x: lib.alpha_dropout(x, 0.5, False), [_normal(3, 4)]),
    "feature_alpha_dropout_off": (lambda lib, x: lib.feature_alpha_dropout(x, 0.2, False),
                                  [_normal(2, 3, 4)]),
    "pdist": (lambda lib, x: lib.pdist(x, 3.0), [_normal(4, 3)]),
    "pixel_shuffle": (lambda lib, x: lib.pixel_shuffle(x, 2), [_normal(1, 8, 2, 3)]),
    "pixel_unshuffle": (lambda lib, x: lib.pixel_unshuffle(x, 2), [_normal(1, 2, 4, 6)]),
    "channel_shuffle": (lambda lib, x: lib.channel_shuffle(x, 2), [_normal(1, 4, 2, 2)]),
    "bilinear": (lambda lib, a, b, w, c: lib.bilinear(a, b, w, c),
                 [_normal(3, 2), _normal(3, 4), _normal(5, 2, 4), _normal(5)]),
    "conv1d": (lambda lib, x, w, b: lib.conv1d(x, w, b, 2, 1, 1, 1),
               [_normal(2, 3, 7), _normal(4, 3, 3), _normal(4)]),
    "conv2d": (lambda lib, x, w: lib.conv2d(x, w, None, 1, "same", 2, 2),
               [_normal(1, 4, 5, 5), _normal(2, 2, 3, 3)]),
    "conv3d": (lambda lib, x, w: lib.conv3d(x, w, stride=2),
               [_normal(1, 2, 4, 4, 4), _normal(3, 2, 2, 2, 2)]),
    "conv_transpose1d": (lambda lib, x, w: lib.conv_transpose1d(x, w, None, 2, 1, 1),
                         [_normal(2, 3, 5), _normal(3, 2, 3)]),
    "conv_transpose2d": (lambda lib, x, w, b: lib.conv_transpose2d(x, w, b, 1, 0, 0, 1, 2),
                         [_normal(1, 2, 3, 3), _normal(2, 3, 2, 2), _normal(3)]),
    "conv_transpose3d": (lambda lib, x, w: lib.conv_transpose3d(x, w, stride=2),
                         [_normal(1, 2, 2, 2, 2), _normal(2, 1, 2, 2, 2)]),
    "avg_pool1d": (lambda lib, x: lib.avg_pool1d(x, 3, 2, 1, True, False), [_normal(2, 3, 8)]),
    "max_pool1d": (lambda lib, x: lib.max_pool1d(x, 3, 2, 1), [_normal(2, 3, 8)]),
    "max_pool1d_with_indices": (lambda lib, x: lib.max_pool1d_with_indices(x, 2, 1, 1),
                                [_normal(2, 3, 6)]),
    "max_pool2d": (lambda lib, x: lib.max_pool2d(x, 2, ceil_mode=True), [_normal(1, 2, 5, 5)]),
    "max_pool3d": (lambda lib, x: lib.max_pool3d(x, 2, 1, 0, 2), [_normal(1, 1, 5, 5, 5)]),
    "adaptive_avg_pool1d": (lambda lib, x: lib.adaptive_avg_pool1d(x, 3), [_normal(2, 3, 7)]),
    "adaptive_max_pool1d": (lambda lib, x: lib.adaptive_max_pool1d(x, 3), [_normal(2, 3, 7)]),
    "embedding": (lambda lib, w: lib.embedding(w, lib.tensor([[0, 2], [2, 3]])),
                  [_normal(4, 3)]),
    "embedding_padding_idx": (lambda lib, w: lib.embedding(w, lib.tensor([1, 0, 1]), 1),
                              [_normal(4, 3)]),
    # negative padding indices other than -1 count no row from the end: no row is padding
    "embedding_negative_padding_idx": (
        lambda lib, w: lib.embedding(w, lib.tensor([1, 2, 3]), -2), [_normal(4, 3)]),
    "layer_norm": (lambda lib, x, w, b: lib.layer_norm(x, (3, 4), w, b, 1e-3),
                   [_normal(2, 3, 4), _normal(3, 4), _normal(3, 4)]),
    "group_norm": (lambda lib, x, w, b: lib.group_norm(x, 2, w, b),
                   [_normal(2, 4, 3), _normal(4), _normal(4)]),
    "rms_norm": (lambda lib, x, w: lib.rms_norm(x, [4], w, 1e-4), [_normal(2, 3, 4), _normal(4)]),
    "batch_norm": (lambda lib, x, w, b: lib.batch_norm(x, w, b, None, None, True, 0.1, 1e-5,
                                                       False),
                   [_normal(4, 3, 2), _normal(3), _normal(3)]),
    "batch_norm_running": (lambda lib, x: lib.batch_norm(
        x, None, None, lib.tensor([0.5, -1.0, 0.0], dtype=lib.float64),
        lib.tensor([2.0, 0.5, 1.0], dtype=lib.float64), False, 0.1, 1e-3, True), [_normal(4, 3)]),
    "instance_norm": (lambda lib, x, w, b: lib.instance_norm(x, w, b, None, None, True, 0.1,
                                                             1e-5, False),
                      [_normal(2, 3, 5), _normal(3), _normal(3)]),
    "constant_pad_nd": (lambda lib, x: lib.constant_pad_nd(x, [1, 2, 0, -1], 1.5),
                        [_normal(2, 3, 4)]),
    "kl_div": (lambda lib, x, t: lib.kl_div(x, t, 2), [_normal(3, 4), _positive(3, 4)]),
    "kl_div_log_target": (lambda lib, x, t: lib.kl_div(x, t, 0, log_target=True),
                          [_normal(3, 4), _normal(3, 4)]),
    "hinge_embedding_loss": (lambda lib, x, t: lib.hinge_embedding_loss(x, t, 0.5, 0),
                             [_normal(3, 4), _signs(3, 4)]),
    "margin_ranking_loss": (lambda lib, a, b, t: lib.margin_ranking_loss(a, b, t, 0.1),
                            [_normal(5), _normal(5), _signs(5)]),
    "cosine_embedding_loss": (lambda lib, a, b, t: lib.cosine_embedding_loss(a, b, t, 0.2, 2),
                              [_normal(5, 3), _normal(5, 3), _signs(5)]),
    "triplet_margin_loss": (lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n, 1.0, 1.5,
                                                                         1e-6, True, 0),
                            [_normal(4, 3), _normal(4, 3), _normal(4, 3)]),
    "poisson_nll_loss": (lambda lib, x, t: lib.poisson_nll_loss(x, t, False, True, 1e-6, 1),
                         [_positive(3, 4), _positive(3, 4)]),
    "binary_cross_entropy_with_logits": (
        lambda lib, x, t: lib.binary_cross_entropy_with_logits(
            x, t, lib.tensor([1.0, 0.5, 2.0, 1.5], dtype=lib.float64),
            lib.tensor([2.0, 1.0, 0.5, 3.0], dtype=lib.float64), 2),
        [_normal(3, 4), _positive(3, 4)]),
    # the losses' default reduction is none, as PyTorch 2.13's top-level functions'
    "kl_div_default": (lambda lib, x, t: lib.kl_div(x, t), [_normal(3, 4), _positive(3, 4)]),
    "hinge_embedding_loss_default": (lambda lib, x, t: lib.hinge_embedding_loss(x, t),
                                     [_normal(3, 4), _signs(3, 4)]),
    "margin_ranking_loss_default": (lambda lib, a, b, t: lib.margin_ranking_loss(a, b, t),
                                    [_normal(5), _normal(5), _signs(5)]),
    "cosine_embedding_loss_default": (lambda lib, a, b, t: lib.cosine_embedding_loss(a, b, t),
                                      [_normal(5, 3), _normal(5, 3), _signs(5)]),
    "triplet_margin_loss_default": (lambda lib, a, p, n: lib.triplet_margin_loss(a, p, n),
                                    [_normal(4, 3), _normal(4, 3), _normal(4, 3)]),
    "binary_cross_entropy_with_logits_default": (
        lambda lib, x, t: lib.binary_cross_entropy_with_logits(x, t),
        [_normal(3, 4), _positive(3, 4)]),
}


@pytest.mark.parametrize("name", list(TOP_LEVEL))
def test_top_level_spellings_of_functional_ops_match_torch(name, torch):
    """Values and the gradients of every float input, with the arguments as torch.<name> takes
    them (by position where PyTorch's function has them)."""
    call, makers = TOP_LEVEL[name]
    arrays = [make(np.random.default_rng(i)) for i, make in enumerate(makers)]
    ours = [Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, expected = call(minigrad, *ours), call(torch, *theirs)
    out, expected = (out[0], expected[0]) if isinstance(out, tuple) else (out, expected)
    assert out.shape == tuple(expected.shape) and out.dtype == np.float64
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-10, atol=1e-12)
    weights = np.random.default_rng(9).standard_normal(out.shape)
    (out * weights).sum().backward()
    (expected * torch.tensor(weights)).sum().backward()
    for mine, torch_leaf in zip(ours, theirs):
        want = np.zeros(mine.shape) if torch_leaf.grad is None else torch_leaf.grad.numpy()
        got = np.zeros(mine.shape) if mine.grad is None else mine.grad
        np.testing.assert_allclose(got, want, rtol=1e-9, atol=1e-12)


def test_top_level_dropouts_take_p_and_train_and_losses_a_reduction_number():
    x = minigrad.ones(20_000)
    minigrad.manual_seed(0)
    kept = minigrad.dropout(x, 0.25, True).data
    assert set(np.unique(kept)) == {0.0, np.float32(1 / 0.75)}
    assert abs((kept == 0).mean() - 0.25) < 0.01
    assert minigrad.dropout(x, 0.0, True).tolist() == x.tolist()
    assert minigrad.alpha_dropout(x, 0.5, True).shape == x.shape
    with pytest.raises(ValueError, match="reduction must be 0"):  # PyTorch reduces nothing
        minigrad.kl_div(x, x, 3)
    indices = minigrad.adaptive_max_pool1d(minigrad.arange(6.0).reshape(1, 1, 6), 2)[1]
    assert indices.tolist() == [[[2, 5]]]  # with the values, always: no return_indices
    indices = minigrad.max_pool1d_with_indices(minigrad.arange(6.0).reshape(1, 1, 6), 2)[1]
    assert indices.tolist() == [[[1, 3, 5]]]


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.dropout(lib.ones(3), 0.5),  # train has no default
    lambda lib, F: lib.kl_div(lib.ones(3), lib.ones(3), "sum"),  # reduction is a number
    lambda lib, F: lib.celu(lib.ones(3), 1.0, True),  # no inplace
    lambda lib, F: lib.conv2d(lib.ones(1, 2, 3, 3), lib.ones(1, 3, 2, 2)),
    lambda lib, F: lib.embedding(lib.tensor([0, 1]), lib.ones(3, 2)),  # the table comes first
])
def test_top_level_spellings_refuse_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)
