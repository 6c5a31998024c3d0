"""Data parallelism: the batch split across threads gives the single-thread loss and gradients,
up to float32 summation order."""
import json
import sys
import subprocess
from pathlib import Path

import numpy as np
import pytest

from models import GPT, GPTConfig
from train.parallel import DataParallel

ROOT = Path(__file__).resolve().parent.parent
CONFIG = GPTConfig(vocab_size=11, block_size=16, n_layer=2, n_head=2, n_embd=16)


def batch(n=8, seed=0):
    x = np.random.default_rng(seed).integers(0, CONFIG.vocab_size, (n, CONFIG.block_size))
    return x, np.roll(x, -1, axis=1)


@pytest.mark.parametrize("threads,batch_size", [(2, 8), (2, 7), (3, 8)])
def test_data_parallel_matches_single_thread(threads, batch_size):
    x, y = batch(batch_size)
    model = GPT(CONFIG, seed=3)
    _, loss = model(x, y)
    loss.backward()
    expected = {name: p.grad.copy() for name, p in model.named_parameters()}
    model.zero_grad()
    with DataParallel(model, threads) as parallel:
        parallel_loss = parallel.backward(x, y)
    assert parallel_loss == pytest.approx(loss.item(), rel=1e-5)
    for name, p in model.named_parameters():
        assert p.grad.dtype == np.float32
        np.testing.assert_allclose(p.grad, expected[name], rtol=2e-4, atol=1e-6, err_msg=name)


def test_data_parallel_in_float64_is_exact_to_rounding():
    x, y = batch(6)
    model = GPT(CONFIG, seed=5, dtype=np.float64)
    _, loss = model(x, y)
    loss.backward()
    expected = [p.grad.copy() for p in model.parameters()]
    with DataParallel(model, 2) as parallel:
        assert parallel.backward(x, y) == pytest.approx(loss.item(), rel=1e-12)
    for p, g in zip(model.parameters(), expected):
        np.testing.assert_allclose(p.grad, g, rtol=1e-10, atol=1e-13)


def test_data_parallel_refuses_dropout():
    model = GPT(GPTConfig(vocab_size=5, block_size=4, n_layer=1, n_head=1, n_embd=4,
                          dropout=0.1))
    with pytest.raises(ValueError, match="dropout"):
        DataParallel(model, 2)


def run_train(tmp_path, name, *flags):
    text = tmp_path / "text.txt"
    if not text.exists():
        text.write_text("the quick brown fox jumps over the lazy dog. " * 40)
    out = tmp_path / name
    proc = subprocess.run(
        [sys.executable, "-m", "train", str(text), "--out", str(out), "--steps", "12",
         "--eval-every", "6", "--eval-iters", "2", "--n-layer", "1", "--n-head", "2",
         "--n-embd", "16", "--block-size", "16", "--batch-size", "8", *flags],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    return proc, out


def test_train_cli_threads_follows_the_single_thread_run(tmp_path):
    single, out1 = run_train(tmp_path, "one")
    threaded, out2 = run_train(tmp_path, "two", "--threads", "2")
    assert single.returncode == 0, single.stderr
    assert threaded.returncode == 0, threaded.stderr
    rows1 = [json.loads(line) for line in (out1 / "metrics.jsonl").read_text().splitlines()]
    rows2 = [json.loads(line) for line in (out2 / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows1] == [r["step"] for r in rows2] == [0, 6, 12]
    for r1, r2 in zip(rows1, rows2):
        assert r2["train_loss"] == pytest.approx(r1["train_loss"], rel=1e-3)
        assert r2["val_loss"] == pytest.approx(r1["val_loss"], rel=1e-3)


def test_train_cli_threads_with_dropout_is_a_usage_error(tmp_path):
    proc, out = run_train(tmp_path, "bad", "--threads", "2", "--dropout", "0.1")
    assert proc.returncode == 2
    assert proc.stderr.startswith("error:") and "--dropout 0" in proc.stderr
    assert not (out / "ckpt.npz").exists()
