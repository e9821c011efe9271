#!/usr/bin/env bash
# GPU check of the builtin tracer's CPU sampling (pipeline.trace.cpu_sample_hz,
# docs/tracer.md "CPU samples"):
#   overhead  examples/hf_llama.py run untraced, under the tracer as it is by
#             default (sampling off: no timer, no handler) and with sampling
#             at 100 Hz, interleaved (round r runs each variant once, in a
#             process of its own, starting at a rotating position); prints
#             each run's decode_ms and the median ratios to the default.
#             Target: default / untraced as before, 100 Hz / default within
#             a few %.
#   setup     `llmprof profile` of examples/hf_llama.py --warmup 0 (prefill
#             pays its first-call setup) with every CUDA API call recorded and
#             sampling at 100 Hz: prints the stage-setup-bound finding (which
#             must cite the sampled breakdown of the time outside CUDA), the
#             report's CPU-samples table, the metrics.json cpu_samples keys
#             and the sampler's totals from trace.sqlite.
# Usage: scripts/gpu/validate-cpu-sampling.sh STAGE OUT   (STAGE absolute)
# Knobs: SAMPLING_REPS (4) rounds, SAMPLING_HZ (100), SAMPLING_ARGS (hf_llama
# arguments, default "--prompt 128 --new-tokens 64"), SAMPLING_VARIANTS
# (default "untraced default sample"; "leaf" = sampling with
# LLMPROF_TRACE_CPU_UNWIND=leaf).
# Cost on an H100: ~25 s a process; 3 variants x 4 rounds + the profile run
# fit one 10-minute call.
set -u
stage=${1:?usage: validate-cpu-sampling.sh STAGE OUT} out=${2:?}
B=$stage/build
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH=$stage/lib:/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
reps=${SAMPLING_REPS:-4}
hz=${SAMPLING_HZ:-100}
read -r -a hfargs <<<"${SAMPLING_ARGS:---prompt 128 --new-tokens 64}"
so=$B/tracer/libllmprof_tracer.so
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
	env "${envs[@]}" timeout 200 python3 "$hf" "${hfargs[@]}" >"$w/stdout" 2>>"$out/stderr.txt"
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
}
python3 -c 'import torch, transformers; torch.zeros(1, device="cuda")' >/dev/null 2>&1
read -r -a all <<<"${SAMPLING_VARIANTS:-untraced default sample}"
nv=${#all[@]}
for ((r = 1; r <= reps; r++)); do
	for ((i = 0; i < nv; i++)); do
		run_one "${all[$(((i + r) % nv))]}" "$r"
	done
done
python3 - "$out/raw.csv" <<'PY' | tee "$out/summary.txt"
import csv, statistics, sys
rows = list(csv.DictReader(open(sys.argv[1])))
med = {}
for v in ("untraced", "default", "sample", "leaf"):
    d = [float(r["decode_ms"]) for r in rows if r["variant"] == v]
    if d:
        med[v] = statistics.median(d)
        print(f"{v:9s} n={len(d)} median decode_ms {med[v]:.2f} min {min(d):.2f} max {max(d):.2f}")
if "default" in med and "untraced" in med:
    print(f"default/untraced {med['default'] / med['untraced']:.3f}")
for v in ("sample", "leaf"):
    if v in med and "default" in med:
        print(f"{v}/default   {med[v] / med['default']:.3f}")
PY

echo "== setup: llmprof profile, api_calls=all, cpu_sample_hz=$hz, --warmup 0"
timeout 300 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=builtin \
	pipeline.ncu.enable=false pipeline.trace.api_calls=all pipeline.trace.cpu_sample_hz="$hz" \
	-- python3 "$hf" --warmup 0 --prompt 128 --new-tokens 16 >"$w/setup.out" 2>"$w/setup.err"
echo "exit $?"
run=$(sed -n 's/^run: //p' "$w/setup.out")
if [ -n "$run" ]; then
	grep -E 'stage-setup-bound' "$run/report.md" | cut -c1-1200
	sed -n '/^## CPU samples/,/^## [^C]/p' "$run/report.md" | head -n 40
	python3 - "$run/metrics.json" "$run/trace/trace.sqlite" <<'PY'
import json, sqlite3, sys
m = json.load(open(sys.argv[1]))
def walk(o, path=""):
    if isinstance(o, dict):
        for k, v in o.items():
            if k == "cpu_samples":
                print(path + k, json.dumps(v)[:1500])
            else:
                walk(v, path + k + ".")
    elif isinstance(o, list):
        for i, v in enumerate(o):
            walk(v, path + str(i) + ".")
walk(m)
db = sqlite3.connect(sys.argv[2])
try:
    print("samples", db.execute("SELECT count(*), count(DISTINCT globalTid) FROM LLMPROF_CPU_SAMPLES").fetchone())
    for row in db.execute("SELECT category, count(*) FROM LLMPROF_CPU_SAMPLES GROUP BY 1 ORDER BY 2 DESC"):
        print("  ", row)
    for row in db.execute("SELECT method, count(*), sum(periodNs) / 1e6 FROM LLMPROF_CPU_SAMPLES GROUP BY 1"):
        print("  method", row)
    for row in db.execute("SELECT stack FROM LLMPROF_CPU_SAMPLES WHERE category = 'PyTorch' LIMIT 2"):
        print("  stack", row[0][:600])
except sqlite3.Error as e:
    print("no samples table:", e)
try:
    for row in db.execute("SELECT level, message FROM LLMPROF_TRACER_DIAGNOSTICS"):
        print("diag", row)
except sqlite3.Error:
    print("no tracer diagnostics")
PY
	cp "$run/report.md" "$out/setup-report.md"
	cp "$run/metrics.json" "$out/setup-metrics.json"
fi
tar czf "$out/cpu-sampling.tgz" -C "$w" --exclude='trace/log' runs 2>/dev/null
rm -rf "$w"
