"""Attention, the tutorial demo, multi-head attention and the character GPT.

Expected values are computed here independently with plain numpy (or by hand); gradients are
checked against finite differences in float64 on tiny sizes."""
import contextlib
import math
import re
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

import minigrad
from minigrad import Tensor, gradcheck, kernels, no_grad
from minigrad.optim import AdamW
from models.attention import (KVCache, MultiHeadAttention, create_causal_mask, demo,
                              scaled_dot_product_attention)
from models.gpt import GPT, Block, CharTokenizer, GPTConfig, _sample

from tests.helpers import assert_stops_quietly_when_its_reader_is_gone, op_types

ROOT = Path(__file__).resolve().parents[1]
FLOAT = r"-?\d+\.\d+(?:e[-+]?\d+)?"


def np_attention(q, k, v, mask=None):
    """softmax(q k^T / sqrt(d)) v in plain numpy; masked keys (mask False) get weight 0 and a
    query with no visible key gets all-zero weights."""
    scores = np.einsum("...qd,...kd->...qk", q, k) / np.sqrt(q.shape[-1])
    if mask is not None:
        visible = np.broadcast_to(mask, scores.shape)
    else:
        visible = np.ones(scores.shape, dtype=bool)
    scores = np.where(visible, scores, -np.inf)
    row_max = np.max(np.where(visible, scores, -1e300), axis=-1, keepdims=True)
    e = np.where(visible, np.exp(scores - row_max), 0.0)
    total = e.sum(-1, keepdims=True)
    w = np.divide(e, total, out=np.zeros_like(e), where=total > 0)
    return np.einsum("...qk,...kd->...qd", w, v), w


def randomize(module, rng, scale=0.5):
    """Replace every parameter by a random value of a size that makes gradients sizeable."""
    for name, p in module.named_parameters():
        if name.endswith("ln_1.weight") or name.endswith("ln_2.weight") or \
                name.endswith("ln_f.weight"):
            p.data[...] = 1 + 0.3 * rng.standard_normal(p.shape)
        else:
            p.data[...] = scale * rng.standard_normal(p.shape)
    return module


def tiny_config(**kw):
    return GPTConfig(**{**dict(vocab_size=5, block_size=4, n_layer=1, n_head=2, n_embd=4), **kw})


# ----------------------------------------------------------------------------------------------
# Causal mask and scaled dot-product attention
# ----------------------------------------------------------------------------------------------
def test_create_causal_mask():
    m = create_causal_mask(4)
    assert m.dtype == np.bool_ and m.shape == (4, 4)
    expected = np.array([[1, 0, 0, 0], [1, 1, 0, 0], [1, 1, 1, 0], [1, 1, 1, 1]], dtype=bool)
    np.testing.assert_array_equal(m, expected)
    for i in range(4):
        for j in range(4):
            assert m[i, j] == (j <= i)
    np.testing.assert_array_equal(create_causal_mask(1), [[True]])


