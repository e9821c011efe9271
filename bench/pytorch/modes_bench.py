"""GPU program for bench/pytorch/modes-overhead.sh: the cost of each mode of
llmprof's PyTorch startup module (docs/pytorch.md), measured in one process
so that the modes interleave (round r runs every mode once, in an order
rotated each round) on one warm model.

  python3 modes_bench.py --program hf-eager|mini-graph|mini-compile|mini-compilero|dry
                         --modes untraced|none,modules,ops,auto --rounds R --json FILE

The models and decode loops are scripts/gpu/pytorch_modules.py's (random
weights, Llama-3.2-1B shape, nothing downloaded); "dry" is a model of plain
numbers whose layers spin instead of launching, for the script's own test
on a CPU (any torch, the tests' fake one included). A mode is installed with
the startup module's own install() (LLMPROF_PYTORCH set first) and removed
with its uninstall(), which also returns what the hooks measured of
themselves; "none" and "untraced" install nothing (untraced is "none" in a
process without llmprof's tracer: the caller runs it so). The CUDA-graph
decode is captured again inside each mode (its ranges are pushed at
capture; replays run no hook). The compiled decodes are compiled once,
before any mode, and each mode first runs one untimed generation, so a
recompilation a mode causes is counted (Dynamo's counters, per mode) and not
timed. Each timed generation gives: decode_ms (CUDA events around the decode
loop), wall_ms (the host's time for the same loop, synchronized), its
checksum (tokens, logits), which must equal the untraced process's, and,
with hooks, what the startup module estimates they added to that
generation ("estimate": its calibrated call path x the generation's module
calls + the hooks' bodies' time, and the slowdown that makes of wall_ms)
beside its own running estimate since the mode's first module call
("hooks": uninstall()'s, diluted once auto turned the hooks off), the
last estimate auto judged (judged_pct: at 1,000 module calls and every
1,000 after) and whether the ranges were still on.
--real: no mode switching; the process as llmprof's startup module left it
(pipeline.trace.pytorch=... under `llmprof profile`): rounds of timed
generations, for Dynamo's graph-break count with the hooks installed at
import, as programs get them."""
import argparse
import json
import os
import sys
import time

ap = argparse.ArgumentParser()
ap.add_argument("--program", required=True,
                choices=["hf-eager", "mini-graph", "mini-compile", "mini-compilero", "dry"])
ap.add_argument("--modes", default="none,modules,ops,auto")
ap.add_argument("--rounds", type=int, default=4)
ap.add_argument("--new-tokens", type=int, default=16)
ap.add_argument("--layers", type=int, default=16)
ap.add_argument("--budget", default="3")
ap.add_argument("--real", action="store_true")
ap.add_argument("--json", required=True)
ap.add_argument("--log", help="the startup module's log when llmprof named none")
args = ap.parse_args()
if args.log:
    os.environ.setdefault("LLMPROF_PYTORCH_LOG", args.log)

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "scripts", "gpu"))
model, run = {"hf-eager": ("hf", "eager"), "mini-graph": ("mini", "graph"),
              "mini-compile": ("mini", "compile"), "mini-compilero": ("mini", "compile-ro"),
              "dry": ("dry", "eager")}[args.program]
if model == "dry":  # the script's own test on a CPU (tests/cli/test-pytorch-modes-bench.sh)
    import torch  # noqa: E402
    from torch import nn  # noqa: E402

    class DryLayer(nn.Module):
        """A "layer" of plain numbers whose forward spins as a launch would."""

        def forward(self, x):
            for _ in range(200):
                x = (x * 3 + 1) % 1000003
            return x

    class DryModel(nn.Module):
        def __init__(self, n):
            super().__init__()
            for i in range(n):
                setattr(self, "layer%d" % i, DryLayer())
            self.n = n

        def forward(self, x):
            for i in range(self.n):
                x = getattr(self, "layer%d" % i)(x)
            return x

    class pm:  # noqa: N801  pytorch_modules' interface, as far as used here
        @staticmethod
        def build():
            return DryModel(args.layers)

        @staticmethod
        def generate_dry(m):
            t0 = time.perf_counter()
            toks = [m(1)]
            for _ in range(args.new_tokens):
                toks.append(m(toks[-1]))
            return toks, (time.perf_counter() - t0) * 1e3
else:
    # pytorch_modules parses its own options at import
    sys.argv = [sys.argv[0], "--model", model, "--run", run, "--layers", str(args.layers),
                "--new-tokens", str(args.new_tokens)]
    import pytorch_modules as pm  # noqa: E402
    import torch  # noqa: E402

lp = sys.modules.get("_llmprof_pytorch")
if lp is None and not args.real:
    import importlib.util
    d = os.environ.get("LLMPROF_PYTORCH_DIR") or os.path.join(here, "..", "..", "build", "pytorch")
    spec = importlib.util.spec_from_file_location("_llmprof_pytorch",
                                                  os.path.join(d, "_llmprof_pytorch.py"))
    lp = importlib.util.module_from_spec(spec)
    sys.modules["_llmprof_pytorch"] = lp
    spec.loader.exec_module(lp)
    os.environ.setdefault("LLMPROF_PYTORCH_NVTX_LIB", os.path.join(d, "libllmprof_nvtx.so"))


