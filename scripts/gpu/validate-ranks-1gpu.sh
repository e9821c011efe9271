#!/usr/bin/env bash
# What of ranks and collectives one GPU can check (docs/collectives.md):
#   spawn   examples/multi_rank.py --spawn 2: two worker processes on GPU 0,
#           worker 1 slowed (--slow-rank 1), GPU-bound decode steps
#   nccl    the same program under torchrun, NCCL at world size 1
# each under the builtin tracer and under nsys (ncu off). Checked per run:
# the program's exit and output unchanged, one rank row per process with
# its identity (rank, launcher), the slowed worker named slowest, and each
# process's decode GPU span against the decode time the program measured
# itself with CUDA events (target: within 2 %).
# Then deep mode (ncu on) on CUDA-graph programs: graph_decode.py and the
# built-in llama-3.2-1b with infer.cuda_graph=true: kernels that run only
# inside graph replays selected, measured by ncu and joined.
# Usage: [SKIP_DEEP=1] scripts/gpu/validate-ranks-1gpu.sh STAGE OUT   (STAGE absolute)
set -u
stage=${1:?usage: validate-ranks-1gpu.sh STAGE OUT} out=${2:?}
B=$stage/build
ex=$stage/examples
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
heavy=(--hidden 8192 --rows 1024)
prof() { # NAME then profile arguments
	local name=$1
	shift
	local t0=$SECONDS
	timeout 400 "$B/llmprof" profile -q -o "$w/runs" "$@" >"$w/$name.out" 2>"$w/$name.err"
	local rc=$? run
	run=$(sed -n 's/^run: //p' "$w/$name.out")
	echo "$name: exit $rc in $((SECONDS - t0)) s"
	[ -n "$run" ] && mv "$run" "$w/$name"
	[ -f "$w/$name/status.json" ] && python3 -c '
import json, sys
st = json.load(open(sys.argv[1]))
print("  state %s; %s" % (st["state"], "; ".join("%s=%s" % (s["name"], s["state"]) for s in st["steps"])))
for s in st["steps"]:
    if s["name"] in ("workload", "trace", "ncu", "join") and s.get("message"):
        print("  %s: %s" % (s["name"], s["message"]))' "$w/$name/status.json"
}
check() { # NAME: compare ranks with the program's own decode times
	python3 - "$w/$1" <<'PY'
import json, os, re, sys
d = sys.argv[1]
if not os.path.exists(d + "/metrics.json"):
    print("  no metrics.json"); sys.exit(0)
m = json.load(open(d + "/metrics.json"))
own = {}
for line in open(d + "/logs/workload.out"):
    g = re.search(r"(worker|rank) (\d+) pid (\d+).* decode_ms ([\d.]+)", line)
    if g:
        own[int(g.group(3))] = (g.group(1) + " " + g.group(2), float(g.group(4)))
ranks = m.get("ranks") or []
print("  %d rank rows; program's own: %s" % (len(ranks), sorted(own.values())))
worst = 0
for r in ranks:
    dec = (r.get("decode") or {}).get("gpu_ms")
    mine = own.get(r.get("pid"))
    diff = 100 * (dec - mine[1]) / mine[1] if dec and mine else None
    if diff is not None:
        worst = max(worst, abs(diff))
    print("  %-8s pid %s rank %s launcher %s gpu %s: decode GPU span %s ms, program %s ms, %s%s" % (
        r.get("label"), r.get("pid"), r.get("rank"), r.get("launcher"), r.get("gpu"),
        "%.3f" % dec if dec else "n/a", "%.3f" % mine[1] if mine else "n/a",
        "%+.2f %%" % diff if diff is not None else "", "  SLOWEST" if r.get("slowest") else ""))
if ranks:
    print("  largest difference %.2f %% (target <= 2 %%)" % worst)
PY
}
for be in builtin nsys; do
	prof "spawn-$be" pipeline.trace.backend=$be pipeline.ncu.enable=false -- \
		python3 "$ex/multi_rank.py" --spawn 2 --slow-rank 1 "${heavy[@]}"
	check "spawn-$be"
	prof "nccl-$be" pipeline.trace.backend=$be pipeline.ncu.enable=false -- \
		torchrun --standalone --nproc-per-node 1 "$ex/multi_rank.py" "${heavy[@]}"
	check "nccl-$be"
done
[ "${SKIP_DEEP:-0}" = 1 ] && { tar czf "$out/ranks.tgz" -C "$w" --exclude='trace/log' \
	--exclude='*.sqlite' --exclude='*.nsys-rep' spawn-builtin spawn-nsys nccl-builtin nccl-nsys; rm -rf "$w"; exit 0; }
prof graph-deep pipeline.trace.backend=builtin -- python3 "$ex/graph_decode.py" --steps 8
prof llm-graph-deep pipeline.trace.backend=builtin model=llama-3.2-1b infer.prompt_len=128 \
	infer.max_new_tokens=32 infer.cuda_graph=true
for r in graph-deep llm-graph-deep; do
	[ -f "$w/$r/kernels.md" ] && { echo "== $r kernels.md (head)"; sed -n 1,30p "$w/$r/kernels.md" | cut -c1-220; }
done
tar czf "$out/ranks.tgz" -C "$w" --exclude='trace/log' --exclude='*.sqlite' --exclude='*.nsys-rep' \
	--exclude='*.ncu-rep' $(cd "$w" && ls -d spawn-* nccl-* graph-deep llm-graph-deep 2>/dev/null)
rm -rf "$w"
