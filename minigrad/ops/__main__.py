"""python -m minigrad.ops: print the gradient table of every op (as in docs/backward.md)."""
from . import gradient_table

print(gradient_table())
