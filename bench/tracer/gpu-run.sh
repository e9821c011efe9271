#!/usr/bin/env bash
# One GPU-machine session for the builtin tracer's validation and benchmarks
# (docs/validation/tracer-h100.md, bench/results/tracer.md). Run from a
# directory holding gpu-bin/ (libllmprof_tracer.so, known_kernels,
# tiny_launch, built on the CI machine) and .gpu-libs/ (shared/tools/gpu-nsys-libs.sh).
#   bench/tracer/gpu-run.sh OUTDIR
# Every step has a timeout and its output under OUTDIR; a failing step does
# not stop the others.
set -u
out=$1
mkdir -p "$out"
d=$PWD
so=$d/gpu-bin/libllmprof_tracer.so
# Prefer the machine's own CUPTI (matches its driver); ours is the fallback.
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:$d/gpu-bin/cupti${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
nsys=/opt/nvidia/nsight-compute/2025.3.1/host/target-linux-x64/nsys
nsysrun() { LD_LIBRARY_PATH=$d/.gpu-libs:$LD_LIBRARY_PATH timeout 240 "$nsys" "$@"; }
traced() { # traced NAME CMD...: run under the builtin tracer, logs in $out/NAME
	local name=$1; shift
	mkdir -p "$out/$name"
	LLMPROF_TRACE_OUT=$out/$name CUDA_INJECTION64_PATH=$so NVTX_INJECTION64_PATH=$so \
		timeout 240 "$@"
}
{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
	nvcc --version | tail -2
	ls -l /usr/local/cuda/lib64/libcupti.so* 2>&1
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)'
	"$nsys" --version
} >"$out/env.txt" 2>&1

# 1. Known kernels: plain and traced.
timeout 60 ./gpu-bin/known_kernels >"$out/kk_plain.txt" 2>&1; echo "rc $?" >>"$out/kk_plain.txt"
traced kk ./gpu-bin/known_kernels >"$out/kk_traced.txt" 2>&1; echo "rc $?" >>"$out/kk_traced.txt"
nsysrun profile --trace=cuda,nvtx --cuda-graph-trace=node -o "$out/kk_nsys" --export=sqlite \
	--force-overwrite=true ./gpu-bin/known_kernels >"$out/kk_nsys.txt" 2>&1

# 2. 100k tiny launches: plain, builtin, nsys, plain again (drift check).
for mode in plain builtin nsys plain2; do
	case $mode in
	plain*) timeout 60 ./gpu-bin/tiny_launch ;;
	builtin) traced tiny ./gpu-bin/tiny_launch ;;
	nsys) nsysrun profile --trace=cuda,nvtx -o "$out/tiny_nsys" --force-overwrite=true ./gpu-bin/tiny_launch ;;
	esac >"$out/tiny_$mode.txt" 2>&1
done

# 3. transformers decode loop: plain, builtin, nsys, plain again.
for mode in plain builtin nsys plain2; do
	case $mode in
	plain*) timeout 240 python3 bench/tracer/decode_loop.py ;;
	builtin) traced decode python3 bench/tracer/decode_loop.py ;;
	nsys) nsysrun profile --trace=cuda,nvtx --cuda-graph-trace=node -o "$out/decode_nsys" \
		--export=sqlite --force-overwrite=true python3 bench/tracer/decode_loop.py ;;
	esac >"$out/decode_$mode.txt" 2>&1
done
rm -f "$out"/*.nsys-rep "$out"/*.qdstrm
date -u >>"$out/env.txt"
