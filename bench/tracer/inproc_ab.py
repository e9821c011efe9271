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

The model: a transformers Llama of the Llama-3.2-1B shape with random
weights (bench/tracer/llama_1b.py), batch 1, eager, torch with one
intra-op thread, Python's collector frozen after the warm-up and run before
each rep.

usage: python3 inproc_ab.py [--lib PATH] [--pairs 12] [--steps 48] [--layers 16]
prints one "pair" line per pair and one "inproc_ab" summary line:
  ratio median, its quartiles and bootstrap 90 % interval, off and on
  medians (s), and the cost per decode step (us)
"""
import argparse
import ctypes
import gc
import random
import statistics
import time

import torch

from llama_1b import llama_1b  # beside this file


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", help="the injected tracer (CUDA_INJECTION64_PATH)")
    ap.add_argument("--pairs", type=int, default=12)
    ap.add_argument("--steps", type=int, default=48)
    ap.add_argument("--prompt", type=int, default=32)
    ap.add_argument("--layers", type=int, default=16)
    a = ap.parse_args()
    torch.set_num_threads(1)
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

    switch = None
    if a.lib:
        switch = ctypes.CDLL(a.lib).llmprof_bench_trace
        switch.argtypes = [ctypes.c_int]
        switch.restype = ctypes.c_int

    def set_tracing(on):
        if switch and switch(on) != 0:
            raise SystemExit("inproc_ab: %s did not switch (LLMPROF_TRACE_BENCH=pausable? "
                             "the copy CUDA loaded?)" % a.lib)
        torch.cuda.synchronize()

    rep()  # warm-up, traced: kernel selection, allocator, CUPTI's first buffers
    gc.collect()
    gc.freeze()
    ratios, offs, ons = [], [], []
    for i in range(a.pairs):
        t = {}
        for on in ((0, 1) if i % 2 == 0 else (1, 0)):
            set_tracing(on)
            gc.collect()
            t[on] = rep()
        set_tracing(1)
        ratios.append(t[1] / t[0])
        offs.append(t[0])
        ons.append(t[1])
        print("pair %d off %.4f on %.4f ratio %.4f" % (i, t[0], t[1], t[1] / t[0]), flush=True)
    rng = random.Random(1)
    boot = sorted(statistics.median(rng.choices(ratios, k=len(ratios))) for _ in range(2000))
    q = statistics.quantiles(ratios, n=4)
    per_step_us = (statistics.median(ons) - statistics.median(offs)) / a.steps * 1e6
    print("inproc_ab lib %s pairs %d ratio_median %.4f q1 %.4f q3 %.4f boot90 %.4f %.4f "
          "off_median_s %.4f on_median_s %.4f cost_per_step_us %.1f" % (
              a.lib or "none", a.pairs, statistics.median(ratios), q[0], q[2],
              boot[100], boot[1899], statistics.median(offs), statistics.median(ons),
              per_step_us), flush=True)


if __name__ == "__main__":
    main()
