#!/usr/bin/env bash
# GPU validation of operators for CUDA-graph replays (docs/tracer.md, "CUDA
# graphs"): the same program eager and with its decode step captured as a
# CUDA graph, under the builtin tracer; per-operator GPU-time shares of
# decode must agree within 5 percentage points. Programs:
#   py    examples/graph_decode.py --eager vs graph (ranges attn, mlp, layerN)
#   llm   the built-in llama-3.2-1b, infer.cuda_graph=false vs true
# Then the cost of the capture bookkeeping at replay: the graph program's
# decode time (its own CUDA events) with LLMPROF_TRACE_GRAPH_NODES=1 and 0,
# REPEAT runs each, the ratio printed.
# Usage: scripts/gpu/validate-graph-operators.sh STAGE OUT   (STAGE absolute)
set -u
stage=${1:?usage: validate-graph-operators.sh STAGE OUT} out=${2:?}
B=$stage/build
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
prof() { # NAME then profile arguments
	local name=$1
	shift
	timeout 300 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=builtin \
		pipeline.ncu.enable=false "$@" >"$w/$name.out" 2>"$w/$name.err"
	echo "$name: exit $? $(sed -n 's/^run: //p' "$w/$name.out")"
	cp -r "$(sed -n 's/^run: //p' "$w/$name.out")" "$w/keep-$name" 2>/dev/null
}
prof py-eager -- python3 "$stage/examples/graph_decode.py" --eager
prof py-graph -- python3 "$stage/examples/graph_decode.py"
prof llm-eager model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32 infer.cuda_graph=false
prof llm-graph model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32 infer.cuda_graph=true
python3 - "$w" <<'PY'
import json, os, sys
w = sys.argv[1]
def ops(name):
    p = os.path.join(w, "keep-" + name, "metrics.json")
    if not os.path.exists(p):
        return None
    m = json.load(open(p))
    return {o["name"]: o for o in m.get("operators", []) if o.get("stage") == "decode"}
for prog in ("py", "llm"):
    e, g = ops(prog + "-eager"), ops(prog + "-graph")
    if e is None or g is None:
        print(prog, "missing bundle"); continue
    worst = 0.0
    print("%s: %d decode operators eager, %d graph" % (prog, len(e), len(g)))
    share = lambda o: (o or {}).get("share_of_stage") or 0
    for n in sorted(set(e) | set(g), key=lambda n: -max(share(e.get(n)), share(g.get(n)))):
        se = (e.get(n) or {}).get("share_of_stage") or 0
        sg = (g.get(n) or {}).get("share_of_stage") or 0
        worst = max(worst, abs(se - sg))
        print("  %-14s eager %6.2f%%  graph %6.2f%%  calls %s / %s" % (n, 100 * se, 100 * sg,
              (e.get(n) or {}).get("calls"), (g.get(n) or {}).get("calls")))
    print("%s: largest share difference %.2f percentage points (target <= 5)" % (prog, 100 * worst))
PY
echo "=== replay cost of the graph-node records (graph_decode.py, its own decode timing)"
lib=$B/tracer/libllmprof_tracer.so
for on in 1 0 1 0 1 0; do
	rm -rf "$w/t" && mkdir -p "$w/t"
	LLMPROF_TRACE_GRAPH_NODES=$on CUDA_INJECTION64_PATH="$lib" NVTX_INJECTION64_PATH="$lib" \
		LLMPROF_TRACE_OUT="$w/t" python3 "$stage/examples/graph_decode.py" --steps 200 2>&1 |
		grep -i "decode_ms\|ms" | tail -n 1 | sed "s/^/graph_nodes=$on: /"
done
tar czf "$out/graph-bundles.tgz" -C "$w" --exclude='trace/log' \
	$(cd "$w" && ls -d keep-* 2>/dev/null) 2>/dev/null
rm -rf "$w"
