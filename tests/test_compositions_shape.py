"""Shape ops (view, flatten, unflatten, squeeze, unsqueeze, movedim, expand, repeat, flip, roll,
narrow, split, chunk, gather, index_select, take, scatter_add, masked_select, tril, triu,
diagonal, pad, one_hot, cat, stack, fliplr, flipud, rot90, diff, take_along_dim, atleast_nd,
hstack, vstack) and linear algebra (matmul, dot, outer, einsum, cross, cdist, tensordot,
inner, kron, block_diag, cartesian_prod): each against a hand-written numpy reference,
gradient-checked in float64 on primitives alone, float32 kept, and against PyTorch (values and
gradients) when it is installed; then the errors for bad dims and shapes.
"""
import itertools

import numpy as np
import pytest

import minigrad
import minigrad.functional as F
from minigrad import Tensor, gradcheck

from tests.helpers import assert_raises_like_torch
from tests.op_checks import (Case, check_against_torch, check_float32, check_forward,
                             check_gradcheck, torch_or_skip)


def _torch():
    return torch_or_skip()


def _gather_loops(x, dim, index):
    out = np.empty(index.shape)
    for pos in np.ndindex(*index.shape):
        source = list(pos)
        source[dim] = index[pos]
        out[pos] = x[tuple(source)]
    return out


def _scatter_add_loops(x, dim, index, src):
    out = x.copy()
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        out[tuple(target)] += src[pos]
    return out


def _diagonal_matrices(x, offset):
    """Each last-dim slice written by loops down the offset-th diagonal of a zero matrix."""
    n = x.shape[-1]
    out = np.zeros(x.shape[:-1] + (n + abs(offset),) * 2)
    for i in range(n):
        out[..., i + max(-offset, 0), i + max(offset, 0)] = x[..., i]
    return out


def _diagonal_scattered(x, s, offset, dim1, dim2):
    """Loops: s[..., k] written at the k-th entry of the offset-th diagonal of the planes
    spanned by dim1 (rows) and dim2 (columns)."""
    out = x.copy()
    for k in range(s.shape[-1]):
        index = [slice(None)] * x.ndim
        index[dim1], index[dim2] = k + max(-offset, 0), k + max(offset, 0)
        out[tuple(index)] = s[..., k]
    return out


def _index_add_loops(x, dim, index, source):
    out = np.moveaxis(x.copy(), dim, 0)
    for i, place in enumerate(index):
        out[place] += np.moveaxis(source, dim, 0)[i]
    return np.moveaxis(out, 0, dim)


def _index_copy_loops(x, dim, index, source):
    out = np.moveaxis(x.copy(), dim, 0)
    for i, place in enumerate(index):
        out[place] = np.moveaxis(source, dim, 0)[i]
    return np.moveaxis(out, 0, dim)


def _index_put_loops(x, indices, values, accumulate):
    """Loops: values (broadcast) written, or added, one by one at the places the integer
    `indices` (one per leading dim, broadcast together) name."""
    out = x.copy()
    places = np.broadcast_arrays(*indices)
    values = np.broadcast_to(values, places[0].shape + x.shape[len(indices):])
    for pos in np.ndindex(*places[0].shape):
        target = tuple(p[pos] for p in places)
        out[target] = out[target] + values[pos] if accumulate else values[pos]
    return out


def _masked_scatter_loops(x, mask, source):
    """Loops: source's entries, in row-major order, written where the broadcast mask is True."""
    shape = np.broadcast_shapes(x.shape, mask.shape)
    out, mask, entries = np.broadcast_to(x, shape).copy(), np.broadcast_to(mask, shape), \
        iter(source.reshape(-1))
    for pos in np.ndindex(*shape):
        if mask[pos]:
            out[pos] = next(entries)
    return out


def _distances(a, b, p):
    """Loops: the p-norm distance between each row of a and each row of b (batch dims of a)."""
    a, b = np.broadcast_arrays(a[..., :, None, :], b[..., None, :, :])
    out = np.empty(a.shape[:-1])
    for pos in np.ndindex(*out.shape):
        gaps = np.abs(a[pos] - b[pos])
        out[pos] = gaps.max() if p == np.inf else (gaps ** p).sum() ** (1 / p)
    return out


def _block_diagonal(*blocks):
    """Each block (0-d: 1 x 1, 1-D: one row) written into a zero matrix, down the diagonal."""
    blocks = [np.asarray(b).reshape(1, -1) if np.ndim(b) < 2 else b for b in blocks]
    out = np.zeros((sum(b.shape[0] for b in blocks), sum(b.shape[1] for b in blocks)))
    row = col = 0
    for b in blocks:
        out[row:row + b.shape[0], col:col + b.shape[1]] = b
        row, col = row + b.shape[0], col + b.shape[1]
    return out


