#!/usr/bin/env bash
# `llmprof doctor`: truthful lines with no GPU, the ok/warn/fail format
# with a fix for every problem, tools found on PATH, and exit codes.
set -u
: "${LLMPROF:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-doctor.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

check_format() {
	awk '
		/^(ok|warn|fail)  [^:]+: ./ { need_fix = ($1 != "ok"); next }
		/^      fix: ./ { if (!need_fix) { print "fix without a problem: " $0; exit 1 } need_fix = 0; next }
		{ print "bad line: " $0; exit 1 }
		END { if (need_fix) { print "problem without a fix"; exit 1 } }' "$1" || fail "format of $1"
}

# no GPU, whatever this machine has
LLMPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 LLMPROF_NVIDIA_SMI=/nonexistent/nvidia-smi \
PATH=/usr/bin:/bin "$LLMPROF" doctor >out 2>err
rc=$?
[ $rc -eq 0 ] || fail "doctor without GPU: exit $rc, want 0 ($(cat err))"
check_format out
grep -q '^ok    conf: ' out || fail "conf not ok"
grep -q '^warn  gpu: no NVIDIA GPU found: NVML: cannot load /nonexistent/libnvidia-ml.so.1' out ||
	fail "gpu line: $(grep gpu out)"
grep -q 'nvidia-smi: not found' out || fail "nvidia-smi reason missing"
grep -q '^warn  ncu counters: not checked without a GPU$' out || fail "counters line"
grep -q "^warn  ncu: 'ncu' not found on PATH$" out || fail "ncu line: $(grep ncu out)"
grep -q "^warn  nsys: 'nsys' not found on PATH$" out || fail "nsys line"

# tools found on PATH, with their versions; nsys with and without importer
mkdir -p "$tmp/bin" "$tmp/nsys/target" "$tmp/nsys/host"
printf '#!/bin/sh\necho "NVIDIA (R) Nsight Compute Command Line Profiler"\necho "Version 2099.1.0.0 (build 1)"\n' >"$tmp/bin/ncu"
printf '#!/bin/sh\necho "NVIDIA Nsight Systems version 2099.2.1"\n' >"$tmp/nsys/target/nsys"
chmod +x "$tmp/bin/ncu" "$tmp/nsys/target/nsys"
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= PATH="$tmp/bin:$tmp/nsys/target:/usr/bin:/bin" \
	"$LLMPROF" doctor >out 2>err || fail "doctor with tools"
check_format out
grep -qx "ok    ncu: $tmp/bin/ncu (2099.1.0.0 (build 1))" out || fail "ncu: $(grep ncu out)"
grep -qx "ok    nsys: $tmp/nsys/target/nsys (2099.2.1)" out || fail "nsys: $(grep nsys out)"
grep -q '^warn  nsys importer: no QdstrmImporter' out || fail "importer should be missing"
printf '#!/bin/sh\n' >"$tmp/nsys/host/QdstrmImporter"
chmod +x "$tmp/nsys/host/QdstrmImporter"
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= PATH="$tmp/bin:$tmp/nsys/target:/usr/bin:/bin" \
	"$LLMPROF" doctor >out 2>err || fail "doctor with importer"
grep -q "^ok    nsys importer: $tmp/nsys/target/../host/QdstrmImporter$" out ||
	fail "importer: $(grep importer out)"

# a broken ncu is a warning that says what happened
printf '#!/bin/sh\nexit 3\n' >"$tmp/bin/ncu"
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= PATH="$tmp/bin:/usr/bin:/bin" "$LLMPROF" doctor >out 2>err
grep -qx "warn  ncu: '$tmp/bin/ncu --version' exited with status 3" out || fail "broken ncu: $(grep ncu out)"

# this machine as it is: a GPU line either way, never both
"$LLMPROF" doctor >out 2>err || fail "plain doctor failed: $(cat err)"
check_format out
if grep -q '^ok    gpu 0: ' out; then
	grep -q '^warn  gpu: no NVIDIA GPU' out && fail "GPU both found and missing"
else
	grep -q '^warn  gpu: no NVIDIA GPU found: ' out || fail "no gpu line"
fi

# a broken conf folder is the one fatal problem
"$LLMPROF" doctor --conf-dir "$tmp/noconf" >out 2>err
rc=$?
[ $rc -eq 3 ] || fail "bad conf: exit $rc, want 3"
grep -q "^fail  conf: $tmp/noconf: " out || fail "conf fail line: $(head -2 out)"
"$LLMPROF" doctor extra >/dev/null 2>&1; [ $? -eq 2 ] || fail "extra argument accepted"
echo ok
