"""The exceptions minigrad raises where PyTorch raises RuntimeError.

PyTorch reports most misuse of an op (shapes that do not fit, a bad size or mode, a dtype the
op does not take, an index entry out of range) as RuntimeError. Python's convention, which
minigrad followed before, is ValueError, TypeError or IndexError. Each class here is a
RuntimeError and the Python class minigrad raised before, so code written for PyTorch
(`except RuntimeError`) and code written for older minigrad (`except ValueError`) both catch it.
Where PyTorch raises IndexError (a dim or class target out of range), TypeError (a size that is
not an integer) or NotImplementedError (an unknown mode), minigrad raises that class too, as a
plain Python exception: there `except ValueError` no longer catches what it once did.
"""


class InvalidArgumentError(RuntimeError, ValueError):
    """A shape, size or value that the op cannot take."""


class InvalidTypeError(RuntimeError, TypeError):
    """A tensor of a dtype, or an object of a type, that the op cannot take."""


class InvalidIndexError(RuntimeError, IndexError):
    """Index entries outside the dim they index (gather, scatter, narrow, max_unpool2d)."""


class InvalidKeyError(RuntimeError, KeyError):
    """Names that do not match, such as a state dict's keys and a module's (load_state_dict)."""

    __str__ = RuntimeError.__str__  # the message as written, not quoted as KeyError quotes it


class LinAlgError(InvalidArgumentError):
    """A matrix that a factorization or solve cannot take: singular, not positive-definite, or
    one on which the algorithm did not converge (PyTorch's torch.linalg.LinAlgError)."""


class DeviceError(RuntimeError, AssertionError):
    """A device other than the CPU, which is all minigrad computes on (PyTorch built without
    CUDA raises AssertionError for "cuda")."""
