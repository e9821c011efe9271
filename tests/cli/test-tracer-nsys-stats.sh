#!/usr/bin/env bash
# NVIDIA's own `nsys stats` (2023.4.4) on llmprof traces: a synthetic GPU log
# with known kernels/copies/launch calls/NVTX ranges (trace-tool synth), and
# the NVTX test program traced for real. nsys must read our database, and its
# numbers must equal what the log holds (and llmprof's reading of the same
# database with sqlite3). Skips (77) when scripts/nsight-cli-oracle.sh cannot
# fetch the nsys CLI.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
src=${LLMPROF_SOURCE_DIR:?}
tool=$b/tests/trace-tool
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
if ! env=$(bash "$src/scripts/nsight-cli-oracle.sh" 2>"$t/oracle.err"); then
	echo "skip: NVIDIA's nsys CLI is not available: $(cat "$t/oracle.err")"
	exit 77
fi
eval "$env"
mkdir "$t/log"
"$tool" synth "$t/log" 4 3 >/dev/null
"$tool" convert "$t/log" "$t/s.sqlite" >/dev/null
stats() { "$NSYS" stats -q -f csv -r "$1" "$2" 2>&1 | grep -v '^Processing \[' | grep -v '^$'; }
expect() {
	if [ "$2" != "$3" ]; then
		printf 'FAIL %s\n--- expected\n%s\n--- actual\n%s\n' "$1" "$2" "$3" >&2
		exit 1
	fi
}
# 4 steps x 3 kernels: kernel i of a step lasts 1000 + 10 i ns; names alternate.
expect kern_sum 'Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
66.7,8080,8,1010.0,1010.0,1000,1020,10.7,"gemv_bf16(const float *, const float *, float *, int)"
33.3,4040,4,1010.0,1010.0,1010,1010,0.0,void llm::rmsnorm<128>(float *)' "$(stats cuda_gpu_kern_sum "$t/s.sqlite")"
expect api_sum 'Time (%),Total Time (ns),Num Calls,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name
60.0,24,12,2.0,2.0,2,2,0.0,cudaLaunchKernel
20.0,8,4,2.0,2.0,2,2,0.0,cudaMemcpyAsync
20.0,8,4,2.0,2.0,2,2,0.0,cudaMemsetAsync' "$(stats cuda_api_sum "$t/s.sqlite")"
expect mem_time 'Time (%),Total Time (ns),Count,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Operation
71.4,2000,4,500.0,500.0,500,500,0.0,[CUDA memcpy Host-to-Device]
28.6,800,4,200.0,200.0,200,200,0.0,[CUDA memset]' "$(stats cuda_gpu_mem_time_sum "$t/s.sqlite")"
# Every GPU op is attributed to its step through the launch call (half of
# them through a driver->runtime correlation alias): 5 ops per step.
expect gpu_proj 'Range,Style,Total Proj Time (ns),Total Range Time (ns),Range Instances,Proj Avg (ns),Proj Med (ns),Proj Min (ns),Proj Max (ns),Proj StdDev (ns),Total GPU Ops,Avg GPU Ops,Avg Range Lvl,Avg Num Child
LLM:decode_all,PushPop,16902,17009,1,16902.0,16902.0,16902,16902,0.0,20,20.0,0.0,4.0
LLM:step,PushPop,16584,17004,4,4146.0,4146.0,4146,4146,0.0,20,5.0,1.0,0.0' "$(stats nvtx_gpu_proj_sum "$t/s.sqlite")"
expect kern_in_nvtx 'LLM:step,PushPop,4242,4242,4,8,8080,1010.0,1010.0,1000,1020,10.7,"gemv_bf16(const float *, const float *, float *, int)"' \
	"$(stats nvtx_kern_sum "$t/s.sqlite" | grep '^LLM:step,.*gemv')"
# llmprof's reading of the same file agrees with nsys.
expect ours-kern "12|12120" "$(sqlite3 "$t/s.sqlite" "SELECT count(*), sum(end - start) FROM CUPTI_ACTIVITY_KIND_KERNEL")"
expect device 'NVIDIA H100 80GB HBM3 (0)' "$(stats cuda_gpu_trace "$t/s.sqlite" | sed -n 2p | cut -d, -f17)"

# llmprof's own reading (`llmprof stats`) prints exactly what nsys prints.
same_as_nsys() { # same_as_nsys DB
	for r in cuda_gpu_kern_sum cuda_api_sum nvtx_sum nvtx_gpu_proj_sum nvtx_kern_sum \
		cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum; do
		expect "llmprof-stats-$r" "$(stats "$r" "$1")" \
			"$("${LLMPROF:?}" stats -f csv -r "$r" "$1" 2>&1 | grep -v '^$')"
	done
}
if "${LLMPROF:?}" stats --help >/dev/null 2>&1; then
	same_as_nsys "$t/s.sqlite"
fi

# The real NVTX program traced by the tracer.
so=$b/tracer/libllmprof_tracer.so
prog=$b/tests/nvtx-test-program
if [ -x "$prog" ] && [ -f "$so" ]; then
	mkdir "$t/nv"
	LLMPROF_TRACE_OUT=$t/nv NVTX_INJECTION64_PATH=$so "$prog" >/dev/null
	"$tool" convert "$t/nv" "$t/n.sqlite" >/dev/null
	stats nvtx_sum "$t/n.sqlite" | cut -d, -f3,9,10 | sort >"$t/nvtx_sum"
	expect nvtx_sum '1,PushPop,LLM:decode_all
1,PushPop,LLM:prefill
1,PushPop,inneré
1,PushPop,outer
1,StartEnd,LLM:domain_startend
1,StartEnd,cross_thread
1,StartEnd,startend_same
1,StartEnd,startend_wide
3,PushPop,worker_step
4,PushPop,LLM:decode_step
Instances,Style,Range' "$(cat "$t/nvtx_sum")"
	# Total times equal what our database says.
	expect nvtx_total "$(sqlite3 "$t/n.sqlite" "SELECT sum(end - start) FROM NVTX_EVENTS WHERE text = 'worker_step'")" \
		"$(stats nvtx_sum "$t/n.sqlite" | grep ',worker_step$' | cut -d, -f2)"
	if "$LLMPROF" stats --help >/dev/null 2>&1; then
		expect llmprof-stats-nvtx "$(stats nvtx_sum "$t/n.sqlite")" \
			"$("$LLMPROF" stats -f csv -r nvtx_sum "$t/n.sqlite" 2>&1 | grep -v '^$')"
	fi
fi
echo ok
