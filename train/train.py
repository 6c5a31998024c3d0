"""Train the GPT-style character model on a text file: `python -m train [FILE] [options]`.

Read top to bottom: the config and its presets, the command line, then `main`, which loads the
text, builds (or resumes) the model and optimizer, and runs the loop: sample a batch, forward,
backward, clip, AdamW step; every `eval_every` steps estimate train/val loss, append it to
OUT/metrics.jsonl and write OUT/ckpt.npz. Ctrl-C stops cleanly with a checkpoint.
"""
from __future__ import annotations

import argparse
import json
import math
import shlex
import signal
import sys
import time
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

import numpy as np
from tqdm import tqdm

from minigrad import no_grad, optim
from models import GPT, CharTokenizer, GPTConfig

from . import checkpoint
from .data import default_corpus, get_batch, read_text, split
from .errors import INTERRUPTED_EXIT, UsageError
from .parallel import DataParallel
from .plot import loss_chart



@dataclass
class TrainConfig:
    # model (stored in the checkpoint as a GPTConfig; vocab_size comes from the text); the
    # defaults are the baby GPT's shape: about two minutes on a 2-core CPU
    block_size: int = 64
    n_layer: int = 4
    n_head: int = 4
    n_embd: int = 128
    dropout: float = 0.0
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
    eval_every: int = 250
    eval_iters: int = 20
    sample_every: int = 0
    threads: int = 1  # data-parallel workers; 1 = plain single-thread steps
    seed: int = 1337
    dtype: str = "float32"
    data: str | None = None  # the text file; None = the built-in corpus
    encoding: str = "utf-8"


PRESETS: dict[str, dict[str, Any]] = {
    # nanoGPT's CPU "baby GPT" for tiny Shakespeare (nanoGPT reports val loss 1.88)
    "baby-shakespeare": dict(n_layer=4, n_head=4, n_embd=128, block_size=64, batch_size=12,
                             dropout=0.0, lr=1e-3, steps=2000, warmup=100, min_lr=1e-4,
                             beta1=0.9, beta2=0.99, weight_decay=0.1, grad_clip=1.0,
                             eval_every=250, eval_iters=50),
}
ARCHITECTURE = ("block_size", "n_layer", "n_head", "n_embd")
TINY_SHAKESPEARE_URL = ("https://raw.githubusercontent.com/karpathy/char-rnn/master/data/"
                        "tinyshakespeare/input.txt")


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    d = TrainConfig()
    p = argparse.ArgumentParser(
        prog="python -m train",
        description="Train a GPT-style character language model on a text file with minigrad. "
                    "Without FILE it trains on minigrad's own source code and docs.")
    p.add_argument("file", nargs="?", metavar="FILE", help="UTF-8 text file to train on")
    p.add_argument("--preset", choices=sorted(PRESETS), help="a named set of the options below "
                   "(baby-shakespeare: nanoGPT's CPU baby GPT; give tinyshakespeare.txt as FILE)")
    p.add_argument("--encoding", default=None, help="the text file's encoding (default utf-8)")
    p.add_argument("--out", default="out", help="directory for ckpt.npz and metrics.jsonl "
                   "(default out/)")
    p.add_argument("--resume", action="store_true", help="continue the run in OUT/ckpt.npz; "
                   "its settings are kept unless given again here (e.g. a larger --steps)")
    p.add_argument("--overwrite", action="store_true",
                   help="start a new run even if OUT already holds a checkpoint")

    def option(name: str, type_: type, help_: str) -> None:
        default = getattr(d, name)
        p.add_argument(f"--{name.replace('_', '-')}", dest=name, type=type_, default=None,
                       metavar="N" if type_ is int else "X",
                       help=help_ if default is None else f"{help_} (default {default})")

    option("steps", int, "optimizer steps to train to")
    option("batch_size", int, "sequences per step")
    option("block_size", int, "context length in characters")
    option("n_layer", int, "transformer blocks")
    option("n_head", int, "attention heads per block")
    option("n_embd", int, "embedding width (a multiple of n_head)")
    option("dropout", float, "dropout probability")
    option("lr", float, "peak learning rate")
    option("min_lr", float, "learning rate at the end of the cosine decay")
    option("warmup", int, "linear warm-up steps")
    option("lr_decay_steps", int, "step where the cosine reaches --min-lr; default --steps")
    option("weight_decay", float, "AdamW decoupled weight decay (matrices only)")
    option("beta1", float, "AdamW beta1")
    option("beta2", float, "AdamW beta2")
    option("grad_clip", float, "clip the global gradient norm to this; 0 = off")
    option("eval_every", int, "evaluate and checkpoint every this many steps")
    option("eval_iters", int, "batches per split in each evaluation")
    option("sample_every", int, "print a short sample every this many steps; 0 = off")
    option("seed", int, "seed of the initialisation, batches and dropout")
    option("threads", int, "split each batch across this many threads (data parallel; "
           "same result up to float32 rounding)")
    p.add_argument("--dtype", choices=["float32", "float64"], default=None,
                   help="floating-point type of the model (default float32)")
    return p.parse_args(argv)


