#!/usr/bin/env bash
# GPU check of the builtin tracer's CPU sampling (pipeline.trace.cpu_sample_hz,
# docs/tracer.md "CPU samples"):
#   cost      the primary overhead number: every sampled process's log is
#             converted and its sampler row (LLMPROF_CPU_SAMPLER) printed:
#             "pid P: method M, sampler cost X ms in N samples (Y us each)
#             = Z % of the sampled CPU time (S ms)", X being the time spent
#             inside the sampler's signal handler, measured by the handler.
#   overhead  a secondary check, noisy (decode_ms moves 10-50 % run to run
#             on a shared machine): examples/hf_llama.py under the tracer
#             as it is by default (sampling off) and with sampling at 100 Hz,
#             interleaved (round r runs each variant once, in a process of
#             its own, starting at a rotating position); prints each run's
#             decode_ms and, per variant, the min and the median, and the
#             ratios of both to the default.
#   setup     `llmprof profile` of examples/hf_llama.py --warmup 0 (prefill
#             pays its first-call setup) with every CUDA API call recorded and
#             sampling at 100 Hz: prints the stage-setup-bound finding (which
#             must cite the sampled breakdown of the time outside CUDA), the
#             report's CPU-samples section (with its sampler cost line), the
#             metrics.json cpu_samples and cpu_sampler keys, the sampler's
#             rows and the samples' categories from trace.sqlite.
# Usage: scripts/gpu/validate-cpu-sampling.sh STAGE OUT   (STAGE absolute)
# Knobs: SAMPLING_REPS (6) rounds, SAMPLING_HZ (100), SAMPLING_ARGS (hf_llama
# arguments, default "--prompt 128 --new-tokens 32"), SAMPLING_VARIANTS
# (default "default sample"; also "untraced", and "leaf" = sampling with
# LLMPROF_TRACE_CPU_UNWIND=leaf).
# Cost on an H100: ~25 s a process; 2 variants x 6 rounds + the profile run
# take ~5.5 minutes. Each added variant costs ~2.5 minutes.
set -u
stage=${1:?usage: validate-cpu-sampling.sh STAGE OUT} out=${2:?}
B=$stage/build
export LD_LIBRARY_PATH=$stage/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
reps=${SAMPLING_REPS:-6}
hz=${SAMPLING_HZ:-100}
read -r -a hfargs <<<"${SAMPLING_ARGS:---prompt 128 --new-tokens 32}"
so=$B/tracer/libllmprof_tracer.so
tool=$B/tests/trace-tool # scripts/gpu/stage.sh puts it in gpu-bin/
[ -x "$tool" ] || tool=$stage/gpu-bin/trace-tool
hf=$stage/examples/hf_llama.py
mkdir -p "$out"
w=$(mktemp -d)
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH LLMPROF_TRACE_OUT LLMPROF_TRACE_CPU_SAMPLE_HZ \
	LLMPROF_TRACE_CPU_UNWIND
{
	date -u
	nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
	ls -l /usr/lib/x86_64-linux-gnu/libunwind.so.8* 2>&1 | head -n 2
	cat "$stage/commit" 2>/dev/null
} | tee "$out/env.txt"

# sampler_cost DB: one line per sampled process, from its LLMPROF_CPU_SAMPLER
# row (absent tables said, never a failure).
sampler_cost() {
	python3 - "$1" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
if "LLMPROF_CPU_SAMPLER" not in have:
    print("  no LLMPROF_CPU_SAMPLER table (no process sampled, or none exited cleanly)")
    sys.exit(0)
q = ("SELECT (globalPid >> 24) & 16777215, method, samples, dropped, threads, handlerNs, handlerCalls, "
     "sampledNs FROM LLMPROF_CPU_SAMPLER ORDER BY 1")
for pid, method, n, dropped, threads, hns, calls, sns in db.execute(q):
    each = hns / 1e3 / calls if calls else 0.0
    pct = 100.0 * hns / sns if sns else 0.0
    print(f"  pid {pid}: method {method}, {threads} threads, {dropped} dropped, sampler cost "
          f"{hns / 1e6:.3f} ms in {calls} samples ({each:.1f} us each) = {pct:.3f} % of the "
          f"sampled CPU time ({sns / 1e6:.1f} ms)")
PY
}

