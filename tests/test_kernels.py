"""Tier 3, kernels: every fused op in `minigrad.kernels` equals the composition it replaces, in
values and gradients (float64, to 1e-10), and passes gradcheck; float32 stays float32.

CASES maps each kernel to calls of the functional API that use it; each case runs twice, with
kernels on and under `minigrad.fused(False)`. test_every_kernel_has_a_case enumerates
`minigrad.ops.kernels()`, so a new kernel without a case fails the suite.
"""
import numpy as np
import pytest

import minigrad
import minigrad.functional as F
from minigrad import Tensor, gradcheck, kernels, ops
from minigrad.errors import InvalidArgumentError

from tests.helpers import assert_keeps_float32, leaf, op_types

rng = np.random.default_rng(5)
TARGETS = np.array([0, 4, 4, 2, 1, 0])
CAUSAL = np.tri(4, dtype=bool)

# each case: (id, fn, input shapes)
CASES = {
    kernels.Softmax: [
        ("last", lambda x: F.softmax(x), [(4, 5)]),
        ("dim0", lambda x: F.softmax(x, dim=0), [(4, 5)]),
        ("3d_dim1", lambda x: F.softmax(x, dim=1), [(2, 3, 4)]),
        ("masked", lambda x: F.softmax(x.masked_fill(~CAUSAL, -np.inf)), [(2, 4, 4)]),
        ("fully_masked_row", lambda x: F.softmax(
            x.masked_fill(np.array([[False, True, False], [True, True, True]]), -np.inf)),
         [(2, 3)]),
    ],
    kernels.LogSoftmax: [
        ("last", lambda x: F.log_softmax(x), [(4, 5)]),
        ("dim1", lambda x: F.log_softmax(x, dim=1), [(2, 4, 3)]),
    ],
    kernels.CrossEntropy: [
        ("plain", lambda x: F.cross_entropy(x, TARGETS), [(6, 5)]),
        ("tensor_targets", lambda x: F.cross_entropy(x, Tensor(TARGETS[:2])), [(2, 5)]),
    ],
    kernels.LayerNorm: [
        ("affine", lambda x, w, b: F.layer_norm(x, 6, w, b), [(2, 3, 6), (6,), (6,)]),
        ("eps", lambda x, w, b: F.layer_norm(x, (6,), w, b, eps=0.5), [(4, 6), (6,), (6,)]),
        ("no_affine", lambda x: F.layer_norm(x, 6), [(4, 6)]),
    ],
    kernels.Gelu: [("tanh", lambda x: F.gelu(x, approximate="tanh"), [(3, 7)])],
    kernels.Affine: [
        ("3d", lambda x, w, b: F.linear(x, w, b), [(2, 3, 4), (5, 4), (5,)]),
        ("2d", lambda x, w, b: F.linear(x, w, b), [(3, 4), (2, 4), (2,)]),
        ("1d", lambda x, w, b: F.linear(x, w, b), [(4,), (2, 4), (2,)]),
        ("no_bias", lambda x, w: F.linear(x, w), [(2, 3, 4), (5, 4)]),
    ],
    kernels.Embedding: [
        ("repeated_ids", lambda w: F.embedding(np.array([[1, 3, 1], [0, 3, 3]]), w), [(5, 4)]),
        ("1d_unique", lambda w: F.embedding(np.array([4, 0, 2]), w), [(5, 3)]),
        ("scalar_id", lambda w: F.embedding(np.array(2), w), [(3, 2)]),
        ("no_ids", lambda w: F.embedding(np.zeros((2, 0), dtype=np.int64), w), [(3, 2)]),
    ],
    kernels.Attention: [
        ("causal", lambda q, k, v: F.attention(q, k, v, CAUSAL)[0],
         [(2, 2, 4, 3), (2, 2, 4, 3), (2, 2, 4, 3)]),
        ("cross_lengths", lambda q, k, v: F.attention(q, k, v)[0],
         [(2, 3, 4), (2, 5, 4), (2, 5, 2)]),
        ("broadcast_kv", lambda q, k, v: F.attention(q, k, v)[0], [(2, 3, 4), (5, 4), (5, 3)]),
        ("scale", lambda q, k, v: F.attention(q, k, v, CAUSAL, scale=0.3)[0],
         [(2, 4, 3), (2, 4, 3), (2, 4, 2)]),
        ("fully_masked_row", lambda q, k, v: F.attention(
            q, k, v, np.array([[True, False, True], [False, False, False]]))[0],
         [(2, 4), (3, 4), (3, 2)]),
    ],
}


def _projections(width):
    return [(width, width), (width,)] * 3


