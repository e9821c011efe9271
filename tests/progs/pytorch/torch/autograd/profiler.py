"""emit_nvtx as PyTorch has it: __enter__ synchronizes, then turns the
profiler's NVTX mode on (here: records it)."""
import torch

state = {"enabled": False, "record_shapes": None, "synchronized_on_enter": None}


class emit_nvtx:
    def __init__(self, enabled=True, record_shapes=False):
        self.enabled = enabled
        self.record_shapes = record_shapes
        self.entered = False

    def __enter__(self):
        if not self.enabled:
            return self
        if self.entered:
            raise RuntimeError("NVTX annotation context manager is not reentrant")
        self.entered = True
        before = torch.cuda.synchronize_calls[0]
        torch.cuda.synchronize()
        state["synchronized_on_enter"] = torch.cuda.synchronize_calls[0] > before
        state["enabled"] = True
        state["record_shapes"] = self.record_shapes
        return self

    def __exit__(self, *exc):
        state["enabled"] = False
        return False
