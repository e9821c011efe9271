#!/usr/bin/env bash
# `llmprof profile` as the whole pipeline on a machine without a GPU:
#  - backend=builtin without the tracer library: exit 4 naming the cause; the
#    built-in llm (CPU path) under the builtin tracer through every step;
#  - backend=auto: the choice and its reason in status.json and --dry-run;
#  - backend=nsys with an unusable nsys: exit 4 at once, naming the cause;
#  - backend=nsys with NVIDIA's real nsys 2023.4.4 (the oracle) on a CPU-only
#    NVTX program: nsys/run.nsys-rep, run.sqlite, the kernel summary, cmd.txt,
#    stage timings from the NVTX ranges, the "no GPU work" finding, and
#    `llmprof report RUN_DIR` regenerating every report byte for byte.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/llmprof-cli-pipeline.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
step() { json "$1" "[s for s in d['steps'] if s['name']=='$2'][0]['$3']"; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }
cd "$tmp" || exit 1

# 1. builtin backend without the tracer library: exit 4 at once, naming the
#    cause, no bundle (like an unusable nsys)
LLMPROF_TRACER_LIB=/nonexistent.so "$LLMPROF" profile artifacts.root="$tmp/b0" \
	pipeline.trace.backend=builtin -- /bin/true >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "builtin without tracer: exit $rc, want 4"
grep -q "pipeline.trace.backend=builtin: LLMPROF_TRACER_LIB='/nonexistent.so'" err || fail "builtin message: $(cat err)"
[ ! -e "$tmp/b0" ] || fail "a bundle was created without a tracer"

# 1b. the built-in llm on the CPU under the builtin tracer (model auto -> tiny,
#     device cpu): every step, the analytic file, byte-identical regeneration
if [ -x "${LLMPROF_BUILD_DIR:-}/workloads/llmprof-llm" ] && [ -e "${LLMPROF_BUILD_DIR:-}/tracer/libllmprof_tracer.so" ]; then
	PATH=/usr/bin:/bin "$LLMPROF" profile artifacts.root="$tmp/b" infer.prompt_len=16 \
		infer.max_new_tokens=3 pipeline.nsys.path=/nonexistent/nsys >out 2>err ||
		fail "built-in llm: $(cat err)"
	run=$(last_run out)
	for s in config provenance workload trace analyze reports; do
		[ "$(step "$run/status.json" $s state)" = ok ] || fail "llm step $s: $(step "$run/status.json" $s message)"
	done
	[ "$(step "$run/status.json" select message)" = "no kernel launches in run.stage=decode" ] ||
		fail "select reason: $(step "$run/status.json" select message)"
	[ "$(step "$run/status.json" ncu message)" = "no kernels selected: nothing to measure (see the select step)" ] || fail "ncu reason: $(step "$run/status.json" ncu message)"
	[ "$(step "$run/status.json" join message)" = "no ncu/raw.csv: no counters to join" ] || fail "join reason"
	[ "$(sed -n 2,5p "$run/logs/workload.argv" | tr '\n' ' ')" = "--device cpu --model-name tiny " ] ||
		fail "workload argv: $(cat "$run/logs/workload.argv")"
	grep -qx -- "--analytic-out" "$run/logs/workload.argv" || fail "no --analytic-out"
	grep -qx "device: cpu" "$run/config.yaml" || fail "config.yaml device"
	for f in trace/trace.sqlite trace/trace.json workload/analytic.json report.md metrics.json; do
		[ -s "$run/$f" ] || fail "llm bundle lacks $f"
	done
	grep -q "^| prefill | prefill | 1 | " "$run/report.md" || fail "llm: no prefill stage"
	grep -q "^| prefill | MFU | [0-9.]* [kMG]\?FLOP | " "$run/report.md" || fail "llm: no analytic FLOPs"
	grep -q "cpu-path" "$run/report.md" || fail "llm: no cpu-path finding on the CPU path"
	grep -q "no-gpu-work" "$run/report.md" && fail "llm: the GPU-only no-gpu-work finding on the CPU path"
	cp -r "$run" "$tmp/copy"
	"$LLMPROF" report "$run" >/dev/null 2>&1 || fail "report RUN_DIR (llm)"
	diff -r "$tmp/copy" "$run" >/dev/null || fail "llm reports differ: $(diff -r "$tmp/copy" "$run" | head)"
fi

# 2. auto without nsys and without tracer: no timeline, said everywhere, exit 0
PATH=/usr/bin:/bin LLMPROF_TRACER_LIB=/nonexistent.so "$LLMPROF" profile artifacts.root="$tmp/a" pipeline.nsys.path=/nonexistent/nsys \
	-- /bin/true >out 2>err || fail "auto: $(cat err)"
run=$(last_run out)
step "$run/status.json" analyze message | grep -q "^no timeline trace: pipeline.trace.backend=auto: nsys is not usable" ||
	fail "auto reason: $(step "$run/status.json" analyze message)"