CASES[kernels.SelfAttention] = [
    ("causal", lambda x, *wb: F.self_attention(x, *wb, 2, CAUSAL)[0],
     [(2, 4, 6)] + _projections(6)),
    ("no_mask_one_head", lambda x, *wb: F.self_attention(x, *wb, 1)[0],
     [(2, 3, 4)] + _projections(4)),
    ("fully_masked_row", lambda x, *wb: F.self_attention(
        x, *wb, 2, np.array([[True, False, False], [False, False, False], [True, True, True]]))[0],
     [(1, 3, 4)] + _projections(4)),
]
ALL_CASES = [(k, name, fn, shapes) for k, cases in CASES.items() for name, fn, shapes in cases]
IDS = [f"{k.__name__}-{name}" for k, name, _, _ in ALL_CASES]


def test_every_kernel_has_a_case():
    missing = [k.__name__ for k in ops.kernels() if not CASES.get(k)]
    assert not missing, f"kernels without a case in CASES: {missing}"
    assert set(CASES) == set(ops.kernels())


def test_every_kernel_names_the_composition_it_replaces():
    """`replaces` names the function of minigrad.functional whose cases (above) use the kernel."""
    for kernel, cases in CASES.items():
        assert callable(getattr(F, kernel.replaces, None)), kernel.__name__
        for name, fn, _ in cases:
            assert kernel.replaces in fn.__code__.co_names, (kernel.__name__, name)


def _run(fn, arrays, fused):
    inputs = [Tensor(a.copy(), requires_grad=True) for a in arrays]
    with minigrad.fused(fused):
        out = fn(*inputs)
    upstream = np.cos(np.arange(out.numel())).reshape(out.shape)
    return out, minigrad.grad(out, inputs, upstream, retain_graph=True)


@pytest.mark.parametrize("kernel,name,fn,shapes", ALL_CASES, ids=IDS)
def test_kernel_equals_its_composition(kernel, name, fn, shapes):
    arrays = [rng.standard_normal(s) * 2 for s in shapes]
    fused_out, fused_grads = _run(fn, arrays, fused=True)
    composed_out, composed_grads = _run(fn, arrays, fused=False)
    assert kernel in op_types(fused_out)
    assert not set(ops.kernels()) & op_types(composed_out), "the composition used a kernel"
    assert fused_out.dtype == composed_out.dtype == np.float64
    np.testing.assert_allclose(fused_out.data, composed_out.data, rtol=1e-10, atol=1e-10)
    for i, (gf, gc) in enumerate(zip(fused_grads, composed_grads)):
        assert gf is not None and gc is not None, i
        np.testing.assert_allclose(gf, gc, rtol=1e-10, atol=1e-10, err_msg=f"input {i}")


@pytest.mark.parametrize("kernel,name,fn,shapes", ALL_CASES, ids=IDS)
def test_kernel_gradcheck(kernel, name, fn, shapes):
    inputs = [leaf(*s) for s in shapes]
    assert gradcheck(fn, inputs)


@pytest.mark.parametrize("kernel,name,fn,shapes", ALL_CASES, ids=IDS)
def test_kernel_keeps_float32(kernel, name, fn, shapes):
    """float32 in, float32 out, and every gradient the kernel's backward (and any other op's)
    returns is float32."""
    assert_keeps_float32(fn, [Tensor(rng.standard_normal(s).astype(np.float32),
                                     requires_grad=True) for s in shapes])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_gelu_saturates_quietly_far_from_zero(dtype):
    """Far below zero exp(-2u) overflows to inf inside the kernel: GELU must still give its
    limits (0, and x far above zero; slopes 0 and 1) with no warning and no NaN."""
    x = Tensor(np.array([-1e4, -40.0, -12.0, 0.0, 12.0, 40.0, 1e4], dtype=dtype),
               requires_grad=True)
    with np.errstate(over="raise", divide="raise", invalid="raise"):  # numpy's warnings
        out = F.gelu(x)
        out.backward(np.ones(x.shape, dtype=dtype))
    np.testing.assert_allclose(out.data, [0, 0, 0, 0, 12, 40, 1e4], atol=1e-12)
    np.testing.assert_allclose(x.grad, [0, 0, 0, 0.5, 1, 1, 1], atol=1e-12)


@pytest.mark.parametrize("fused", [True, False], ids=["kernel", "composed"])
def test_gelu_tanh_slope_is_1_far_above_zero_in_float32(fused):
    """Regression: the kernel's backward multiplied c' (1 + 3k a^2) by the output before by
    1 - s, which is 0 there; in float32 that product overflows from a ~ 1e13, and inf * 0 gave
    NaN where the composition (and PyTorch) give slope 1."""
    x = Tensor(np.array([1e13, 1e15, 1e18], dtype=np.float32), requires_grad=True)
    with minigrad.fused(fused), np.errstate(over="ignore"):  # a**3 is inf in the composition
        out = F.gelu(x, approximate="tanh")
        out.backward(np.ones(3, dtype=np.float32))
    np.testing.assert_array_equal(out.data, x.data)
    np.testing.assert_array_equal(x.grad, [1.0, 1.0, 1.0])