def resolve_config(args: argparse.Namespace, saved: dict[str, Any] | None) -> TrainConfig:
    """Defaults, then the resumed run's settings, then the preset, then flags given here."""
    values = asdict(TrainConfig())
    if saved is not None:
        values.update({k: v for k, v in saved.items() if k in values})
    if args.preset:
        values.update(PRESETS[args.preset])
    explicit = {f.name: getattr(args, f.name) for f in fields(TrainConfig)
                if getattr(args, f.name, None) is not None}
    if saved is not None:
        changed = [k for k in ARCHITECTURE if k in explicit and explicit[k] != saved[k]]
        if changed:
            raise UsageError(
                "the checkpoint was trained with " + ", ".join(
                    f"--{k.replace('_', '-')} {saved[k]}" for k in changed) +
                "; a resumed run keeps its architecture: drop those flags, or start a new run "
                "with another --out")
    values.update(explicit)
    if args.file is not None:
        values["data"] = args.file
    config = TrainConfig(**values)
    validate(config)
    return config


def validate(c: TrainConfig) -> None:
    for name in ("dropout", "lr", "min_lr", "weight_decay", "beta1", "beta2", "grad_clip"):
        if not math.isfinite(getattr(c, name)):  # nan slips through every comparison below
            raise UsageError(f"--{name.replace('_', '-')} must be a finite number, got "
                             f"{getattr(c, name)}")
    for name in ("steps", "batch_size", "block_size", "n_layer", "n_head", "n_embd",
                 "eval_every", "eval_iters", "threads"):
        if getattr(c, name) <= 0:
            raise UsageError(f"--{name.replace('_', '-')} must be a positive integer, got "
                             f"{getattr(c, name)}")
    for name in ("warmup", "sample_every"):
        if getattr(c, name) < 0:
            raise UsageError(f"--{name.replace('_', '-')} must be >= 0, got {getattr(c, name)}")
    if c.n_embd % c.n_head:
        raise UsageError(f"--n-embd {c.n_embd} is not divisible by --n-head {c.n_head}; pick "
                         f"an --n-embd that is a multiple of it (e.g. {c.n_head * 16})")
    if not 0 <= c.dropout < 1:
        raise UsageError(f"--dropout must be in [0, 1), got {c.dropout}")
    if c.threads > 1 and c.dropout > 0:
        raise UsageError("--threads > 1 needs --dropout 0: the threads would draw dropout masks "
                         "from one generator in a racy order, and runs would not repeat")
    if not (c.lr > 0 and c.min_lr >= 0):
        raise UsageError(f"--lr must be > 0 and --min-lr >= 0, got {c.lr} and {c.min_lr}")
    if c.lr_decay_steps is not None and c.lr_decay_steps <= 0:
        raise UsageError(f"--lr-decay-steps must be positive, got {c.lr_decay_steps}")
    if not (0 <= c.beta1 < 1 and 0 <= c.beta2 < 1) or c.weight_decay < 0 or c.grad_clip < 0:
        raise UsageError("--beta1/--beta2 must be in [0, 1); --weight-decay and --grad-clip >= 0")


