"""Sliding windows (im2col): the one primitive behind convolution and pooling, which are
compositions of it (`minigrad.functional.conv2d`, `max_pool2d`, `avg_pool2d`)."""
from __future__ import annotations

import numpy as np

from ..engine import Function


class Unfold(Function):
    """out[n, c, i, j, y, x] = padded[n, c, y * sh + i * dh, x * sw + j * dw]: every (kh, kw)
    window of an (N, C, H, W) input, spaced by the stride (sh, sw) and dilated by (dh, dw), after
    padding with `pad_value` by ((top, bottom), (left, right)).
    da = fold(G): each window entry's G added back at the input position it was read from
    (a position read by several windows gets their sum; the padding gets nothing)"""

    saves_inputs = False

    def forward(self, a: np.ndarray, kernel_size: tuple[int, int], dilation: tuple[int, int],
                padding: tuple[tuple[int, int], tuple[int, int]], stride: tuple[int, int],
                pad_value: float = 0.0) -> np.ndarray:
        (top, bottom), (left, right) = padding
        padded = np.pad(a, ((0, 0), (0, 0), (top, bottom), (left, right)),
                        constant_values=pad_value)
        (kh, kw), (dh, dw), (sh, sw) = kernel_size, dilation, stride
        out_h = (padded.shape[2] - dh * (kh - 1) - 1) // sh + 1
        out_w = (padded.shape[3] - dw * (kw - 1) - 1) // sw + 1
        # kernel offset (i, j) reads these rows and columns of the padded input, one per output
        self.reads = [((i, j), slice(i * dh, i * dh + (out_h - 1) * sh + 1, sh),
                       slice(j * dw, j * dw + (out_w - 1) * sw + 1, sw))
                      for i in range(kh) for j in range(kw)]
        self.padded_shape = padded.shape
        self.unpadded = (slice(None), slice(None), slice(top, top + a.shape[2]),
                         slice(left, left + a.shape[3]))
        out = np.empty(a.shape[:2] + (kh, kw, out_h, out_w), dtype=a.dtype)
        for (i, j), rows, cols in self.reads:  # one strided copy per kernel offset
            out[:, :, i, j] = padded[:, :, rows, cols]
        return out

    def backward(self, g: np.ndarray) -> np.ndarray:
        padded = np.zeros(self.padded_shape, dtype=g.dtype)
        for (i, j), rows, cols in self.reads:
            # one offset's strided slice holds each position once, so += loses no repeats
            padded[:, :, rows, cols] += g[:, :, i, j]
        return padded[self.unpadded]
