#!/usr/bin/env bash
# bench/ncu-deep-time.sh: deep mode's Nsight Compute time on the
# transformers Llama program (examples/hf_llama.py: 1B shape, random
# weights, prompt 128, 32 new tokens, NVTX prefill/decode/decode_step),
# against the issue's target: <= 60 s of ncu at >= 95 % decode coverage,
# every result joined to its trace launch. One call on one GPU, in a staged
# tree (scripts/gpu/stage.sh), within 8 minutes:
#   1. llmprof profile run.mode=deep with the default preset (no --set);
#   2. the same with pipeline.ncu.ncu_cli.set=roofline, the collection the
#      default asked for before, when time is left (same run, same GPU);
#   3. the same with only the sections the kernel records read
#      (SpeedOfLight, Occupancy; no MemoryWorkloadAnalysis, SchedulerStats,
#      which only ncu/sections_report.txt shows), when time is left: what
#      those two sections cost.
# For each it prints the ncu step's seconds and what ncu spent them on
# (ncu/measured.json ncu_time: results, replay passes, before the first
# result / profiling / after the last), the decode coverage
# (ncu/selection.json), results joined (measured.json results with a trace
# launch, and the join step's message), and the whole profile's wall time.
# OUT/summary.tsv, OUT/summary.txt and each bundle's status.json,
# ncu/{measured,selection}.json, ncu/cmd.txt, report.md and ncu logs come
# back under OUT/.
# Usage: bench/ncu-deep-time.sh STAGE OUT   (STAGE absolute)
# NCU (default /usr/local/cuda/bin/ncu), BUDGET_S (default 470): a later
# profile starts only when 170 s of the budget are left.
set -u
stage=${1:?usage: ncu-deep-time.sh STAGE OUT} out=${2:?usage: ncu-deep-time.sh STAGE OUT}
B=$stage/build
NCU=${NCU:-/usr/local/cuda/bin/ncu}
BUDGET=${BUDGET_S:-470}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
start=$(date +%s)
now() { date +%s.%N; }
{
	echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
	echo "ncu: $("$NCU" --version | tail -n 1)"
	echo "llmprof: $("$B/llmprof" --version | head -n 1), staged commit $(cat "$stage/commit" 2>/dev/null)"
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' 2>&1 | tail -n 1
} | tee "$out/env.txt"
summary=$out/summary.tsv
printf 'collection\tncu_s\tresults\treplay_passes\tpasses_per_result\tbefore_first_s\tprofiling_s\tafter_last_s\tcoverage\tselected\tjoined\tprofile_wall_s\n' >"$summary"

profile() { # profile NAME [KEY=VALUE...]
	local name=$1 left dir rc t0 t1
	shift
	left=$((BUDGET - ($(date +%s) - start)))
	echo "=== $name ($* ; ${left} s of the budget left)"
	t0=$(now)
	timeout $((left > 250 ? 250 : left)) "$B/llmprof" profile artifacts.root="$w/runs" \
		run.mode=deep run.coverage=0.95 pipeline.trace.backend=builtin \
		pipeline.ncu.path="$NCU" "$@" \
		model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32 \
		-- python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32 \
		>"$w/$name.out" 2>"$w/$name.err"
	rc=$?
	t1=$(now)
	dir=$(sed -n 's/^run: //p' "$w/$name.out" | tail -n 1)
	echo "exit $rc, bundle ${dir:-none}"
	tail -n 6 "$w/$name.err"
	mkdir -p "$out/$name"
	cp "$w/$name.out" "$w/$name.err" "$out/$name/"
	[ -n "$dir" ] && [ -f "$dir/status.json" ] || return 0
	for f in status.json report.md ncu/measured.json ncu/selection.json ncu/cmd.txt \
		logs/ncu-k0.out logs/ncu-k0.err; do
		[ -f "$dir/$f" ] && cp "$dir/$f" "$out/$name/$(echo "$f" | tr / _)"
	done
	python3 - "$dir" "$name" "$t0" "$t1" >>"$summary" <<'PY'
import json, os, sys
d, name, t0, t1 = sys.argv[1], sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
st = json.load(open(os.path.join(d, "status.json")))
steps = {s["name"]: s for s in st.get("steps", [])}
def load(p):
    p = os.path.join(d, p)
    return json.load(open(p)) if os.path.exists(p) else {}
m, sel = load("ncu/measured.json"), load("ncu/selection.json")
t = m.get("ncu_time", {})
res = m.get("results", [])
joined = sum(1 for r in res if r.get("launch_index") is not None)
for n in ("select", "ncu", "join"):
    s = steps.get(n, {})
    print("  %-6s %-8s %s" % (n, s.get("state"), s.get("message") or ""), file=sys.stderr)
ppr = "%d" % t.get("passes_max", 0) if t.get("passes_min") == t.get("passes_max") else \
      "%d-%d" % (t.get("passes_min", 0), t.get("passes_max", 0))
print("%s\t%.1f\t%d\t%d\t%s\t%.1f\t%.1f\t%.1f\t%.3f\t%d\t%d of %d\t%.1f" % (
    name, m.get("ncu_wall_s", 0), t.get("results", 0), t.get("replay_passes", 0), ppr,
    t.get("before_first_result_s", -1), t.get("profiling_s", -1), t.get("after_last_result_s", -1),
    sel.get("coverage", 0), len(sel.get("kernels", [])), joined, len(res), t1 - t0))
PY
}

left() { [ $((BUDGET - ($(date +%s) - start))) -ge 170 ] || { echo "=== $1: left out, under 170 s of the budget left"; return 1; }; }
profile default
left roofline-set && profile roofline-set pipeline.ncu.ncu_cli.set=roofline
left records-only && profile records-only 'pipeline.ncu.ncu_cli.sections=[SpeedOfLight,Occupancy]'

echo "=== summary (target: ncu_s <= 60 at coverage >= 0.95, every result joined)"
{ column -t -s $'\t' "$summary" 2>/dev/null || cat "$summary"; } | tee "$out/summary.txt"
rm -rf "$w"
