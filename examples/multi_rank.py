"""Several processes for llmprof's GPU checks. Under torchrun each rank
joins an NCCL group (any world size, one GPU per rank or all on GPU 0 when
there is one), runs NVTX prefill / decode / decode_step with an all_reduce
per step, and rank 0 prints a checksum. Without torchrun (--spawn N) a
parent that does no GPU work spawns N worker processes that do the same
without collectives. Random weights; needs PyTorch with CUDA."""
import argparse
import os
import torch
import torch.multiprocessing as mp


def work(rank, world, dist):
    torch.cuda.set_device(rank % torch.cuda.device_count())
    torch.manual_seed(rank)
    w = torch.randn(2048, 2048, device="cuda", dtype=torch.bfloat16) * 0.02
    x = torch.randn(64, 2048, device="cuda", dtype=torch.bfloat16)
    torch.cuda.nvtx.range_push("prefill")
    x = torch.tanh(x @ w)
    torch.cuda.nvtx.range_pop()
    x = x[-1:].contiguous()
    torch.cuda.nvtx.range_push("decode")
    for _ in range(32):
        torch.cuda.nvtx.range_push("decode_step")
        x = torch.tanh(x @ w)
        if dist:
            torch.distributed.all_reduce(x)
            x = x / world
        torch.cuda.nvtx.range_pop()
    torch.cuda.synchronize()
    torch.cuda.nvtx.range_pop()
    return x.float().sum().item()


def spawned(rank, n):
    print("worker %d checksum %.6f" % (rank, work(rank, n, False)), flush=True)


if __name__ == "__main__":
    p = argparse.ArgumentParser()
    p.add_argument("--spawn", type=int, default=0)
    a = p.parse_args()
    if a.spawn:
        mp.spawn(spawned, args=(a.spawn,), nprocs=a.spawn)
    else:
        torch.distributed.init_process_group("nccl")
        r, n = torch.distributed.get_rank(), torch.distributed.get_world_size()
        c = work(r, n, True)
        if r == 0:
            print("checksum %.6f" % c)
        torch.distributed.destroy_process_group()