grep -q "trace backend: pipeline.trace.backend=auto" err || fail "auto reason on stderr"
step "$run/status.json" config message | grep -q "; trace backend: pipeline.trace.backend=auto: nsys is not usable" ||
	fail "auto reason in status.json: $(step "$run/status.json" config message)"
LLMPROF_TRACER_LIB=/nonexistent.so "$LLMPROF" profile -n pipeline.nsys.path=/nonexistent/nsys -- /bin/true >out 2>err || fail "dry run"
grep -q "^trace backend: none (pipeline.trace.backend=auto: nsys is not usable" out || fail "dry run reason: $(cat out)"

# 3. backend=nsys, nsys missing: exit 4 before any bundle, the cause named
"$LLMPROF" profile artifacts.root="$tmp/n4" pipeline.trace.backend=nsys \
	pipeline.nsys.path=/nonexistent/nsys -- /bin/true >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "nsys missing: exit $rc, want 4"
grep -q "pipeline.trace.backend=nsys: .*/nonexistent/nsys" err || fail "nsys missing message: $(cat err)"
[ ! -e "$tmp/n4" ] || fail "a bundle was created for an unusable nsys"

# 4. the real nsys (scripts/nsight-cli-oracle.sh); skip when it cannot be fetched
oracle=$(bash "$src/scripts/nsight-cli-oracle.sh" 2>"$tmp/oracle.err") ||
	{ echo "skip: NVIDIA's nsys CLI is not available for part 4: $(cat "$tmp/oracle.err")"; exit 77; }
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
grep -q "^  program: \"${prog[0]}\"" "$run/inputs.yaml" || fail "inputs.yaml names nsys, not the program: $(head "$run/inputs.yaml")"
grep -q "^$N profile --trace=nvtx,osrt " "$run/nsys/cmd.txt" || fail "cmd.txt profile line"
for s in workload nsys-export nsys-stats analyze reports; do
	[ "$(step "$run/status.json" $s state)" = ok ] || fail "step $s: $(step "$run/status.json" $s message)"
done
[ "$(step "$run/status.json" ncu state)" = skipped ] || fail "ncu state: $(step "$run/status.json" ncu message)"
step "$run/status.json" config message | grep -q "; trace backend: pipeline.trace.backend=nsys: nsys 2023.4" ||
	fail "nsys reason in status.json"
step "$run/status.json" nsys-stats message | grep -q "the trace has no CUDA kernel data" ||
	fail "nsys-stats message: $(step "$run/status.json" nsys-stats message)"
head -n 1 "$run/report.md" | grep -qx "# Profiling report" || fail "report.md head: $(head -n 1 "$run/report.md")"
grep -q "no-gpu-work" "$run/report.md" || fail "no 'no GPU work' finding"
grep -q "The trace holds no GPU kernels" err || fail "no-GPU finding not on stderr"
if [ "${prog[0]}" = "$tmp/nvtxprog" ]; then
	# CPU-side stage timings from the program's LLM ranges (3 decode steps)
	grep -q "^| prefill | prefill | 1 | " "$run/report.md" || fail "no prefill stage"
	grep -q "^| decode | 3 | " "$run/report.md" || fail "no decode steps"
fi
# an NVTX gate that never opens: nsys writes no report; the workload step says
# why (nsys's diagnosis), exit 6, export/stats skipped, reports INCOMPLETE
"$LLMPROF" profile artifacts.root="$tmp/ng" pipeline.trace.backend=nsys pipeline.nsys.path="$N" \
	pipeline.nsys.trace=nvtx,osrt pipeline.nsys.gating_nvtx=true pipeline.nsys.capture_range=nvtx \
	pipeline.nsys.nvtx_capture=LLM@nosuchrange -- "${prog[@]}" >out 2>err
rc=$?
[ $rc -eq 6 ] || fail "gate never opened: exit $rc, want 6: $(cat err)"
gated=$(last_run out)
step "$gated/status.json" workload message | grep -q "^nsys \[no-report-gated\]: .*nosuchrange@LLM" ||
	fail "gated message: $(step "$gated/status.json" workload message)"
[ "$(step "$gated/status.json" nsys-export state)" = skipped ] || fail "export not skipped"
head -n 1 "$gated/report.md" | grep -qx "# Profiling report: INCOMPLETE (step 'workload' failed)" ||
	fail "gated report.md: $(head -n 1 "$gated/report.md")"

cp -r "$run" "$tmp/copy2"
"$LLMPROF" report "$run" >/dev/null 2>&1 || fail "report RUN_DIR"
diff -r "$tmp/copy2" "$run" >/dev/null || fail "report RUN_DIR not byte-identical: $(diff -r "$tmp/copy2" "$run" | head)"
# a moved bundle regenerates the same bytes too
mv "$tmp/copy2" "$tmp/moved"
"$LLMPROF" report "$tmp/moved" >/dev/null 2>&1 || fail "report on moved bundle"
diff -r "$tmp/moved" "$run" >/dev/null || fail "moved bundle differs: $(diff -r "$tmp/moved" "$run" | head)"
exit 0
