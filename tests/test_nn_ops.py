"""Forward values of every op against numpy (float32 and float64); the fused nn ops against the
same function composed from primitive minigrad ops, in value and gradient; embedding, dropout, and
float32 in -> float32 out for every nn op."""
import math

import numpy as np
import pytest

import minigrad.functional as F
from minigrad import Tensor, engine

from tests.graph_walk import graph_tensors

rng = np.random.default_rng(77)
DTYPES = [np.float32, np.float64]
TOL = {np.float32: dict(rtol=2e-6, atol=1e-6), np.float64: dict(rtol=1e-13, atol=1e-14)}


def data(*shape, dtype=np.float64, low=None, high=None):
    if low is not None:
        return rng.uniform(low, high, size=shape).astype(dtype)
    return rng.standard_normal(shape).astype(dtype)


def gelu_reference(x):
    c = np.sqrt(2 / np.pi)
    return 0.5 * x * (1 + np.tanh(c * (x + 0.044715 * x ** 3)))


# --------------------------------------------------------------------------------------------
# forward values against numpy
# --------------------------------------------------------------------------------------------
UNARY = {
    "neg": (lambda t: -t, lambda x: -x, None),
    "exp": (lambda t: t.exp(), np.exp, None),
    "log": (lambda t: t.log(), np.log, (0.1, 5.0)),
    "sqrt": (lambda t: t.sqrt(), np.sqrt, (0.0, 5.0)),
    "abs": (lambda t: t.abs(), np.abs, None),
    "tanh": (lambda t: t.tanh(), np.tanh, None),
    "sigmoid": (lambda t: t.sigmoid(), lambda x: 1 / (1 + np.exp(-x)), None),
    "relu": (lambda t: t.relu(), lambda x: np.maximum(x, 0), None),
    "gelu": (F.gelu, gelu_reference, None),
    "square": (lambda t: t ** 2, lambda x: x * x, None),
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
    np.testing.assert_allclose(out, [0.0, 1 / (1 + math.exp(50)), 0.5, 1 / (1 + math.exp(-50)), 1.0],
                               rtol=1e-15, atol=0)


BINARY = {
    "add": (lambda a, b: a + b, np.add),
    "sub": (lambda a, b: a - b, np.subtract),
    "mul": (lambda a, b: a * b, np.multiply),
    "div": (lambda a, b: a / b, np.divide),
    "pow": (lambda a, b: a ** b, np.power),
    "matmul": (lambda a, b: a @ b, None),
}


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["add", "sub", "mul", "div", "pow"])
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


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", ["sum", "mean", "max"])
@pytest.mark.parametrize("axis,keepdims", [(None, False), (None, True), (0, False), (-1, True),
                                           ((0, 2), False), ((1, 2), True)])
def test_reduction_forward_matches_numpy(name, axis, keepdims, dtype):
    x = data(2, 3, 4, dtype=dtype)
    out = getattr(Tensor(x), name)(axis=axis, keepdims=keepdims)
    expected = getattr(np, name)(x.astype(np.float64), axis=axis, keepdims=keepdims)
    assert out.dtype == dtype and out.shape == np.shape(expected)
    np.testing.assert_allclose(out.data, expected, **TOL[dtype])


@pytest.mark.parametrize("dtype", DTYPES)
def test_shape_ops_forward_match_numpy(dtype):
    x, y = data(2, 3, 4, dtype=dtype), data(2, 3, 4, dtype=dtype)
    tx, ty = Tensor(x), Tensor(y)
    cases = [
        (tx.reshape(6, 4), x.reshape(6, 4)),
        (tx.transpose(2, 0, 1), x.transpose(2, 0, 1)),
        (tx.T, x.T),
        (tx[1, ::2, np.array([0, 0, 3])], x[1, ::2, np.array([0, 0, 3])]),
        (F.concat([tx, ty], axis=1), np.concatenate([x, y], axis=1)),
        (F.stack([tx, ty], axis=-1), np.stack([x, y], axis=-1)),
    ]
    for out, expected in cases:
        assert out.dtype == dtype
        np.testing.assert_array_equal(out.data, expected)


# --------------------------------------------------------------------------------------------
# fused nn ops == the same function composed from primitive ops, in value and gradient
# --------------------------------------------------------------------------------------------
def composed_softmax(x, axis=-1):
    e = (x - x.max(axis=axis, keepdims=True)).exp()
    return e / e.sum(axis=axis, keepdims=True)


def composed_log_softmax(x, axis=-1):
    shifted = x - x.max(axis=axis, keepdims=True)
    return shifted - shifted.exp().sum(axis=axis, keepdims=True).log()


