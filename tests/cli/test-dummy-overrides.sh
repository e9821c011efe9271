#!/usr/bin/env bash
# workload=dummy has flags for device, infer.batch_size, workload.warmup and
# model.seed only: an override of another workload key (infer.prompt_len,
# the model shape) is said to be ignored, on the dry run and the real run,
# never silently dropped; keys it uses, and the llm workload, get no warning.
set -u
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
cd "$tmp" || exit 1

check() { # WHAT WANT_COUNT GREP ARGS...
	local what=$1 n=$2 pat=$3; shift 3
	"$LLMPROF" profile --dry-run "$@" >out 2>err
	rc=$?
	[ $rc -eq 0 ] || { echo "FAIL: $what: exit $rc: $(cat err)"; fail=1; return; }
	got=$(grep -c "^llmprof: warning: .* is ignored" err)
	[ "$got" -eq "$n" ] || { echo "FAIL: $what: $got ignored-warnings, want $n:"; cat err; fail=1; }
	[ -z "$pat" ] || grep -qF -- "$pat" err || { echo "FAIL: $what: no '$pat' in:"; cat err; fail=1; }
}
check "prompt_len" 1 "llmprof: warning: 'infer.prompt_len=64' is ignored: the dummy workload does not use infer.prompt_len (it takes only device, infer.batch_size, workload.warmup and model.seed)" \
	workload=dummy infer.prompt_len=64
check "model shape" 3 "'model=tiny' is ignored" \
	workload=dummy model=tiny model.hidden_size=64 infer.cuda_graph=true
check "keys it uses" 0 "" workload=dummy infer.batch_size=2 model.seed=7 workload.warmup=0 device=cpu
check "llm workload" 0 "" workload=llm infer.prompt_len=64 model=tiny
check "command workload" 0 "" infer.prompt_len=64 -- /bin/true
# the dry run shows what the dummy program really gets
"$LLMPROF" profile --dry-run workload=dummy infer.prompt_len=64 2>/dev/null | grep -q -- '--prompt-len' &&
	{ echo "FAIL: the dummy workload was given --prompt-len"; fail=1; }
exit $fail
