"""Programs for llmprof's startup-module tests (tests/cli/
test-pytorch-startup.sh), run on the fake torch beside this file:
    python3 scenario.py NAME
A small Llama-shaped model (CausalLM > model > layers.N > self_attn, mlp,
norm > Linear) of plain numbers; each scenario prints "result R" (the same
with and without llmprof's startup module) and, where torch.cuda.nvtx got
the ranges (the startup module's fallback), "nvtx" lines: one per push
(indented by nesting, with the thread) and "unbalanced" when pops do not
match pushes."""
import os
import sys
import threading
import time

import torch
from torch import nn


class Norm(nn.Module):
    work = 0  # "many": CPU work of the program's own per call, beside the hooks'
    first_sleep = 0.0  # "many": the first call waits this long (lazy initialisation)

    def forward(self, x):
        if Norm.first_sleep:
            fake = torch.nn.modules.module
            if fake._fake_time:  # the fake torch's clock: it moves, nobody waits
                fake._fake_now[0] += int(Norm.first_sleep * 1e9)
            else:
                time.sleep(Norm.first_sleep)
            Norm.first_sleep = 0.0
        for _ in range(self.work):
            pass
        return x + 0.5


class Attn(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(2)
        self.o_proj = nn.Linear(3)

    def forward(self, x):
        return self.o_proj(self.q_proj(x))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(5)
        self.down = nn.Linear(7)

    fail = False

    def forward(self, x):
        x = self.up(x)
        if self.fail:
            raise ValueError("a forward that raises")
        return self.down(x)


class Layer(nn.Module):
    helper = None  # a module outside the tree, called from forward

    def __init__(self):
        super().__init__()
        self.norm = Norm()
        self.self_attn = Attn()
        self.mlp = MLP()

    def forward(self, x):
        if Layer.helper is not None:
            x = Layer.helper(x)
        x = self.self_attn(self.norm(x))
        try:
            return self.mlp(x)
        except ValueError:  # caught by its caller: the ranges must still balance
            return x


class Inner(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.layers = nn.ModuleList([Layer() for _ in range(n)])

    def forward(self, x):
        for layer in self.layers:
            x = layer(x)
        return x


class CausalLM(nn.Module):
    def __init__(self, n=2):
        super().__init__()
        self.model = Inner(n)
        self.lm_head = nn.Linear(11)

    def forward(self, x):
        return self.lm_head(self.model(x))


class Helper(nn.Module):
    def __init__(self):
        super().__init__()
        self.lin = nn.Linear(13)

    def forward(self, x):
        return self.lin(x) - 12 * x


def show_nvtx():
    ev = torch.cuda.nvtx.events
    depth = {}
    bad = False
    for kind, text, th in ev:
        d = depth.get(th, 0)
        if kind == "push":
            print("nvtx %s%s (%s)" % ("  " * d, text, th))
            depth[th] = d + 1
        else:
            if d == 0:
                bad = True
            depth[th] = d - 1
    if bad or any(depth.values()):
        print("nvtx unbalanced: %s" % depth)


def main(name):
    m = CausalLM()
    if name == "basic":
        r = m(1)
    elif name == "twice":
        r = m(1) + m(2)
    elif name == "compile":
        r = torch.compile(m)(1)
    elif name == "eager-then-compile":
        r = m(1)
        r += torch.compile(m)(2)
    elif name == "raise":
        m.model.layers[0].mlp.fail = True
        r = m(1)
    elif name == "roots":
        other = CausalLM(1)
        r = m(1) + other(1) + nn.Linear(17)(1)
    elif name == "outside":
        Layer.helper = Helper()
        r = m(1)
    elif name == "threads":
        out = {}

        def run(i):
            out[i] = m(i)

        ts = [threading.Thread(target=run, args=(i,), name="worker%d" % i) for i in (1, 2)]
        for t in ts:
            t.start()
        for t in ts:
            t.join()
        r = out[1] + out[2]
    elif name == "import-order":
        mm = torch.nn.modules.module
        print("hooks during import:", torch.hooks_during_import)
        print("hooks after import:", len(mm._global_forward_pre_hooks), len(mm._global_forward_hooks))
        print("loader restored:", type(torch.__loader__).__name__, type(torch.__spec__.loader).__name__)
        import sitecustomize
        print("sitecustomize:", getattr(sitecustomize, "WHO", "llmprof"))
        lp = sys.modules.get("_llmprof_pytorch")  # its calibration left nothing
        if lp is not None:
            print("after import: entries %d calls %d wall0 %s" % (len(lp._entries), lp._calls, lp._wall0))
        r = m(1)
    elif name == "many":  # 120 calls of the model, 2,280 module calls
        Norm.work = int(os.environ.get("SCENARIO_WORK", "0"))
        Norm.first_sleep = float(os.environ.get("SCENARIO_FIRST_SLEEP_MS", "0")) / 1e3
        r = 0
        t0 = time.perf_counter_ns()
        for i in range(120):
            r += m(i)
        print("loop ms %.3f" % ((time.perf_counter_ns() - t0) / 1e6))
        mm = torch.nn.modules.module
        print("hooks at the end:", len(mm._global_forward_pre_hooks), len(mm._global_forward_hooks))
    elif name == "fail-later":  # the module's NVTX pop fails after a first, good call
        r = m(1)
        mod = sys.modules.get("_llmprof_pytorch")

        def broken():
            raise OSError("fake pop failure")

        if mod is not None:
            mod._pop = broken
        r += m(2)
    elif name == "uninstall":  # bench/pytorch/modes_bench.py's mode switching
        mod = sys.modules.get("_llmprof_pytorch")  # None without llmprof
        r = m(1)
        if mod is not None:
            c = mod.uninstall()
            print("uninstall: calls %d ranges %d on %s" % (c["calls"], c["ranges"], c["on"]))
        r += m(2)  # no hooks: no ranges
        mm = torch.nn.modules.module
        print("hooks after uninstall:", len(mm._global_forward_pre_hooks), len(mm._global_forward_hooks))
        if mod is not None:
            mod.install(torch)
        r += m(3)
    elif name == "ops":
        p = torch.autograd.profiler.state
        print("ops:", p["enabled"], "shapes:", p["record_shapes"], "synchronized:",
              p["synchronized_on_enter"], "sync calls:", torch.cuda.synchronize_calls[0])
        r = m(1)
    else:
        sys.exit("unknown scenario " + name)
    print("result", r)
    show_nvtx()


if __name__ == "__main__":
    main(sys.argv[1])
