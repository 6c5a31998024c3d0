"""Checkpoints: one numpy archive (`ckpt.npz`, read with allow_pickle=False: nothing in it is ever
executed) holding the model, the optimizer state, the run's config, the vocabulary (as code
points, so any character survives, NUL included), the step and every RNG state.

Written atomically (see files.py). `load` checks every field, its type, dtype, shape and range,
and their agreement with each other, so a damaged or foreign file is one `error:` line naming the
field, never a traceback. Finiteness is left to the caller, since what matters depends on the use:
training needs finite weights and optimizer state, sampling finite weights, and an attention
heatmap can show a NaN model as it is.

`Saver` writes the checkpoints of a run and remembers the last one written, so that any failure
can say what is kept.
"""
from __future__ import annotations

import json
import os
import zipfile
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from minigrad import serialization
from models import GPT, CharTokenizer, GPTConfig
from models.gpt import Progress

from .config import TrainConfig, weight_decay_groups
from .errors import UsageError
from .metrics import MetricsLog

FILENAME = "ckpt.npz"
FORMAT_VERSION = 3  # 3: vocabulary as code points, one config (the model's shape inside it)
MAX_CODE_POINT = 0x10FFFF
ADAMW_BUFFERS = ("exp_avg", "exp_avg_sq")
FIELDS = ("format_version", "train_config", "vocab", "step", "rng_states")


@dataclass
class Checkpoint:
    config: TrainConfig
    vocab: list[str]
    step: int
    model_state: dict[str, np.ndarray]
    optim_state: dict[str, np.ndarray]
    rng_states: dict[str, Any]  # "data", "model" -> numpy PCG64 state
    identity: tuple[int, ...] = ()  # (device, inode, size, mtime) of the file it was read from

    @property
    def dtype(self) -> np.dtype:
        return next(iter(self.model_state.values())).dtype

    def build_model(self, model_config: GPTConfig | None = None,
                    progress: Progress | None = None) -> GPT:
        """The model with these weights and RNG state; `model_config` may differ from the saved
        one in its dropout rate only (a resumed run can change it). `progress`: as GPT's."""
        model = GPT(model_config or self.config.model, dtype=self.dtype, progress=progress)
        model.load_state_dict(self.model_state)
        model.rng.bit_generator.state = self.rng_states["model"]
        return model

    def tokenizer(self) -> CharTokenizer:
        return CharTokenizer(self.vocab)

    def first_non_finite(self, optimizer_too: bool = False) -> str | None:
        """The name of the first weight (or optimizer buffer) holding NaN or inf, if any."""
        arrays = {f"model/{k}": v for k, v in self.model_state.items()}
        if optimizer_too:
            arrays.update({f"optim/{k}": v for k, v in self.optim_state.items()})
        return next((name for name, a in arrays.items() if not np.isfinite(a).all()), None)


def save(path: Path, ckpt: Checkpoint) -> None:
    arrays: dict[str, np.ndarray] = {
        "format_version": np.array(FORMAT_VERSION),
        "train_config": np.array(json.dumps(ckpt.config.to_dict())),
        "vocab": np.array([ord(c) for c in ckpt.vocab], dtype=np.uint32),
        "step": np.array(ckpt.step),
        "rng_states": np.array(json.dumps(ckpt.rng_states)),
    }
    arrays.update({f"model/{k}": v for k, v in ckpt.model_state.items()})
    arrays.update({f"optim/{k}": v for k, v in ckpt.optim_state.items()})
    serialization.save(arrays, path)  # atomically: a crash leaves the old checkpoint whole


class Damaged(Exception):
    """A field of the checkpoint is missing or wrong: (field, what is wrong)."""


def load(path: str | Path) -> Checkpoint:
    """Read a checkpoint, or raise a UsageError naming the field that makes it unusable."""
    path = Path(path)
    if path.is_dir() and path.name == FILENAME:  # OUT/ckpt.npz, a directory of the user's
        raise UsageError(f"{path} is a directory, not a checkpoint; move it away (the run "
                         f"writes its checkpoint there), or point to another file")
    if path.is_dir():  # --checkpoint OUT
        path = path / FILENAME
    if not path.is_file():
        if path.parent.is_file():  # --out names a file (the checkpoint itself, say)
            raise UsageError(f"{path.parent} is a file, not a training directory: give --out "
                             f"the directory that holds {FILENAME}")
        if path.name != FILENAME:  # --checkpoint: training would not write this name
            raise UsageError(f"no checkpoint at {path}; python -m train writes OUT/{FILENAME}")
        raise UsageError(f"no checkpoint at {path}; train one first (python -m train FILE "
                         f"--out {path.parent})")
    try:
        with open(path, "rb") as f:
            info = os.fstat(f.fileno())
            try:
                arrays = serialization.load(f)  # no pickle, nothing but arrays
            except serialization.UnreadableEntry as err:
                raise Damaged(err.name, f"cannot be read ({err.reason})") from None
        ckpt = _checked(arrays)
    except Damaged as err:
        field, problem = err.args
        raise UsageError(f"{path}: its field {field!r} {problem}; the checkpoint is damaged or "
                         f"from another program: train again or point to another file") from None
    except PermissionError as err:  # the file may well be whole: not "truncated" then
        raise UsageError(f"cannot read {path} ({err.strerror}); give yourself read permission "
                         f"(chmod u+r) or point to another file") from None
    except (OSError, ValueError, EOFError, zipfile.BadZipFile, NotImplementedError,
            RuntimeError, zlib.error) as err:  # the last 3: damaged zip headers
        raise UsageError(f"{path} is not a readable minigrad checkpoint ({type(err).__name__}: "
                         f"{err}); it may be truncated or from another program: train again or "
                         f"point to another file") from None
    ckpt.identity = _identity(info)
    return ckpt


