"""Data parallelism: the batch split across threads gives the single-thread loss and gradients,
up to float32 summation order."""
import dataclasses
import json
import os
import sys
import subprocess
import threading
from pathlib import Path

import numpy as np
import pytest
from threadpoolctl import threadpool_info

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
    expected = {name: p.grad.clone() for name, p in model.named_parameters()}
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
    expected = [p.grad.clone() for p in model.parameters()]
    with DataParallel(model, 2) as parallel:
        assert parallel.backward(x, y) == pytest.approx(loss.item(), rel=1e-12)
    for p, g in zip(model.parameters(), expected):
        np.testing.assert_allclose(p.grad, g, rtol=1e-10, atol=1e-13)


@pytest.mark.parametrize("threads,batch_size", [(2, 6), (3, 7)])
def test_data_parallel_loss_for_evaluation_matches_single_thread(threads, batch_size):
    x, y = batch(batch_size)
    model = GPT(dataclasses.replace(CONFIG, dropout=0.5), seed=5, dtype=np.float64)
    model.eval()
    expected = model(x, y)[1].item()
    seen_blas_threads = []
    forward = type(model).forward

    def recording(self, *args, **kwargs):
        seen_blas_threads.append({lib["num_threads"] for lib in threadpool_info()
                                  if lib["user_api"] == "blas"})
        return forward(self, *args, **kwargs)

    with DataParallel(model, threads) as parallel, \
            pytest.MonkeyPatch.context() as patch:
        patch.setattr(type(model), "forward", recording)
        assert parallel.loss(x, y) == pytest.approx(expected, rel=1e-12)
    assert seen_blas_threads == [{1}] * threads  # each worker a shard, on one BLAS thread
    assert all(p.grad is None for p in model.parameters())  # nothing recorded


def test_data_parallel_leaves_a_frozen_parameter_without_a_gradient():
    x, y = batch(6)
    model = GPT(CONFIG, seed=3, dtype=np.float64)
    frozen = model.wpe.weight
    frozen.requires_grad = False
    _, loss = model(x, y)
    loss.backward()
    expected = [None if p.grad is None else p.grad.clone() for p in model.parameters()]
    model.zero_grad()
    with DataParallel(model, 2) as parallel:
        assert parallel.backward(x, y) == pytest.approx(loss.item(), rel=1e-12)
    assert frozen.grad is None
    for p, g in zip(model.parameters(), expected):
        if g is not None:
            np.testing.assert_allclose(p.grad, g, rtol=1e-10, atol=1e-13)


def worker_affinities(parallel, threads):
    """The cores each worker thread of `parallel` may run on."""
    all_running = threading.Barrier(threads, timeout=10)

    def affinity():
        all_running.wait()  # as many tasks at once as threads: one per worker thread
        return tuple(sorted(os.sched_getaffinity(0)))

    return sorted(f.result() for f in [parallel.pool.submit(affinity) for _ in range(threads)])


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity"),
                    reason="binding threads to cores needs os.sched_setaffinity (Linux)")
def test_one_worker_per_usable_core_each_bound_to_its_own():
    cores = sorted(os.sched_getaffinity(0))
    with DataParallel(GPT(CONFIG, seed=3), len(cores)) as parallel:
        assert worker_affinities(parallel, len(cores)) == [(core,) for core in cores]
    assert os.sched_getaffinity(0) == set(cores)  # the calling thread is left as it was


@pytest.mark.skipif(not hasattr(os, "sched_setaffinity") or len(os.sched_getaffinity(0)) < 2,
                    reason="needs os.sched_setaffinity (Linux) and at least 2 usable cores")
def test_fewer_workers_than_cores_stay_unbound():
    """Bound, every process's workers would crowd onto the same first cores."""
    cores = tuple(sorted(os.sched_getaffinity(0)))
    with DataParallel(GPT(CONFIG, seed=3), len(cores) - 1) as parallel:
        assert worker_affinities(parallel, len(cores) - 1) == [cores] * (len(cores) - 1)


DROPOUT = GPTConfig(vocab_size=11, block_size=16, n_layer=2, n_head=2, n_embd=16, dropout=0.2)


