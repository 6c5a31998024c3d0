"""python -m train [FILE]: train the character-level GPT on FILE (see train/train.py)."""
from .errors import run_cli_module

run_cli_module("train.train")