def _pad_reference(x, pads, value=0.0):
    """Crop for negative amounts, then np.pad the positive ones; pads as PyTorch lists them."""
    widths = [(0, 0)] * x.ndim
    for i in range(len(pads) // 2):
        before, after = pads[2 * i], pads[2 * i + 1]
        dim = x.ndim - 1 - i
        index = [slice(None)] * x.ndim
        index[dim] = slice(max(-before, 0), x.shape[dim] - max(-after, 0))
        x = x[tuple(index)]
        widths[dim] = (max(before, 0), max(after, 0))
    return np.pad(x, widths, constant_values=value)


def _pad_mode_reference(x, pads, mode):
    """numpy's np.pad in `mode` ("reflect", "edge", "wrap") for the positive amounts, then the
    crops of the negative ones."""
    widths = [(0, 0)] * x.ndim
    crops = [slice(None)] * x.ndim
    for i in range(len(pads) // 2):
        before, after = pads[2 * i], pads[2 * i + 1]
        dim = x.ndim - 1 - i
        widths[dim] = (max(before, 0), max(after, 0))
        crops[dim] = slice(max(-before, 0), x.shape[dim] + max(before, 0) + after)
    return np.pad(x, widths, mode=mode)[tuple(crops)]


def _scatter_loops(x, dim, index, src, combine=None, include_self=True):
    """Loops: each src entry sent to out[index] along dim: written (the last write wins) when
    `combine` is None, else combined there (a list of what arrived, then reduced)."""
    arrived = {}
    for pos in np.ndindex(*index.shape):
        target = list(pos)
        target[dim] = index[pos]
        arrived.setdefault(tuple(target), []).append(src[pos])
    out = x.copy()
    for target, values in arrived.items():
        out[target] = values[-1] if combine is None else combine(
            ([x[target]] if include_self else []) + values)
    return out


def _unfold_loops(x, dim, size, step):
    windows = [np.take(x, range(start, start + size), axis=dim)
               for start in range(0, x.shape[dim] - size + 1, step)]
    return np.moveaxis(np.stack(windows, axis=dim), dim + 1, -1)


GATHER_INDEX = np.array([[0, 0, 2], [1, 0, 0]])           # for a (2, 4) tensor along dim 1
SCATTER_INDEX = np.array([[0, 1, 2, 0], [0, 1, 0, 2]])     # for a (3, 4) tensor along dim 0
DISTINCT_INDEX = np.array([[0, 1, 2, 0], [2, 0, 1, 1]])    # no place named twice (dim 0)
MASK = np.array([True, False, True, True])
ROWS = [(2, 3, 4)]
INDEX3 = np.array([0, 2, 0])                                # a repeated place: they add up
TAKE_INDEX = np.array([[[2, 0, 1, 2]], [[1, 2, 0, 1]]])   # along dim 1 of ROWS, broadcast


def T(array):
    """A numpy index or mask as a torch tensor (for the torch side of a case)."""
    return _torch().tensor(array)


CASES = {
    "view": Case(lambda x: x.view(4, 6), lambda x: x.reshape(4, 6), ROWS),
    "flatten_all": Case(lambda x: x.flatten(), lambda x: x.reshape(-1), ROWS),
    "flatten_from_1": Case(lambda x: x.flatten(1), lambda x: x.reshape(2, 12), ROWS),
    "flatten_0_to_1": Case(lambda x: x.flatten(0, -2), lambda x: x.reshape(6, 4), ROWS),
    "flatten_0d": Case(lambda x: x.flatten(), lambda x: x.reshape(1), [()]),
    "unflatten": Case(lambda x: x.unflatten(1, (3, 1)), lambda x: x.reshape(2, 3, 1, 4), ROWS),
    "unflatten_infer": Case(lambda x: x.unflatten(-1, (-1, 2)), lambda x: x.reshape(2, 3, 2, 2),
                            ROWS),
    "squeeze_all": Case(lambda x: x.squeeze(), lambda x: x.reshape(2, 3), [(2, 1, 3, 1)]),
    "squeeze_dim": Case(lambda x: x.squeeze(-1), lambda x: x.reshape(2, 1, 3), [(2, 1, 3, 1)]),
    "squeeze_dims": Case(lambda x: x.squeeze((0, 1)), lambda x: x.reshape(2, 3, 1),
                         [(2, 1, 3, 1)]),  # dim 0 has size 2: left as it is
    "unsqueeze_front": Case(lambda x: x.unsqueeze(0), lambda x: x[None], ROWS),
    "unsqueeze_last": Case(lambda x: x.unsqueeze(-1), lambda x: x[..., None], ROWS),
    "unsqueeze_0d": Case(lambda x: x.unsqueeze(-1), lambda x: x.reshape(1), [()]),
    "movedim": Case(lambda x: x.movedim((0, 1), (2, 0)),
                    lambda x: np.moveaxis(x, (0, 1), (2, 0)), ROWS),
    "movedim_one": Case(lambda x: x.movedim(0, -1), lambda x: np.moveaxis(x, 0, -1), ROWS),
    "expand": Case(lambda x: x.expand(2, 3, 4), lambda x: np.broadcast_to(x, (2, 3, 4)),
                   [(3, 1)]),
    "expand_keep": Case(lambda x: x.expand(-1, 5), lambda x: np.broadcast_to(x, (3, 5)),
                        [(3, 1)]),
    "expand_as": Case(lambda x, y: x.expand_as(y) * y, lambda x, y: x * y, [(1, 4), (3, 4)]),
    "broadcast_to": Case(lambda x: x.broadcast_to((2, 2, 3)),
                         lambda x: np.broadcast_to(x, (2, 2, 3)), [(3,)]),
    "repeat": Case(lambda x: x.repeat(2, 1, 3), lambda x: np.tile(x, (2, 1, 3)), [(2, 3)]),
    "repeat_1d": Case(lambda x: x.repeat(2, 2), lambda x: np.tile(x, (2, 2)), [(3,)]),
    "tile_short": Case(lambda x: x.tile((3,)), lambda x: np.tile(x, 3), [(2, 3)]),
    "tile_long": Case(lambda x: x.tile((2, 1, 2)), lambda x: np.tile(x, (2, 1, 2)), [(2, 3)]),
    "tile_int": Case(lambda x: x.tile(3), lambda x: np.tile(x, 3), [(2, 3)]),
    "tile_args": Case(lambda x: x.tile(2, 1, 2), lambda x: np.tile(x, (2, 1, 2)), [(2, 3)]),
    "flip": Case(lambda x: x.flip(0, 2), lambda x: x[::-1, :, ::-1], ROWS),
    "flip_sequence": Case(lambda x: x.flip((-2,)), lambda x: x[:, ::-1], ROWS),
    # the keywords of PyTorch's function forms
    "reshape_keyword": Case(lambda x: minigrad.reshape(x, shape=(4, 6)),
                            lambda x: x.reshape(4, 6), ROWS,
                            torch_fn=lambda x: _torch().reshape(x, shape=(4, 6))),
    "permute_keyword": Case(lambda x: minigrad.permute(x, dims=(2, 0, 1)),
                            lambda x: x.transpose(2, 0, 1), ROWS,
                            torch_fn=lambda x: _torch().permute(x, dims=(2, 0, 1))),
    "tile_keyword": Case(lambda x: minigrad.tile(x, dims=(2, 1)), lambda x: np.tile(x, (2, 1)),
                         [(2, 3)], torch_fn=lambda x: _torch().tile(x, dims=(2, 1))),
    "flip_keyword": Case(lambda x: x.flip(dims=(0, -1)), lambda x: x[::-1, :, ::-1], ROWS),
    "broadcast_to_keyword": Case(lambda x: minigrad.broadcast_to(x, size=(2, 2, 3)),
                                 lambda x: np.broadcast_to(x, (2, 2, 3)), [(3,)],
                                 torch_fn=lambda x: _torch().broadcast_to(x, size=(2, 2, 3))),
    "roll_flat": Case(lambda x: x.roll(5), lambda x: np.roll(x, 5), ROWS),
    "roll_dims": Case(lambda x: x.roll((1, -1), (0, 2)), lambda x: np.roll(x, (1, -1), (0, 2)),
                      ROWS),
    "roll_more_than_size": Case(lambda x: x.roll(7, 1), lambda x: np.roll(x, 7, 1), ROWS),
    "narrow": Case(lambda x: x.narrow(1, 1, 2), lambda x: x[:, 1:3], ROWS),
    "narrow_negative_start": Case(lambda x: x.narrow(-1, -3, 2), lambda x: x[..., 1:3], ROWS),
    "split_size": Case(lambda x: x.split(2, 1), lambda x: (x[:, :2], x[:, 2:4], x[:, 4:]),
                       [(2, 5, 3)]),
    "split_sections": Case(lambda x: x.split([1, 3, 1], dim=1),
                           lambda x: (x[:, :1], x[:, 1:4], x[:, 4:]), [(2, 5, 3)]),
    "chunk": Case(lambda x: x.chunk(3, 1), lambda x: (x[:, :2], x[:, 2:4], x[:, 4:]),
                  [(2, 5, 3)]),
    "chunk_fewer": Case(lambda x: x.chunk(4, -1), lambda x: (x[..., :2], x[..., 2:4],
                                                              x[..., 4:]), [(6,)]),
    "unbind": Case(lambda x: x.unbind(1), lambda x: (x[:, 0], x[:, 1], x[:, 2]), [(2, 3, 4)]),
    "unbind_last": Case(lambda x: x.unbind(-1), lambda x: (x[..., 0], x[..., 1]), [(3, 2)]),
    "gather": Case(lambda x: x.gather(1, GATHER_INDEX),
                   lambda x: _gather_loops(x, 1, GATHER_INDEX), [(2, 4)],
                   torch_fn=lambda x: x.gather(1, T(GATHER_INDEX))),
    "gather_dim_0": Case(lambda x: x.gather(0, SCATTER_INDEX[:2, :3]),
                         lambda x: _gather_loops(x, 0, SCATTER_INDEX[:2, :3]), [(3, 4)],
                         torch_fn=lambda x: x.gather(0, T(SCATTER_INDEX[:2, :3]))),
    "index_select": Case(lambda x: x.index_select(1, np.array([3, 0, 3])),
                         lambda x: np.stack([x[:, 3], x[:, 0], x[:, 3]], axis=1), [(2, 4, 3)],
                         torch_fn=lambda x: x.index_select(1, T(np.array([3, 0, 3])))),
    "index_select_0d_index": Case(lambda x: minigrad.index_select(x, -1, np.array(1)),
                                  lambda x: x[..., 1:2], [(2, 3)],
                                  torch_fn=lambda x: x.index_select(-1, T(np.array(1)))),
    "index_select_empty_other_dim": Case(lambda x: x.index_select(1, np.array([2, 0])),
                                         lambda x: x[:, [2, 0]], [(0, 3, 2)],
                                         torch_fn=lambda x: x.index_select(1, T(np.array([2, 0])))),
    "take": Case(lambda x: x.take(np.array([[0, 11], [-1, 5]])),
                 lambda x: np.array([[x[0, 0, 0], x[1, 2, 1]], [x[1, 2, 1], x[0, 2, 1]]]),
                 [(2, 3, 2)], torch_fn=lambda x: x.take(T(np.array([[0, 11], [-1, 5]])))),
    "scatter_add": Case(lambda x, s: x.scatter_add(0, SCATTER_INDEX, s),
                        lambda x, s: _scatter_add_loops(x, 0, SCATTER_INDEX, s),
                        [(3, 4), (2, 4)],
                        torch_fn=lambda x, s: x.scatter_add(0, T(SCATTER_INDEX), s)),
    "scatter_add_larger_src": Case(lambda x, s: x.scatter_add(1, GATHER_INDEX, s),
                                   lambda x, s: _scatter_add_loops(x, 1, GATHER_INDEX, s),
                                   [(2, 4), (3, 5)],
                                   # PyTorch's backward rejects a src larger than index
                                   torch_fn=lambda x, s: x.scatter_add(1, T(GATHER_INDEX),
                                                                       s[:2, :3])),
    "masked_select": Case(lambda x: x.masked_select(MASK),
                          lambda x: np.broadcast_to(x, (3, 4))[np.broadcast_to(MASK, (3, 4))],
                          [(3, 4)], torch_fn=lambda x: x.masked_select(T(MASK))),
    "masked_select_broadcast_input": Case(
        lambda x: x.masked_select(np.array([[True], [False]])),
        lambda x: np.broadcast_to(x, (2, 4))[np.array([[True] * 4, [False] * 4])], [(4,)],
        torch_fn=lambda x: x.masked_select(T(np.array([[True], [False]])))),
    "masked_fill_mask_broadcasts_the_input": Case(
        lambda x: x.masked_fill(np.array([[True], [False]]), -1.0),
        lambda x: np.where(np.array([[True], [False]]), -1.0, np.broadcast_to(x, (2, 4))), [(4,)],
        torch_fn=lambda x: x.masked_fill(T(np.array([[True], [False]])), -1.0)),
    "masked_scatter": Case(lambda x, s: x.masked_scatter(MASK, s),
                           lambda x, s: _masked_scatter_loops(x, MASK, s), [(3, 4), (4, 3)],
                           torch_fn=lambda x, s: x.masked_scatter(T(MASK), s)),
    "masked_scatter_mask_broadcasts_the_input": Case(
        lambda x, s: minigrad.masked_scatter(x, np.array([[True], [False], [True]]), s),
        lambda x, s: _masked_scatter_loops(x, np.array([[True], [False], [True]]), s),
        [(4,), (9,)],
        torch_fn=lambda x, s: _torch().masked_scatter(x, T(np.array([[True], [False], [True]])),
                                                      s)),
    "index_put": Case(lambda x, v: x.index_put((np.array([2, 0]), np.array([1, 3])), v),
                      lambda x, v: _index_put_loops(x, (np.array([2, 0]), np.array([1, 3])), v,
                                                    False), [(3, 4), (2,)],
                      torch_fn=lambda x, v: x.index_put((T(np.array([2, 0])),
                                                         T(np.array([1, 3]))), v)),
    "index_put_mask": Case(lambda x, v: x.index_put([MASK], v),
                           lambda x, v: np.where(MASK[:, None], v, x), [(4, 3), (3,)],
                           torch_fn=lambda x, v: x.index_put([T(MASK)], v)),
    "index_put_accumulate": Case(
        lambda x, v: minigrad.index_put(x, (INDEX3,), v, accumulate=True),
        lambda x, v: _index_put_loops(x, (INDEX3,), v, True), [(3, 2), (1, 2)],
        torch_fn=lambda x, v: _torch().index_put(x, (T(INDEX3),), v, accumulate=True)),
    "index_put_accumulate_broadcast_indices": Case(
        lambda x, v: x.index_put((np.array([[0], [1]]), INDEX3), v, True),
        lambda x, v: _index_put_loops(x, (np.array([[0], [1]]), INDEX3), v, True),
        [(2, 3, 2), ()],
        torch_fn=lambda x, v: x.index_put((T(np.array([[0], [1]])), T(INDEX3)), v, True)),
    "put": Case(lambda x, s: x.put(np.array([[5, -1], [0, 2]]), s),
                lambda x, s: _index_put_loops(x.reshape(-1), (np.array([5, 11, 0, 2]),),
                                              s.reshape(-1), False).reshape(3, 4),
                [(3, 4), (2, 2)], torch_fn=lambda x, s: x.put(T(np.array([[5, -1], [0, 2]])), s)),
    "put_accumulate": Case(lambda x, s: minigrad.put(x, np.array([1, -1, 1]), s, True),
                           lambda x, s: _index_put_loops(x.reshape(-1), (np.array([1, 5, 1]),), s,
                                                         True).reshape(2, 3), [(2, 3), (3,)],
                           torch_fn=lambda x, s: _torch().put(x, T(np.array([1, -1, 1])), s,
                                                              True)),
    **{f"index_reduce_{reduce}{'' if include else '_without_self'}": Case(
        lambda x, s, reduce=reduce, include=include: x.index_reduce(
            1, INDEX3, s, reduce, include_self=include),
        lambda x, s, combine=combine, include=include: np.moveaxis(_scatter_loops(
            np.moveaxis(x, 1, 0), 0, np.broadcast_to(INDEX3[:, None], (3, 2)),
            np.moveaxis(s, 1, 0), combine, include), 0, 1),
        [(2, 4), (2, 3)], data="distinct",
        torch_fn=lambda x, s, reduce=reduce, include=include: x.index_reduce(
            1, T(INDEX3), s, reduce, include_self=include))
       for reduce, combine in (("prod", np.prod), ("mean", np.mean), ("amax", max), ("amin", min))
       for include in (True, False)},
    "narrow_copy": Case(lambda x: x.narrow_copy(2, 1, 2), lambda x: x[:, :, 1:3], ROWS),
    "tril": Case(lambda x: x.tril(), np.tril, [(4, 5)]),
    "tril_below": Case(lambda x: x.tril(-1), lambda x: np.tril(x, -1), [(2, 4, 3)]),
    "triu_above": Case(lambda x: x.triu(1), lambda x: np.triu(x, 1), [(2, 3, 5)]),
    "diagonal": Case(lambda x: x.diagonal(), np.diagonal, [(4, 5)]),
    "diagonal_offset": Case(lambda x: x.diagonal(1), lambda x: np.diagonal(x, 1), [(4, 3)]),
    "diagonal_below_dims": Case(lambda x: x.diagonal(-1, 0, 2),
                                lambda x: np.diagonal(x, -1, 0, 2), ROWS),
    "diagonal_swapped_dims": Case(lambda x: x.diagonal(offset=2, dim1=-1, dim2=0),
                                  lambda x: np.diagonal(x, 2, 2, 0), [(4, 3, 5)]),
    "diagonal_off_the_edge": Case(lambda x: x.diagonal(7) * 1.0, lambda x: np.zeros(0),
                                  [(3, 4)]),
    "pad_last": Case(lambda x: F.pad(x, (1, 2)), lambda x: _pad_reference(x, (1, 2)), ROWS,
                     torch_fn=lambda x: _torch().nn.functional.pad(x, (1, 2))),
    "pad_crop_and_value": Case(lambda x: F.pad(x, (1, -1, 0, 2), value=3.0),
                               lambda x: _pad_reference(x, (1, -1, 0, 2), 3.0), ROWS,
                               torch_fn=lambda x: _torch().nn.functional.pad(x, (1, -1, 0, 2),
                                                                             value=3.0)),
    "pad_reflect": Case(lambda x: F.pad(x, (2, 1, -1, 2), mode="reflect"),
                        lambda x: _pad_mode_reference(x, (2, 1, -1, 2), "reflect"), ROWS,
                        torch_fn=lambda x: _torch().nn.functional.pad(x, (2, 1, -1, 2),
                                                                      mode="reflect")),
    "pad_replicate": Case(lambda x: F.pad(x, (3, -2, 0, 4), mode="replicate"),
                          lambda x: _pad_mode_reference(x, (3, -2, 0, 4), "edge"), ROWS,
                          torch_fn=lambda x: _torch().nn.functional.pad(x, (3, -2, 0, 4),
                                                                        mode="replicate")),
    "pad_circular": Case(lambda x: F.pad(x, (4, 2, 1, 3), mode="circular"),
                         lambda x: _pad_mode_reference(x, (4, 2, 1, 3), "wrap"), ROWS,
                         torch_fn=lambda x: _torch().nn.functional.pad(x, (4, 2, 1, 3),
                                                                       mode="circular")),
    "unfold_windows": Case(lambda x: x.unfold(1, 2, 1), lambda x: _unfold_loops(x, 1, 2, 1), ROWS),
    "unfold_step_last_dim": Case(lambda x: x.unfold(-1, 3, 2), lambda x: _unfold_loops(x, 2, 3, 2),
                                 [(2, 3, 7)]),
    "repeat_interleave": Case(lambda x: x.repeat_interleave(2, dim=1),
                              lambda x: np.repeat(x, 2, axis=1), ROWS),
    "repeat_interleave_counts": Case(lambda x: x.repeat_interleave(np.array([1, 0, 3]), dim=1),
                                     lambda x: np.repeat(x, [1, 0, 3], axis=1), ROWS,
                                     torch_fn=lambda x: x.repeat_interleave(T(np.array([1, 0, 3])),
                                                                            dim=1)),
    "repeat_interleave_flat": Case(lambda x: x.repeat_interleave(3), lambda x: np.repeat(x, 3),
                                   [(2, 2)]),
    "diag_of_vector": Case(lambda x: x.diag(1), lambda x: np.diag(x, 1), [(4,)]),
    "diag_of_matrix": Case(lambda x: x.diag(-1), lambda x: np.diag(x, -1), [(4, 5)]),
    "scatter": Case(lambda x, s: x.scatter(0, DISTINCT_INDEX, s),
                    lambda x, s: _scatter_loops(x, 0, DISTINCT_INDEX, s), [(3, 4), (2, 4)],
                    torch_fn=lambda x, s: x.scatter(0, T(DISTINCT_INDEX), s)),
    "scatter_value": Case(lambda x: x.scatter(1, GATHER_INDEX, 2.5),
                          lambda x: _scatter_loops(x, 1, GATHER_INDEX, np.full((2, 3), 2.5)),
                          [(2, 4)], torch_fn=lambda x: x.scatter(1, T(GATHER_INDEX), 2.5)),
    "scatter_reduce_add": Case(lambda x: x.scatter(1, GATHER_INDEX, 1.5, reduce="add"),
                               lambda x: _scatter_loops(x, 1, GATHER_INDEX, np.full((2, 3), 1.5),
                                                        sum), [(2, 4)],
                               # PyTorch's scatter(reduce=) has no gradient: its equivalent
                               torch_fn=lambda x: x.scatter_reduce(
                                   1, T(GATHER_INDEX), x.new_full((2, 3), 1.5), "sum")),
    **{f"scatter_reduce_{reduce}{'' if include else '_without_self'}": Case(
        lambda x, s, reduce=reduce, include=include: x.scatter_reduce(
            0, SCATTER_INDEX, s, reduce, include_self=include),
        lambda x, s, combine=combine, include=include: _scatter_loops(
            x, 0, SCATTER_INDEX, s, combine, include), [(3, 4), (2, 4)],
        torch_fn=lambda x, s, reduce=reduce, include=include: x.scatter_reduce(
            0, T(SCATTER_INDEX), s, reduce, include_self=include))
       for reduce, combine in [("sum", sum), ("prod", np.prod), ("mean", np.mean),
                               ("amax", max), ("amin", min)]
       for include in (True, False)},
    "meshgrid_xy": Case(lambda a, b: minigrad.meshgrid(a, b, indexing="xy"),
                        lambda a, b: tuple(np.meshgrid(a, b, indexing="xy")), [(3,), (4,)],
                        torch_fn=lambda a, b: _torch().meshgrid(a, b, indexing="xy")),
    "meshgrid_ij_with_0d": Case(lambda a, b, c: minigrad.meshgrid(a, b, c),
                                lambda a, b, c: tuple(np.meshgrid(a, b, c, indexing="ij")),
                                [(3,), (), (2,)],
                                torch_fn=lambda a, b, c: _torch().meshgrid(a, b, c,
                                                                           indexing="ij")),
    "cat_last": Case(lambda x, y: minigrad.cat([x, y], dim=-1),
                     lambda x, y: np.concatenate([x, y], -1), [(2, 3), (2, 1)],
                     torch_fn=lambda x, y: _torch().cat([x, y], dim=-1)),
    # PyTorch's legacy rule: a (0,) tensor joins tensors of any shape, adding nothing
    "cat_legacy_empty": Case(lambda x, e, y: minigrad.cat([e, x, e, y], dim=1),
                             lambda x, e, y: np.concatenate([x, y], 1), [(2, 3), (0,), (2, 1)],
                             torch_fn=lambda x, e, y: _torch().cat([e, x, e, y], dim=1)),
    "stack_last": Case(lambda x, y: minigrad.stack([x, y], dim=-1),
                       lambda x, y: np.stack([x, y], -1), [(2, 3), (2, 3)],
                       torch_fn=lambda x, y: _torch().stack([x, y], dim=-1)),
    "moveaxis": Case(lambda x: x.moveaxis((0, 1), (2, 0)),
                     lambda x: np.moveaxis(x, (0, 1), (2, 0)), ROWS),
    "ravel": Case(lambda x: minigrad.ravel(x) if isinstance(x, Tensor) else x.ravel(),
                  lambda x: x.reshape(-1), ROWS),
    "reshape_as": Case(lambda x, y: x.reshape_as(y), lambda x, y: x.reshape(y.shape),
                       [(2, 3, 4), (6, 4)], torch_fn=lambda x, y: x.reshape_as(y.detach())),
    "concat": Case(lambda x, y: minigrad.concat([x, y], 1), lambda x, y: np.concatenate([x, y], 1),
                   [(2, 3), (2, 1)], torch_fn=lambda x, y: _torch().concat([x, y], 1)),
    "concatenate_axis": Case(lambda x, y: minigrad.concatenate([x, y], axis=0),
                             lambda x, y: np.concatenate([x, y], 0), [(2, 3), (1, 3)],
                             torch_fn=lambda x, y: _torch().concatenate([x, y], axis=0)),
    "index_add": Case(lambda x, s: x.index_add(1, INDEX3, s, alpha=2.0),
                      lambda x, s: _index_add_loops(x, 1, INDEX3, 2.0 * s), [(2, 4), (2, 3)],
                      torch_fn=lambda x, s: x.index_add(1, T(INDEX3), s, alpha=2.0)),
    "index_add_function_dim_0": Case(lambda x, s: minigrad.index_add(x, 0, INDEX3[:2], s),
                                     lambda x, s: _index_add_loops(x, 0, INDEX3[:2], s),
                                     [(3, 2), (2, 2)],
                                     torch_fn=lambda x, s: _torch().index_add(x, 0, T(INDEX3[:2]),
                                                                              s)),
    "index_copy": Case(lambda x, s: x.index_copy(1, np.array([3, 0]), s),
                       lambda x, s: _index_copy_loops(x, 1, np.array([3, 0]), s),
                       [(2, 4), (2, 2)],
                       torch_fn=lambda x, s: x.index_copy(1, T(np.array([3, 0])), s)),
    "index_fill": Case(lambda x: x.index_fill(1, np.array([1, -1]), -2.0),
                       lambda x: np.where(np.isin(np.arange(4), [1, 3]), -2.0, x), [(2, 4)],
                       torch_fn=lambda x: x.index_fill(1, T(np.array([1, -1])), -2.0)),
    "index_fill_tensor_value": Case(lambda x, v: minigrad.index_fill(x, 0, np.array([1]), v),
                                    lambda x, v: np.where(np.arange(3)[:, None] == 1, v, x),
                                    [(3, 2), ()],
                                    torch_fn=lambda x, v: _torch().index_fill(
                                        x, 0, T(np.array([1])), v)),
    "tensor_split_sections": Case(lambda x: x.tensor_split(3, dim=2),
                                  lambda x: tuple(np.array_split(x, 3, axis=2)), [(2, 3, 7)]),
    "tensor_split_indices": Case(lambda x: minigrad.tensor_split(x, (1, 9, 3))
                                 if isinstance(x, Tensor) else x.tensor_split((1, 9, 3)),
                                 lambda x: (x[:1], x[1:9], x[9:3], x[3:]), [(7, 2)]),
    "hsplit_sections": Case(lambda x: x.hsplit(3), lambda x: tuple(np.hsplit(x, 3)), [(2, 6, 2)]),
    "hsplit_1d_indices": Case(lambda x: minigrad.hsplit(x, [1, 4])
                              if isinstance(x, Tensor) else x.hsplit([1, 4]),
                              lambda x: (x[:1], x[1:4], x[4:]), [(5,)]),
    "vsplit_indices": Case(lambda x: x.vsplit((2, 1)),
                           lambda x: (x[:2], x[2:1], x[1:]), [(3, 4)]),
    "dsplit_sections": Case(lambda x: minigrad.dsplit(x, 2)
                            if isinstance(x, Tensor) else x.dsplit(2),
                            lambda x: tuple(np.dsplit(x, 2)), [(2, 1, 4)]),
    "diag_embed": Case(lambda x: x.diag_embed(), lambda x: _diagonal_matrices(x, 0), ROWS),
    "diag_embed_offset_dims": Case(lambda x: minigrad.diag_embed(x, -1, 1, 0),
                                   lambda x: np.moveaxis(_diagonal_matrices(x, -1), (-2, -1),
                                                         (1, 0)), ROWS,
                                   torch_fn=lambda x: _torch().diag_embed(x, -1, 1, 0)),
    "dstack": Case(lambda a, b: minigrad.dstack([a, b]), lambda a, b: np.dstack([a, b]),
                   [(3,), (1, 3, 2)], torch_fn=lambda a, b: _torch().dstack([a, b])),
    "column_stack": Case(lambda a, b, c: minigrad.column_stack([a, b, c]),
                         lambda a, b, c: np.column_stack([a, b, c]), [(2,), (2, 3), (2,)],
                         torch_fn=lambda a, b, c: _torch().column_stack([a, b, c])),
    "fliplr": Case(lambda x: x.fliplr(), lambda x: x[:, ::-1], ROWS),
    "flipud": Case(lambda x: minigrad.flipud(x) if isinstance(x, Tensor) else x.flipud(),
                   lambda x: x[::-1], [(4,)]),
    **{f"rot90_{k}": Case(lambda x, k=k: x.rot90(k, (2, 0)),
                          lambda x, k=k: np.rot90(x, k, (2, 0)), ROWS) for k in (-1, 0, 1, 2, 3)},
    "rot90_default": Case(lambda x: x.rot90(), lambda x: np.stack([r.T[::-1] for r in
                                                                   np.moveaxis(x, 2, 0)], -1),
                          ROWS),
    "diff": Case(lambda x: x.diff(), lambda x: x[..., 1:] - x[..., :-1], ROWS),
    "diff_second_order_dim_0": Case(lambda x: minigrad.diff(x, 2, 0) if isinstance(x, Tensor)
                                    else x.diff(2, 0), lambda x: x[2:] - 2 * x[1:-1] + x[:-2],
                                    [(5, 3)]),
    "diff_prepend_append": Case(lambda x, a, b: x.diff(3, 1, prepend=a, append=b),
                                lambda x, a, b: np.diff(np.concatenate([a, x, b], 1), 3, 1),
                                [(2, 3, 4), (2, 2, 4), (2, 1, 4)]),
    "diff_order_past_the_size": Case(lambda x: x.diff(5, 1), lambda x: x[:, :0], ROWS),
    "take_along_dim": Case(lambda x: x.take_along_dim(TAKE_INDEX, 1),
                           lambda x: np.take_along_axis(x, TAKE_INDEX, 1), ROWS,
                           torch_fn=lambda x: x.take_along_dim(T(TAKE_INDEX), 1)),
    "take_along_dim_broadcast": Case(
        lambda x: minigrad.take_along_dim(x, TAKE_INDEX.transpose(2, 1, 0), -1),
        lambda x: np.take_along_axis(np.broadcast_to(x, (4, 3, 4)), TAKE_INDEX.transpose(2, 1, 0),
                                     -1), [(1, 3, 4)],
        torch_fn=lambda x: _torch().take_along_dim(x, T(TAKE_INDEX.transpose(2, 1, 0)), -1)),
    "take_along_dim_flat": Case(lambda x: x.take_along_dim(np.array([[23, 0], [5, 5]])),
                                lambda x: x.reshape(-1)[[23, 0, 5, 5]], ROWS,
                                torch_fn=lambda x: x.take_along_dim(T(np.array([[23, 0],
                                                                                [5, 5]])))),
    "atleast_2d": Case(lambda a, b, c: minigrad.atleast_2d(a, b, c),
                       lambda a, b, c: tuple(np.atleast_2d(a, b, c)), [(), (3,), (2, 2, 1)],
                       torch_fn=lambda a, b, c: _torch().atleast_2d(a, b, c)),
    "atleast_3d_list": Case(lambda a, b, c: minigrad.atleast_3d([a, b, c]),
                            lambda a, b, c: tuple(np.atleast_3d(a, b, c)), [(), (3,), (2, 4)],
                            torch_fn=lambda a, b, c: _torch().atleast_3d([a, b, c])),
    "atleast_1d_one": Case(lambda a: minigrad.atleast_1d(a), np.atleast_1d, [()],
                           torch_fn=lambda a: _torch().atleast_1d(a)),
    "hstack": Case(lambda a, b: minigrad.hstack([a, b]), lambda a, b: np.hstack([a, b]),
                   [(2, 3), (2, 1)], torch_fn=lambda a, b: _torch().hstack([a, b])),
    "hstack_1d_and_0d": Case(lambda a, b: minigrad.hstack((a, b)), lambda a, b: np.hstack([a, b]),
                             [(3,), ()], torch_fn=lambda a, b: _torch().hstack((a, b))),
    "row_stack": Case(lambda a, b: minigrad.row_stack([a, b]), lambda a, b: np.vstack([a, b]),
                      [(3,), (2, 3)], torch_fn=lambda a, b: _torch().row_stack([a, b])),
    "diagflat": Case(lambda x: x.diagflat(), lambda x: np.diagflat(x), [(2, 3)]),
    "diagflat_offset": Case(lambda x: minigrad.diagflat(x, -2), lambda x: np.diagflat(x, -2),
                            [(3,)], torch_fn=lambda x: _torch().diagflat(x, -2)),
    "split_with_sizes": Case(lambda x: x.split_with_sizes([1, 3], 1),
                             lambda x: (x[:, :1], x[:, 1:]), [(2, 4)]),
    "split_with_sizes_function": Case(lambda x: minigrad.split_with_sizes(x, (2, 0, 1)),
                                      lambda x: (x[:2], x[2:2], x[2:]), [(3, 2)],
                                      torch_fn=lambda x: _torch().split_with_sizes(x, (2, 0, 1))),
    "vstack": Case(lambda a, b: minigrad.vstack([a, b]), lambda a, b: np.vstack([a, b]),
                   [(3,), (2, 3)], torch_fn=lambda a, b: _torch().vstack([a, b])),
    "cross_first_dim_of_size_3": Case(lambda a, b: a.cross(b), lambda a, b: np.cross(a, b, axis=0),
                                      [(3, 2, 3), (3, 1, 3)],  # PyTorch warns without a dim
                                      torch_fn=lambda a, b: a.cross(b, dim=0)),
    "cross_dim_broadcast": Case(lambda a, b: minigrad.cross(a, b, dim=-1),
                                lambda a, b: np.cross(a, b), [(4, 3), (1, 3)],
                                torch_fn=lambda a, b: _torch().cross(a, b, dim=-1)),
    "cdist": Case(lambda a, b: minigrad.cdist(a, b), lambda a, b: _distances(a, b, 2),
                  [(5, 3), (4, 3)], torch_fn=lambda a, b: _torch().cdist(a, b)),
    "cdist_batch_p1": Case(lambda a, b: minigrad.cdist(a, b, p=1.0),
                           lambda a, b: _distances(a, b, 1), [(2, 5, 3), (4, 3)],
                           torch_fn=lambda a, b: _torch().cdist(a, b, p=1.0)),
    "cdist_p_inf": Case(lambda a, b: minigrad.cdist(a, b, np.inf),
                        lambda a, b: _distances(a, b, np.inf), [(2, 5, 3), (2, 4, 3)], "distinct",
                        torch_fn=lambda a, b: _torch().cdist(a, b, np.inf)),
    "tensordot": Case(lambda a, b: minigrad.tensordot(a, b), np.tensordot, [(2, 3, 4), (3, 4, 5)],
                      torch_fn=lambda a, b: _torch().tensordot(a, b)),
    "tensordot_dims": Case(lambda a, b: minigrad.tensordot(a, b, ([1, 2], [1, 0])),
                           lambda a, b: np.tensordot(a, b, ([1, 2], [1, 0])), [(2, 3, 4), (4, 3)],
                           torch_fn=lambda a, b: _torch().tensordot(a, b, ([1, 2], [1, 0]))),
    "tensordot_0_is_outer": Case(lambda a, b: minigrad.tensordot(a, b, 0),
                                 lambda a, b: np.multiply.outer(a, b), [(2, 3), (4,)],
                                 torch_fn=lambda a, b: _torch().tensordot(a, b, 0)),
    "inner": Case(lambda a, b: a.inner(b), np.inner, [(2, 3), (4, 5, 3)]),
    "inner_0d": Case(lambda a, b: minigrad.inner(a, b), lambda a, b: a * b, [(), (4, 3)],
                     torch_fn=lambda a, b: _torch().inner(a, b)),
    "kron": Case(lambda a, b: a.kron(b), np.kron, [(2, 3), (4,)]),
    "kron_3d": Case(lambda a, b: minigrad.kron(a, b), np.kron, [(2, 1, 3), (3, 2, 2)],
                    torch_fn=lambda a, b: _torch().kron(a, b)),
    "block_diag": Case(lambda a, b, c: minigrad.block_diag(a, b, c), _block_diagonal,
                       [(), (2,), (2, 3)], torch_fn=lambda a, b, c: _torch().block_diag(a, b, c)),
    "cartesian_prod": Case(lambda a, b, c: minigrad.cartesian_prod(a, b, c),
                           lambda a, b, c: np.array(list(itertools.product(a, b, c))),
                           [(2,), (3,), (2,)],
                           torch_fn=lambda a, b, c: _torch().cartesian_prod(a, b, c)),
    "matmul": Case(lambda a, b: minigrad.matmul(a, b), np.matmul, [(2, 3, 4), (4, 5)],
                   torch_fn=lambda a, b: _torch().matmul(a, b)),
    "matmul_method_vector": Case(lambda a, b: a.matmul(b), np.matmul, [(3, 4), (4,)]),
    "dot": Case(lambda a, b: a.dot(b), lambda a, b: (a * b).sum(), [(5,), (5,)]),
    "outer": Case(lambda a, b: a.outer(b), lambda a, b: a[:, None] * b[None, :], [(3,), (4,)]),
    "mm": Case(lambda a, b: a.mm(b), lambda a, b: a @ b, [(3, 4), (4, 2)]),
    "bmm": Case(lambda a, b: minigrad.bmm(a, b), np.matmul, [(2, 3, 4), (2, 4, 5)],
                torch_fn=lambda a, b: _torch().bmm(a, b)),
    "mv": Case(lambda a, b: a.mv(b), lambda a, b: a @ b, [(3, 4), (4,)]),
    "addmm": Case(lambda c, a, b: c.addmm(a, b, beta=0.5, alpha=-2.0),
                  lambda c, a, b: 0.5 * c - 2.0 * (a @ b), [(2,), (3, 4), (4, 2)]),
    "addmm_beta_0": Case(lambda c, a, b: minigrad.addmm(c, a, b, beta=0),
                         lambda c, a, b: a @ b, [(3, 2), (3, 4), (4, 2)],
                         torch_fn=lambda c, a, b: _torch().addmm(c, a, b, beta=0)),
    "addmv": Case(lambda c, a, b: minigrad.addmv(c, a, b, beta=-0.5, alpha=3.0),
                  lambda c, a, b: -0.5 * c + 3.0 * (a @ b), [(1,), (3, 4), (4,)],
                  torch_fn=lambda c, a, b: _torch().addmv(c, a, b, beta=-0.5, alpha=3.0)),
    "addr": Case(lambda c, a, b: c.addr(a, b, alpha=2.0), lambda c, a, b: c + 2.0 * np.outer(a, b),
                 [(3, 1), (3,), (4,)]),
    "addbmm": Case(lambda c, a, b: minigrad.addbmm(c, a, b, beta=0.5),
                   lambda c, a, b: 0.5 * c + np.einsum("bij,bjk->ik", a, b),
                   [(3, 2), (4, 3, 5), (4, 5, 2)],
                   torch_fn=lambda c, a, b: _torch().addbmm(c, a, b, beta=0.5)),
    "baddbmm": Case(lambda c, a, b: c.baddbmm(a, b, beta=2.0, alpha=-1.0),
                    lambda c, a, b: 2.0 * c - a @ b, [(2,), (4, 3, 5), (4, 5, 2)]),
    "baddbmm_beta_0": Case(lambda c, a, b: c.baddbmm(a, b, beta=0), lambda c, a, b: a @ b,
                           [(4, 3, 2), (4, 3, 5), (4, 5, 2)]),
    "vdot": Case(lambda a, b: minigrad.vdot(a, b), lambda a, b: (a * b).sum(), [(5,), (5,)],
                 torch_fn=lambda a, b: _torch().vdot(a, b)),
    "ger": Case(lambda a, b: a.ger(b), np.outer, [(3,), (4,)]),
    "chain_matmul": Case(lambda a, b, c: minigrad.chain_matmul(a, b, c),
                         lambda a, b, c: a @ b @ c, [(2, 3), (3, 4), (4, 2)],
                         torch_fn=lambda a, b, c: _torch().chain_matmul(a, b, c)),
    "chain_matmul_one": Case(lambda a: minigrad.chain_matmul(a), lambda a: a, [(2, 3)],
                             torch_fn=lambda a: _torch().chain_matmul(a)),
    # PyTorch 2.13's vander cannot go backward (an in-place write it then finds modified), so
    # its gradient is checked by gradcheck only
    "vander": Case(lambda x: minigrad.vander(x), lambda x: np.vander(x), [(4,)],
                   differentiable=False, torch_fn=lambda x: _torch().vander(x)),
    "vander_increasing": Case(lambda x: minigrad.vander(x, 3, increasing=True),
                              lambda x: np.vander(x, 3, increasing=True), [(4,)],
                              differentiable=False,
                              torch_fn=lambda x: _torch().vander(x, 3, increasing=True)),
    "combinations": Case(lambda x: minigrad.combinations(x),
                         lambda x: np.array(list(itertools.combinations(x, 2))), [(4,)],
                         torch_fn=lambda x: _torch().combinations(x)),
    "combinations_with_replacement": Case(
        lambda x: minigrad.combinations(x, 3, with_replacement=True),
        lambda x: np.array(list(itertools.combinations_with_replacement(x, 3))), [(3,)],
        torch_fn=lambda x: _torch().combinations(x, 3, with_replacement=True)),
    "select_scatter": Case(lambda x, s: minigrad.select_scatter(x, s, 1, -1),
                           lambda x, s: np.concatenate([x[:, :-1], s[:, None]], 1),
                           [(3, 4), (3,)],
                           torch_fn=lambda x, s: _torch().select_scatter(x, s, 1, -1)),
    "slice_scatter": Case(lambda x, s: x.slice_scatter(s, dim=1, start=1, end=10, step=2),
                          lambda x, s: np.stack([x[:, 0], s[:, 0], x[:, 2], s[:, 1]], 1),
                          [(3, 4), (3, 2)]),
    "slice_scatter_default": Case(lambda x, s: minigrad.slice_scatter(x, s), lambda x, s: s,
                                  [(2, 3), (2, 3)],
                                  torch_fn=lambda x, s: _torch().slice_scatter(x, s)),
    "diagonal_scatter": Case(lambda x, s: x.diagonal_scatter(s, -1, 2, 0),
                             lambda x, s: _diagonal_scattered(x, s, -1, 2, 0),
                             [(4, 2, 3), (2, 2)]),
    "diagonal_scatter_default": Case(lambda x, s: minigrad.diagonal_scatter(x, s),
                                     lambda x, s: _diagonal_scattered(x, s, 0, 0, 1),
                                     [(3, 4), (3,)],
                                     torch_fn=lambda x, s: _torch().diagonal_scatter(x, s)),
    "t_2d": Case(lambda x: x.t(), lambda x: x.T, [(2, 3)]),
    # minigrad's tensors are real: the conjugate transposes are transposes
    "H": Case(lambda x: x.H, lambda x: x.T, [(2, 3)]),
    "mH": Case(lambda x: x.mH, lambda x: np.swapaxes(x, -1, -2), [(4, 2, 3)]),
    "adjoint": Case(lambda x: minigrad.adjoint(x) if isinstance(x, Tensor) else x.adjoint(),
                    lambda x: np.swapaxes(x, -1, -2), [(2, 1, 3)]),
    "t_1d": Case(lambda x: x.t(), lambda x: x, [(3,)]),
    "trace": Case(lambda x: x.trace(), lambda x: np.trace(x), [(3, 4)]),
    "select": Case(lambda x: x.select(1, -1), lambda x: x[:, -1], ROWS),
    "swapaxes": Case(lambda x: x.swapaxes(0, 2), lambda x: np.swapaxes(x, 0, 2), ROWS),
    "swapdims": Case(lambda x: x.swapdims(-1, 1), lambda x: np.swapaxes(x, -1, 1), ROWS),
    "view_as": Case(lambda x, y: x.view_as(y), lambda x, y: x.reshape(y.shape),
                    [(2, 3, 4), (6, 4)], torch_fn=lambda x, y: x.view_as(y.detach())),
}


@pytest.mark.parametrize("fused", [True, False], ids=["kernels", "composed"])
@pytest.mark.parametrize("name", list(CASES))
def test_matches_numpy(name, fused):
    check_forward(CASES[name], fused)


@pytest.mark.parametrize("name", list(CASES))
def test_gradcheck_on_primitives_alone(name):
    check_gradcheck(CASES[name])


@pytest.mark.parametrize("name", list(CASES))
def test_keeps_float32(name):
    check_float32(CASES[name])


@pytest.mark.parametrize("name", list(CASES))
@pytest.mark.filterwarnings("ignore:index_reduce\\(\\) is in beta:UserWarning")  # PyTorch's
@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated:UserWarning")
def test_matches_torch(name):
    check_against_torch(CASES[name])


def test_gather_and_scatter_add_gradients_add_up_at_repeated_indices():
    x = Tensor(np.arange(4.0), requires_grad=True)
    x.gather(0, np.array([1, 1, 3, 1])).backward(np.array([1.0, 2.0, 3.0, 4.0]))
    np.testing.assert_array_equal(x.grad, [0.0, 7.0, 0.0, 3.0])
    base = Tensor(np.zeros(3), requires_grad=True)
    src = Tensor(np.array([1.0, 2.0, 3.0]), requires_grad=True)
    out = base.scatter_add(0, np.array([2, 2, 0]), src)
    np.testing.assert_array_equal(out.data, [3.0, 0.0, 3.0])
    out.backward(np.array([10.0, 20.0, 30.0]))
    np.testing.assert_array_equal(base.grad, [10.0, 20.0, 30.0])
    np.testing.assert_array_equal(src.grad, [30.0, 30.0, 10.0])  # each reads where it went


def test_scatter_keeps_the_last_write_and_its_gradient_as_pytorch_does():
    """Where a place is written twice the last write wins (PyTorch's CPU order); the entries
    overwritten and the writes that lost get no gradient."""
    torch = torch_or_skip()
    x = Tensor(np.array([1.0, 2.0, 3.0, 4.0]), requires_grad=True)
    src = Tensor(np.array([1.0, 0.0, 7.0]), requires_grad=True)
    out = x.scatter(0, np.array([0, 0, 2]), src)
    expected = torch.tensor(x.data).scatter(0, torch.tensor([0, 0, 2]), torch.tensor(src.data))
    np.testing.assert_array_equal(out.data, expected.numpy())
    np.testing.assert_array_equal(out.data, [0.0, 2.0, 7.0, 4.0])
    out.backward(np.array([10.0, 20.0, 30.0, 40.0]))
    np.testing.assert_array_equal(x.grad, [0.0, 20.0, 0.0, 40.0])
    np.testing.assert_array_equal(src.grad, [0.0, 10.0, 30.0])


def test_scatter_reduce_amax_without_self_splits_a_tie_among_the_src_entries_only():
    """Three src entries tie for a place whose own entry (left out) has the same value: each
    gets a third of the gradient (PyTorch's a quarter, counting the entry left out: docs/api.md
    lists it)."""
    x = Tensor(np.array([5.0, 1.0]), requires_grad=True)
    src = Tensor(np.array([5.0, 5.0, 5.0]), requires_grad=True)
    out = x.scatter_reduce(0, np.array([0, 0, 0]), src, "amax", include_self=False)
    np.testing.assert_array_equal(out.data, [5.0, 1.0])
    out.backward(np.array([3.0, 1.0]))
    np.testing.assert_array_equal(src.grad, [1.0, 1.0, 1.0])
    np.testing.assert_array_equal(x.grad, [0.0, 1.0])


def test_scatter_reduce_of_integers_and_infinities_matches_torch():
    torch = torch_or_skip()
    x = np.array([[1, 2], [3, 4]], dtype=np.int32)
    src, index = np.array([[5, 6], [7, 9]], dtype=np.int32), np.zeros((2, 2), dtype=np.int64)
    for reduce in ("sum", "prod", "mean", "amax", "amin"):
        out = Tensor(x).scatter_reduce(0, index, Tensor(src), reduce)
        expected = torch.from_numpy(x).scatter_reduce(0, torch.from_numpy(index),
                                                      torch.from_numpy(src), reduce)
        assert out.dtype == np.int32
        np.testing.assert_array_equal(out.data, expected.numpy())
    data = np.random.default_rng(1).standard_normal((4, 5))
    where = np.array([[0, 2, 1, 1, 0], [2, 2, 0, 1, 0], [1, 0, 0, 2, 2]])
    for reduce, value in (("add", np.inf), ("multiply", np.inf), ("add", np.nan)):
        out = Tensor(data).scatter(0, where, value, reduce=reduce)
        expected = torch.tensor(data).scatter(0, torch.tensor(where), value, reduce=reduce)
        np.testing.assert_array_equal(out.data, expected.numpy())


def test_scatters_with_an_empty_index_copy_the_tensor():
    x = Tensor(np.array([3.0, 1.0, 2.0]), requires_grad=True)
    empty, nothing = np.zeros(0, dtype=np.int64), Tensor(np.zeros(0))
    outs = [x.scatter(0, empty, nothing), x.scatter_add(0, empty, nothing)]
    outs += [x.scatter_reduce(0, empty, nothing, reduce) for reduce in ("sum", "amax", "mean")]
    for out in outs:
        np.testing.assert_array_equal(out.data, [3.0, 1.0, 2.0])
    sum(outs).sum().backward()
    np.testing.assert_array_equal(x.grad, [5.0, 5.0, 5.0])


def test_cat_promotes_mixed_dtypes_as_torch():
    torch = _torch()
    ints, floats = np.array([1, 2]), np.array([0.5], dtype=np.float32)
    out = minigrad.cat([Tensor(ints), Tensor(floats)])
    expected = torch.cat([torch.tensor(ints), torch.tensor(floats)])
    assert out.dtype == np.float32 and str(expected.dtype) == "torch.float32"
    np.testing.assert_array_equal(out.data, expected.numpy())
    assert minigrad.stack([Tensor(ints), Tensor(ints.astype(np.int32))]).dtype == np.int64


def test_expand_shares_memory_and_sums_the_gradient():
    x = Tensor(np.array([[1.0], [2.0]]), requires_grad=True)
    out = x.expand(3, 2, 4)
    assert np.shares_memory(out.data, x.data)
    out.backward(np.ones((3, 2, 4)))
    np.testing.assert_array_equal(x.grad, [[12.0], [12.0]])


def test_split_and_chunk_return_tuples_of_views_along_the_dim():
    x = Tensor(np.arange(10.0).reshape(2, 5))
    pieces = x.split(2, dim=-1)
    assert isinstance(pieces, tuple) and [p.shape for p in pieces] == [(2, 2), (2, 2), (2, 1)]
    assert [p.shape for p in minigrad.chunk(x, 2, 1)] == [(2, 3), (2, 2)]
    assert [p.shape for p in Tensor(np.zeros(6)).chunk(4)] == [(2,), (2,), (2,)]
    assert [p.shape for p in Tensor(np.zeros(0)).split(3)] == [(0,)]


def test_squeeze_and_unsqueeze_round_trip_and_0d():
    x = Tensor(np.zeros((3, 1, 2)))
    assert x.squeeze(1).unsqueeze(1).shape == (3, 1, 2)
    assert x.squeeze(0).shape == (3, 1, 2)  # not of size 1: left as it is, as in PyTorch
    scalar = Tensor(np.array(1.0))
    assert scalar.squeeze().shape == () and scalar.squeeze(0).shape == ()
    assert scalar.unsqueeze(0).shape == (1,) and scalar.flatten().shape == (1,)


def test_tril_and_triu_keep_dtype_and_replace_nan_by_zero():
    flags = Tensor(np.ones((3, 3), dtype=bool))
    assert flags.triu().dtype == np.bool_
    assert flags.triu().data.tolist() == np.triu(np.ones((3, 3), dtype=bool)).tolist()
    x = Tensor(np.full((2, 2), np.nan))
    np.testing.assert_array_equal(x.tril().data, [[np.nan, 0.0], [np.nan, np.nan]])


def test_one_hot():
    out = F.one_hot(np.array([[0, 2], [1, 0]]))
    assert out.dtype == np.int64 and out.shape == (2, 2, 3) and not out.requires_grad
    np.testing.assert_array_equal(out.data, np.eye(3, dtype=np.int64)[[[0, 2], [1, 0]]])
    np.testing.assert_array_equal(F.one_hot(Tensor(np.array(1)), 4).data, [0, 1, 0, 0])
    torch = _torch()
    ids = np.array([3, 0, 1])
    np.testing.assert_array_equal(F.one_hot(ids, 5).data,
                                  torch.nn.functional.one_hot(torch.tensor(ids), 5).numpy())


@pytest.mark.parametrize("args,error,message", [
    ((np.array([0.0, 1.0]),), TypeError, "one_hot: classes must be integers"),
    ((np.array([0, -1]),), ValueError, "one_hot: classes must be non-negative"),
    ((np.array([0, 3]), 3), ValueError, "one_hot: classes must be smaller than num_classes=3"),
    ((np.array([], dtype=np.int64),), ValueError, "one_hot: cannot infer num_classes"),
])
def test_one_hot_rejects_bad_classes(args, error, message):
    with pytest.raises(error, match=message):
        F.one_hot(*args)


# --------------------------------------------------------------------------------------------
# einsum
# --------------------------------------------------------------------------------------------
EINSUM = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("ij,jk", [(3, 4), (4, 2)]),                    # implicit output: ik
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("i,i->", [(5,), (5,)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ij,ij->ij", [(3, 4), (3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ii", [(4, 4)]),                               # trace
    ("iij->j", [(3, 3, 2)]),
    ("ij->ji", [(3, 4)]),
    ("ij->", [(3, 4)]),
    ("ba", [(3, 4)]),                               # implicit output sorted: ab
    ("aB", [(3, 4)]),                               # uppercase before lowercase: Ba
    ("...ij,...jk->...ik", [(2, 3, 4), (4, 5)]),
    ("...ij->...ji", [(2, 2, 3, 4)]),
    ("...ij->ij", [(2, 3, 4)]),                     # the ellipsis summed
    ("b...,...->b...", [(2, 3, 4), (4,)]),
    ("ba,a...", [(2, 3), (3, 5)]),                  # implicit with ellipsis: ...b
    ("i,i->i", [(1,), (3,)]),                       # a dim of size 1 broadcasts
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ab,bc,ca->", [(2, 3), (3, 4), (4, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("i,ij,j", [(3,), (3, 4), (4,)]),
    ("ij,kl->ijkl", [(2, 3), (2, 2)]),
    ("ijk,jil->kl", [(2, 3, 4), (3, 2, 5)]),
    ("ii,jj->ij", [(3, 3), (2, 2)]),
    ("a b , b c -> a c", [(2, 3), (3, 2)]),        # spaces are ignored
]


# numpy will not sum an ellipsis away: the same contraction spelled out for the reference
NUMPY_SPELLING = {"...ij->ij": "kij->ij"}


def _einsum_case(equation, shapes):
    reference = NUMPY_SPELLING.get(equation, equation.replace(" ", ""))
    return Case(lambda *xs: minigrad.einsum(equation, *xs),
                lambda *xs: np.einsum(reference, *xs), shapes,
                torch_fn=lambda *xs: _torch().einsum(equation, *xs))


@pytest.mark.parametrize("equation,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum(equation, shapes):
    case = _einsum_case(equation, shapes)
    check_forward(case, fused=False)
    check_gradcheck(case)
    check_float32(case)


@pytest.mark.parametrize("equation,shapes", EINSUM, ids=[e for e, _ in EINSUM])
def test_einsum_matches_torch(equation, shapes):
    check_against_torch(_einsum_case(equation, shapes))


def test_einsum_takes_operands_as_a_list_and_uses_matmul():
    a, b = Tensor(np.ones((2, 3)), requires_grad=True), Tensor(np.ones((4, 3)))
    out = minigrad.einsum("ij,kj->", [a, b])
    assert out.item() == 24.0
    from tests.helpers import op_types
    assert minigrad.ops.MatMul in op_types(out)


@pytest.mark.parametrize("equation,shapes,message", [
    ("ij,jk", [(2, 3)], "has 2 operand"),
    ("ij", [(2, 3, 4)], "operand 0 has 3 dims, but its subscripts 'ij'"),
    ("ijkl...", [(2, 3)], "operand 0 has 2 dims"),
    ("ij->k", [(2, 3)], "output subscript 'k'"),
    ("ij->ii", [(2, 2)], "output subscript 'i'"),
    ("i1", [(2, 3)], "subscripts must be letters"),
    ("i,i", [(2,), (3,)], "subscript 'i' .* size 3 in operand 1 but size 2"),
    ("ii", [(2, 3)], "subscript 'i' is repeated in operand 0 .* sizes 2 and 3"),
])
def test_einsum_rejects_bad_equations(equation, shapes, message):
    with pytest.raises(ValueError, match=f"einsum: .*{message}"):
        minigrad.einsum(equation, *[Tensor(np.ones(s)) for s in shapes])


# --------------------------------------------------------------------------------------------
# errors: each names the function and the offending dims or shapes
# --------------------------------------------------------------------------------------------
X = Tensor(np.zeros((2, 3)))
ERRORS = [
    (lambda: X.squeeze(2), IndexError, "squeeze: dim 2 is out of range"),
    (lambda: X.unsqueeze(3), IndexError, r"unsqueeze: dim 3 is out of range .* \[-3, 2\]"),
    (lambda: X.flatten(1, 0), ValueError, "flatten: start_dim 1 comes after end_dim 0"),
    (lambda: X.unflatten(1, (2, 2)), ValueError, r"unflatten: sizes \(2, 2\) do not multiply"),
    (lambda: X.movedim((0, 1), 0), ValueError, "movedim: source"),
    (lambda: X.movedim((0, 0), (0, 1)), ValueError, "movedim: dims .* more than once"),
    (lambda: X.expand(2, 4), ValueError, r"expand: cannot expand shape \(2, 3\) to \(2, 4\)"),
    (lambda: X.expand(3), ValueError, "expand: cannot expand"),
    (lambda: X.expand(-1, 2, 3), ValueError, "expand: cannot expand"),
    (lambda: X.repeat(2), ValueError, "repeat: sizes"),
    (lambda: X.flip(2), IndexError, "flip: dim 2"),
    (lambda: X.flip(0, dims=(1,)), TypeError, "flip: give dims as arguments or as dims=, not"),
    (lambda: X.roll((1, 2), 0), ValueError, "roll: shifts"),
    (lambda: X.narrow(1, 2, 2), IndexError, "narrow: start 2 and length 2"),
    (lambda: X.split([1, 1], 1), ValueError, r"split: sections \[1, 1\] .* size 3 of dim 1"),
    (lambda: X.split(0, 1), ValueError, "split: split_size must be positive"),
    (lambda: X.chunk(0), ValueError, "chunk: chunks must be positive"),
    (lambda: Tensor(np.array(1.0)).split(1), ValueError, "split: a 0-d tensor"),
    (lambda: X.gather(1, np.array([0, 1])), ValueError, r"gather: index of shape \(2,\)"),
    (lambda: X.gather(0, np.array([[0, 1, 2, 0]])), ValueError, "gather: index of shape"),
    (lambda: X.gather(1, np.array([[0, 3]])), IndexError, r"gather: index entries .* \[0, 3\)"),
    (lambda: X.gather(1, np.array([[-1]])), IndexError, "gather: index entries"),
    (lambda: X.gather(1, np.array([[0.0]])), TypeError, "gather: index must hold integers"),
    (lambda: X.index_select(1, np.array([3])), IndexError, r"index_select: .* \[0, 3\)"),
    (lambda: X.index_select(1, np.array([-1])), IndexError, "index_select: index entries"),
    (lambda: X.index_select(1, np.array([[0]])), IndexError, "index_select: .* 0-d or 1-D"),
    (lambda: X.index_select(1, np.array([0.0])), TypeError, "index_select: .* integers"),
    (lambda: X.take(np.array([-7, 5])), IndexError, r"take: .* \[-6, 6\)"),
    (lambda: X.take(np.array([6])), IndexError, "take: index entries"),
    (lambda: X.scatter_add(0, np.array([[0]]), Tensor(np.ones((1, 1), np.float32))),
     TypeError, "scatter_add: src has dtype float32"),
    (lambda: X.scatter_add(0, np.array([[0, 1]]), Tensor(np.ones((1, 1)))),
     ValueError, "scatter_add: src of shape"),
    (lambda: X.masked_select(np.array([1, 0, 1])), TypeError,
     "masked_select: the mask .* must be a bool"),
    (lambda: X.masked_select(np.array([True, False])), ValueError,
     r"masked_select: mask of shape \(2,\) does not broadcast"),
    (lambda: Tensor(np.zeros(3)).tril(), ValueError, "tril: needs a tensor with at least 2 dims"),
    (lambda: X.diagonal(0, 1, -1), ValueError, "diagonal: dims"),
    (lambda: F.pad(X, (1,)), ValueError, "pad: needs"),
    (lambda: F.pad(X, (1, 1, 1, 1, 1, 1)), ValueError, "pad: needs"),
    (lambda: F.pad(X, (1, 1), mode="typo"), NotImplementedError, "pad: mode must be"),
    (lambda: F.pad(X, (3, 0), mode="reflect"), ValueError, r"pad: reflect padding of \(3, 0\)"),
    (lambda: F.pad(X, (0, 4), mode="circular"), ValueError, "pad: circular padding"),
    (lambda: F.pad(X, (1, 1), mode="replicate", value=2.0), ValueError, "pad: mode 'replicate'"),
    (lambda: F.pad(X, (2, -1), mode="circular"), NotImplementedError, "circular .* crop"),
    (lambda: X.unfold(1, 4, 1), ValueError, r"unfold: size 4 must be in \[0, 3\]"),
    (lambda: X.unfold(1, 2, 0), ValueError, "unfold: .* step 0 positive"),
    (lambda: X.repeat_interleave(np.array([1, 2]), 1), ValueError, "repeat_interleave: repeats"),
    (lambda: X.repeat_interleave(-1), ValueError, "repeat_interleave: repeats"),
    (lambda: Tensor(np.zeros((2, 2, 2))).diag(), ValueError, "diag: needs a 1-D or 2-D"),
    (lambda: X.scatter(0, np.array([[0]])), TypeError, "scatter: give src"),
    (lambda: X.scatter(0, np.array([[0]]), 1.0, reduce="max"), ValueError, "scatter: reduce"),
    (lambda: X.scatter_reduce(0, np.array([[0]]), X, "max"), ValueError,
     "scatter_reduce: reduce must be"),
    (lambda: X.scatter(0, np.array([[5]]), 1.0), IndexError, r"scatter: index entries"),
    (lambda: minigrad.meshgrid(Tensor(np.zeros(2)), indexing="yx"), ValueError,
     "meshgrid: indexing"),
    (lambda: minigrad.meshgrid(X), ValueError, "meshgrid: needs 0-d or 1-D"),
    (lambda: F.pad(X, (-2, -2)), ValueError, "pad: .* crops more than the 3 entries"),
    (lambda: minigrad.cat([X, Tensor(np.zeros((3, 3)))], dim=1), ValueError,
     r"cat: shapes \[\(2, 3\), \(3, 3\)\] must agree in every dim but dim 1"),
    (lambda: minigrad.cat([X, X], dim=77), IndexError, "cat: dim 77 is out of range"),
    (lambda: minigrad.cat([]), ValueError, "cat: needs one or more tensors"),
    (lambda: minigrad.cat([Tensor(np.array(1.0))]), ValueError, "cat: needs .* at least 1 dim"),
    (lambda: minigrad.stack([X, X], dim=77), IndexError, "stack: dim 77 is out of range"),
    (lambda: X.dot(X), ValueError, r"dot: needs two 1-D tensors of one length, got shapes"),
    (lambda: Tensor(np.zeros(3)).dot(Tensor(np.zeros(2))), ValueError, "dot: needs"),
    (lambda: Tensor(np.zeros(3)).outer(X), ValueError, "outer: needs two 1-D tensors"),
    (lambda: minigrad.matmul(Tensor(np.array(1.0)), X), ValueError,
     "matmul: both operands need at least 1 dim"),
]


@pytest.mark.parametrize("call,error,message", ERRORS,
                         ids=[m.split(":")[0] + f"-{i}" for i, (_, _, m) in enumerate(ERRORS)])
def test_errors_name_the_function_and_the_shapes(call, error, message):
    with pytest.raises(error, match=message):
        call()


# Misuse that PyTorch rejects too, written once for both libraries: `m` is minigrad or torch,
# `F` its functional module. Most are RuntimeError in PyTorch, a dim out of range IndexError.
TORCH_ERRORS = [
    lambda m, F: m.ones(3, 4).flip((0, 0)),
    lambda m, F: m.ones(3, 4).flip(2),
    lambda m, F: m.ones(3, 4).permute(0, 0),
    lambda m, F: m.ones(3, 4, 5, 6).permute(0, 2),
    lambda m, F: m.ones(2, 3).permute(0, 1, 2),  # the count is checked before the range
    lambda m, F: m.tensor(1.0).flatten(-2),  # a 0-d tensor takes dims 0 and -1 only
    lambda m, F: m.tensor(1.0).select(0, 0),  # IndexError, where narrow's is RuntimeError
    lambda m, F: m.ones(3).mT,
    lambda m, F: m.ones(3).mH,
    lambda m, F: m.ones(2, 3, 4).H,
    lambda m, F: m.ones(3).H,
    lambda m, F: m.ones(3).adjoint(),
    lambda m, F: m.ones(3, 4).movedim((0, 1), (0,)),
    lambda m, F: m.ones(3, 4).reshape(5, 2),
    lambda m, F: m.ones(3, 4).reshape(-1, -1, 2),
    lambda m, F: m.ones(3, 4).reshape(4, -3),  # only -1 is inferred (numpy takes any negative)
    lambda m, F: m.ones(3, 4).view(-2, 3),
    lambda m, F: m.ones(2, 3, 4).flatten(2, 1),
    lambda m, F: m.ones(6).unflatten(0, (4, 2)),
    lambda m, F: m.tensor(1.0).unbind(0),  # IndexError, where split and chunk: RuntimeError
    lambda m, F: m.tensor(1.0).unbind(-1),
    lambda m, F: m.tensor(1.0).split(1),
    lambda m, F: m.tensor(1.0).chunk(2),
    lambda m, F: m.ones(4, 3).expand(4, 6),
    lambda m, F: m.ones(4, 3).expand(3),
    lambda m, F: m.ones(2, 3).repeat(2),
    lambda m, F: m.ones(2, 4).roll((1, 2), 0),
    lambda m, F: m.ones(()).roll(1, 0),  # IndexError (regression: rolled)
    lambda m, F: m.ones(5).narrow(0, 3, 4),
    lambda m, F: m.ones(5).narrow(0, 7, 0),
    lambda m, F: m.ones(5).split(0),
    lambda m, F: m.ones(5).split([2, 2]),
    lambda m, F: m.ones(5).chunk(0),
    lambda m, F: m.ones(()).split(1),
    lambda m, F: m.ones(4, 5, 6).gather(0, m.tensor([0])),
    lambda m, F: m.ones(2, 3).gather(0, m.tensor([[5]])),
    lambda m, F: m.ones(2, 3).gather(0, m.ones(1, 1)),
    lambda m, F: m.ones(2, 3).index_select(1, m.tensor([3])),
    lambda m, F: m.ones(2, 3).permute(0, 2),  # IndexError, as for every dim out of range
    lambda m, F: m.ones(2, 3).permute(-3, 0),
    lambda m, F: m.ones(2, 3).permute(0, 0),
    lambda m, F: m.ones(2, 3).index_select(1, m.tensor([[0]])),
    lambda m, F: m.ones(2, 3).index_select(1, m.tensor([0.0])),
    lambda m, F: m.ones(2, 3).take(m.tensor([6])),
    lambda m, F: m.ones(2, 3).take(m.tensor([0.0])),
    lambda m, F: m.ones(3).scatter_add(0, m.tensor([0]), m.ones(1, dtype=m.float64)),
    lambda m, F: m.ones(3, 3).scatter(0, m.zeros(2, 2, dtype=m.int64), m.ones(1, 1)),
    lambda m, F: m.ones(3).scatter(0, m.tensor([0]), 1.0, reduce="max"),
    lambda m, F: m.ones(3).scatter_reduce(0, m.tensor([0]), m.ones(1), "INVALID"),
    lambda m, F: m.ones(3).masked_select(m.ones(3)),
    lambda m, F: m.ones(3).masked_select(m.ones(4, dtype=m.bool)),
    lambda m, F: m.ones(3).tril(),
    lambda m, F: m.ones(3).diagonal(),
    lambda m, F: m.ones(2, 2, 2).diag(),
    lambda m, F: m.ones(8).unfold(0, 9, 3),
    lambda m, F: m.ones(8).unfold(0, 1, -1),
    lambda m, F: m.ones(8).unfold(1, 8, 3),
    lambda m, F: m.ones(3).repeat_interleave(m.tensor([1, 2])),
    lambda m, F: m.ones(3).repeat_interleave(-1),
    lambda m, F: F.pad(m.ones(3, 3), (2, 0, 2)),
    lambda m, F: F.pad(m.ones(3, 3), (0, 0, 0, 0, 1, 0, 3, 0)),
    lambda m, F: F.pad(m.ones(3, 3, 3), (3, 0), mode="typo"),
    lambda m, F: F.pad(m.ones(1, 3, 3), (3, 3), mode="reflect"),
    lambda m, F: F.pad(m.ones(1, 3, 3), (1, 1), mode="reflect", value=1.0),
    lambda m, F: F.pad(m.ones(3, 3), (-2, -2)),
    lambda m, F: F.one_hot(m.ones(3)),
    lambda m, F: F.one_hot(m.tensor([5]), 3),
    lambda m, F: m.cat([m.ones(()), m.ones(())]),
    lambda m, F: m.cat([m.ones(2, 3), m.ones(2, 4)]),
    lambda m, F: m.cat([]),
    lambda m, F: m.stack([m.ones(2), m.ones(3)]),
    lambda m, F: m.meshgrid(m.ones(2), indexing="bad"),
    lambda m, F: m.meshgrid(m.ones(2), m.ones(3, dtype=m.int64)),  # PyTorch promotes nothing
    lambda m, F: m.meshgrid(),
    lambda m, F: m.ones(()).matmul(m.ones(3, 3)),
    lambda m, F: m.ones(2, 4).matmul(m.ones(1, 3)),
    lambda m, F: m.ones(2, 2, 3).matmul(m.ones(3, 3, 2)),
    lambda m, F: m.ones(3).dot(m.ones(4)),
    lambda m, F: m.ones(2, 2).outer(m.ones(2)),
    lambda m, F: m.einsum("ij,jk->ij", m.ones(2, 3), m.ones(3, 4), m.ones(4, 2)),
    lambda m, F: m.einsum("...ik..., ...jk ->", m.ones(2, 3, 4), m.ones(2, 3, 4)),
    lambda m, F: m.einsum("pqrs,tuqvr->pstuv", m.ones(3, 8, 10, 5), m.ones(11, 5, 13, 16, 8)),
]


@pytest.mark.parametrize("misuse", TORCH_ERRORS)
def test_errors_are_of_pytorchs_class(misuse):
    assert_raises_like_torch(misuse)


def test_gradcheck_of_a_chain_of_shape_ops():
    x = Tensor(np.random.default_rng(4).standard_normal((2, 3, 4)), requires_grad=True)

    def chain(t):
        parts = t.flip(1).roll(1, 2).movedim(0, -1).chunk(2, 1)
        joined = minigrad.cat([p.flatten(1) for p in parts], 1).unsqueeze(0).expand(2, -1, -1)
        return F.pad(joined.diagonal(0, 1, 2).tril(), (1, 0, 0, 1)).repeat(1, 2)

    with minigrad.fused(False):
        assert gradcheck(chain, [x])


def test_diff_of_bools_and_integers_follows_torch():
    torch = torch_or_skip()
    for data, args in [(np.array([True, False, False, True]), ()), (np.array([1, 4, 9, 16]), (2,)),
                       (np.arange(6).reshape(2, 3), (1, 0))]:
        out, expected = Tensor(data).diff(*args), torch.from_numpy(data).diff(*args)
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())
    # order 0: the input as it is, prepend and append left out
    data, before, after = np.arange(3.0), np.ones(2), np.ones(1)
    out = Tensor(data).diff(0, prepend=Tensor(before), append=Tensor(after))
    expected = torch.from_numpy(data).diff(0, prepend=torch.from_numpy(before),
                                           append=torch.from_numpy(after))
    np.testing.assert_array_equal(out.data, expected.numpy())


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.ones(()).diff(),
    lambda m, F: m.ones(3).diff(-1),
    lambda m, F: m.ones(2, 3).diff(dim=2),
    lambda m, F: m.ones(2, 3).diff(prepend=m.ones(3)),
    lambda m, F: m.ones(2, 3).diff(append=m.ones(3, 1)),
    lambda m, F: m.ones(3).rot90(),
    lambda m, F: m.ones(2, 3).rot90(1, [0]),
    lambda m, F: m.ones(2, 3).rot90(1, [1, -1]),
    lambda m, F: m.ones(2, 3).rot90(1, [0, 2]),
    lambda m, F: m.ones(3).fliplr(),
    lambda m, F: m.ones(()).flipud(),
    lambda m, F: m.ones(2, 3).take_along_dim(m.zeros(2, dtype=m.int64), 1),
    lambda m, F: m.ones(2, 3).take_along_dim(m.zeros(3, 1, dtype=m.int64), 1),
    lambda m, F: m.ones(2, 3).take_along_dim(m.zeros(2, 1, dtype=m.int64), 2),
    lambda m, F: m.ones(2, 3).take_along_dim(m.ones(2, 1), 1),
    lambda m, F: m.hstack([m.ones(2, 3), m.ones(3, 3)]),
    lambda m, F: m.vstack([m.ones(3), m.ones(2)]),
])
def test_new_shape_ops_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_new_products_follow_torch_at_the_edges():
    """Integer cross products, empty blocks, block_diag of nothing, cartesian_prod of one
    tensor, and cdist's gradient 0 where two rows coincide."""
    torch = torch_or_skip()
    ints = np.array([1, 2, 3]), np.array([4, 5, 6])
    out = minigrad.cross(Tensor(ints[0]), Tensor(ints[1]))
    assert out.dtype == np.int64
    np.testing.assert_array_equal(out.data, torch.cross(*map(torch.from_numpy, ints), dim=0))
    for blocks in [(np.ones(0), np.ones((2, 0))), (np.array([1, 2]), np.ones(1)), ()]:
        out = minigrad.block_diag(*map(Tensor, blocks))
        expected = torch.block_diag(*map(torch.from_numpy, blocks))
        assert out.shape == tuple(expected.shape) and str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())
    single = Tensor(np.array([1, 2]))
    assert minigrad.cartesian_prod(single) is single
    rows = np.array([[1.0, 2.0], [0.5, -1.0]])
    x1, x2 = Tensor(rows, requires_grad=True), Tensor(rows.copy(), requires_grad=True)
    minigrad.cdist(x1, x2).sum().backward()
    t1, t2 = torch.tensor(rows, requires_grad=True), torch.tensor(rows, requires_grad=True)
    torch.cdist(t1, t2, compute_mode="donot_use_mm_for_euclid_dist").sum().backward()
    np.testing.assert_allclose(x1.grad, t1.grad.numpy(), rtol=1e-12)
    np.testing.assert_allclose(x2.grad, t2.grad.numpy(), rtol=1e-12)
    for p in (0.0, 1.0, 2.0, float("inf")):  # rows of no columns: 0 apart for every p
        out = minigrad.cdist(minigrad.ones(3, 0), minigrad.ones(2, 0), p)
        expected = torch.cdist(torch.ones(3, 0), torch.ones(2, 0), p)
        assert out.shape == tuple(expected.shape) and out.tolist() == expected.tolist()


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.cross(m.ones(4, 3), m.ones(3), dim=1),
    pytest.param(lambda m, F: m.cross(m.ones(2, 4), m.ones(2, 4)),
                 marks=pytest.mark.filterwarnings("ignore:Using torch.cross without")),
    lambda m, F: m.cross(m.ones(3, 4), m.ones(3, 4), dim=1),
    lambda m, F: m.cross(m.ones(3), m.ones(3), dim=1),
    lambda m, F: m.cdist(m.ones(3), m.ones(3)),
    lambda m, F: m.cdist(m.ones(2, 3), m.ones(4, 2)),
    lambda m, F: m.cdist(m.ones(2, 3), m.ones(4, 3), p=-1.0),
    lambda m, F: m.cdist(m.ones(2, 3, dtype=m.int64), m.ones(4, 3, dtype=m.int64)),
    lambda m, F: m.cdist(m.ones(2, 3), m.ones(4, 3), compute_mode="fast"),
    lambda m, F: m.tensordot(m.ones(2, 3), m.ones(4, 5), 1),
    lambda m, F: m.tensordot(m.ones(2, 3), m.ones(3, 5), -1),
    lambda m, F: m.tensordot(m.ones(2, 3), m.ones(3, 5), ([2], [0])),
    lambda m, F: m.inner(m.ones(2, 3), m.ones(4, 2)),
    lambda m, F: m.block_diag(m.ones(2, 2, 2)),
    lambda m, F: m.cartesian_prod(m.ones(2, 2)),
])
def test_new_products_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_addmm_kin_vander_and_combinations_follow_torch_at_the_edges():
    """beta = 0 ignores NaN in self; integer products stay integer; empty batches, empty
    vectors, r = 0 or r beyond the length, N = 0 columns."""
    torch = torch_or_skip()
    nan = np.full((2, 2), np.nan, dtype=np.float32)
    calls = [
        lambda lib, n: lib.addbmm(n, lib.ones(3, 2, 4), lib.ones(3, 4, 2), beta=0),
        lambda lib, n: lib.addbmm(n, lib.ones(0, 2, 4), lib.ones(0, 4, 2), beta=0),
        lambda lib, n: lib.addr(n[0], lib.ones(2), lib.ones(2), beta=0, alpha=3),
        lambda lib, n: lib.addmv(lib.tensor([1, 2]), lib.tensor([[1, 2], [3, 4]]),
                                 lib.tensor([5, 6]), beta=2, alpha=3),
        lambda lib, n: lib.baddbmm(lib.ones(1, dtype=lib.int32), lib.ones(2, 2, 3, dtype=lib.int32),
                                   lib.ones(2, 3, 1, dtype=lib.int32)),
        lambda lib, n: lib.vdot(lib.ones(0), lib.ones(0)),
        lambda lib, n: lib.vander(lib.tensor([2, 3], dtype=lib.int32)),
        lambda lib, n: lib.vander(lib.tensor([True, False]), N=3),
        lambda lib, n: lib.vander(lib.tensor([1.0, 2.0]), N=0),
        lambda lib, n: lib.vander(lib.ones(0), N=2),
        lambda lib, n: lib.combinations(lib.tensor([1, 2, 3]), r=0),
        lambda lib, n: lib.combinations(lib.tensor([1, 2, 3]), r=4),
        lambda lib, n: lib.combinations(lib.tensor([1.0, 2.0]), r=1),
        lambda lib, n: lib.combinations(lib.ones(0), r=2, with_replacement=True),
    ]
    for call in calls:
        out, expected = call(minigrad, Tensor(nan)), call(torch, torch.tensor(nan))
        assert out.shape == tuple(expected.shape) and str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.addmv(m.ones(2), m.ones(2, 3), m.ones(4)),
    lambda m, F: m.addmv(m.ones(3), m.ones(2, 3), m.ones(3)),
    lambda m, F: m.addr(m.ones(3, 3), m.ones(2, 2), m.ones(3)),
    lambda m, F: m.addr(m.ones(3, 2), m.ones(2), m.ones(3)),
    lambda m, F: m.addbmm(m.ones(2, 2), m.ones(2, 2, 3), m.ones(3, 3, 2)),
    lambda m, F: m.addbmm(m.ones(2, 2), m.ones(2, 2, 3), m.ones(2, 4, 2)),
    lambda m, F: m.baddbmm(m.ones(5, 2, 2), m.ones(2, 2, 3), m.ones(2, 3, 2)),
    lambda m, F: m.vdot(m.ones(3), m.ones(2)),
    lambda m, F: m.vdot(m.ones(2, 3), m.ones(2, 3)),
    lambda m, F: m.ger(m.ones(2, 2), m.ones(2)),
    lambda m, F: m.chain_matmul(),
    lambda m, F: m.chain_matmul(m.ones(3), m.ones(3, 2)),
    lambda m, F: m.chain_matmul(m.ones(2, 3), m.ones(2, 2)),
    lambda m, F: m.vander(m.ones(2, 2)),
    lambda m, F: m.vander(m.tensor(1.0)),
    lambda m, F: m.vander(m.ones(2), N=-1),
    lambda m, F: m.combinations(m.ones(2, 2)),
    lambda m, F: m.combinations(m.ones(2), r=-1),
])
@pytest.mark.filterwarnings("ignore:torch.chain_matmul is deprecated:UserWarning")
def test_addmm_kin_vander_and_combinations_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


