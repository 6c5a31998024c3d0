"""Small programs built only on minigrad's public API; run one with `python -m examples.<name>`."""