def file_identity(path: Path) -> tuple[int, ...]:
    """What `Checkpoint.identity` holds for the file now at `path`; () if there is none: a
    different value means another file was written there since."""
    try:
        return _identity(path.stat())
    except FileNotFoundError:
        return ()


def _identity(info: os.stat_result) -> tuple[int, ...]:
    return (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns)


def _checked(arrays: dict[str, np.ndarray]) -> Checkpoint:
    """Every field of the archive checked, in an order where each check can rely on the last."""
    for name in FIELDS:
        if name not in arrays:
            raise Damaged(name, "is missing")
    version = _scalar_int(arrays, "format_version")
    if version != FORMAT_VERSION:
        raise Damaged("format_version", f"is {version}, this minigrad reads format "
                                        f"{FORMAT_VERSION} (train again)")
    try:
        config = TrainConfig.from_dict(_json(arrays, "train_config"))
    except (ValueError, TypeError, UsageError) as err:
        raise Damaged("train_config", f"is not a valid config ({err})") from None
    vocab = _vocab(arrays["vocab"], config.model.vocab_size)
    step = _scalar_int(arrays, "step")
    rng_states = _json(arrays, "rng_states")
    if not isinstance(rng_states, dict) or set(rng_states) != {"data", "model"}:
        raise Damaged("rng_states", "is not an object with 'data' and 'model' entries")
    for name, state in rng_states.items():
        _check_pcg64(state, f"rng_states.{name}")

    # what the weights must look like, as arrays that take no memory: building the model to
    # see would double the time a large one takes to load
    nothing = np.zeros((), dtype=np.dtype(config.dtype))
    expected = {name: np.broadcast_to(nothing, shape)
                for name, shape in config.model.parameter_shapes().items()}
    model_state = _group(arrays, "model/")
    for name in sorted(set(model_state) | set(expected)):
        field = f"model/{name}"
        if name not in expected:
            raise Damaged(field, "is not a weight of the model its config describes")
        if name not in model_state:
            raise Damaged(field, "is missing")
        _check_like(model_state[name], expected[name], field)

    optim_state = _group(arrays, "optim/")
    decayed, not_decayed = weight_decay_groups(list(expected.values()))
    _check_optimizer(optim_state, decayed + not_decayed, step)
    unknown = set(arrays) - set(FIELDS) - {n for n in arrays if n.startswith(("model/", "optim/"))}
    if unknown:
        raise Damaged(sorted(unknown)[0], "is not a field of a minigrad checkpoint")
    return Checkpoint(config, vocab, step, model_state, optim_state, rng_states)


def _group(arrays: dict[str, np.ndarray], prefix: str) -> dict[str, np.ndarray]:
    return {n[len(prefix):]: a for n, a in arrays.items() if n.startswith(prefix)}


def _scalar_int(arrays: dict[str, np.ndarray], name: str) -> int:
    value = arrays[name]
    if value.shape != () or value.dtype.kind not in "iu":
        raise Damaged(name, f"is a {value.dtype} array of shape {value.shape}, not an integer")
    if int(value) < 0:
        raise Damaged(name, f"is {int(value)}, not >= 0")
    return int(value)


def _json(arrays: dict[str, np.ndarray], name: str) -> Any:
    value = arrays[name]
    if value.shape != () or value.dtype.kind != "U":
        raise Damaged(name, f"is a {value.dtype} array of shape {value.shape}, not a string")
    try:
        return json.loads(str(value))
    except (ValueError, RecursionError) as err:
        raise Damaged(name, f"is not valid JSON ({err})") from None


def _vocab(codes: np.ndarray, vocab_size: int) -> list[str]:
    if codes.ndim != 1 or codes.dtype.kind not in "iu":
        raise Damaged("vocab", f"is a {codes.dtype} array of shape {codes.shape}, not a list of "
                               f"code points")
    if len(codes) != vocab_size:
        raise Damaged("vocab", f"has {len(codes)} characters but the model's vocab_size is "
                               f"{vocab_size}")
    points = codes.astype(np.int64)
    if not ((points >= 0) & (points <= MAX_CODE_POINT)).all():
        raise Damaged("vocab", "holds a number that is not a Unicode code point")
    if (np.diff(points) <= 0).any():
        raise Damaged("vocab", "is not in increasing order without repeats")
    return [chr(p) for p in points]