COPIES = {  # torch.<name>_copy: the arguments after the input, and the input's shape
    "alias_copy": ((), (2, 3)), "detach_copy": ((), (2, 3)),
    "diagonal_copy": ((1, 2, 0), (3, 2, 4)), "expand_copy": (((2, 3, 4),), (3, 1)),
    "permute_copy": (((2, 0, 1),), (2, 3, 4)), "select_copy": ((1, -2), (2, 3, 4)),
    "slice_copy": ((1, -3, None, 2), (2, 5)), "split_copy": ((2, 1), (2, 5)),
    "split_with_sizes_copy": (([1, 3, 1], -1), (2, 5)), "squeeze_copy": (((0, 2),), (1, 3, 1)),
    "t_copy": ((), (2, 3)), "transpose_copy": ((0, 2), (2, 3, 4)),
    "unbind_copy": ((1,), (2, 3)), "unfold_copy": ((1, 2, 2), (2, 5)),
    "unsqueeze_copy": ((-1,), (2, 3)), "view_copy": (((3, -1),), (2, 3, 2)),
}


@pytest.mark.parametrize("name", list(COPIES))
def test_view_copies_match_torch_and_share_no_memory(name):
    """Values and gradients as PyTorch's *_copy, and each output's memory its own: writing to
    it leaves the input alone. (detach_copy's result is detached; PyTorch's requires grad with
    a backward that raises NotImplementedError: docs/api.md lists the difference.)"""
    torch = torch_or_skip()
    args, shape = COPIES[name]
    data = np.random.default_rng(5).standard_normal(shape)
    x, t = Tensor(data.copy(), requires_grad=True), torch.tensor(data, requires_grad=True)
    out, expected = getattr(minigrad, name)(x, *args), getattr(torch, name)(t, *args)
    out, expected = (out, expected) if isinstance(out, tuple) else ((out,), (expected,))
    assert len(out) == len(expected)
    for got, want in zip(out, expected):
        assert got.shape == tuple(want.shape)
        assert got.requires_grad == (want.requires_grad and name != "detach_copy")
        np.testing.assert_array_equal(got.data, want.detach().numpy())
        assert not np.shares_memory(got.data, x.data)
    if out[0].requires_grad:
        weights = [np.random.default_rng(i).standard_normal(o.shape) for i, o in enumerate(out)]
        sum((o * w).sum() for o, w in zip(out, weights)).backward()
        sum((e * torch.tensor(w)).sum() for e, w in zip(expected, weights)).backward()
        np.testing.assert_allclose(x.grad, t.grad.numpy(), rtol=1e-12)