def dynamo():
    try:
        from torch._dynamo.utils import counters
        return {"graph_breaks": sum(counters["graph_break"].values()),
                "unique_graphs": counters["stats"]["unique_graphs"],
                "breaks": {" ".join(str(k).split())[:160]: v for k, v in counters["graph_break"].items()}}
    except Exception as e:
        return {"error": str(e)}


try:  # a mode switch may recompile: never fall back to eager for want of cache
    import torch._dynamo
    for k in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
              "accumulated_recompile_limit"):
        if hasattr(torch._dynamo.config, k):
            setattr(torch._dynamo.config, k, 256)
except Exception:
    pass
m = pm.build()
ids = torch.randint(0, pm.V, (1, pm.a.prompt), device=pm.dev) if model != "dry" else None


def generation(step, mark=True):
    t0 = time.perf_counter()
    if model == "dry":
        toks, ms = pm.generate_dry(m)
        return {"decode_ms": ms, "wall_ms": (time.perf_counter() - t0) * 1e3,
                "checksum": [sum(toks), 0]}
    if model == "hf":
        toks, lsum, ms = pm.generate_hf(m, ids, mark)
    else:
        toks, lsum, ms = pm.generate_mini(m, step, ids, mark)
    wall = (time.perf_counter() - t0) * 1e3
    return {"decode_ms": ms, "wall_ms": wall,
            "checksum": [int(torch.cat(toks).sum().item()), round(lsum, 4)]}


def set_mode(mode):
    if mode in ("none", "untraced"):
        return
    os.environ["LLMPROF_PYTORCH"] = mode
    os.environ["LLMPROF_PYTORCH_BUDGET"] = args.budget
    os.environ.setdefault("LLMPROF_PYTORCH_DEPTH", "8")
    lp.install(torch)


def counters():
    """The hooks' counters now: (module calls, ns in their bodies)."""
    if lp is None or getattr(lp, "_clock", None) is None:
        return None
    return lp._calls, lp._hook_ns


def estimate(c0, c1, g):
    """What the startup module estimates the hooks added to this one
    generation (its own formula, on the generation's calls alone): calls x
    the calibrated call path + the bodies' time, and the slowdown that makes
    of the generation's wall time; None without hooks."""
    if c0 is None or c1 is None or c1[0] < c0[0] or c1[0] == c0[0]:
        return None
    est_ns = (c1[0] - c0[0]) * lp._path_ns + (c1[1] - c0[1])
    return {"calls": c1[0] - c0[0], "path_us": lp._path_ns / 1e3,
            "hook_ms": (c1[1] - c0[1]) / 1e6, "est_ms": est_ns / 1e6,
            "slowdown_pct": lp._slowdown(est_ns, g["wall_ms"] * 1e6)}


def cost():
    """The startup module's own running estimate since the first module call
    (auto judges this one), and whether the ranges are on."""
    out = dict(zip(("calls", "hook_ms", "path_us", "est_ms", "wall_ms", "slowdown_pct"),
                   lp._cost()))
    out.update(on=lp._on, judged_pct=lp._judged)
    return out


res = {"program": args.program, "torch": torch.__version__,
       "gpu": torch.cuda.get_device_name() if model != "dry" else None,
       "rounds": [], "dynamo": {}}
step = pm.mini_step(m) if model == "mini" else None
generation(step, mark=False)  # warm-up (and compilation) before any mode
res["dynamo"]["before"] = dynamo()
modes = ["real"] if args.real else args.modes.split(",")
for r in range(args.rounds):
    k = r % len(modes)
    for mode in modes[k:] + modes[:k]:
        if not args.real:
            set_mode(mode)
        st = pm.mini_step(m) if run == "graph" else step  # captured inside the mode
        generation(st, mark=False)  # untimed: a recompilation, a first capture
        c0 = counters()
        g = generation(st)
        g["mode"], g["round"] = mode, r
        g["estimate"] = estimate(c0, counters(), g)
        if mode == "real" and lp is not None and getattr(lp, "_calls", 0):
            g["hooks"] = cost()  # since the first call: not reset
        elif lp is not None and mode not in ("none", "untraced", "real"):
            g["hooks"] = lp.uninstall()
        else:
            g["hooks"] = {}
        g["dynamo"] = dynamo()
        res["rounds"].append(g)
        est = g["estimate"]
        print("round %d %-8s decode %.3f ms wall %.3f ms checksum %s estimate %s hooks %s" % (
            r, mode, g["decode_ms"], g["wall_ms"], g["checksum"],
            "-" if est is None else "%.3f ms (%.2f %%)" % (est["est_ms"], est["slowdown_pct"]),
            {k: (round(v, 3) if isinstance(v, float) else v) for k, v in g["hooks"].items()}),
            flush=True)
res["dynamo"]["after"] = dynamo()
json.dump(res, open(args.json, "w"), indent=1)
