#!/usr/bin/env bash
# `llmprof profile`'s ncu step, driven through tests/cli/fake-ncu.sh (a
# stand-in that prints ncu 2024.1's own console text and NVIDIA's raw-page
# CSVs; the real ncu needs a GPU): the argv it gets (explicit filters,
# --clock-control none, LC_ALL=C, no tracer injection), ncu/cmd.txt,
# sections.txt, raw.csv, measured.json; ERR_NVGPUCTRPERM and "No kernels were
# profiled" diagnosed; a missing ncu; ncu disabled; range mode without an
# NVTX include; --dry-run's argv template.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fake=$src/tests/cli/fake-ncu.sh
tmp=$(mktemp -d /tmp/llmprof-cli-ncu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
step() { json "$1" "[s for s in d['steps'] if s['name']=='$2'][0]['$3']"; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }
cd "$tmp" || exit 1
[ -e "${LLMPROF_BUILD_DIR:-}/tracer/libllmprof_tracer.so" ] || { echo "no tracer library built"; exit 77; }
common=(pipeline.trace.backend=builtin pipeline.nsys.path=/nonexistent/nsys)

# 1. explicit filter: one ncu run, its raw page becomes ncu/raw.csv
export FAKE_NCU_LOG=$tmp/log1
CUDA_INJECTION64_PATH=/inherited.so "$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" \
	pipeline.ncu.path="$fake" pipeline.ncu.ncu_cli.kernel_name=regex:add -- /bin/true >out 2>err ||
	fail "run 1: $(cat err)"
run=$(last_run out)
[ "$(step "$run/status.json" ncu state)" = ok ] || fail "ncu step: $(step "$run/status.json" ncu message)"
step "$run/status.json" ncu message | grep -q "^1 of 1 configured run measured, 14 ncu results in " ||
	fail "ncu message: $(step "$run/status.json" ncu message)"
grep -q "^--list-sections$" log1 || fail "no --list-sections: $(cat log1)"
grep -q "^LaunchStats " "$run/ncu/sections.txt" || fail "sections.txt"
cap=$(grep -- '|-o|' log1)
[ "$cap" = "--target-processes|all|--replay-mode|kernel|--metrics|gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum|--section|SpeedOfLight|--section|Occupancy|--section|LaunchStats|-o|$run/ncu/k0|--kernel-name-base|demangled|--kernel-name|regex:add|--clock-control|none|--cache-control|all|--force-overwrite|/bin/true" ] ||
	fail "capture argv: $cap"
grep -q "^--import|$run/ncu/k0.ncu-rep|--csv|--page|raw|--print-units|base$" log1 || fail "import argv: $(cat log1)"
# under ncu: LC_ALL=C, never the tracer (nor an inherited injection)
capenv=$(grep -A1 -- '|-o|' log1 | sed -n 2p) # the env line the fake logs after each call
echo "$capenv" | grep -q "^env: CUDA_INJECTION64_PATH=unset LC_ALL=C " || fail "capture env: $capenv"
grep -q "^--version$" log1 || fail "ncu's version not checked: $(cat log1)"
# the capture, its raw page, its mangled names (for the join)
[ "$(wc -l <"$run/ncu/cmd.txt")" -eq 3 ] || fail "cmd.txt: $(cat "$run/ncu/cmd.txt")"
grep -q -- "--import $run/ncu/k0.ncu-rep --csv --page raw --print-units base --print-kernel-base mangled --metrics gpu__time_duration.sum$" "$run/ncu/cmd.txt" ||
	fail "cmd.txt lacks the names import: $(cat "$run/ncu/cmd.txt")"
grep -q "^LC_ALL=C $fake --target-processes all .* --kernel-name regex:add .*/bin/true$" "$run/ncu/cmd.txt" ||
	fail "cmd.txt line: $(cat "$run/ncu/cmd.txt")"
[ "$(wc -l <"$run/ncu/raw.csv")" -eq 16 ] || fail "raw.csv rows: $(wc -l <"$run/ncu/raw.csv")"
[ "$(json "$run/ncu/measured.json" "d['runs'][0]['measured']")" = True ] || fail "measured.json"
# the capture's wall time, not the import's
[ "$(json "$run/ncu/measured.json" "d['runs'][0]['ncu_wall_s'] >= 0.25 and d['ncu_wall_s'] >= 0.25")" = True ] ||
	fail "ncu_wall_s: $(cat "$run/ncu/measured.json")"
[ -s "$run/logs/ncu-k0.err" ] || [ -s "$run/logs/ncu-k0.out" ] || fail "no ncu log"
# what ncu spent its time on, from its console (the fake prints one result
# of 9 passes); when followed live, the parts add up to at most the whole
[ "$(json "$run/ncu/measured.json" "d['ncu_time']['results'] == 1 and d['ncu_time']['replay_passes'] == 9 and d['runs'][0]['ncu_time']['passes_max'] == 9")" = True ] ||
	fail "ncu_time: $(cat "$run/ncu/measured.json")"
[ "$(json "$run/ncu/measured.json" "'profiling_s' not in d['ncu_time'] or sum(d['ncu_time'][k] for k in ('before_first_result_s', 'profiling_s', 'after_last_result_s')) <= d['ncu_wall_s'] + 0.05")" = True ] ||
	fail "ncu_time parts: $(cat "$run/ncu/measured.json")"
step "$run/status.json" ncu message | grep -q "; ncu: 1 result x 9 replay passes (9 in all)" ||
	fail "ncu message lacks its time: $(step "$run/status.json" ncu message)"
# the reports say what ncu measured and what it cost, next to the selection
echo '{"selected": 0, "distinct_kernels": 0, "coverage": 0, "kernels": []}' >"$run/ncu/selection.json"
"$LLMPROF" report "$run" >/dev/null 2>err || fail "report: $(cat err)"
grep -q "ncu measured 1 of 1 configured runs in [0-9.]* s of ncu (ncu/measured.json)" "$run/report.md" ||
	fail "report.md lacks the ncu line: $(grep -n ncu "$run/report.md")"

# 2. ERR_NVGPUCTRPERM: the step fails with the fix, the reports still run
export FAKE_NCU_LOG=$tmp/log2 FAKE_NCU_MODE=perm
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" pipeline.ncu.path="$fake" \
	pipeline.ncu.ncu_cli.kernel_name=regex:add -- /bin/true >out 2>err
rc=$?
[ $rc -eq 6 ] || fail "perm: exit $rc, want 6: $(cat err)"
run=$(last_run out)
[ "$(step "$run/status.json" ncu state)" = failed ] || fail "perm state"
step "$run/status.json" ncu message | grep -q "ERR_NVGPUCTRPERM.*NVreg_RestrictProfilingToAdminUsers=0" ||
	fail "perm message: $(step "$run/status.json" ncu message)"
grep -q "NVreg_RestrictProfilingToAdminUsers=0" err || fail "perm not on stderr: $(cat err)"
[ "$(step "$run/status.json" reports state)" = ok ] || fail "reports after perm"
[ ! -e "$run/ncu/raw.csv" ] || fail "raw.csv after perm"

# 3. "No kernels were profiled": diagnosed, naming the filter
export FAKE_NCU_LOG=$tmp/log3 FAKE_NCU_MODE=nokernels
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" pipeline.ncu.path="$fake" \
	pipeline.ncu.ncu_cli.kernel_name=regex:nosuch -- /bin/true >out 2>err
rc=$?
[ $rc -eq 6 ] || fail "nokernels: exit $rc"
run=$(last_run out)
step "$run/status.json" ncu message | grep -q "not measured: ncu profiled no kernel: no launch passed the filter (configured filters: --kernel-name regex:nosuch;" ||
	fail "nokernels message: $(step "$run/status.json" ncu message)"
[ "$(json "$run/ncu/measured.json" "d['runs'][0]['measured']")" = False ] || fail "nokernels measured.json"
unset FAKE_NCU_MODE

# 4. ncu missing: failed, exit 4, saying where it looked
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" pipeline.ncu.path=/nonexistent/ncu \
	pipeline.ncu.ncu_cli.kernel_name=regex:add -- /bin/true >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "missing ncu: exit $rc"
run=$(last_run out)
[ "$(step "$run/status.json" ncu message)" = "pipeline.ncu.path='/nonexistent/ncu' is not an executable file; set pipeline.ncu.path to the ncu executable, or null to search PATH" ] ||
	fail "missing message: $(step "$run/status.json" ncu message)"

# 5. disabled: skipped with the reason
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" pipeline.ncu.enable=false -- /bin/true >out 2>err ||
	fail "disabled: $(cat err)"
run=$(last_run out)
[ "$(step "$run/status.json" ncu message)" = "pipeline.ncu.enable=false" ] || fail "disabled reason"

# 6. range replay without an NVTX include: refused, never an ungated run
export FAKE_NCU_LOG=$tmp/log6
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" pipeline.ncu.path="$fake" \
	pipeline.ncu.ncu_cli.replay_mode=range -- /bin/true >out 2>err
rc=$?
[ $rc -eq 3 ] || fail "range: exit $rc"
run=$(last_run out)
step "$run/status.json" ncu message | grep -q "replay_mode=range needs pipeline.ncu.ncu_cli.nvtx.include" ||
	fail "range message"
! grep -q -- '|-o|' log6 || fail "range mode ran ncu ungated"

# 6b. an NVTX include is checked against the trace's ranges (the built-in
#     llm on the CPU emits LLM@decode_all) and put in ncu's syntax
if [ -x "${LLMPROF_BUILD_DIR:-}/workloads/llmprof-llm" ]; then
	export FAKE_NCU_LOG=$tmp/log6b
	"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" pipeline.ncu.path="$fake" \
		infer.prompt_len=8 infer.max_new_tokens=2 pipeline.ncu.ncu_cli.kernel_name=regex:add \
		'pipeline.ncu.ncu_cli.nvtx.include=[LLM@decode_all]' >out 2>err || fail "6b: $(cat err)"
	grep -- '|-o|' log6b | grep -q -- "|--nvtx|--nvtx-include|LLM@decode_all/|" || fail "6b argv: $(cat log6b)"
	# an NVTX-gated configured run also writes its regions
	run=$(last_run out)
	python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d["regions"]) == 8, d' \
		"$run/ncu/regions/report.json" || fail "6b regions: $(ls "$run/ncu")"
	export FAKE_NCU_LOG=$tmp/log6c
	"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" pipeline.ncu.path="$fake" \
		infer.prompt_len=8 infer.max_new_tokens=2 pipeline.ncu.ncu_cli.kernel_name=regex:add \
		'pipeline.ncu.ncu_cli.nvtx.include=[decode_all]' >out 2>err
	rc=$?
	[ $rc -eq 3 ] || fail "6c: exit $rc"
	run=$(last_run out)
	step "$run/status.json" ncu message | grep -q "nvtx.include matches no range of the trace.*LLM@decode_all/" ||
		fail "6c message: $(step "$run/status.json" ncu message)"
	! grep -q -- '|-o|' log6c || fail "6c ran ncu"
