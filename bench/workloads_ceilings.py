"""Measured ceilings of this GPU: device-to-device copy bandwidth (bytes read
+ written) and the bf16 GEMM rate (torch.matmul, 8192^3), medians of CUDA-event
timings. Prints one JSON line."""
import json, torch

def timed(fn, reps=30):
    for _ in range(3):
        fn()
    ts = []
    for _ in range(reps):
        a, b = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        a.record(); fn(); b.record(); b.synchronize()
        ts.append(a.elapsed_time(b) / 1e3)
    return sorted(ts)[len(ts) // 2]

n = 1 << 30  # 2 GiB of bf16, far beyond L2
src = torch.randn(n, device="cuda", dtype=torch.bfloat16); dst = torch.empty_like(src)
bw = 2 * src.numel() * 2 / timed(lambda: dst.copy_(src))
del src, dst
k = 8192
a = torch.randn(k, k, device="cuda", dtype=torch.bfloat16); b = torch.randn(k, k, device="cuda", dtype=torch.bfloat16)
tf = 2 * k ** 3 / timed(lambda: a @ b)
print(json.dumps({"copy_bw_gbs": bw / 1e9, "bf16_gemm_tflops": tf / 1e12}))
