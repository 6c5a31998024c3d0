"""How the command-line tools fail: one line naming the problem and the fix, exit code 2."""
from __future__ import annotations

import os
import sys
from typing import Callable

USAGE_EXIT = 2
INTERRUPTED_EXIT = 130  # the shell's code for a program stopped by Ctrl-C (128 + SIGINT)


class UsageError(Exception):
    """Bad input from the user (a file, a flag, a checkpoint): shown as one line, exit code 2."""


def run_cli(main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Call `main`, turning a UsageError into `error: ...` on stderr and exit code 2."""
    try:
        return main(argv)
    except UsageError as err:
        print(f"error: {err}", file=sys.stderr)
        return USAGE_EXIT
    except KeyboardInterrupt:
        print("\ninterrupted", file=sys.stderr)  # Ctrl-C outside a training run's own handler
        return INTERRUPTED_EXIT
    except MemoryError:
        print("error: not enough memory for this model and batch; use a smaller --n-embd, "
              "--n-layer, --batch-size or --block-size", file=sys.stderr)
        return USAGE_EXIT
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): stop quietly, as Unix tools do
        sys.stdout = open(os.devnull, "w")
        return 1
