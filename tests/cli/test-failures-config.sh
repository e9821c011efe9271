#!/usr/bin/env bash
# Failure matrix, absurd configuration values: out of range, wrong type,
# overflowing, NaN/inf, huge strings, unknown keys. Every one is exit 3 with
# one line naming the key, the value and the override, and nothing is
# created; a huge artifacts.root that passes the schema fails at mkdir
# with exit 7.
set -u
. "$(dirname "$0")/failures-lib.sh"
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=
fail() { echo "FAIL: $*" | head -c 2000 >&2; echo >&2; exit 1; }

# ov MESSAGE-REGEX OVERRIDE: profile exits 3 with that message, creates nothing
ov() {
	local re=$1
	shift
	"$LLMPROF" profile artifacts.root="$tmp/never" "$@" -- /bin/true >out 2>err
	expect 3 $? err "^llmprof: error: $re"
	[ "$(grep -c . err)" = 1 ] || fail "$*: more than one line: $(cat err)"
	[ ! -e "$tmp/never" ] || fail "$*: a bundle root was created"
	[ -s out ] && fail "$*: printed '$(cat out)'"
	return 0
}
ov "config key 'run.top_n_kernels' must be in \[1, 100000\], got '-1' \(override 'run.top_n_kernels=-1'\)$" \
	run.top_n_kernels=-1
ov "config key 'infer.batch_size' expects an integer, got '1e12'" infer.batch_size=1e12
ov "config key 'infer.batch_size' must be in \[1, 4096\], got '1000000000000'" infer.batch_size=1000000000000
ov "config key 'run.timeout_s' must be in \[0, 10000000\], got '-5'" run.timeout_s=-5
ov "config key 'run.timeout_s' must be in \[0, 10000000\], got '1e300'" run.timeout_s=1e300
ov "config key 'run.timeout_s' must be in \[0, 10000000\], got '.inf'" run.timeout_s=.inf
ov "config key 'run.timeout_s' expects a number, got 'nan'" run.timeout_s=nan
ov "override 'infer.prompt_len=99999999999999999999': integer '99999999999999999999' does not fit in 64 bits$" \
	infer.prompt_len=99999999999999999999
ov "config key 'run.top_n_kernels' expects an integer, got '\[1, 2\]'" "run.top_n_kernels=[1,2]"
ov "config key 'infer.dtype' expects one of bf16\|fp16\|fp32, got 'fp3'" infer.dtype=fp3
ov "config key 'run.stage' expects one of prefill\|decode\|decode_step\|all, got 'bogus' \(override 'run.stage=bogus'\)$" \
	run.stage=bogus
ov "unknown config key 'run.tmeout_s'; did you mean 'run.timeout_s'\?" run.tmeout_s=1
ov "override '\+run.timeout_s=1': config key 'run.timeout_s' already exists" +run.timeout_s=1
# a 100 KB value (the kernel allows 128 KiB per argument) and a 64 KiB key: rejected in one line, not echoed whole
big=$(head -c 100000 /dev/zero | tr '\0' 7)
ov "override 'infer.batch_size=7+': integer '7+' does not fit in 64 bits$" "infer.batch_size=$big"
[ "$(wc -c <err)" -lt 210000 ] || fail "a 100 KB value echoed more than twice"
key=$(head -c 65536 /dev/zero | tr '\0' k)
ov "unknown config key" "run.$key=1"
# control characters and invalid UTF-8 in a value are escaped in the message
ov "override 'infer.dtype=a\\\\nb\\\\x1b\\[31m.*': not valid UTF-8 at byte 21$" "infer.dtype=$(printf 'a\nb\033[31m\xff')"
grep -q $'\033' err && fail "an escape sequence reached the terminal"
ov "config key 'infer.dtype' expects one of bf16\\|fp16\\|fp32, got 'a\\\\nb\\\\x1b\\[31m'" "infer.dtype=$(printf 'a\nb\033[31m')"

# run.stage is checked when the config loads, before the built-in workload
# runs: not by the select step after it
"$LLMPROF" profile artifacts.root="$tmp/never" run.stage=decode_all >out 2>err
expect 3 $? err "^llmprof: error: config key 'run.stage' expects one of prefill\|decode\|decode_step\|all, got 'decode_all' \(override 'run.stage=decode_all'\)$"
[ "$(grep -c . err)" = 1 ] || fail "run.stage: more than one line: $(cat err)"
[ ! -e "$tmp/never" ] || fail "run.stage: a bundle root was created"
"$LLMPROF" profile --dry-run run.stage=bogus >out 2>err
expect 3 $? err "^llmprof: error: config key 'run.stage' expects one of"

# a long artifacts.root passes the schema and fails at mkdir: exit 7
long=$tmp/$(head -c 5000 /dev/zero | tr '\0' a)
"$LLMPROF" profile "artifacts.root=$long" -- /bin/true >out 2>err
expect 7 $? err "^llmprof: error: cannot create directory '.*': File name too long$"
# and a long model name with the command workload is only recorded
"$LLMPROF" profile artifacts.root="$tmp/m" "model.name=$(head -c 5000 /dev/zero | tr '\0' m)" \
	-- /bin/true >out 2>err
rc=$?
[ $rc -eq 0 ] || [ $rc -eq 3 ] || fail "long model.name: exit $rc: $(head -c 300 err)"
[ $rc -eq 0 ] && check_bundle "$(last_run out)" ok 0
echo ok
