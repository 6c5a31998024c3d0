"""The training CLI (`python -m train`, `train.sample`, `train.attention`) end to end, on tiny
models and tiny texts so the whole file runs in about a minute on two cores.

Most runs are made in this process through `train.errors.run_cli`, which is what `python -m ...`
calls (`run`, `train_in_process`): starting an interpreter costs more than a tiny run. Real
subprocesses are used where the process itself matters: signals, kill -9, the lock between two
runs, the working directory, the output encoding, a FIFO that could block.
"""
from __future__ import annotations

import contextlib
import errno
import io
import json
import math
import os
import random
import re
import select
import shlex
import shutil
import signal
import subprocess
import sys
import time
import tracemalloc
from pathlib import Path
from types import SimpleNamespace
from typing import Callable, Iterator

import numpy as np
import pytest

import minigrad
import minigrad.ops
import minigrad.serialization
import models.gpt
import train.attention
import train.checkpoint
import train.cli
import train.data
import train.errors
import train.files
import train.parallel
import train.sample
import train.train
from models import GPT
from train.errors import USAGE_EXIT, run_cli

ROOT = Path(__file__).resolve().parents[1]
SHAKESPEARE_VARIABLE = "MINIGRAD_SHAKESPEARE"  # the path of tinyshakespeare.txt, if you have it

TINY = ["--n-layer", "1", "--n-head", "2", "--n-embd", "16", "--block-size", "16",
        "--batch-size", "4", "--eval-iters", "2"]
WORDS = ["the", "cat", "sat", "on", "mat", "dog", "ran", "far"]
OPTIONS = ["--steps", "--batch-size", "--block-size", "--n-layer", "--n-head", "--n-embd",
           "--dropout", "--lr", "--min-lr", "--warmup", "--weight-decay", "--grad-clip",
           "--eval-every", "--eval-iters", "--seed", "--out", "--resume", "--sample-every",
           "--dtype", "--preset"]


def repetitive_text(n_words: int = 500, seed: int = 0) -> str:
    rng = random.Random(seed)
    return " ".join(rng.choice(WORDS) for _ in range(n_words)) + "\n"


def cli(module: str, *args: object, timeout: float = 60, cwd: Path = ROOT,
        env: dict[str, str] | None = None) -> subprocess.CompletedProcess:
    """Run `python -m MODULE ARGS` (from the repository root unless `cwd` says otherwise),
    capturing its text output."""
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, encoding="utf-8", timeout=timeout,
                          env={**os.environ, "PYTHONPATH": str(ROOT), **(env or {})})


def train_in_process(*args: object) -> int:
    return run_cli(train.train.main, list(map(str, args)))


def as_in_a_terminal(ignored: tuple[int, ...] = ()) -> Callable[[], None]:
    """A preexec_fn: the stop signals handled as by a command typed in a terminal, whatever this
    test run inherited (a script's `pytest &` ignores SIGINT, `nohup pytest` SIGHUP), but for
    those `ignored` (as by `nohup`)."""
    def reset() -> None:
        for signum in train.errors.STOP_SIGNALS:
            signal.signal(signum, signal.SIG_IGN if signum in ignored else signal.SIG_DFL)

    return reset


def started(args: list[object], stdout: Path, stderr: Path,
            ignored: tuple[int, ...] = ()) -> subprocess.Popen:
    """`python -m train ARGS` in the background, its output going to two files."""
    with stdout.open("w") as out_f, stderr.open("w") as err_f:
        return subprocess.Popen([sys.executable, "-m", "train", *map(str, args)], cwd=ROOT,
                                stdout=out_f, stderr=err_f, preexec_fn=as_in_a_terminal(ignored))


@contextlib.contextmanager
def reaped(process: subprocess.Popen) -> Iterator[subprocess.Popen]:
    """The block's process, killed at its end if the test left it running (a failed assert)."""
    try:
        yield process
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def wait_for_rows(process: subprocess.Popen, out: Path, rows: int, timeout: float = 60) -> None:
    """Until OUT/metrics.jsonl holds `rows` rows (the loop is running), or fail."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and process.poll() is None:
        written = out / "metrics.jsonl"
        if written.is_file() and written.read_bytes().count(b"\n") >= rows:
            return
        time.sleep(0.02)
    assert False, f"the run did not write {rows} rows (exit code {process.poll()})"


def read_until(stream, pattern: bytes, timeout: float = 60) -> bytes:
    """What a child process wrote into the pipe `stream` until it wrote `pattern` (a regular
    expression), or fail: reads what comes, never waiting for more than there is."""
    received, deadline = b"", time.monotonic() + timeout
    while not re.search(pattern, received):
        assert time.monotonic() < deadline, received
        if select.select([stream], [], [], 0.1)[0]:
            chunk = os.read(stream.fileno(), 4096)
            assert chunk, received  # the end: the process closed the pipe
            received += chunk
    return received


def metrics(out: Path) -> list[dict]:
    return [json.loads(line) for line in (out / "metrics.jsonl").read_text().splitlines()]


def losses(out: Path) -> list[tuple]:
    return [(r["step"], r["train_loss"], r["val_loss"], r["lr"]) for r in metrics(out)]


def arrays(path: Path) -> dict[str, np.ndarray]:
    with np.load(path, allow_pickle=False) as archive:
        return {name: archive[name] for name in archive.files}


def assert_same_arrays(a: dict[str, np.ndarray], b: dict[str, np.ndarray]) -> None:
    assert a.keys() == b.keys()
    for name in a:
        if name.startswith(("model/", "optim/")) or name in ("step", "rng_states"):
            assert np.array_equal(a[name], b[name]), name


def assert_usage_error(result: subprocess.CompletedProcess, *fragments: str) -> str:
    """Exit code 2 and exactly one line on stderr, `error: ...`, naming each fragment."""
    return assert_error(result.returncode, result.stdout, result.stderr, *fragments)


def run(module: str, *args: object) -> subprocess.CompletedProcess:
    """`python -m MODULE ARGS` run in this process, as its __main__ does (without the cost of
    starting an interpreter): its exit code and output."""
    main = {"train": train.train.main, "train.sample": train.sample.main,
            "train.attention": train.attention.main}[module]
    stdout, stderr = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = run_cli(main, list(map(str, args)))
    return subprocess.CompletedProcess([module, *args], code, stdout.getvalue(),
                                       stderr.getvalue())


def assert_error(code: int, stdout: str, stderr: str, *fragments: str) -> str:
    assert code == 2, (stdout, stderr)
    assert "Traceback" not in stderr + stdout
    lines = stderr.strip().splitlines()
    assert len(lines) == 1, stderr
    assert lines[0].startswith("error: "), lines[0]
    for fragment in fragments:
        assert fragment.lower() in lines[0].lower(), (fragment, lines[0])
    return lines[0]


@pytest.fixture
def text_file(tmp_path: Path) -> Path:
    path = tmp_path / "words.txt"
    path.write_text(repetitive_text())
    return path


@pytest.fixture(scope="module")
def trained(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """OUT of a finished tiny run: 2 layers, 2 heads, a 48-character context (for attention)."""
    root = tmp_path_factory.mktemp("trained")
    data = root / "words.txt"
    data.write_text(repetitive_text())
    out = root / "out"
    assert train_in_process(data, "--out", out, "--n-layer", "2", "--n-head", "2", "--n-embd",
                            "16", "--block-size", "48", "--batch-size", "4", "--eval-iters",
                            "2", "--steps", "40", "--eval-every", "20", "--lr", "1e-2",
                            "--warmup", "0") == 0
    return out


@pytest.fixture
def previous_run(trained: Path, tmp_path: Path) -> Path:
    """A copy of a finished run's OUT, to check that failing commands leave it untouched."""
    out = tmp_path / "previous"
    shutil.copytree(trained, out)
    return out


def snapshot(out: Path) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(out.iterdir()) if p.is_file()}


# ---- training on a file ----------------------------------------------------------------------

def test_training_on_a_file_writes_checkpoint_metrics_chart_and_sample(text_file, tmp_path):
    out = tmp_path / "out"
    result = cli("train", text_file, "--out", out, *TINY, "--steps", "40", "--eval-every", "10",
                 "--lr", "1e-2", "--warmup", "0")
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr

    saved = arrays(out / "ckpt.npz")  # allow_pickle=False
    assert int(saved["step"]) == 40
    assert any(name.startswith("model/") for name in saved)
    assert any(name.startswith("optim/") for name in saved)
    assert sorted(p.name for p in out.iterdir()) == ["ckpt.npz", "metrics.jsonl"]  # no temp file

    rows = metrics(out)
    assert [r["step"] for r in rows] == [0, 10, 20, 30, 40]  # one line per evaluation
    for r in rows:
        assert set(r) >= {"step", "train_loss", "val_loss", "lr", "ms_per_step", "tokens_per_s"}
        assert math.isfinite(r["train_loss"]) and math.isfinite(r["val_loss"]) and r["lr"] > 0
    for r in rows[1:]:
        assert r["ms_per_step"] > 0 and r["tokens_per_s"] > 0
    # the loss goes down on a repetitive text
    assert rows[-1]["train_loss"] < rows[0]["train_loss"] - 0.5
    assert rows[-1]["val_loss"] < rows[0]["val_loss"] - 0.5

    # the end prints a loss chart and a sample
    assert "Loss (evaluated every 10 steps)" in result.stdout
    assert "o train" in result.stdout and "x val" in result.stdout and "+----" in result.stdout
    assert "A sample from the model:" in result.stdout
    sample = result.stdout.split("A sample from the model:\n", 1)[1].split("\nCheckpoint:")[0]
    assert len(sample) > 100 and set(sample) <= set(text_file.read_text())


@pytest.mark.parametrize("threads,shared_batches", [("1", 0), ("2", 3 * 2 * 2)])
def test_evaluation_is_shared_by_the_workers_as_training_is(text_file, tmp_path, monkeypatch,
                                                            threads, shared_batches):
    """With --threads 2 each evaluation batch is split across the workers (one BLAS thread
    each, as in training); with one thread it runs on the model."""
    shared = []
    loss = train.parallel.DataParallel.loss
    monkeypatch.setattr(train.parallel.DataParallel, "loss",
                        lambda self, x, y: (shared.append(len(x)), loss(self, x, y))[1])
    assert train_in_process(text_file, "--out", tmp_path / "out", *TINY, "--steps", "4",
                            "--eval-every", "2", "--threads", threads) == 0
    # evaluations at steps 0, 2 and 4, each of 2 batches per split
    assert shared == [4] * shared_batches
    assert len(metrics(tmp_path / "out")) == 3


def test_the_speed_logged_is_of_the_training_steps_alone(text_file, tmp_path, monkeypatch):
    """ms_per_step leaves out the evaluations and samples between steps: on a clock that a
    training step advances by 1 ms and every evaluation or sample by 100 s, it reads 1 ms."""
    clock = [0.0]

    def perf_counter() -> float:
        clock[0] += 0.001
        return clock[0]

    def taking_100_s(fn):
        def slow(*args, **kwargs):
            clock[0] += 100
            return fn(*args, **kwargs)
        return slow

    monkeypatch.setattr(train.train, "time", SimpleNamespace(perf_counter=perf_counter,
                                                             monotonic=time.monotonic))
    for name in ("estimate_loss", "sample_text"):
        monkeypatch.setattr(train.train, name, taking_100_s(getattr(train.train, name)))
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "6", "--eval-every", "3",
                            "--sample-every", "2", "--threads", "1") == 0
    rows = metrics(out)
    assert [r["step"] for r in rows] == [0, 3, 6]
    for r in rows[1:]:
        assert r["ms_per_step"] == pytest.approx(1.0)
        assert r["tokens_per_s"] == pytest.approx(4 * 16 * 1000)


def test_no_fused_runs_no_kernel_from_start_to_the_closing_sample(text_file, tmp_path,
                                                                  monkeypatch):
    kernels_run = set()
    apply = minigrad.Function.apply.__func__

    def recording(cls, *inputs, **settings):
        if cls in minigrad.ops.kernels():
            kernels_run.add(cls.__name__)
        return apply(cls, *inputs, **settings)

    monkeypatch.setattr(minigrad.Function, "apply", classmethod(recording))
    for threads in ("1", "2"):
        assert train_in_process(text_file, "--out", tmp_path / threads, *TINY, "--steps", "4",
                                "--eval-every", "2", "--sample-every", "2", "--threads",
                                threads, "--no-fused") == 0
    assert not kernels_run
    assert train_in_process(text_file, "--out", tmp_path / "fused", *TINY, "--steps", "2") == 0
    assert kernels_run  # the recording sees them when they run


def test_without_file_trains_on_the_built_in_corpus_and_says_so(tmp_path):
    out = tmp_path / "out"
    result = cli("train", "--out", out, *TINY, "--eval-iters", "1", "--steps", "2",
                 "--eval-every", "1")
    assert result.returncode == 0, result.stderr
    said = [line for line in result.stdout.splitlines() if "No FILE given" in line]
    assert len(said) == 1
    assert "minigrad's own source" in said[0]
    assert json.loads((out / "metrics.jsonl").read_text().splitlines()[-1])["step"] == 2
    assert json.loads(str(arrays(out / "ckpt.npz")["train_config"]))["data"] is None


def test_help_lists_the_options():
    result = cli("train", "--help")
    assert result.returncode == 0 and result.stderr == ""
    for option in OPTIONS:
        assert option in result.stdout, option
    assert "FILE" in result.stdout


