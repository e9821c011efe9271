#!/usr/bin/env bash
# stakeholder_summary.md keeps the sections the original system promised
# (executive summary, Environment, Aggregates, Per-Stage Timings, MFU and
# MBU, Top Operators, Top Kernels) plus Recommendations, each present and
# saying why when empty, on real bundles: the built-in workload on an H100
# (tests/data/report/h100-deep-llama1b) and a PyTorch program on an H200
# (tests/data/ranks/h200-tp/tpot-hostgap-builtin: examples/tp_decode.py under
# llmprof's tracer, no model keys). The CPU path is checked in
# test-cpu-path.sh with the same heading list.
set -u
: "${LLMPROF:?}" "${LLMPROF_SOURCE_DIR:?}"
command -v xz >/dev/null || { echo "skip: xz not installed"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-summary.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
want='# Stakeholder Summary
## Environment
## Aggregates
## Per-Stage Timings
## MFU and MBU
## Top Operators
## Top Kernels
## Recommendations
## Glossary'
headings() { # headings FILE: the level 1-2 headings must be exactly $want
	local got
	got=$(grep -E '^#{1,2} ' "$1")
	[ "$got" = "$want" ] || { echo "FAIL: $1 headings:"; echo "$got"; fail=1; }
}
has() { # has FILE FIXED-STRING
	grep -qF -- "$2" "$1" || { echo "FAIL: $(basename "$(dirname "$1")")/$(basename "$1") lacks '$2'"; fail=1; }
}
report() { # report BUNDLE OUT WHAT: llmprof report must succeed
	"$LLMPROF" report "$1" -o "$2" >/dev/null 2>"$tmp/err" ||
		{ echo "FAIL: report $3: $(cat "$tmp/err")"; fail=1; }
}
summary() { # summary BUNDLE OUT WHAT: report, then $s is its summary, headings checked
	report "$@"
	s=$2/stakeholder_summary.md
	headings "$s"
}

# the built-in workload, a real deep run on an H100
cp -r "$LLMPROF_SOURCE_DIR/tests/data/report/h100-deep-llama1b" "$tmp/builtin"
find "$tmp/builtin" -name '*.xz' -exec xz -d {} +
summary "$tmp/builtin" "$tmp/builtin-out" builtin
has "$s" "**GPU** NVIDIA H100 80GB HBM3, peak table: H100 SXM5 80GB; **Driver** 580.159.04, CUDA 13.0;"
has "$s" "**Model** llama-3.2-1b, bf16; **Backend** llmprof's tracer + Nsight Compute counters."
has "$s" "- decode: MBU 51.2% of the datasheet peak (model)"
has "$s" "- peaks: 989.4 TFLOP/s dense bf16, 3350 GB/s"
[ "$(sed -n '/^## Top Kernels/,/^## /p' "$s" | grep -c '^| `')" = 5 ] ||
	{ echo "FAIL: builtin Top Kernels is not 5 rows"; fail=1; }

# a PyTorch program without model keys: the model is unknown and the
# summary says so instead of printing config defaults as its shape
mkdir -p "$tmp/pt/trace"
cp "$LLMPROF_SOURCE_DIR/tests/data/ranks/h200-tp/tpot-hostgap-builtin/status.json" "$tmp/pt/"
xz -dc "$LLMPROF_SOURCE_DIR/tests/data/ranks/h200-tp/tpot-hostgap-builtin/trace.sqlite.xz" \
	>"$tmp/pt/trace/trace.sqlite"
summary "$tmp/pt" "$tmp/pt-out" pytorch
has "$s" "**GPU** NVIDIA H200 (132 SMs), peak table: H200 SXM 141GB;"
has "$s" "**Model** unknown: no model= keys or config.json describe the program, so no model FLOPs or bytes;"
has "$s" "- all n/a: no model FLOPs or bytes"
# its only ranges inside the stages are the decode steps, a stage of their own
has "$s" "No operator ranges: no NVTX range matched stages.operator_pattern inside a stage."
has "$s" "16 more in kernels.md."
grep -q "layers\|new tokens" "$s" && { echo "FAIL: pytorch summary states a model shape it does not know"; fail=1; }
# the same trace reported with the built-in workload's config.yaml (32 new
# tokens, llama-3.2-1b): the trace's 64 decode steps show it was not that
# workload, so its defaults are not printed as facts about this run
cp "$LLMPROF_SOURCE_DIR/tests/data/report/h100-deep-llama1b/config.yaml" "$tmp/pt/"
report "$tmp/pt" "$tmp/pt-cfg" "pytorch with config"
grep -q "llama-3.2-1b (bf16\|32 new tokens\|16 layers" "$tmp/pt-cfg/stakeholder_summary.md" "$tmp/pt-cfg/report.md" &&
	{ echo "FAIL: config defaults printed as the program's shape"; fail=1; }
has "$tmp/pt-cfg/report.md" "the configuration describes the built-in workload (llama-3.2-1b, infer.max_new_tokens = 32) but the trace has 64 decode steps"
exit $fail
