#!/usr/bin/env bash
# GPU validation of `llmprof diff` (docs/diff.md) on the built-in
# llama-3.2-1b, builtin tracer, no counters:
#   noise    three eager runs of one configuration: run 1 vs run 2, and
#            runs 1,2 vs run 3, must show no significant TPOT change and pass
#            a 2 % gate
#   graph    eager (runs 1,2,3) vs infer.cuda_graph=true: decode named, the
#            launch-bound idle gap closing
#   gemm     the decode linears on llmprof's GEMV vs cuBLASLt (the program
#            run as a command, --decode-gemm), same shapes: the GEMM kernels
#            named as the movers
# The bundles' traces come back (xz) as fixtures for the CPU tests.
# Usage: scripts/gpu/validate-diff.sh STAGE OUT   (STAGE absolute)
set -u
stage=${1:?usage: validate-diff.sh STAGE OUT} out=${2:?}
B=$stage/build
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
common=(infer.prompt_len=128 infer.max_new_tokens=32)
llm=("$B/workloads/llmprof-llm" --model-name llama-3.2-1b --hidden 2048 --intermediate 8192
	--layers 16 --heads 32 --kv-heads 8 --head-dim 64 --vocab 128256 --max-pos 131072
	--rope-theta 500000 --tie-embeddings 1 --prompt-len 128 --new-tokens 32)
prof() { # NAME then profile arguments
	local name=$1
	shift
	timeout 240 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=builtin \
		pipeline.ncu.enable=false "$@" >"$w/$name.out" 2>"$w/$name.err"
	local rc=$? run
	run=$(sed -n 's/^run: //p' "$w/$name.out")
	echo "$name: exit $rc $run"
	[ -n "$run" ] && mv "$run" "$w/$name"
}
prof e1 model=llama-3.2-1b "${common[@]}" infer.cuda_graph=false
prof e2 model=llama-3.2-1b "${common[@]}" infer.cuda_graph=false
prof e3 model=llama-3.2-1b "${common[@]}" infer.cuda_graph=false
prof g1 model=llama-3.2-1b "${common[@]}" infer.cuda_graph=true
prof gemv -- "${llm[@]}" --decode-gemm gemv
prof cublas -- "${llm[@]}" --decode-gemm cublaslt
d() { # NAME then diff arguments
	local name=$1
	shift
	echo "=== $name: llmprof diff $*"
	(cd "$w" && "$B/llmprof" diff "$@" -o "diff-$name")
	echo "exit $?"
}
d noise e1 e2 --fail-above 2
d noise3 e1,e2 e3 --fail-above 2
d graph e1,e2,e3 g1 --fail-above 2
d gemm gemv cublas --fail-above 2
for r in e1 e2 e3 g1 gemv cublas; do
	f=$w/$r/trace/trace.sqlite
	[ -f "$f" ] && xz -6 -c "$f" >"$w/$r.sqlite.xz"
done
tar czf "$out/diff.tgz" -C "$w" --exclude='trace/log' --exclude='trace.sqlite' \
	$(cd "$w" && ls -d e1 e2 e3 g1 gemv cublas diff-* ./*.sqlite.xz 2>/dev/null)
ls -la "$w"/*.xz
rm -rf "$w"