PAST = [rng.standard_normal((2, 2, 3, 2)) for _ in range(2)]  # cached keys, values: 3 positions


def _self_attention_after_past(x, w_q, b_q, w_k, b_k, w_v, b_v):
    """SelfAttention with `past` spelled out: the cached keys and values (constants) before the
    new ones, 2 heads, every new query seeing every key."""
    def heads(t):
        return t.reshape(2, 2, 2, 2).permute(0, 2, 1, 3)

    q = heads(F.linear(x, w_q, b_q))
    k = minigrad.cat([Tensor(PAST[0]), heads(F.linear(x, w_k, b_k))], dim=-2)
    v = minigrad.cat([Tensor(PAST[1]), heads(F.linear(x, w_v, b_v))], dim=-2)
    out, _ = F.attention(q, k, v)
    return out.permute(0, 2, 1, 3).reshape(2, 2, 4)


def test_self_attention_after_cached_positions_equals_its_composition():
    arrays = [rng.standard_normal(s) for s in [(2, 2, 4)] + _projections(4)]
    kernel = lambda *t: kernels.SelfAttention.apply(*t, num_heads=2, past=tuple(PAST))
    fused_out, fused_grads = _run(kernel, arrays, fused=True)
    composed_out, composed_grads = _run(_self_attention_after_past, arrays, fused=False)
    np.testing.assert_allclose(fused_out.data, composed_out.data, rtol=1e-10, atol=1e-10)
    for i, (gf, gc) in enumerate(zip(fused_grads, composed_grads)):
        np.testing.assert_allclose(gf, gc, rtol=1e-10, atol=1e-10, err_msg=f"input {i}")
    assert gradcheck(kernel, [leaf(*a.shape) for a in arrays])


@pytest.mark.parametrize("case", ["bias (1,)", "bias too short", "integer input",
                                  "float32 input, float64 weights"])
def test_self_attention_kernel_or_not_takes_and_refuses_the_same(case):
    """Regression: with kernels on, F.self_attention handed the kernel any biases and dtypes;
    a bias that broadcasts (as linear takes) or an integer input failed in numpy (a ValueError
    about the kernel's own arrays, a UFuncTypeError) where the composition computes, and a
    bias of the wrong size was not named as linear names it."""
    width = 4
    x = rng.standard_normal((2, 3, width))
    w = [rng.standard_normal((width, width)) for _ in range(3)]
    b = [rng.standard_normal(width) for _ in range(3)]
    if case == "bias (1,)":
        b[1] = b[1][:1]
    elif case == "bias too short":
        b[1] = b[1][:3]
    elif case == "integer input":
        x = np.arange(2 * 3 * width).reshape(2, 3, width) % 3
    else:
        x = x.astype(np.float32)
    results = []
    for fused in (True, False):
        with minigrad.fused(fused):
            try:
                out, weights = F.self_attention(Tensor(x), *(Tensor(a) for pair in zip(w, b)
                                                            for a in pair), 2, CAUSAL[:3, :3])
                results.append((out.dtype, out.data, weights.data))
            except Exception as err:  # noqa: BLE001 (compared below)
                results.append((type(err), str(err)))
    if case == "bias too short":
        assert results[0] == results[1] and results[0][0] is InvalidArgumentError
    else:
        assert results[0][0] == results[1][0]
        np.testing.assert_allclose(results[0][1], results[1][1], rtol=1e-6, atol=1e-6)
        np.testing.assert_allclose(results[0][2], results[1][2], rtol=1e-6, atol=1e-6)


def test_attention_over_no_keys_gives_zeros_as_torch():
    """Regression: the fused kernel's row max of an empty key axis raised numpy's ValueError
    (the composition, through softmax, already gave PyTorch's zeros)."""
    torch = pytest.importorskip("torch")
    shapes = [(1, 2, 4), (1, 0, 4), (1, 0, 4)]
    ours = [Tensor(np.ones(s), requires_grad=True) for s in shapes]
    theirs = [torch.ones(s, dtype=torch.float64, requires_grad=True) for s in shapes]
    out = F.scaled_dot_product_attention(*ours)
    expected = torch.nn.functional.scaled_dot_product_attention(*theirs)
    assert kernels.Attention in op_types(out)  # the kernel, not the composition
    np.testing.assert_array_equal(out.data, expected.detach().numpy())
    out.sum().backward()
    expected.sum().backward()
    for mine, reference in zip(ours, theirs):
        np.testing.assert_array_equal(mine.grad, reference.grad.numpy())