def test_unsafe_splits_are_the_splits_as_torch():
    torch = torch_or_skip()
    data = np.arange(10.0).reshape(2, 5)
    for call in [lambda lib, x: lib.unsafe_chunk(x, 2, 1),
                 lambda lib, x: lib.unsafe_split(x, 2, -1),
                 lambda lib, x: lib.unsafe_split_with_sizes(x, [1, 4], 1)]:
        x, t = Tensor(data.copy(), requires_grad=True), torch.tensor(data, requires_grad=True)
        out, expected = call(minigrad, x), call(torch, t)
        assert [o.tolist() for o in out] == [e.tolist() for e in expected]
        out[-1].sum().backward()
        expected[-1].sum().backward()
        np.testing.assert_array_equal(x.grad, t.grad.numpy())


def test_scatters_into_views_cast_src_and_clamp_slices_as_torch():
    """select_scatter casts src to the input's dtype, slice bounds outside the dim are clamped,
    empty slices and diagonals take an empty src."""
    torch = torch_or_skip()
    calls = [
        lambda lib: lib.select_scatter(lib.zeros(3, 4), lib.ones(3, dtype=lib.float64), 1, 0),
        lambda lib: lib.arange(6).reshape(2, 3).select_scatter(lib.tensor([7, 8]), 1, -1),
        lambda lib: lib.slice_scatter(lib.zeros(2, 5), lib.ones(2, 2), 1, -2, 100),
        lambda lib: lib.slice_scatter(lib.zeros(2, 5), lib.ones(2, 0), 1, 4, 2),
        lambda lib: lib.diagonal_scatter(lib.zeros(2, 3), lib.ones(0), 5),
        lambda lib: lib.diagonal_scatter(lib.zeros(2, 3, dtype=lib.int32),
                                         lib.tensor([4, 5], dtype=lib.int32), 1),
    ]
    for call in calls:
        out, expected = call(minigrad), call(torch)
        assert out.shape == tuple(expected.shape) and str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.select_scatter(m.zeros(3, 4), m.ones(4, 1), 1, 0),
    lambda m, F: m.select_scatter(m.zeros(3, 4), m.ones(3), 1, 5),
    lambda m, F: m.select_scatter(m.zeros(3, 4), m.ones(3), 2, 0),
    lambda m, F: m.select_scatter(m.zeros(3, 4), m.ones(1), 1, 0),
    lambda m, F: m.slice_scatter(m.zeros(3, 4), m.ones(3, 3), 1, 0, 2),
    lambda m, F: m.slice_scatter(m.zeros(3, 4), m.ones(3, 2), 1, 0, 4, 0),
    lambda m, F: m.diagonal_scatter(m.zeros(3, 4), m.ones(4)),
    lambda m, F: m.diagonal_scatter(m.zeros(3), m.ones(1)),
    lambda m, F: m.slice_copy(m.zeros(3, 4), 1, 0, 4, -1),
    lambda m, F: m.select_copy(m.zeros(3, 4), 0, 3),
    lambda m, F: m.view_copy(m.zeros(3, 4), (5, 2)),
    lambda m, F: m.expand_copy(m.zeros(3, 4), (2, 4)),
])
def test_scatters_into_views_and_view_copies_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_index_copy_at_a_repeated_place_keeps_the_last_as_torch():
    """The value is PyTorch's; the gradient goes to the last source slice only (PyTorch's goes
    to both, as for scatter: docs/api.md lists the difference)."""
    torch = torch_or_skip()
    x, source = np.zeros((3, 2)), np.arange(4.0).reshape(2, 2)
    got = Tensor(x).index_copy(0, np.array([2, 2]), Tensor(source))
    expected = torch.tensor(x).index_copy(0, torch.tensor([2, 2]), torch.tensor(source))
    np.testing.assert_array_equal(got.data, expected.numpy())
    source_leaf = Tensor(source, requires_grad=True)
    Tensor(x).index_copy(0, np.array([2, 2]), source_leaf).sum().backward()
    np.testing.assert_array_equal(source_leaf.grad, [[0.0, 0.0], [1.0, 1.0]])


