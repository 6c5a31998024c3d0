"""A training run's settings: the model's shape (a GPTConfig, the one place it is defined), the
optimisation, evaluation and data options with their documented ranges, and the named presets.

`TrainConfig.validate` is the one check of every setting, for flags and checkpoints alike; its
messages name the flag to change.
"""
from __future__ import annotations

import math
import re
from dataclasses import asdict, dataclass, field, fields
from typing import Any, TypeVar

import numpy as np

from minigrad import optim
from models import GPT, GPTConfig

from .errors import UsageError
from .parallel import usable_cores

MAX_SEED = 2**64 - 1  # the largest seed torch.manual_seed takes
AUTO_EVAL_MAX = 250  # without --eval-every: every tenth of the run, at most this many steps

# the documented range of each number (shown by --help, enforced by TrainConfig.validate)
RANGES = {
    "steps": ">= 1", "batch_size": ">= 1", "block_size": ">= 1", "n_layer": ">= 1",
    "n_head": ">= 1", "n_embd": ">= 1, a multiple of --n-head", "dropout": "in [0, 1)",
    "lr": "a finite number > 0", "min_lr": "from 0 to --lr",
    "warmup": ">= 0, below --lr-decay-steps",
    "lr_decay_steps": ">= 1", "weight_decay": "a finite number >= 0", "beta1": "in [0, 1)",
    "beta2": "in [0, 1)", "grad_clip": "a finite number >= 0",
    "eval_every": ">= 1", "eval_iters": ">= 1", "sample_every": ">= 0",
    "threads": "from 1 to --batch-size", "seed": "from 0 to 2**64 - 1",
}


def flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def default_threads(batch_size: int) -> int:
    """Data parallel over every usable core (one BLAS thread each), at most one per sequence."""
    return max(1, min(usable_cores(), batch_size))