def parallel_grads(model, x, y, step, threads=2, seed=7):
    with DataParallel(model, threads, seed) as parallel:
        loss = parallel.backward(x, y, step)
    return loss, [p.grad.clone() for p in model.parameters()]


def test_data_parallel_dropout_depends_only_on_seed_step_and_worker():
    """Each worker draws its masks from (seed, step, worker): the same step twice gives the same
    gradients bit for bit, whatever order the threads ran in; another step other masks."""
    x, y = batch(8)
    model = GPT(DROPOUT, seed=1)
    first = parallel_grads(model, x, y, step=3)
    again = parallel_grads(model, x, y, step=3)
    other = parallel_grads(model, x, y, step=4)
    assert first[0] == again[0]
    for a, b in zip(first[1], again[1]):
        np.testing.assert_array_equal(a, b)
    assert first[0] != other[0]
    # without dropout in eval mode the masks play no part: the single-thread result
    model.eval()
    _, loss = model(x, y)
    assert parallel_grads(model, x, y, step=3)[0] == pytest.approx(loss.item(), rel=1e-5)


def test_worker_replicas_share_the_parameters_but_not_the_dropout_layers():
    from train.parallel import replica
    model = GPT(DROPOUT, seed=1)
    copy = replica(model)
    assert [id(p) for p in copy.parameters()] == [id(p) for p in model.parameters()]
    assert copy.blocks[0].dropout is not model.blocks[0].dropout
    copy.blocks[0].dropout.rng = np.random.default_rng(0)
    assert model.blocks[0].dropout.rng is not copy.blocks[0].dropout.rng


def test_a_buffer_assigned_on_a_replica_does_not_reach_the_original():
    from minigrad import Tensor, nn
    from train.parallel import replica
    norm = nn.BatchNorm1d(3)
    copy = replica(norm)
    assert copy.running_mean is norm.running_mean  # shared until one side assigns
    copy.running_mean = Tensor(np.ones(3, dtype=np.float32))
    np.testing.assert_array_equal(norm.running_mean.data, np.zeros(3))
    np.testing.assert_array_equal(norm.state_dict()["running_mean"], np.zeros(3))