def composed_cross_entropy(logits, targets):
    n = logits.shape[0]
    return -composed_log_softmax(logits, axis=1)[np.arange(n), targets].mean()


def composed_layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    centered = x - mu
    var = (centered * centered).mean(axis=-1, keepdims=True)
    return centered / (var + eps).sqrt() * w + b


def composed_gelu(x):
    c = math.sqrt(2 / math.pi)
    return 0.5 * x * (1.0 + (c * (x + 0.044715 * x ** 3)).tanh())


TARGETS = np.array([0, 4, 4, 2, 1, 0])

FUSED_VS_COMPOSED = {
    "softmax": (F.softmax, composed_softmax, [(4, 5)]),
    "softmax_axis0": (lambda x: F.softmax(x, axis=0), lambda x: composed_softmax(x, axis=0),
                      [(4, 5)]),
    "softmax_3d_axis1": (lambda x: F.softmax(x, axis=1), lambda x: composed_softmax(x, axis=1),
                         [(2, 3, 4)]),
    "log_softmax": (F.log_softmax, composed_log_softmax, [(4, 5)]),
    "log_softmax_axis1": (lambda x: F.log_softmax(x, axis=1),
                          lambda x: composed_log_softmax(x, axis=1), [(2, 4, 3)]),
    "cross_entropy": (lambda x: F.cross_entropy(x, TARGETS),
                      lambda x: composed_cross_entropy(x, TARGETS), [(6, 5)]),
    "layer_norm": (F.layer_norm, composed_layer_norm, [(2, 3, 6), (6,), (6,)]),
    "layer_norm_eps": (lambda x, w, b: F.layer_norm(x, w, b, eps=0.5),
                       lambda x, w, b: composed_layer_norm(x, w, b, eps=0.5),
                       [(4, 6), (6,), (6,)]),
    "gelu": (F.gelu, composed_gelu, [(3, 7)]),
}


@pytest.mark.parametrize("name", list(FUSED_VS_COMPOSED))
def test_fused_op_matches_composition(name):
    fused, composed, shapes = FUSED_VS_COMPOSED[name]
    arrays = [rng.standard_normal(s) * 2 for s in shapes]
    fused_in = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    composed_in = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    out_f, out_c = fused(*fused_in), composed(*composed_in)
    assert out_f.shape == out_c.shape and out_f.dtype == out_c.dtype == np.float64
    assert len(out_f.grad_fn.inputs) == len(shapes)  # the fused version is one op
    np.testing.assert_allclose(out_f.data, out_c.data, rtol=1e-12, atol=1e-13)

    g = rng.standard_normal(out_f.shape)
    out_f.backward(g)
    out_c.backward(g)
    for i, (tf, tc) in enumerate(zip(fused_in, composed_in)):
        assert tf.grad is not None and tc.grad is not None, i
        np.testing.assert_allclose(tf.grad, tc.grad, rtol=1e-10, atol=1e-12, err_msg=f"input {i}")


def test_cross_entropy_equals_mean_negative_log_softmax_at_targets():
    logits = rng.standard_normal((5, 4)) * 3
    targets = np.array([3, 0, 0, 2, 1])
    shifted = logits - logits.max(axis=1, keepdims=True)
    log_probs = shifted - np.log(np.exp(shifted).sum(axis=1, keepdims=True))
    expected = -log_probs[np.arange(5), targets].mean()
    loss = F.cross_entropy(Tensor(logits), targets)
    assert loss.shape == ()
    np.testing.assert_allclose(loss.item(), expected, rtol=1e-14)
    # and against minigrad's own log_softmax picked at the targets
    picked = F.log_softmax(Tensor(logits))[np.arange(5), targets]
    np.testing.assert_allclose(loss.item(), -picked.mean().item(), rtol=1e-14)


def test_cross_entropy_gradient_by_hand():
    logits = rng.standard_normal((3, 4))
    targets = np.array([1, 1, 3])
    x = Tensor(logits, requires_grad=True)
    F.cross_entropy(x, targets).backward()
    p = np.exp(logits) / np.exp(logits).sum(axis=1, keepdims=True)
    onehot = np.eye(4)[targets]
    np.testing.assert_allclose(x.grad, (p - onehot) / 3, rtol=1e-13, atol=1e-15)


def test_cross_entropy_is_stable_for_huge_logits():
    x = Tensor(np.array([[1000.0, 0.0], [0.0, -1000.0]]), requires_grad=True)
    loss = F.cross_entropy(x, np.array([1, 1]))  # -log p = 1000 for both rows
    np.testing.assert_allclose(loss.item(), 1000.0, rtol=1e-12)
    loss.backward()
    np.testing.assert_allclose(x.grad, [[0.5, -0.5], [0.5, -0.5]], atol=1e-12)


