"""torch.cuda's questions, answered for minigrad, which computes on the CPU only."""


def is_available() -> bool:
    return False


def device_count() -> int:
    return 0
