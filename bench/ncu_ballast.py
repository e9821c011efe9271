"""ncu_ballast: run a Python program with GB gigabytes more device memory
allocated and held, so that bench/ncu-cost-parts.sh can see whether what
Nsight Compute's kernel replay costs a result grows with the memory the
program holds (the replay saves and restores the memory a kernel can reach
before its second pass). The ballast is written once (so it is backed), and
kept until the program exits; the program runs in this process, with its own
arguments, as `python3 PROGRAM ARGS...` would.

usage: python3 ncu_ballast.py GB PROGRAM [ARGS...]"""
import runpy
import sys

import torch


def main():
    if len(sys.argv) < 3:
        sys.exit(__doc__.strip().splitlines()[-1])
    gb = float(sys.argv[1])
    ballast = torch.ones(int(gb * (1 << 30)), dtype=torch.uint8, device="cuda") if gb > 0 else None
    torch.cuda.synchronize()
    print("ncu_ballast: %.1f GB held, %.1f GB allocated by torch" % (
        gb, torch.cuda.memory_allocated() / (1 << 30)), flush=True)
    sys.argv = sys.argv[2:]
    runpy.run_path(sys.argv[0], run_name="__main__")
    del ballast


if __name__ == "__main__":
    main()
