#!/usr/bin/env bash
# Failure matrix, storage: the disk fills up at every point of a run (a
# small tmpfs), a read-only artifacts root (a read-only mount, so it also
# holds for root, who ignores permission bits), and standard output that
# cannot be written (/dev/full). Expected: exit 7 with one clear line per
# failed write, earlier files intact, status.json never half written, no
# temporary file left.
#
# Mounting needs a private mount namespace: `unshare -m` as root, else
# `unshare -rm` (user namespace); without either the test is skipped.
set -u
if [ -z "${LLMPROF_FAIL_IO_NS:-}" ]; then
	for u in "unshare -m" "unshare -rm"; do
		d=$(mktemp -d)
		if $u sh -c "mount -t tmpfs -o size=8k tmpfs '$d'" 2>/dev/null; then
			rmdir "$d"
			LLMPROF_FAIL_IO_NS=1 exec $u bash "$0" "$@"
		fi
		rmdir "$d"
	done
	echo "SKIP: cannot mount a tmpfs here (neither 'unshare -m' nor 'unshare -rm' works)"
	exit 77
fi
. "$(dirname "$0")/failures-lib.sh"
trap 'grep -o " $tmp/[^ ]*" /proc/mounts | sort -r | xargs -r umount -l; rm -rf "$tmp"' EXIT
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=
F=${LLMPROF_SOURCE_DIR:?}/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite
[ -f "$F" ] || fail "fixture $F missing"

# bundle_intact RUN: whatever is in the bundle is whole (status.json may be
# stale, i.e. "running", when even it could not be rewritten)
bundle_intact() {
	python3 - "$1" <<'PY' || fail "bundle $1 damaged"
import json, os, sys, yaml
run = sys.argv[1]
st = json.load(open(os.path.join(run, "status.json")))
assert st["state"] in ("running", "failed", "ok"), st["state"]
for dp, dn, fn in os.walk(run):
    for f in fn:
        assert ".tmp." not in f, "temporary file left: " + os.path.join(dp, f)
        p = os.path.join(dp, f)
        if f.endswith(".json"):
            json.load(open(p))
        elif f.endswith(".yaml"):
            yaml.safe_load(open(p))
print(st["state"], st["exit_code"])
PY
}

# 1. the disk fills up at each point: before config.yaml, env.json,
# inputs.yaml, the step's files, and while the workload writes its log
n=0
for size in 4k 8k 12k 16k 20k 24k 64k; do
	mkdir -p "m$size"
	mount -t tmpfs -o size=$size tmpfs "m$size" || fail "mount tmpfs"
	"$LLMPROF" profile artifacts.root="$tmp/m$size/art" -- /bin/sh -c 'head -c 200000 /dev/zero' \
		>out 2>err
	rc=$?
	run=$(last_run out)
	[ -n "$run" ] || fail "disk full at $size: no 'run:' line (exit $rc): $(cat err)"
	state=$(bundle_intact "$run")
	case $rc in
	7) grep -Eq "^llmprof: error: cannot (write|create) '$run/[^']+': No space left on device$" err ||
		fail "disk full at $size: message: $(cat err)"
	   n=$((n + 1)) ;;
	1) # the workload itself could not write its log and failed
	   grep -q "^llmprof: error: workload: exited with status 1" err ||
		fail "disk full at $size: exit 1 without a workload failure: $(cat err)" ;;
	*) fail "disk full at $size: exit $rc: $(cat err)" ;;
	esac
	# what was written before the disk filled up is complete
	[ ! -e "$run/config.yaml" ] || "$LLMPROF" config show >cfg 2>/dev/null
	for f in config.yaml env.json inputs.yaml; do
		[ -e "$run/$f" ] && [ ! -s "$run/$f" ] && fail "disk full at $size: empty $f"
	done
	echo "disk full at $size: exit $rc, status.json: $state"
	umount "m$size"
done
[ $n -ge 4 ] || fail "only $n of the sizes ran out of space in llmprof's own writes"

# 1b. --echo: llmprof writes the log itself and cannot finish it: exit 7,
# never 0 (status.json stays "running", the bundle cannot be trusted)
mkdir -p echo && mount -t tmpfs -o size=64k tmpfs echo
"$LLMPROF" profile --echo artifacts.root="$tmp/echo/art" -- /bin/sh -c 'head -c 300000 /dev/zero' \
	>/dev/null 2>err