def test_a_text_of_block_size_plus_one_characters_is_enough(tmp_path):
    path = write(tmp_path / "short.txt", "abcdefghijklmnopq")  # 17 = block_size + 1
    assert train_in_process(path, "--out", tmp_path / "out", *TINY, "--steps", "2",
                            "--eval-every", "1") == 0


def test_block_size_1_trains_and_samples(tmp_path):
    path = tmp_path / "ab.txt"
    path.write_text("ab" * 50)
    out = tmp_path / "out"
    result = cli("train", path, "--out", out, "--block-size", "1", "--n-layer", "1",
                 "--n-head", "1", "--n-embd", "8", "--batch-size", "2", "--steps", "2",
                 "--eval-iters", "1")
    assert result.returncode == 0, result.stderr
    sampled = run("train.sample", "--out", out, "--prompt", "a", "--tokens", "5")
    assert sampled.returncode == 0, sampled.stderr
    assert len(sampled.stdout.rstrip("\n")) == 6


# ---- reproducibility and resuming ------------------------------------------------------------

def test_same_seed_same_losses_bit_for_bit_and_another_seed_differs(text_file, tmp_path):
    flags = [*TINY, "--steps", "12", "--eval-every", "4", "--dropout", "0.1"]
    for name, seed in [("a", 7), ("b", 7), ("c", 8)]:
        assert train_in_process(text_file, "--out", tmp_path / name, "--seed", seed, *flags) == 0
    assert losses(tmp_path / "a") == losses(tmp_path / "b")
    assert_same_arrays(arrays(tmp_path / "a" / "ckpt.npz"), arrays(tmp_path / "b" / "ckpt.npz"))
    a, c = losses(tmp_path / "a"), losses(tmp_path / "c")
    assert [r[0] for r in a] == [r[0] for r in c]
    assert all(x[1:3] != y[1:3] for x, y in zip(a, c))


@pytest.mark.parametrize("dropout", ["0.0", "0.2"])
def test_resume_equals_an_uninterrupted_run_bit_for_bit(text_file, tmp_path, dropout):
    flags = [*TINY, "--eval-every", "5", "--dropout", dropout]
    whole, halves = tmp_path / "whole", tmp_path / "halves"
    assert train_in_process(text_file, "--out", whole, *flags, "--steps", "20",
                            "--lr-decay-steps", "20") == 0
    assert train_in_process(text_file, "--out", halves, *flags, "--steps", "10",
                            "--lr-decay-steps", "20") == 0
    assert int(arrays(halves / "ckpt.npz")["step"]) == 10
    assert train_in_process(text_file, "--out", halves, "--resume", "--steps", "20") == 0

    assert [r[0] for r in losses(halves)] == [0, 5, 10, 15, 20]
    assert losses(halves) == losses(whole)
    assert_same_arrays(arrays(halves / "ckpt.npz"), arrays(whole / "ckpt.npz"))


def test_resume_accepts_the_checkpoints_own_seed(text_file, tmp_path):
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "2", "--seed", "7") == 0
    assert train_in_process("--out", out, "--resume", "--steps", "4", "--seed", "7") == 0
    assert train.checkpoint.load(out / "ckpt.npz").step == 4


def test_a_run_stopped_in_its_last_evaluation_resumes_to_finish_it(text_file, tmp_path):
    """Its checkpoint is at the last step but its metrics lack that step's row (the stop cut the
    evaluation short): --resume evaluates it, as the run that was not stopped did; once the
    row is there, resuming again says there is nothing to train."""
    flags = [*TINY, "--steps", "4", "--eval-every", "2"]
    stopped, whole = tmp_path / "stopped", tmp_path / "whole"
    assert train_in_process(text_file, "--out", whole, *flags) == 0
    assert train_in_process(text_file, "--out", stopped, *flags) == 0
    metrics = stopped / "metrics.jsonl"
    metrics.write_text("".join(metrics.read_text().splitlines(keepends=True)[:-1]))
    assert [row[0] for row in losses(stopped)] == [0, 2]
    assert train_in_process("--out", stopped, "--resume") == 0
    assert losses(stopped) == losses(whole)
    assert_usage_error(run("train", "--out", stopped, "--resume"), "already at step 4")


def test_resume_refuses_a_preset(previous_run, text_file):
    before = snapshot(previous_run)
    result = run("train", text_file, "--out", previous_run, "--resume", "--preset",
                 "baby-shakespeare", "--steps", "60")
    assert_usage_error(result, "--preset", "resumed")
    assert snapshot(previous_run) == before


def test_what_resume_cannot_change_is_what_its_help_says(previous_run):
    """--help said that the architecture and --seed cannot change; --dtype cannot either."""
    before = snapshot(previous_run)
    for flags, fragment in [(["--n-embd", "32"], "--n-embd 16"), (["--seed", "7"], "--seed"),
                            (["--dtype", "float64"], "--dtype float32")]:
        result = run("train", "--out", previous_run, "--resume", "--steps", "60", *flags)
        assert_usage_error(result, fragment)
    assert snapshot(previous_run) == before
    help_text = " ".join(cli("train", "--help").stdout.split())
    resume = help_text[help_text.index("--resume continue"):help_text.index("--overwrite start")]
    assert "its architecture, --dtype and --seed cannot change" in resume, resume


def test_resume_with_a_smaller_batch_takes_fewer_threads_unless_told(text_file, tmp_path):
    """The run's --threads is kept, at most one per sequence: --batch-size 1 alone was refused
    with "--threads must be from 1 to --batch-size, got 4", a flag the user had not given."""
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "2",
                            "--threads", "4") == 0
    assert train_in_process("--out", out, "--resume", "--steps", "4", "--batch-size", "1") == 0
    assert train.checkpoint.load(out / "ckpt.npz").config.threads == 1
    assert_usage_error(run("train", "--out", out, "--resume", "--steps", "6", "--threads", "2"),
                       "--threads must be from 1 to --batch-size, got 2")


@pytest.mark.parametrize("dropout", ["0.1", "0"])
def test_resume_with_other_threads_says_so_when_dropout_makes_it_matter(text_file, tmp_path,
                                                                      dropout):
    """Each thread draws its own dropout masks (seed, step, thread): a resume on another thread
    count continues, but not bit for bit; with dropout 0 the threads change nothing to say."""
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "2", "--threads", "2",
                            "--dropout", dropout) == 0
    result = run("train", "--out", out, "--resume", "--steps", "4", "--threads", "1")
    assert result.returncode == 0, result.stderr
    warnings = [line for line in result.stderr.splitlines() if line.startswith("warning:")]
    if dropout == "0":
        assert warnings == []
    else:
        assert len(warnings) == 1 and "--threads 1" in warnings[0] and "had 2" in warnings[0]
        assert "bit for bit" in warnings[0]
    # a resume refused for another reason is that one error line alone: no warning before it
    for refused in (["--steps", "4"], ["--steps", "6", "--dtype", "float64"]):
        result = run("train", "--out", out, "--resume", "--threads", "2", *refused)
        assert_usage_error(result)


def test_resume_remembers_the_encoding(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes(("caf\xe9 na\xefve " * 60).encode("latin-1"))
    out = tmp_path / "out"
    assert train_in_process(path, "--encoding", "latin-1", "--out", out, *TINY,
                            "--steps", "4", "--eval-every", "2") == 0
    assert train_in_process("--out", out, "--resume", "--steps", "6") == 0  # no --encoding
    assert [r["step"] for r in metrics(out)] == [0, 2, 4, 6]


def test_resume_after_the_text_moved_says_to_give_its_new_path(text_file, tmp_path):
    out, moved = tmp_path / "out", tmp_path / "moved.txt"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "2") == 0
    text_file.rename(moved)
    assert_usage_error(run("train", "--out", out, "--resume", "--steps", "4"),
                       str(text_file), "new path", "FILE", "--resume")
    assert train_in_process(moved, "--out", out, "--resume", "--steps", "4") == 0
    assert [r["step"] for r in metrics(out)][-1] == 4


def test_resume_skips_a_metrics_line_cut_short_by_a_crash(text_file, tmp_path):
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "4",
                            "--eval-every", "2") == 0
    with (out / "metrics.jsonl").open("a") as f:
        f.write('{"step": 6, "train_lo')
    assert train_in_process("--out", out, "--resume", "--steps", "6") == 0
    assert [r["step"] for r in metrics(out)] == [0, 2, 4, 6]


def test_resume_from_step_0_does_not_repeat_its_row(text_file, tmp_path, monkeypatch):
    out = tmp_path / "out"
    real_write, calls = minigrad.serialization._write_npz, []

    def fail_second_save(file, arrays):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real_write(file, arrays)

    monkeypatch.setattr(minigrad.serialization, "_write_npz", fail_second_save)
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "4",
                            "--eval-every", "2") == 2
    monkeypatch.undo()
    assert train_in_process(text_file, "--out", out, "--resume") == 0
    assert [r["step"] for r in metrics(out)] == [0, 2, 4]


# ---- checkpoints survive crashes -------------------------------------------------------------

@pytest.mark.parametrize("crash", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_crash_mid_write_keeps_the_previous_checkpoint(trained, tmp_path, monkeypatch, crash):
    path = tmp_path / "ckpt.npz"
    shutil.copy(trained / "ckpt.npz", path)
    before = path.read_bytes()
    ckpt = train.checkpoint.load(path)
    ckpt.step += 1
    ckpt.optim_state["step"] = np.array(ckpt.step)

    def write_then_crash(file, arrays):
        file.write(b"PK\x03\x04 half an archive")
        raise crash

    monkeypatch.setattr(minigrad.serialization, "_write_npz", write_then_crash)
    with pytest.raises(type(crash)):
        train.checkpoint.save(path, ckpt)
    monkeypatch.undo()

    assert path.read_bytes() == before
    assert int(arrays(path)["step"]) == 40
    assert train.checkpoint.load(path).step == 40
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.npz"]  # no temp file left behind

    train.checkpoint.save(path, ckpt)  # and an undisturbed save replaces it
    assert train.checkpoint.load(path).step == 41
    assert [p.name for p in tmp_path.iterdir()] == ["ckpt.npz"]


def test_a_crash_while_training_saves_keeps_the_last_checkpoint(text_file, tmp_path,
                                                                monkeypatch, capsys):
    out = tmp_path / "out"
    real_write, calls = minigrad.serialization._write_npz, []

    def write_failing_the_second_time(file, arrays):
        calls.append(1)
        if len(calls) == 2:
            file.write(b"some bytes")
            raise OSError(28, "No space left on device")
        return real_write(file, arrays)

    monkeypatch.setattr(minigrad.serialization, "_write_npz", write_failing_the_second_time)
    code = train_in_process(text_file, "--out", out, *TINY, "--steps", "10", "--eval-every", "5")
    monkeypatch.undo()
    assert code == 2
    error = capsys.readouterr().err
    assert "error: cannot write the checkpoint" in error and "No space left" in error
    assert "last good checkpoint (step 0) is kept" in error
    assert train.checkpoint.load(out / "ckpt.npz").step == 0
    assert sorted(p.name for p in out.iterdir()) == ["ckpt.npz", "metrics.jsonl"]

    # the error names the command that continues the run, and it does, from any directory
    command = re.search(r"continue with: (python -m train .*)$", error.strip())
    assert command, error
    words = shlex.split(command[1])
    assert words[:3] == ["python", "-m", "train"] and words[-1] == "--resume", words
    monkeypatch.chdir(tmp_path.parent)
    assert train_in_process(*words[3:]) == 0
    assert train.checkpoint.load(out / "ckpt.npz").step == 10


def test_a_failed_first_write_does_not_say_to_resume(text_file, tmp_path):
    """With no checkpoint written there is nothing to resume: the advice is to run again."""
    out = tmp_path / "out"
    (out / "metrics.jsonl").mkdir(parents=True)  # a write that fails, and that --overwrite keeps
    result = run("train", text_file, "--out", out, *TINY, "--steps", "2", "--overwrite")
    assert result.returncode == 2
    error = result.stderr.strip().splitlines()[-1]
    assert "no checkpoint was written" in error and "run the command again" in error, error
    assert "--resume" not in error


def test_the_advice_after_a_failed_first_checkpoint_works(text_file, tmp_path, monkeypatch,
                                                          capsys):
    """Step 0's metrics row is written before its checkpoint: after that checkpoint fails, the
    same command is refused ("already holds a run"), so the advice must say --overwrite."""
    def full_disk(file, arrays):
        raise OSError(28, "No space left on device")

    command = [text_file, "--out", tmp_path / "out", *TINY, "--steps", "2"]
    monkeypatch.setattr(minigrad.serialization, "_write_npz", full_disk)
    assert train_in_process(*command) == 2
    monkeypatch.undo()
    error = capsys.readouterr().err.strip().splitlines()[-1]
    assert "no checkpoint was written" in error, error
    assert "run the command again with --overwrite" in error, error
    assert train_in_process(*command) == 2  # as it was: "already holds a run"
    assert train_in_process(*command, "--overwrite") == 0


# ---- Ctrl-C, SIGTERM, SIGHUP -----------------------------------------------------------------

@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP],
                         ids=lambda s: signal.Signals(s).name)
