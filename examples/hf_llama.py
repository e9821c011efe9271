"""hf_llama.py: a transformers Llama (random weights, nothing downloaded)
generating greedily with a KV cache, with NVTX ranges in the default domain
as the original llm-perf-opt workloads had them: `prefill`, `decode` and one
`decode_step` per generated token after the first. Profile it with:

    llmprof profile model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32 \
        -- python3 examples/hf_llama.py --prompt 128 --new-tokens 32

(model=... gives llmprof the shape for MFU/MBU; keep the two in step). With
--config-dir DIR the model is built from DIR/config.json (a transformers
model folder, read locally, nothing downloaded), and llmprof reads the same
file for the shape, so no model= keys are needed:

    llmprof profile infer.prompt_len=128 infer.max_new_tokens=32 \
        -- python3 examples/hf_llama.py --config-dir tests/data/hf/llama-3.2-1b

The last stdout line says what ran, in key=value form.
"""
import argparse
import time

import torch
from transformers import LlamaConfig, LlamaForCausalLM


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--prompt", type=int, default=128)
    ap.add_argument("--new-tokens", type=int, default=32)
    ap.add_argument("--batch", type=int, default=1)
    ap.add_argument("--layers", type=int, default=None,
                    help="transformer layers (default 16, or config.json's; with --config-dir "
                         "llmprof reads config.json's count, so leave it)")
    ap.add_argument("--config-dir", default=None,
                    help="build the model from this folder's config.json (Llama family)")
    ap.add_argument("--warmup", type=int, default=1)
    args = ap.parse_args()
    torch.manual_seed(0)
    if args.config_dir:
        cfg = LlamaConfig.from_pretrained(args.config_dir, local_files_only=True)
        if args.layers is not None:
            cfg.num_hidden_layers = args.layers
    else:
        cfg = LlamaConfig(hidden_size=2048, intermediate_size=8192,
                          num_hidden_layers=args.layers or 16,
                          num_attention_heads=32, num_key_value_heads=8, head_dim=64,
                          vocab_size=128256, max_position_embeddings=131072, rope_theta=500000.0,
                          rms_norm_eps=1e-5, tie_word_embeddings=True)
    args.layers = cfg.num_hidden_layers
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    model.eval()
    ids = torch.randint(0, cfg.vocab_size, (args.batch, args.prompt), device="cuda")
    nvtx = torch.cuda.nvtx

    def generate(mark):
        push = nvtx.range_push if mark else (lambda _: None)
        pop = nvtx.range_pop if mark else (lambda: None)
        with torch.inference_mode():
            torch.cuda.synchronize()
            t0 = time.perf_counter()
            push("prefill")
            out = model(ids, use_cache=True)
            tok = out.logits[:, -1:].argmax(-1)
            torch.cuda.synchronize()
            pop()
            t1 = time.perf_counter()
            cache = out.past_key_values
            push("decode")
            for _ in range(args.new_tokens - 1):
                push("decode_step")
                out = model(tok, past_key_values=cache, use_cache=True)
                cache = out.past_key_values
                tok = out.logits[:, -1:].argmax(-1)
                pop()
            torch.cuda.synchronize()
            pop()
            t2 = time.perf_counter()
        return (t1 - t0) * 1e3, (t2 - t1) * 1e3

    for _ in range(args.warmup):
        generate(False)
    prefill_ms, decode_ms = generate(True)
    steps = max(args.new_tokens - 1, 1)
    print(f"hf_llama: layers={args.layers} batch={args.batch} prompt={args.prompt} "
          f"new={args.new_tokens} prefill_ms={prefill_ms:.3f} decode_ms={decode_ms:.3f} "
          f"tpot_ms={decode_ms / steps:.3f} tokens_per_s={args.batch * steps / (decode_ms / 1e3):.1f}")


if __name__ == "__main__":
    main()
