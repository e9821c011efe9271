#!/usr/bin/env bash
# GPU check that llmprof's builtin tracer runs the PyTorch program shapes
# users run without breaking them: each program runs once untraced and once
# under `llmprof profile` (builtin tracer, ncu off); the exit status and the
# program's own checksum must match, and the bundle's steps and per-stage
# kernel counts are printed.
#   graph   examples/graph_decode.py: decode step captured with torch.cuda.graph
#   eager   the same program without the graph
#   nccl    examples/multi_rank.py under torchrun, NCCL at world size 1
#   spawn   examples/multi_rank.py --spawn 2: two worker processes on one GPU
# Usage: validate-pytorch-shapes.sh STAGE_DIR (absolute) OUT_DIR
set -u
stage=${1:?usage: validate-pytorch-shapes.sh STAGE_DIR OUT_DIR}
out=${2:?}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
ex=$stage/examples
{
"$stage/build/llmprof" --version
python3 -c 'import torch; print("torch", torch.__version__)'
for case in graph eager nccl spawn; do
	case $case in
	graph) prog=(python3 "$ex/graph_decode.py") ;;
	eager) prog=(python3 "$ex/graph_decode.py" --eager) ;;
	nccl) prog=(torchrun --standalone --nproc-per-node 1 "$ex/multi_rank.py") ;;
	spawn) prog=(python3 "$ex/multi_rank.py" --spawn 2) ;;
	esac
	echo "== $case: ${prog[*]}"
	timeout 200 "${prog[@]}" >"$w/plain.out" 2>"$w/plain.err"
	echo "untraced: exit $?; $(grep -h checksum "$w/plain.out" | sort | tr '\n' ' ')"
	timeout 250 "$stage/build/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=builtin \
		pipeline.ncu.enable=false -- "${prog[@]}" >"$w/o" 2>"$w/e"
	echo "traced: exit $?; $(tail -n 3 "$w/e" | tr '\n' ' ')"
	d=$(sed -n 's/^run: //p' "$w/o")
	[ -n "$d" ] || continue
	echo "traced program: $(grep -h checksum "$d/logs/workload.out" | sort | tr '\n' ' ')"
	python3 - "$d" <<'PY'
import json, os, sys
d = sys.argv[1]
st = json.load(open(os.path.join(d, "status.json")))
print("steps:", " ".join("%s=%s" % (s["name"], s["state"]) for s in st["steps"]))
for s in st["steps"]:
    if s["name"] in ("workload", "trace", "analyze"):
        print("  %s: %s" % (s["name"], (s.get("message") or "")[:200]))
m = os.path.join(d, "metrics.json")
if os.path.exists(m):
    m = json.load(open(m))
    for s in m.get("stages", []):
        print("  stage %-8s instances %s kernels %s busy_ms %s" % (s["name"], s["instances"], s["kernels"], s.get("busy_ms")))
    print("  operators:", len(m.get("operators", [])), " kernel names:", len(m.get("kernels", [])))
PY
	cp -r "$d" "$w/keep-$case"
done
} 2>&1 | tee "$out/validate-pytorch-shapes.log"
tar -C "$w" -czf "$out/bundles.tgz" --exclude='*.sqlite' --exclude='*.bin' --exclude='trace.json' \
	$(cd "$w" && ls -d keep-* 2>/dev/null)
rm -rf "$w"
