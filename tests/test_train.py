"""The training CLI (`python -m train`, `train.sample`, `train.attention`) end to end, on tiny
models and tiny texts so the whole file runs in well under a minute on two cores.

Exit codes and messages are checked on real subprocesses (`python -m ...` from the repository
root); runs whose only outputs of interest are files are made in-process through
`train.errors.run_cli`, which is what `python -m train` calls.
"""
from __future__ import annotations

import json
import math
import random
import shutil
import signal
import subprocess
import sys
import time
from pathlib import Path

import numpy as np
import pytest

import train.checkpoint
import train.train
from train.errors import run_cli

ROOT = Path(__file__).resolve().parents[1]
SHAKESPEARE = ROOT.parent / "shared" / "data" / "tinyshakespeare.txt"

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


def cli(module: str, *args: object, timeout: float = 60) -> subprocess.CompletedProcess:
    """Run `python -m MODULE ARGS` from the repository root, capturing its text output."""
    return subprocess.run([sys.executable, "-m", module, *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, encoding="utf-8", timeout=timeout)


def train_in_process(*args: object) -> int:
    return run_cli(train.train.main, list(map(str, args)))


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
    assert result.returncode == 2, (result.stdout, result.stderr)
    assert "Traceback" not in result.stderr + result.stdout
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 1, result.stderr
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
    sampled = cli("train.sample", "--out", out, "--prompt", "a", "--tokens", "5")
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


def test_resume_remembers_the_encoding(tmp_path):
    path = tmp_path / "latin.txt"
    path.write_bytes(("caf\xe9 na\xefve " * 60).encode("latin-1"))
    out = tmp_path / "out"
    assert train_in_process(path, "--encoding", "latin-1", "--out", out, *TINY,
                            "--steps", "4", "--eval-every", "2") == 0
    assert train_in_process("--out", out, "--resume", "--steps", "6") == 0  # no --encoding
    assert [r["step"] for r in metrics(out)] == [0, 2, 4, 6]


# ---- checkpoints survive crashes -------------------------------------------------------------

@pytest.mark.parametrize("crash", [OSError(28, "No space left on device"), KeyboardInterrupt()])
def test_a_crash_mid_write_keeps_the_previous_checkpoint(trained, tmp_path, monkeypatch, crash):
    path = tmp_path / "ckpt.npz"
    shutil.copy(trained / "ckpt.npz", path)
    before = path.read_bytes()
    ckpt = train.checkpoint.load(path)
    ckpt.step += 1

    def savez_then_crash(file, *args, **kwds):
        file.write(b"PK\x03\x04 half an archive")
        raise crash

    monkeypatch.setattr(train.checkpoint.np, "savez", savez_then_crash)
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
    real_savez, calls = np.savez, []

    def savez_failing_the_second_time(file, *args, **kwds):
        calls.append(1)
        if len(calls) == 2:
            file.write(b"some bytes")
            raise OSError(28, "No space left on device")
        return real_savez(file, *args, **kwds)

    monkeypatch.setattr(train.checkpoint.np, "savez", savez_failing_the_second_time)
    code = train_in_process(text_file, "--out", out, *TINY, "--steps", "10", "--eval-every", "5")
    monkeypatch.undo()
    assert code == 2
    error = capsys.readouterr().err
    assert "error: cannot write the checkpoint" in error and "No space left" in error
    assert "(step 0) is intact" in error and "--resume" in error
    assert train.checkpoint.load(out / "ckpt.npz").step == 0
    assert sorted(p.name for p in out.iterdir()) == ["ckpt.npz", "metrics.jsonl"]


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
    real_savez, calls = np.savez, []

    def fail_second_save(file, *args, **kwds):
        calls.append(1)
        if len(calls) == 2:
            raise OSError(28, "No space left on device")
        return real_savez(file, *args, **kwds)

    monkeypatch.setattr(train.checkpoint.np, "savez", fail_second_save)
    assert train_in_process(text_file, "--out", out, *TINY, "--steps", "4",
                            "--eval-every", "2") == 2
    monkeypatch.undo()
    assert train_in_process(text_file, "--out", out, "--resume") == 0
    assert [r["step"] for r in metrics(out)] == [0, 2, 4]


# ---- Ctrl-C ----------------------------------------------------------------------------------

def test_sigint_saves_says_how_to_resume_and_resume_continues(text_file, tmp_path):
    out = tmp_path / "out"
    stdout, stderr = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    with stdout.open("w") as out_f, stderr.open("w") as err_f:
        process = subprocess.Popen(
            [sys.executable, "-m", "train", str(text_file), "--out", str(out), *TINY,
             "--steps", "1000000", "--eval-every", "50"], cwd=ROOT, stdout=out_f, stderr=err_f)
        try:
            # wait for the evaluations at steps 0 and 50: the loop is running
            deadline = time.monotonic() + 60
            while time.monotonic() < deadline and process.poll() is None:
                written = out / "metrics.jsonl"
                if written.is_file() and written.read_text().count("\n") >= 2:
                    break
                time.sleep(0.05)
            assert process.poll() is None, stderr.read_text()
            process.send_signal(signal.SIGINT)
            returncode = process.wait(timeout=30)
        finally:
            if process.poll() is None:
                process.kill()
                process.wait()
    printed, errors = stdout.read_text(), stderr.read_text()
    assert returncode == 130, (printed, errors)
    assert "Traceback" not in errors
    assert "--resume" in printed
    stopped = int(printed.split("Interrupted at step ")[1].split(";")[0])
    assert 50 <= stopped < 1000000
    assert train.checkpoint.load(out / "ckpt.npz").step == stopped
    assert [r["step"] for r in metrics(out)][-1] <= stopped

    result = cli("train", text_file, "--out", out, "--resume", "--steps", stopped + 3)
    assert result.returncode == 0, result.stderr
    assert f"Resuming from {out / 'ckpt.npz'} at step {stopped}" in result.stdout
    assert train.checkpoint.load(out / "ckpt.npz").step == stopped + 3
    assert metrics(out)[-1]["step"] == stopped + 3


def test_ctrl_c_outside_the_training_loop_is_one_line_and_exit_130(monkeypatch, capsys):
    def interrupted(argv):
        raise KeyboardInterrupt

    assert run_cli(interrupted, []) == 130
    assert "Traceback" not in capsys.readouterr().err


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
    "n_embd % n_head": (None, ["--overwrite", "--n-embd", "15"], ["--n-embd 15", "--n-head 2"]),
    "steps 0": (None, ["--overwrite", "--steps", "0"], ["--steps", "positive", "0"]),
    "batch size -1": (None, ["--overwrite", "--batch-size", "-1"], ["--batch-size", "-1"]),
    "n_layer 0": (None, ["--overwrite", "--n-layer", "0"], ["--n-layer", "0"]),
    "no --resume/--overwrite": (None, [], ["already", "--resume", "--overwrite"]),
    "incompatible resume": (None, ["--resume", "--steps", "60", "--n-layer", "3"],
                            ["--n-layer 2", "--out"]),
    "resume already done": (None, ["--resume", "--steps", "40"], ["step 40", "--steps"]),
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
    assert_usage_error(cli("train", *args), *fragments)
    assert snapshot(previous_run) == before


def test_a_file_that_is_not_utf8_trains_with_its_encoding(tmp_path):
    path = not_utf8(tmp_path)
    assert_usage_error(cli("train", path, "--out", tmp_path / "a", *TINY, "--steps", "1"),
                       "--encoding")
    result = cli("train", path, "--out", tmp_path / "b", *TINY, "--steps", "2", "--eval-every",
                 "1", "--encoding", "latin-1")
    assert result.returncode == 0, result.stderr
    assert "é" in train.checkpoint.load(tmp_path / "b" / "ckpt.npz").vocab


def test_resume_without_a_checkpoint(text_file, tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "metrics.jsonl").write_text('{"step": 0}\n')
    assert_usage_error(cli("train", text_file, "--out", out, "--resume"),
                       "no checkpoint", str(out / "ckpt.npz"))
    assert snapshot(out) == {"metrics.jsonl": b'{"step": 0}\n'}


def test_resume_refuses_a_preset(previous_run, text_file):
    before = snapshot(previous_run)
    result = cli("train", text_file, "--out", previous_run, "--resume", "--preset",
                 "baby-shakespeare", "--steps", "60")
    assert_usage_error(result, "--preset", "resumed")
    assert snapshot(previous_run) == before


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
    assert_usage_error(cli("train", text_file, "--out", previous_run, "--resume", "--steps",
                           "60"), named)
    assert snapshot(previous_run) == before
    assert_usage_error(cli("train.sample", "--checkpoint", ckpt, "--tokens", "5"), named)
    assert_usage_error(cli("train.attention", "--out", previous_run, "--text", "the"), named)


def test_a_bad_file_creates_no_out_directory(tmp_path):
    out = tmp_path / "new-out"
    result = cli("train", tmp_path / "missing.txt", "--out", out)
    assert_usage_error(result, "missing.txt")
    assert not out.exists()


def test_an_unwritable_out_is_refused(text_file, tmp_path):
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    assert_usage_error(cli("train", text_file, "--out", blocker / "out", *TINY, "--steps", "1"),
                       "--out", str(blocker / "out"))
    assert blocker.read_text() == "not a directory"


@pytest.mark.parametrize("module,flags,fragment", [
    ("train", ["--grad-clip", "nan"], "--grad-clip"),
    ("train", ["--lr", "inf"], "--lr"),
    ("train.sample", ["--temperature", "nan"], "--temperature"),
])
def test_non_finite_numbers_are_refused(trained, text_file, tmp_path, module, flags, fragment):
    where = [text_file, "--out", tmp_path / "new"] if module == "train" else ["--out", trained]
    assert_usage_error(cli(module, *where, *flags), fragment)


def test_preset_without_file_says_where_to_get_tiny_shakespeare(tmp_path):
    message = assert_usage_error(cli("train", "--preset", "baby-shakespeare", "--out",
                                     tmp_path / "out"), "baby-shakespeare", "FILE")
    assert "shakespeare" in message.lower() and "https://" in message
    assert not (tmp_path / "out" / "ckpt.npz").exists()


@pytest.mark.skipif(not SHAKESPEARE.is_file(), reason=f"{SHAKESPEARE} is absent")
def test_preset_with_tiny_shakespeare(tmp_path):
    out = tmp_path / "out"
    assert train_in_process(SHAKESPEARE, "--preset", "baby-shakespeare", "--out", out, *TINY,
                            "--steps", "2", "--eval-every", "1") == 0
    assert [r["step"] for r in metrics(out)] == [0, 1, 2]
    config = json.loads(str(arrays(out / "ckpt.npz")["train_config"]))
    assert config["warmup"] == 100 and config["n_layer"] == 1  # the preset, then the flags


# ---- a loss that is no longer finite ---------------------------------------------------------

@pytest.mark.parametrize("eval_every", ["1", "5"])
def test_a_diverging_run_stops_and_keeps_the_last_good_checkpoint(text_file, tmp_path,
                                                                   eval_every):
    out = tmp_path / "out"
    result = cli("train", text_file, "--out", out, *TINY, "--steps", "200", "--eval-every",
                 eval_every, "--lr", "1e6", "--grad-clip", "0", "--warmup", "0")
    assert result.returncode not in (0, 2), result.stderr
    assert "Traceback" not in result.stderr
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


def test_a_non_finite_evaluation_is_not_saved(text_file, tmp_path, monkeypatch, capsys):
    real = train.train.estimate_loss

    def nan_from_step_4(model, splits, config, step):
        result = real(model, splits, config, step)
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
    result = cli("train.sample", *args)
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


def test_sample_default_prompt_without_a_newline_in_the_vocabulary(trained):
    result = cli("train.sample", "--out", trained, "--tokens", "5", "--seed", "0")
    assert result.returncode == 0, result.stderr
    assert len(result.stdout.rstrip("\n")) == 6  # the vocabulary's first character + 5


def test_sample_errors(trained, tmp_path):
    assert_usage_error(cli("train.sample", "--out", trained, "--prompt", "QZ!", "--tokens", "5"),
                       "--prompt", "vocabulary", "Q")
    assert_usage_error(cli("train.sample", "--out", tmp_path, "--tokens", "5"),
                       "no checkpoint")
    assert_usage_error(cli("train.sample", "--out", trained, "--top-k", "0"), "--top-k")


# ---- python -m train.attention ---------------------------------------------------------------

TEXT_40 = "the cat sat on the mat the dog ran far o"


def test_attention_prints_a_heatmap_per_head_within_80_columns(trained):
    assert len(TEXT_40) == 40
    result = cli("train.attention", "--out", trained, "--text", TEXT_40)
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert max(len(line) for line in lines) <= 80, max(lines, key=len)
    assert sum(line.startswith("legend:") for line in lines) == 2  # one per head
    assert [line.split(" (")[0] for line in lines if line.startswith("layer ")] == [
        "layer 1, head 0", "layer 1, head 1"]
    assert sum(line.startswith("t ") for line in lines) == 2 * TEXT_40.count("t")


def test_attention_one_head_of_one_layer(trained):
    result = cli("train.attention", "--out", trained, "--text", TEXT_40, "--layer", "0",
                 "--head", "1")
    assert result.returncode == 0, result.stderr
    lines = result.stdout.splitlines()
    assert [line for line in lines if line.startswith("layer ")][0].startswith("layer 0, head 1")
    assert sum(line.startswith("legend:") for line in lines) == 1
    assert max(len(line) for line in lines) <= 80
    negative = cli("train.attention", "--out", trained, "--text", TEXT_40, "--layer", "-2",
                   "--head", "1")
    assert negative.stdout == result.stdout


@pytest.mark.parametrize("flags, fragments", [
    (["--text", "the", "--layer", "2"], ["--layer 2", "2 layers"]),
    (["--text", "the", "--layer", "-3"], ["--layer -3"]),
    (["--text", "the", "--head", "2"], ["--head 2", "2 heads"]),
    (["--text", "the", "--head", "-1"], ["--head -1"]),
    (["--text", "x" * 49], ["49 characters", "48"]),
    (["--text", "the Q"], ["--text", "vocabulary"]),
    (["--text", ""], ["--text", "empty"]),
], ids=["layer", "negative-layer", "head", "negative-head", "too-long", "vocabulary", "empty"])
def test_attention_errors(trained, flags, fragments):
    assert_usage_error(cli("train.attention", "--out", trained, *flags), *fragments)
