#!/usr/bin/env bash
# An external program profiled with a model preset gets the analytic
# FLOPs/bytes of that preset (workload/analytic.json, the built-in LLM's
# formulas), so its reports can state MFU and MBU; without model= none is
# guessed.
set -euo pipefail
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LLMPROF" profile artifacts.root="$tmp/a" model=llama-3.2-1b infer.prompt_len=128 \
	infer.max_new_tokens=32 pipeline.ncu.enable=false pipeline.trace.backend=builtin \
	-- /bin/true >"$tmp/out" 2>"$tmp/err" || { cat "$tmp/err"; fail "profile exit $?"; }
run=$(sed -n 's/^run: //p' "$tmp/out")
python3 - "$run/workload/analytic.json" <<'PY' || fail "analytic.json"
import json, sys
d = json.load(open(sys.argv[1]))
m, r = d["model"], d["run"]
assert m["name"] == "llama-3.2-1b" and m["params"] == 1235814400, m
assert (r["batch"], r["prompt_len"], r["new_tokens"], r["decode_steps"]) == (1, 128, 32, 31), r
PY

"$LLMPROF" profile artifacts.root="$tmp/b" pipeline.ncu.enable=false \
	pipeline.trace.backend=builtin -- /bin/true >"$tmp/out" 2>"$tmp/err" || fail "profile (no model)"
run=$(sed -n 's/^run: //p' "$tmp/out")
[ ! -e "$run/workload/analytic.json" ] || fail "analytic.json written without a model preset"
# a shape the formulas refuse: a one-line warning, no file, the run goes on
"$LLMPROF" profile artifacts.root="$tmp/c" model=llama-3.2-1b model.num_kv_heads=7 \
	pipeline.ncu.enable=false pipeline.trace.backend=builtin -- /bin/true >"$tmp/out" 2>"$tmp/err" ||
	fail "profile (bad shape) exit $?"
grep -q "^llmprof: warning: no analytic FLOPs/bytes for MFU/MBU: .*heads must be a multiple of kv_heads" \
	"$tmp/err" || fail "bad-shape warning: $(cat "$tmp/err")"
run=$(sed -n 's/^run: //p' "$tmp/out")
[ ! -e "$run/workload/analytic.json" ] || fail "analytic.json written for a refused shape"
[ -s "$run/report.md" ] || fail "reports missing after a refused shape"
echo ok
