#!/usr/bin/env bash
# graph-nodes-overhead.sh: what recording CUDA graph nodes (the tracer's
# LLMPROF_TRACE_GRAPH_NODES, docs/tracer.md "CUDA graphs") costs at replay.
#   bench/tracer/graph-nodes-overhead.sh [ROUNDS]       (on a GPU machine)
# Runs examples/graph_decode.py --steps 200 (decode step captured once with
# torch.cuda.graph, replayed 200 times; it prints its own decode time from
# CUDA events) under the builtin tracer with the graph-node records on and
# off, alternating, ROUNDS (default 5) processes each, and prints the medians
# and their ratio (target: <= 1.01). Needs gpu-bin/libllmprof_tracer.so
# (scripts/gpu/stage.sh) or GRAPH_BENCH_LIB, and python3 with torch.
set -u
cd "$(dirname "$0")/../.."
rounds=${1:-5}
lib=${GRAPH_BENCH_LIB:-$PWD/gpu-bin/libllmprof_tracer.so}
[ -f "$lib" ] || { echo "no tracer library at $lib" >&2; exit 2; }
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
for r in $(seq "$rounds"); do
	for on in 1 0; do
		rm -rf "$out/t" && mkdir "$out/t"
		ms=$(LLMPROF_TRACE_GRAPH_NODES=$on CUDA_INJECTION64_PATH="$lib" \
			NVTX_INJECTION64_PATH="$lib" LLMPROF_TRACE_OUT="$out/t" \
			python3 examples/graph_decode.py --steps 200 | sed -n 's/.*decode_ms \([0-9.]*\).*/\1/p')
		[ -n "$ms" ] || { echo "round $r graph_nodes=$on: no decode_ms" >&2; exit 1; }
		echo "$on $ms" >>"$out/ms"
		echo "round $r graph_nodes=$on decode_ms $ms"
	done
done
python3 - "$out/ms" <<'PY'
import statistics, sys
v = {"1": [], "0": []}
for line in open(sys.argv[1]):
    on, ms = line.split()
    v[on].append(float(ms))
m1, m0 = statistics.median(v["1"]), statistics.median(v["0"])
print("median decode: graph nodes on %.3f ms, off %.3f ms; ratio on/off %.4f (target <= 1.01)"
      % (m1, m0, m1 / m0))
print("spread: on %.3f..%.3f, off %.3f..%.3f ms" % (min(v["1"]), max(v["1"]), min(v["0"]), max(v["0"])))
PY
