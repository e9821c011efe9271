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
one() { # NAME then extra env
	local name=$1
	shift
	rm -rf "$w/t" && mkdir -p "$w/t"
	env "${rankenv[@]}" CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" \
		LLMPROF_TRACE_OUT="$w/t" "$@" timeout 120 "${prog[@]}" >"$w/$name.out" 2>"$w/$name.err"
	echo "$name ($*): exit $? | $(tail -n 1 "$w/$name.out") | $(grep -m1 -i 'fatal\|segmentation\|error' "$w/$name.err")"
}
echo "untraced: $(env "${rankenv[@]}" timeout 120 "${prog[@]}" 2>&1 | tail -n 1)"
one default
one nvtx-off LLMPROF_TRACE_NVTX=0
one cuda-off LLMPROF_TRACE_CUDA=0
one api-none LLMPROF_TRACE_API=none
one api-callback LLMPROF_TRACE_API=callback
one memops-off LLMPROF_TRACE_MEMOPS=0
one pool-off LLMPROF_TRACE_CUPTI_POOL=0
one no-nvtx-inj NVTX_INJECTION64_PATH=
one no-cuda-inj CUDA_INJECTION64_PATH=
one nccl-no-cumem NCCL_CUMEM_ENABLE=0
grep -h -A30 "Fatal Python error" "$w/default.err" | head -n 40
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