def test_a_stop_signal_saves_says_how_to_resume_and_resume_continues(text_file, tmp_path,
                                                                     signum):
    """Ctrl-C, and what `timeout`, schedulers and `docker stop` (SIGTERM) or a closed terminal
    (SIGHUP) send: the step finishes, a checkpoint is saved, the exit code is 128 + signal."""
    out = tmp_path / "out"
    stdout, stderr = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    process = started([text_file, "--out", out, *TINY, "--steps", "1000000", "--eval-every",
                       "50"], stdout, stderr)
    with reaped(process):
        wait_for_rows(process, out, 2)  # the evaluations at steps 0 and 50: the loop is running
        process.send_signal(signum)
        returncode = process.wait(timeout=30)
    printed, errors = stdout.read_text(), stderr.read_text()
    assert returncode == 128 + signum, (printed, errors)
    assert "Traceback" not in errors
    stopped = int(re.search(r"Interrupted \(\w+\) at step (\d+);", printed)[1])
    assert 50 <= stopped < 1000000
    assert train.checkpoint.load(out / "ckpt.npz").step == stopped
    assert [r["step"] for r in metrics(out)][-1] <= stopped
    assert not (out / ".minigrad-train.lock").exists()

    # the printed command resumes the run, from any directory
    hint = printed.strip().splitlines()[-1].strip()
    assert hint.startswith("python -m train --out ") and hint.endswith(" --resume")
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = subprocess.run(f"{hint} --steps {stopped + 3}", shell=True, cwd=elsewhere,
                            capture_output=True, text=True, executable="/bin/bash",
                            env={**os.environ, "PYTHONPATH": str(ROOT)}, timeout=60)
    assert result.returncode == 0, result.stderr
    assert f"Resuming from {out / 'ckpt.npz'} at step {stopped}" in result.stdout
    assert train.checkpoint.load(out / "ckpt.npz").step == stopped + 3
    assert metrics(out)[-1]["step"] == stopped + 3


def test_a_long_evaluation_shows_progress_and_a_stop_signal_does_not_wait_for_it(text_file,
                                                                                 tmp_path):
    """SIGTERM during an evaluation stops the run at once (it would have taken hours here) with
    a checkpoint; --resume then evaluates that step, as the run that was not stopped did."""
    out, whole = tmp_path / "out", tmp_path / "whole"
    flags = [*TINY, "--steps", "4", "--eval-every", "2"]
    stdout, stderr = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    process = started([text_file, "--out", out, *flags, "--eval-iters", "100000000"], stdout,
                      stderr)
    with reaped(process):
        deadline = time.monotonic() + 60
        while "evaluating" not in stderr.read_text() and time.monotonic() < deadline:
            time.sleep(0.05)
        assert "evaluating" in stderr.read_text(), "no progress shown while evaluating"
        process.send_signal(signal.SIGTERM)
        returncode = process.wait(timeout=20)
    assert returncode == 128 + signal.SIGTERM, stderr.read_text()
    assert "Interrupted (SIGTERM) at step 0" in stdout.read_text()
    assert train.checkpoint.load(out / "ckpt.npz").step == 0

    assert train_in_process("--out", out, "--resume", "--eval-iters", "2") == 0
    assert train_in_process(text_file, "--out", whole, *flags) == 0
    assert losses(out) == losses(whole)
    assert_same_arrays(arrays(out / "ckpt.npz"), arrays(whole / "ckpt.npz"))


def test_a_run_started_under_nohup_keeps_training_when_its_terminal_closes(text_file, tmp_path):
    """nohup starts a run with SIGHUP ignored so that it outlives its terminal: that SIGHUP
    does not stop it; SIGTERM still does, cleanly."""
    out = tmp_path / "out"
    process = started([text_file, "--out", out, *TINY, "--steps", "1000000", "--eval-every",
                       "20"], tmp_path / "stdout.txt", tmp_path / "stderr.txt",
                      ignored=(signal.SIGHUP,))
    with reaped(process):
        wait_for_rows(process, out, 1)
        process.send_signal(signal.SIGHUP)
        wait_for_rows(process, out, 3)  # still training
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 128 + signal.SIGTERM
    assert "Interrupted (SIGTERM)" in (tmp_path / "stdout.txt").read_text()


def test_sighup_saves_and_exits_129_when_the_reader_of_its_pipe_is_gone(text_file, tmp_path):
    """`python -m train FILE | tee log` in a terminal that closes: tee gets SIGHUP too, and the
    run's last lines, written to its pipe, must not turn the clean stop into a crash."""
    out = tmp_path / "out"
    with (tmp_path / "stderr.txt").open("w") as stderr:
        process = subprocess.Popen(
            [sys.executable, "-m", "train", text_file, "--out", out, *TINY, "--steps", "1000000",
             "--eval-every", "1000000"], cwd=ROOT, stdout=subprocess.PIPE, stderr=stderr,
            text=True, preexec_fn=as_in_a_terminal())
    with reaped(process):
        for line in process.stdout:  # until the loop runs; nothing more is printed before a stop
            if line.startswith("step 0:"):
                break
        process.stdout.close()  # tee is gone
        process.send_signal(signal.SIGHUP)
        assert process.wait(timeout=30) == 128 + signal.SIGHUP
    assert "Traceback" not in (tmp_path / "stderr.txt").read_text()
    assert train.checkpoint.load(out / "ckpt.npz").step >= 0  # saved


def test_a_reader_that_goes_away_stops_the_output_with_exit_141(trained):
    """`python -m train.sample ... | head`: the code of a program that SIGPIPE stopped, not the
    1 of a diverged run, and no traceback."""
    process = subprocess.Popen([sys.executable, "-m", "train.sample", "--out", trained,
                                "--tokens", "1000000"], cwd=ROOT, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
    process.stdout.read(10)
    process.stdout.close()
    assert process.wait(timeout=60) == 141
    assert process.stderr.read() == b""


@pytest.mark.parametrize("signum", [signal.SIGINT, signal.SIGTERM],
                         ids=lambda s: signal.Signals(s).name)
@pytest.mark.parametrize("module", ["train", "train.sample", "train.attention"])
def test_a_stop_signal_while_the_modules_import_ends_quietly(module, signum, tmp_path):
    """A Ctrl-C in the first second, while numpy and the rest import, ends as one later does
    ("interrupted", exit 130); SIGTERM ends the process as it ends any (128 + 15 to a shell);
    never a traceback. The imports are held at a known point by a stand-in threadpoolctl that
    waits: a signal sent after a guessed delay could land in Python's own start-up (site's .pth
    files), before any code of the project runs."""
    marker = tmp_path / "importing"
    (tmp_path / "threadpoolctl.py").write_text(
        "import os, pathlib, time\n"
        "pathlib.Path(os.environ['MINIGRAD_TEST_IMPORTING']).touch()\n"
        "time.sleep(60)\n")
    env = {**os.environ, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}",
           "MINIGRAD_TEST_IMPORTING": str(marker)}
    process = subprocess.Popen([sys.executable, "-m", module, "--help"], cwd=ROOT, env=env,
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                               preexec_fn=as_in_a_terminal())
    with reaped(process):
        deadline = time.monotonic() + 30
        while not marker.exists() and process.poll() is None and time.monotonic() < deadline:
            time.sleep(0.01)
        assert marker.exists(), process.communicate()
        process.send_signal(signum)
        stdout, stderr = process.communicate(timeout=30)
    assert "Traceback" not in stderr, stderr
    assert stdout == ""
    if signum == signal.SIGINT:
        assert (process.returncode, stderr.strip()) == (130, "interrupted")
    else:
        assert (process.returncode, stderr) == (-signum, "")


@pytest.mark.parametrize("gone", ["stdout", "stderr"])
def test_a_reader_that_goes_away_mid_run_saves_the_latest_step_then_exits_141(gone, text_file,
                                                                              tmp_path):
    """`python -m train FILE | head` (stdout: a sample every 5 steps) or `2>&1 | head` (stderr:
    the progress bar): as on Ctrl-C, the step finishes and is saved, here long before the next
    evaluation would have saved it; then the run ends quietly, exit code 141."""
    out, kept = tmp_path / "out", tmp_path / f"not-{gone}.txt"
    with kept.open("w") as kept_file:
        pipe, file = (subprocess.PIPE, kept_file)
        process = subprocess.Popen(
            [sys.executable, "-m", "train", text_file, "--out", out, *TINY, "--steps", "1000000",
             "--eval-every", "1000000", "--sample-every", "5"], cwd=ROOT,
            stdout=pipe if gone == "stdout" else file, stderr=pipe if gone == "stderr" else file,
            preexec_fn=as_in_a_terminal())
    reader = process.stdout if gone == "stdout" else process.stderr
    with reaped(process):
        # the line of step 0's evaluation, or the bar past step 0: the loop is running
        read_until(reader, rb"step 0:.*\n" if gone == "stdout" else rb"[1-9]\d*/1000000")
        reader.close()  # head is gone
        assert process.wait(timeout=30) == 141
    saved = train.checkpoint.load(out / "ckpt.npz").step
    assert saved > 0  # the only evaluation was at step 0
    assert [r["step"] for r in metrics(out)] == [0]
    left = kept.read_text()
    assert "Traceback" not in left
    if gone == "stdout":  # the progress bar, on stderr, ends at the step saved
        assert int(re.findall(r"(\d+)/1000000", left)[-1]) == saved
    else:
        assert f"Interrupted (SIGPIPE) at step {saved}; saved" in left
    assert train_in_process("--out", out, "--resume", "--steps", saved + 2) == 0


@pytest.mark.parametrize("closed", [1, 2], ids=["stdout", "stderr"])
def test_a_run_with_its_output_closed_trains_to_the_end(closed, text_file, tmp_path):
    """`python -m train FILE >&-`: Python's sys.stdout is None then, and writes nothing."""
    def start_closed() -> None:
        as_in_a_terminal()()
        os.close(closed)

    out = tmp_path / "out"
    result = subprocess.run([sys.executable, "-m", "train", text_file, "--out", out, *TINY,
                             "--steps", "4", "--eval-every", "2"], cwd=ROOT, capture_output=True,
                            preexec_fn=start_closed, timeout=60)
    assert result.returncode == 0, result.stderr
    assert [r["step"] for r in metrics(out)] == [0, 2, 4]


@pytest.mark.parametrize("module", ["train.sample", "train.attention"])
def test_the_other_commands_with_stdout_closed_end_without_a_traceback(module, trained):
    result = subprocess.run([sys.executable, "-m", module, "--out", trained, "--text", "the"]
                            if module == "train.attention" else
                            [sys.executable, "-m", module, "--out", trained, "--tokens", "5"],
                            cwd=ROOT, capture_output=True, timeout=60,
                            preexec_fn=lambda: os.close(1))
    assert result.returncode == 0, result.stderr
    assert result.stderr == b""


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full (not Linux)")
@pytest.mark.parametrize("module", ["train", "train.sample", "train.attention"])
def test_output_to_a_full_disk_is_one_line_not_a_traceback(module, trained, text_file, tmp_path):
    """`> log` on a full disk (here /dev/full, where every write fails with ENOSPC)."""
    args = {"train": [text_file, "--out", tmp_path / "out", *TINY, "--steps", "2"],
            "train.sample": ["--out", trained, "--tokens", "5"],
            "train.attention": ["--out", trained, "--text", "the"]}[module]
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT,
                                stdout=full, stderr=subprocess.PIPE, text=True, timeout=60,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert_error(result.returncode, "", result.stderr, "cannot write to stdout",
                 "No space left on device")


class FillsUp(io.StringIO):
    """An output on a disk that fills up once `room` characters were written to it."""

    def __init__(self, room: int) -> None:
        super().__init__()
        self.room = room

    def write(self, text: str) -> int:
        if self.tell() + len(text) > self.room:
            raise OSError(errno.ENOSPC, "No space left on device")
        return super().write(text)


@pytest.mark.parametrize("stream", ["stdout", "stderr"])
def test_output_that_fails_mid_run_saves_and_says_how_to_continue(stream, text_file, tmp_path,
                                                                  monkeypatch):
    """`> log` (the samples on stdout) or `2> log` (the progress bar) on a disk that fills up
    during training: as on a stop signal the step is saved, long before the next evaluation
    would have saved it, and the error says what is kept and the command that continues."""
    out = tmp_path / "out"
    output = FillsUp(room=2000)
    other = io.StringIO()
    stdout, stderr = (output, other) if stream == "stdout" else (other, output)
    with contextlib.redirect_stdout(stdout), contextlib.redirect_stderr(stderr):
        code = train_in_process(text_file, "--out", out, *TINY, "--steps", "1000000",
                                "--eval-every", "1000000", "--sample-every", "1")
    assert code == USAGE_EXIT
    printed = (stderr if stream == "stdout" else other).getvalue()
    error = printed.strip().splitlines()[-1] if stream == "stdout" else ""
    saved = train.checkpoint.load(out / "ckpt.npz").step
    assert saved > 0  # the only evaluation was at step 0
    assert [r["step"] for r in metrics(out)] == [0]
    if stream == "stderr":  # the error line cannot be written either: the exit code tells
        return
    assert_error(code, "", error, f"cannot write to {stream}", "No space left on device",
                 f"last good checkpoint (step {saved}) is kept",
                 f"continue with: python -m train --out {shlex.quote(str(out))} --resume")
    assert "Traceback" not in printed
    assert train_in_process("--out", out, "--resume", "--steps", saved + 2) == 0


@pytest.mark.skipif(not Path("/dev/full").exists(), reason="no /dev/full (not Linux)")
@pytest.mark.parametrize("module", ["train", "train.sample"])
@pytest.mark.parametrize("bad_input", [False, True])
def test_stdout_and_stderr_on_a_full_disk_still_exit_2(module, bad_input, trained, text_file,
                                                        tmp_path):
    """`> log 2>&1` on a full disk: the error: line cannot be written either, but the exit code
    still says what happened (it was 1, from the traceback of the failed error: line)."""
    missing = tmp_path / "missing"
    args = {"train": [text_file, "--out", tmp_path / "out", *TINY, "--steps", "2"]
            + (["--steps", "0"] if bad_input else []),
            "train.sample": ["--out", missing if bad_input else trained, "--tokens", "5"]}[module]
    with open("/dev/full", "w") as full:
        result = subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT,
                                stdout=full, stderr=full, timeout=60,
                                env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == USAGE_EXIT


