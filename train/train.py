"""Train the GPT-style character model on a text file: `python -m train [FILE] [options]`.

`main` reads top to bottom: the settings (the flags, or a resumed checkpoint's), the text and its
vocabulary, the model and optimizer, then the loop: sample a batch, forward, backward, clip,
AdamW step; every `eval_every` steps estimate train/val loss, append it to OUT/metrics.jsonl
and write OUT/ckpt.npz. Ctrl-C, SIGTERM and SIGHUP stop cleanly with a checkpoint, and so do
the reader of the output going away (`| head`) and an output that cannot be written; a loss that
is no longer finite stops the run with the last good one.
"""
from __future__ import annotations

import argparse
import math
import os
import re
import sys
import time
import warnings
from contextlib import contextmanager, nullcontext
from dataclasses import fields, replace
from pathlib import Path
from typing import Iterator

import numpy as np
from tqdm import tqdm

import minigrad
from minigrad import no_grad, optim
from models import GPT, CharTokenizer, GPTConfig

from . import checkpoint, metrics
from .cli import ArgumentParser, build_progress, path_argument, shell_word
from .config import (KEPT_ON_RESUME, MODEL_OPTIONS, PRESETS, RANGES, TrainConfig,
                     auto_eval_every, auto_warmup, default_threads, flag)
from .data import (available_memory, default_corpus, encode, get_batch, read_text, split,
                   vocabulary)
from .errors import FREE_SPACE, StopSignals, UsageError, one_line
from .files import OutDir, check_can_write
from .metrics import MetricsLog
from .parallel import (DataParallel, limit_blas_to_usable_cores, one_blas_thread, seed_dropout,
                       usable_cores)
from .plot import loss_chart

EVAL_PROGRESS_INTERVAL = 0.5  # seconds; an evaluation that takes longer shows its progress
# this process's own file descriptors, /dev/stdin among them: another file in a resumed run
OWN_DESCRIPTOR = re.compile(r"/(dev/(stdin|fd/[0-9]+)|proc/(self|[0-9]+)/fd/[0-9]+)")
TINY_SHAKESPEARE_URL = ("https://raw.githubusercontent.com/karpathy/char-rnn/master/data/"
                        "tinyshakespeare/input.txt")
HELP = {
    "steps": "optimizer steps to train to", "batch_size": "sequences per step",
    "block_size": "context length in characters", "n_layer": "transformer blocks",
    "n_head": "attention heads per block", "n_embd": "embedding width",
    "dropout": "dropout probability", "lr": "peak learning rate",
    "min_lr": "learning rate at the end of the cosine decay", "warmup": "linear warm-up steps",
    "lr_decay_steps": "step where the cosine reaches --min-lr",
    "weight_decay": "AdamW decoupled weight decay (matrices only)", "beta1": "AdamW beta1",
    "beta2": "AdamW beta2", "grad_clip": "clip the global gradient norm to this; 0 = off",
    "eval_every": "evaluate and checkpoint every this many steps",
    "eval_iters": "batches per split in each evaluation",
    "sample_every": "print a short sample every this many steps; 0 = off",
    "seed": "seed of the initialisation, batches and dropout",
    "threads": "split each batch across this many threads, one BLAS thread each (data "
               "parallel; without dropout the same result as 1 thread up to float32 rounding)",
}
DEFAULT_TEXT = {"eval_every": "a tenth of --steps, at most 250", "min_lr": "--lr / 10",
                "warmup": "a tenth of --lr-decay-steps, at most 100",
                "lr_decay_steps": "--steps",
                "threads": f"the usable cores, {usable_cores()} here, at most --batch-size"}


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    p = ArgumentParser(
        prog="python -m train",
        description="Train a GPT-style character language model on a text file with minigrad. "
                    "Without FILE it trains on minigrad's own source code and docs. OUT gets "
                    "ckpt.npz (the checkpoint) and metrics.jsonl (one line per evaluation).")
    p.add_argument("file", nargs="?", metavar="FILE", type=path_argument,
                   help="text file to train on (a regular file, read again by --resume: not "
                   "standard input)")
    p.add_argument("--preset", choices=sorted(PRESETS), help="a named set of the options below "
                   "(baby-shakespeare: nanoGPT's CPU baby GPT; give tinyshakespeare.txt as FILE)")
    p.add_argument("--encoding", default=None, help="the text file's encoding, any text "
                   "encoding Python knows (default utf-8)")
    p.add_argument("--out", default="out", type=path_argument,
                   help="directory for ckpt.npz and metrics.jsonl (default out/)")
    continue_or_replace = p.add_mutually_exclusive_group()
    continue_or_replace.add_argument(
        "--resume", action="store_true", help="continue the run in OUT/ckpt.npz; its settings "
        "are kept unless given again here (e.g. a larger --steps; its architecture, --dtype and "
        "--seed cannot change)")
    continue_or_replace.add_argument(
        "--overwrite", action="store_true",
        help="start a new run even if OUT already holds one (replacing its files)")
    defaults = {**{f.name: f.default for f in fields(TrainConfig)},
                **{name: getattr(GPTConfig(), name) for name in MODEL_OPTIONS}}
    for name, help_ in HELP.items():
        kind = type(defaults[name]) if defaults[name] is not None else int
        default = DEFAULT_TEXT.get(name, defaults[name])
        p.add_argument(flag(name), dest=name, type=kind, default=None,
                       metavar="N" if kind is int else "X",
                       help=f"{help_}; {RANGES[name]} (default {default})")
    p.add_argument("--dtype", choices=["float32", "float64"], default=None,
                   help="floating-point type of the model (default float32)")
    p.add_argument("--fused", action=argparse.BooleanOptionalAction, default=None,
                   help="--no-fused runs every op as a composition of minigrad's primitives "
                        "instead of its fused kernels: slower, the same result up to rounding, "
                        "and every op in the graph is one you can read (default --fused)")
    return p.parse_args(argv)


