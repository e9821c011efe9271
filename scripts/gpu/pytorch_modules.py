"""GPU program for scripts/gpu/validate-pytorch-modules.sh: greedy decode with
no operator NVTX of its own (only prefill, decode, decode_step), so every
operator range comes from llmprof's PyTorch startup module (docs/pytorch.md).

  --model hf     transformers LlamaForCausalLM, random weights, Llama-3.2-1B
                 shape (--layers, default 16), DynamicCache; eager only
  --model mini   the same shape as plain nn.Modules (q/k/v/o_proj, gate/up/
                 down_proj, RMSNorm, a static KV cache), so a decode step can
                 be captured (--run graph: torch.cuda.graph) or compiled
                 (--run compile, compile-ro: torch.compile default and
                 mode="reduce-overhead")
  --hand         hand-placed NVTX instead: torch.cuda.nvtx ranges (default
                 domain) around every module's forward, named as the startup
                 module names them (root class, then module paths)
Prints "checksum TOKENS LOGITS" (equal with and without llmprof),
"decode_ms" (its own CUDA events, best of --repeat generations), Dynamo's
graph breaks and graphs; --classes FILE writes {range name: class}.
Needs PyTorch with CUDA (and transformers for --model hf); nothing is
downloaded."""
import argparse
import json
import sys

import torch
import torch.nn.functional as F
from torch import nn

ap = argparse.ArgumentParser()
ap.add_argument("--model", choices=["hf", "mini"], default="hf")
ap.add_argument("--run", choices=["eager", "graph", "compile", "compile-ro"], default="eager")
ap.add_argument("--hand", action="store_true")
ap.add_argument("--layers", type=int, default=16)
ap.add_argument("--prompt", type=int, default=128)
ap.add_argument("--new-tokens", type=int, default=32)
ap.add_argument("--repeat", type=int, default=2)
ap.add_argument("--classes", default=None)
a = ap.parse_args()
if a.model == "hf" and a.run != "eager":
    sys.exit("--model hf runs eager only")
torch.manual_seed(0)
dev = "cuda"
H, I, NH, NKV, HD, V = 2048, 8192, 32, 8, 64, 128256
MAXLEN = a.prompt + a.new_tokens + 1
nvtx = torch.cuda.nvtx


class RMSNorm(nn.Module):
    def __init__(self, d):
        super().__init__()
        self.weight = nn.Parameter(torch.ones(d))

    def forward(self, x):
        v = x.float().pow(2).mean(-1, keepdim=True)
        return (x.float() * torch.rsqrt(v + 1e-5)).to(x.dtype) * self.weight


