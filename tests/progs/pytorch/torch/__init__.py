"""A fake `torch` for llmprof's startup-module tests (tests/cli/
test-pytorch-startup.sh): just what pytorch/_llmprof_pytorch.py touches,
with nn.Module's hook machinery as PyTorch 2.x has it (global pre/post
hooks, always_call, the hooks snapshotted before they run). No tensors: a
"forward" works on plain numbers. FAKE_TORCH_* variables change it:
  FAKE_TORCH_NO_ALWAYS_CALL=1  register_module_forward_hook has no always_call
  FAKE_TORCH_NO_IS_COMPILING=1 no is_compiling() anywhere (torch.compile kept)
  FAKE_TORCH_NVTX_FAIL=push|pop torch.cuda.nvtx raises on that call
  FAKE_TORCH_HOOKED_US=N       a module call with global hooks costs N us more
  FAKE_TORCH_CLOCK=1           time.perf_counter_ns is the fake's own clock:
                               100 ns a read, 1 us a module call (+N us hooked)
  FAKE_TORCH_CALL_US=N         FAKE_TORCH_CLOCK: a module call takes N us
  FAKE_TORCH_REGISTER_FAIL=N   the Nth register_module_forward_hook raises
"""
import sys as _sys

__version__ = "2.99.0+fake"

from torch import nn  # noqa: E402
from torch import compiler  # noqa: E402
from torch import cuda  # noqa: E402
from torch import autograd  # noqa: E402
from torch import _utils  # noqa: E402

# what the startup module must not have done while torch was importing
hooks_during_import = (len(nn.modules.module._global_forward_pre_hooks),
                       len(nn.modules.module._global_forward_hooks))


def compile(model, **kwargs):
    """Wraps model as torch.compile does (OptimizedModule, _orig_mod); a
    call runs the wrapped module with is_compiling() true, as a Dynamo trace
    of it would (a fake: every call is a "trace")."""
    return nn.modules.module.OptimizedModule(model)
