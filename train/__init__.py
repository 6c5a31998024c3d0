"""`python -m train`: train a character-level GPT on a text file."""
