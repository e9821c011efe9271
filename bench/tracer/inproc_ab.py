"""inproc_ab: what a CUPTI tracer costs an eager transformers decode, measured
inside one process, so that the CPU's speed, which moves from process to
process by more than the costs compared (docs/tracer.md, "CUPTI's floor and
the targets"), is the same on both sides of every ratio.

The tracer is injected as usual (CUDA_INJECTION64_PATH): the builtin with
LLMPROF_TRACE_BENCH=pausable, or bench/tracer/cupti_floor.c. After the
warm-up, the program switches it off and on between reps through the
library's exported llmprof_bench_trace(0|1) (ctypes, the same path: the copy
CUDA loaded), and times each rep's decode loop: pairs of one rep off and one
on, in alternating order. Off, CUPTI records nothing but its subscriber and
callbacks stay, so the ratio on/off is the cost of recording; an untraced
process (no --lib) runs the same pairs with nothing to switch, which is the
method's own noise.

The programs (--program), batch 1, torch with one intra-op thread,
Python's collector frozen after the warm-up and run before each rep:
  eager    a transformers Llama of the Llama-3.2-1B shape with random weights
           (bench/tracer/llama_1b.py), its eager decode
  compile  the same shape as plain modules with a static KV cache
           (scripts/gpu/pytorch_modules.py's "mini" model), each decode step
           torch.compile(mode="reduce-overhead"): CUDA-graph replays, the
           token fed back on the GPU, no sync inside the loop (as
           pytorch_modules.py --run compile-ro)
A graph replay's kernels are recorded by the same CUPTI activity kind that
the switch turns off; whether the switch reaches them is checked, not
assumed: with the floor (which counts its kernel records,
cupti_floor_kernels()) each pair line also gives the records an off rep and
an on rep produced, and the summary line the most any off rep produced.

usage: python3 inproc_ab.py [--lib PATH] [--program eager|compile] [--pairs 12]
                            [--steps 48] [--layers 16]
prints one "pair" line per pair and one "inproc_ab" summary line:
  ratio median, its quartiles and bootstrap 90 % interval, off and on
  medians (s), and the cost per decode step (us)
"""
import argparse
import ctypes
import gc
import os
import random
import statistics
import sys
import time

import torch

from llama_1b import llama_1b  # beside this file


def eager_program(a):
    """rep() -> seconds of a's eager transformers decode loop."""
    model, ids = llama_1b(a.layers, a.prompt)

    def rep():
        with torch.inference_mode():
            out = model(ids, use_cache=True)
            cache = out.past_key_values
            tok = out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for _ in range(a.steps):
                out = model(tok, past_key_values=cache, use_cache=True)
                cache = out.past_key_values
                tok = out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
            return time.perf_counter() - t0
    return rep


def compile_program(a):
    """rep() -> seconds of a's reduce-overhead compiled decode loop."""
    here = os.path.dirname(os.path.abspath(__file__))
    sys.path.insert(0, os.path.join(here, "..", "..", "scripts", "gpu"))
    argv = sys.argv
    # pytorch_modules parses its own options at import
    sys.argv = [argv[0], "--model", "mini", "--run", "compile-ro", "--layers", str(a.layers),
                "--prompt", str(a.prompt), "--new-tokens", str(a.steps)]
    import pytorch_modules as pm
    sys.argv = argv
    m = pm.build()
    step = pm.mini_step(m)
    ids = torch.randint(0, pm.V, (1, a.prompt), device="cuda")

    def rep():
        with torch.inference_mode():
            tok = m(ids, torch.arange(a.prompt, device="cuda")).argmax(-1)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            for t in range(a.steps):
                tok, _ = step(tok, a.prompt + t)
            torch.cuda.synchronize()
            return time.perf_counter() - t0
    return rep


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", help="the injected tracer (CUDA_INJECTION64_PATH)")
    ap.add_argument("--program", choices=("eager", "compile"), default="eager")
    ap.add_argument("--pairs", type=int, default=12)
    ap.add_argument("--steps", type=int, default=48)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("--layers", type=int, default=16)
    a = ap.parse_args()
    torch.set_num_threads(1)
    rep = (compile_program if a.program == "compile" else eager_program)(a)

    switch = count = None
    if a.lib:
        lib = ctypes.CDLL(a.lib)
        switch = lib.llmprof_bench_trace
        switch.argtypes = [ctypes.c_int]
        switch.restype = ctypes.c_int
        if hasattr(lib, "cupti_floor_kernels"):
            count = lib.cupti_floor_kernels
            count.restype = ctypes.c_ulonglong

    def set_tracing(on):
        if switch and switch(on) != 0:
            raise SystemExit("inproc_ab: %s did not switch (LLMPROF_TRACE_BENCH=pausable? "
                             "the copy CUDA loaded?)" % a.lib)
        torch.cuda.synchronize()

    rep()  # warm-up, traced: kernel selection, compilation, allocator, CUPTI's first buffers
    rep()
    # One untimed switch off and on again: on an H200 (CUPTI 13.0) the first
    # rep after the first switch off still had its graph replays recorded
    # (13,152 of the on rep's 13,949 kernel records, the eager prefill's not);
    # every later off rep had none.
    for on in (0, 1):
        set_tracing(on)
        rep()
    gc.collect()
    gc.freeze()
    ratios, offs, ons, off_records = [], [], [], []
    for i in range(a.pairs):
        t, n = {}, {}
        for on in ((0, 1) if i % 2 == 0 else (1, 0)):
            set_tracing(on)
            gc.collect()
            c0 = count() if count else 0
            t[on] = rep()
            n[on] = count() - c0 if count else None
        set_tracing(1)
        ratios.append(t[1] / t[0])
        offs.append(t[0])
        ons.append(t[1])
        line = "pair %d off %.4f on %.4f ratio %.4f" % (i, t[0], t[1], t[1] / t[0])
        if count:
            off_records.append(n[0])
            line += " kernel_records off %d on %d" % (n[0], n[1])
        print(line, flush=True)
    rng = random.Random(1)
    boot = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    q = statistics.quantiles(ratios, n=4)
    per_step_us = (statistics.median(ons) - statistics.median(offs)) / a.steps * 1e6
    print("inproc_ab program %s lib %s pairs %d ratio_median %.4f q1 %.4f q3 %.4f boot90 %.4f %.4f "
          "off_median_s %.4f on_median_s %.4f cost_per_step_us %.1f" % (
              a.program, a.lib or "none", a.pairs, statistics.median(ratios), q[0], q[2],
              boot[100], boot[1899], statistics.median(offs), statistics.median(ons),
              per_step_us), flush=True)
    if count:
        print("inproc_ab kernel_records_off_max %d" % max(off_records), flush=True)


if __name__ == "__main__":
    main()
