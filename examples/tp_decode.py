"""A tensor-parallel decode over NCCL that times itself, for llmprof's rank,
straggler and TPOT checks.

Under torchrun each rank holds 1/N of every projection of a stack of
transformer-like blocks (attention: qkv and out projections; MLP: up and down
projections), with one all_reduce after the attention and one after the MLP,
as tensor parallelism does. NVTX ranges: prefill, decode and one decode_step
per token, nothing inside the model.

The independent truth it records: every decode all_reduce is timed on its
own stream with CUDA events. A collective's data moves only once every rank
has arrived, so its end is nearly simultaneous on all ranks and the rank that
arrives last waits least: per collective, the rank with the shortest
all_reduce is the last to arrive, and its lateness is the median of the
other ranks' durations minus its own (the definition of docs/collectives.md,
arrival = end - duration). Rank 0 gathers every rank's durations and prints
which rank arrived last how often, with the lateness distribution.

Each rank also records its decode time two ways: CUDA events from just
before the first step to just after the last (GPU time, host gaps between
steps included), and the host's wall clock over the same loop (ending with
a synchronize); the per-token time is decode time / steps.

Ways to make a rank late:
  --slow-rank R --slow-us U   rank R spins U µs on its GPU before each MLP
                              all_reduce (its GPU is busy: a GPU cause)
  --late-rank R --late-us U   rank R sleeps U µs on the host before each MLP
                              all_reduce (its GPU idles: a host cause)
  --gap-us U                  every rank sleeps U µs on the host between
                              decode steps (a host-bound loop)

Without torchrun (no WORLD_SIZE in the environment) it runs one process with
no collectives. Output: one line per rank ("rank R pid P checksum C decode_ms
D ...") and, from rank 0, a "truth:" line; with --truth DIR each rank also
writes DIR/truth-rank<R>.json and rank 0 DIR/truth.json. Random weights;
needs PyTorch with CUDA (and NCCL for several ranks)."""
import argparse
import json
import os
import statistics
import time

import torch

try:
    import torch.distributed as dist
except ImportError:  # a build of torch without distributed
    dist = None


def spin(us):
    # torch.cuda._sleep spins for a number of GPU clock cycles; about 1.98
    # GHz on an H100/H200 under load, so this is close to `us` microseconds
    if us > 0:
        torch.cuda._sleep(int(us * 1980))


class Stack:
    def __init__(self, a, world, rank):
        g = torch.Generator(device="cuda").manual_seed(1234 + rank)
        h = a.hidden
        part = h // world
        ff = 4 * h // world

        def w(r, c):
            return torch.randn(r, c, device="cuda", dtype=torch.bfloat16, generator=g) * 0.02

        self.blocks = [(w(h, 3 * part), w(part, h), w(h, ff), w(ff, h)) for _ in range(a.blocks)]
        self.part = part


def block(x, b, reduce, before_mlp):
    qkv, out, up, down = b
    q, k, v = (x @ qkv).chunk(3, dim=-1)
    att = torch.softmax(q * k, dim=-1) * v  # a stand-in for attention, per head shard
    y = reduce(att @ out)
    x = x + y
    before_mlp()
    z = torch.nn.functional.silu(x @ up)
    return x + reduce(z @ down)


