"""Per-call CPU cost of llmprof's PyTorch module ranges, without a GPU
(bench/pytorch/nvtx-cost.sh runs it with and without the builtin tracer's
NVTX injection):
  lib push+pop      one registered-string push and its pop through
                    libllmprof_nvtx.so (ctypes), what each module range costs
  lib ascii push+pop  the same with the text pushed each time (a tool that
                    keeps no registered strings)
  hooks pre+post    the startup module's two hook functions on one module
                    call, ranges on (naming done), on top of PyTorch's own
                    slow path for hooked calls (not measured here: no torch)
  hooks, deeper than the limit  the same for a module below pipeline.trace.
                    pytorch_depth (no NVTX call)
  hooks, compiling  is_compiling() true: the hooks' cost while Dynamo traces
Prints one line per measurement: NAME ns-per-call (median of REPEAT runs).
With ONLY=NAME it runs that one measurement once, N calls, and prints
nothing: bench/pytorch/nvtx-cost.sh counts its instructions with callgrind
(N and 0 calls, the difference over N), which a loaded machine cannot move."""
import os
import statistics
import sys
import time

N = int(os.environ.get("N", "200000"))
REPEAT = int(os.environ.get("REPEAT", "7"))


ONLY = os.environ.get("ONLY")  # run just this measurement, once (for callgrind)


def bench(name, fn):
    if ONLY is not None:
        if name == ONLY:
            fn(N)
        return
    runs = []
    for _ in range(REPEAT):
        t0 = time.perf_counter_ns()
        fn(N)
        runs.append((time.perf_counter_ns() - t0) / N)
    print("%-34s %8.1f ns   (min %.1f, max %.1f)" % (name, statistics.median(runs), min(runs), max(runs)))


def main():
    sys.path.insert(0, sys.argv[1])  # the startup module's folder
    import _llmprof_pytorch as m

    nvtx = m._LibNvtx(os.path.join(sys.argv[1], m.LIB_NAME))
    if ONLY is None:
        print("tool attached:", nvtx.attached, "  NVTX_INJECTION64_PATH:",
              os.environ.get("NVTX_INJECTION64_PATH", "(unset)"))
    push, handle = nvtx.message("model.layers.3.self_attn", "LlamaAttention")
    ascii_push = nvtx.lib.llmprof_nvtx_push_ascii
    text = b"model.layers.3.self_attn"
    pop = nvtx.pop
    nvtx.category(1, "LlamaAttention")

    def lib_pair(n):
        for _ in range(n):
            push(handle, 1)
            pop()

    def lib_ascii(n):
        for _ in range(n):
            ascii_push(text, 1)
            pop()

    def empty(n):
        for _ in range(n):
            pass

    bench("loop overhead", empty)
    bench("lib push+pop", lib_pair)
    bench("lib ascii push+pop", lib_ascii)

    # the hooks, as install() wires them, on a stand-in module
    import threading

    class Mod:
        pass

    mod = Mod()
    flag = [False]
    m._tls = threading.local()
    m._is_compiling = lambda: flag[0]
    m._pop = pop
    m._names = m._Names(nvtx)
    m._on = True
    pre, post = m._pre_hook, m._post_hook

    def hooks(n):
        for _ in range(n):
            pre(mod, ())
            post(mod, (), None)

    m._depth = 8
    bench("hooks pre+post", hooks)
    m._tls.s = [object()] * 8  # already 8 deep: below the limit
    bench("hooks, deeper than the limit", hooks)
    m._tls.s = []
    flag[0] = True
    bench("hooks, compiling", hooks)


if __name__ == "__main__":
    main()