@pytest.mark.parametrize("masked", [False, True])
def test_attention_matches_numpy(masked):
    rng = np.random.default_rng(0)
    q, k, v = rng.standard_normal((2, 5, 8)), rng.standard_normal((2, 5, 8)), \
        rng.standard_normal((2, 5, 3))
    mask = create_causal_mask(5) if masked else None
    out, w = scaled_dot_product_attention(q, k, v, mask)
    ref_out, ref_w = np_attention(q, k, v, mask)
    assert out.shape == (2, 5, 3) and w.shape == (2, 5, 5)
    np.testing.assert_allclose(w.data, ref_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out.data, ref_out, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(w.data.sum(-1), 1.0, rtol=1e-12)
    if masked:
        assert np.all(w.data[:, ~create_causal_mask(5)] == 0)
        np.testing.assert_allclose(out.data[:, 0], v[:, 0], rtol=1e-12)  # first sees only itself


def test_attention_by_hand():
    # one query, two keys: scores q.k / sqrt(2) = [2, 0] / sqrt(2)
    q = np.array([[1.0, 1.0]])
    k = np.array([[1.0, 1.0], [1.0, -1.0]])
    v = np.array([[10.0], [20.0]])
    out, w = scaled_dot_product_attention(q, k, v)
    e = math.exp(2 / math.sqrt(2))
    np.testing.assert_allclose(w.data, [[e / (e + 1), 1 / (e + 1)]], rtol=1e-12)
    np.testing.assert_allclose(out.data, [[(10 * e + 20) / (e + 1)]], rtol=1e-12)


def test_attention_4d_with_2d_mask_broadcasting():
    rng = np.random.default_rng(1)
    shape = (2, 3, 4, 6)  # batch, heads, seq, d
    q, k, v = (rng.standard_normal(shape) for _ in range(3))
    mask = create_causal_mask(4)
    out, w = scaled_dot_product_attention(q, k, v, mask)
    assert out.shape == shape and w.shape == (2, 3, 4, 4)
    ref_out, ref_w = np_attention(q, k, v, mask)
    np.testing.assert_allclose(w.data, ref_w, rtol=1e-12, atol=1e-14)
    np.testing.assert_allclose(out.data, ref_out, rtol=1e-12, atol=1e-14)
    # each (batch, head) slice is ordinary 2-D attention
    for b in range(2):
        for h in range(3):
            o, _ = np_attention(q[b, h], k[b, h], v[b, h], mask)
            np.testing.assert_allclose(out.data[b, h], o, rtol=1e-12, atol=1e-14)
    # a per-batch mask (batch, 1, seq, seq) broadcasts over heads
    per_batch = np.stack([mask, np.ones((4, 4), dtype=bool)])[:, None]
    out2, _ = scaled_dot_product_attention(q, k, v, per_batch)
    np.testing.assert_allclose(out2.data[0], ref_out[0], rtol=1e-12)
    np.testing.assert_allclose(out2.data[1], np_attention(q[1], k[1], v[1])[0], rtol=1e-12)


def test_attention_cross_lengths():
    rng = np.random.default_rng(2)
    q, k, v = rng.standard_normal((3, 2, 4)), rng.standard_normal((3, 5, 4)), \
        rng.standard_normal((3, 5, 7))
    out, w = scaled_dot_product_attention(q, k, v)
    assert out.shape == (3, 2, 7) and w.shape == (3, 2, 5)
    np.testing.assert_allclose(out.data, np_attention(q, k, v)[0], rtol=1e-12)


def test_fully_masked_row_gives_zero_weights_not_nan():
    rng = np.random.default_rng(3)
    q, k, v = (Tensor(rng.standard_normal((1, 3, 4)), requires_grad=True) for _ in range(3))
    mask = np.array([[True, False, False], [False, False, False], [True, True, True]])
    out, w = scaled_dot_product_attention(q, k, v, mask)
    assert np.all(np.isfinite(w.data)) and np.all(np.isfinite(out.data))
    np.testing.assert_array_equal(w.data[0, 1], 0.0)
    np.testing.assert_array_equal(out.data[0, 1], 0.0)
    np.testing.assert_allclose(w.data[0, [0, 2]].sum(-1), 1.0)
    (out * Tensor(rng.standard_normal(out.shape))).sum().backward()
    for t in (q, k, v):
        assert np.all(np.isfinite(t.grad))
    np.testing.assert_array_equal(q.grad[0, 1], 0.0)  # the blind query influences nothing


def test_attention_accepts_arrays_and_tensors():
    rng = np.random.default_rng(4)
    q, k, v = (rng.standard_normal((2, 3, 4)) for _ in range(3))
    mask = create_causal_mask(3)
    ref_out, ref_w = np_attention(q, k, v, mask)
    for args in [(q, k, v), tuple(Tensor(x) for x in (q, k, v)), (Tensor(q), k, Tensor(v))]:
        for m in (mask, Tensor(mask), mask.astype(np.int64), mask.tolist()):
            out, w = scaled_dot_product_attention(*args, m)
            assert isinstance(out, Tensor) and isinstance(w, Tensor)
            np.testing.assert_allclose(out.data, ref_out, rtol=1e-12)
            np.testing.assert_allclose(w.data, ref_w, rtol=1e-12)


def test_attention_mask_as_integer_tensor():
    # a 0/1 mask given as a Tensor (int or float) means the same as the bool mask
    rng = np.random.default_rng(5)
    q, k, v = (rng.standard_normal((1, 3, 2)) for _ in range(3))
    ref_out, _ = np_attention(q, k, v, create_causal_mask(3))
    for m in (Tensor(create_causal_mask(3).astype(np.int64)),
              Tensor(create_causal_mask(3).astype(np.float32))):
        out, _ = scaled_dot_product_attention(q, k, v, m)
        np.testing.assert_allclose(out.data, ref_out, rtol=1e-12)


@pytest.mark.parametrize("shape", [(2, 3, 4), (1, 2, 3, 2)])
def test_attention_gradcheck(shape):
    rng = np.random.default_rng(6)
    q, k, v = (Tensor(rng.standard_normal(shape), requires_grad=True) for _ in range(3))
    mask = create_causal_mask(shape[-2])
    assert gradcheck(lambda q, k, v: scaled_dot_product_attention(q, k, v, mask)[0], [q, k, v])
    assert gradcheck(lambda q, k, v: scaled_dot_product_attention(q, k, v)[0], [q, k, v])
    with minigrad.fused(False):  # composed, the weights are part of the graph too
        assert gradcheck(lambda q, k, v: scaled_dot_product_attention(q, k, v, mask)[1],
                         [q, k, v])


def _parse_matrix(text):
    """The rows of a printed numpy array; numpy prints 1.0 as '1.' and pads with spaces."""
    number = r"-?\d+\.\d*"
    return np.array([[float(x) for x in re.findall(number, line)]
                     for line in text.strip().splitlines() if re.search(number, line)])


def test_seed_snippet_prints_lower_triangular_weights(capsys):
    saved = np.random.get_state()
    np.random.seed(0)
    Q, K, V = np.random.randn(1, 4, 8), np.random.randn(1, 4, 8), np.random.randn(1, 4, 8)
    np.random.set_state(saved)
    out, w = scaled_dot_product_attention(Q, K, V, create_causal_mask(4))
    print(w[0].round(2))
    printed = capsys.readouterr().out
    matrix = _parse_matrix(printed)
    assert matrix.shape == (4, 4), printed
    assert np.all(matrix[np.triu_indices(4, 1)] == 0), printed
    assert np.all(matrix[np.tril_indices(4)] > 0), printed
    np.testing.assert_allclose(matrix.sum(1), 1.0, atol=0.021)
    assert matrix[0, 0] == 1.0
    np.testing.assert_allclose(matrix, np_attention(Q, K, V, create_causal_mask(4))[1][0],
                               atol=0.005 + 1e-9)
    assert out.shape == (1, 4, 8)


# ----------------------------------------------------------------------------------------------
# The tutorial demo
# ----------------------------------------------------------------------------------------------
DEMO_TOKENS = ["cat", "sat", "mat"]
DEMO_X = np.array([[1.0, 0.5, 0.2, 0.8], [0.3, 0.9, 0.1, 0.4], [0.6, 0.2, 0.7, 0.3]])


def _demo_expected():
    x = DEMO_X
    scores = np.array([[sum(a * b for a, b in zip(x[i], x[j])) for j in range(3)]
                       for i in range(3)])
    scaled = scores / 2.0  # sqrt(d_k) = sqrt(4)
    e = np.exp(scaled)
    weights = e / e.sum(1, keepdims=True)
    output = weights @ x
    causal = np.zeros((3, 3))
    for i in range(3):
        ei = np.exp(scaled[i, :i + 1])
        causal[i, :i + 1] = ei / ei.sum()
    return scores, scaled, weights, output, causal


def _section(text, start, end):
    i = text.index(start)
    j = text.index(end, i + len(start)) if end else len(text)
    return text[i + len(start):j]


def _rows_by_token(section):
    rows = {}
    for line in section.splitlines():
        words = line.split()
        if words and words[0].rstrip(":") in DEMO_TOKENS:
            rows[words[0].rstrip(":")] = [float(x) for x in re.findall(FLOAT, line)]
    return rows


def test_demo_numbers(capsys):
    demo()
    text = capsys.readouterr().out
    scores, scaled, weights, output, causal = _demo_expected()
    # the hand-checked entry: sat . mat = .3*.6 + .9*.2 + .1*.7 + .4*.3 = 0.55
    assert scores[1, 2] == pytest.approx(0.55) and scores[2, 1] == pytest.approx(0.55)
    assert scores[0, 0] == pytest.approx(1.93)
    sections = {
        "scores": (_section(text, "1. scores", "2. scaled"), scores),
        "scaled": (_section(text, "2. scaled", "3. weights"), scaled),
        "weights": (_section(text, "3. weights", "4. output"), weights),
    }
    for name, (section, expected) in sections.items():
        rows = _rows_by_token(section)
        assert list(rows) == DEMO_TOKENS, (name, section)
        for i, tok in enumerate(DEMO_TOKENS):
            np.testing.assert_allclose(rows[tok], expected[i], atol=5.01e-5, err_msg=name)
            for value in expected[i]:  # printed with 4 decimals
                assert f"{value:.4f}" in section, (name, value, section)
    assert "0.5500" in sections["scores"][0] and "0.6500" not in sections["scores"][0]
    assert "sqrt(d_k) = scores / 2" in text

    out_rows = _rows_by_token(_section(text, "4. output", "scaled_dot_product_attention"))
    assert list(out_rows) == DEMO_TOKENS
    for i, tok in enumerate(DEMO_TOKENS):
        np.testing.assert_allclose(out_rows[tok], output[i], atol=5.01e-5)

    # the two heatmaps print the weights with 2 decimals
    plain = _rows_by_token(_section(text, "gives the same output", "With a causal mask"))
    masked = _rows_by_token(_section(text, "mask =", None))
    for i, tok in enumerate(DEMO_TOKENS):
        np.testing.assert_allclose(plain[tok], weights[i], atol=0.00501)
        np.testing.assert_allclose(masked[tok], causal[i], atol=0.00501)
    assert masked["cat"] == [1.0, 0.0, 0.0]
    mask_lines = [line.split() for line in _section(text, "mask =", "cat").strip().splitlines()]
    assert mask_lines == [["1", "0", "0"], ["1", "1", "0"], ["1", "1", "1"]]


def test_demo_runs_as_module():
    result = subprocess.run([sys.executable, "-m", "models.attention"], cwd=ROOT,
                            capture_output=True, text=True, encoding="utf-8", timeout=60)
    assert result.returncode == 0, result.stderr
    assert "0.5500" in result.stdout
    assert "Warning" not in result.stderr, result.stderr


def test_demo_piped_into_a_reader_that_is_gone_stops_quietly():
    assert_stops_quietly_when_its_reader_is_gone("models.attention")


@pytest.mark.parametrize("command", [["models.attention"], ["minigrad.ops"],
                                     ["examples.conv_classifier", "--steps", "1"]])
def test_the_scripts_that_take_sigpipe_back_run_where_there_is_none(command):
    """Windows has no signal.SIGPIPE: setting it there raised AttributeError before any output."""
    script = ("import runpy, signal, sys\n"
              "del signal.SIGPIPE\n"
              "sys.argv = sys.argv[1:]\n"
              "runpy.run_module(sys.argv[0], run_name='__main__', alter_sys=True)\n")
    result = subprocess.run([sys.executable, "-c", script, *command], cwd=ROOT,
                            capture_output=True, text=True, timeout=120)
    assert result.returncode == 0 and "Traceback" not in result.stderr, result.stderr
    assert result.stdout


# ----------------------------------------------------------------------------------------------
# Multi-head attention
# ----------------------------------------------------------------------------------------------
def np_mha(mha, x_q, x_kv, mask=None):
    """Multi-head attention in numpy from the module's weights."""
    def lin(layer, x):
        return x @ layer.weight.data.T + layer.bias.data

    def split(x):
        b, t, c = x.shape
        return x.reshape(b, t, mha.num_heads, c // mha.num_heads).transpose(0, 2, 1, 3)

    q, k, v = split(lin(mha.W_q, x_q)), split(lin(mha.W_k, x_kv)), split(lin(mha.W_v, x_kv))
    out, w = np_attention(q, k, v, mask)
    b, h, t, d = out.shape
    return lin(mha.W_o, out.transpose(0, 2, 1, 3).reshape(b, t, h * d)), w


def test_mha_shapes_and_values():
    rng = np.random.default_rng(7)
    mha = MultiHeadAttention(8, 2, rng=np.random.default_rng(0), dtype=np.float64)
    x = rng.standard_normal((3, 5, 8))
    out = mha(x, x, x, create_causal_mask(5))
    assert out.shape == (3, 5, 8)
    assert mha.attention_weights.shape == (3, 2, 5, 5)
    np.testing.assert_allclose(mha.attention_weights.sum(-1), 1.0, rtol=1e-12)
    ref_out, ref_w = np_mha(mha, x, x, create_causal_mask(5))
    np.testing.assert_allclose(out.data, ref_out, rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(mha.attention_weights, ref_w, rtol=1e-10, atol=1e-12)
    # cross-attention: 2 queries over 6 keys
    mem = rng.standard_normal((3, 6, 8))
    out = mha(Tensor(x[:, :2]), Tensor(mem), Tensor(mem))
    assert out.shape == (3, 2, 8) and mha.attention_weights.shape == (3, 2, 2, 6)
    np.testing.assert_allclose(mha.attention_weights.sum(-1), 1.0, rtol=1e-12)
    np.testing.assert_allclose(out.data, np_mha(mha, x[:, :2], mem)[0], rtol=1e-10, atol=1e-12)
    assert len(list(mha.parameters())) == 8 and mha.num_parameters() == 4 * (8 * 8 + 8)


@pytest.mark.parametrize("dim,heads", [(10, 3), (4, 8), (6, 0)])
def test_mha_rejects_indivisible_heads(dim, heads):
    with pytest.raises(ValueError, match="divisible"):
        MultiHeadAttention(dim, heads)


def test_mha_gradcheck():
    mha = MultiHeadAttention(4, 2, rng=np.random.default_rng(1)).astype(np.float64)
    assert all(p.dtype == np.float64 for p in mha.parameters())
    x = Tensor(np.random.default_rng(2).standard_normal((2, 3, 4)), requires_grad=True)
    mask = create_causal_mask(3)
    assert gradcheck(lambda x, *ps: mha(x, x, x, mask), [x, *mha.parameters()])
    kv = Tensor(np.random.default_rng(3).standard_normal((2, 2, 4)), requires_grad=True)
    assert gradcheck(lambda x, kv, *ps: mha(x, kv, kv), [x, kv, *mha.parameters()])


def _swap_query_and_key_weights(mha):
    mha.W_q.weight.data, mha.W_k.weight.data = mha.W_k.weight.data, mha.W_q.weight.data


def _share_the_query_bias(mha):
    mha.W_v.bias.data = mha.W_q.bias.data


def _new_arrays(mha):
    mha.astype(np.float32).astype(np.float64)


@pytest.mark.parametrize("change", [None, _swap_query_and_key_weights, _share_the_query_bias,
                                    _new_arrays])
def test_mha_cached_generation_follows_its_current_projections(change, monkeypatch):
    """Generating with a cache, the kernel multiplies by the buffer W_q, W_k and W_v (and their
    biases) are views of (no copy of them per token); once any of their arrays is another one
    (a view of the same buffer included), it must use the arrays as they are: the composed
    path's output."""
    mha = MultiHeadAttention(8, 2, rng=np.random.default_rng(0), dtype=np.float64)
    if change is not None:
        change(mha)
    packed_given = []
    forward = kernels.SelfAttention.forward
    monkeypatch.setattr(kernels.SelfAttention, "forward", lambda self, *a, **k: (
        packed_given.append(k["packed"] is not None), forward(self, *a, **k))[1])
    x = np.random.default_rng(4).standard_normal((2, 3, 8))
    outputs = []
    for fused in (True, False):
        cache = KVCache()
        with no_grad(), minigrad.fused(fused):
            outputs.append([mha(t, t, t, cache=cache).data for t in (x[:, :2], x[:, 2:])])
        assert len(cache) == 3
    assert packed_given == [change is None] * 2  # the two fused calls
    for fused, composed in zip(*outputs):
        np.testing.assert_allclose(fused, composed, rtol=1e-10, atol=1e-12)


# ----------------------------------------------------------------------------------------------
# GPT: gradients
# ----------------------------------------------------------------------------------------------
def test_block_gradcheck():
    cfg = tiny_config()
    block = Block(cfg, np.random.default_rng(0), np.float64)
    randomize(block, np.random.default_rng(1))
    x = Tensor(np.random.default_rng(2).standard_normal((2, 3, 4)), requires_grad=True)
    mask = create_causal_mask(3)
    assert gradcheck(lambda x, *ps: block(x, mask), [x, *block.parameters()])


def test_gpt_loss_gradcheck():
    model = GPT(tiny_config(), seed=0, dtype=np.float64)
    randomize(model, np.random.default_rng(3))
    params = list(model.parameters())
    # wte, wpe; per block ln_1 (2), 4 attention linears (8), ln_2 (2), 2 MLP linears (4); ln_f
    assert len(params) == 2 + 16 + 2 and all(p.dtype == np.float64 for p in params)
    rng = np.random.default_rng(4)
    idx, targets = rng.integers(0, 5, (2, 4)), rng.integers(0, 5, (2, 4))
    assert gradcheck(lambda *ps: model(idx, targets)[1], params)


def test_gpt_astype_float64_gradcheck():
    model = GPT(tiny_config(), seed=1).astype(np.float64)
    randomize(model, np.random.default_rng(5))
    idx, targets = np.array([[0, 1, 2]]), np.array([[1, 2, 3]])
    logits, _ = model(idx)
    assert logits.dtype == np.float64
    assert gradcheck(lambda *ps: model(idx, targets)[1], model.parameters())


def test_gpt_loss_is_cross_entropy_of_logits():
    model = GPT(tiny_config(vocab_size=7), seed=2, dtype=np.float64)
    randomize(model, np.random.default_rng(6))
    rng = np.random.default_rng(7)
    idx, targets = rng.integers(0, 7, (3, 4)), rng.integers(0, 7, (3, 4))
    logits, loss = model(idx, targets)
    assert logits.shape == (3, 4, 7)
    z = logits.data
    logp = z - np.log(np.exp(z - z.max(-1, keepdims=True)).sum(-1, keepdims=True)) \
        - z.max(-1, keepdims=True)
    expected = -np.take_along_axis(logp, targets[..., None], -1).mean()
    assert loss.item() == pytest.approx(expected, rel=1e-12)
    # the head is tied to the token embedding: logits are final features @ wte^T
    assert not any("head" in n for n, _ in model.named_parameters())


# ----------------------------------------------------------------------------------------------
# GPT: causality and the KV cache
# ----------------------------------------------------------------------------------------------
def test_gpt_is_causal():
    cfg = GPTConfig(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=8)
    model = randomize(GPT(cfg, seed=0, dtype=np.float64), np.random.default_rng(8), 0.3)
    rng = np.random.default_rng(9)
    idx = rng.integers(0, 11, (2, 8))
    base, _ = model(idx)
    for t in [0, 1, 3, 5, 7]:
        changed = idx.copy()
        changed[:, t] = (changed[:, t] + 1 + rng.integers(0, 10)) % 11
        logits, _ = model(changed)
        np.testing.assert_allclose(logits.data[:, :t], base.data[:, :t], rtol=0, atol=1e-12,
                                   err_msg=f"changing token {t} changed an earlier position")
        assert np.abs(logits.data[:, t:] - base.data[:, t:]).max() > 1e-6


def test_gpt_positions_matter():
    cfg = GPTConfig(vocab_size=11, block_size=8, n_layer=1, n_head=2, n_embd=8)
    model = randomize(GPT(cfg, seed=0, dtype=np.float64), np.random.default_rng(10))
    logits, _ = model(np.array([[3, 3, 3]]))
    assert np.abs(logits.data[0, 0] - logits.data[0, 2]).max() > 1e-6


def _cached_logits(model, idx, chunks):
    caches = [KVCache() for _ in model.blocks]
    pieces, start = [], 0
    for size in chunks:
        logits, _ = model(idx[:, start:start + size], caches=caches)
        pieces.append(logits.data)
        start += size
    assert start == idx.shape[1] and len(caches[0]) == start
    return np.concatenate(pieces, axis=1)


@pytest.mark.parametrize("grad_enabled", [True, False],
                         ids=["recording", "no_grad"])  # the cached path differs (kernel)
@pytest.mark.parametrize("chunks", [[3, 1, 1, 1, 1, 1], [1] * 8, [2, 3, 1, 2], [8]])
def test_kv_cache_matches_full_forward(chunks, grad_enabled):
    cfg = GPTConfig(vocab_size=9, block_size=8, n_layer=2, n_head=2, n_embd=8)
    model = randomize(GPT(cfg, seed=3, dtype=np.float64), np.random.default_rng(11), 0.3)
    idx = np.random.default_rng(12).integers(0, 9, (2, 8))
    full, _ = model(idx)
    with contextlib.nullcontext() if grad_enabled else no_grad():
        cached = _cached_logits(model, idx, chunks)
    np.testing.assert_allclose(cached, full.data, rtol=1e-10, atol=1e-12)


def test_kv_cache_beyond_block_size_is_an_error():
    model = GPT(tiny_config(), seed=0)
    caches = [KVCache() for _ in model.blocks]
    model(np.array([[0, 1, 2, 3]]), caches=caches)
    with pytest.raises(ValueError, match="block_size"):
        model(np.array([[4]]), caches=caches)
    with pytest.raises(ValueError, match="block_size"):
        model(np.zeros((1, 5), dtype=np.int64))


def _generation_model(seed=4, vocab=13, block=10):
    cfg = GPTConfig(vocab_size=vocab, block_size=block, n_layer=2, n_head=2, n_embd=8)
    return randomize(GPT(cfg, seed=seed, dtype=np.float64), np.random.default_rng(seed), 0.5)


def test_generate_cached_equals_uncached_greedy():
    model = _generation_model()
    for prompt in ([[1, 2]], [[5]], [[0, 3, 4, 2, 7]], [[1, 2, 3], [4, 5, 6]]):
        prompt = np.array(prompt)
        n_new = 10 - prompt.shape[1]  # prompt + new tokens == block_size
        a = model.generate(prompt, n_new, temperature=0, use_cache=True)
        b = model.generate(prompt, n_new, temperature=0, use_cache=False)
        assert a.shape == (prompt.shape[0], 10)
        np.testing.assert_array_equal(a[:, :prompt.shape[1]], prompt)
        np.testing.assert_array_equal(a, b)
    # sampling with the same seed also agrees (it depends on the whole distribution, not just
    # on which token is largest)
    for seed in range(3):
        prompt = np.array([[1, 2, 3], [4, 5, 6]])
        a = model.generate(prompt, 7, temperature=1.0, rng=np.random.default_rng(seed))
        b = model.generate(prompt, 7, temperature=1.0, rng=np.random.default_rng(seed),
                           use_cache=False)
        np.testing.assert_array_equal(a, b)
    # greedy really is the argmax of the full forward at each step
    seq = model.generate(np.array([[1, 2]]), 5, temperature=0, use_cache=False)
    for t in range(2, 7):
        logits, _ = model(seq[:, :t])
        assert seq[0, t] == int(np.argmax(logits.data[0, -1]))


def test_generate_past_block_size_runs():
    model = _generation_model(block=6)
    for use_cache in (True, False):
        out = model.generate(np.array([1, 2, 3]), 12, temperature=0.8,
                             rng=np.random.default_rng(0), use_cache=use_cache)
        assert out.shape == (1, 15) and out.min() >= 0 and out.max() < 13


def test_generate_seeded_is_reproducible_and_top_k_1_is_greedy():
    model = _generation_model()
    prompt = np.array([[2, 4]])
    a = model.generate(prompt, 8, temperature=1.0, rng=np.random.default_rng(42))
    b = model.generate(prompt, 8, temperature=1.0, rng=np.random.default_rng(42))
    np.testing.assert_array_equal(a, b)
    others = [model.generate(prompt, 8, temperature=1.0, rng=np.random.default_rng(s))
              for s in range(5)]
    assert any(not np.array_equal(a, o) for o in others)
    greedy = model.generate(prompt, 8, temperature=0)
    for seed in range(3):
        for use_cache in (True, False):
            top1 = model.generate(prompt, 8, temperature=1.5, top_k=1,
                                  rng=np.random.default_rng(seed), use_cache=use_cache)
            np.testing.assert_array_equal(top1, greedy)
    assert model.training  # generate restores the mode


def test_sample_follows_softmax_and_top_k():
    logits = np.array([1.0, 2.0, 0.5, -1.0, 1.5])
    rows = np.tile(logits, (40000, 1))
    draws = _sample(rows, 1.0, None, np.random.default_rng(0))
    p = np.exp(logits) / np.exp(logits).sum()
    freq = np.bincount(draws, minlength=5) / len(draws)
    np.testing.assert_allclose(freq, p, atol=0.01)
    # temperature 2 flattens: softmax(logits / 2)
    draws = _sample(rows, 2.0, None, np.random.default_rng(1))
    p2 = np.exp(logits / 2) / np.exp(logits / 2).sum()
    np.testing.assert_allclose(np.bincount(draws, minlength=5) / len(draws), p2, atol=0.01)
    # top_k = 2 keeps only ids 1 and 4, renormalised
    draws = _sample(rows, 1.0, 2, np.random.default_rng(2))
    assert set(np.unique(draws)) == {1, 4}
    p_top = np.exp([2.0, 1.5]) / np.exp([2.0, 1.5]).sum()
    assert np.mean(draws == 1) == pytest.approx(p_top[0], abs=0.01)
    np.testing.assert_array_equal(_sample(rows[:3], 0, None, None), [1, 1, 1])


def test_generate_rejects_bad_arguments():
    model = _generation_model()
    with pytest.raises(ValueError):
        model.generate(np.array([[1]]), 2, temperature=-1)
    with pytest.raises(ValueError):
        model.generate(np.array([[1]]), 2, top_k=0)
    with pytest.raises(ValueError):
        model.generate(np.zeros((1, 0), dtype=np.int64), 2)


# ----------------------------------------------------------------------------------------------
# Tokenizer and parameter counts
# ----------------------------------------------------------------------------------------------
def test_char_tokenizer():
    text = "hello, world!\n"
    tok = CharTokenizer.from_text(text)
    assert tok.chars == ["\n", " ", "!", ",", "d", "e", "h", "l", "o", "r", "w"]
    assert tok.vocab_size == 11
    ids = tok.encode(text)
    assert ids.dtype.kind == "i" and len(ids) == len(text)
    assert list(ids[:5]) == [6, 5, 7, 7, 8]  # h e l l o
    assert tok.decode(ids) == text
    assert tok.decode(list(ids)) == text and tok.decode(ids[None, :]) == text
    for s in ["", "lol", "world hello\n"]:
        assert tok.decode(tok.encode(s)) == s


def test_char_tokenizer_unknown_characters():
    tok = CharTokenizer.from_text("abc")
    with pytest.raises(ValueError) as info:
        tok.encode("abxcqx")
    message = str(info.value)
    assert "x" in message and "q" in message
    assert "'qx'" in message  # the unknown characters, each once, sorted


def expected_param_count(v, t, n_layer, c):
    embeddings = v * c + t * c                      # token and position tables
    layer_norm = 2 * c                              # weight and bias
    attention = 4 * (c * c + c)                     # W_q, W_k, W_v, W_o with biases
    mlp = (c * 4 * c + 4 * c) + (4 * c * c + c)     # fc and proj with biases
    per_block = 2 * layer_norm + attention + mlp
    return embeddings + n_layer * per_block + layer_norm  # + ln_f; the head is tied to wte


@pytest.mark.parametrize("v,t,n_layer,n_head,c", [(5, 4, 1, 2, 4), (11, 7, 3, 2, 6)])
def test_num_parameters(v, t, n_layer, n_head, c):
    model = GPT(GPTConfig(vocab_size=v, block_size=t, n_layer=n_layer, n_head=n_head, n_embd=c))
    total = expected_param_count(v, t, n_layer, c)
    assert model.num_parameters(non_embedding=False) == total
    assert model.num_parameters() == total - t * c
    assert sum(p.numel() for p in model.parameters()) == total
    # and the count the config gives without building the model (train prints it first)
    assert model.config.num_parameters(non_embedding=False) == total
    assert model.config.num_parameters() == total - t * c
    # and the shapes it gives (a checkpoint's are checked against them), in the model's order
    assert list(model.config.parameter_shapes().items()) == [
        (name, p.shape) for name, p in model.named_parameters()]


def test_num_parameters_tiny_by_hand():
    # vocab 5, block 4, 1 layer, n_embd 4: 20 + 16 + (8 + 80 + 8 + 80 + 68) + 8 = 288
    model = GPT(tiny_config())
    assert model.num_parameters(non_embedding=False) == 288
    assert model.num_parameters() == 272


def test_num_parameters_baby_config():
    cfg = GPTConfig(vocab_size=65, block_size=64, n_layer=4, n_head=4, n_embd=128)
    model = GPT(cfg)
    n = model.num_parameters()
    assert n == expected_param_count(65, 64, 4, 128) - 64 * 128 == 801_664
    assert f"{n / 1e6:.2f}M" == "0.80M"  # what nanoGPT reports for this config


# ----------------------------------------------------------------------------------------------
# Training: a tiny model memorises a short text
# ----------------------------------------------------------------------------------------------
def test_tiny_gpt_overfits_short_text():
    text = "the quick brown fox jumps over the lazy dog. "
    tok = CharTokenizer.from_text(text)
    data = tok.encode(text * 3)
    block, batch = 16, 8
    cfg = GPTConfig(vocab_size=tok.vocab_size, block_size=block, n_layer=2, n_head=4, n_embd=32)
    model = GPT(cfg, seed=0)
    opt = AdamW(model.parameters(), lr=3e-3, weight_decay=0.0)
    rng = np.random.default_rng(0)
    losses = []
    for step in range(600):
        ix = rng.integers(0, len(data) - block, batch)
        x = np.stack([data[i:i + block] for i in ix])
        y = np.stack([data[i + 1:i + block + 1] for i in ix])
        _, loss = model(x, y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
        if len(losses) >= 10 and np.mean(losses[-10:]) < 0.1:
            break
    assert np.isfinite(losses).all()
    assert losses[0] > 2.0  # starts near log(vocab) = log(27)
    assert np.mean(losses[-10:]) < 0.1, f"after {len(losses)} steps: {losses[-10:]}"
    # with a full block of context, greedy decoding continues the memorised text
    out = model.generate(data[None, :block], 8, temperature=0, use_cache=False)
    assert tok.decode(out[0, block:]) == tok.decode(data[block:block + 8])


@pytest.mark.parametrize("masked", [False, True])
def test_fused_attention_equals_the_composed_tutorial_version(masked):
    """With kernels on, scaled_dot_product_attention is one fused op; it gives the composed
    version's output, weights and gradients."""
    rng = np.random.default_rng(11)
    mask = create_causal_mask(5) if masked else None
    results = []
    for fused in (False, True):
        q, k, v = (Tensor(rng.standard_normal((2, 3, 5, 4)), requires_grad=True)
                   for _ in range(3))
        rng = np.random.default_rng(11)  # the same inputs for both
        with minigrad.fused(fused):
            out, weights = scaled_dot_product_attention(q, k, v, mask)
        (out * Tensor(np.arange(out.numel()).reshape(out.shape) / 10)).sum().backward()
        results.append((out.data, weights.data, q.grad, k.grad, v.grad))
    for composed, fused in zip(*results):
        np.testing.assert_allclose(fused, composed, rtol=1e-10, atol=1e-12)


def _float64_step(model, fused):
    rng = np.random.default_rng(3)
    x = rng.integers(0, model.config.vocab_size, (3, model.config.block_size))
    y = np.roll(x, -1, axis=1)
    with minigrad.fused(fused):
        _, loss = model(x, y)
    return loss, minigrad.grad(loss, model.parameters(), retain_graph=True)


def test_gpt_step_is_the_same_with_kernels_on_and_off():
    model = GPT(GPTConfig(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=16),
                dtype=np.float64)
    fused_loss, fused_grads = _float64_step(model, True)
    composed_loss, composed_grads = _float64_step(model, False)
    assert abs(fused_loss.item() - composed_loss.item()) <= 1e-10
    for (name, _), gf, gc in zip(model.named_parameters(), fused_grads, composed_grads):
        np.testing.assert_allclose(gf, gc, rtol=1e-10, atol=1e-10, err_msg=name)
    kernel_ops = set(minigrad.ops.kernels())
    assert kernel_ops & op_types(fused_loss), "the default path uses the kernels"
    composed_ops = op_types(composed_loss)
    assert not kernel_ops & composed_ops, f"kernels under fused(False): {kernel_ops & composed_ops}"
    assert composed_ops <= set(minigrad.ops.primitives())


def test_generation_records_no_graph(monkeypatch):
    from models.gpt import GPT as Model
    model = Model(GPTConfig(vocab_size=5, block_size=4, n_layer=1, n_head=1, n_embd=4))
    modes, forward = [], Model.forward

    def recording_forward(self, *args, **kwargs):
        modes.append(minigrad.is_grad_enabled())
        return forward(self, *args, **kwargs)

    monkeypatch.setattr(Model, "forward", recording_forward)
    for use_cache in (True, False):
        model.generate(np.array([[1, 2]]), 6, rng=np.random.default_rng(0), use_cache=use_cache)
    assert modes and not any(modes)
    assert minigrad.is_grad_enabled()


def test_cached_generation_runs_past_block_size_with_tiny_blocks():
    from models.gpt import GPT as Model
    for block in (1, 2, 3):
        model = Model(GPTConfig(vocab_size=5, block_size=block, n_layer=1, n_head=1, n_embd=4))
        out = model.generate(np.array([[1, 2, 3]]), 7, rng=np.random.default_rng(0))
        assert out.shape == (1, 10)