def test_ctrl_c_outside_the_training_loop_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(argv):
        raise KeyboardInterrupt

    assert run_cli(interrupted, []) == 130
    assert "Traceback" not in capsys.readouterr().err


def test_a_second_ctrl_c_says_what_is_kept_and_how_to_continue(text_file, tmp_path, monkeypatch):
    """The first Ctrl-C finishes the step and saves; a second stops at once (KeyboardInterrupt),
    wherever the run is: here while step 4's checkpoint is written, so step 2's is what is kept,
    and --resume goes on from it. It said "interrupted" alone."""
    out = tmp_path / "out"
    real_save = train.checkpoint.Saver.save

    def ctrl_c_twice(saver, ckpt, row=None):
        if ckpt.step == 4:
            raise KeyboardInterrupt
        real_save(saver, ckpt, row)

    monkeypatch.setattr(train.checkpoint.Saver, "save", ctrl_c_twice)
    result = run("train", text_file, "--out", out, *TINY, "--steps", "8", "--eval-every", "2")
    monkeypatch.undo()
    assert result.returncode == 130
    [said] = [line for line in result.stderr.splitlines() if line.startswith("interrupted")]
    assert "Traceback" not in result.stderr
    assert f"the last good checkpoint (step 2) is kept in {out / 'ckpt.npz'}" in said, said
    command = said.split("continue with: ", 1)[1]
    assert shlex.split(command)[:3] == ["python", "-m", "train"]
    assert train_in_process(*shlex.split(command)[3:]) == 0
    assert [r["step"] for r in metrics(out)] == [0, 2, 4, 6, 8]


# ---- bad input: one line, exit code 2, nothing overwritten -----------------------------------

LATIN1 = repetitive_text(100).encode() + "\ncaf\xe9 au lait\n".encode("latin-1")
LATIN1_BAD_BYTE = LATIN1.index(b"\xe9")  # on line 3


def write(path: Path, content: str | bytes) -> Path:
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


def not_utf8(tmp_path: Path) -> Path:
    return write(tmp_path / "latin1.txt", LATIN1)


BAD_TRAIN_INPUTS = {
    # name: (make the FILE argument from tmp_path, extra flags, fragments of the message)
    "missing file": (lambda t: t / "missing.txt", ["--overwrite"], ["missing.txt", "no such"]),
    "directory": (lambda t: t, ["--overwrite"], ["directory"]),
    "empty file": (lambda t: write(t / "empty.txt", ""), ["--overwrite"], ["empty"]),
    "shorter than a block": (lambda t: write(t / "short.txt", "x" * 16), ["--overwrite"],
                             ["16 characters", "--block-size 16", "17"]),
    "not utf-8": (not_utf8, ["--overwrite"],
                  [f"byte {LATIN1_BAD_BYTE}", "line 3", "utf-8", "--encoding"]),
    # a decoder whose UnicodeError is no UnicodeDecodeError, with no byte to name
    "not punycode": (lambda t: t / "words.txt", ["--overwrite", "--encoding", "punycode"],
                     ["words.txt is not valid punycode", "--encoding"]),
    # FILE is a file of OUT that the run replaces (previous_run is tmp_path / "previous")
    "FILE is the checkpoint": (lambda t: t / "previous" / "ckpt.npz",
                               ["--overwrite", "--encoding", "latin-1"],
                               ["ckpt.npz", "this run writes", "--resume"]),
    "FILE is the metrics": (lambda t: t / "previous" / "metrics.jsonl", ["--overwrite"],
                            ["metrics.jsonl", "this run writes"]),
    "FILE links to the metrics": (lambda t: (t / "link.txt").symlink_to(
        t / "previous" / "metrics.jsonl") or t / "link.txt", ["--overwrite"],
        ["link.txt", "metrics.jsonl", "this run writes"]),
    "n_embd % n_head": (None, ["--overwrite", "--n-embd", "15"],
                        ["--n-embd (15)", "--n-head (2)"]),
    "steps 0": (None, ["--overwrite", "--steps", "0"], ["--steps", ">= 1", "got 0"]),
    "batch size -1": (None, ["--overwrite", "--batch-size", "-1"], ["--batch-size", "-1"]),
    "n_layer 0": (None, ["--overwrite", "--n-layer", "0"], ["--n-layer", "0"]),
    "no --resume/--overwrite": (None, [], ["already", "--resume", "--overwrite"]),
    "incompatible resume": (None, ["--resume", "--steps", "60", "--n-layer", "3"],
                            ["--n-layer 2", "--out"]),
    # another seed would draw other dropout masks and evaluation batches: no longer bit for bit
    "resume with another seed": (None, ["--resume", "--steps", "60", "--seed", "7"],
                                 ["trained with --seed 1337", "drop those flags",
                                  "same values"]),
    "resume already done": (None, ["--resume", "--steps", "40"], ["step 40", "--steps"]),
    "resume and overwrite": (None, ["--resume", "--overwrite", "--steps", "60"],
                             ["--overwrite", "--resume"]),
}


@pytest.mark.parametrize("case", BAD_TRAIN_INPUTS, ids=str)
def test_bad_input_is_one_line_exit_2_and_overwrites_nothing(case, previous_run, text_file,
                                                             tmp_path):
    make_file, flags, fragments = BAD_TRAIN_INPUTS[case]
    data = make_file(tmp_path) if make_file else text_file
    if "--resume" in flags:
        args = [data, "--out", previous_run, *flags]
    else:  # the tiny flags, then the bad ones (later flags win)
        args = [data, "--out", previous_run, *TINY, "--steps", "5", *flags]
    before = snapshot(previous_run)
    assert_usage_error(run("train", *args), *fragments)
    assert snapshot(previous_run) == before


def test_a_file_that_is_not_utf8_trains_with_its_encoding(tmp_path):
    path = not_utf8(tmp_path)
    assert_usage_error(run("train", path, "--out", tmp_path / "a", *TINY, "--steps", "1"),
                       "--encoding")
    result = run("train", path, "--out", tmp_path / "b", *TINY, "--steps", "2", "--eval-every",
                 "1", "--encoding", "latin-1")
    assert result.returncode == 0, result.stderr
    assert "é" in train.checkpoint.load(tmp_path / "b" / "ckpt.npz").vocab


def test_resume_without_a_checkpoint(text_file, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "metrics.jsonl").write_text('{"step": 0}\n')
    assert_usage_error(run("train", text_file, "--out", out, "--resume"),
                       "no checkpoint", str(out / "ckpt.npz"))
    assert snapshot(out) == {"metrics.jsonl": b'{"step": 0}\n'}


