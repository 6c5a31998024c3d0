"""How the command-line tools fail or stop: bad input is one line naming the problem and the fix
(exit code 2); a signal that asks a program to stop (Ctrl-C, SIGTERM, SIGHUP) ends it with the
shell's code for it, 128 + the signal's number, and the reader of the output going away (`| head`)
with 141, as SIGPIPE would."""
from __future__ import annotations

import importlib
import os
import signal
import stat
import sys
import unicodedata
from contextlib import contextmanager
from typing import Any, Callable, Iterator, NoReturn

USAGE_EXIT = 2
INTERRUPTED_EXIT = 128 + signal.SIGINT  # 130, the shell's code for a program stopped by Ctrl-C
SIGPIPE = 13  # on every Unix; Windows has no SIGPIPE
BROKEN_PIPE_EXIT = 128 + SIGPIPE  # 141
# what `timeout`, batch schedulers and `docker stop` send (SIGTERM), a closed terminal (SIGHUP)
STOP_SIGNALS = [signal.SIGINT, signal.SIGTERM] + (
    [signal.SIGHUP] if hasattr(signal, "SIGHUP") else [])


class UsageError(Exception):
    """Bad input from the user (a file, a flag, a checkpoint): shown as one line, exit code 2."""


def run_cli(main: Callable[[list[str] | None], int], argv: list[str] | None = None) -> int:
    """Call `main`, turning a UsageError into `error: ...` on stderr and exit code 2."""
    for stream in (sys.stdout, sys.stderr):
        # no character can crash the output (a file name that is not UTF-8, say): it is escaped;
        # and each line goes out when written, also into a pipe (`| tee log`), where Python
        # would otherwise hold a run's progress lines back until 8 KB of them were written
        if hasattr(stream, "reconfigure"):
            stream.reconfigure(errors="backslashreplace", line_buffering=True)
    try:
        with output_failures_as_usage_errors():
            return main(argv)
    except UsageError as err:
        report(f"error: {one_line(str(err))}")
        return USAGE_EXIT
    except KeyboardInterrupt as err:
        # Ctrl-C outside a training run's own handler, or a second one within it (StopSignals),
        # which says what is kept
        report("\ninterrupted" + (f": {one_line(str(err))}" if str(err) else ""))
        return INTERRUPTED_EXIT
    except MemoryError:
        report("error: not enough memory for this model and batch; use a smaller --n-embd, "
               "--n-layer, --batch-size or --block-size")
        return USAGE_EXIT
    except BrokenPipeError:
        # the reader of our output went away (e.g. `| head`): stop quietly with the code of a
        # Unix tool that SIGPIPE stopped (Python ignores SIGPIPE, so writes raise this instead)
        sys.stdout = open(os.devnull, "w")
        return BROKEN_PIPE_EXIT


def one_line(text: str) -> str:
    """`text` with its control characters and line breaks escaped (\\n, \\x1b, \\u2028): a
    file name may hold any of them, and the error must stay one line that drives no terminal."""
    return "".join(repr(c)[1:-1] if unicodedata.category(c) in ("Cc", "Zl", "Zp") else c
                   for c in text)


def report(line: str) -> None:
    """Print `line` on stderr. Where stderr cannot take it either (`> log 2>&1` on a full
    disk), the exit code alone tells what happened: the failed write is not another error."""
    try:
        print(line, file=sys.stderr)
    except OSError:
        discard_output(sys.stderr)


FREE_SPACE = "free some space or send the output elsewhere"


def cannot_write_to(name: str, err: OSError) -> str:
    return f"cannot write to {name} ({err.strerror or err})"


@contextmanager
def output_failures_as_usage_errors() -> Iterator[None]:
    """Within the block, a write to stdout or stderr that fails (`> log` on a full disk, or
    `> /dev/full`) is a UsageError saying so, not a traceback; a reader that went away
    (BrokenPipeError) is left to the handlers of that."""
    streams = sys.stdout, sys.stderr
    sys.stdout, sys.stderr = (stream and _FailingOutput(stream, name)
                              for stream, name in zip(streams, ("stdout", "stderr")))
    try:
        yield
    finally:
        sys.stdout, sys.stderr = streams


def run_cli_module(module: str) -> NoReturn:
    """Exit with what `run_cli` makes of `module`'s main, importing the module within it: numpy
    and the rest take most of a second to import, and a Ctrl-C meanwhile must end as one later
    does, not in a traceback. For the top of a command's module, before its other imports:

        if __name__ == "__main__":
            run_cli_module("train.sample")
    """
    def main(argv: list[str] | None) -> int:
        return importlib.import_module(module).main(argv)

    sys.exit(run_cli(main))