class Attention(nn.Module):
    def __init__(self):
        super().__init__()
        self.q_proj = nn.Linear(H, NH * HD, bias=False)
        self.k_proj = nn.Linear(H, NKV * HD, bias=False)
        self.v_proj = nn.Linear(H, NKV * HD, bias=False)
        self.o_proj = nn.Linear(NH * HD, H, bias=False)
        self.register_buffer("k_cache", torch.zeros(1, NKV, MAXLEN, HD), persistent=False)
        self.register_buffer("v_cache", torch.zeros(1, NKV, MAXLEN, HD), persistent=False)

    def forward(self, x, pos):
        t = x.shape[1]
        q = self.q_proj(x).view(1, t, NH, HD).transpose(1, 2)
        k = self.k_proj(x).view(1, t, NKV, HD).transpose(1, 2)
        v = self.v_proj(x).view(1, t, NKV, HD).transpose(1, 2)
        self.k_cache.index_copy_(2, pos, k)
        self.v_cache.index_copy_(2, pos, v)
        mask = torch.arange(MAXLEN, device=x.device)[None, :] <= pos[:, None]
        kk = self.k_cache.repeat_interleave(NH // NKV, dim=1)
        vv = self.v_cache.repeat_interleave(NH // NKV, dim=1)
        o = F.scaled_dot_product_attention(q, kk, vv, attn_mask=mask)
        return self.o_proj(o.transpose(1, 2).reshape(1, t, NH * HD))


class MLP(nn.Module):
    def __init__(self):
        super().__init__()
        self.gate_proj = nn.Linear(H, I, bias=False)
        self.up_proj = nn.Linear(H, I, bias=False)
        self.down_proj = nn.Linear(I, H, bias=False)
        self.act_fn = nn.SiLU()

    def forward(self, x):
        return self.down_proj(self.act_fn(self.gate_proj(x)) * self.up_proj(x))


class DecoderLayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.input_layernorm = RMSNorm(H)
        self.self_attn = Attention()
        self.post_attention_layernorm = RMSNorm(H)
        self.mlp = MLP()

    def forward(self, x, pos):
        x = x + self.self_attn(self.input_layernorm(x), pos)
        return x + self.mlp(self.post_attention_layernorm(x))


class MiniModel(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.embed_tokens = nn.Embedding(V, H)
        self.layers = nn.ModuleList([DecoderLayer() for _ in range(n)])
        self.norm = RMSNorm(H)

    def forward(self, ids, pos):
        x = self.embed_tokens(ids)
        for layer in self.layers:
            x = layer(x, pos)
        return self.norm(x)


class MiniForCausalLM(nn.Module):
    def __init__(self, n):
        super().__init__()
        self.model = MiniModel(n)
        self.lm_head = nn.Linear(H, V, bias=False)

    def forward(self, ids, pos):
        return self.lm_head(self.model(ids, pos)[:, -1:])


def hand_nvtx(model):
    """Hand-placed ranges: each module's forward wrapped, by instance."""
    for path, mod in model.named_modules():
        name = path or type(mod).__name__
        fwd = mod.forward

        def wrapped(*args, _f=fwd, _n=name, **kw):
            nvtx.range_push(_n)
            try:
                return _f(*args, **kw)
            finally:
                nvtx.range_pop()

        mod.forward = wrapped


def build():
    torch.set_default_dtype(torch.bfloat16)
    if a.model == "hf":
        from transformers import LlamaConfig, LlamaForCausalLM
        cfg = LlamaConfig(hidden_size=H, intermediate_size=I, num_hidden_layers=a.layers,
                          num_attention_heads=NH, num_key_value_heads=NKV, head_dim=HD,
                          vocab_size=V, max_position_embeddings=131072, rope_theta=500000.0,
                          rms_norm_eps=1e-5, tie_word_embeddings=True)
        with torch.device(dev):
            m = LlamaForCausalLM(cfg)
    else:
        with torch.device(dev):
            m = MiniForCausalLM(a.layers)
            for p in m.parameters():  # small weights: stable logits in bf16
                p.data.normal_(0, 0.02)
    m.eval()
    if a.classes:
        names = {(p or type(mod).__name__): type(mod).__name__ for p, mod in m.named_modules()}
        json.dump(names, open(a.classes, "w"))
    if a.hand:
        hand_nvtx(m)
    return m


def generate_hf(m, ids, mark):
    push = nvtx.range_push if mark else (lambda _: None)
    pop = nvtx.range_pop if mark else (lambda: None)
    toks = []
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.inference_mode():
        push("prefill")
        out = m(ids, use_cache=True)
        tok = out.logits[:, -1:].argmax(-1)
        torch.cuda.synchronize()
        pop()
        cache = out.past_key_values
        e0.record()
        push("decode")
        for _ in range(a.new_tokens - 1):
            push("decode_step")
            out = m(tok, past_key_values=cache, use_cache=True)
            cache = out.past_key_values
            tok = out.logits[:, -1:].argmax(-1)
            toks.append(tok)
            pop()
        e1.record()
        torch.cuda.synchronize()
        pop()
    return toks, out.logits.float().sum().item(), e0.elapsed_time(e1)


def generate_mini(m, step, ids, mark):
    push = nvtx.range_push if mark else (lambda _: None)
    pop = nvtx.range_pop if mark else (lambda: None)
    toks = []
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    with torch.inference_mode():
        push("prefill")
        logits = m(ids, torch.arange(a.prompt, device=dev))
        tok = logits.argmax(-1)
        torch.cuda.synchronize()
        pop()
        e0.record()
        push("decode")
        for t in range(a.new_tokens - 1):
            push("decode_step")
            tok, logits = step(tok, a.prompt + t)
            toks.append(tok)
            pop()
        e1.record()
        torch.cuda.synchronize()
        pop()
    return toks, logits.float().sum().item(), e0.elapsed_time(e1)


def mini_step(m):
    """The decode step of --run: eager, a replayed CUDA graph, or compiled."""
    tok_in = torch.zeros(1, 1, dtype=torch.long, device=dev)
    pos_in = torch.zeros(1, dtype=torch.long, device=dev)
    if a.run == "eager":
        def step(tok, t):
            pos_in.fill_(t)
            logits = m(tok, pos_in)
            return logits.argmax(-1), logits
        return step
    if a.run in ("compile", "compile-ro"):
        cm = torch.compile(m, mode="reduce-overhead" if a.run == "compile-ro" else None)

        def step(tok, t):
            pos_in.fill_(t)
            tok_in.copy_(tok)
            logits = cm(tok_in, pos_in)
            return logits.argmax(-1), logits.clone()
        return step
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.inference_mode(), torch.cuda.stream(s):
        for _ in range(2):
            m(tok_in, pos_in)
    torch.cuda.current_stream().wait_stream(s)
    g = torch.cuda.CUDAGraph()
    with torch.inference_mode(), torch.cuda.graph(g):
        static_logits = m(tok_in, pos_in)

    def step(tok, t):
        pos_in.fill_(t)
        tok_in.copy_(tok)
        g.replay()
        return static_logits.argmax(-1), static_logits
    return step


def main():
    m = build()
    ids = torch.randint(0, V, (1, a.prompt), device=dev)
    step = mini_step(m) if a.model == "mini" else None
    best = None
    for r in range(a.repeat + 1):  # the first is warm-up, without stage ranges
        if a.model == "hf":
            toks, lsum, ms = generate_hf(m, ids, r > 0)
        else:
            toks, lsum, ms = generate_mini(m, step, ids, r > 0)
        if r > 0:
            best = ms if best is None else min(best, ms)
    print("checksum %d %.4f" % (int(torch.cat(toks).sum().item()), lsum))
    print("decode_ms %.3f" % best)
    try:
        from torch._dynamo.utils import counters
        print("graph_breaks %d unique_graphs %d" % (sum(counters["graph_break"].values()),
                                                    counters["stats"]["unique_graphs"]))
        for k, v in counters["graph_break"].items():
            print("graph_break %d: %s" % (v, " ".join(str(k).split())[:200]))
    except Exception as e:
        print("graph_breaks unknown (%s)" % e)


if __name__ == "__main__":
    main()