def damaged_copies(good: bytes) -> dict[str, bytes]:
    header = bytearray(good)
    header[good.index(b"PK\x01\x02") + 10] = 99  # a compression method zipfile does not know
    return {"truncated": good[: len(good) // 2],
            "random bytes": np.random.default_rng(0).bytes(len(good)),
            "a text file": b"hello\n",
            "an empty file": b"",
            "a damaged zip header": bytes(header)}


@pytest.mark.parametrize("damage", ["truncated", "random bytes", "a text file", "an empty file",
                                    "a damaged zip header", "another npz", "no weights"],
                         ids=str)
def test_a_corrupt_checkpoint_is_refused(damage, previous_run, text_file, tmp_path):
    ckpt = previous_run / "ckpt.npz"
    named = str(ckpt)
    if damage in ("another npz", "no weights"):
        fields = {"weights": np.zeros(3)} if damage == "another npz" else {
            k: v for k, v in arrays(ckpt).items() if not k.startswith("model/")}
        with (tmp_path / "other.npz").open("wb") as f:
            np.savez(f, **fields)
        ckpt.write_bytes((tmp_path / "other.npz").read_bytes())
        named = named if damage == "another npz" else "damaged"
    else:
        ckpt.write_bytes(damaged_copies(ckpt.read_bytes())[damage])
    before = snapshot(previous_run)
    message = assert_usage_error(run("train", text_file, "--out", previous_run, "--resume",
                                     "--steps", "60"), named)
    assert "unsafe" not in message  # numpy's advice for a file it takes for a pickle
    assert snapshot(previous_run) == before
    assert_usage_error(run("train.sample", "--checkpoint", ckpt, "--tokens", "5"), named)
    assert_usage_error(run("train.attention", "--out", previous_run, "--text", "the"), named)


def test_a_file_without_read_permission_says_so(trained, text_file, monkeypatch):
    """(Faked: the tests may run as root, who may read anything.) A checkpoint that cannot be
    opened is not called truncated or foreign."""
    def denied(*args, **kwds):
        raise PermissionError(13, "Permission denied")

    monkeypatch.setattr(train.checkpoint, "open", denied, raising=False)
    error = assert_usage_error(run("train.sample", "--out", trained), "Permission denied",
                               "chmod")
    assert "truncated" not in error
    with monkeypatch.context() as patched:
        patched.setattr(os, "open", denied)
        with pytest.raises(train.errors.UsageError, match="Permission denied.*you can read"):
            train.data.read_text(text_file)


def test_a_bad_file_creates_no_out_directory(tmp_path):
    out = tmp_path / "new-out"
    result = run("train", tmp_path / "missing.txt", "--out", out)
    assert_usage_error(result, "missing.txt")
    assert not out.exists()


def test_an_unwritable_out_is_refused(text_file, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert_usage_error(run("train", text_file, "--out", blocker / "out", *TINY, "--steps", "1"),
                       "--out", str(blocker / "out"))
    assert blocker.read_text() == "not a directory"


@pytest.mark.parametrize("where", ["under a file", "a file", "read-only"])
def test_a_bad_out_is_refused_before_the_slow_work_and_creates_nothing(where, text_file,
                                                                       tmp_path, monkeypatch):
    """Reading FILE and building the model may take minutes: an --out that cannot be written
    is refused before either, and nothing is created on disk."""
    def too_late(*args, **kwds):
        raise AssertionError("--out is checked only after the slow work")

    for slow in ("read_text", "default_corpus", "GPT"):
        monkeypatch.setattr(train.train, slow, too_late)
    blocker, locked = tmp_path / "a-file", tmp_path / "locked"
    blocker.write_text("not a directory")
    locked.mkdir()
    locked.chmod(0o555)
    if os.access(locked, os.W_OK):  # root may write anywhere: fake what any other user gets
        real_access = os.access
        monkeypatch.setattr(os, "access", lambda path, mode, **kwds: Path(path) != locked and
                            real_access(path, mode, **kwds))
    out, fragment = {"under a file": (blocker / "out", f"{blocker} is a file"),
                     "a file": (blocker, "is a file, not a training directory"),
                     "read-only": (locked / "new" / "out", f"Permission denied: {locked}")}[where]
    before = {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")}
    for file in ([text_file], []):  # a text, or the built-in corpus
        assert_usage_error(run("train", *file, "--out", out, *TINY, "--steps", "1"),
                           f"--out {out}", fragment)
    assert {p: p.stat().st_mtime_ns for p in tmp_path.rglob("*")} == before


def test_preset_without_file_says_where_to_get_tiny_shakespeare(tmp_path):
    message = assert_usage_error(run("train", "--preset", "baby-shakespeare", "--out",
                                     tmp_path / "out"), "baby-shakespeare", "FILE")
    assert "shakespeare" in message.lower() and "https://" in message
    assert not (tmp_path / "out" / "ckpt.npz").exists()


def shakespeare() -> Path:
    """tinyshakespeare.txt, from the path in $MINIGRAD_SHAKESPEARE, or skip saying why."""
    path = os.environ.get(SHAKESPEARE_VARIABLE)
    if not path:
        pytest.skip(f"{SHAKESPEARE_VARIABLE} is not set; set it to the path of "
                    f"tinyshakespeare.txt to run this test")
    if not Path(path).is_file():
        pytest.skip(f"{SHAKESPEARE_VARIABLE}={path} is not a file")
    return Path(path)


def test_preset_with_tiny_shakespeare(tmp_path):
    data = shakespeare()
    out = tmp_path / "out"
    assert train_in_process(data, "--preset", "baby-shakespeare", "--out", out, *TINY,
                            "--steps", "20", "--eval-every", "10") == 0
    assert [r["step"] for r in metrics(out)] == [0, 10, 20]
    config = json.loads(str(arrays(out / "ckpt.npz")["train_config"]))
    assert config["beta2"] == 0.99 and config["model"]["n_layer"] == 1  # preset, then flags
    # the preset's 100 warm-up steps would outlast a 20-step run: the usual tenth instead
    assert config["warmup"] == 2


@pytest.mark.parametrize("module,flags,fragment", [
    ("train", ["--grad-clip", "nan"], "--grad-clip"),
    ("train", ["--lr", "inf"], "--lr"),
    ("train.sample", ["--temperature", "nan"], "--temperature"),
    ("train.sample", ["--temperature", "inf"], "--temperature must be a finite number >= 0"),
])
def test_non_finite_numbers_are_refused(trained, text_file, tmp_path, module, flags, fragment):
    where = [text_file, "--out", tmp_path / "new"] if module == "train" else ["--out", trained]
    assert_usage_error(run(module, *where, *flags), fragment)


# ---- a loss that is no longer finite ---------------------------------------------------------

@pytest.mark.parametrize("eval_every", ["1", "5"])
def test_a_diverging_run_stops_and_keeps_the_last_good_checkpoint(text_file, tmp_path,
                                                                   eval_every):
    out = tmp_path / "out"
    result = cli("train", text_file, "--out", out, *TINY, "--steps", "200", "--eval-every",
                 eval_every, "--lr", "1e6", "--grad-clip", "0", "--warmup", "0")
    assert result.returncode not in (0, 2), result.stderr
    assert "Traceback" not in result.stderr and "Warning" not in result.stderr
    message = [line for line in result.stderr.splitlines() if line.startswith("error:")]
    assert len(message) == 1
    assert "loss" in message[0] and "checkpoint" in message[0]
    assert "nan" in message[0] or "inf" in message[0]

    rows = metrics(out)
    assert all(math.isfinite(r["train_loss"]) and math.isfinite(r["val_loss"]) for r in rows)
    kept = train.checkpoint.load(out / "ckpt.npz")
    assert kept.step == rows[-1]["step"] < 200  # the last evaluation that went well
    assert f"(step {kept.step})" in message[0]
    assert all(np.isfinite(w).all() for w in kept.model_state.values())


@pytest.mark.parametrize("grad_clip", ["0", "1.0"])
def test_a_diverged_run_advises_clipping_as_it_was_not_already_done(grad_clip, text_file,
                                                                   tmp_path):
    """With the gradients already clipped (the default, 1.0), "clip the gradients with
    --grad-clip" sent the user to do what the run did: the advice is a lower clip."""
    result = run("train", text_file, "--out", tmp_path / "out", *TINY, "--steps", "4",
                 "--lr", "1e300", "--warmup", "0", "--grad-clip", grad_clip)
    assert result.returncode == 1
    [error] = [line for line in result.stderr.splitlines() if line.startswith("error: ")]
    assert "Lower --lr" in error, error
    advice = ("clip the gradients with --grad-clip." if grad_clip == "0" else
              "clip the gradients harder with a --grad-clip below 1.0.")
    assert error.endswith(advice), error


def test_a_non_finite_evaluation_is_not_saved(text_file, tmp_path, monkeypatch, capsys):
    real = train.train.estimate_loss

    def nan_from_step_4(model, splits, config, step, *stop_and_bar):
        result = real(model, splits, config, step, *stop_and_bar)
        return {k: (math.nan if step >= 4 else v) for k, v in result.items()}

    monkeypatch.setattr(train.train, "estimate_loss", nan_from_step_4)
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "10",
                            "--eval-every", "2") == 1
    assert "the last good checkpoint (step 2)" in capsys.readouterr().err
    assert train.checkpoint.load(out / "ckpt.npz").step == 2
    assert [r["step"] for r in metrics(out)] == [0, 2]


# ---- python -m train.sample ------------------------------------------------------------------

def sample(*args: object) -> str:
    result = run("train.sample", *args)
    assert result.returncode == 0, result.stderr
    return result.stdout


def test_sample_prints_the_prompt_and_n_characters_reproducibly(trained):
    vocab = set(train.checkpoint.load(trained / "ckpt.npz").vocab)
    first = sample("--out", trained, "--prompt", "the ", "--tokens", "60", "--seed", "3")
    assert first.startswith("the ") and first.endswith("\n")
    generated = first[len("the "):-1]
    assert len(generated) == 60 and set(generated) <= vocab
    assert sample("--out", trained, "--prompt", "the ", "--tokens", "60", "--seed", "3") == first
    assert sample("--checkpoint", trained / "ckpt.npz", "--prompt", "the ", "--tokens", "60",
                  "--seed", "3") == first
    assert sample("--out", trained, "--prompt", "the ", "--tokens", "60", "--seed", "4") != first
    assert sample("--out", trained, "--prompt", "dog", "--tokens", "0") == "dog\n"


def test_sample_greedy_and_top_k(trained):
    greedy = sample("--out", trained, "--prompt", "the", "--tokens", "40", "--temperature", "0",
                    "--seed", "1")
    assert len(greedy) == len("the") + 40 + 1
    assert sample("--out", trained, "--prompt", "the", "--tokens", "40", "--temperature", "0",
                  "--seed", "2") == greedy
    # only the likeliest character survives top-k 1, whatever the temperature and seed
    assert sample("--out", trained, "--prompt", "the", "--tokens", "40", "--top-k", "1",
                  "--seed", "5") == greedy
    top3 = sample("--out", trained, "--prompt", "the", "--tokens", "40", "--top-k", "3",
                  "--seed", "5")
    assert len(top3) == len(greedy) and top3.startswith("the")


def test_sampling_runs_blas_on_one_thread(trained, monkeypatch):
    """train.sample and the run's closing sample: one token at a time gains nothing from a second
    BLAS thread, and under load one that waits for a busy core spins (benchmarks/generate.py)."""
    from threadpoolctl import threadpool_info

    def blas_threads() -> set[int]:
        return {lib["num_threads"] for lib in threadpool_info() if lib["user_api"] == "blas"}

    seen: list[set[int]] = []
    forward = GPT.forward
    monkeypatch.setattr(GPT, "forward", lambda self, *a, **k: (seen.append(blas_threads()),
                                                               forward(self, *a, **k))[1])
    before = blas_threads()
    sample("--out", trained, "--prompt", "the", "--tokens", "5", "--seed", "1")
    ckpt = train.checkpoint.load(trained / "ckpt.npz")
    model = GPT(ckpt.config.model)
    train.train.sample_text(model, ckpt.tokenizer(), "the", 5, seed=1)
    assert len(seen) >= 10 and all(threads == {1} for threads in seen), seen
    assert blas_threads() == before  # restored afterwards


def test_sample_errors(trained, tmp_path):
    assert_usage_error(run("train.sample", "--out", trained, "--prompt", "QZ!", "--tokens", "5"),
                       "--prompt", "vocabulary", "Q")
    assert_usage_error(run("train.sample", "--out", tmp_path, "--tokens", "5"),
                       "no checkpoint")
    assert_usage_error(run("train.sample", "--out", trained, "--top-k", "0"), "--top-k")
    # the advice fits the mistake: a checkpoint given as --out, a --checkpoint that is missing
    for module, flags in [("train.sample", []), ("train.attention", ["--text", "the"]),
                          ("train", ["--resume"])]:
        error = assert_usage_error(run(module, "--out", trained / "ckpt.npz", *flags),
                                   "is a file, not a training directory", "--out")
        assert "train one first" not in error
    error = assert_usage_error(run("train.sample", "--checkpoint", tmp_path / "model.npz"),
                               "no checkpoint at", "OUT/ckpt.npz")
    assert f"--out {tmp_path}" not in error  # training there would write ckpt.npz, not model.npz
    # OUT/ckpt.npz a directory: named as it is, not as OUT/ckpt.npz/ckpt.npz "to train first"
    (tmp_path / "ckpt.npz").mkdir()
    for module, flags in [("train.sample", []), ("train.attention", ["--text", "the"]),
                          ("train", ["--resume"])]:
        error = assert_usage_error(run(module, "--out", tmp_path, *flags),
                                   f"{tmp_path / 'ckpt.npz'} is a directory, not a checkpoint")
        assert "ckpt.npz/ckpt.npz" not in error and "train one first" not in error


def test_sample_default_prompt_without_a_newline_in_the_vocabulary(trained):
    result = run("train.sample", "--out", trained, "--tokens", "5", "--seed", "0")
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.rstrip("\n")) == 6  # the vocabulary's first character + 5


# ---- python -m train.attention ---------------------------------------------------------------

TEXT_40 = "the cat sat on the mat the dog ran far o"


def test_attention_prints_a_heatmap_per_head_within_80_columns(trained):
    assert len(TEXT_40) == 40
    result = run("train.attention", "--out", trained, "--text", TEXT_40)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert sum(line.startswith("legend:") for line in lines) == 2  # one per head
    assert [line.split(" (")[0] for line in lines if line.startswith("layer ")] == [
        "layer 1, head 0", "layer 1, head 1"]
    assert sum(line.startswith("t ") for line in lines) == 2 * TEXT_40.count("t")


def test_attention_one_head_of_one_layer(trained):
    result = run("train.attention", "--out", trained, "--text", TEXT_40, "--layer", "0",
                 "--head", "1")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("layer ")][0].startswith("layer 0, head 1")
    assert sum(line.startswith("legend:") for line in lines) == 1
    assert max(len(line) for line in lines) <= 80
    negative = run("train.attention", "--out", trained, "--text", TEXT_40, "--layer", "-2",
                   "--head", "1")
    assert negative.stdout == result.stdout


@pytest.mark.parametrize("flags, fragments", [
    (["--text", "the", "--layer", "2"], ["--layer 2", "2 layers"]),
    (["--text", "the", "--layer", "-3"], ["--layer -3", "give -2 to 1"]),
    (["--text", "the", "--head", "2"], ["--head 2", "2 heads"]),
    (["--text", "the", "--head", "-1"], ["--head -1"]),
    (["--text", "x" * 49], ["49 characters", "48"]),
    (["--text", "the Q"], ["--text", "vocabulary"]),
    (["--text", ""], ["--text", "empty"]),
], ids=["layer", "negative-layer", "head", "negative-head", "too-long", "vocabulary", "empty"])
def test_attention_errors(trained, flags, fragments):
    assert_usage_error(run("train.attention", "--out", trained, *flags), *fragments)


# ---- nothing in OUT is lost ------------------------------------------------------------------

def file_size_limit(limit: int):
    """For subprocess's preexec_fn: writes past `limit` bytes fail (EFBIG), as on a full disk."""
    def apply() -> None:
        import resource
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # fail the write, do not kill the process
        resource.setrlimit(resource.RLIMIT_FSIZE, (limit, limit))
    return apply


def test_an_out_through_a_broken_link_is_named_as_one_not_as_a_file(text_file, tmp_path):
    """A symbolic link to nothing is not a file: saying so sent the user looking for one."""
    broken = tmp_path / "broken"
    broken.symlink_to(tmp_path / "missing" / "dir")
    for out, fragment in [(broken, "it is a broken symbolic link"),
                          (broken / "out", f"{broken} is a broken symbolic link")]:
        error = assert_usage_error(run("train", text_file, "--out", out, *TINY, "--steps", "1"),
                                   f"--out {out}", fragment)
        assert "is a file" not in error


def test_a_metrics_line_that_fits_in_part_is_cut_back_whole(tmp_path):
    """A disk that fills up midway through a line takes a part of it, then fails: that part
    must go too (a buffered file kept it, its truncate failing on the rest in its buffer)."""
    path = tmp_path / "metrics.jsonl"
    path.write_bytes(b'{"step": 0}\n' * 300)
    before = path.read_bytes()
    script = ("import sys, train.files\n"
              "try:\n"
              "    train.files.append_line(__import__('pathlib').Path(sys.argv[1]), 'z' * 100)\n"
              "except OSError as err:\n"
              "    print(err.errno)\n")
    result = subprocess.run([sys.executable, "-c", script, str(path)], cwd=ROOT,
                            capture_output=True, text=True, timeout=60,
                            env={**os.environ, "PYTHONPATH": str(ROOT)},
                            preexec_fn=file_size_limit(len(before) + 10))
    assert result.stdout.strip() == str(errno.EFBIG), result.stderr
    assert path.read_bytes() == before


def test_a_fifo_in_place_of_the_metrics_is_refused_not_waited_on(text_file, tmp_path):
    """Reading it blocked until a writer came, and no stop signal could end the wait."""
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "2") == 0
    (out / "metrics.jsonl").unlink()
    os.mkfifo(out / "metrics.jsonl")
    for steps in ["4", "2"]:  # a run to continue, and one that may have its last row to write
        result = cli("train", "--out", out, "--resume", "--steps", steps, timeout=30)
        assert_usage_error(result, str(out / "metrics.jsonl"), "is not a regular file",
                           "move it away")


def test_a_failed_metrics_rewrite_on_resume_keeps_the_file_whole(text_file, tmp_path):
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "4",
                            "--eval-every", "2") == 0
    with (out / "metrics.jsonl").open("a") as f:
        f.write('{"step": 6, "train_lo')  # a line cut short: resuming rewrites the file
    before = snapshot(out)
    result = subprocess.run([sys.executable, "-m", "train", "--out", str(out), "--resume",
                             "--steps", "6"], cwd=ROOT, capture_output=True, text=True,
                            preexec_fn=file_size_limit(100), timeout=60)
    assert snapshot(out) == before
    assert result.returncode == 2, result.stderr
    assert "Traceback" not in result.stderr
    assert "error: cannot write the metrics" in result.stderr


def test_overwrite_never_leaves_the_old_runs_metrics_with_the_new_checkpoint(
        previous_run, text_file, monkeypatch, capsys):
    """--overwrite stopped before its first evaluation saves a checkpoint at step 0: the old
    run's metrics went on beside it, and --resume took the old run's step-0 row as its own."""
    def stopped(model, splits, c, step, stop, bar, parallel):
        stop.received = signal.SIGTERM
        return None

    command = [text_file, "--out", previous_run, *TINY, "--steps", "4", "--eval-every", "2",
               "--seed", "7"]
    monkeypatch.setattr(train.train, "estimate_loss", stopped)
    assert train_in_process(*command, "--overwrite") == 143
    monkeypatch.undo()
    assert train.checkpoint.load(previous_run / "ckpt.npz").config.seed == 7
    assert not (previous_run / "metrics.jsonl").exists()
    assert train_in_process("--out", previous_run, "--resume") == 0
    resumed = losses(previous_run)
    fresh = previous_run.parent / "fresh"
    assert train_in_process(*command[:2], fresh, *command[3:]) == 0
    assert resumed == losses(fresh)

    # a full disk at the first checkpoint: the old checkpoint is not left beside the new row
    def full_disk(file, arrays):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(minigrad.serialization, "_write_npz", full_disk)
    assert train_in_process(*command[:2], fresh, *command[3:], "--overwrite",
                            "--seed", "8") == 2
    monkeypatch.undo()
    assert "no checkpoint was written" in capsys.readouterr().err
    assert not (fresh / "ckpt.npz").exists()
    assert [r["step"] for r in metrics(fresh)] == [0]