class StopSignals:
    """Within the `with` block, Ctrl-C, SIGTERM and SIGHUP do not stop the program but set
    `received` (the signal's number), for a loop to finish its step, save and exit. A second
    Ctrl-C stops at once (as KeyboardInterrupt, whose message is then what `at_once` returns:
    what is kept and how to continue). A signal this process was started ignoring
    stays ignored: `nohup` ignores SIGHUP so that a run outlives its terminal, and a shell
    script's background job (`cmd &`) ignores Ctrl-C.

    The reader of the output going away (`| head`) is one more such stop: Python ignores
    SIGPIPE, so a write to stdout or stderr raises BrokenPipeError instead, which is caught and
    sets `received` to SIGPIPE's number; what that stream gets afterwards goes nowhere. So is an
    output that cannot be written (`> log` on a full disk): `output_failed` says which and why,
    and the loop saves before it reports that, so the steps since the last save are not lost.
    `requested` is true after any of these."""

    def __init__(self) -> None:
        self.received: int | None = None
        self.output_failed: str | None = None  # "cannot write to stdout (...)"
        self.at_once: Callable[[], str] | None = None
        self._previous: dict[int, Any] = {}
        self._streams: tuple[Any, Any] = (None, None)

    def __enter__(self) -> StopSignals:
        for signum in STOP_SIGNALS:
            if signal.getsignal(signum) != signal.SIG_IGN:
                self._previous[signum] = signal.signal(signum, self._on_signal)
        self._streams = (sys.stdout, sys.stderr)
        # None where the file descriptor was closed (`>&-`): print and tqdm then write nothing;
        # a failed write is handled here, not as output_failures_as_usage_errors' UsageError
        sys.stdout, sys.stderr = (
            stream and _ReaderWatch(stream._stream if isinstance(stream, _FailingOutput)
                                    else stream, name, self._on_reader_gone, self._on_failed)
            for stream, name in zip(self._streams, ("stdout", "stderr")))
        return self

    @property
    def requested(self) -> bool:
        return self.received is not None or self.output_failed is not None

    def __exit__(self, kind: type[BaseException] | None, *exc: Any) -> None:
        sys.stdout, sys.stderr = self._streams
        for signum, handler in self._previous.items():
            signal.signal(signum, handler)
        if kind is KeyboardInterrupt and self.at_once:
            raise KeyboardInterrupt(self.at_once()) from None

    def _on_signal(self, signum: int, frame: Any) -> None:
        self.received = self.received or signum
        if signum == signal.SIGINT:
            signal.signal(signal.SIGINT, signal.default_int_handler)
        if signum == getattr(signal, "SIGHUP", None):
            # the terminal is gone, and with it the reader of a pipe started in it (`| tee log`):
            # writing to either would fail, so send what is left nowhere (a file still gets it)
            for fd in (1, 2):
                try:
                    if os.isatty(fd) or stat.S_ISFIFO(os.fstat(fd).st_mode):
                        send_nowhere(fd)
                except OSError:  # not open: nothing to redirect
                    pass

    def _on_reader_gone(self) -> None:
        self.received = self.received or SIGPIPE

    def _on_failed(self, failure: str) -> None:
        self.output_failed = self.output_failed or failure

    @property
    def exit_code(self) -> int:
        return 128 + (self.received or 0)

    @property
    def name(self) -> str:
        if self.received == SIGPIPE:
            return "SIGPIPE"  # also where there is no signal.SIGPIPE
        return signal.Signals(self.received).name if self.received else ""


def send_nowhere(fd: int) -> None:
    """Make file descriptor `fd` write to the null device from now on."""
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, fd)
    os.close(devnull)


def discard_output(stream: Any) -> None:
    """What `stream` still holds, and any later write, go nowhere instead of failing again
    (also when Python flushes the stream at exit)."""
    try:
        send_nowhere(stream.fileno())
    except OSError:  # no file descriptor (io.StringIO, say): nothing flushed at exit
        pass


class _WatchedStream:
    """A text stream (stdout or stderr) whose failed writes and flushes go to `_failed`, which
    raises an exception of its own or returns (the text then counts as written)."""

    def __init__(self, stream: Any) -> None:
        self._stream = stream

    def write(self, text: str) -> int:
        try:
            return self._stream.write(text)
        except OSError as err:
            self._failed(err)
            return len(text)

    def flush(self) -> None:
        try:
            self._stream.flush()
        except OSError as err:
            self._failed(err)

    def __getattr__(self, name: str) -> Any:  # isatty, fileno, encoding...: the stream's own
        return getattr(self._stream, name)

    def _failed(self, err: OSError) -> None:
        raise err


class _FailingOutput(_WatchedStream):
    """A stream whose failed writes raise a UsageError naming the stream, but for a reader
    that went away (see output_failures_as_usage_errors)."""

    def __init__(self, stream: Any, name: str) -> None:
        super().__init__(stream)
        self._name = name

    def _failed(self, err: OSError) -> None:
        if isinstance(err, BrokenPipeError):
            raise err
        discard_output(self._stream)
        raise UsageError(f"{cannot_write_to(self._name, err)}; {FREE_SPACE}") from None


class _ReaderWatch(_WatchedStream):
    """A stream that, when the reader of its pipe has gone, calls `on_gone` instead of raising
    BrokenPipeError, and when a write fails otherwise, `on_failed` with what failed; from then
    on it writes nowhere."""

    def __init__(self, stream: Any, name: str, on_gone: Callable[[], None],
                 on_failed: Callable[[str], None]) -> None:
        super().__init__(stream)
        self._name = name
        self._on_gone = on_gone
        self._on_failed = on_failed

    def _failed(self, err: OSError) -> None:
        discard_output(self._stream)
        if isinstance(err, BrokenPipeError):
            self._on_gone()
        else:
            self._on_failed(cannot_write_to(self._name, err))