def main():
    p = argparse.ArgumentParser()
    p.add_argument("--blocks", type=int, default=8)
    p.add_argument("--hidden", type=int, default=2048)
    p.add_argument("--prompt", type=int, default=256, help="prefill tokens")
    p.add_argument("--steps", type=int, default=32, help="decode steps (tokens)")
    p.add_argument("--slow-rank", type=int, default=-1)
    p.add_argument("--slow-us", type=float, default=100.0)
    p.add_argument("--late-rank", type=int, default=-1)
    p.add_argument("--late-us", type=float, default=200.0)
    p.add_argument("--gap-us", type=float, default=0.0)
    p.add_argument("--truth", default="", help="folder for the per-rank truth files")
    a = p.parse_args()

    world = int(os.environ.get("WORLD_SIZE", "1"))
    rank = int(os.environ.get("RANK", "0"))
    local = int(os.environ.get("LOCAL_RANK", "0"))
    use_dist = world > 1 or "WORLD_SIZE" in os.environ
    torch.cuda.set_device(local % torch.cuda.device_count())
    if use_dist:
        dist.init_process_group("nccl", device_id=torch.device("cuda", torch.cuda.current_device()))
    st = Stack(a, world, rank)

    timing = {"on": False, "ev": []}  # decode all_reduces: (start, end) events

    def reduce(t):
        if not use_dist:
            return t
        if timing["on"]:
            e0 = torch.cuda.Event(enable_timing=True)
            e1 = torch.cuda.Event(enable_timing=True)
            e0.record()
            dist.all_reduce(t)
            e1.record()
            timing["ev"].append((e0, e1))
        else:
            dist.all_reduce(t)
        return t

    def before_mlp():
        if rank == a.slow_rank:
            spin(a.slow_us)
        if rank == a.late_rank and timing["on"]:
            time.sleep(a.late_us / 1e6)

    def forward(x):
        for b in st.blocks:
            x = block(x, b, reduce, before_mlp)
        return x

    # warm-up outside the ranges: cuBLAS picks its kernels, NCCL connects
    x = torch.randn(a.prompt, a.hidden, device="cuda", dtype=torch.bfloat16)
    tok = x[-1:].clone()
    forward(x)
    forward(tok)
    torch.cuda.synchronize()
    if use_dist:
        dist.barrier()
        torch.cuda.synchronize()

    torch.cuda.nvtx.range_push("prefill")
    h = forward(x)
    torch.cuda.nvtx.range_pop()
    tok = h[-1:].contiguous()
    torch.cuda.synchronize()

    d0 = torch.cuda.Event(enable_timing=True)
    d1 = torch.cuda.Event(enable_timing=True)
    timing["on"] = True
    torch.cuda.nvtx.range_push("decode")
    w0 = time.perf_counter()
    d0.record()
    for _ in range(a.steps):
        torch.cuda.nvtx.range_push("decode_step")
        tok = forward(tok)
        tok = tok / tok.float().norm().clamp(min=1e-3).to(tok.dtype)
        torch.cuda.nvtx.range_pop()
        if a.gap_us > 0:
            time.sleep(a.gap_us / 1e6)
    d1.record()
    torch.cuda.synchronize()
    wall_ms = (time.perf_counter() - w0) * 1e3
    torch.cuda.nvtx.range_pop()
    timing["on"] = False
    decode_ms = d0.elapsed_time(d1)
    checksum = tok.float().sum().item()
    durs = [e0.elapsed_time(e1) for e0, e1 in timing["ev"]]

    mine = {
        "rank": rank, "world": world, "pid": os.getpid(), "checksum": checksum,
        "decode_ms": decode_ms, "decode_wall_ms": wall_ms, "steps": a.steps,
        "tpot_ms": decode_ms / a.steps, "allreduce_ms": durs,
        "nccl_ms_sum": sum(durs),
    }
    print("rank %d pid %d checksum %.6f decode_ms %.3f decode_wall_ms %.3f tpot_ms %.4f "
          "allreduces %d allreduce_ms_sum %.3f"
          % (rank, os.getpid(), checksum, decode_ms, wall_ms, decode_ms / a.steps,
             len(durs), sum(durs)), flush=True)
    if a.truth:
        os.makedirs(a.truth, exist_ok=True)
        with open(os.path.join(a.truth, "truth-rank%d.json" % rank), "w") as f:
            json.dump(mine, f)

    if use_dist and world > 1:
        t = torch.tensor(durs, device="cuda", dtype=torch.float64)
        allt = [torch.empty_like(t) for _ in range(world)]
        dist.all_gather(allt, t)
        if rank == 0:
            m = torch.stack(allt).cpu().tolist()  # [rank][collective]
            n = len(durs)
            last = [0] * world
            late = {r: [] for r in range(world)}
            for i in range(n):
                d = [m[r][i] for r in range(world)]
                lr = min(range(world), key=lambda r: (d[r], r))
                last[lr] += 1
                others = [d[r] for r in range(world) if r != lr]
                late[lr].append((statistics.median(others) - d[lr]) * 1e3)  # µs
            top = max(range(world), key=lambda r: last[r])
            lt = sorted(late[top])

            def q(v, f):
                return v[min(len(v) - 1, int(f * len(v)))] if v else 0.0

            truth = {
                "world": world, "collectives": n, "last_counts": last,
                "straggler": top, "straggler_share": last[top] / max(1, n),
                "lateness_us": {"mean": statistics.fmean(lt) if lt else 0.0,
                                "p50": q(lt, 0.5), "p90": q(lt, 0.9), "max": lt[-1] if lt else 0.0},
                "nccl_ms_sum": [sum(m[r]) for r in range(world)],
            }
            print("truth: " + json.dumps(truth), flush=True)
            if a.truth:
                with open(os.path.join(a.truth, "truth.json"), "w") as f:
                    json.dump(truth, f)
    if use_dist:
        dist.destroy_process_group()


if __name__ == "__main__":
    main()