def test_a_new_run_never_replaces_metrics_it_did_not_write(text_file, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "metrics.jsonl").write_text('{"step": 0, "mine": true}\n')
    before = snapshot(out)
    error = assert_usage_error(run("train", text_file, "--out", out, *TINY, "--steps", "2"),
                               "already holds a run", "metrics.jsonl", "--overwrite")
    assert "--resume" not in error  # with no checkpoint there is nothing to resume
    assert snapshot(out) == before


def test_a_run_touches_no_file_of_the_user_in_out(text_file, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / ".write-test").write_text("my notes")
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "2") == 0
    assert (out / ".write-test").read_text() == "my notes"
    assert sorted(p.name for p in out.iterdir()) == [".write-test", "ckpt.npz", "metrics.jsonl"]


def test_a_full_disk_when_out_is_locked_is_one_line_and_leaves_nothing(text_file, tmp_path,
                                                                      monkeypatch, capsys):
    """The lock file's pid is the run's first write into OUT: on a full disk it fails (the
    lock file itself takes no space), which was a traceback, leaving OUT with the lock in it."""
    def full_disk(fd, data):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(os, "write", full_disk)  # only the lock writes with os.write
    code = train_in_process(text_file, "--out", tmp_path / "out", *TINY, "--steps", "2")
    monkeypatch.undo()
    captured = capsys.readouterr()
    assert_error(code, captured.out, captured.err, "cannot write to --out",
                 "No space left on device")
    assert not (tmp_path / "out").exists()


def test_one_run_per_out_and_kill_9_frees_it(text_file, tmp_path):
    out = tmp_path / "out"
    first = started([text_file, "--out", out, *TINY, "--steps", "1000000", "--eval-every", "50"],
                    tmp_path / "stdout.txt", tmp_path / "stderr.txt")
    try:
        wait_for_rows(first, out, 2)
        for args in [["--out", out, "--resume", "--steps", 2_000_000],
                     [text_file, "--out", out, "--overwrite", *TINY, "--steps", "5"]]:
            assert_usage_error(run("train", *args),
                               f"another run (pid {first.pid}) is writing {out}")
    finally:
        first.kill()  # SIGKILL: no clean-up runs, the operating system frees the lock
        first.wait()
    rows = metrics(out)  # the first run's rows alone, none from the refused ones
    assert [r["step"] for r in rows] == list(range(0, 50 * len(rows), 50))
    step = train.checkpoint.load(out / "ckpt.npz").step
    assert train_in_process("--out", out, "--resume", "--steps", step + 2) == 0
    assert train.checkpoint.load(out / "ckpt.npz").step == step + 2


def test_the_temporary_file_of_a_save_cut_by_kill_9_is_removed_when_the_next_run_starts(
        text_file, tmp_path, monkeypatch):
    """kill -9 mid-save leaves OUT/.minigrad-ckpt.npz.tmp (half a checkpoint, as large as a
    whole one); it stayed until the next save. The next run removes it (and the metrics' own) as
    soon as it holds OUT's lock, before its first evaluation; a user's file stays."""
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "2") == 0
    leftovers = [out / ".minigrad-ckpt.npz.tmp", out / ".minigrad-metrics.jsonl.tmp"]
    for leftover in leftovers:
        leftover.write_bytes(b"PK\x03\x04 cut short")
    (out / "ckpt.npz.tmp").write_text("mine")
    seen_at_evaluation = []
    real_estimate_loss = train.train.estimate_loss

    def recording(*args, **kwds):
        seen_at_evaluation.append([p.name for p in leftovers if p.exists()])
        return real_estimate_loss(*args, **kwds)

    monkeypatch.setattr(train.train, "estimate_loss", recording)
    assert train_in_process("--out", out, "--resume", "--steps", "4", "--eval-every", "1") == 0
    assert seen_at_evaluation[0] == []
    assert sorted(p.name for p in out.iterdir()) == ["ckpt.npz", "ckpt.npz.tmp", "metrics.jsonl"]


def test_a_run_refused_by_the_lock_leaves_the_other_runs_temporary_files(tmp_path):
    """The temporary file may be the save in progress of the run holding the lock."""
    out = tmp_path / "out"
    with train.files.OutDir(out, written=["ckpt.npz"]):
        in_progress = out / ".minigrad-ckpt.npz.tmp"
        in_progress.write_bytes(b"being written")
        with pytest.raises(train.errors.UsageError, match="another run"):
            with train.files.OutDir(out, written=["ckpt.npz"]):
                pass
        assert in_progress.read_bytes() == b"being written"


def test_sigkill_at_random_moments_loses_nothing_and_resume_is_bit_exact(text_file, tmp_path):
    """Twenty kill -9s, mostly just after a checkpoint was written (into the next step, its
    evaluation and writes), some during start-up: every checkpoint and metrics row written
    before a kill is still there after it, and the resumed run ends exactly as an unbroken one."""
    flags = [*TINY, "--eval-iters", "1", "--eval-every", "1", "--lr-decay-steps", "1000"]
    out, ckpt_path = tmp_path / "out", tmp_path / "out" / "ckpt.npz"
    rng = random.Random(0)
    saved_step, rows_seen = -1, set()
    for kill in range(20):
        args = ["--out", out, "--resume"] if ckpt_path.exists() else \
            [text_file, "--out", out, "--overwrite", *flags]
        before = train.checkpoint.file_identity(ckpt_path)
        process = started([*args, "--steps", 1_000_000], tmp_path / "out.txt",
                          tmp_path / "err.txt")
        try:
            if kill % 4 == 3:
                time.sleep(rng.uniform(0.05, 0.5))  # during start-up, or just after it
            else:
                deadline = time.monotonic() + 60
                while train.checkpoint.file_identity(ckpt_path) == before:
                    assert process.poll() is None and time.monotonic() < deadline, \
                        (tmp_path / "err.txt").read_text()
                    time.sleep(0.005)
                time.sleep(rng.uniform(0, 0.05))
        finally:
            process.kill()
            process.wait()
        if ckpt_path.exists():
            step = train.checkpoint.load(ckpt_path).step  # whole, whatever the moment
            assert step >= saved_step
            saved_step = step
        if (out / "metrics.jsonl").exists():
            rows = {tuple(row.values())[:4] for row in metrics(out)}  # every line whole
            assert rows >= rows_seen
            rows_seen = rows
    assert saved_step >= 10
    final = saved_step + 2
    assert train_in_process("--out", out, "--resume", "--steps", final) == 0
    reference = tmp_path / "reference"
    assert train_in_process(text_file, "--out", reference, *flags, "--steps", final) == 0
    assert losses(out) == losses(reference)
    assert rows_seen <= set(losses(out))
    assert_same_arrays(arrays(ckpt_path), arrays(reference / "ckpt.npz"))


# ---- FILE ------------------------------------------------------------------------------------

@pytest.mark.skipif(not Path("/proc/self/status").is_file(), reason="no /proc (not Linux)")
def test_a_file_whose_size_is_not_reported_is_read_not_called_empty(tmp_path):
    """The files of /proc and /sys have st_size 0: "is empty" was wrong about them."""
    text = train.data.read_text("/proc/self/status")
    assert text.startswith("Name:")
    assert_usage_error(run("train", write(tmp_path / "empty.txt", ""), "--out", tmp_path / "o"),
                       "is empty")


@pytest.mark.parametrize("kind", ["fifo", "device"])
def test_file_must_be_a_regular_file(kind, tmp_path):
    if kind == "fifo":
        path = tmp_path / "pipe"
        os.mkfifo(path)  # no writer: reading it would wait forever
    else:
        path = Path("/dev/zero")  # endless
    result = cli("train", path, "--out", tmp_path / "out", timeout=30)
    assert_usage_error(result, str(path), "FIFO" if kind == "fifo" else "device",
                       "regular file")
    assert not (tmp_path / "out").exists()


def test_a_file_larger_than_memory_is_refused_before_it_is_read(tmp_path):
    path = tmp_path / "huge.txt"
    with path.open("wb") as f:
        f.truncate(1 << 40)  # 1 TiB, sparse: no disk space used
    assert_usage_error(cli("train", path, "--out", tmp_path / "out", timeout=30),
                       str(path), "1099.5 GB", "memory", "part of it")


def test_the_text_takes_a_small_multiple_of_its_size_in_memory(tmp_path):
    path = write(tmp_path / "big.txt", "the cat sat on the mat\n" * 200_000)  # 4.6 MB
    size = path.stat().st_size
    tracemalloc.start()
    try:
        text = train.data.read_text(path)
        ids = train.data.encode(text, train.data.vocabulary(text))
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert ids.dtype == np.uint8 and len(ids) == size
    assert peak < 2.5 * size  # the file's bytes and its text; the ids come after the bytes went
    assert train.data.vocabulary(text)[ids[1]] == "h"


def test_ids_take_the_smallest_unsigned_type_that_holds_the_vocabulary():
    for vocab_size, dtype in [(1, np.uint8), (256, np.uint8), (257, np.uint16),
                              (65536, np.uint16), (65537, np.uint32), (0x110000, np.uint32)]:
        assert train.data.id_dtype(vocab_size) == dtype


@pytest.mark.parametrize("text", ["\0" * 100,
                                  "a\0b\n" * 20 + "é 中 😀 \U0010ffff \u200b\t\r\x7f\n" * 5],
                         ids=["only NUL", "any unicode"])
def test_any_unicode_vocabulary_survives_training_resume_and_sampling(text, tmp_path):
    path = tmp_path / "text.txt"
    path.write_bytes(text.encode("utf-8"))
    out = tmp_path / "out"
    flags = [*TINY, "--block-size", "8", "--eval-every", "2"]
    assert train_in_process(path, "--out", out, *flags, "--steps", "2") == 0
    assert train.checkpoint.load(out / "ckpt.npz").vocab == sorted(set(text))
    assert train_in_process("--out", out, "--resume", "--steps", "4") == 0
    sampled = run("train.sample", "--out", out, "--prompt", text[:3], "--tokens", "20",
                  "--seed", "0")
    assert sampled.returncode == 0, sampled.stderr
    assert sampled.stdout.startswith(text[:3]) and len(sampled.stdout) == 3 + 20 + 1
    assert set(sampled.stdout[:-1]) <= set(text)


def test_a_relative_file_resumes_from_another_directory(text_file, tmp_path):
    result = cli("train", text_file.name, "--out", "out", *TINY, "--steps", "2",
                 cwd=text_file.parent)
    assert result.returncode == 0, result.stderr
    config = json.loads(str(arrays(tmp_path / "out" / "ckpt.npz")["train_config"]))
    assert config["data"] == str(text_file)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    result = cli("train", "--out", "../out", "--resume", "--steps", "4", cwd=elsewhere)
    assert result.returncode == 0, result.stderr
    assert [r["step"] for r in metrics(tmp_path / "out")][-1] == 4



