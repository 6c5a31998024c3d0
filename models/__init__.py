"""Models built only on minigrad: the attention tutorial's layers and a character-level GPT."""
from importlib import import_module
from typing import Any

_EXPORTS = {
    "scaled_dot_product_attention": "attention", "create_causal_mask": "attention",
    "MultiHeadAttention": "attention", "GPT": "gpt", "GPTConfig": "gpt", "CharTokenizer": "gpt",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name: str) -> Any:
    # imported on first use, so `python -m models.attention` does not find its own module
    # already imported by this package (runpy warns about that)
    if name in _EXPORTS:
        return getattr(import_module(f".{_EXPORTS[name]}", __name__), name)
    raise AttributeError(f"module 'models' has no attribute {name!r}")
