"""torch.cuda.nvtx, default domain: each call is appended to `events`."""
import os
import threading

events = []  # ("push", text, thread name) / ("pop", None, thread name)
_fail = os.environ.get("FAKE_TORCH_NVTX_FAIL", "")


def range_push(msg):
    if _fail == "push":
        raise RuntimeError("fake NVTX push failure")
    events.append(("push", msg, threading.current_thread().name))
    return 0


def range_pop():
    if _fail == "pop":
        raise RuntimeError("fake NVTX pop failure")
    events.append(("pop", None, threading.current_thread().name))
    return 0
