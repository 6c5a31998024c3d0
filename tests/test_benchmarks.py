"""The benchmarks' helpers: what they report about the machine, and the load they create."""
import importlib.util
import json
import os
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

from benchmarks.machine import describe, machine_info
from benchmarks.numpy_floor import NumpyAdamW, NumpyGPT
from benchmarks.load import busy_processes
from minigrad import Tensor, nn, optim
from models import GPT, GPTConfig


def test_machine_info_names_the_cpu_cores_and_blas():
    info = machine_info()
    assert info["usable_cores"] == len(os.sched_getaffinity(0))
    assert info["cpu"] and info["numpy"]
    for blas in info["blas"]:
        assert set(blas) >= {"internal_api", "version", "architecture", "num_threads"}
    text = describe(info)
    assert f"{info['usable_cores']} usable cores" in text and info["numpy"] in text


def test_busy_processes_stop_when_the_block_ends():
    with busy_processes(1, seconds=60) as procs:
        assert len(procs) == 1 and procs[0].poll() is None  # spinning
    assert procs[0].poll() is not None


def test_busy_processes_stop_at_their_deadline_by_themselves():
    start = time.monotonic()
    with busy_processes(1, seconds=0.5) as procs:
        procs[0].wait(timeout=30)  # gone on its own, before the block ends
    assert time.monotonic() - start < 30


def test_numpy_floor_is_the_same_model_as_minigrads_gpt():
    """The hand-written numpy step computes minigrad's loss and gradients (float64)."""
    config = GPTConfig(vocab_size=11, block_size=8, n_layer=2, n_head=2, n_embd=8)
    model = GPT(config, seed=3).astype(np.float64)
    rng = np.random.default_rng(0)
    x = rng.integers(0, config.vocab_size, (3, 8))
    y = rng.integers(0, config.vocab_size, (3, 8))
    net = NumpyGPT(model)
    loss, grads = net.loss_and_grads(x, y)
    _, expected_loss = model(x, y)
    expected_loss.backward()
    expected = {name: p.grad for name, p in model.named_parameters()}
    assert loss == pytest.approx(expected_loss.item(), rel=1e-12)
    names = {"wte": "wte.weight", "wpe": "wpe.weight", "ln_f.w": "ln_f.weight",
             "ln_f.b": "ln_f.bias"}
    for i in range(config.n_layer):
        for ours, theirs in (("ln_1", "ln_1"), ("ln_2", "ln_2"), ("o", "attn.W_o"),
                             ("fc", "mlp.fc"), ("proj", "mlp.proj")):
            names.update({f"{i}.{ours}.w": f"blocks.{i}.{theirs}.weight",
                          f"{i}.{ours}.b": f"blocks.{i}.{theirs}.bias"})
        for kind, suffix in (("w", "weight"), ("b", "bias")):
            for part, g in zip("qkv", np.split(grads.pop(f"{i}.qkv.{kind}"), 3)):
                np.testing.assert_allclose(g, expected[f"blocks.{i}.attn.W_{part}.{suffix}"],
                                           rtol=1e-9, atol=1e-12)
    assert set(grads) == set(names)
    for ours, theirs in names.items():
        np.testing.assert_allclose(grads[ours], expected[theirs], rtol=1e-9, atol=1e-12,
                                   err_msg=ours)


def test_numpy_floor_optimizer_is_minigrads_clip_and_adamw():
    rng = np.random.default_rng(1)
    arrays = {"a": rng.standard_normal((3, 4)), "b": rng.standard_normal(5)}
    params = [nn.Parameter(a.copy()) for a in arrays.values()]
    floor = NumpyAdamW({k: a.copy() for k, a in arrays.items()}, lr=0.1, betas=(0.9, 0.99),
                       weight_decay=0.1)
    opt = optim.AdamW(params, lr=0.1, betas=(0.9, 0.99), weight_decay=0.1)
    for _ in range(3):
        grads = {k: rng.standard_normal(a.shape) for k, a in arrays.items()}
        floor.step(grads)
        for p, g in zip(params, grads.values()):
            p.grad = Tensor(g.copy())
        optim.clip_grad_norm_(params, 1.0)
        opt.step()
    for p, name in zip(params, arrays):
        np.testing.assert_allclose(floor.params[name], p.data, rtol=1e-12, atol=1e-14)


