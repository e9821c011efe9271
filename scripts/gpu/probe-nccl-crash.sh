#!/usr/bin/env bash
# GPU probe of the builtin tracer's crash under NCCL (issue: a torchrun job
# dies of SIGSEGV under pipeline.trace.backend=builtin). Runs
# examples/multi_rank.py as torchrun's rank 0 of a world of 1 (the env
# torchrun sets, no launcher) with the tracer injected directly, once per
# tracer setting, to tell which part of the tracer crashes it; then once
# under gdb (when there is one) for the faulting thread's backtrace.
# Usage: scripts/gpu/probe-nccl-crash.sh STAGE OUT     (STAGE absolute)
set -u
stage=${1:?} out=${2:?}
lib=$stage/build/tracer/libllmprof_tracer.so
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
mkdir -p "$out"
w=$(mktemp -d)
rankenv=(RANK=0 LOCAL_RANK=0 WORLD_SIZE=1 LOCAL_WORLD_SIZE=1 MASTER_ADDR=127.0.0.1
	MASTER_PORT=29517 TORCHELASTIC_RUN_ID=probe)
prog=(python3 -X faulthandler "$stage/examples/multi_rank.py")
# Where gdb is missing, the segv_report probe (scripts/gpu/probe/segv_report.c,
# built by stage.sh) prints the faulting frames as module+offset instead.
segv=$stage/gpu-bin/segv_report.so
CASES=${CASES:-default nvtx-off cuda-off api-none api-callback memops-off pool-off no-nvtx-inj no-cuda-inj nccl-no-cumem}
one() { # NAME then extra env
	local name=$1
	shift
	rm -rf "$w/t" && mkdir -p "$w/t"
	env "${rankenv[@]}" CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" \
		LLMPROF_TRACE_OUT="$w/t" "$@" timeout 120 "${prog[@]}" >"$w/$name.out" 2>"$w/$name.err"
	echo "$name ($*): exit $? | $(tail -n 1 "$w/$name.out") | $(grep -m1 -i 'fatal\|segmentation\|error' "$w/$name.err")"
}
echo "untraced: $(env "${rankenv[@]}" timeout 120 "${prog[@]}" 2>&1 | tail -n 1)"
python3 -c 'import torch; print("torch", torch.__version__, "nccl", torch.cuda.nccl.version())'
for c in $CASES; do
	case $c in
	default) one default ;;
	nvtx-off) one nvtx-off LLMPROF_TRACE_NVTX=0 ;;
	cuda-off) one cuda-off LLMPROF_TRACE_CUDA=0 ;;
	api-none) one api-none LLMPROF_TRACE_API=none ;;
	api-callback) one api-callback LLMPROF_TRACE_API=callback ;;
	memops-off) one memops-off LLMPROF_TRACE_MEMOPS=0 ;;
	pool-off) one pool-off LLMPROF_TRACE_CUPTI_POOL=0 ;;
	no-nvtx-inj) one no-nvtx-inj NVTX_INJECTION64_PATH= ;;
	no-cuda-inj) one no-cuda-inj CUDA_INJECTION64_PATH= ;;
	nccl-no-cumem) one nccl-no-cumem NCCL_CUMEM_ENABLE=0 ;;
	nccl-nvtx-off) one nccl-nvtx-off NCCL_NVTX_DISABLE=1 ;;
	segv) prog=(python3 "$stage/examples/multi_rank.py") # no faulthandler in the way
		[ -f "$segv" ] && one segv LD_PRELOAD="$segv" && grep -h segv_report "$w/segv.err" ;;
	segv-cuda-off) prog=(python3 "$stage/examples/multi_rank.py")
		[ -f "$segv" ] && one segv-cuda-off LD_PRELOAD="$segv" LLMPROF_TRACE_CUDA=0 &&
		grep -h segv_report "$w/segv-cuda-off.err" ;;
	esac
done
[ -f "$w/default.err" ] && grep -h -A30 "Fatal Python error" "$w/default.err" | head -n 40
if command -v gdb >/dev/null; then
	echo "=== gdb"
	rm -rf "$w/t" && mkdir -p "$w/t"
	env "${rankenv[@]}" CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" \
		LLMPROF_TRACE_OUT="$w/t" timeout 150 gdb -q -batch -ex 'set pagination off' \
		-ex 'handle SIGPIPE nostop noprint' -ex 'handle SIGUSR1 nostop noprint' -ex run \
		-ex bt -ex 'info threads' -ex 'thread apply all bt 6' --args "${prog[@]}" 2>&1 |
		grep -v '^\[New Thread\|^\[Thread .* exited' | tail -n 150
else
	echo "no gdb here"
fi
cp "$w"/*.err "$out/" 2>/dev/null
tar czf "$out/errs.tgz" -C "$w" $(cd "$w" && ls *.err) 2>/dev/null
rm -rf "$w"