def test_standard_input_redirected_from_a_file_resumes_from_that_file(text_file, tmp_path):
    """`python -m train /dev/stdin < text.txt` records text.txt: /dev/stdin is another file in
    the process that resumes (a terminal, or nothing); `-` is refused in one line."""
    out = tmp_path / "out"
    with text_file.open("rb") as stdin:
        result = subprocess.run([sys.executable, "-m", "train", "/dev/stdin", "--out", out,
                                 *TINY, "--steps", "2"], stdin=stdin, capture_output=True,
                                text=True, cwd=ROOT, env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert result.returncode == 0, result.stderr
    assert json.loads(str(arrays(out / "ckpt.npz")["train_config"]))["data"] == str(text_file)
    assert train_in_process("--out", out, "--resume", "--steps", "4") == 0
    assert [r["step"] for r in metrics(out)][-1] == 4
    assert_usage_error(run("train", "-", "--out", tmp_path / "new", *TINY),
                       "FILE - (standard input)", "save the text to a file")

# ---- every field of a checkpoint is checked --------------------------------------------------

def first(names, prefix: str) -> str:
    return sorted(n for n in names if n.startswith(prefix))[0]


def edit_json(name: str, change):
    """An edit of the archive that changes one of its JSON fields."""
    def edit(a: dict) -> None:
        value = json.loads(str(a[name]))
        change(value)
        a[name] = np.array(json.dumps(value))
    return edit


def edit(name_of, make):
    """An edit that sets the field `name_of(names)` to `make(old value)`."""
    def apply(a: dict) -> None:
        name = name_of(a)
        a[name] = make(a[name])
    return apply


def removed(name_of):
    return lambda a: a.pop(name_of(a))


DAMAGE = {
    # case: (edit of the arrays in place, the field the message must name)
    "format_version a string": (edit(lambda a: "format_version", lambda v: np.array("3")),
                                "format_version"),
    "format 2": (edit(lambda a: "format_version", lambda v: np.array(2)), "format_version"),
    "train_config not JSON": (edit(lambda a: "train_config", lambda v: np.array("{")),
                              "train_config"),
    "train_config a list": (edit(lambda a: "train_config", lambda v: np.array("[]")),
                            "train_config"),
    "train_config an entry missing": (edit_json("train_config", lambda c: c.pop("seed")),
                                      "train_config"),
    "train_config steps a string": (edit_json("train_config", lambda c: c.update(steps="9")),
                                    "train_config"),
    "train_config seed a bool": (edit_json("train_config", lambda c: c.update(seed=True)),
                                 "train_config"),
    "train_config lr NaN": (edit_json("train_config", lambda c: c.update(lr=math.nan)),
                            "train_config"),
    "train_config seed -1": (edit_json("train_config", lambda c: c.update(seed=-1)),
                             "train_config"),
    "model config n_head a float": (edit_json("train_config",
                                              lambda c: c["model"].update(n_head=2.0)),
                                    "train_config"),
    "model config wider than the weights": (edit_json(
        "train_config", lambda c: c["model"].update(n_embd=32)), "model/"),
    "model config dtype float64": (edit_json("train_config", lambda c: c.update(
        dtype="float64")), "model/"),
    "vocab a string": (edit(lambda a: "vocab", lambda v: np.array("abc")), "vocab"),
    "vocab too short": (edit(lambda a: "vocab", lambda v: v[:-1]), "vocab"),
    "vocab not sorted": (edit(lambda a: "vocab", lambda v: v[::-1].copy()), "vocab"),
    "vocab not code points": (edit(lambda a: "vocab", lambda v: np.append(v[:-1], 0x110000)),
                              "vocab"),
    "vocab floats": (edit(lambda a: "vocab", lambda v: v.astype(np.float64)), "vocab"),
    "step a float": (edit(lambda a: "step", lambda v: np.array(40.0)), "step"),
    "step negative": (edit(lambda a: "step", lambda v: np.array(-1)), "step"),
    "rng_states a list": (edit(lambda a: "rng_states", lambda v: np.array("[]")),
                          "rng_states"),
    "rng state a float": (edit_json("rng_states", lambda r: r["data"]["state"].update(
        state=1.5)), "rng_states.data"),
    "rng state negative": (edit_json("rng_states", lambda r: r["model"]["state"].update(
        inc=-1)), "rng_states.model"),
    "rng of another generator": (edit_json("rng_states", lambda r: r["data"].update(
        bit_generator="MT19937")), "rng_states.data"),
    "a weight of integers": (edit(lambda a: first(a, "model/"), lambda v: v.astype(np.int64)),
                             "model/"),
    "a weight of another shape": (edit(lambda a: first(a, "model/"), lambda v: v[:-1]),
                                  "model/"),
    "a weight missing": (removed(lambda a: first(a, "model/")), "model/"),
    "a weight too many": (lambda a: a.update({"model/extra.weight": np.zeros(3)}),
                          "model/extra.weight"),
    "a weight of objects": (edit(lambda a: first(a, "model/"),
                                 lambda v: np.array([None, "x"], dtype=object)), "model/"),
    "an optimizer buffer of another shape": (edit(lambda a: first(a, "optim/exp_avg."),
                                                  lambda v: v[:-1]), "optim/exp_avg."),
    "an optimizer buffer in float64": (edit(lambda a: first(a, "optim/exp_avg_sq."),
                                            lambda v: v.astype(np.float64)), "optim/exp_avg_sq."),
    "a negative mean square": (edit(lambda a: first(a, "optim/exp_avg_sq."), lambda v: -v - 1),
                               "optim/exp_avg_sq."),
    "the optimizer at another step": (edit(lambda a: "optim/step", lambda v: v - 1),
                                      "optim/step"),
    "more updates than steps": (edit(lambda a: first(a, "optim/updates."), lambda v: v + 1),
                                "optim/updates."),
    "an unknown optimizer buffer": (lambda a: a.update({"optim/momentum.0": np.zeros(3)}),
                                    "optim/momentum.0"),
    # AdamW would make a missing buffer anew, in zeros: the run would go on, not as it was
    "an optimizer buffer missing": (removed(lambda a: "optim/exp_avg_sq.3"),
                                    "optim/exp_avg_sq.3"),
    "an update count missing": (removed(lambda a: "optim/updates.0"), "optim/updates.0"),
    "an unknown field": (lambda a: a.update({"notes": np.array("hello")}), "notes"),
}


def damaged_checkpoint(trained: Path, out: Path, change) -> dict[str, bytes]:
    """A copy of the trained OUT whose checkpoint has one change; what OUT holds then."""
    shutil.copytree(trained, out)
    fields = arrays(out / "ckpt.npz")
    change(fields)
    with (out / "ckpt.npz").open("wb") as f:
        np.savez(f, **fields)
    return snapshot(out)


@pytest.mark.parametrize("case", DAMAGE, ids=str)
def test_every_field_of_a_checkpoint_is_checked(case, trained, text_file, tmp_path):
    change, field = DAMAGE[case]
    out = tmp_path / "out"
    before = damaged_checkpoint(trained, out, change)
    for module, args in [("train", [text_file, "--out", out, "--resume", "--steps", 60]),
                         ("train.sample", ["--out", out, "--tokens", 5]),
                         ("train.attention", ["--out", out, "--text", "the"])]:
        message = assert_usage_error(run(module, *args), str(out / "ckpt.npz"), "field")
        assert re.search(rf"field '{re.escape(field)}", message), (field, message)
    assert snapshot(out) == before


def test_a_nan_model_draws_nan_refuses_to_sample_and_to_resume(trained, text_file, tmp_path):
    out = tmp_path / "out"
    before = damaged_checkpoint(trained, out, edit(lambda a: first(a, "model/wte"),
                                                   lambda v: np.full_like(v, np.nan)))
    heatmap = run("train.attention", "--out", out, "--text", "the", "--head", "0")
    assert heatmap.returncode == 0, heatmap.stderr
    assert heatmap.stdout.count("nan") == 3 * 3  # every weight of the 3 x 3 map is NaN
    assert_usage_error(run("train.sample", "--out", out, "--tokens", 5), "NaN",
                       "cannot be sampled", "model/wte")
    assert_usage_error(run("train", "--out", out, "--resume", "--steps", 60), "NaN", "model/wte")
    assert snapshot(out) == before


# ---- one line, never a traceback -------------------------------------------------------------

def test_a_damaged_metrics_file_on_resume_is_one_line_and_its_good_rows_are_kept(text_file,
                                                                                 tmp_path,
                                                                                 capsys):
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "4",
                            "--eval-every", "2") == 0
    good = (out / "metrics.jsonl").read_bytes().splitlines(keepends=True)
    damage = [b"not json\n", b"[1, 2]\n", b'{"step": "two"}\n', b"\xff\xfe\n",
              b'{"step": 2, "train_loss": NaN}\n']
    (out / "metrics.jsonl").write_bytes(b"".join([good[0], *damage, *good[1:]]))
    capsys.readouterr()
    assert train_in_process("--out", out, "--resume", "--steps", "6") == 0
    warnings = [line for line in capsys.readouterr().err.splitlines() if "metrics" in line]
    assert len(warnings) == 1 and warnings[0].startswith("warning: ")
    assert "5 damaged line(s)" in warnings[0] and "3 good rows are kept" in warnings[0]
    assert (out / "metrics.jsonl").read_bytes().startswith(b"".join(good))
    assert [r["step"] for r in metrics(out)] == [0, 2, 4, 6]


def test_metrics_edited_out_of_step_order_are_damaged_lines_on_resume(text_file, tmp_path,
                                                                       capsys):
    """Rows must go forward in steps (the loss chart at the end relies on it): an edited step
    that breaks the order makes the lines it puts out of order damaged ones, never a crash."""
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "8",
                            "--eval-every", "2") == 0
    path = out / "metrics.jsonl"
    path.write_text(path.read_text().replace('"step": 0,', '"step": 8,', 1))
    capsys.readouterr()
    assert train_in_process("--out", out, "--resume", "--steps", "10") == 0
    assert "4 damaged line(s)" in capsys.readouterr().err
    assert [r["step"] for r in metrics(out)] == [8, 10]


OUT_OF_RANGE = [
    # (flag and value, what the message must say)
    (["--seed", "-1"], "--seed must be from 0 to 2**64 - 1"),
    (["--seed", str(2**64)], "--seed"),
    (["--threads", "0"], "--threads must be from 1 to --batch-size"),
    (["--threads", "5"], "--threads"),  # TINY's batch is 4
    (["--eval-every", "0"], "--eval-every must be >= 1"),
    (["--eval-iters", "0"], "--eval-iters"),
    (["--lr-decay-steps", "0"], "--lr-decay-steps"),
    (["--warmup", "-1"], "--warmup must be >= 0"),
    (["--sample-every", "-1"], "--sample-every"),
    (["--dropout", "1"], "--dropout"),
    (["--beta1", "1"], "--beta1 must be in [0, 1)"),
    (["--beta2", "-0.5"], "--beta2"),
    (["--lr", "0"], "--lr must be a finite number > 0"),
    (["--lr", "inf"], "--lr must be a finite number > 0, got inf"),
    (["--min-lr", "-1"], "--min-lr"),
    (["--lr", "1e-5", "--min-lr", "1e-4"], "--min-lr 0.0001 is above --lr 1e-05"),
    # the learning rate would jump from --lr down to --min-lr when the warm-up ends
    (["--steps", "50", "--warmup", "50"], "--warmup 50 does not end before --steps 50"),
    (["--warmup", "20", "--lr-decay-steps", "10"], "before --lr-decay-steps 10"),
    (["--weight-decay", "-0.1"], "--weight-decay"),
    (["--weight-decay", "1e400"], "--weight-decay must be a finite number >= 0, got inf"),
    (["--grad-clip", "-1"], "--grad-clip"),
    (["--n-head", "0"], "--n-head"),
    (["--block-size", "0"], "--block-size"),
    (["--encoding", "rot13"], "--encoding"),
    (["--encoding", "undefined"], "unknown --encoding 'undefined'"),  # a codec refusing all
    (["--n-embd", str(2**40), "--n-head", "1"], "memory"),
    (["--batch-size", str(2**62)], "memory"),
]


@pytest.mark.parametrize("flags, fragment", OUT_OF_RANGE, ids=lambda x: " ".join(x)
                         if isinstance(x, list) else "")
def test_every_train_option_outside_its_range_is_one_line(flags, fragment, text_file, tmp_path):
    out = tmp_path / "out"
    assert_usage_error(run("train", text_file, "--out", out, *TINY, "--steps", "2", *flags),
                       fragment)
    assert not out.exists()


def test_the_learning_rate_decays_to_a_tenth_of_lr_by_default(text_file, tmp_path):
    """As nanoGPT advises; a fixed --min-lr would be above a small --lr and the "decay" would
    raise the learning rate."""
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "4", "--eval-every", "2",
                            "--lr", "1e-5", "--warmup", "0") == 0
    assert train.checkpoint.load(out / "ckpt.npz").config.min_lr == pytest.approx(1e-6)
    assert metrics(out)[-1]["lr"] < 1e-5


def test_a_checkpoint_whose_min_lr_is_above_its_lr_still_resumes(text_file, tmp_path):
    """Runs from before --min-lr was checked against --lr (--lr 1e-5 with the fixed --min-lr
    1e-4) continue with their own schedule; a new --lr below its --min-lr is refused."""
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "2", "--eval-every",
                            "2") == 0
    ckpt = train.checkpoint.load(out / "ckpt.npz")
    ckpt.config.lr, ckpt.config.min_lr = 1e-5, 1e-4
    train.checkpoint.save(out / "ckpt.npz", ckpt)
    assert train_in_process("--out", out, "--resume", "--steps", "4") == 0
    resumed = train.checkpoint.load(out / "ckpt.npz")
    assert (resumed.step, resumed.config.lr, resumed.config.min_lr) == (4, 1e-5, 1e-4)
    assert_usage_error(run("train", "--out", out, "--resume", "--steps", "6", "--min-lr", "2e-5"),
                       "--min-lr 2e-05 is above --lr 1e-05")


def test_a_short_run_warms_up_over_a_tenth_of_it_then_decays(text_file, tmp_path):
    """With a fixed 100 warm-up steps, a 20-step run never reached --lr nor decayed."""
    out = tmp_path / "out"
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "20", "--eval-every",
                            "10", "--lr", "1e-2") == 0
    assert train.checkpoint.load(out / "ckpt.npz").config.warmup == 2
    lrs = [r["lr"] for r in metrics(out)]  # of steps 0, 9 and 19
    assert lrs[1] > 0.5e-2 and lrs[2] < lrs[1]


def test_a_warm_up_that_does_not_end_before_the_decay_is_refused_unless_a_default():
    """The learning rate would jump from --lr to --min-lr at the warm-up's end: refused when
    given (OUT_OF_RANGE); a preset's 100 steps, in a run shortened to 50, becomes a tenth."""
    def config(*flags: str):
        args = train.train.parse_args(["FILE", *flags])
        return train.train.resolve_config(args, None)

    assert config("--preset", "baby-shakespeare").warmup == 100
    assert config("--preset", "baby-shakespeare", "--steps", "50").warmup == 5
    assert config("--preset", "baby-shakespeare", "--steps", "50", "--warmup", "7").warmup == 7
    assert config("--steps", "3").warmup == 0


