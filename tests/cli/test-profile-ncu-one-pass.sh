#!/usr/bin/env bash
# Deep mode's one Nsight Compute pass, end to end without a GPU: a workload
# that writes a synthetic builtin-tracer log (trace-tool synth: decode_all
# with gemv_bf16 and rmsnorm launches, mangled names) is selected from,
# then tests/cli/fake-ncu.sh (ncu's console text, the CSVs of
# tests/data/ncu/synth-one-pass.*) stands in for ncu. Checked: one ncu run
# with --filter-mode per-launch-config, the alternation of mangled names,
# --launch-skip-before-match and --launch-count from the plan; the names
# import; each result mapped to the trace launch it measured
# (ncu/measured.json results); ncu/mangled.csv; the window form when one
# kernel serves two operators (trace-tool synth-graph shared); the program
# ended once every planned result is in (pipeline.ncu.stop_after_last); and
# the fallback to one run per kernel when ncu's --help lacks per-launch-config.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
fake=$src/tests/cli/fake-ncu.sh
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
tmp=$(mktemp -d /tmp/llmprof-cli-onepass.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
step() { json "$1" "[s for s in d['steps'] if s['name']=='$2'][0]['$3']"; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }
cd "$tmp" || exit 1
[ -e "${LLMPROF_BUILD_DIR:-}/tracer/libllmprof_tracer.so" ] || { echo "no tracer library built"; exit 77; }
[ -x "$tool" ] || { echo "no trace-tool built"; exit 77; }
# 3 steps of 4 launches: gemv, rmsnorm, gemv, rmsnorm each
cat >wl.sh <<SH
#!/bin/sh
[ -n "\${LLMPROF_TRACE_OUT:-}" ] && exec "$tool" synth "\$LLMPROF_TRACE_OUT" 3 4
exit 0
SH
chmod +x wl.sh
common=(pipeline.trace.backend=builtin pipeline.nsys.path=/nonexistent/nsys run.mode=deep
	pipeline.ncu.path="$fake" run.coverage=1)
export FAKE_NCU_CSV=$src/tests/data/ncu/synth-one-pass.raw.csv

export FAKE_NCU_LOG=$tmp/log1 FAKE_NCU_ONE_PASS=1
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" -- ./wl.sh >out 2>err ||
	fail "one pass: $(cat err)"
run=$(last_run out)
[ "$(step "$run/status.json" select state)" = ok ] || fail "select: $(step "$run/status.json" select message)"
[ "$(step "$run/status.json" ncu state)" = ok ] || fail "ncu: $(step "$run/status.json" ncu message)"
step "$run/status.json" ncu message | grep -q "^2 ncu results for 2 selected kernels in one pass (" ||
	fail "ncu message: $(step "$run/status.json" ncu message)"
[ "$(grep -c -- '|-o|' log1)" -eq 1 ] || fail "not one capture: $(grep -- '|-o|' log1)"
cap=$(grep -- '|-o|' log1)
# the names in selection order (by GPU time)
echo "$cap" | grep -qF -- "|--filter-mode|per-launch-config|--kernel-name-base|mangled|--kernel-name|regex:^(_ZN3llm8rmsnormILi128EEEvPf|_Z10gemv_bf16PKfS0_Pfi)$|--launch-skip-before-match|0|--launch-count|1|" ||
	fail "capture argv: $cap"
grep -qxF -- "--import|$run/ncu/k0.ncu-rep|--csv|--page|raw|--print-units|base|--print-kernel-base|mangled|--metrics|gpu__time_duration.sum" log1 ||
	fail "names import: $(grep -- --import log1)"
[ "$(json "$run/ncu/measured.json" "[r['launch_index'] for r in d['results']]")" = "[0, 1]" ] ||
	fail "results: $(json "$run/ncu/measured.json" "d.get('results')")"
[ "$(json "$run/ncu/measured.json" "d['one_pass']")" = True ] || fail "one_pass flag"
grep -q "ncu measured 2 results in one pass in [0-9.]* s of ncu (ncu/measured.json)" "$run/report.md" ||
	fail "report's ncu line: $(grep -n 'ncu measured' "$run/report.md")"
[ "$(json "$run/ncu/selection.json" "d['ncu_pass']['expected_launches']")" = "[0, 1]" ] ||
	fail "selection.json ncu_pass: $(json "$run/ncu/selection.json" "d.get('ncu_pass')")"
grep -q '"_ZN3llm8rmsnormILi128EEEvPf"' "$run/ncu/mangled.csv" || fail "mangled.csv: $(cat "$run/ncu/mangled.csv")"
[ "$(grep -c '' "$run/ncu/raw.csv")" -eq 4 ] || fail "raw.csv rows"

# one kernel and configuration serving two operators (gemv_bf16 in attn and
# out, rmsnorm in mlp), each operator a class of its own
# (run.same_work_tolerance=0): per-launch-config would measure 4 launches
# (rmsnorm twice), the window of the stage's first step 3, one per class
# (names in selection order: rmsnorm takes the most GPU time). The window
# form needs no per-launch-config: the ncu help is not asked, and the flags
# are -k, --launch-skip, --launch-count in ncu's default global mode.
cat >wl2.sh <<SH
#!/bin/sh
[ -n "\${LLMPROF_TRACE_OUT:-}" ] && exec "$tool" synth-graph "\$LLMPROF_TRACE_OUT" 3 shared
exit 0
SH
chmod +x wl2.sh
export FAKE_NCU_LOG=$tmp/logw FAKE_NCU_ONE_PASS=0
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" run.same_work_tolerance=0 -- ./wl2.sh \
	>out 2>err || fail "window: $(cat err)"
run=$(last_run out)
[ "$(json "$run/ncu/selection.json" "d['selected']")" = 3 ] || fail "window: selected"
[ "$(json "$run/ncu/selection.json" "[d['ncu_pass'][k] for k in ('filter_mode', 'launch_skip', 'launch_count', 'expected_launches', 'selected_measured', 'repeats', 'other_form_expected')]")" = "['global', 0, 3, [0, 1, 2], 3, 0, 4]" ] ||
	fail "window plan: $(json "$run/ncu/selection.json" "d.get('ncu_pass')")"
[ "$(grep -c -- '|-o|' logw)" -eq 1 ] || fail "window: not one capture: $(grep -- '|-o|' logw)"
grep -q -- "^--help" logw && fail "window: asked ncu --help"
cap=$(grep -- '|-o|' logw)
echo "$cap" | grep -q -- "--filter-mode" && fail "window: --filter-mode: $cap"
echo "$cap" | grep -qF -- "|--kernel-name-base|mangled|--kernel-name|regex:^(_ZN3llm8rmsnormILi128EEEvPf|_Z10gemv_bf16PKfS0_Pfi)$|--launch-skip|0|--launch-count|3|" ||
	fail "window argv: $cap"
step "$run/status.json" ncu message | grep -q "in one pass (a window of their launches; " ||
	fail "window message: $(step "$run/status.json" ncu message)"
[ "$(json "$run/ncu/measured.json" "[r['launch_index'] for r in d['results']]")" = "[0, 1]" ] ||
	fail "window results: $(json "$run/ncu/measured.json" "d.get('results')")"
[ "$(json "$run/ncu/measured.json" "[r.get('filter_mode') for r in d['runs']]")" = "['global']" ] ||
	fail "window measured.json run: $(json "$run/ncu/measured.json" "d.get('runs')")"

# the default: gemv_bf16's launches in attn and out are the same kernel,
# configuration and duration, so one result stands for both operators
# (selection.json "same_work"), measured on attn's first launch;
# per-launch-config then measures each configuration once: 2 launches, where
# the classes above asked it for 4. The decode stage's counter FLOPs count
# gemv's result for out's launches too (2000 a gemv, 30 an rmsnorm, 3 steps:
# synth-one-pass-flops.raw.csv), and every launch is covered.
export FAKE_NCU_LOG=$tmp/logs FAKE_NCU_ONE_PASS=1
export FAKE_NCU_CSV=$src/tests/data/ncu/synth-one-pass-flops.raw.csv
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" -- ./wl2.sh >out 2>err ||
	fail "same work: $(cat err)"
run=$(last_run out)
[ "$(json "$run/metrics.json" "[(s['utilization']['counter_flops'], s['utilization']['counter_time_share']) for s in d['stages']]")" = "[(12090.0, 1.0)]" ] ||
	fail "same work counter FLOPs: $(json "$run/metrics.json" "[s['utilization'] for s in d['stages']]")"
[ "$(json "$run/ncu/selection.json" "[d[k] for k in ('selected', 'same_work_classes', 'coverage')]")" = "[2, 1, 1.0]" ] ||
	fail "same work: $(json "$run/ncu/selection.json" "[d[k] for k in ('selected', 'same_work_classes', 'coverage')]")"
[ "$(json "$run/ncu/selection.json" "[(k['operator'], k['launch_index'], [w['operator'] for w in k['same_work']]) for k in d['kernels']]")" = "$(json "$run/ncu/selection.json" "[('mlp', 1, []), ('attn', 0, ['out'])]")" ] ||
	fail "same work kernels: $(json "$run/ncu/selection.json" "d['kernels']")"
[ "$(json "$run/ncu/selection.json" "[d['ncu_pass'][k] for k in ('filter_mode', 'launch_count', 'expected_launches', 'selected_measured', 'repeats')]")" = "['per-launch-config', 1, [0, 1], 2, 0]" ] ||
	fail "same work plan: $(json "$run/ncu/selection.json" "d.get('ncu_pass')")"

# ncu's results all in while the program still runs (fake ncu's live mode,
# a program that would sleep 60 s under ncu): llmprof ends the program once
# the plan's 2 results are in, ncu exits with the program's status (15),
# which is no failure; measured.json and the step say the program was
# ended. With pipeline.ncu.stop_after_last=false it runs to its end.
cat >wl3.sh <<SH
#!/bin/sh
[ -n "\${LLMPROF_TRACE_OUT:-}" ] && exec "$tool" synth "\$LLMPROF_TRACE_OUT" 3 4
exec sleep "\${WL_SLEEP:-60}"
SH
chmod +x wl3.sh
export FAKE_NCU_LOG=$tmp/log3 FAKE_NCU_ONE_PASS=1 FAKE_NCU_MODE=live
t0=$(date +%s)
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" -- ./wl3.sh >out 2>err ||
	fail "stop after last: $(cat err)"
[ $(($(date +%s) - t0)) -lt 40 ] || fail "stop after last: the program was not ended"
run=$(last_run out)
[ "$(step "$run/status.json" ncu state)" = ok ] || fail "stop: ncu: $(step "$run/status.json" ncu message)"
step "$run/status.json" ncu message | grep -q "after the last (the program ended there)" ||
	fail "stop message: $(step "$run/status.json" ncu message)"
[ "$(json "$run/ncu/measured.json" "[(r['program_ended_after_last'], r['measured']) for r in d['runs']] + [d['ncu_time']['programs_ended_after_last']]")" = "[(True, True), 1]" ] ||
	fail "stop measured.json: $(json "$run/ncu/measured.json" "d['runs']")"
[ "$(json "$run/ncu/measured.json" "[r['launch_index'] for r in d['results']]")" = "[0, 1]" ] ||
	fail "stop results: $(json "$run/ncu/measured.json" "d.get('results')")"
# each result's seconds, as ncu's console finished them (fake ncu prints
# both at once: one read may hold both, whose time and name go to the last)
[ "$(json "$run/ncu/measured.json" "[len(d['result_times']), d['result_times'][-1]['name'], [(r['passes'], r['s'] >= 0, r['name'] in ('', 'add')) for r in d['result_times']]]")" = "[2, 'add', [(9, True, True), (9, True, True)]]" ] ||
	fail "result_times: $(json "$run/ncu/measured.json" "d.get('result_times')")"
grep -q "llmprof ended the program under ncu after ncu's last planned result (pipeline.ncu.stop_after_last=false" "$run/report.md" ||
	fail "stop: report.md does not say the program was ended: $(grep -n 'ncu' "$run/report.md" | head)"
grep -q "The application returned an error code (15)" "$run/logs/ncu-k0.out" ||
	fail "stop: fake ncu saw no SIGTERM: $(cat "$run/logs/ncu-k0.out")"
# one result short of the plan: the program runs to its end
WL_SLEEP=2 FAKE_NCU_RESULTS=1 "$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" -- ./wl3.sh \
	>out 2>err || fail "one short: $(cat err)"
run=$(last_run out)
[ "$(json "$run/ncu/measured.json" "[r['program_ended_after_last'] for r in d['runs']]")" = "[False]" ] ||
	fail "one short: ended: $(json "$run/ncu/measured.json" "d['runs']")"
# two processes under ncu (ranks): ending one would leave the other waiting
WL_SLEEP=2 FAKE_NCU_PROCS=2 "$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" -- ./wl3.sh \
	>out 2>err || fail "two processes: $(cat err)"
run=$(last_run out)
[ "$(json "$run/ncu/measured.json" "[r['program_ended_after_last'] for r in d['runs']]")" = "[False]" ] ||
	fail "two processes: ended: $(json "$run/ncu/measured.json" "d['runs']")"
WL_SLEEP=2 "$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" pipeline.ncu.stop_after_last=false \
	-- ./wl3.sh >out 2>err || fail "stop off: $(cat err)"
run=$(last_run out)
[ "$(json "$run/ncu/measured.json" "[(r['program_ended_after_last'], r['measured']) for r in d['runs']]")" = "[(False, True)]" ] ||
	fail "stop off: $(json "$run/ncu/measured.json" "d['runs']")"
grep -q "error code" "$run/logs/ncu-k0.out" && fail "stop off: the program was ended"
grep -q "llmprof ended the program" "$run/report.md" && fail "stop off: report.md says it was ended"
unset FAKE_NCU_MODE

# an ncu without per-launch-config: one run per selected kernel, as before
export FAKE_NCU_CSV=$src/tests/data/ncu/synth-one-pass.raw.csv
export FAKE_NCU_LOG=$tmp/log2 FAKE_NCU_ONE_PASS=0
"$LLMPROF" profile artifacts.root="$tmp/a" "${common[@]}" -- ./wl.sh >out 2>err ||
	fail "per kernel: $(cat err)"
run=$(last_run out)
[ "$(grep -c -- '|-o|' log2)" -eq 2 ] || fail "not two captures: $(grep -- '|-o|' log2)"
grep -q -- "--filter-mode" log2 && fail "per-kernel run has --filter-mode"
grep -q "no --filter-mode per-launch-config" err || fail "no fallback warning: $(cat err)"
step "$run/status.json" ncu message | grep -q "^2 of 2 selected kernels measured" ||
	fail "per-kernel message: $(step "$run/status.json" ncu message)"
echo "ok"
