#!/usr/bin/env bash
# test-workloads.sh: llmprof-llm and llmprof-dummy on the CPU: summary line,
# known-answer tokens, analytic JSON, logits dump, flag errors and exit codes.
set -u
B=${LLMPROF_BUILD_DIR:?}/workloads
LLM=$B/llmprof-llm DUMMY=$B/llmprof-dummy
[ -x "$LLM" ] && [ -x "$DUMMY" ] || { echo "skip: workloads not built"; exit 77; }
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail() { echo "FAIL: $*"; exit 1; }

# Summary line: last line, key=value, known-answer tokens of tiny (seed 1234).
out=$("$LLM" --device cpu --prompt-len 16 --new-tokens 8) || fail "llm exit $?"
last=$(printf '%s\n' "$out" | tail -1)
echo "$last"
re='^llmprof-llm: model=tiny device=cpu dtype=fp32 batch=1 prompt=16 new=8 graph=0 prefill_ms=[0-9.]+ decode_ms=[0-9.]+ decode_steps=7 tokens_per_s=[0-9.]+ tokens=\[752,786,940,624,142,319,207,541\]$'
[[ $last =~ $re ]] || fail "summary line: $last"

# Deterministic across runs and thread counts; batch rows separated by ';'.
t1=$("$LLM" --device cpu --threads 1 --batch 2 --prompt-len 9 --new-tokens 4 | tail -1 | sed 's/.*tokens=//')
t2=$("$LLM" --device cpu --threads 2 --batch 2 --prompt-len 9 --new-tokens 4 | tail -1 | sed 's/.*tokens=//')
[ "$t1" = "$t2" ] || fail "tokens differ across thread counts: $t1 vs $t2"
re='^\[[0-9]+(,[0-9]+){3};[0-9]+(,[0-9]+){3}\]$'
[[ $t1 =~ $re ]] || fail "batch tokens: $t1"

# Analytic JSON parses and its prefill FLOPs match the hand count.
"$LLM" --device cpu --prompt-len 4 --new-tokens 3 --analytic-out "$T/a.json" >/dev/null || fail analytic
python3 - "$T/a.json" <<'PY' || fail "analytic json"
import json, sys
a = json.load(open(sys.argv[1]))
macs = 128*256 + 128*128 + 128*704 + 352*128
assert a["prefill"]["matmul_flops"] == 2*4*4*macs + 2*128*1024, a["prefill"]
assert a["prefill"]["attn_flops"] == 4*4*4*32*10
assert len(a["decode_steps"]) == 2 and a["decode_steps"][1]["kv_len"] == 6
assert a["decode"]["flops"] == sum(s["flops"] for s in a["decode_steps"])
assert a["model"]["params"] == 1000576
PY

# Logits dump: new * batch * vocab fp32 values.
"$LLM" --device cpu --batch 2 --prompt-len 5 --new-tokens 3 --dump-logits "$T/l.bin" >/dev/null || fail dump
[ "$(stat -c %s "$T/l.bin")" = $((3 * 2 * 1024 * 4)) ] || fail "dump size $(stat -c %s "$T/l.bin")"

# Bad input: one line on stderr, exit 2.
for args in "--bogus 1" "--hidden x" "--dtype int8" "--heads 3 --kv-heads 2" "--device tpu" \
	    "--prompt-len 2000 --new-tokens 100" "--layers" "--pdl 2" "--pdl x"; do
	err=$("$LLM" $args 2>&1 >/dev/null); rc=$?
	[ $rc = 2 ] || fail "'$args' exit $rc, want 2"
	[ "$(printf '%s\n' "$err" | wc -l)" = 1 ] || fail "'$args' stderr not one line: $err"
	[[ $err == llmprof-llm:\ error:* ]] || fail "'$args' message: $err"