def auto_eval_every(steps: int) -> int:
    """A tenth of the run, so that its loss chart has at least ten points; at most 250."""
    return max(1, min(AUTO_EVAL_MAX, steps // 10))


def auto_warmup(decay_steps: int) -> int:
    """A tenth of the learning rate's schedule, at most TrainConfig's 100 (nanoGPT's)."""
    return min(TrainConfig.warmup, decay_steps // 10)


Shaped = TypeVar("Shaped")


def weight_decay_groups(params: list[Shaped]) -> tuple[list[Shaped], list[Shaped]]:
    """Like nanoGPT's, AdamW's two groups, in order: the matrices (ndim >= 2), which decay, then
    the biases and LayerNorm gains, which do not. `params` may be tensors or arrays of their
    shapes: the order of the optimizer's state, which a checkpoint holds."""
    return [p for p in params if p.ndim >= 2], [p for p in params if p.ndim < 2]


@dataclass
class TrainConfig:
    # the model's shape; vocab_size is set from the text's characters. GPTConfig's defaults are
    # the baby GPT's shape: about three minutes on a 2-core CPU (README, "What a trained model
    # writes")
    model: GPTConfig = field(default_factory=GPTConfig)
    # optimisation
    steps: int = 2000
    batch_size: int = 12
    lr: float = 1e-3
    min_lr: float = 1e-4
    warmup: int = 100
    lr_decay_steps: int | None = None  # where the cosine reaches min_lr; None = steps
    weight_decay: float = 0.1
    beta1: float = 0.9
    beta2: float = 0.99
    grad_clip: float = 1.0
    # evaluation, sampling, reproducibility
    eval_every: int | None = None  # None: set by the command line to auto_eval_every(steps)
    eval_iters: int = 20
    sample_every: int = 0
    threads: int = 1  # data-parallel workers; 1 = plain single-thread steps (the command line
    # defaults to the usable cores, see default_threads)
    fused: bool = True  # minigrad's fused kernels; False = every op composed of primitives
    seed: int = 1337
    dtype: str = "float32"
    data: str | None = None  # the text file's absolute path; None = the built-in corpus
    encoding: str = "utf-8"

    def lr_at(self, step: int) -> float:
        """The learning rate of training step `step`: linear warm-up, then cosine decay."""
        return optim.cosine_lr(step, self.lr, self.min_lr, self.warmup,
                               self.lr_decay_steps or self.steps)

    def memory_estimate(self) -> int:
        """Bytes a training step needs at least, roughly: the parameters, their gradients and
        AdamW's two buffers, and the activations kept for the backward pass. Checked before
        anything is allocated, so that absurd sizes are refused with one line."""
        m = self.model
        params = m.num_parameters(non_embedding=False)
        per_position = m.n_layer * (16 * m.n_embd + 2 * m.n_head * m.block_size) + 3 * m.vocab_size
        activations = self.batch_size * m.block_size * per_position
        return np.dtype(self.dtype).itemsize * (4 * params + activations)

    def build_optimizer(self, model: GPT) -> optim.AdamW:
        """AdamW over `weight_decay_groups`, the first with --weight-decay, the other without."""
        decayed, not_decayed = weight_decay_groups(list(model.parameters()))
        groups = [{"params": decayed, "weight_decay": self.weight_decay},
                  {"params": not_decayed, "weight_decay": 0.0}]
        return optim.AdamW(groups, lr=self.lr, betas=(self.beta1, self.beta2))

    def validate(self) -> None:
        """Every setting in its range, or a UsageError naming the flag."""
        try:
            self.model.validate()  # GPTConfig's check is the one definition of a valid shape
        except ValueError as err:
            names = "|".join(f.name for f in fields(GPTConfig))
            raise UsageError(re.sub(rf"\b({names})\b", lambda m: flag(m.group()), str(err)) +
                             "; change that flag") from None
        checks = {
            "steps": self.steps >= 1, "batch_size": self.batch_size >= 1,
            "eval_iters": self.eval_iters >= 1, "warmup": self.warmup >= 0,
            "sample_every": self.sample_every >= 0,
            "eval_every": self.eval_every is None or self.eval_every >= 1,
            "lr_decay_steps": self.lr_decay_steps is None or self.lr_decay_steps >= 1,
            # nan fails every comparison, inf is refused by isfinite
            "lr": 0 < self.lr < math.inf, "min_lr": 0 <= self.min_lr < math.inf,
            "weight_decay": 0 <= self.weight_decay < math.inf,
            "grad_clip": 0 <= self.grad_clip < math.inf,
            "beta1": 0 <= self.beta1 < 1, "beta2": 0 <= self.beta2 < 1,
            "threads": 1 <= self.threads <= self.batch_size, "seed": 0 <= self.seed <= MAX_SEED,
        }
        for name, ok in checks.items():
            if not ok:
                raise UsageError(f"{flag(name)} must be {RANGES[name]}, got {getattr(self, name)}")
        if self.dtype not in ("float32", "float64"):
            raise UsageError(f"--dtype must be float32 or float64, got {self.dtype!r}")
        try:
            # refuses unknown names, bytes-to-bytes codecs and "undefined" (a UnicodeError)
            "".encode(self.encoding)
        except (LookupError, UnicodeError):
            raise UsageError(f"unknown --encoding {self.encoding!r}; try utf-8 or "
                             f"latin-1") from None

    def to_dict(self) -> dict[str, Any]:
        return asdict(self)

    @classmethod
    def from_dict(cls, values: Any) -> TrainConfig:
        """A config as `to_dict` wrote it (JSON from a checkpoint): every entry present and of its
        annotated type, then validated. Raises ValueError or UsageError."""
        if not isinstance(values, dict) or not isinstance(values.get("model"), dict):
            raise ValueError("not a JSON object with a 'model' object in it")
        model = GPTConfig(**_typed(GPTConfig, values["model"]))
        config = cls(model=model, **_typed(cls, values, skip="model"))
        config.validate()
        return config


# a flag per setting: the model's shape (vocab_size comes from the text) and the rest
MODEL_OPTIONS = tuple(f.name for f in fields(GPTConfig) if f.name != "vocab_size")
# what a resumed run keeps: its architecture (the weights' shapes), and the seed of its dropout
# masks and evaluation batches, without which it would not continue bit for bit
KEPT_ON_RESUME = (*(name for name in MODEL_OPTIONS if name != "dropout"), "seed")

PRESETS: dict[str, dict[str, Any]] = {
    # nanoGPT's CPU "baby GPT" for tiny Shakespeare (nanoGPT reports val loss 1.88); its
    # losses estimated from 50 batches where nanoGPT's command takes 20, for a steadier figure
    "baby-shakespeare": dict(n_layer=4, n_head=4, n_embd=128, block_size=64, batch_size=12,
                             dropout=0.0, lr=1e-3, steps=2000, warmup=100, min_lr=1e-4,
                             beta1=0.9, beta2=0.99, weight_decay=0.1, grad_clip=1.0,
                             eval_every=250, eval_iters=50),
}

_JSON_TYPES = {"int": int, "float": (int, float), "str": str, "bool": bool, "None": type(None)}


def _typed(cls: type, values: dict[str, Any], skip: str = "") -> dict[str, Any]:
    """`values` checked against the dataclass's fields: the same names, JSON values of the
    annotated types (a bool is no number); integers given for floats become floats."""
    names = {f.name for f in fields(cls)} - {skip}
    if set(values) - {skip} != names:
        missing, unexpected = sorted(names - set(values)), sorted(set(values) - names - {skip})
        raise ValueError(f"{cls.__name__}: missing entries {missing}, unexpected {unexpected}")
    typed = {}
    for f in fields(cls):
        if f.name == skip:
            continue
        value, allowed = values[f.name], [a.strip() for a in str(f.type).split("|")]
        if not any(isinstance(value, _JSON_TYPES.get(a, ())) and
                   (a == "bool" or not isinstance(value, bool)) for a in allowed):
            raise ValueError(f"{f.name} is {value!r}, not {f.type}")
        typed[f.name] = float(value) if allowed == ["float"] else value
    return typed
