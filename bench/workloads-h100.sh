#!/usr/bin/env bash
# GPU validation and benchmark of the built-in LLM (docs/validation/workloads-h100.md,
# bench/results/workloads-h100.md). Usage: bench/workloads-h100.sh BIN_DIR OUT_DIR
# BIN_DIR holds llmprof-llm and llmprof-dummy built with nvcc (sm_90).
set -u
BIN=$1 OUT=$2
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/workloads_models.sh"
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:${LD_LIBRARY_PATH:-}
LLM=$BIN/llmprof-llm
mkdir -p "$OUT"
{
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm,clocks.max.mem --format=csv
nvcc --version | tail -2; python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)'
echo "== operator checks"
for dt in fp32 bf16 fp16; do $LLM --check-ops --dtype $dt; done
echo "== full model logits: GPU against the CPU reference"
T=$(mktemp -d)
SMALL="--hidden 256 --intermediate 688 --layers 3 --heads 8 --kv-heads 2 --head-dim 32 --vocab 2048 --prompt-len 150 --new-tokens 9 --batch 2"
for extra in "" "--qkv-bias 1 --tie-embeddings 1 --heads 8 --kv-heads 1 --head-dim 64" "--heads 4 --kv-heads 2 --head-dim 128"; do
  tag=$(echo "x$extra" | tr -d " -" | cut -c1-40)
  $LLM --device cpu $SMALL $extra --dtype fp32 --dump-logits $T/cpu32.bin | tail -1
  $LLM --device cpu $SMALL $extra --dtype bf16 --dump-logits $T/cpu16.bin | tail -1
  for v in "--decode-gemm cublaslt --cuda-graph 0 --pdl 0" "--decode-gemm gemv --cuda-graph 1 --pdl 0" "--decode-gemm gemv --cuda-graph 1" "--decode-gemm gemv --cuda-graph 0"; do
    $LLM --device cuda $SMALL $extra $v --dtype fp32 --dump-logits $T/g32.bin | tail -1
    python3 $HERE/workloads_compare.py $T/cpu32.bin $T/g32.bin "$tag fp32 $v" 1e-4
    $LLM --device cuda $SMALL $extra $v --dtype bf16 --dump-logits $T/g16.bin | tail -1
    python3 $HERE/workloads_compare.py $T/cpu16.bin $T/g16.bin "$tag bf16 vs cpu-bf16-rounded $v" 3e-2
    python3 $HERE/workloads_compare.py $T/cpu32.bin $T/g16.bin "$tag bf16 vs cpu-fp32 $v" 5e-2
  done
done
echo "== tiny: greedy tokens, CPU vs GPU fp32"
$LLM --device cpu $M_tiny --prompt-len 16 --new-tokens 8 | tail -1
$LLM --device cuda $M_tiny --prompt-len 16 --new-tokens 8 --dtype fp32 | tail -1
$LLM --device cuda $M_tiny --prompt-len 16 --new-tokens 8 --dtype fp32 --cuda-graph 1 --decode-gemm gemv | tail -1
echo "== dummy model"
$BIN/llmprof-dummy --device cpu | tail -1
$BIN/llmprof-dummy --device cuda | tail -1
echo "== ceilings"
python3 $HERE/workloads_ceilings.py | tee $OUT/ceilings.json
echo "== performance (bf16, batch 1)"
for m in llama-3.2-1b llama-3.1-8b; do
  v=M_${m//[.-]/_}
  for r in 1 2; do for variant in "cublaslt 1 0" "gemv 1 0" "gemv 0 1" "gemv 1 1"; do
    set -- $variant
    $LLM --device cuda ${!v} --prompt-len 512 --new-tokens 129 --warmup 2 --decode-gemm $1 --cuda-graph $2 --pdl $3 \
      --analytic-out $OUT/analytic-$m-decode.json | tail -1 | sed "s/^/perf decode $1 graph=$2 pdl=$3: /"
  done; done
  for r in 1 2 3; do for p in 0 1; do
    $LLM --device cuda ${!v} --prompt-len 2048 --new-tokens 1 --warmup 2 --pdl $p \
      --analytic-out $OUT/analytic-$m-prefill.json | tail -1 | sed "s/^/perf prefill pdl=$p: /"
  done; done
  python3 $HERE/workloads_hf.py $m 512 129 | sed "s/^/hf decode: /"
  python3 $HERE/workloads_hf.py $m 2048 1 | sed "s/^/hf prefill: /"
done
} 2>&1 | tee $OUT/log.txt