def test_index_put_at_a_repeated_place_keeps_the_last_as_torch():
    """The value is PyTorch's (CPU: the last write), and so are the gradients: each value gets
    that of the place it was written to, written over or not (primitive IndexPut). index_put_
    writes into the tensor."""
    torch = torch_or_skip()
    x, values = np.zeros((3, 2)), np.arange(4.0).reshape(2, 2)
    upstream = np.arange(6.0).reshape(3, 2)
    results = []
    for lib in (minigrad, torch):
        base = lib.tensor(x, requires_grad=True)
        values_leaf = lib.tensor(values, requires_grad=True)
        out = base.index_put((lib.tensor([2, 2]),), values_leaf)
        (out * lib.tensor(upstream)).sum().backward()
        results.append([t.detach().numpy().copy() for t in (out, base.grad, values_leaf.grad)])
    for got, expected in zip(*results):
        np.testing.assert_array_equal(got, expected)
    target = Tensor(x.copy())
    assert target.index_put_((np.array([1, 1]),), Tensor(values), accumulate=True) is target
    np.testing.assert_array_equal(target.data, [[0.0, 0.0], [2.0, 4.0], [0.0, 0.0]])


IN_PLACE_SCATTERS = {
    "index_put_": lambda lib, x: x.index_put_((lib.tensor([2, 0, 2]),), lib.ones(3, 4),
                                              accumulate=True),
    "index_add_": lambda lib, x: x.index_add_(1, lib.tensor([3, 0]), lib.ones(3, 2), alpha=2),
    "index_copy_": lambda lib, x: x.index_copy_(0, lib.tensor([1]), lib.ones(1, 4)),
    "index_fill_": lambda lib, x: x.index_fill_(1, lib.tensor([0, 2]), -1.0),
    "masked_scatter_": lambda lib, x: x.masked_scatter_(lib.tensor([True, False, False, True]),
                                                        lib.arange(12.0)),
    "scatter_": lambda lib, x: x.scatter_(1, lib.tensor([[1], [0], [3]]), 7.0),
    "scatter_add_": lambda lib, x: x.scatter_add_(0, lib.tensor([[2, 0, 1, 1]]), lib.ones(1, 4)),
    "scatter_reduce_": lambda lib, x: x.scatter_reduce_(0, lib.tensor([[2, 0, 1, 1]]),
                                                        lib.full((1, 4), 9.0), "amax",
                                                        include_self=False),
}


