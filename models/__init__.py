"""Models built only on minigrad: attention and a character-level GPT."""