done
# Asking for a GPU that is not there: exit 4 with a reason.
"$LLM" --device cuda --new-tokens 1 >/dev/null 2>"$T/e"; rc=$?
if [ $rc != 0 ]; then
	[ $rc = 4 ] || fail "--device cuda without GPU: exit $rc"
	grep -q "no usable CUDA device" "$T/e" || fail "no reason: $(cat "$T/e")"
fi
# Missing weights file: exit 5.
"$LLM" --device cpu --weights "$T/none.safetensors" >/dev/null 2>"$T/e"; rc=$?
[ $rc = 5 ] || fail "missing weights exit $rc"

# NVTX structure (LLMPROF_NVTX_LOG: every push as "<depth> <domain>@<name>"); the
# warm-up run must emit nothing, so counts are those of one run.
LLMPROF_NVTX_LOG="$T/r.log" "$LLM" --device cpu --prompt-len 4 --new-tokens 3 >/dev/null || fail "nvtx run"
count() { grep -c -x "$1" "$T/r.log"; }
[ "$(count '0 LLM@prefill')" = 1 ] || fail "prefill ranges: $(count '0 LLM@prefill')"
[ "$(count '0 LLM@decode_all')" = 1 ] || fail "decode_all ranges"
[ "$(count '1 LLM@decode_step')" = 2 ] || fail "decode_step ranges: $(count '1 LLM@decode_step')"
[ "$(count '1 LLM@attn.qkv')" = 4 ] || fail "attn.qkv in prefill: $(count '1 LLM@attn.qkv')"
[ "$(count '2 LLM@attn.qkv')" = 8 ] || fail "attn.qkv in decode steps: $(count '2 LLM@attn.qkv')"
for op in norm.attn attn.rope attn.sdpa attn.o norm.mlp mlp.up_gate mlp.act mlp.down; do
	[ "$(grep -c " LLM@$op\$" "$T/r.log")" = 12 ] || fail "$op count"
done
for op in embed norm.final lm_head sample; do
	[ "$(grep -c " LLM@$op\$" "$T/r.log")" = 3 ] || fail "$op count"
done
[ "$(wc -l < "$T/r.log")" = $((2 + 2 + 3 * (9 * 4 + 4))) ] || fail "total ranges $(wc -l < "$T/r.log")"
LLMPROF_NVTX_LOG="$T/r0.log" "$LLM" --device cpu --prompt-len 4 --new-tokens 0 >/dev/null || fail "nvtx run 0"
[ "$(wc -l < "$T/r0.log")" = $((1 + 9 * 4 + 1)) ] || fail "prefill-only ranges $(wc -l < "$T/r0.log")"
grep -q "lm_head\|decode" "$T/r0.log" && fail "prefill-only run has an LM head or decode ranges"
LLMPROF_NVTX_LOG="$T/d.log" "$DUMMY" --device cpu --batch 1 --size 4 >/dev/null || fail "dummy nvtx run"
printf '%s\n' "0 @stem" "0 @residual" "1 @block.conv1" "1 @block.conv2" "1 @block.conv1" \
	"1 @block.conv2" "1 @block.conv1" "1 @block.conv2" "0 @head" "0 @A" "1 @A::A1" "0 @B" >"$T/want"
diff "$T/want" "$T/d.log" || fail "dummy ranges"

# Dummy model: summary line, deterministic checksum.
d1=$("$DUMMY" --device cpu --batch 2 --size 8 | tail -1)
d2=$("$DUMMY" --device cpu --batch 2 --size 8 --warmup 0 | tail -1)
echo "$d1"
re='^llmprof-dummy: device=cpu batch=2 channels=32 size=8 blocks=3 forward_ms=[0-9.]+ checksum=[-+0-9.e]+ classes=\[[0-9],[0-9]\]$'
[[ $d1 =~ $re ]] || fail "dummy summary: $d1"
[ "${d1#*checksum=}" = "${d2#*checksum=}" ] || fail "dummy not deterministic"
"$DUMMY" --channels 0 2>/dev/null; [ $? = 2 ] || fail "dummy bad flag exit"
echo ok
