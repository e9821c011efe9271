#!/usr/bin/env bash
# `llmprof profile` as the whole pipeline on a machine without a GPU:
#  - backend=builtin without the tracer: clear failure, a valid bundle, reports
#    that say what is missing;
#  - backend=auto: the choice and its reason in status.json and --dry-run;
#  - backend=nsys with an unusable nsys: exit 4 at once, naming the cause;
#  - backend=nsys with NVIDIA's real nsys 2023.4.4 (the oracle) on a CPU-only
#    NVTX program: nsys/run.nsys-rep, run.sqlite, the kernel summary, cmd.txt,
#    stage timings from the NVTX ranges, the "no GPU work" finding, and
#    `llmprof report RUN_DIR` regenerating every report byte for byte.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
shared=${LLMPROF_SHARED_DIR:-$src/../shared}
tmp=$(mktemp -d /tmp/llmprof-cli-pipeline.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
step() { json "$1" "[s for s in d['steps'] if s['name']=='$2'][0]['$3']"; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }
cd "$tmp" || exit 1

# 1. builtin backend, no tracer in this build: exit 6, the workload ran, the
#    bundle is complete and its reports say why there is no timeline
"$LLMPROF" profile artifacts.root="$tmp/b" pipeline.trace.backend=builtin \
	-- /bin/sh -c 'echo ran' >out 2>err
rc=$?
[ $rc -eq 6 ] || fail "builtin without tracer: exit $rc, want 6: $(cat err)"
run=$(last_run out)
[ -d "$run" ] || fail "no run line"
[ "$(cat "$run/logs/workload.out")" = ran ] || fail "workload did not run"
[ "$(json "$run/status.json" 'd["state"]')" = failed ] || fail "state not failed"
[ "$(step "$run/status.json" trace state)" = failed ] || fail "trace step not failed"
step "$run/status.json" trace message | grep -q "^tracer not built" || fail "trace message"
[ "$(step "$run/status.json" analyze state)" = skipped ] || fail "analyze not skipped"
[ "$(step "$run/status.json" select message)" = "not run: an earlier step failed" ] || fail "select"
[ "$(step "$run/status.json" reports state)" = ok ] || fail "reports did not run"
grep -q "error: trace: tracer not built" err || fail "no error line: $(cat err)"
head -n 1 "$run/report.md" | grep -qx "# Profiling report: INCOMPLETE (step 'trace' failed)" ||
	fail "report.md first line: $(head -n 1 "$run/report.md")"
for f in config.yaml env.json inputs.yaml kernels.md operators.md stakeholder_summary.md \
	 metrics.json report.html charts/timeline.svg; do
	[ -s "$run/$f" ] || fail "builtin bundle lacks $f"
done
[ "$(json "$run/metrics.json" 'd["run"]["finished"]')" = False ] || fail "metrics.json finished"
cp -r "$run" "$tmp/copy"
"$LLMPROF" report "$run" >/dev/null 2>&1 || fail "report RUN_DIR on the failed bundle"
diff -r "$tmp/copy" "$run" >/dev/null || fail "regenerated reports differ: $(diff -r "$tmp/copy" "$run" | head)"

# 2. auto without nsys and without tracer: no timeline, said everywhere, exit 0
PATH=/usr/bin:/bin "$LLMPROF" profile artifacts.root="$tmp/a" pipeline.nsys.path=/nonexistent/nsys \
	-- /bin/true >out 2>err || fail "auto: $(cat err)"
run=$(last_run out)
step "$run/status.json" analyze message | grep -q "^no timeline trace: pipeline.trace.backend=auto: nsys is not usable" ||
	fail "auto reason: $(step "$run/status.json" analyze message)"
grep -q "trace backend: pipeline.trace.backend=auto" err || fail "auto reason on stderr"
"$LLMPROF" profile -n pipeline.nsys.path=/nonexistent/nsys -- /bin/true >out 2>err || fail "dry run"
grep -q "^trace backend: none (pipeline.trace.backend=auto: nsys is not usable" out || fail "dry run reason: $(cat out)"

# 3. backend=nsys, nsys missing: exit 4 before any bundle, the cause named
"$LLMPROF" profile artifacts.root="$tmp/n4" pipeline.trace.backend=nsys \
	pipeline.nsys.path=/nonexistent/nsys -- /bin/true >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "nsys missing: exit $rc, want 4"
grep -q "pipeline.trace.backend=nsys: .*/nonexistent/nsys" err || fail "nsys missing message: $(cat err)"
[ ! -e "$tmp/n4" ] || fail "a bundle was created for an unusable nsys"

# 4. the real nsys (oracle); skip when it cannot be fetched
oracle=$(bash "$shared/tools/nsight-cli-oracle.sh" 2>/dev/null) || { echo "skip: nsys oracle not available"; exit 77; }
eval "$oracle"
[ -x "${NSYS:-}" ] && [ -x "${NCU:-}" ] || { echo "skip: oracle nsys not executable"; exit 77; }
libssh=$(ls /usr/lib/*/libssh.so.4 2>/dev/null | head -n 1)
[ -n "$libssh" ] || { echo "skip: libssh.so.4 missing (scripts/install-deps.sh installs libssh-4)"; exit 77; }
# nsys finds its importer in ../linux-desktop-glibc_2_11_3-x64 (Nsight Compute's one)
mkdir -p "$tmp/nsl/lib"
cp -al "$(dirname "$NSYS")" "$tmp/nsl/target-linux-x64" 2>/dev/null ||
	cp -a "$(dirname "$NSYS")" "$tmp/nsl/target-linux-x64"
ln -s "$(dirname "$NCU")/host/linux-desktop-glibc_2_11_3-x64" "$tmp/nsl/linux-desktop-glibc_2_11_3-x64"
ln -s "$libssh" "$tmp/nsl/lib/libssh.so"
export LD_LIBRARY_PATH=$tmp/nsl/lib${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
N=$tmp/nsl/target-linux-x64/nsys
prog=(/bin/sh -c 'echo hi')
inc=$(ls -d /usr/local/cuda*/include 2>/dev/null | head -n 1)
if [ -n "$inc" ] && [ -f "$inc/nvtx3/nvToolsExt.h" ] &&
   cc -O1 -I"$inc" "$src/tests/data/nsys/nvtx-cpu-prog.c" -o "$tmp/nvtxprog" -ldl 2>/dev/null; then
	prog=("$tmp/nvtxprog")
fi

# dry run: the nsys argv with the NVTX gate translated to nsys's syntax
"$LLMPROF" profile -n pipeline.trace.backend=nsys pipeline.nsys.path="$N" \
	pipeline.nsys.gating_nvtx=true pipeline.nsys.capture_range=nvtx \
	pipeline.nsys.nvtx_capture=LLM@decode_all -- ./app >out 2>err || fail "nsys dry run: $(cat err)"
grep -q "^trace backend: nsys (pipeline.trace.backend=nsys: nsys 2023.4" out || fail "dry run backend: $(cat out)"
grep -q "^nsys gating: capture-range=nvtx$" out || fail "dry run gating"
grep -q -- "--capture-range=nvtx --capture-range-end=stop --nvtx-capture=decode_all@LLM --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0" out ||
	fail "dry run gating flags: $(cat out)"
grep -q "^step 4: nsys-export" out && grep -q "^step 5: nsys-stats" out || fail "dry run export/stats steps"

"$LLMPROF" profile artifacts.root="$tmp/ns" pipeline.trace.backend=nsys pipeline.nsys.path="$N" \
	pipeline.nsys.trace=nvtx,osrt -- "${prog[@]}" >out 2>err || fail "nsys run: $(cat err)"
run=$(last_run out)
for f in nsys/run.nsys-rep nsys/run.sqlite nsys/cmd.txt report.md kernels.md metrics.json; do
	[ -s "$run/$f" ] || fail "nsys bundle lacks $f"
done
[ -f "$run/nsys/summary_cuda_gpu_kern_sum.csv" ] || fail "no kernel summary file"
[ "$(wc -l <"$run/nsys/cmd.txt")" -eq 3 ] || fail "cmd.txt: $(cat "$run/nsys/cmd.txt")"
grep -q "^$N profile --trace=nvtx,osrt " "$run/nsys/cmd.txt" || fail "cmd.txt profile line"
for s in workload nsys-export nsys-stats analyze reports; do
	[ "$(step "$run/status.json" $s state)" = ok ] || fail "step $s: $(step "$run/status.json" $s message)"
done
[ "$(step "$run/status.json" ncu message)" = "ncu support not built yet" ] || fail "ncu skip reason"
head -n 1 "$run/report.md" | grep -qx "# Profiling report" || fail "report.md head: $(head -n 1 "$run/report.md")"
grep -q "no-gpu-work" "$run/report.md" || fail "no 'no GPU work' finding"
grep -q "The trace holds no GPU kernels" err || fail "no-GPU finding not on stderr"
if [ "${prog[0]}" = "$tmp/nvtxprog" ]; then
	# CPU-side stage timings from the program's LLM ranges (3 decode steps)
	grep -q "^| prefill | prefill | 1 | " "$run/report.md" || fail "no prefill stage"
	grep -q "^| decode | 3 | " "$run/report.md" || fail "no decode steps"
fi
cp -r "$run" "$tmp/copy2"
"$LLMPROF" report "$run" >/dev/null 2>&1 || fail "report RUN_DIR"
diff -r "$tmp/copy2" "$run" >/dev/null || fail "report RUN_DIR not byte-identical: $(diff -r "$tmp/copy2" "$run" | head)"
# a moved bundle regenerates the same bytes too
mv "$tmp/copy2" "$tmp/moved"
"$LLMPROF" report "$tmp/moved" >/dev/null 2>&1 || fail "report on moved bundle"
diff -r "$tmp/moved" "$run" >/dev/null || fail "moved bundle differs: $(diff -r "$tmp/moved" "$run" | head)"
exit 0
