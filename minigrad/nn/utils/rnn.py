"""torch.nn.utils.rnn's `pad_sequence`: sequences of different lengths as one padded batch."""
from __future__ import annotations

from typing import Sequence

from ... import functional as F
from ...errors import InvalidArgumentError
from ...tensor import Tensor
from ...tensor_functions import stack

__all__ = ["pad_sequence"]


def pad_sequence(sequences: Tensor | Sequence[Tensor], batch_first: bool = False,
                 padding_value: float = 0.0, padding_side: str = "right") -> Tensor:
    """The tensors (L_i, *) of `sequences`, each padded with `padding_value` to the longest L
    (after its entries, or before with padding_side='left') and stacked: (L, B, *), or
    (B, L, *) with batch_first, as PyTorch's. F.pad and stack: the gradient reaches each
    sequence."""
    if padding_side not in ("left", "right"):
        raise InvalidArgumentError(f"Expected padding_side to be one of left or right, but got "
                                   f"{padding_side}.")
    sequences = list(sequences)  # a Tensor gives its rows, as PyTorch reads one
    if not sequences:
        raise InvalidArgumentError("received an empty list of sequences")
    if any(s.ndim == 0 for s in sequences):
        raise InvalidArgumentError("pad_sequence: each sequence needs a length (dim 0); got a "
                                   "0-d tensor")
    longest = max(s.shape[0] for s in sequences)
    padded = []
    for s in sequences:
        missing = longest - s.shape[0]
        amounts = [missing, 0] if padding_side == "left" else [0, missing]
        padded.append(F.pad(s, [0, 0] * (s.ndim - 1) + amounts, value=padding_value))
    return stack(padded, 0 if batch_first else 1)
