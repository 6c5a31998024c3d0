"""Tier 2, compositions: every function of `minigrad.functional` and every composed Tensor
method, checked against a numpy reference (and PyTorch's result where PyTorch is installed),
with kernels on and off, and gradient-checked under `minigrad.fused(False)`, where its
gradient comes from the primitives alone.
"""
import numpy as np
import pytest

import minigrad
import minigrad.functional as F
from minigrad import Tensor, gradcheck, ops

from tests.helpers import assert_keeps_float32, leaf, op_types, torch_or_skip

rng = np.random.default_rng(77)


@pytest.fixture(params=[True, False], ids=["kernels", "composed"])
def mode(request):
    """Run the test once with kernels on and once under fused(False)."""
    with minigrad.fused(request.param):
        yield request.param


def _softmax(x, axis=-1):
    e = np.exp(x - x.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


def _gelu_tanh(x):
    return 0.5 * x * (1 + np.tanh(np.sqrt(2 / np.pi) * (x + 0.044715 * x ** 3)))


def _layer_norm(x, w, b, eps=1e-5):
    mu = x.mean(axis=-1, keepdims=True)
    return (x - mu) / np.sqrt(x.var(axis=-1, keepdims=True) + eps) * w + b


def _attention(q, k, v, mask=None):
    scores = q @ np.swapaxes(k, -1, -2) / np.sqrt(q.shape[-1])
    if mask is not None:
        scores = np.where(mask, scores, -np.inf)
    return _softmax(scores) @ v


CAUSAL = np.tri(4, dtype=bool)
SHIFT = np.array([0.5, -1.0, 2.0])
# each: (composition on tensors, the same on numpy arrays, input shapes)
REFERENCES = {
    "softmax": (lambda x: F.softmax(x, dim=1), lambda x: _softmax(x, axis=1), [(2, 3, 4)]),
    "log_softmax": (lambda x: F.log_softmax(x), lambda x: np.log(_softmax(x)), [(3, 5)]),
    "gelu_tanh": (lambda x: F.gelu(x, approximate="tanh"), _gelu_tanh, [(3, 5)]),
    "relu": (F.relu, lambda x: np.maximum(x, 0), [(3, 5)]),
    "abs": (lambda x: x.abs(), np.abs, [(3, 5)]),
    "mean": (lambda x: x.mean(dim=(0, 2), keepdim=True),
             lambda x: x.mean(axis=(0, 2), keepdims=True), [(2, 3, 4)]),
    "masked_fill": (lambda x: x.masked_fill(np.array([True, False, True]), -2.0),
                    lambda x: np.where([True, False, True], -2.0, x), [(2, 3)]),
    "where": (lambda a, b: minigrad.where(np.array([[True], [False]]), a, b),
              lambda a, b: np.where([[True], [False]], a, b), [(2, 3), (3,)]),
    "stack": (lambda a, b: minigrad.stack([a, b], dim=1), lambda a, b: np.stack([a, b], axis=1),
              [(2, 3), (2, 3)]),
    "linear": (lambda x, w, b: F.linear(x, w, b), lambda x, w, b: x @ w.T + b,
               [(2, 3, 4), (5, 4), (5,)]),
    "layer_norm": (lambda x, w, b: F.layer_norm(x, (4,), w, b), _layer_norm,
                   [(2, 3, 4), (4,), (4,)]),
    "attention_causal": (lambda q, k, v: F.attention(q, k, v, CAUSAL)[0],
                         lambda q, k, v: _attention(q, k, v, CAUSAL),
                         [(2, 4, 3), (2, 4, 3), (2, 4, 2)]),
    "cross_entropy": (lambda x: F.cross_entropy(x, np.array([1, 0, 2])),
                      lambda x: -np.log(_softmax(x))[np.arange(3), [1, 0, 2]].mean(),
                      [(3, 4)]),
    "embedding": (lambda w: F.embedding(np.array([[2, 0], [2, 2]]), w),
                  lambda w: w[np.array([[2, 0], [2, 2]])], [(3, 4)]),
}


@pytest.mark.parametrize("name", list(REFERENCES))
def test_composition_matches_numpy(name, mode):
    fn, reference, shapes = REFERENCES[name]
    arrays = [rng.standard_normal(s) * 2 for s in shapes]
    out = fn(*[Tensor(a) for a in arrays])
    np.testing.assert_allclose(out.data, reference(*arrays), rtol=1e-12, atol=1e-12)


# the same functions in PyTorch: (torch module, torch.nn.functional, input tensors) -> output
TORCH = {
    "softmax": lambda torch, TF, x: TF.softmax(x, dim=1),
    "log_softmax": lambda torch, TF, x: TF.log_softmax(x, dim=-1),
    "gelu_tanh": lambda torch, TF, x: TF.gelu(x, approximate="tanh"),
    "relu": lambda torch, TF, x: TF.relu(x),
    "abs": lambda torch, TF, x: x.abs(),
    "mean": lambda torch, TF, x: x.mean(dim=(0, 2), keepdim=True),
    "masked_fill": lambda torch, TF, x: x.masked_fill(torch.tensor([True, False, True]), -2.0),
    "where": lambda torch, TF, a, b: torch.where(torch.tensor([[True], [False]]), a, b),
    "stack": lambda torch, TF, a, b: torch.stack([a, b], dim=1),
    "linear": lambda torch, TF, x, w, b: TF.linear(x, w, b),
    "layer_norm": lambda torch, TF, x, w, b: TF.layer_norm(x, (4,), w, b),
    "attention_causal": lambda torch, TF, q, k, v: TF.scaled_dot_product_attention(
        q, k, v, attn_mask=torch.tensor(CAUSAL)),
    "cross_entropy": lambda torch, TF, x: TF.cross_entropy(x, torch.tensor([1, 0, 2])),
    "embedding": lambda torch, TF, w: TF.embedding(torch.tensor([[2, 0], [2, 2]]), w),
}


@pytest.mark.parametrize("name", list(REFERENCES))
def test_composition_matches_pytorch_in_values_and_gradients(name, mode):
    torch = pytest.importorskip("torch", reason="PyTorch is not installed: the cross-checks "
                                "against it are skipped (pip install -e '.[compare]')")
    fn, _, shapes = REFERENCES[name]
    arrays = [rng.standard_normal(s) * 2 for s in shapes]
    ours = [Tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out = fn(*ours)
    expected = TORCH[name](torch, torch.nn.functional, *theirs)
    np.testing.assert_allclose(out.data, expected.detach().numpy(), rtol=1e-12, atol=1e-12)
    upstream = np.cos(np.arange(out.numel())).reshape(out.shape)
    grads = minigrad.grad(out, ours, upstream)
    expected.backward(torch.tensor(upstream))
    for i, (g, t) in enumerate(zip(grads, theirs)):
        np.testing.assert_allclose(g, t.grad.numpy(), rtol=1e-10, atol=1e-12, err_msg=f"input {i}")


@pytest.mark.parametrize("name", list(REFERENCES))
def test_composition_gradcheck_on_primitives_alone(name):
    fn, _, shapes = REFERENCES[name]
    inputs = [leaf(*s, away_from=0.0) for s in shapes]
    with minigrad.fused(False):
        assert set(op_types(fn(*inputs))) <= set(ops.primitives())
        assert gradcheck(fn, inputs)


@pytest.mark.parametrize("name", list(REFERENCES))
def test_composition_keeps_float32(name):
    """float32 in, float32 out, and every primitive's backward returns float32 gradients
    (checked before the engine casts them to their input's dtype)."""
    fn, _, shapes = REFERENCES[name]
    inputs = [Tensor(rng.standard_normal(s).astype(np.float32), requires_grad=True)
              for s in shapes]
    with minigrad.fused(False):
        assert_keeps_float32(fn, inputs)


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
    (np.array([0, 5]), (2, 5), IndexError),        # out of range
    (np.array([0, -1]), (2, 5), IndexError),
    (np.array([True, False]), (2, 5), TypeError),  # not integers
    (np.array([0.0, 1.0]), (2, 5), ValueError),    # floats are probabilities: need shape (2, 5)
    (np.array([0, 1, 2]), (2, 5), ValueError),     # wrong length
])
def test_cross_entropy_rejects_bad_targets(targets, shape, error):
    with pytest.raises(error, match="cross_entropy"):
        F.cross_entropy(Tensor(np.zeros(shape)), targets)


