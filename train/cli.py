"""What the command-line tools share: the opening of train.sample and train.attention (find the
checkpoint, check it, build the model), the progress bar of building a large model, and paths
shown as shell words a user can paste."""
from __future__ import annotations

import argparse
import os
import shlex
import sys
from pathlib import Path
from typing import Any, Iterable, NoReturn, Sequence

from tqdm import tqdm

from models import GPT, CharTokenizer

from . import checkpoint
from .errors import UsageError
from .parallel import limit_blas_to_usable_cores


BUILD_PROGRESS_DELAY = 1.0  # seconds; building a model that takes longer shows its progress


def build_progress(items: Sequence[Any], what: str) -> Iterable[Any]:
    """GPT's `progress`: a bar over the work of building the model, once it has taken longer
    than BUILD_PROGRESS_DELAY (a model of 100,000 layers builds for minutes), then cleared."""
    return tqdm(items, desc=f"Model: {what}", leave=False, delay=BUILD_PROGRESS_DELAY,
                dynamic_ncols=True, disable=sys.stderr is None)  # None: stderr closed (`2>&-`)


class ArgumentParser(argparse.ArgumentParser):
    """argparse's parser, whose errors (a flag that is not a number, a missing or unknown one)
    are UsageErrors like every other bad input: one `error:` line, exit code 2."""

    def error(self, message: str) -> NoReturn:
        raise UsageError(f"{message} (see {self.prog} --help)")


def path_argument(value: str) -> str:
    """argparse's type of a path option: an empty one (an unset shell variable, say) would be
    the current directory, so it is refused."""
    if not value:
        raise argparse.ArgumentTypeError("the path is empty; give a file or directory")
    return value


def shell_word(path: str | Path) -> str:
    """`path` quoted for a POSIX shell; a name that is not printable UTF-8 becomes $'...' with
    its bytes escaped, so that pasting the command finds the same file, and one that starts
    with "-" gets "./" in front, so that it is not read as an option."""
    raw = os.fsencode(path)
    if raw.startswith(b"-"):
        raw = b"./" + raw
    try:
        text = raw.decode("utf-8")
        if text.isprintable():
            return shlex.quote(text)
    except UnicodeDecodeError:
        pass
    return "$'" + "".join(chr(b) if 32 <= b < 127 and b not in b"'\\" else f"\\x{b:02x}"
                          for b in raw) + "'"


def checkpoint_parser(prog: str, description: str) -> argparse.ArgumentParser:
    """A parser with the options that say where the checkpoint is."""
    parser = ArgumentParser(prog=prog, description=description)
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--out", default="out", type=path_argument,
                       help="training directory holding ckpt.npz (default out/)")
    where.add_argument("--checkpoint", type=path_argument,
                       help="path of a checkpoint file (instead of --out)")
    return parser


def load_model(args: argparse.Namespace) -> tuple[checkpoint.Checkpoint, GPT, CharTokenizer]:
    """The checkpoint the options name (every field checked), its model in eval mode, and its
    tokenizer; a UsageError says what is wrong."""
    limit_blas_to_usable_cores()
    path = Path(args.checkpoint) if args.checkpoint else Path(args.out) / checkpoint.FILENAME
    ckpt = checkpoint.load(path)
    model = ckpt.build_model(progress=build_progress)
    model.eval()
    return ckpt, model, ckpt.tokenizer()
