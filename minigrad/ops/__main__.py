"""python -m minigrad.ops: print the gradient tables of the primitives and the kernels (as in
docs/backward.md)."""
import signal

from . import gradient_table, kernels, primitives

if hasattr(signal, "SIGPIPE"):  # none on Windows
    signal.signal(signal.SIGPIPE, signal.SIG_DFL)  # `| head` ends it quietly, as a Unix tool

print("Primitives\n\n" + gradient_table(primitives()) + "\n\nKernels\n\n"
      + gradient_table(kernels()))