@pytest.mark.parametrize("name", list(IN_PLACE_SCATTERS))
def test_in_place_scatters_write_into_the_tensor_as_torch(name):
    """Each writes PyTorch's result into the tensor and returns it (they were missing); with
    grad mode on, a tensor that requires grad is refused, as for every in-place op."""
    torch = torch_or_skip()
    data = np.arange(12.0, dtype=np.float32).reshape(3, 4)  # the dtype of ones and arange
    x, expected = Tensor(data.copy()), torch.tensor(data)
    assert IN_PLACE_SCATTERS[name](minigrad, x) is x
    IN_PLACE_SCATTERS[name](torch, expected)
    np.testing.assert_array_equal(x.data, expected.numpy())
    with pytest.raises(RuntimeError, match=name):
        IN_PLACE_SCATTERS[name](minigrad, Tensor(data, requires_grad=True))


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.zeros(3, 2).index_put((m.tensor([0.0]),), m.tensor(1.0)),
    lambda m, F: m.zeros(3, 2).index_put((m.tensor([3]),), m.tensor(1.0)),
    lambda m, F: m.zeros(3, 2).index_put((m.tensor([0]),) * 3, m.tensor(1.0)),
    lambda m, F: m.zeros(3, 2).index_put((m.tensor([True, False]),), m.tensor(1.0)),
    lambda m, F: m.zeros(3, 2).index_put((m.tensor([0, 1]),), m.tensor([1.0, 2.0, 3.0])),
    lambda m, F: m.zeros(3, 2).index_put((m.tensor([0, 1]),), m.ones(1, 1, 2)),
    lambda m, F: m.zeros(3, 2).index_put((m.tensor([0, 1]),), m.tensor(1)),
    lambda m, F: m.zeros(3, 2).index_put(m.tensor([0, 1]), m.tensor(1.0)),
    lambda m, F: m.zeros(3, 2).masked_scatter(m.tensor([True, True, False]), m.ones(6)),
    lambda m, F: m.zeros(3, 2).masked_scatter(m.ones(3, 2, dtype=m.bool), m.ones(5)),
    lambda m, F: m.zeros(3, 2).masked_scatter(m.ones(3, 2, dtype=m.bool), m.ones(6, dtype=m.int64)),
    lambda m, F: m.zeros(3, 2).masked_scatter(m.ones(3, 2, dtype=m.int64), m.ones(6)),
    lambda m, F: m.zeros(2, 3).masked_fill_(m.ones(2, 2, 3, dtype=m.bool), 1.0),
    lambda m, F: m.zeros(2, 3).put(m.tensor([6]), m.ones(1)),
    lambda m, F: m.zeros(2, 3).put(m.tensor([1, 2]), m.ones(1)),
    lambda m, F: m.zeros(2, 3).put(m.tensor([1.0]), m.ones(1)),
    lambda m, F: m.zeros(2, 3).index_reduce(0, m.tensor([0]), m.ones(1, 3), "sum"),
    lambda m, F: m.zeros(2, 3).index_reduce(0, m.tensor([2]), m.ones(1, 3), "amax"),
])
def test_index_put_and_masked_scatter_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


