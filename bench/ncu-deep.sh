#!/usr/bin/env bash
# bench/ncu-deep.sh: deep mode's Nsight Compute cost against a naive
# NVTX-filtered pass, measured in one run on the GPU machine (a staged tree,
# scripts/gpu/stage.sh). For each workload and trace backend:
#   llmprof profile run.mode=deep  -> the ncu step's wall time (status.json),
#   ncu runs and workload launches (ncu/measured.json), decode coverage
#   (ncu/selection.json), results measured and joined (the join step);
# then, once per workload, the naive pass: ncu with the same collection
# flags over the whole decode range (--nvtx --nvtx-include), capped at
# NAIVE_CAP_S; its total is extrapolated from the launches it profiled per
# second (printed as an estimate) against the decode launch count.
# Workloads: (a) the built-in llama-3.2-1b decode (prompt 128, 32 new
# tokens); (b) examples/hf_llama.py, a transformers Llama of the same shape
# (random weights, NVTX prefill/decode/decode_step, 16 layers).
# Prints one summary table (ratios measured in this run); every bundle's
# status.json, measured.json and report.md come back in OUT/bundles.tgz.
# Usage: bench/ncu-deep.sh STAGE OUT      (STAGE absolute)
# WORKLOADS (default "a b"), BACKENDS (default "builtin nsys"),
# NAIVE_CAP_S (default 40; 0 leaves the naive pass out).
set -u
stage=${1:?usage: ncu-deep.sh STAGE OUT} out=${2:?usage: ncu-deep.sh STAGE OUT}
B=$stage/build
NCU=${NCU:-/usr/local/cuda/bin/ncu}
NSYS=${NSYS:-$(ls -d /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | sort -V | tail -1)}
CAP=${NAIVE_CAP_S:-40}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
now() { date +%s.%N; }
WORKLOADS=${WORKLOADS:-a b}
BACKENDS=${BACKENDS:-builtin nsys}
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$NCU" --version | tail -n 1
"$B/llmprof" --version
summary=$w/summary.tsv
printf 'workload\tbackend\tncu_s\tncu_runs\tresults\tcoverage\tjoin\tprofile_wall_s\n' >"$summary"

wl_args() {
	case $1 in
	a) echo "model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32" ;;
	b) echo "model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32 -- python3 $stage/examples/hf_llama.py --prompt 128 --new-tokens 32" ;;
	esac
}

for wl in $WORKLOADS; do
	for be in $BACKENDS; do
		extra=(pipeline.trace.backend="$be")
		[ "$be" = nsys ] && extra+=(pipeline.nsys.path="$NSYS")
		echo "=== $wl / $be"
		t0=$(now)
		# shellcheck disable=SC2046
		timeout 560 "$B/llmprof" profile artifacts.root="$w/runs" run.mode=deep \
			pipeline.ncu.path="$NCU" "${extra[@]}" $(wl_args "$wl") \
			>"$w/$wl-$be.out" 2>"$w/$wl-$be.err"
		rc=$?
		t1=$(now)
		dir=$(sed -n 's/^run: //p' "$w/$wl-$be.out" | tail -n 1)
		echo "exit $rc, bundle ${dir:-none}"
		tail -n 8 "$w/$wl-$be.err"
		[ -n "$dir" ] && [ -f "$dir/status.json" ] || continue
		cp -r "$dir" "$w/keep-$wl-$be"
		python3 - "$dir" "$wl" "$be" "$t0" "$t1" >>"$summary" <<'PY'
import json, os, sys
d, wl, be, t0, t1 = sys.argv[1], sys.argv[2], sys.argv[3], float(sys.argv[4]), float(sys.argv[5])
st = json.load(open(os.path.join(d, "status.json")))
steps = {s["name"]: s for s in st.get("steps", [])}
def load(p):
    p = os.path.join(d, p)
    return json.load(open(p)) if os.path.exists(p) else {}
m, sel = load("ncu/measured.json"), load("ncu/selection.json")
for n in ("select", "ncu", "join", "reports"):
    s = steps.get(n, {})
    print("  %-8s %-12s %s" % (n, s.get("state"), (s.get("message") or "")[:400]), file=sys.stderr)
print("%s\t%s\t%.1f\t%d\t%d\t%.3f\t%s\t%.1f" % (wl, be, m.get("ncu_wall_s", 0), len(m.get("runs", [])),
      len(m.get("results", [])), sel.get("coverage", 0),
      (steps.get("join", {}).get("message") or "").replace("\t", " ")[:160], t1 - t0))
PY
	done
	# the naive pass on this workload: same flags, whole decode range
	[ "$CAP" -gt 0 ] || continue
	dir=$(ls -d "$w"/keep-"$wl"-* 2>/dev/null | head -n 1)
	[ -n "$dir" ] && [ -f "$dir/logs/workload.argv" ] || continue
	mapfile -t argv <"$dir/logs/workload.argv"
	range=LLM@decode_all/
	[ "$wl" = b ] && range=decode/
	flags=$(python3 - "$dir/ncu/cmd.txt" <<'PY'
import shlex, sys
a = shlex.split(open(sys.argv[1]).readline())
a = a[2:] if a and a[0].startswith("LC_ALL=") else a[1:]
keep, i = [], 0
while i < len(a) and not a[i].startswith("/") and not a[i] in ("python3",):
    if a[i] in ("-o", "--kernel-name", "--kernel-name-base", "--filter-mode", "--launch-count",
                "--launch-skip", "--launch-skip-before-match"):
        i += 2; continue
    if a[i] == "--force-overwrite":
        i += 1; continue
    keep.append(a[i]); i += 1
print("\n".join(keep))
PY
)
	mapfile -t fl <<<"$flags"
	echo "=== naive $wl: ncu ${fl[*]} --nvtx --nvtx-include $range (cap $CAP s)"
	t0=$(now)
	LC_ALL=C timeout "$CAP" "$NCU" "${fl[@]}" --nvtx --nvtx-include "$range" -o "$w/naive-$wl" -f \
		"${argv[@]}" >"$w/naive-$wl.log" 2>&1
	rc=$?
	t1=$(now)
	n=$(grep -c '==PROF== Profiling' "$w/naive-$wl.log")
	total=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1])).get("stage_launches", 0))' \
		"$dir/ncu/selection.json" 2>/dev/null || echo 0)
	python3 - "$wl" "$rc" "$t0" "$t1" "$n" "$total" "$summary" <<'PY'
import sys, csv
wl, rc, t0, t1, n, total, summ = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]), sys.argv[7]
el = t1 - t0
rows = [r for r in csv.DictReader(open(summ), delimiter="\t") if r["workload"] == wl]
est = el * total / n if n and rc == 124 else el
print("naive %s: exit %d, %.1f s, %d of %d decode launches profiled -> %s %.0f s" %
      (wl, rc, el, n, total, "EXTRAPOLATED" if rc == 124 else "measured", est))
for r in rows:
    s = float(r["ncu_s"])
    if s > 0:
        print("  %s/%s: deep-mode ncu %.1f s, naive/deep = %.0fx" % (wl, r["backend"], s, est / s))
PY
	tail -n 3 "$w/naive-$wl.log"
done
echo "=== summary"
column -t -s $'\t' "$summary" 2>/dev/null || cat "$summary"
cp "$summary" "$out/summary.tsv"
tar czf "$out/bundles.tgz" -C "$w" --exclude='*.ncu-rep' --exclude='*.sqlite' --exclude='*.nsys-rep' \
	--exclude='*.qdstrm' --exclude='trace/log' $(cd "$w" && ls -d keep-* 2>/dev/null) 2>/dev/null
rm -rf "$w"
