"""Show which characters each character attends to, per head, as in the attention tutorial:

    python -m train.attention [--out DIR | --checkpoint PATH] --text TEXT [--layer L] [--head H]
"""
from __future__ import annotations

from .errors import run_cli_module

if __name__ == "__main__":  # before the slow imports below, so that they run within run_cli
    run_cli_module("train.attention")

from minigrad import no_grad  # noqa: E402
from models.attention import heatmap  # noqa: E402

from .cli import checkpoint_parser, load_model  # noqa: E402
from .errors import UsageError  # noqa: E402

VISIBLE = {" ": "␣", "\n": "⏎", "\t": "⇥"}
WIDTH = 80


def main(argv: list[str] | None = None) -> int:
    p = checkpoint_parser("python -m train.attention",
                          "Heatmaps of a trained model's attention weights.")
    p.add_argument("--text", required=True, help="the text to look at, 1 to block_size "
                   "characters of the model's vocabulary (about 40 fit in 80 columns)")
    p.add_argument("--layer", type=int, default=-1, metavar="L", help="which block, from "
                   "-n_layer to n_layer - 1 (default -1, the last; negative counts from the end)")
    p.add_argument("--head", type=int, default=None, metavar="H",
                   help="which head, from 0 to n_head - 1 (default all)")
    args = p.parse_args(argv)

    _, model, tokenizer = load_model(args)
    n_layer, n_head = model.config.n_layer, model.config.n_head
    if not -n_layer <= args.layer < n_layer:
        raise UsageError(f"--layer {args.layer} is out of range: the model has {n_layer} layers "
                         f"(give {-n_layer} to {n_layer - 1}; negative counts from the end)")
    if args.head is not None and not 0 <= args.head < n_head:
        raise UsageError(f"--head {args.head} is out of range: the model has {n_head} heads "
                         f"(0..{n_head - 1})")
    if not args.text:
        raise UsageError("--text is empty; give a few characters")
    if len(args.text) > model.config.block_size:
        raise UsageError(f"--text has {len(args.text)} characters, the model's context is "
                         f"{model.config.block_size}; shorten it")
    try:
        ids = tokenizer.encode(args.text)
    except ValueError as err:
        raise UsageError(f"--text: {err}") from None

    with no_grad():
        model(ids[None, :])
    layer = args.layer % n_layer
    weights = model.blocks[layer].attn.attention_weights[0]  # (heads, seq, seq)
    labels = [VISIBLE.get(c, c if c.isprintable() else "�") for c in args.text]
    cell = 2 if 2 * len(labels) + 2 <= WIDTH else 1
    heads = range(n_head) if args.head is None else [args.head]
    for h in heads:
        print(f"layer {layer}, head {h} (each row: a character; shade: its attention to each "
              f"column)")
        print(heatmap(weights[h], labels, labels, show_values=False, cell_width=cell))
        print()
    return 0