def test_data_parallel_workers_follow_the_callers_fused_switch(monkeypatch):
    """fused() is per thread; the workers run under the mode of the thread that called them."""
    import minigrad
    calls = []

    def counting(forward):
        def counting_forward(self, *args, **kwargs):
            calls.append(type(self).__name__)
            return forward(self, *args, **kwargs)
        return counting_forward

    for kernel in minigrad.ops.kernels():  # counts kernel calls in every thread
        monkeypatch.setattr(kernel, "forward", counting(kernel.forward))
    x, y = batch(4)
    model = GPT(CONFIG, seed=2)
    with minigrad.fused(False):
        parallel_grads(model, x, y, step=0)
    assert calls == []
    parallel_grads(model, x, y, step=0)
    assert calls


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
    single, out1 = run_train(tmp_path, "one", "--threads", "1")
    threaded, out2 = run_train(tmp_path, "two", "--threads", "2")
    assert single.returncode == 0, single.stderr
    assert threaded.returncode == 0, threaded.stderr
    rows1 = [json.loads(line) for line in (out1 / "metrics.jsonl").read_text().splitlines()]
    rows2 = [json.loads(line) for line in (out2 / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows1] == [r["step"] for r in rows2] == [0, 6, 12]
    for r1, r2 in zip(rows1, rows2):
        assert r2["train_loss"] == pytest.approx(r1["train_loss"], rel=1e-3)
        assert r2["val_loss"] == pytest.approx(r1["val_loss"], rel=1e-3)


def test_train_cli_threads_with_dropout_repeats_and_resumes_bit_for_bit(tmp_path):
    # a learning-rate schedule fixed by flags, so that the run cut short at step 6 follows the
    # same one as the unbroken run (by default it would follow --steps)
    flags = ("--threads", "2", "--dropout", "0.2", "--warmup", "2", "--lr-decay-steps", "12")
    first, out1 = run_train(tmp_path, "first", *flags)
    second, out2 = run_train(tmp_path, "second", *flags)
    assert first.returncode == 0 and second.returncode == 0, first.stderr + second.stderr
    assert (out1 / "metrics.jsonl").read_text().splitlines()[-1].split('"ms_per_step"')[0] == \
        (out2 / "metrics.jsonl").read_text().splitlines()[-1].split('"ms_per_step"')[0]
    weights1, weights2 = np.load(out1 / "ckpt.npz"), np.load(out2 / "ckpt.npz")
    model_keys = [k for k in weights1.files if k.startswith("model/")]
    assert model_keys
    for key in model_keys:
        np.testing.assert_array_equal(weights1[key], weights2[key], err_msg=key)
    # stop at step 6, resume to 12: the same weights as the unbroken run
    half, out3 = run_train(tmp_path, "half", *flags, "--steps", "6")
    assert half.returncode == 0, half.stderr
    resumed = subprocess.run([sys.executable, "-m", "train", "--out", str(out3), "--resume",
                              "--steps", "12"], cwd=ROOT, capture_output=True, text=True,
                             timeout=120)
    assert resumed.returncode == 0, resumed.stderr
    weights3 = np.load(out3 / "ckpt.npz")
    for key in model_keys:
        np.testing.assert_array_equal(weights1[key], weights3[key], err_msg=key)


def test_train_defaults_to_data_parallel_over_the_usable_cores(tmp_path):
    from train import checkpoint
    from train.parallel import usable_cores
    proc, out = run_train(tmp_path, "auto")
    assert proc.returncode == 0, proc.stderr
    assert checkpoint.load(out / "ckpt.npz").config.threads == min(usable_cores(), 8)


def test_train_no_fused_trains(tmp_path):
    """--no-fused runs every op composed of primitives; the model learns all the same."""
    proc, out = run_train(tmp_path, "composed", "--no-fused", "--steps", "50", "--eval-every",
                          "25")
    assert proc.returncode == 0, proc.stderr
    rows = [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]
    assert [r["step"] for r in rows] == [0, 25, 50]
    assert rows[-1]["train_loss"] < rows[1]["train_loss"] < rows[0]["train_loss"]


class _NormModel:
    """A model with BatchNorm (running statistics in buffers) and DataParallel's interface:
    model(x, y) -> (output, mean loss)."""

    def __new__(cls):
        from minigrad import nn

        class Model(nn.Module):
            def __init__(self):
                super().__init__()
                self.linear = nn.Linear(3, 4, rng=np.random.default_rng(0), dtype=np.float64)
                self.norm = nn.BatchNorm1d(4, dtype=np.float64)

            def forward(self, x, y):
                out = self.norm(self.linear(x))
                return out, ((out - y) ** 2).mean()

        return Model()


def test_data_parallel_keeps_running_statistics_of_the_first_shard_as_torch_data_parallel():
    """PyTorch's DataParallel keeps the buffer updates of the replica on the first device;
    here the first worker runs on the model's own buffers, the others on copies, so no two
    workers update one array (which would race) and the result does not depend on timing."""
    from train.parallel import DataParallel
    rng = np.random.default_rng(1)
    x, y = rng.standard_normal((8, 3)), rng.standard_normal((8, 4))
    model, alone = _NormModel(), _NormModel()
    with DataParallel(model, 2) as parallel:
        for _ in range(3):
            parallel.backward(x, y)
            alone(x[:4], y[:4])  # the first shard, one thread
        np.testing.assert_allclose(model.norm.running_mean.data, alone.norm.running_mean.data,
                                   rtol=1e-12)
        np.testing.assert_allclose(model.norm.running_var.data, alone.norm.running_var.data,
                                   rtol=1e-12)
        assert int(model.norm.num_batches_tracked.data) == 3
        second = parallel.replicas[1].norm
        assert second.running_mean is not model.norm.running_mean
        # eval mode: every worker normalises with the model's current running statistics
        model.eval()
        loss = parallel.backward(x, y)
        _, expected = model(x, y)
        assert loss == pytest.approx(expected.item(), rel=1e-12)