@pytest.mark.parametrize("flags, fragment", [
    (["--seed", "-1"], "--seed must be from 0 to 2**64 - 1"), (["--seed", str(2**64)], "--seed"),
    (["--tokens", "-1"], "--tokens"), (["--top-k", "0"], "--top-k"),
    (["--temperature", "-1"], "--temperature")])
def test_every_sample_option_outside_its_range_is_one_line(flags, fragment, trained):
    assert_usage_error(run("train.sample", "--out", trained, *flags), fragment)


@pytest.mark.parametrize("module, flags, fragment", [
    ("train", ["--steps", "1e3"], "--steps"), ("train", ["--lr", "fast"], "--lr"),
    ("train", ["--bogus"], "--bogus"), ("train", ["--dtype", "float16"], "--dtype"),
    ("train.sample", ["--tokens", "many"], "--tokens"),
    ("train.sample", ["--out", "a", "--checkpoint", "b"], "--checkpoint"),
    ("train.attention", [], "--text")], ids=str)
def test_what_argparse_refuses_is_one_line_too(module, flags, fragment):
    """Not a number, an unknown flag, a missing one: argparse's usage and error lines become
    the same one `error:` line as every other bad input."""
    assert_usage_error(run(module, *flags), fragment, "--help")


def test_an_empty_path_is_refused_not_read_as_the_current_directory(trained, text_file,
                                                                     tmp_path, monkeypatch):
    """`--out "$DIR"` with DIR unset: the run must not write into (or read from) the current
    directory."""
    monkeypatch.chdir(tmp_path)
    shutil.copytree(trained, tmp_path / "out")  # what --checkpoint "" would have sampled
    before = sorted(tmp_path.iterdir())
    for module, flags in [("train", [text_file, "--out", ""]), ("train", ["", "--out", "new"]),
                          ("train.sample", ["--checkpoint", ""]),
                          ("train.attention", ["--out", "", "--text", "the"])]:
        extra = [*TINY, "--steps", "1"] if module == "train" else []
        assert_usage_error(run(module, *flags, *extra), "path is empty")
    assert sorted(tmp_path.iterdir()) == before


def test_help_documents_the_ranges():
    for module in ("train", "train.sample"):
        assert "2**64 - 1" in " ".join(cli(module, "--help").stdout.split())
    # as the error says (inf is refused): "a number >= 0" let it in
    assert "--temperature T a finite number >= 0" in " ".join(
        cli("train.sample", "--help").stdout.split())


def test_a_temperature_near_0_is_greedy(trained):
    samples = [run("train.sample", "--out", trained, "--prompt", "the", "--tokens", "40",
                   "--temperature", t, "--seed", "1") for t in ["0", "1e-320", "1e-300"]]
    assert [r.returncode for r in samples] == [0, 0, 0]
    assert samples[1].stdout == samples[0].stdout and samples[2].stdout == samples[0].stdout


def test_a_file_name_that_is_not_utf8_cannot_crash_the_output(text_file, tmp_path):
    out = os.fsencode(tmp_path) + b"/out-\xff"
    env = {**os.environ, "PYTHONIOENCODING": "utf-8:strict"}
    result = subprocess.run([sys.executable, "-m", "train", os.fsencode(text_file), b"--out",
                             out, *map(str.encode, TINY), b"--steps", b"2"], cwd=ROOT,
                            capture_output=True, env=env, timeout=60)
    printed = result.stdout.decode("utf-8")
    assert result.returncode == 0, result.stderr.decode("utf-8", "replace")
    assert b"Traceback" not in result.stderr
    # the command it prints, pasted into a shell, finds the checkpoint and samples it
    command = printed.split("Sample more with: ", 1)[1].strip()
    assert "\\xff" in command
    sampled = subprocess.run(f"{command} --tokens 3", shell=True, executable="/bin/bash",
                             cwd=ROOT, capture_output=True, env=env, timeout=60)
    assert sampled.returncode == 0, sampled.stderr


@pytest.mark.parametrize("module", ["train", "train.sample"])
def test_a_path_with_a_line_break_is_still_one_error_line(module, tmp_path):
    """A name may hold any character but / and NUL: a line break in it, shown as it is, split
    the `error:` line in two, and an escape character could drive the terminal."""
    odd = tmp_path / "a\nb\x1b[2J\u2028c"
    args = [odd, "--steps", "2"] if module == "train" else ["--out", odd]
    error = assert_usage_error(run(module, *args), "no such file" if module == "train"
                               else "no checkpoint")
    assert "a\\nb\\x1b[2J\\u2028c" in error, error


def test_the_error_of_a_diverged_run_in_an_out_with_a_line_break_is_one_line(text_file,
                                                                            tmp_path):
    result = run("train", text_file, "--out", tmp_path / "o\nut", *TINY, "--steps", "4",
                 "--lr", "1e300", "--warmup", "0")
    assert result.returncode == 1
    errors = [line for line in result.stderr.splitlines() if "error" in line or "ut/" in line]
    assert len(errors) == 1 and errors[0].startswith("error: "), result.stderr
    assert "o\\nut/ckpt.npz" in errors[0]


def test_the_commands_printed_for_an_out_named_like_an_option_work(text_file, tmp_path,
                                                                  monkeypatch):
    """`--out=-run`: the printed `--out -run` was read as an option missing its value."""
    monkeypatch.chdir(tmp_path)
    command = [text_file, "--out=-run", *TINY, "--steps", "2"]
    finished = run("train", *command)
    again = run("train", *command)
    assert finished.returncode == 0 and again.returncode == 0, finished.stderr + again.stderr
    printed = [finished.stdout.split("Sample more with: ", 1)[1].strip(),
               again.stdout.split("Sample it:", 1)[1].split("\n")[0].strip(),
               again.stdout.split("Continue it:", 1)[1].split("\n")[0].strip()]
    for line in printed:
        words = shlex.split(line)
        assert words[2] in ("train", "train.sample"), line
        result = run(words[2], *words[3:], *(["--tokens", "3"] if words[2] != "train" else []))
        assert result.returncode == 0, (line, result.stderr)
    assert train.checkpoint.load(tmp_path / "-run" / "ckpt.npz").step == 4


def test_a_run_that_fails_leaves_no_out_directory(text_file, tmp_path, monkeypatch):
    def out_of_memory(*args, **kwds):
        raise MemoryError

    monkeypatch.setattr(train.train, "GPT", out_of_memory)
    out = tmp_path / "a" / "b" / "out"
    assert_usage_error(run("train", text_file, "--out", out, *TINY),
                 "not enough memory")
    assert not (tmp_path / "a").exists()


# ---- a first run that can be repeated --------------------------------------------------------

def test_the_same_command_again_after_a_finished_run_says_so_and_exits_0(text_file, tmp_path):
    """The README's quick start, run twice: the second time there is nothing to do."""
    out = tmp_path / "out"
    command = [text_file, "--out", out, *TINY, "--steps", "4"]
    assert train_in_process(*command) == 0
    before = snapshot(out)
    again = run("train", *command)
    assert again.returncode == 0 and again.stderr == ""
    assert "already holds a finished run of these settings (step 4)" in again.stdout
    for hint in ["python -m train.sample --out", "--resume --steps 8", "--overwrite"]:
        assert hint in again.stdout
    assert snapshot(out) == before


def test_an_unwritable_out_is_refused_before_saying_there_is_nothing_to_do(text_file, tmp_path,
                                                                           monkeypatch):
    """Exit 0 with "nothing to do" would hide that OUT can no longer take a run (to continue
    it, say): the check that OUT is writable comes first."""
    out = tmp_path / "out"
    command = [text_file, "--out", out, *TINY, "--steps", "2"]
    assert train_in_process(*command) == 0
    out.chmod(0o555)
    try:
        if os.access(out, os.W_OK):  # root may write anywhere: fake what any other user gets
            real_access = os.access
            monkeypatch.setattr(os, "access", lambda path, mode, **kwds: Path(path) != out and
                                real_access(path, mode, **kwds))
        assert_usage_error(run("train", *command), f"cannot write to --out {out}")
    finally:
        out.chmod(0o755)


def test_the_model_is_described_before_it_is_built(text_file, tmp_path, monkeypatch):
    """A large model takes minutes to build (--n-layer 100000 --n-embd 8 --n-head 1: as many as
    the memory check lets through): what is being built is said first, for a new run and a
    resumed one, with the count of parameters the built model has."""
    printed_before_building = []

    def recording(build):
        def build_after_recording(*args, **kwds):
            printed_before_building.append(sys.stdout.getvalue())
            return build(*args, **kwds)
        return build_after_recording

    out = tmp_path / "out"
    monkeypatch.setattr(train.train, "GPT", recording(train.train.GPT))
    monkeypatch.setattr(train.checkpoint.Checkpoint, "build_model",
                        recording(train.checkpoint.Checkpoint.build_model))
    new = run("train", text_file, "--out", out, *TINY, "--steps", "2")
    resumed = run("train", "--out", out, "--resume", "--steps", "4")
    assert (new.returncode, resumed.returncode) == (0, 0), new.stderr + resumed.stderr
    monkeypatch.undo()
    parameters = train.checkpoint.load(out / "ckpt.npz").build_model().num_parameters()
    assert len(printed_before_building) == 2
    for printed in printed_before_building:
        assert f"Model: {parameters / 1e6:.2f}M parameters" in printed
    assert "Resuming from" in printed_before_building[1]


def test_a_model_that_builds_slowly_shows_its_progress(text_file, tmp_path, monkeypatch):
    """--n-layer 100000 (which fits in memory) builds for minutes: a progress bar shows it, in
    a new run, a resumed one and the other commands; a model that builds at once shows none."""
    out = tmp_path / "out"
    command = [text_file, "--out", out, *TINY, "--n-layer", "3", "--steps", "2"]
    quick = run("train", *command)
    assert quick.returncode == 0 and "Model: building" not in quick.stderr
    monkeypatch.setattr(train.cli, "BUILD_PROGRESS_DELAY", 0)  # as if building took long
    for module, args in [("train", [*command, "--overwrite"]),
                         ("train", ["--out", out, "--resume", "--steps", "4"]),
                         ("train.sample", ["--out", out, "--tokens", "2"]),
                         ("train.attention", ["--out", out, "--text", "the"])]:
        result = run(module, *args)
        assert result.returncode == 0, result.stderr
        for bar in ["Model: building blocks:   0%", "/3 ", "Model: initialising parameters"]:
            assert bar in result.stderr, (module, args, result.stderr)


def test_loading_a_checkpoint_builds_its_model_once(trained, tmp_path, monkeypatch):
    """The checkpoint's shapes are checked from its config: a random model built only to check
    them doubled the time a large model takes to load (in all three commands)."""
    built = []
    real_init = models.gpt.GPT.__init__

    def counting(self, *args, **kwds):
        built.append(self)
        real_init(self, *args, **kwds)

    monkeypatch.setattr(models.gpt.GPT, "__init__", counting)
    out = tmp_path / "out"
    shutil.copytree(trained, out)
    for module, args in [("train.sample", ["--tokens", "2"]),
                         ("train.attention", ["--text", "the"]),
                         ("train", ["--resume", "--steps", "41"])]:
        built.clear()
        result = run(module, "--out", out, *args)
        assert result.returncode == 0, result.stderr
        assert len(built) == 1, module


def test_progress_lines_go_into_a_pipe_as_they_are_written(text_file, tmp_path):
    """`python -m train FILE | tee log`: each line reaches the pipe at once; Python would hold
    them back until 8 KB were written (the environment may have set PYTHONUNBUFFERED: not
    here)."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONUNBUFFERED"}
    process = subprocess.Popen(
        [sys.executable, "-m", "train", text_file, "--out", tmp_path / "out", *TINY, "--steps",
         "1000000", "--eval-every", "1000000"], cwd=ROOT, stdout=subprocess.PIPE,
        stderr=subprocess.DEVNULL, env={**env, "PYTHONPATH": str(ROOT)},
        preexec_fn=as_in_a_terminal())
    with reaped(process):
        received = read_until(process.stdout, rb"step 0:")  # then nothing more until a stop
        assert received.startswith(b"Model: ")
        process.send_signal(signal.SIGTERM)
        assert process.wait(timeout=30) == 128 + signal.SIGTERM


def test_short_runs_evaluate_often_enough_for_a_chart_of_ten_points(text_file, tmp_path):
    out = tmp_path / "out"
    result = run("train", text_file, "--out", out, *TINY, "--steps", "45")
    assert result.returncode == 0, result.stderr
    assert [r["step"] for r in metrics(out)] == [*range(0, 45, 4), 45]
    assert "Loss (evaluated every 4 steps)" in result.stdout


def test_skipped_tests_say_why(tmp_path):
    """`pytest -q` prints the reason of every skip: here the preset test without its data file
    and a PyTorch comparison without PyTorch (an importable `torch` that fails, put first)."""
    (tmp_path / "torch.py").write_text("raise ModuleNotFoundError('no torch here')\n")
    env = {k: v for k, v in os.environ.items() if k != SHAKESPEARE_VARIABLE}
    result = subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider",
         "tests/test_train.py::test_preset_with_tiny_shakespeare",
         "tests/test_nn_optim.py::test_clip_matches_torch[1.5-2.0]"],
        cwd=ROOT, capture_output=True, text=True, timeout=120,
        env={**env, "PYTHONPATH": f"{tmp_path}{os.pathsep}{ROOT}"})
    assert "2 skipped" in result.stdout, result.stdout
    assert "SKIPPED [1] tests/test_train.py" in result.stdout
    assert f"{SHAKESPEARE_VARIABLE} is not set" in result.stdout
    assert "pip install -e '.[compare]'" in result.stdout