def test_repeat_interleave_of_the_counts_alone_repeats_their_indices_as_torch():
    torch = torch_or_skip()
    for counts in (np.array([1, 0, 3]), np.array([2, 1], np.int32), np.zeros(0, np.int64)):
        out, expected = minigrad.repeat_interleave(Tensor(counts)), torch.repeat_interleave(
            torch.from_numpy(counts))
        assert str(expected.dtype) == f"torch.{out.dtype}"
        np.testing.assert_array_equal(out.data, expected.numpy())
    for misuse in (lambda m, F: m.repeat_interleave(m.tensor([1.0, 2.0])),
                   lambda m, F: m.repeat_interleave(m.tensor([[1, 2]])),
                   lambda m, F: m.repeat_interleave(m.tensor(2)),
                   lambda m, F: m.repeat_interleave(m.tensor([-1, 2])),
                   lambda m, F: m.repeat_interleave(m.tensor([True, False])),
                   lambda m, F: m.ones(6).split_with_sizes(2),
                   lambda m, F: m.ones(6).split_with_sizes([2, 3])):
        assert_raises_like_torch(misuse)


def test_tensor_split_reads_negative_indices_and_0_d_tensors_as_torch():
    """Indices are slice bounds (a negative one counts from the end); a 0-d tensor is a count
    of sections, as in PyTorch."""
    torch = torch_or_skip()
    data = np.arange(12.0).reshape(6, 2)
    for split in ([-1], [-2, 4], [-10, 2], [4, -3], [7], [1, -1]):
        got = Tensor(data).tensor_split(split)
        expected = torch.tensor(data).tensor_split(split)
        assert [t.tolist() for t in got] == [t.tolist() for t in expected]
    got = Tensor(data).tensor_split(Tensor(np.array(4)))
    expected = torch.tensor(data).tensor_split(torch.tensor(4))
    assert [t.tolist() for t in got] == [t.tolist() for t in expected]