def resolve_config(args: argparse.Namespace, saved: TrainConfig | None) -> TrainConfig:
    """Defaults, then the resumed run's settings, then the preset, then flags given here."""
    if args.preset and saved:
        raise UsageError("--preset sets up a new run; a resumed run keeps its own settings: drop "
                         "--preset (or start a new run with another --out)")
    base = saved or TrainConfig()
    values = {**{f.name: getattr(base, f.name) for f in fields(TrainConfig) if f.name != "model"},
              **{name: getattr(base.model, name) for name in MODEL_OPTIONS}}
    preset = PRESETS.get(args.preset, {})
    values.update(preset)
    given = {name: getattr(args, name) for name in values
             if getattr(args, name, None) is not None}
    changed = [k for k in KEPT_ON_RESUME if saved and k in given and given[k] != values[k]]
    if changed:
        raise UsageError(
            "the checkpoint was trained with " + ", ".join(
                f"{flag(k)} {values[k]}" for k in changed) +
            "; a resumed run keeps its architecture and seed, to continue bit for bit: drop "
            "those flags (or pass the same values), or start a new run with another --out")
    values.update(given)
    if saved and "threads" not in given:  # the run's threads, but one per sequence at most
        values["threads"] = min(values["threads"], values["batch_size"])
    if values["eval_every"] is None:
        values["eval_every"] = auto_eval_every(values["steps"])
    if not saved:  # a new run's defaults that follow other settings
        chosen = {**preset, **given}
        if "threads" not in chosen:
            values["threads"] = default_threads(values["batch_size"])
        if "min_lr" not in chosen:
            values["min_lr"] = values["lr"] / 10  # nanoGPT's advice; a fixed one may exceed --lr
        # so that a short run still reaches --lr and decays (a preset's --steps shortened too)
        decay_steps = values["lr_decay_steps"] or values["steps"]
        if "warmup" not in given and ("warmup" not in preset or values["warmup"] >= decay_steps):
            values["warmup"] = auto_warmup(decay_steps)
    if args.file is not None:
        values["data"] = text_path(args.file)
    model = {name: values.pop(name) for name in MODEL_OPTIONS}
    config = TrainConfig(model=replace(base.model, **model), **values)
    config.validate()
    # a checkpoint from before this check may hold such a schedule: it resumes with it unchanged
    if config.min_lr > config.lr and (not saved or {"lr", "min_lr"} & given.keys()):
        raise UsageError(f"--min-lr {config.min_lr} is above --lr {config.lr}, so the cosine "
                         f"decay would raise the learning rate; give a --min-lr of at most --lr")
    decay_steps = config.lr_decay_steps or config.steps
    if config.warmup >= decay_steps and (not saved or {"warmup", "lr_decay_steps"} & given.keys()):
        where = "--lr-decay-steps" if config.lr_decay_steps else "--steps"
        raise UsageError(f"--warmup {config.warmup} does not end before {where} {decay_steps}, "
                         f"where the learning rate reaches --min-lr, so it would drop from "
                         f"--lr to --min-lr at once; give a --warmup below {where}")
    if args.preset and config.data is None:
        raise UsageError(f"--preset {args.preset} trains on tiny Shakespeare: pass its path as "
                         f"FILE (download it from {TINY_SHAKESPEARE_URL})")
    return config


