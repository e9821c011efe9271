#!/usr/bin/env bash
# GPU validation of the reports (docs/report.md): deep mode (builtin tracer,
# one Nsight Compute pass) on
#   hf       examples/hf_llama.py (transformers Llama, eager, NVTX prefill /
#            decode / decode_step), given to llmprof WITHOUT model keys: the
#            launch-bound finding must come with its numbers, MBU must be
#            counter-based, prefill's first-call setup must be explained
#   builtin  the built-in llama-3.2-1b: the roofline with labelled points
# The bundles come back without traces; the screenshots are taken where the
# bundles land (tests/cli/html-layout.js, headless Chromium).
# Usage: scripts/gpu/validate-reports.sh STAGE OUT   (STAGE absolute)
set -u
stage=${1:?usage: validate-reports.sh STAGE OUT} out=${2:?}
B=$stage/build
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
prof() { # NAME then profile arguments
	local name=$1
	shift
	local t0=$SECONDS
	timeout 280 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=builtin "$@" \
		>"$w/$name.out" 2>"$w/$name.err"
	local rc=$? run
	run=$(sed -n 's/^run: //p' "$w/$name.out")
	echo "$name: exit $rc in $((SECONDS - t0)) s"
	[ -n "$run" ] && mv "$run" "$w/$name"
	[ -f "$w/$name/report.md" ] && {
		grep -E '^\| (TTFT|TPOT|MFU|MBU|GPU)' "$w/$name/report.md" | head -n 12
		grep -E '^- \*\*(critical|warning|info)\*\*' "$w/$name/report.md" | cut -c1-400
	}
}
prof hf run.top_n_kernels=4 -- python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32
prof builtin model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32
tar czf "$out/reports.tgz" -C "$w" --exclude='trace/log' --exclude='*.sqlite' --exclude='*.ncu-rep' \
	$(cd "$w" && ls -d hf builtin 2>/dev/null)
rm -rf "$w"
