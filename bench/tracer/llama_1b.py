"""llama_1b: the model every tracer benchmark decodes (decode_loop.py,
inproc_ab.py, tracer_cost.py): a transformers Llama of the Llama-3.2-1B
shape (hidden 2048, MLP 8192, 32 heads, 8 KV heads, vocabulary 128256, tied
embeddings) with random weights from seed 0, nothing downloaded, bf16 on
the GPU, in eval mode, and a random prompt of batch 1. torch's default
dtype is left bf16, as the benchmarks have always run."""


def llama_1b(layers=16, prompt=128):
    """(model, prompt ids) with `layers` decoder layers."""
    import torch
    from transformers import LlamaConfig, LlamaForCausalLM

    torch.manual_seed(0)
    cfg = LlamaConfig(hidden_size=2048, intermediate_size=8192, num_hidden_layers=layers,
                      num_attention_heads=32, num_key_value_heads=8, vocab_size=128256,
                      max_position_embeddings=4096, tie_word_embeddings=True)
    torch.set_default_dtype(torch.bfloat16)
    with torch.device("cuda"):
        model = LlamaForCausalLM(cfg)
    model.eval()
    ids = torch.randint(0, cfg.vocab_size, (1, prompt), device="cuda")
    return model, ids