def text_path(file: str) -> str:
    """FILE as the checkpoint records it: a path that names the same file from any directory and
    any process, so that --resume reads the same text. Standard input cannot be read again: `-`
    is refused, and /dev/stdin (or /dev/fd/N) redirected from a file (`< text.txt`) is recorded
    as that file."""
    path = Path(file).absolute()
    if file == "-" and not path.exists():
        raise UsageError("FILE - (standard input) is not read: a run reads its text again when "
                         "resumed; save the text to a file and give its path")
    if OWN_DESCRIPTOR.fullmatch(str(path)):
        real = Path(os.path.realpath(path))
        if real.is_file():
            return str(real)
    return str(path)  # a pipe or a device stays as given, for read_text to refuse


def check_out_is_free(out: Path, config: TrainConfig) -> str | None:
    """For a new run without --overwrite: None if OUT holds no run; a "nothing to do" message if
    it holds a finished run of these very settings; else a UsageError (nothing is replaced)."""
    ckpt_path, metrics_path = out / checkpoint.FILENAME, out / metrics.FILENAME
    if not (ckpt_path.exists() or metrics_path.exists()):
        return None
    try:
        saved = checkpoint.load(ckpt_path)
    except UsageError:
        saved = None  # no checkpoint, or a damaged one: OUT still holds a run's files
    same_settings = saved is not None and saved.config == replace(
        config, model=replace(config.model, vocab_size=saved.config.model.vocab_size))
    if same_settings and saved.step >= config.steps:
        where = shell_word(out)
        return (f"{out} already holds a finished run of these settings (step {saved.step}); "
                f"nothing to do.\n"
                f"  Sample it:    python -m train.sample --out {where}\n"
                f"  Continue it:  python -m train --out {where} --resume --steps "
                f"{2 * config.steps}\n"
                f"  Start over:   add --overwrite to this command (or use another --out)")
    held = ", ".join(p.name for p in (ckpt_path, metrics_path) if p.exists())
    resume = "--resume to continue it, " if saved else ""  # which needs a checkpoint it can read
    raise UsageError(f"{out} already holds a run ({held}); pass {resume}--overwrite to start "
                     f"over, or --out DIR for a new run")


def check_file_is_not_written(file: Path, out: Path) -> None:
    """FILE must not be a file the run writes into OUT: training would replace the text it reads
    (and a checkpoint read as text is no text to learn)."""
    for name in (checkpoint.FILENAME, metrics.FILENAME):
        try:
            same = file.samefile(out / name)
        except OSError:  # either is missing: then they are not the same file
            continue
        if same:
            raise UsageError(f"FILE {file} is the {name} this run writes into {out}; give the "
                             f"text to train on as FILE (to continue the run in {out}: python -m "
                             f"train --out {shell_word(out)} --resume)")