def prepare_out_dir(out: Path) -> None:
    """Create OUT and prove it is writable before any work is done."""
    try:
        out.mkdir(parents=True, exist_ok=True)
        probe = out / ".write-test"
        probe.write_bytes(b"")
        probe.unlink()
    except OSError as err:
        raise UsageError(f"cannot write to --out {out} ({err.strerror or err}); choose a "
                         f"directory you can write to") from None


def make_optimizer(model: GPT, c: TrainConfig) -> optim.AdamW:
    """AdamW; like nanoGPT, only matrices (ndim >= 2) decay, not biases or LayerNorm gains."""
    params = model.parameters()
    groups = [{"params": [p for p in params if p.ndim >= 2], "weight_decay": c.weight_decay},
              {"params": [p for p in params if p.ndim < 2], "weight_decay": 0.0}]
    return optim.AdamW(groups, lr=c.lr, betas=(c.beta1, c.beta2))


@no_grad()
def estimate_loss(model: GPT, splits: dict[str, np.ndarray], c: TrainConfig,
                  step: int) -> dict[str, float]:
    """Mean loss over `eval_iters` batches of each split, drawn from their own seeded generator
    so that evaluating never shifts the training batches."""
    model.eval()
    rng = np.random.default_rng([c.seed, step])
    result = {}
    for name, data in splits.items():
        losses = [model(*get_batch(data, c.batch_size, c.block_size, rng))[1].item()
                  for _ in range(c.eval_iters)]
        result[name] = float(np.mean(losses))
    model.train()
    return result


def sample_text(model: GPT, tokenizer: CharTokenizer, prompt: str, n: int, seed: int) -> str:
    ids = model.generate(tokenizer.encode(prompt), n, temperature=0.8,
                         rng=np.random.default_rng(seed))
    return tokenizer.decode(ids[0])


def read_metrics(path: Path, up_to_step: int | None = None) -> list[dict[str, Any]]:
    """The rows of a metrics file up to a step; a line cut short by a crash is skipped."""
    rows = []
    if path.exists():
        for line in path.read_text().splitlines():
            try:
                rows.append(json.loads(line))
            except json.JSONDecodeError:
                continue
    return [r for r in rows if up_to_step is None or r.get("step", math.inf) <= up_to_step]


def write_metrics(path: Path, rows: list[dict[str, Any]], mode: str) -> None:
    try:
        with path.open(mode) as f:
            f.writelines(json.dumps(r) + "\n" for r in rows)
    except OSError as err:
        raise UsageError(f"cannot write {path} ({err.strerror or err}); free some space or "
                         f"choose another --out") from None


