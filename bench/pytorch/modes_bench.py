"""GPU program for bench/pytorch/modes-overhead.sh: the cost of each mode of
llmprof's PyTorch startup module (docs/pytorch.md), measured in one process
so that the modes interleave (round r runs every mode once, in an order
rotated each round) on one warm model.

  python3 modes_bench.py --program hf-eager|mini-graph|mini-compile|mini-compilero
                         --modes untraced|none,modules,ops,auto --rounds R --json FILE

The models and decode loops are scripts/gpu/pytorch_modules.py's (random
weights, Llama-3.2-1B shape, nothing downloaded). A mode is installed with
the startup module's own install() (LLMPROF_PYTORCH set first) and removed
with its uninstall(), which also returns what the hooks measured of
themselves; "none" and "untraced" install nothing (untraced is "none" in a
process without llmprof's tracer: the caller runs it so). The CUDA-graph
decode is captured again inside each mode (its ranges are pushed at
capture; replays run no hook). The compiled decodes are compiled once,
before any mode, and each mode first runs one untimed generation, so a
recompilation a mode causes is counted (Dynamo's counters, per mode) and not
timed. Each timed generation gives: decode_ms (CUDA events around the decode
loop), wall_ms (the host's time for the same loop, synchronized), and its
checksum (tokens, logits), which must equal the untraced process's.
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
                choices=["hf-eager", "mini-graph", "mini-compile", "mini-compilero"])
ap.add_argument("--modes", default="none,modules,ops,auto")
ap.add_argument("--rounds", type=int, default=4)
ap.add_argument("--new-tokens", type=int, default=16)
ap.add_argument("--layers", type=int, default=16)
ap.add_argument("--budget", default="5")
ap.add_argument("--real", action="store_true")
ap.add_argument("--json", required=True)
ap.add_argument("--log", help="the startup module's log when llmprof named none")
args = ap.parse_args()
if args.log:
    os.environ.setdefault("LLMPROF_PYTORCH_LOG", args.log)

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "..", "..", "scripts", "gpu"))
model, run = {"hf-eager": ("hf", "eager"), "mini-graph": ("mini", "graph"),
              "mini-compile": ("mini", "compile"), "mini-compilero": ("mini", "compile-ro")}[args.program]
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
ids = torch.randint(0, pm.V, (1, pm.a.prompt), device=pm.dev)


def generation(step, mark=True):
    t0 = time.perf_counter()
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


res = {"program": args.program, "torch": torch.__version__, "gpu": torch.cuda.get_device_name(),
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
        g = generation(st)
        g["mode"], g["round"] = mode, r
        if mode == "real" and lp is not None and getattr(lp, "_calls", 0):
            hook_ms, cpu_ms, share = lp._cost()  # since the first call: not reset
            g["hooks"] = {"calls": lp._calls, "hook_ms": hook_ms, "cpu_ms": cpu_ms,
                          "share_pct": share, "on": lp._on}
        elif lp is not None and mode not in ("none", "untraced", "real"):
            g["hooks"] = lp.uninstall()
        else:
            g["hooks"] = {}
        g["dynamo"] = dynamo()
        res["rounds"].append(g)
        print("round %d %-8s decode %.3f ms wall %.3f ms checksum %s hooks %s" % (
            r, mode, g["decode_ms"], g["wall_ms"], g["checksum"],
            {k: (round(v, 3) if isinstance(v, float) else v) for k, v in g["hooks"].items()}),
            flush=True)
res["dynamo"]["after"] = dynamo()
json.dump(res, open(args.json, "w"), indent=1)
