#!/usr/bin/env bash
# GPU check of where the CPU time goes (pipeline.trace.api_calls=all,
# docs/tracer.md) and of model keys from a transformers config.json
# (docs/workloads.md):
#   setup   examples/graph_decode.py --steps 8 (no warm-up: prefill pays its
#           first-call setup) with every CUDA API call recorded: the
#           stage-setup-bound finding must say which calls took the time;
#           the program's checksum unchanged
#   hfcfg   examples/hf_llama.py --config-dir tests/data/hf/llama-3.2-1b
#           without model=: model keys from its config.json, model-based
#           MFU/MBU
# Usage: scripts/gpu/validate-cpu-time.sh STAGE OUT   (STAGE absolute)
set -u
stage=${1:?usage: validate-cpu-time.sh STAGE OUT} out=${2:?}
B=$stage/build
root=$(cd "$(dirname "$0")/../.." && pwd)
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
prof() { # NAME then profile arguments
	local name=$1
	shift
	timeout 240 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=builtin \
		pipeline.ncu.enable=false "$@" >"$w/$name.out" 2>"$w/$name.err"
	local rc=$? run
	run=$(sed -n 's/^run: //p' "$w/$name.out")
	echo "$name: exit $rc; $(grep -h 'checksum\|model shape' "$w/$name.err" "$run/logs/workload.out" 2>/dev/null | tr '\n' ' ')"
	[ -n "$run" ] && mv "$run" "$w/$name"
	grep -h '"trace"' -A4 "$w/$name/status.json" 2>/dev/null | grep message
}
echo "untraced: $(python3 "$stage/examples/graph_decode.py" --steps 8 | tail -n 1)"
prof setup pipeline.trace.api_calls=all -- python3 "$stage/examples/graph_decode.py" --steps 8
grep -E 'stage-setup-bound|stage-launch-bound' "$w/setup/report.md" | cut -c1-900
sed -n '/CPU time/,/^$/p' "$w/setup/report.md" | head -n 30
prof launches -- python3 "$stage/examples/graph_decode.py" --steps 8
grep -E 'stage-setup-bound' "$w/launches/report.md" | cut -c1-600
prof hfcfg -- python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32 \
	--config-dir "$root/tests/data/hf/llama-3.2-1b"
grep -E '^\| (prefill|decode) \| M' "$w/hfcfg/report.md" | head -n 4
grep -E 'model:' "$w/hfcfg/inputs.yaml" -A2 | head -n 4
tar czf "$out/cpu-time.tgz" -C "$w" --exclude='trace/log' --exclude='*.sqlite' \
	$(cd "$w" && ls -d setup launches hfcfg 2>/dev/null)
rm -rf "$w"
