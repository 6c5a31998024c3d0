"""What the benchmark scripts' command lines share: whole-number options checked against their
range, and a --json path checked before the measuring starts rather than failing after it. Bad
input is argparse's usage line and one `error:` line, exit code 2."""
from __future__ import annotations

import argparse
from pathlib import Path
from typing import Callable


def at_least(minimum: int) -> Callable[[str], int]:
    """An argparse type: a whole number of at least `minimum`."""
    def parse(text: str) -> int:
        try:
            value = int(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected a whole number, got {text!r}") from None
        if value < minimum:
            raise argparse.ArgumentTypeError(f"must be at least {minimum}, got {value}")
        return value

    return parse


def json_path(text: str) -> str:
    """An argparse type: a file path that the results can be written to."""
    if not text:  # an unset shell variable, say: Path("") would be the current directory
        raise argparse.ArgumentTypeError("the path is empty; give a file name")
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory; give a file name in it")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"the directory {path.parent} does not exist")
    return text


def add_json_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--json", type=json_path, metavar="PATH",
                        help="also write the results to this JSON file")