fi

# 7. --dry-run: the template for the selected kernels, and the explicit run
"$LLMPROF" profile -n "${common[@]}" pipeline.ncu.path="$fake" -- /bin/true >out 2>err || fail "dry run"
grep -q "one ncu run over the kernels select picks (until run.coverage, at most run.top_n_kernels; ncu/selection.json ncu_pass)" out || fail "dry run text: $(cat out)"
grep -q -- "--kernel-name '<regex:^(names of the selected kernels)\$>' --launch-skip '<K>' --launch-count '<C>' --clock-control none .* /bin/true\$" out ||
	fail "dry run template: $(cat out)"
# without a GPU no kernel is selected: a missing ncu is noted, not a failure
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= "$LLMPROF" profile -n "${common[@]}" \
	pipeline.ncu.path=/nonexistent/ncu run.mode=light -- /bin/true >out 2>err || fail "dry run 2: $(cat err)"
grep -q "SpeedOfLight + Occupancy" out &&
	grep -q "(no usable ncu: pipeline.ncu.path='/nonexistent/ncu' is not an executable file; .*no GPU was found, so no kernel is selected and the step is skipped)" out ||
	fail "dry run light/missing: $(cat out)"
! grep -q "would fail" out || fail "dry run 2 marked a step: $(cat out)"
# ... but ncu with its own filters runs without selection: that step would fail (exit 4)
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= "$LLMPROF" profile -n "${common[@]}" \
	pipeline.ncu.path=/nonexistent/ncu pipeline.ncu.ncu_cli.kernel_name=regex:add -- /bin/true >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "dry run 3: exit $rc, want 4"
grep -qx "  would fail: pipeline.ncu.path='/nonexistent/ncu' is not an executable file; set pipeline.ncu.path to the ncu executable, or null to search PATH" out ||
	fail "dry run 3 mark: $(cat out)"
grep -qx "llmprof: error: dry run: step 'ncu' would fail: pipeline.ncu.path='/nonexistent/ncu' is not an executable file; set pipeline.ncu.path to the ncu executable, or null to search PATH" err ||
	fail "dry run 3 stderr: $(cat err)"
grep -q "^step 9: reports (in llmprof)" out || fail "dry run 3 stopped early: $(cat out)"
exit 0
