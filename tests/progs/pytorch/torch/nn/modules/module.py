"""nn.Module's call path as PyTorch 2.x has it (torch/nn/modules/module.py,
_call_impl): global forward pre-hooks and forward hooks, snapshotted into a
tuple before they run; always_call hooks run when forward raises."""
import itertools
import os
import time
from collections import OrderedDict

import torch

_global_forward_pre_hooks = OrderedDict()
_global_forward_hooks = OrderedDict()
_global_forward_hooks_always_called = OrderedDict()
_ids = itertools.count()
# FAKE_TORCH_HOOKED_US: the hooked call path costs this many more us a call
# (busy: as PyTorch's slower _call_impl once global hooks exist)
_hooked_ns = int(float(os.environ.get("FAKE_TORCH_HOOKED_US", "0")) * 1000)
# FAKE_TORCH_CLOCK=1: time.perf_counter_ns is a clock of this fake's own,
# which moves only when it is read (100 ns a read: the hooks' bodies) and when
# a module is called (FAKE_TORCH_CALL_US, 1 us; with global hooks
# FAKE_TORCH_HOOKED_US more): what the startup module measures is then exact,
# whatever the host's load
_fake_now = [0]
_call_ns = int(float(os.environ.get("FAKE_TORCH_CALL_US", "1")) * 1000)


def _fake_clock():
    _fake_now[0] += 100
    return _fake_now[0]


_fake_time = os.environ.get("FAKE_TORCH_CLOCK") == "1"
if _fake_time:
    time.perf_counter_ns = _fake_clock
# FAKE_TORCH_REGISTER_FAIL=N: the Nth register_module_forward_hook raises
_register_fail = int(os.environ.get("FAKE_TORCH_REGISTER_FAIL", "0"))
_registered = [0]


class RemovableHandle:
    def __init__(self, *dicts):
        self.id = next(_ids)
        self.dicts = dicts

    def remove(self):
        for d in self.dicts:
            d.pop(self.id, None)


def register_module_forward_pre_hook(hook):
    h = RemovableHandle(_global_forward_pre_hooks)
    _global_forward_pre_hooks[h.id] = hook
    return h


def _register_forward_hook(hook, *, always_call=False):
    _registered[0] += 1
    if _registered[0] == _register_fail:
        raise RuntimeError("fake registration failure")
    h = RemovableHandle(_global_forward_hooks, _global_forward_hooks_always_called)
    _global_forward_hooks[h.id] = hook
    if always_call:
        _global_forward_hooks_always_called[h.id] = True
    return h


if os.environ.get("FAKE_TORCH_NO_ALWAYS_CALL") == "1":
    def register_module_forward_hook(hook):
        return _register_forward_hook(hook)
else:
    register_module_forward_hook = _register_forward_hook


class Module:
    def __init__(self):
        object.__setattr__(self, "_modules", OrderedDict())

    def __setattr__(self, name, value):
        if isinstance(value, Module):
            self._modules[name] = value
        object.__setattr__(self, name, value)

    def named_children(self):
        memo = set()
        for name, m in self._modules.items():
            if m is not None and id(m) not in memo:
                memo.add(id(m))
                yield name, m

    def forward(self, *args):
        raise NotImplementedError

    def __call__(self, *args, **kwargs):
        return self._call_impl(*args, **kwargs)

    def _call_impl(self, *args, **kwargs):
        forward_call = self.forward
        if _fake_time:
            _fake_now[0] += _call_ns
        if not (_global_forward_hooks or _global_forward_pre_hooks):
            return forward_call(*args, **kwargs)
        if _fake_time:
            _fake_now[0] += _hooked_ns
        elif _hooked_ns:
            end = time.perf_counter_ns() + _hooked_ns
            while time.perf_counter_ns() < end:
                pass
        result = None
        called_always = set()

        def inner():
            nonlocal result, args
            for hook_id, hook in (*_global_forward_pre_hooks.items(),):
                r = hook(self, args)
                if r is not None:
                    args = r if isinstance(r, tuple) else (r,)
            result = forward_call(*args, **kwargs)
            for hook_id, hook in (*_global_forward_hooks.items(),):
                if hook_id in _global_forward_hooks_always_called:
                    called_always.add(hook_id)
                r = hook(self, args, result)
                if r is not None:
                    result = r
            return result

        if torch.compiler._compiling[0]:
            return inner()
        try:
            return inner()
        except Exception:
            for hook_id, hook in _global_forward_hooks.items():
                if hook_id in _global_forward_hooks_always_called and hook_id not in called_always:
                    try:
                        r = hook(self, args, result)
                        if r is not None:
                            result = r
                    except Exception:
                        continue
            raise


class ModuleList(Module):
    def __init__(self, mods):
        super().__init__()
        for i, m in enumerate(mods):
            self._modules[str(i)] = m

    def __getitem__(self, i):
        return self._modules[str(i)]

    def __iter__(self):
        return iter(self._modules.values())

    def __len__(self):
        return len(self._modules)


class Linear(Module):
    def __init__(self, w):
        super().__init__()
        self.w = w

    def forward(self, x):
        return x * self.w


class OptimizedModule(Module):
    """torch.compile's wrapper: the call of the wrapped module is what Dynamo
    traces, so is_compiling() is true during it."""

    def __init__(self, mod):
        super().__init__()
        self._orig_mod = mod

    def forward(self, *args):
        flag = torch.compiler._compiling
        old = flag[0]
        flag[0] = True
        try:
            return self._orig_mod(*args)
        finally:
            flag[0] = old
