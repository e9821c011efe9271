"""A decode loop of the shape serving engines use, for llmprof's GPU checks:
eager prefill, then one decode step captured with torch.cuda.graph and
replayed, NVTX prefill / decode / decode_step, layerN/attn/mlp inside the
captured function. --eager runs the same steps without the graph. Prints a
checksum of the output, so a run under a tracer can be compared with one
without. Random weights; needs PyTorch with CUDA."""
import argparse
import torch

p = argparse.ArgumentParser()
p.add_argument("--layers", type=int, default=8)
p.add_argument("--hidden", type=int, default=1024)
p.add_argument("--steps", type=int, default=32)
p.add_argument("--eager", action="store_true")
a = p.parse_args()
torch.manual_seed(0)
dev = "cuda"
rng = torch.cuda.nvtx.range_push, torch.cuda.nvtx.range_pop
W = [(torch.randn(a.hidden, 3 * a.hidden, device=dev, dtype=torch.bfloat16) * 0.02,
      torch.randn(a.hidden, a.hidden, device=dev, dtype=torch.bfloat16) * 0.02,
      torch.randn(a.hidden, 4 * a.hidden, device=dev, dtype=torch.bfloat16) * 0.02,
      torch.randn(4 * a.hidden, a.hidden, device=dev, dtype=torch.bfloat16) * 0.02) for _ in range(a.layers)]


def step(x):
    for i, (qkv, o, up, down) in enumerate(W):
        rng[0](f"layer{i}")
        rng[0]("attn")
        q, k, v = (x @ qkv).chunk(3, dim=-1)
        x = x + torch.softmax(q * k, dim=-1) * v @ o
        rng[1]()
        rng[0]("mlp")
        x = x + torch.nn.functional.silu(x @ up) @ down
        rng[1]()
        rng[1]()
    return x / x.norm(dim=-1, keepdim=True)


rng[0]("prefill")
x = step(torch.randn(128, a.hidden, device=dev, dtype=torch.bfloat16))[-1:].clone()
torch.cuda.synchronize()
rng[1]()
static_in = x.clone()
if not a.eager:
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):
        step(static_in)  # warm-up before capture
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        static_out = step(static_in)
rng[0]("decode")
t0, t1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
t0.record()
for t in range(a.steps):
    rng[0]("decode_step")
    if a.eager:
        x = step(x)
    else:
        static_in.copy_(x)
        g.replay()
        x = static_out.clone()
    rng[1]()
t1.record()
torch.cuda.synchronize()
rng[1]()
print("checksum %.6f decode_ms %.3f" % (x.float().sum().item(), t0.elapsed_time(t1)))