@no_grad()
def estimate_loss(model: GPT, splits: dict[str, np.ndarray], c: TrainConfig, step: int,
                  stop: StopSignals, bar: tqdm,
                  parallel: DataParallel | None = None) -> dict[str, float] | None:
    """Mean loss over `eval_iters` batches of each split, drawn from their own seeded generator
    so that evaluating never shifts the training batches; each batch shared by the workers of
    `parallel` when given, as in training. Its progress shows on `bar`. None if a stop is
    requested meanwhile (a signal, a failed output): a long evaluation must not hold it up."""
    model.eval()
    rng = np.random.default_rng([c.seed, step])
    batches = ((name, data) for name, data in splits.items() for _ in range(c.eval_iters))
    total = len(splits) * c.eval_iters  # counted, not listed: --eval-iters may be huge
    losses: dict[str, list[float]] = {name: [] for name in splits}
    show_at, shown = time.monotonic() + EVAL_PROGRESS_INTERVAL, False
    try:
        for done, (name, data) in enumerate(batches):
            if stop.requested:
                return None
            if time.monotonic() >= show_at:
                bar.set_description_str(f"evaluating {done}/{total}")
                show_at, shown = time.monotonic() + EVAL_PROGRESS_INTERVAL, True
            x, y = get_batch(data, c.batch_size, c.model.block_size, rng)
            losses[name].append(parallel.loss(x, y) if parallel else model(x, y)[1].item())
    finally:
        if shown:
            bar.set_description_str("")
        model.train()
    return {name: float(np.mean(values)) for name, values in losses.items()}


@contextmanager
def numpy_float_warnings_off() -> Iterator[None]:
    """numpy's overflow and invalid-value warnings silenced (in every thread): a loss that stops
    being finite is reported as one `error:` line instead (stop_diverged)."""
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", r"(overflow|invalid value|divide by zero) encountered",
                                RuntimeWarning)
        yield


def sample_text(model: GPT, tokenizer: CharTokenizer, prompt: str, n: int, seed: int) -> str:
    with one_blas_thread():
        ids = model.generate(tokenizer.encode(prompt), n, temperature=0.8,
                             rng=np.random.default_rng(seed))
    return tokenizer.decode(ids[0])


def make_checkpoint(config: TrainConfig, vocab: list[str], step: int, model: GPT,
                    optimizer: optim.AdamW, data_rng: np.random.Generator) -> checkpoint.Checkpoint:
    # the optimizer's settings come from `config` (a resume may change them): its state only
    optimizer_state = {key: value for key, value in optimizer.state_dict().items()
                       if not key.startswith("param_groups.")}
    return checkpoint.Checkpoint(
        config, vocab, step, model.state_dict(), optimizer_state,
        {"data": data_rng.bit_generator.state, "model": model.rng.bit_generator.state})


def resume_command(out: Path) -> str:
    """The command that continues the run in `out`, from any directory."""
    return f"python -m train --out {shell_word(out.absolute())} --resume"


def stop_diverged(what: str, step: int, saver: checkpoint.Saver, grad_clip: float) -> int:
    """End a run whose loss is no longer finite; the last good checkpoint stays as it is."""
    clip = (f"clip the gradients harder with a --grad-clip below {grad_clip}" if grad_clip else
            "clip the gradients with --grad-clip")
    tqdm.write(one_line(f"error: {what} at step {step}; the run is stopped and {saver.kept()}. "
                        f"Lower --lr, or {clip}."), file=sys.stderr)
    return 1


