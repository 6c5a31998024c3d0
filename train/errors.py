"""How the command-line tools fail: one line naming the problem and the fix, exit code 2."""
from __future__ import annotations

import os
import sys
from typing import Callable

USAGE_EXIT = 2


class UsageError(Exception):
    """Bad input from the user (a file, a flag, a checkpoint): shown as one line, exit code 2."""


def run_cli(main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Call `main`, turning a UsageError into `error: ...` on stderr and exit code 2."""
    try:
        return main(argv)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return USAGE_EXIT
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): stop quietly, as Unix tools do
        sys.stdout = open(os.devnull, "w")
        return 1