def test_layer_norm_output_is_normalised():
    x = Tensor(rng.standard_normal((5, 8)) * 4 + 3)
    out = F.layer_norm(x, 8, eps=0.0).data
    np.testing.assert_allclose(out.mean(axis=-1), 0, atol=1e-14)
    np.testing.assert_allclose(out.var(axis=-1), 1, rtol=1e-12)


def test_layer_norm_rejects_wrong_weight_shape():
    with pytest.raises(ValueError, match="layer_norm"):
        F.layer_norm(Tensor(np.zeros((2, 4))), 4, Tensor(np.ones(3)), Tensor(np.zeros(3)))
    with pytest.raises(ValueError, match="layer_norm"):
        F.layer_norm(Tensor(np.zeros((2, 4))), 3)


# --------------------------------------------------------------------------------------------
# embedding
# --------------------------------------------------------------------------------------------
def test_embedding_forward_and_backward_accumulate_repeated_indices():
    table = rng.standard_normal((5, 3))
    idx = np.array([[0, 2, 2], [4, 0, 2]])
    w = Tensor(table, requires_grad=True)
    out = F.embedding(idx, w)
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
    with pytest.raises(IndexError, match="embedding"):
        F.embedding(np.array([0, 4]), w)
    with pytest.raises(TypeError, match="embedding"):
        F.embedding(np.array([0.0, 1.0]), w)


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


