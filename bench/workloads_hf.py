"""The transformers eager run of the same shape as llmprof-llm: random
weights from a LlamaConfig (nothing downloaded), bf16, batch 1, greedy with
the KV cache and the default (sdpa) attention, no torch.compile. Usage: workloads_hf.py NAME PROMPT NEW (shape from the table).
Prints one JSON line: prefill_ms (median of 3), decode_ms for NEW-1 steps."""
import json, sys, torch
from transformers import LlamaConfig, LlamaForCausalLM

SHAPES = {
    "llama-3.2-1b": dict(hidden_size=2048, intermediate_size=8192, num_hidden_layers=16,
                         num_attention_heads=32, num_key_value_heads=8, head_dim=64,
                         vocab_size=128256, rope_theta=500000.0, tie_word_embeddings=True),
    "llama-3.1-8b": dict(hidden_size=4096, intermediate_size=14336, num_hidden_layers=32,
                         num_attention_heads=32, num_key_value_heads=8, head_dim=128,
                         vocab_size=128256, rope_theta=500000.0, tie_word_embeddings=False),
}
name, P, N = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
cfg = LlamaConfig(rms_norm_eps=1e-5, max_position_embeddings=131072, **SHAPES[name])
torch.set_default_dtype(torch.bfloat16)
with torch.device("cuda"):
    model = LlamaForCausalLM(cfg).eval()
ids = torch.randint(0, cfg.vocab_size, (1, P), device="cuda")

def ev():
    return torch.cuda.Event(enable_timing=True)

@torch.no_grad()
def run():
    a, b, c = ev(), ev(), ev()
    a.record()
    out = model(ids, use_cache=True)
    tok = out.logits[:, -1].argmax(-1, keepdim=True)
    b.record()
    past = out.past_key_values
    for _ in range(N - 1):
        out = model(tok, past_key_values=past, use_cache=True)
        past = out.past_key_values
        tok = out.logits[:, -1].argmax(-1, keepdim=True)
    c.record(); c.synchronize()
    return a.elapsed_time(b), b.elapsed_time(c)

run()
rs = [run() for _ in range(3)]
pre = sorted(r[0] for r in rs)[1]
dec = sorted(r[1] for r in rs)[1]
print(json.dumps({"model": name, "prompt": P, "new": N, "prefill_ms": pre, "decode_ms": dec}))