@pytest.mark.parametrize("targets,shape,error", [
    (np.array([0, 5]), (2, 5), ValueError),        # out of range
    (np.array([0, -1]), (2, 5), ValueError),
    (np.array([0.0, 1.0]), (2, 5), TypeError),     # not integers
    (np.array([0, 1, 2]), (2, 5), ValueError),     # wrong length
])
def test_cross_entropy_rejects_bad_targets(targets, shape, error):
    with pytest.raises(error, match="CrossEntropy"):
        F.cross_entropy(Tensor(np.zeros(shape)), targets)


def test_layer_norm_output_is_normalised():
    x = Tensor(rng.standard_normal((5, 8)) * 4 + 3)
    out = F.layer_norm(x, eps=0.0).data
    np.testing.assert_allclose(out.mean(axis=-1), 0, atol=1e-14)
    np.testing.assert_allclose(out.var(axis=-1), 1, rtol=1e-12)


def test_layer_norm_rejects_wrong_weight_shape():
    with pytest.raises(ValueError, match="LayerNorm"):
        F.layer_norm(Tensor(np.zeros((2, 4))), Tensor(np.ones(3)), Tensor(np.zeros(3)))


# --------------------------------------------------------------------------------------------
# embedding
# --------------------------------------------------------------------------------------------
def test_embedding_forward_and_backward_accumulate_repeated_indices():
    table = rng.standard_normal((5, 3))
    idx = np.array([[0, 2, 2], [4, 0, 2]])
    w = Tensor(table, requires_grad=True)
    out = F.embedding(w, idx)
    assert out.shape == (2, 3, 3)
    for i in range(2):
        for j in range(3):
            np.testing.assert_array_equal(out.data[i, j], table[idx[i, j]])
    g = rng.standard_normal((2, 3, 3))
    out.backward(g)
    expected = np.zeros((5, 3))
    for i in range(2):
        for j in range(3):
            expected[idx[i, j]] += g[i, j]
    np.testing.assert_allclose(w.grad, expected, rtol=1e-15)
    np.testing.assert_array_equal(w.grad[[1, 3]], 0.0)
    np.testing.assert_allclose(w.grad[2], g[0, 1] + g[0, 2] + g[1, 2], rtol=1e-15)


def test_embedding_rejects_bad_indices():
    w = Tensor(np.zeros((4, 2)))
    with pytest.raises(IndexError, match="Embedding"):
        F.embedding(w, np.array([0, 4]))
    with pytest.raises(TypeError, match="Embedding"):
        F.embedding(w, np.array([0.0, 1.0]))


# --------------------------------------------------------------------------------------------
# dropout
# --------------------------------------------------------------------------------------------
def test_dropout_identity_when_p_zero_or_not_training():
    x = Tensor(rng.standard_normal((4, 5)), requires_grad=True)
    for out in (F.dropout(x, 0.0), F.dropout(x, 0.7, training=False)):
        np.testing.assert_array_equal(out.data, x.data)
        out.sum().backward()
    np.testing.assert_array_equal(x.grad, np.full((4, 5), 2.0))


def test_dropout_seeded_rng_is_reproducible():
    x = Tensor(rng.standard_normal((8, 9)) + 5.0)  # no zeros in the input
    a = F.dropout(x, 0.4, rng=np.random.default_rng(3)).data
    b = F.dropout(x, 0.4, rng=np.random.default_rng(3)).data
    c = F.dropout(x, 0.4, rng=np.random.default_rng(4)).data
    np.testing.assert_array_equal(a, b)
    assert not np.array_equal(a, c)


def test_dropout_values_mean_and_gradient():
    p = 0.3
    x = Tensor(np.ones(200_000, dtype=np.float32), requires_grad=True)
    out = F.dropout(x, p, rng=np.random.default_rng(0))
    kept = out.data != 0
    # every entry is either dropped or scaled by 1/(1-p)
    np.testing.assert_allclose(out.data[kept], 1 / (1 - p), rtol=1e-6)
    assert abs((~kept).mean() - p) < 0.01
    assert abs(out.data.mean() - 1.0) < 0.01  # inverted dropout keeps the expectation
    g = rng.standard_normal(200_000).astype(np.float32)
    out.backward(g)
    np.testing.assert_allclose(x.grad, np.where(kept, g / (1 - p), 0.0), rtol=1e-6)


