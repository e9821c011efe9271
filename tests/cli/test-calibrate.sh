#!/usr/bin/env bash
# test-calibrate.sh: `llmprof calibrate` with stand-in measuring tools (no GPU
# needed): stores the result per GPU model, and fails with the documented
# exit codes when there is no GPU (4), no tool (4), bad output (6) or a
# timeout (124).
set -euo pipefail
: "${LLMPROF:?}"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
export LLMPROF_CALIBRATION_DIR=$tmp/cal

fake() { # fake NAME BODY: an executable stand-in for llmprof-calibrate
	printf '#!/bin/sh\n%s\n' "$2" >"$tmp/$1"
	chmod +x "$tmp/$1"
}
expect() { # expect CODE CMD...: run, check the exit status
	local want=$1 got=0
	shift
	"$@" >"$tmp/out" 2>"$tmp/err" || got=$?
	if [ "$got" != "$want" ]; then
		echo "FAIL: '$*' exited $got, want $want"; cat "$tmp/out" "$tmp/err"; exit 1
	fi
}

fake ok 'echo "warming up" >&2
[ "$1" = "--device" ] && [ "$2" = "1" ] || { echo "bad argv: $*" >&2; exit 2; }
echo "{\"gpu\": \"NVIDIA H100 80GB HBM3\", \"sm_count\": 132, \"cc\": \"9.0\", \"gemm\": {\"tflops\": 798.2}, \"copy\": {\"gbs\": 3003.1, \"convention\": \"read+write\"}}"'
LLMPROF_CALIBRATE=$tmp/ok expect 0 "$LLMPROF" calibrate --device 1
grep -q 'bf16 GEMM 8192^3 798.2 TFLOP/s (80.7% of the 989.4 TFLOP/s dense datasheet peak)' "$tmp/out"
grep -q 'device copy 3003 GB/s read+write (89.6% of 3350 GB/s)' "$tmp/out"
stored=$LLMPROF_CALIBRATION_DIR/NVIDIA_H100_80GB_HBM3.json
grep -q "stored: $stored" "$tmp/out"
grep -q '"tflops": 798.2' "$stored"
grep -q '"created_at": "20' "$stored"

# --no-store measures without writing
rm -f "$stored"
LLMPROF_CALIBRATE=$tmp/ok expect 0 "$LLMPROF" calibrate -d 1 --no-store
[ ! -e "$stored" ] || { echo "FAIL: --no-store wrote $stored"; exit 1; }

# no GPU, or a driver CUDA cannot use: one line saying so, CUDA's words as
# the detail (no NVML, no nvidia-smi: nothing is printed before it)
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=
one_line() { # one_line WANT: stderr is exactly that line
	if [ "$(cat "$tmp/err")" != "$1" ]; then
		echo "FAIL: stderr is not '$1':"; cat "$tmp/err"; exit 1
	fi
}
fake nogpu 'echo "llmprof-calibrate: no usable CUDA device: no devices" >&2; exit 3'
LLMPROF_CALIBRATE=$tmp/nogpu expect 4 "$LLMPROF" calibrate
one_line 'llmprof: error: calibrate: no usable GPU: no NVIDIA GPU with a working driver was found (CUDA: no devices)'
fake olddriver 'echo "llmprof-calibrate: no usable CUDA device: CUDA driver version is insufficient for CUDA runtime version" >&2; exit 3'
LLMPROF_CALIBRATE=$tmp/olddriver expect 4 "$LLMPROF" calibrate
one_line 'llmprof: error: calibrate: no usable GPU: no NVIDIA GPU with a working driver was found (CUDA: CUDA driver version is insufficient for CUDA runtime version)'

LLMPROF_CALIBRATE=$tmp/missing expect 4 "$LLMPROF" calibrate
one_line "llmprof: error: calibrate: llmprof-calibrate is not installed: LLMPROF_CALIBRATE='$tmp/missing' is not an executable file (point LLMPROF_CALIBRATE at the llmprof-calibrate file, or unset it)"

fake garbage 'echo "not json"'
LLMPROF_CALIBRATE=$tmp/garbage expect 6 "$LLMPROF" calibrate
grep -q 'llmprof-calibrate output:1:' "$tmp/err"

fake crash 'echo "cublas failed" >&2; exit 1'
LLMPROF_CALIBRATE=$tmp/crash expect 6 "$LLMPROF" calibrate
grep -q 'exited with status 1: cublas failed' "$tmp/err"

fake slow 'sleep 30'
LLMPROF_CALIBRATE=$tmp/slow expect 124 "$LLMPROF" calibrate --timeout 1

expect 2 "$LLMPROF" calibrate extra-arg

# the real tool, where it was built, on a machine without a GPU
real=$(dirname "$LLMPROF")/llmprof-calibrate
if [ -x "$real" ] && ! command -v nvidia-smi >/dev/null; then
	env -u LLMPROF_CALIBRATE "$LLMPROF" calibrate >"$tmp/out" 2>"$tmp/err" && {
		echo "FAIL: calibrate succeeded without a GPU"; exit 1; } || code=$?
	[ "$code" = 4 ] || { echo "FAIL: real tool without GPU exited $code"; cat "$tmp/err"; exit 1; }
	[ "$(wc -l <"$tmp/err")" = 1 ] &&
		grep -Eqx 'llmprof: error: calibrate: no usable GPU: no NVIDIA GPU with a working driver was found \(CUDA: .+\)' "$tmp/err" ||
		{ echo "FAIL: real tool without GPU:"; cat "$tmp/err"; exit 1; }
fi
echo ok