def main(argv: list[str] | None = None) -> int:
    args = parse_args(argv)
    out = Path(args.out)
    ckpt_path, metrics_path = out / "ckpt.npz", out / "metrics.jsonl"

    # ---- settings: a resumed run starts from its checkpoint's ----
    saved = checkpoint.load(ckpt_path) if args.resume else None
    config = resolve_config(args, saved.train_config if saved else None)
    if args.preset and args.resume:
        raise UsageError("--preset sets up a new run; a resumed run keeps its own settings: drop "
                         "--preset (or start a new run with another --out)")
    if args.preset and config.data is None:
        raise UsageError(f"--preset {args.preset} trains on tiny Shakespeare: pass its path as "
                         f"FILE (download it from {TINY_SHAKESPEARE_URL})")
    if not args.resume and ckpt_path.exists() and not args.overwrite:
        raise UsageError(f"{ckpt_path} already holds a run; pass --resume to continue it, "
                         f"--overwrite to start over, or --out DIR for a new run")

    # ---- data ----
    if config.data is None:
        text, files = default_corpus()
        print(f"No FILE given: training on minigrad's own source and docs ({len(files)} files, "
              f"{len(text):,} characters). Give a text file to train on your own.")
    else:
        text = read_text(config.data, config.encoding)
    tokenizer = CharTokenizer(saved.vocab) if saved else CharTokenizer(text)
    try:
        data = tokenizer.encode(text)
    except ValueError as err:
        raise UsageError(f"cannot resume on this text: {err}") from None
    train_data, val_data = split(data, config.block_size)
    prepare_out_dir(out)

    # ---- model and optimizer ----
    dtype = np.dtype(config.dtype)
    if saved:
        model, _ = saved.build_model()
        if model.parameters()[0].dtype != dtype:
            raise UsageError(f"the checkpoint holds a {model.parameters()[0].dtype} model; "
                             f"drop --dtype or pass --dtype {model.parameters()[0].dtype}")
    else:
        model_config = GPTConfig(tokenizer.vocab_size, config.block_size, config.n_layer,
                                 config.n_head, config.n_embd, config.dropout)
        model = GPT(model_config, seed=config.seed, dtype=dtype)
    for block in [model, *model.blocks]:
        block.dropout.p = config.dropout
    model.config.dropout = config.dropout
    optimizer = make_optimizer(model, config)
    data_rng = np.random.default_rng(config.seed + 1)
    step = 0
    if saved:
        try:
            optimizer.load_state_dict(saved.optim_state)
        except (KeyError, ValueError) as err:
            raise UsageError(f"the checkpoint's optimizer state does not fit the model ({err}); "
                             f"it is damaged: start a new run") from None
        data_rng.bit_generator.state = saved.rng_states["data"]
        step = saved.step
        if step >= config.steps:
            raise UsageError(f"the checkpoint is already at step {step}; pass a larger --steps "
                             f"to train on")
        print(f"Resuming from {ckpt_path} at step {step}.")
    print(f"Model: {model.num_parameters() / 1e6:.2f}M parameters (non-embedding), "
          f"{config.n_layer} layers, {config.n_head} heads, width {config.n_embd}, context "
          f"{config.block_size}; vocabulary of {tokenizer.vocab_size} characters; "
          f"{len(train_data):,} training characters.")

    # metrics of this run: kept up to the checkpoint's step on resume, started afresh otherwise
    history = read_metrics(metrics_path, step) if saved else []
    write_metrics(metrics_path, history, "w")

    last_saved = step if saved else None  # the step of the checkpoint on disk from this run

    def save() -> None:
        nonlocal last_saved
        try:
            checkpoint.save(ckpt_path, checkpoint.Checkpoint(
                model.config, asdict(config), "".join(tokenizer.chars), step,
                model.state_dict(), optimizer.state_dict(),
                {"data": data_rng.bit_generator.state, "model": model.rng.bit_generator.state}))
        except OSError as err:
            kept = f"step {last_saved}" if last_saved is not None else "none"
            raise UsageError(f"cannot write the checkpoint {ckpt_path} ({err.strerror or err}); "
                             f"the last one written ({kept}) is intact: free some space or "
                             f"choose another --out, then --resume") from None
        last_saved = step

    def diverged(what: str) -> int:
        """Stop a run whose loss is no longer finite, keeping the last good checkpoint."""
        bar.close()
        kept = (f"the last good checkpoint (step {last_saved}) is kept in {ckpt_path}"
                if last_saved is not None else "no checkpoint was written")
        print(f"error: {what} at step {step}; the run is stopped and {kept}. Lower --lr, or "
              f"clip the gradients with --grad-clip.", file=sys.stderr)
        return 1

    # ---- Ctrl-C: finish the current step, save, and say how to resume ----
    interrupted = False

    def on_sigint(signum: int, frame: Any) -> None:
        nonlocal interrupted
        interrupted = True
        signal.signal(signal.SIGINT, signal.default_int_handler)  # a second Ctrl-C aborts

    previous_handler = signal.signal(signal.SIGINT, on_sigint)

    splits = {"train": train_data, "val": val_data}
    tokens_per_step = config.batch_size * config.block_size
    decay_steps = config.lr_decay_steps or config.steps
    params = model.parameters()
    timer_start, timer_steps = time.perf_counter(), 0
    lr = optim.cosine_lr(step, config.lr, config.min_lr, config.warmup, decay_steps)

    def finite(losses: dict[str, float]) -> bool:
        return all(math.isfinite(v) for v in losses.values())

    def evaluate() -> dict[str, float]:
        """Estimate the losses; record them and save a checkpoint only if they are finite."""
        nonlocal timer_start, timer_steps
        ms = (time.perf_counter() - timer_start) * 1000 / timer_steps if timer_steps else None
        losses = estimate_loss(model, splits, config, step)
        if not finite(losses):
            return losses  # diverged: neither recorded nor saved over the last good checkpoint
        row = {"step": step, "train_loss": losses["train"], "val_loss": losses["val"], "lr": lr,
               "ms_per_step": ms, "tokens_per_s": tokens_per_step * 1000 / ms if ms else None}
        history.append(row)
        write_metrics(metrics_path, [row], "a")
        save()
        bar.write(f"step {step}: train loss {losses['train']:.4f}, val loss "
                  f"{losses['val']:.4f}" + (f", {ms:.0f} ms/step" if ms else ""))
        timer_start, timer_steps = time.perf_counter(), 0
        return losses

    def eval_diverged(losses: dict[str, float]) -> int:
        return diverged(f"the evaluated loss became {losses['train']} (train) and "
                        f"{losses['val']} (val)")

    parallel = DataParallel(model, config.threads) if config.threads > 1 else None
    bar = tqdm(total=config.steps, initial=step, unit="step", dynamic_ncols=True)
    try:
        if not saved and not finite(losses := evaluate()):
            return eval_diverged(losses)
        while step < config.steps and not interrupted:
            lr = optim.cosine_lr(step, config.lr, config.min_lr, config.warmup, decay_steps)
            for group in optimizer.param_groups:
                group["lr"] = lr
            x, y = get_batch(train_data, config.batch_size, config.block_size, data_rng)
            if parallel is not None:
                loss_value = parallel.backward(x, y)  # sets every parameter's .grad
            else:
                _, loss = model(x, y)
                loss_value = loss.item()
                model.zero_grad()
                loss.backward()
            norm = optim.clip_grad_norm_(params, config.grad_clip) if config.grad_clip else 0.0
            if not (math.isfinite(loss_value) and math.isfinite(norm)):
                return diverged(f"the loss became {loss_value}" +
                                (f" (gradient norm {norm})" if config.grad_clip else ""))
            optimizer.step()
            step += 1
            timer_steps += 1
            bar.update(1)
            if step % 10 == 0 or step == config.steps:
                elapsed = time.perf_counter() - timer_start
                bar.set_postfix(loss=f"{loss_value:.4f}",
                                tok_s=f"{tokens_per_step * timer_steps / max(elapsed, 1e-9):,.0f}")
            if (step % config.eval_every == 0 or step == config.steps) and \
                    not finite(losses := evaluate()):
                return eval_diverged(losses)
            if config.sample_every and step % config.sample_every == 0:
                bar.write(repr(sample_text(model, tokenizer, tokenizer.decode(x[0, :1]), 100,
                                           config.seed)))
    finally:
        bar.close()
        signal.signal(signal.SIGINT, previous_handler)
        if parallel is not None:
            parallel.close()

    if interrupted:
        save()
        print(f"Interrupted at step {step}; saved {ckpt_path}. Resume with:\n"
              f"  python -m train --out {shlex.quote(str(out))} --resume")
        return INTERRUPTED_EXIT

    print("\nLoss (evaluated every {} steps):".format(config.eval_every))
    print(loss_chart([r["step"] for r in history],
                     {"train": [r["train_loss"] for r in history],
                      "val": [r["val_loss"] for r in history]}))
    prompt = tokenizer.default_prompt()
    print("\nA sample from the model:\n" + sample_text(model, tokenizer, prompt, 300, config.seed))
    print(f"\nCheckpoint: {ckpt_path}. Sample more with: python -m train.sample --out {out} "
          f"--prompt 'Some text'")
    return 0
