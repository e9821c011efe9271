"""torch.cuda: synchronize() counts its calls; nvtx records its ranges."""
from torch.cuda import nvtx  # noqa: F401

synchronize_calls = [0]


def synchronize(device=None):
    synchronize_calls[0] += 1
