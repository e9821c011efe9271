"""Several processes for llmprof's GPU checks. Under torchrun each rank
joins an NCCL group (any world size, one GPU per rank or all on GPU 0 when
there is one), runs NVTX prefill / decode / decode_step with an all_reduce
per step, and rank 0 prints a checksum. Without torchrun (--spawn N) a
parent that does no GPU work spawns N worker processes that do the same
without collectives. Each rank or worker prints its decode time measured
with CUDA events around the decode loop (decode_ms), to compare with
llmprof's per-rank decode GPU span; each rank also prints its all_reduce
calls and their bytes (elements x element size), to compare with the
bytes llmprof reads from NCCL's NVTX payloads. With --avg the decode steps
average with ReduceOp.AVG instead of summing and dividing: NCCL then runs a
kernel even at world size 1 (oneRankReduce), so the bytes meet kernel time
on one GPU. Random weights; needs PyTorch with CUDA."""
import argparse
import os
import torch
import torch.multiprocessing as mp


def work(rank, world, dist, a):
    torch.cuda.set_device(rank % torch.cuda.device_count())
    torch.manual_seed(rank)
    h = a.hidden
    w = torch.randn(h, h, device="cuda", dtype=torch.bfloat16) * 0.02
    x = torch.randn(max(64, a.rows), h, device="cuda", dtype=torch.bfloat16)
    # warm-up outside the ranges: cuBLAS picks its kernels for both shapes
    # and NCCL sets up its communicator, so the timed decode is steady state
    y = torch.tanh(x[-a.rows:] @ w)
    work.allreduces = []  # bytes of each all_reduce, as the program knows them
    if dist:
        torch.distributed.all_reduce(y)
        work.allreduces.append(y.numel() * y.element_size())
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_push("prefill")
    x = torch.tanh(x @ w)
    torch.cuda.nvtx.range_pop()
    x = x[-a.rows:].contiguous()
    # the slowed rank does each step's matmul three times (same result)
    repeat = 3 if rank == a.slow_rank else 1
    start = torch.cuda.Event(enable_timing=True)
    end = torch.cuda.Event(enable_timing=True)
    torch.cuda.nvtx.range_push("decode")
    start.record()
    for _ in range(32):
        torch.cuda.nvtx.range_push("decode_step")
        for _ in range(repeat):
            y = x @ w
        x = torch.tanh(y)
        if dist and a.avg:
            torch.distributed.all_reduce(x, op=torch.distributed.ReduceOp.AVG)
            work.allreduces.append(x.numel() * x.element_size())
        elif dist:
            torch.distributed.all_reduce(x)
            work.allreduces.append(x.numel() * x.element_size())
            x = x / world
        torch.cuda.nvtx.range_pop()
    end.record()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    work.decode_ms = start.elapsed_time(end)  # the program's own decode time
    return x.float().sum().item()


def spawned(rank, n, a):
    c = work(rank, n, False, a)
    print("worker %d pid %d checksum %.6f decode_ms %.3f"
          % (rank, os.getpid(), c, work.decode_ms), flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--spawn", type=int, default=0)
    p.add_argument("--hidden", type=int, default=2048, help="matrix size")
    p.add_argument("--rows", type=int, default=1, help="rows per decode step")
    p.add_argument("--slow-rank", type=int, default=-1, help="rank made slower")
    p.add_argument("--avg", action="store_true", help="decode all_reduce with ReduceOp.AVG")
    a = p.parse_args()
    if a.spawn:
        mp.spawn(spawned, args=(a.spawn, a), nprocs=a.spawn)
    else:
        torch.distributed.init_process_group("nccl")
        r, n = torch.distributed.get_rank(), torch.distributed.get_world_size()
        c = work(r, n, True, a)
        if r == 0:
            print("checksum %.6f" % c)
        print("rank %d pid %d decode_ms %.3f" % (r, os.getpid(), work.decode_ms), flush=True)
        print("rank %d pid %d all_reduce calls %d bytes %d"
              % (r, os.getpid(), len(work.allreduces), sum(work.allreduces)), flush=True)
        torch.distributed.destroy_process_group()
