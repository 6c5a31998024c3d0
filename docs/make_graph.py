"""Draw the graph of one attention block on the composed path, for docs/backward.md.

    python docs/make_graph.py     # writes docs/attention_block.dot and docs/attention_block.svg

The graph is one `MultiHeadAttention` (embedding 4, 2 heads, 3 positions, causal mask) under
`minigrad.fused(False)`, so every node is a primitive whose backward is in `minigrad/ops/`. The
.dot file is `minigrad.to_dot`'s output; the SVG is Graphviz's rendering of it, so this script
needs Graphviz's `dot` (e.g. `apt-get install graphviz`). tests/test_docs.py checks that the
committed .dot is what `attention_block_dot()` builds today and that the SVG shows it.
"""
from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import numpy as np

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))  # run from a source checkout

import minigrad  # noqa: E402
from minigrad import Tensor  # noqa: E402
from models.attention import MultiHeadAttention, create_causal_mask  # noqa: E402

DOT_FILE = ROOT / "docs" / "attention_block.dot"
SVG_FILE = ROOT / "docs" / "attention_block.svg"


def attention_block_dot() -> str:
    """DOT text of the graph of the sum of one self-attention block's output, composed from
    primitives, its parameters named as in the module (W_q.weight, ...)."""
    rng = np.random.default_rng(0)
    attention = MultiHeadAttention(embedding_dimension=4, num_heads=2, rng=rng)
    x = Tensor(rng.standard_normal((1, 3, 4)), dtype=np.float32, name="x")
    with minigrad.fused(False):
        loss = attention(x, x, x, mask=create_causal_mask(3)).sum()
    return minigrad.to_dot(loss, attention)


def main() -> int:
    dot = shutil.which("dot")
    if dot is None:
        print("error: Graphviz's `dot` is not on PATH; install Graphviz (e.g. "
              "`apt-get install graphviz`) and run again", file=sys.stderr)
        return 2
    text = attention_block_dot()
    svg = subprocess.run([dot, "-Tsvg"], input=text, capture_output=True, text=True, check=True)
    DOT_FILE.write_text(text, encoding="utf-8")
    SVG_FILE.write_text(svg.stdout, encoding="utf-8")
    print(f"wrote {DOT_FILE.relative_to(ROOT)} and {SVG_FILE.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