rc=$?
expect 7 $rc err "cannot write '.*status.json': No space left on device"
bundle_intact "$tmp/echo/art/latest" >/dev/null
[ "$(stat -c %s "$tmp"/echo/art/latest/logs/workload.out)" -gt 0 ] || fail "echo: log lost"
umount echo

# 1c. stats -o and report -o into a full disk: exit 7, no partial file
mkdir -p sfull && mount -t tmpfs -o size=4k tmpfs sfull
head -c 4096 /dev/zero >sfull/filler 2>/dev/null
"$LLMPROF" stats -r cuda_gpu_kern_sum,nvtx_sum -o "$tmp/sfull/s" "$F" >out 2>err
rc=$?
expect 7 $rc err "^llmprof: error: cannot write '$tmp/sfull/s_cuda_gpu_kern_sum.csv': No space left on device$"
ls sfull | grep -q '\.tmp\.' && fail "stats left a temporary file"
ls sfull | grep -q '^s_' && fail "stats left a partial report"
umount sfull

# 1d. the disk fills up before the trace step: trace.sqlite cannot be
# written, exit 7 (a write error), not 6 (a failed step); no temporary file
prog=${LLMPROF_BUILD_DIR:?}/tests/nvtx-test-program
if [ -x "$prog" ] && [ -f "$LLMPROF_BUILD_DIR/tracer/libllmprof_tracer.so" ]; then
	mkdir -p tfull && mount -t tmpfs -o size=1m tmpfs tfull
	# the program leaves 16 KiB: status.json still fits, SQLite's pages do not
	"$LLMPROF" profile artifacts.root="$tmp/tfull/art" -- /bin/sh -c "'$prog' >/dev/null &&
		head -c 2000000 /dev/zero >'$tmp/tfull/filler' 2>/dev/null; truncate -s -16k '$tmp/tfull/filler'" \
		>out 2>err
	rc=$?
	expect 7 $rc err "^llmprof: error: trace: .*(No space left on device|database or disk is full)"
	grep -q '"name": "trace",' "$tmp/tfull/art/latest/status.json" || fail "no trace step"
	bundle_intact "$tmp/tfull/art/latest" >/dev/null
	umount tfull
fi

# 1e. report --trace: trace.json that cannot be written is an error (7),
# not a warning with exit 0 (the reports before it are written)
mkdir -p rj/trace.json
"$LLMPROF" report --trace "$F" -o "$tmp/rj" >out 2>err
expect 7 $? err "^llmprof: error: report: cannot rename into '$tmp/rj/trace.json': Is a directory$"
[ -f rj/report.md ] || fail "report --trace: the reports before trace.json are lost"
ls rj | grep -q '\.tmp\.' && fail "report --trace left a temporary file"

# 2. read-only artifacts root: exit 7, nothing created
mkdir -p ro && mount -t tmpfs -o ro tmpfs ro
"$LLMPROF" profile artifacts.root="$tmp/ro/art" -- /bin/true >out 2>err
rc=$?
expect 7 $rc err "^llmprof: error: cannot create directory '$tmp/ro/art': Read-only file system$"
[ -z "$(ls -A ro)" ] || fail "read-only root: something was created"
[ -s out ] && fail "read-only root: printed '$(cat out)' although no bundle exists"
# ... an existing root that turned read-only
umount ro && mount -t tmpfs tmpfs ro && mkdir ro/art && mount -o remount,ro ro
"$LLMPROF" profile artifacts.root="$tmp/ro/art" -- /bin/true >out 2>err
rc=$?
expect 7 $rc err "^llmprof: error: cannot create run directory '$tmp/ro/art/[0-9-]+[0-9a-f]{4}': Read-only file system$"
"$LLMPROF" stats -r nvtx_sum -o "$tmp/ro/art/x" "$F" >out 2>err
expect 7 $? err "^llmprof: error: cannot (write|create) '$tmp/ro/art/x_nvtx_sum.csv.*Read-only file system$"
umount ro

# 3. standard output cannot be written
"$LLMPROF" stats -r nvtx_sum "$F" >/dev/full 2>err
expect 7 $? err "^llmprof: error: cannot write to standard output: No space left on device$"
"$LLMPROF" config show >/dev/full 2>err
expect 7 $? err "cannot write to standard output: No space left on device"
"$LLMPROF" profile artifacts.root="$tmp/full" -- /bin/echo hi >/dev/full 2>err
rc=$?
expect 7 $rc err "cannot write to standard output: No space left on device"
# the bundle itself is complete; status.json says the exit code llmprof
# gave (7), not the run's 0
check_bundle "$tmp/full/latest" ok 7
echo ok