def test_index_fill_of_a_0_d_tensor_fills_its_entry_as_torch():
    torch = torch_or_skip()
    for index in ([0], [-1], []):
        x = Tensor(np.array(2.0), requires_grad=True)
        out = x.index_fill(0, np.array(index, np.int64), 3.0)
        expected = torch.tensor(2.0).index_fill(0, torch.tensor(index, dtype=torch.int64), 3.0)
        assert out.shape == () and out.item() == expected.item()
        out.backward()
        assert x.grad == (0.0 if index else 1.0)
    assert_raises_like_torch(lambda m, F: m.tensor(2.0).index_fill(0, m.tensor([1]), 3.0))


def test_take_along_dim_refuses_indices_out_of_range():
    """As gather; PyTorch's takes them modulo the size, unchecked (docs/api.md lists it)."""
    for index in (3, -1):
        with pytest.raises(IndexError):
            minigrad.ones(2, 3).take_along_dim(np.array([[index]]), 1)


def test_argwhere_broadcasting_and_isin_match_torch():
    torch = torch_or_skip()
    data = np.array([[0, 1], [1, 0]])
    np.testing.assert_array_equal(minigrad.argwhere(Tensor(data)).data, torch.argwhere(
        torch.from_numpy(data)).numpy())
    assert minigrad.broadcast_shapes((2, 1), (3,)) == tuple(torch.broadcast_shapes((2, 1), (3,)))
    assert minigrad.broadcast_shapes(3, (2, 1)) == (2, 3)
    shapes = [t.shape for t in minigrad.broadcast_tensors(Tensor(np.ones((2, 1))),
                                                          Tensor(np.ones(3)))]
    assert shapes == [(2, 3), (2, 3)]
    for kwargs in ({}, {"invert": True}):
        got = minigrad.isin(Tensor(np.array([1, 2, 3])), Tensor(np.array([2, 5])), **kwargs)
        expected = torch.isin(torch.tensor([1, 2, 3]), torch.tensor([2, 5]), **kwargs)
        np.testing.assert_array_equal(got.data, expected.numpy())
    assert minigrad.isin(Tensor(np.array([1, 2])), 2).tolist() == [False, True]


@pytest.mark.parametrize("misuse", [
    lambda m, F: m.ones(3, 4).index_add(1, m.tensor([0, 5, 0]), m.ones(3, 3)),
    lambda m, F: m.ones(3, 4).index_add(1, m.tensor([0, 1]), m.ones(3, 3)),
    lambda m, F: m.ones(3, 4).index_add(1, m.tensor([[0, 1, 1]]), m.ones(3, 3)),
    lambda m, F: m.ones(3, 4).index_copy(0, m.tensor([0]), m.ones(1, 3)),
    lambda m, F: m.ones(3, 4).index_fill(1, m.tensor([4]), 0.0),
    lambda m, F: m.ones(3, 4).tensor_split(0),
    lambda m, F: m.ones(()).tensor_split(2),
    lambda m, F: m.ones(2, 6).hsplit(4),
    lambda m, F: m.ones(2, 6).hsplit(0),
    lambda m, F: m.ones(()).hsplit(1),
    lambda m, F: m.ones(3).vsplit(1),
    lambda m, F: m.ones(3, 2).dsplit([1]),
    lambda m, F: m.broadcast_tensors(m.ones(2), m.ones(3)),
])
def test_index_ops_and_tensor_split_misuse_raises_as_torch(misuse):
    assert_raises_like_torch(misuse)


@pytest.mark.parametrize("values, dtype", [
    (np.array([1.0, -2.5], dtype=np.float32), "int32"),
    (np.arange(6, dtype=np.float32).reshape(2, 3), "float16"),  # last dim 3 -> 6
    (np.arange(8, dtype=np.uint8).reshape(2, 4), "float32"),  # last dim 4 -> 1
    (np.array(1.5, dtype=np.float64), "int64"),  # 0-d, one element size
])
def test_view_as_a_dtype_reads_the_same_bytes_as_torch(values, dtype):
    torch = torch_or_skip()
    ours = Tensor(values.copy(), requires_grad=values.dtype.kind == "f")
    viewed = ours.view(getattr(minigrad, dtype))
    expected = torch.tensor(values).view(getattr(torch, dtype))
    assert viewed.shape == tuple(expected.shape) and not viewed.requires_grad
    np.testing.assert_array_equal(viewed.data, expected.numpy())
    viewed.data.flat[0] = 0  # shares the memory, as PyTorch's view
    assert ours.data.tobytes()[:viewed.data.itemsize] == bytes(viewed.data.itemsize)


@pytest.mark.parametrize("misuse", [
    lambda lib, F: lib.arange(6, dtype=lib.float32).reshape(2, 3).view(lib.float64),
    lambda lib, F: lib.arange(6, dtype=lib.float32).reshape(3, 2).t().view(lib.float16),
    lambda lib, F: lib.tensor(1.5).view(lib.float16),
])
def test_view_as_a_dtype_refuses_what_torch_refuses(misuse):
    assert_raises_like_torch(misuse)
