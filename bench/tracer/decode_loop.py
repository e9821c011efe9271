"""decode_loop: transformers Llama decode loop (Llama-3.2-1B shape, random
weights, nothing downloaded), batch 1, with NVTX ranges in the default
domain: prefill, decode_all, decode_step. Prints the wall time of the
decode loop (the part a tracer slows down), measured after warm-up.

usage: python3 decode_loop.py [--steps 64] [--prompt 128]
"""
import argparse
import sys
import time

T_START = time.perf_counter()
import torch  # noqa: E402
from llama_1b import llama_1b  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--steps", type=int, default=64)
    ap.add_argument("--prompt", type=int, default=128)
    ap.add_argument("--layers", type=int, default=16)
    ap.add_argument("--reps", type=int, default=1, help="timed repetitions (after warm-up)")
    args = ap.parse_args()
    t_import = time.perf_counter()
    model, ids = llama_1b(args.layers, args.prompt)

    def run(nvtx):
        with torch.inference_mode():
            if nvtx:
                torch.cuda.nvtx.range_push("prefill")
            out = model(ids, use_cache=True)
            if nvtx:
                torch.cuda.nvtx.range_pop()
            cache = out.past_key_values
            tok = out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            if nvtx:
                torch.cuda.nvtx.range_push("decode_all")
            for _ in range(args.steps):
                if nvtx:
                    torch.cuda.nvtx.range_push("decode_step")
                out = model(tok, past_key_values=cache, use_cache=True)
                cache = out.past_key_values
                tok = out.logits[:, -1:].argmax(-1)
                if nvtx:
                    torch.cuda.nvtx.range_pop()
            if nvtx:
                torch.cuda.nvtx.range_pop()
            torch.cuda.synchronize()
            return time.perf_counter() - t0

    t_model = time.perf_counter()
    run(False)  # warm-up (kernel selection, allocator)
    t_warm = time.perf_counter()
    walls = sorted(run(True) for _ in range(args.reps))
    wall = walls[len(walls) // 2]
    print(f"decode_loop steps {args.steps} reps {args.reps} decode_wall_s {wall:.6f} "
          f"min_s {walls[0]:.6f} ms_per_step {wall * 1e3 / args.steps:.3f} all {' '.join(f'{w:.4f}' for w in walls)}")
    # where a process's time goes (stderr: the line above is what tools parse)
    print(f"decode_loop phases import_s {t_import - T_START:.2f} model_s {t_model - t_import:.2f} "
          f"warmup_s {t_warm - t_model:.2f} timed_s {time.perf_counter() - t_warm:.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()
