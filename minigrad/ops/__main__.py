"""python -m minigrad.ops: print the gradient tables of the primitives and the kernels (as in
docs/backward.md)."""
from . import gradient_table, kernels, primitives

print("Primitives\n\n" + gradient_table(primitives()) + "\n\nKernels\n\n"
      + gradient_table(kernels()))
