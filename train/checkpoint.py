"""Checkpoints: one numpy archive (`ckpt.npz`, loadable with allow_pickle=False) holding the model,
the optimizer state, the configs, the vocabulary, the step and every RNG state.

Written atomically: the archive goes to a temporary file beside the target, is flushed to disk,
then renamed over it, so a crash or kill mid-write leaves the previous checkpoint intact.
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

from models import GPT, CharTokenizer, GPTConfig

from .errors import UsageError

FORMAT_VERSION = 2  # 2: AdamW's per-parameter update counts


@dataclass
class Checkpoint:
    model_config: GPTConfig
    train_config: dict[str, Any]
    vocab: str
    step: int
    model_state: dict[str, np.ndarray]
    optim_state: dict[str, np.ndarray]
    rng_states: dict[str, Any]  # name -> numpy bit-generator state

    def build_model(self) -> tuple[GPT, CharTokenizer]:
        """The model with these weights (in the checkpoint's dtype) and its tokenizer."""
        try:
            if not self.model_state:
                raise KeyError("it holds no model weights")
            dtype = next(iter(self.model_state.values())).dtype
            model = GPT(self.model_config, dtype=dtype)
            model.load_state_dict(self.model_state)
        except (KeyError, ValueError) as err:
            raise UsageError(f"the checkpoint does not fit its own config ({err}); it is "
                             f"damaged: train again") from None
        model.rng.bit_generator.state = self.rng_states["model"]
        return model, CharTokenizer(self.vocab)


def save(path: Path, ckpt: Checkpoint) -> None:
    arrays: dict[str, np.ndarray] = {
        "format_version": np.array(FORMAT_VERSION),
        "model_config": np.array(json.dumps(vars(ckpt.model_config))),
        "train_config": np.array(json.dumps(ckpt.train_config)),
        "vocab": np.array(ckpt.vocab),
        "step": np.array(ckpt.step),
        "rng_states": np.array(json.dumps(ckpt.rng_states)),
    }
    arrays.update({f"model/{k}": v for k, v in ckpt.model_state.items()})
    arrays.update({f"optim/{k}": v for k, v in ckpt.optim_state.items()})
    tmp = path.with_name(path.name + ".tmp")
    try:
        with open(tmp, "wb") as f:
            np.savez(f, **arrays)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        tmp.unlink(missing_ok=True)
        raise


def load(path: Path) -> Checkpoint:
    """Read a checkpoint, or raise a UsageError saying why it cannot be used."""
    path = Path(path)
    if path.is_dir():
        path = path / "ckpt.npz"
    if not path.is_file():
        raise UsageError(f"no checkpoint at {path}; train one first (python -m train FILE "
                         f"--out {path.parent})")
    try:
        with np.load(path, allow_pickle=False) as archive:
            names = archive.files
            version = int(archive["format_version"])
            if version != FORMAT_VERSION:
                raise UsageError(f"{path} has checkpoint format {version}, this minigrad reads "
                                 f"format {FORMAT_VERSION}; train again")
            return Checkpoint(
                model_config=GPTConfig(**json.loads(str(archive["model_config"]))),
                train_config=json.loads(str(archive["train_config"])),
                vocab=str(archive["vocab"]),
                step=int(archive["step"]),
                model_state={n[6:]: archive[n] for n in names if n.startswith("model/")},
                optim_state={n[6:]: archive[n] for n in names if n.startswith("optim/")},
                rng_states=json.loads(str(archive["rng_states"])),
            )
    except UsageError:
        raise
    except (OSError, ValueError, KeyError, EOFError, TypeError, zipfile.BadZipFile,
            NotImplementedError, RuntimeError, zlib.error) as err:  # last 3: damaged headers
        raise UsageError(f"{path} is not a readable minigrad checkpoint ({type(err).__name__}: "
                         f"{err}); it may be truncated or from another program: train again or "
                         f"point to another file") from None