def test_dropout_p_one_zeroes_everything_as_in_pytorch():
    x = Tensor(rng.standard_normal((3, 4)), requires_grad=True)
    out = F.dropout(x, 1.0)
    np.testing.assert_array_equal(out.data, 0.0)
    out.sum().backward()
    np.testing.assert_array_equal(x.grad, 0.0)


@pytest.mark.parametrize("p", [-0.1, 1.5])
def test_dropout_invalid_p_raises(p):
    with pytest.raises(ValueError, match="p"):
        F.dropout(Tensor(np.ones(3)), p)


@pytest.mark.parametrize("fused", [True, False])
def test_softmax_of_a_row_holding_inf_is_nan_as_in_pytorch(fused):
    """Regression: a row whose max is +inf was shifted by 0 like a fully masked row and gave
    [0, nan, 0]; only a max of -inf (every entry masked) is shifted by 0."""
    with minigrad.fused(fused), np.errstate(invalid="ignore"):
        out = F.softmax(Tensor([[1.0, np.inf, 2.0], [-np.inf, -np.inf, -np.inf]]), dim=-1).data
        logs = F.log_softmax(Tensor([[1.0, np.inf, 2.0]]), dim=-1).data
    assert np.isnan(out[0]).all() and np.isnan(logs).all()
    np.testing.assert_array_equal(out[1], [0.0, 0.0, 0.0])


@pytest.mark.parametrize("fn,name", [(F.softmax, "softmax"), (F.log_softmax, "log_softmax"),
                                     (lambda x, dim: x.transpose(0, dim), "transpose")])
def test_a_dim_out_of_range_names_the_function(fn, name):
    with pytest.raises(IndexError, match=rf"{name}: dim 5 is out of range"):
        fn(Tensor(np.ones((2, 3))), 5)