def _check_pcg64(state: Any, field: str) -> None:
    """The state numpy's PCG64 bit generator writes, checked before numpy ever sees it."""
    def uint(value: Any, bits: int) -> bool:
        return isinstance(value, int) and not isinstance(value, bool) and 0 <= value < 2**bits

    ok = (isinstance(state, dict) and set(state) == {"bit_generator", "state", "has_uint32",
                                                      "uinteger"}
          and state["bit_generator"] == "PCG64" and isinstance(state["state"], dict)
          and set(state["state"]) == {"state", "inc"}
          and uint(state["state"]["state"], 128) and uint(state["state"]["inc"], 128)
          and state["has_uint32"] in (0, 1) and uint(state["has_uint32"], 1)
          and uint(state["uinteger"], 32))
    if not ok:
        raise Damaged(field, "is not the state of numpy's PCG64 generator")


def _check_like(value: np.ndarray, like: np.ndarray, field: str) -> None:
    if value.dtype != like.dtype or value.shape != like.shape:
        raise Damaged(field, f"is {value.dtype} {value.shape}, the config says {like.dtype} "
                             f"{like.shape}")


def _check_optimizer(state: dict[str, np.ndarray], params: list[np.ndarray], step: int) -> None:
    """AdamW's state as `state_dict` writes it: its step count, and per parameter (`params`,
    arrays of their dtypes and shapes in the optimizer's order) the two moment buffers and the
    number of updates: all that `AdamW.load_state_dict` checks, and more."""
    if "step" not in state:
        raise Damaged("optim/step", "is missing")
    for key, value in state.items():
        field = f"optim/{key}"
        buffer, _, index = key.rpartition(".")
        if key != "step" and (buffer not in ("updates", *ADAMW_BUFFERS) or not index.isascii()
                              or not index.isdigit() or int(index) >= len(params)):
            raise Damaged(field, "is not a buffer of AdamW over this model's parameters")
        if key == "step" or buffer == "updates":
            if value.shape != () or value.dtype.kind not in "iu" or not 0 <= int(value) <= step:
                raise Damaged(field, f"is {value.tolist()!r}, not an integer from 0 to the step "
                                     f"({step})")
            if key == "step" and int(value) != step:
                raise Damaged(field, f"is {int(value)}, but the checkpoint is at step {step}")
            continue
        _check_like(value, params[int(index)], field)
        if buffer == "exp_avg_sq" and (value < 0).any():
            raise Damaged(field, "holds a negative mean square")
    # a parameter's first update makes its three entries: all of them are there, or none
    for index in sorted({int(key.rpartition(".")[2]) for key in state if key != "step"}):
        for buffer in ("updates", *ADAMW_BUFFERS):
            if f"{buffer}.{index}" not in state:
                raise Damaged(f"optim/{buffer}.{index}", "is missing")


class Saver:
    """Writes a run's evaluations (metrics.jsonl) and checkpoints (ckpt.npz), each evaluation's
    row first, so that no checkpoint is ever ahead of the metrics; remembers the step of the last
    checkpoint written, for the messages that say what is kept."""

    def __init__(self, out: Path, metrics: MetricsLog, last_step: int | None,
                 resume_command: str) -> None:
        self.path = out / FILENAME
        self.metrics = metrics
        self.last_step = last_step
        self.resume_command = resume_command  # what continues the run from its checkpoint

    def kept(self) -> str:
        if self.last_step is None:
            return "no checkpoint was written"
        return f"the last good checkpoint (step {self.last_step}) is kept in {self.path}"

    def kept_and_how_to_continue(self) -> str:
        if self.last_step is None:
            return self.kept()
        return f"{self.kept()}; continue with: {self.resume_command}"

    def save(self, ckpt: Checkpoint, row: dict[str, Any] | None = None) -> None:
        """Append `row` (if any) to the metrics, then write the checkpoint; a write that fails
        is a UsageError saying what is kept."""
        what = f"the metrics {self.metrics.path}"
        try:
            if self.last_step is None:
                # a new run's first save: the files of the run it replaces (--overwrite) go
                # first, so that OUT never holds one run's checkpoint with another's metrics
                what = f"the checkpoint {self.path}"
                self.path.unlink(missing_ok=True)
                what = f"the metrics {self.metrics.path}"
                if row is None:  # stopped before its first evaluation: no metrics yet
                    self.metrics.path.unlink(missing_ok=True)
            if row is not None:
                self.metrics.append(row)
            what = f"the checkpoint {self.path}"
            save(self.path, ckpt)
        except OSError as err:
            # with none written, the metrics row already in OUT would stop the same command
            # ("already holds a run")
            then = (f"continue with: {self.resume_command}" if self.last_step is not None else
                    "run the command again with --overwrite")
            raise UsageError(f"cannot write {what} ({err.strerror or err}); {self.kept()}: free "
                             f"some space (or remove what stops the write), then {then}") from None
        self.last_step = ckpt.step
