"""Models built only on minigrad: the attention tutorial's layers and a character-level GPT."""
from .attention import MultiHeadAttention, create_causal_mask, scaled_dot_product_attention
from .gpt import GPT, CharTokenizer, GPTConfig

__all__ = ["CharTokenizer", "GPT", "GPTConfig", "MultiHeadAttention", "create_causal_mask",
           "scaled_dot_product_attention"]