@pytest.mark.parametrize("p", [-0.1, 1.0, 1.5])
def test_dropout_invalid_p_raises(p):
    with pytest.raises(ValueError, match="p"):
        F.dropout(Tensor(np.ones(3)), p)


# --------------------------------------------------------------------------------------------
# float32 in -> float32 out and float32 gradients, for every nn op (checked at every op's
# backward, before the engine casts gradients to the input's dtype)
# --------------------------------------------------------------------------------------------
def _f32(*shape):
    return Tensor(rng.standard_normal(shape).astype(np.float32), requires_grad=True)


FLOAT32_CASES = {
    "softmax": lambda: F.softmax(_f32(3, 4)),
    "softmax_masked": lambda: F.softmax(_f32(2, 3).masked_fill(
        np.array([[True, True, True], [False, True, False]]), -np.inf)),
    "log_softmax": lambda: F.log_softmax(_f32(3, 4)),
    "cross_entropy": lambda: F.cross_entropy(_f32(3, 4), np.array([0, 3, 3])),
    "layer_norm": lambda: F.layer_norm(_f32(2, 3, 4), _f32(4), _f32(4)),
    "layer_norm_no_affine": lambda: F.layer_norm(_f32(3, 4)),
    "gelu": lambda: F.gelu(_f32(3, 4)),
    "embedding": lambda: F.embedding(_f32(5, 4), np.array([[1, 1], [0, 4]])),
    "dropout": lambda: F.dropout(_f32(3, 4), 0.5, rng=np.random.default_rng(1)),
    "relu": lambda: _f32(3, 4).relu(),
    "sigmoid": lambda: _f32(3, 4).sigmoid(),
    "tanh": lambda: _f32(3, 4).tanh(),
    "exp_log_sqrt": lambda: (_f32(3, 4).exp() + 1.0).log().sqrt(),
    "abs_pow": lambda: _f32(3, 4).abs() ** 1.5 + 2.0 ** _f32(4),
    "div_sub": lambda: 1.0 - _f32(3, 4) / (_f32(4).abs() + 1.0),
    "mean_max_sum": lambda: _f32(3, 4).mean(axis=0) + _f32(2, 4).max(axis=0) + _f32(4, 1).sum(),
    "where_masked_fill": lambda: F.where(np.array([True, False, True]), _f32(2, 3), 0.5)
    .masked_fill(np.array([False, True, False]), 1.0),
    "matmul": lambda: _f32(2, 3, 4) @ _f32(4, 5) + _f32(4) @ _f32(4, 5),
    "shape_ops": lambda: F.concat([_f32(2, 3).T, F.stack([_f32(3), _f32(3)], axis=1)], axis=1)
    [np.array([0, 0, 2])].reshape(-1),
}


@pytest.mark.parametrize("name", list(FLOAT32_CASES))
def test_float32_stays_float32(name):
    seen = []

    def hook(fn, g, input_grads):
        seen.append((type(fn).__name__, g.dtype,
                     [None if x is None else x.dtype for x in input_grads]))

    engine._backward_hooks.append(hook)
    try:
        out = FLOAT32_CASES[name]()
        assert out.dtype == np.float32
        leaves = [t for t in graph_tensors(out) if t.is_leaf and t.requires_grad]
        out.backward(np.ones(out.shape, dtype=np.float32))
    finally:
        engine._backward_hooks.remove(hook)
    assert seen
    for op, g_dtype, grad_dtypes in seen:
        assert g_dtype == np.float32, op
        # not `d in (None, np.float32)`: a float64 dtype compares equal to None
        assert all(d is None or d == np.float32 for d in grad_dtypes), (op, grad_dtypes)
    for t in leaves:
        assert t.grad is not None and t.grad.dtype == np.float32


def test_linear_fused_op_equals_matmul_plus_bias():
    """F.linear (the Affine op, used by nn.Linear) gives x @ W + b's value and gradients."""
    rng = np.random.default_rng(21)
    data = [rng.standard_normal(s) for s in [(2, 3, 4), (4, 5), (5,)]]
    results = []
    for fn in (lambda x, w, b: F.linear(x, w, b), lambda x, w, b: x @ w + b):
        x, w, b = (Tensor(d, requires_grad=True) for d in data)
        out = fn(x, w, b)
        (out * Tensor(np.cos(np.arange(out.size)).reshape(out.shape))).sum().backward()
        results.append((out.data, x.grad, w.grad, b.grad))
    for fused, composed in zip(*results):
        np.testing.assert_allclose(fused, composed, rtol=1e-12, atol=1e-12)