def test_fused_attention_weights_cannot_be_edited_under_backward():
    """Regression: the weights F.attention returns with kernels on are the kernel's own array,
    which its backward reads; editing them changed the gradients. They are read-only now."""
    q = Tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    _, weights = F.attention(q, q, q)
    with pytest.raises(ValueError, match="read-only"):
        weights.data *= 0


# --------------------------------------------------------------------------------------------
# Calls written for PyTorch, every argument by position: the same values
# --------------------------------------------------------------------------------------------
TORCH_STYLE_TENSOR_CALLS = [  # (lib, x, y): lib is minigrad or torch, x (3, 4) and y float64
    lambda lib, x, y: x.sum(1, True),
    lambda lib, x, y: lib.sum(x, 0, False),
    lambda lib, x, y: x.std(1, True, True),
    lambda lib, x, y: lib.var(x, 0, False),
    lambda lib, x, y: x.max(1, True),
    lambda lib, x, y: lib.min(x, 0),
    lambda lib, x, y: x.sort(1, True),
    lambda lib, x, y: lib.argsort(x, 0, True),
    lambda lib, x, y: x.topk(2, 0, False, True),
    lambda lib, x, y: lib.kthvalue(x, 2, 1, True),
    lambda lib, x, y: x.median(1, True),
    lambda lib, x, y: lib.quantile(x, 0.3, 1, True, interpolation="midpoint"),
    lambda lib, x, y: x.logsumexp(0, True),
    lambda lib, x, y: lib.cumsum(x, 1),
    lambda lib, x, y: x.norm(1, 1, True),
    lambda lib, x, y: lib.diff(x, 2, 0),
    lambda lib, x, y: x.roll(1, 0),
    lambda lib, x, y: lib.diagonal(x, 1, 0, 1),
    lambda lib, x, y: x.transpose(0, 1),
    lambda lib, x, y: lib.narrow(x, 1, 1, 2),
    lambda lib, x, y: x.split(2, 1),
    lambda lib, x, y: lib.chunk(x, 2, 0),
    lambda lib, x, y: x.flatten(0, 1),
    lambda lib, x, y: lib.movedim(x, 0, 1),
    lambda lib, x, y: x.clamp(-0.5, 0.5),
    lambda lib, x, y: lib.lerp(x, y, 0.3),
    lambda lib, x, y: x.isclose(y, 0.5, 0.1, False),
    lambda lib, x, y: lib.where(x > 0, x, y),
    lambda lib, x, y: lib.cat((x, y), 1),
    lambda lib, x, y: lib.stack([x, y], 2),
    lambda lib, x, y: lib.tril(x, 1),
    lambda lib, x, y: x.gather(1, lib.tensor([[0, 1], [3, 2], [1, 1]])),
    lambda lib, x, y: lib.index_select(x, 1, lib.tensor([3, 0])),
    lambda lib, x, y: x.masked_fill(x > 0, 2.0),
    lambda lib, x, y: lib.linspace(-1, 2, 5),
    lambda lib, x, y: lib.arange(1, 7, 2),
    lambda lib, x, y: lib.full((2, 3), 1.5),
    lambda lib, x, y: lib.eye(2, 3),
]


def _as_arrays(result):
    if isinstance(result, (tuple, list)):
        return [_as_arrays(r) for r in result]
    return np.asarray(result.data if isinstance(result, Tensor) else result.numpy())


@pytest.mark.parametrize("call", TORCH_STYLE_TENSOR_CALLS)
def test_tensor_calls_written_for_torch_give_torchs_results(call):
    torch = torch_or_skip()
    x, y = rng.standard_normal((3, 4)), rng.standard_normal((3, 4))
    ours = _as_arrays(call(minigrad, Tensor(x), Tensor(y)))
    theirs = _as_arrays(call(torch, torch.tensor(x), torch.tensor(y)))
    assert len(ours) == len(theirs)
    for mine, expected in zip(ours, theirs):
        np.testing.assert_allclose(mine, expected, rtol=1e-12, atol=1e-14)