echo "variant,round,decode_ms,prefill_ms" >"$out/raw.csv"
run_one() { # VARIANT ROUND
	local v=$1 r=$2 line rc
	local -a envs=()
	rm -rf "$w/log" && mkdir -p "$w/log"
	case $v in
	default) envs=(LLMPROF_TRACE_OUT="$w/log" CUDA_INJECTION64_PATH="$so" NVTX_INJECTION64_PATH="$so") ;;
	sample) envs=(LLMPROF_TRACE_OUT="$w/log" CUDA_INJECTION64_PATH="$so" NVTX_INJECTION64_PATH="$so"
		      LLMPROF_TRACE_CPU_SAMPLE_HZ="$hz") ;;
	leaf) envs=(LLMPROF_TRACE_OUT="$w/log" CUDA_INJECTION64_PATH="$so" NVTX_INJECTION64_PATH="$so"
		    LLMPROF_TRACE_CPU_SAMPLE_HZ="$hz" LLMPROF_TRACE_CPU_UNWIND=leaf) ;;
	esac
	env "${envs[@]}" timeout 120 python3 "$hf" "${hfargs[@]}" >"$w/stdout" 2>>"$out/stderr.txt"
	rc=$?
	line=$(grep -a '^hf_llama:' "$w/stdout" | tail -n 1)
	d=$(sed -n 's/.* decode_ms=\([0-9.]*\).*/\1/p' <<<"$line")
	p=$(sed -n 's/.* prefill_ms=\([0-9.]*\).*/\1/p' <<<"$line")
	if [ "$rc" -ne 0 ] || [ -z "$d" ]; then
		echo "FAIL $v round $r: rc $rc '$line'" | tee -a "$out/checks.txt"
		return
	fi
	echo "$v,$r,$d,$p" >>"$out/raw.csv"
	printf '%-9s round %d  decode_ms %s  prefill_ms %s  log %s\n' "$v" "$r" "$d" "$p" \
		"$(du -sk "$w/log" | cut -f1) KiB"
	if [ "$v" = sample ] || [ "$v" = leaf ]; then
		rm -f "$w/s.sqlite"
		if timeout 60 "$tool" convert "$w/log" "$w/s.sqlite" >/dev/null 2>>"$out/stderr.txt"; then
			sampler_cost "$w/s.sqlite" | sed "s/^/$v round $r/" | tee -a "$out/cost.txt"
		else
			echo "$v round $r: convert failed ($tool)" | tee -a "$out/cost.txt"
		fi
	fi
}
python3 -c 'import torch, transformers; torch.zeros(1, device="cuda")' >/dev/null 2>&1
read -r -a all <<<"${SAMPLING_VARIANTS:-default sample}"
nv=${#all[@]}
for ((r = 1; r <= reps; r++)); do
	for ((i = 0; i < nv; i++)); do
		run_one "${all[$(((i + r) % nv))]}" "$r"
	done
done
python3 - "$out/raw.csv" <<'PY' | tee "$out/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med, lo = {}, {}
for v in ("untraced", "default", "sample", "leaf"):
    d = [float(r["decode_ms"]) for r in rows if r["variant"] == v]
    if d:
        med[v], lo[v] = statistics.median(d), min(d)
        print(f"{v:9s} n={len(d)} decode_ms min {lo[v]:.2f} median {med[v]:.2f} max {max(d):.2f}")
print("(secondary check: decode_ms is noisy; the sampler cost lines are the overhead number)")
if "default" in med and "untraced" in med:
    print(f"default/untraced  min {lo['default'] / lo['untraced']:.3f}"
          f"  median {med['default'] / med['untraced']:.3f}")
for v in ("sample", "leaf"):
    if v in med and "default" in med:
        print(f"{v}/default{' ' * (9 - len(v))}min {lo[v] / lo['default']:.3f}"
              f"  median {med[v] / med['default']:.3f}")
PY
[ -s "$out/cost.txt" ] && echo "== sampler cost per sampled run" && cat "$out/cost.txt"
echo "elapsed ${SECONDS}s"

echo "== setup: llmprof profile, api_calls=all, cpu_sample_hz=$hz, --warmup 0"
timeout 150 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=builtin \
	pipeline.ncu.enable=false pipeline.trace.api_calls=all pipeline.trace.cpu_sample_hz="$hz" \
	-- python3 "$hf" --warmup 0 --prompt 128 --new-tokens 16 >"$w/setup.out" 2>"$w/setup.err"
echo "exit $?"
run=$(sed -n 's/^run: //p' "$w/setup.out")
if [ -n "$run" ]; then
	grep -E 'stage-setup-bound' "$run/report.md" | cut -c1-1200
	sed -n '/^## CPU samples/,/^## [^C]/p' "$run/report.md" | head -n 40
	echo "== sampler cost from the setup run's trace.sqlite"
	sampler_cost "$run/trace/trace.sqlite"
	python3 - "$run/metrics.json" "$run/trace/trace.sqlite" <<'PY'
import json, sqlite3, sys
m = json.load(open(sys.argv[1]))
def walk(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if k in ("cpu_samples", "cpu_sampler"):
                print(path + k, json.dumps(v)[:1500])
            else:
                walk(v, path + k + ".")
    elif isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, path + str(i) + ".")
walk(m)
db = sqlite3.connect(sys.argv[2])
have = {r[0] for r in db.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
if "LLMPROF_CPU_SAMPLES" in have:
    print("samples", db.execute("SELECT count(*), count(DISTINCT globalTid) FROM LLMPROF_CPU_SAMPLES").fetchone())
    for row in db.execute("SELECT (globalTid >> 24) & 16777215, method, count(*), sum(periodNs) / 1e6 "
                          "FROM LLMPROF_CPU_SAMPLES GROUP BY 1, 2"):
        print("  pid %s method %s: %d samples, %.1f ms" % row)
    for row in db.execute("SELECT category, count(*) FROM LLMPROF_CPU_SAMPLES GROUP BY 1 ORDER BY 2 DESC"):
        print("  ", row)
    for row in db.execute("SELECT function, library, count(*) FROM LLMPROF_CPU_SAMPLES "
                          "GROUP BY 1, 2 ORDER BY 3 DESC LIMIT 12"):
        print("  function", row)
    for row in db.execute("SELECT function, stack FROM LLMPROF_CPU_SAMPLES "
                          "WHERE stack LIKE 'ioctl%' OR stack LIKE '__open%' LIMIT 2"):
        print("  syscall leaf ->", row[0], "|", row[1][:400])
else:
    print("no LLMPROF_CPU_SAMPLES table")
if "LLMPROF_TRACER_DIAGNOSTICS" in have:
    for row in db.execute("SELECT level, message FROM LLMPROF_TRACER_DIAGNOSTICS"):
        print("diag", row)
else:
    print("no tracer diagnostics")
PY
	cp "$run/report.md" "$out/setup-report.md"
	cp "$run/metrics.json" "$out/setup-metrics.json"
fi
tar czf "$out/cpu-sampling.tgz" -C "$w" --exclude='trace/log' runs 2>/dev/null
rm -rf "$w"
echo "elapsed ${SECONDS}s"
