# Shapes of conf/model/*.yaml as llmprof-llm flags (sourced by the bench scripts).
M_tiny="--model-name tiny --hidden 128 --intermediate 352 --layers 4 --heads 4 --kv-heads 2 --head-dim 32 --vocab 1024"
M_llama_3_2_1b="--model-name llama-3.2-1b --hidden 2048 --intermediate 8192 --layers 16 --heads 32 --kv-heads 8 --head-dim 64 --vocab 128256 --max-pos 131072 --rope-theta 500000 --rms-eps 1e-5 --tie-embeddings 1"
M_llama_3_1_8b="--model-name llama-3.1-8b --hidden 4096 --intermediate 14336 --layers 32 --heads 32 --kv-heads 8 --head-dim 128 --vocab 128256 --max-pos 131072 --rope-theta 500000 --rms-eps 1e-5"
M_qwen2_5_7b="--model-name qwen2.5-7b --hidden 3584 --intermediate 18944 --layers 28 --heads 28 --kv-heads 4 --head-dim 128 --vocab 152064 --max-pos 131072 --rope-theta 1000000 --rms-eps 1e-6 --qkv-bias 1"
