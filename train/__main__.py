"""python -m train [FILE]: train the character-level GPT on FILE (see train/train.py)."""
import sys

from .errors import run_cli
from .train import main

sys.exit(run_cli(main))