def main(argv: list[str] | None = None) -> int:
    minigrad.keep_freed_memory()  # a training step frees and reallocates MBs of temporaries
    limit_blas_to_usable_cores()
    args = parse_args(argv)
    out = Path(args.out)
    check_can_write(out)

    # ---- settings: a resumed run starts from its checkpoint's ----
    saved = checkpoint.load(out / checkpoint.FILENAME) if args.resume else None
    config = resolve_config(args, saved.config if saved else None)
    if config.data is not None:
        check_file_is_not_written(Path(config.data), out)
    if saved:  # read again once OUT is locked; here, a metrics file it cannot read is one line
        rows = MetricsLog.resume(out / metrics.FILENAME, saved.step)[0].rows
        # a run stopped in its last evaluation resumes to evaluate: its metrics lack that row
        if saved.step > config.steps or (saved.step == config.steps and rows and
                                         rows[-1]["step"] == saved.step):
            raise UsageError(f"the checkpoint is already at step {saved.step}; pass a larger "
                             f"--steps to train on")
    if not args.resume and not args.overwrite and (done := check_out_is_free(out, config)):
        print(done)
        return 0

    # ---- the text, its vocabulary, the train/val split ----
    if config.data is None:
        text, files = default_corpus()
        print(f"No FILE given: training on minigrad's own source and docs ({len(files)} files, "
              f"{len(text):,} characters). Give a text file to train on your own.")
    elif saved and args.file is None and not Path(config.data).exists():
        raise UsageError(f"the run's text file {config.data} is gone; if it moved, give its new "
                         f"path: python -m train FILE --out {shell_word(out)} --resume")
    else:
        text = read_text(config.data, config.encoding)
    vocab = saved.vocab if saved else vocabulary(text)
    train_data, val_data = split(encode(text, vocab), config.model.block_size)
    del text
    config.model.vocab_size = len(vocab)
    tokenizer = CharTokenizer(vocab)
    needed, available = config.memory_estimate(), available_memory()
    if available is not None and needed > available:
        raise UsageError(f"this model and batch need at least {needed / 1e9:,.1f} GB of memory, "
                         f"{available / 1e9:,.1f} GB is available: use a smaller --n-embd, "
                         f"--n-layer, --batch-size or --block-size")

    # ---- model, optimizer and RNGs: fresh, or as the checkpoint left them ----
    if saved:
        if (broken := saved.first_non_finite(optimizer_too=True)) is not None:
            raise UsageError(f"the checkpoint's {broken} holds NaN or inf, so training cannot "
                             f"continue from it; start a new run")
        if saved.dtype != np.dtype(config.dtype):
            raise UsageError(f"the checkpoint holds a {saved.dtype} model; drop --dtype or pass "
                             f"--dtype {saved.dtype}")
        if config.threads != saved.config.threads and config.model.dropout > 0:
            print(f"warning: {flag('threads')} {config.threads}, where the run had "
                  f"{saved.config.threads}: each thread draws its own dropout masks, so the run "
                  f"no longer continues bit for bit as it would have", file=sys.stderr)
        print(f"Resuming from {out / checkpoint.FILENAME} at step {saved.step}.")
    # said before the model is built: a large one takes minutes to build
    print(f"Model: {config.model.num_parameters() / 1e6:.2f}M parameters (non-embedding), "
          f"{config.model.n_layer} layers, {config.model.n_head} heads, width "
          f"{config.model.n_embd}, context {config.model.block_size}; vocabulary of "
          f"{len(vocab)} characters; {len(train_data):,} training characters.")
    if saved:  # the dropout rate may be a new one
        model = saved.build_model(config.model, progress=build_progress)
    else:
        model = GPT(config.model, seed=config.seed, dtype=np.dtype(config.dtype),
                    progress=build_progress)
    optimizer = config.build_optimizer(model)
    data_rng = np.random.default_rng(config.seed + 1)
    step = 0
    if saved:
        optimizer.load_state_dict(saved.optim_state)
        data_rng.bit_generator.state = saved.rng_states["data"]
        step = saved.step
    splits = {"train": train_data, "val": val_data}
    tokens_per_step = config.batch_size * config.model.block_size
    params = list(model.parameters())

    # ---- the loop: OUT is created and locked only now, with something to write ----
    with OutDir(out, written=(checkpoint.FILENAME, metrics.FILENAME)) as out_dir, \
            StopSignals() as stop, minigrad.fused(config.fused), numpy_float_warnings_off(), \
            tqdm(total=config.steps, initial=step, unit="step", dynamic_ncols=True,
                 # stderr closed (`2>&-`): sys.stderr is None, which tqdm would write to
                 disable=sys.stderr is None) as bar, \
            DataParallel(model, config.threads, config.seed) if config.threads > 1 \
            else nullcontext() as parallel:
        # what was checked above still holds now that no other run can write into OUT
        changed = (checkpoint.file_identity(out / checkpoint.FILENAME) != saved.identity
                   if saved else not args.overwrite and check_out_is_free(out, config))
        if changed:
            raise UsageError(f"another run wrote {out} while this one was starting; run the "
                             f"command again")
        if saved:
            log, damage = MetricsLog.resume(out / metrics.FILENAME, step)
            if damage:
                tqdm.write(one_line(f"warning: {damage}"), file=sys.stderr)
        else:
            log = MetricsLog.new(out / metrics.FILENAME)
        saver = checkpoint.Saver(out_dir.path, log, step if saved else None, resume_command(out))
        stop.at_once = saver.kept_and_how_to_continue
        # the speed of training alone: evaluations and samples are not timed
        train_seconds, timed_steps = 0.0, 0
        while True:
            # evaluate, log and save every eval_every steps and at the end, unless the metrics
            # hold that step already (a resumed checkpoint's own step, evaluated before it was
            # saved, unless a stop signal cut its evaluation short)
            if (step % config.eval_every == 0 or step == config.steps) and \
                    not (log.rows and log.rows[-1]["step"] == step):
                losses = estimate_loss(model, splits, config, step, stop, bar, parallel)
                if losses is None:
                    break  # stopped: saved below
                if not all(math.isfinite(v) for v in losses.values()):
                    return stop_diverged(f"the evaluated loss became {losses['train']} (train) "
                                         f"and {losses['val']} (val)", step, saver,
                                         config.grad_clip)
                ms = train_seconds * 1000 / timed_steps if timed_steps else None
                row = {"step": step, "train_loss": losses["train"], "val_loss": losses["val"],
                       "lr": config.lr_at(max(step - 1, 0)),  # of the step that led here
                       "ms_per_step": ms, "tokens_per_s": tokens_per_step * 1000 / ms if ms
                       else None}
                saver.save(make_checkpoint(config, vocab, step, model, optimizer, data_rng), row)
                bar.write(f"step {step}: train loss {losses['train']:.4f}, val loss "
                          f"{losses['val']:.4f}" + (f", {ms:.0f} ms/step" if ms else ""))
                train_seconds, timed_steps = 0.0, 0
            if step >= config.steps or stop.requested:
                break

            # one training step
            started = time.perf_counter()
            for group in optimizer.param_groups:
                group["lr"] = config.lr_at(step)
            x, y = get_batch(train_data, config.batch_size, config.model.block_size, data_rng)
            if parallel is not None:
                loss_value = parallel.backward(x, y, step)  # sets every parameter's .grad
            else:
                seed_dropout(model, config.seed, step)
                _, loss = model(x, y)
                loss_value = loss.item()
                model.zero_grad()
                loss.backward()
            norm = optim.clip_grad_norm_(params, config.grad_clip) if config.grad_clip else 0.0
            if not (math.isfinite(loss_value) and math.isfinite(norm)):
                return stop_diverged(f"the loss became {loss_value}" + (
                    f" (gradient norm {norm})" if config.grad_clip else ""), step, saver,
                    config.grad_clip)
            optimizer.step()
            train_seconds += time.perf_counter() - started
            step += 1
            timed_steps += 1
            bar.update(1)
            if step % 10 == 0 or step == config.steps:
                tokens_per_second = tokens_per_step * timed_steps / max(train_seconds, 1e-9)
                bar.set_postfix(loss=f"{loss_value:.4f}", tok_s=f"{tokens_per_second:,.0f}")
            if config.sample_every and step % config.sample_every == 0:
                bar.write(repr(sample_text(model, tokenizer, tokenizer.decode(x[0, :1]), 100,
                                           config.seed)))

        if stop.requested:
            if saver.last_step != step:
                saver.save(make_checkpoint(config, vocab, step, model, optimizer, data_rng))
            if stop.output_failed:
                raise UsageError(f"{stop.output_failed}; {saver.kept()}: {FREE_SPACE}, then "
                                 f"continue with: {saver.resume_command}")
            bar.close()
            print(f"Interrupted ({stop.name}) at step {step}; saved {saver.path}. Resume with:\n"
                  f"  {saver.resume_command}")
            return stop.exit_code

    history = log.rows
    print(f"\nLoss (evaluated every {config.eval_every} steps):")
    print(loss_chart([r["step"] for r in history],
                     {"train": [r["train_loss"] for r in history],
                      "val": [r["val_loss"] for r in history]}))
    with minigrad.fused(config.fused):  # --no-fused: the sample runs on compositions too
        text = sample_text(model, tokenizer, tokenizer.default_prompt(), 300, config.seed)
    print("\nA sample from the model:\n" + text)
    # no --prompt: any text might hold characters the vocabulary lacks, and the command must work
    print(f"\nCheckpoint: {saver.path}. Sample more with: python -m train.sample --out "
          f"{shell_word(out)}")
    return 0