@pytest.mark.skipif(not (Path(__file__).resolve().parent.parent / ".git").exists(),
                    reason="compare_commits checks commits out of this repository's git history")
def test_compare_commits_times_two_commits_data_parallel_under_load(tmp_path):
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run(
        [sys.executable, str(root / "benchmarks" / "compare_commits.py"), "HEAD", "HEAD",
         "--steps", "2", "--block", "1", "--threads", "2", "--load", "1",
         "--json", str(tmp_path / "result.json")],
        capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    assert "head / base:" in out.stdout
    result = json.loads((tmp_path / "result.json").read_text())
    assert result["threads"] == 2 and result["load"] == 1
    assert set(result["ms_per_step"]) == {"base", "head"}


def test_layers_times_every_layer_and_product_and_pytorch_beside_them_when_installed(tmp_path):
    from benchmarks.layers import LAYERS, PRODUCTS

    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "layers.py"), "--repeat", "1",
                          "--json", str(tmp_path / "layers.json")],
                         capture_output=True, text=True, timeout=300)
    assert out.returncode == 0, out.stderr
    result = json.loads((tmp_path / "layers.json").read_text())
    assert list(result["layers_us"]) == list(LAYERS)
    assert len(result["products_gflops"]) == len(PRODUCTS)
    columns = {"minigrad", "pytorch"} if importlib.util.find_spec("torch") else {"minigrad"}
    for times in result["layers_us"].values():
        assert set(times) == columns and all(t > 0 for t in times.values())
    assert result["machine"]["cpu"] in out.stdout


@pytest.mark.parametrize("script, flags, says", [
    ("generate.py", ["--tokens", "0"], "--tokens: must be at least 1, got 0"),
    ("generate.py", ["--repeat", "x"], "--repeat: expected a whole number"),
    ("ops.py", ["--json", "{tmp}"], "is a directory"),
    ("ops.py", ["--json", ""], "--json: the path is empty"),
    ("layers.py", ["--repeat", "0"], "--repeat: must be at least 1, got 0"),
    ("train_step.py", ["--load", "-1"], "--load: must be at least 0, got -1"),
    ("train_step.py", ["--json", "{tmp}/missing/r.json"], "does not exist"),
    ("compare_commits.py", ["no-such-commit"], "cannot check out 'no-such-commit'"),
])
def test_bad_input_is_one_error_line_and_exit_2(tmp_path, script, flags, says):
    # checked before anything is measured (a bad --json used to fail only after the run)
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, str(root / "benchmarks" / script),
                          *[f.format(tmp=tmp_path) for f in flags]],
                         capture_output=True, text=True, timeout=120)
    errors = [line for line in out.stderr.splitlines() if "error:" in line]
    assert out.returncode == 2 and len(errors) == 1 and says in errors[0], out.stderr
    assert "Traceback" not in out.stderr


@pytest.mark.skipif(not (Path(__file__).resolve().parent.parent / ".git").exists(),
                    reason="compare_commits checks commits out of this repository's git history")
def test_compare_commits_with_a_bad_head_leaves_no_worktree_behind(tmp_path):
    # the base is checked out first; a head that cannot be must not leave it registered in git
    root = Path(__file__).resolve().parent.parent
    out = subprocess.run([sys.executable, str(root / "benchmarks" / "compare_commits.py"),
                          "HEAD", "no-such-commit"], capture_output=True, text=True, timeout=120,
                         env={**os.environ, "TMPDIR": str(tmp_path)})
    assert out.returncode == 2 and "cannot check out 'no-such-commit'" in out.stderr, out.stderr
    listed = subprocess.run(["git", "-C", str(root), "worktree", "list", "--porcelain"],
                            capture_output=True, text=True, check=True).stdout
    assert str(tmp_path) not in listed
