#!/usr/bin/env bash
# llmprof stats FILE.nsys-rep: exported with `nsys export --type sqlite` (found on
# PATH like everywhere else in llmprof) to FILE.sqlite beside the report, as nsys
# stats does; an export newer than the report is reused, a stale one replaced;
# a failing export is exit 6 with one line and leaves no file. A stand-in nsys
# (it "exports" the H100 fixture) makes this run anywhere; NVIDIA's nsys, when
# the oracle is there, then exports tests/data/nsys/nvtx-cpu-gate-stop.nsys-rep
# for real and both must print what `nsys stats` prints.
set -u
src=${LLMPROF_SOURCE_DIR:?}
data=$src/tests/data/nsys
tmp=$(mktemp -d); trap 'chmod -R u+w "$tmp"; rm -rf "$tmp"' EXIT
fail=0
h100=$data/nvtx-probe-h100-nsys2025.3.sqlite
mkdir "$tmp/bin" "$tmp/work"
. "$src/tests/cli/fake-nsys-lib.sh"
fake_nsys "$tmp/bin" "$h100" "$tmp/nsys.log"
rep=$tmp/work/run.nsys-rep
cp "$data/nvtx-cpu-gate-stop.nsys-rep" "$rep"
"$LLMPROF" stats -f csv -r nvtx_gpu_proj_sum,cuda_api_sum "$h100" >"$tmp/want" 2>/dev/null
runit() { PATH=$tmp/bin:$PATH "$LLMPROF" stats -f csv -r nvtx_gpu_proj_sum,cuda_api_sum "$@" >"$tmp/out" 2>"$tmp/err"; }

# 1. first run: exports beside the report, under a temporary name renamed when whole
runit "$rep" || { echo "FAIL: stats run.nsys-rep: $(cat "$tmp/err")"; fail=1; }
cmp -s "$tmp/want" "$tmp/out" || { echo "FAIL: output of the export differs"; diff "$tmp/want" "$tmp/out" | head -5; fail=1; }
grep -qx "Generating SQLite file $tmp/work/run.sqlite from $rep" "$tmp/err" || { echo "FAIL: no 'Generating' line: $(cat "$tmp/err")"; fail=1; }
cmp -s "$h100" "$tmp/work/run.sqlite" || { echo "FAIL: no run.sqlite beside the report"; fail=1; }
grep -Eqx "export\|--type\|sqlite\|--force-overwrite\|true\|--quiet\|true\|-o\|$tmp/work/run\.tmp\.[0-9]+\.sqlite\|$rep" "$tmp/nsys.log" ||
	{ echo "FAIL: nsys argv: $(cat "$tmp/nsys.log")"; fail=1; }
[ "$(ls "$tmp/work")" = "$(printf 'run.nsys-rep\nrun.sqlite')" ] || { echo "FAIL: files left: $(ls "$tmp/work")"; fail=1; }
# 2. an export newer than the report is reused: nsys is not run again
n=$(wc -l <"$tmp/nsys.log")
runit "$rep" && cmp -s "$tmp/want" "$tmp/out" || { echo "FAIL: reuse: $(cat "$tmp/err")"; fail=1; }
[ "$(wc -l <"$tmp/nsys.log")" -eq "$n" ] || { echo "FAIL: up-to-date export was not reused"; fail=1; }
[ ! -s "$tmp/err" ] || { echo "FAIL: reuse said: $(cat "$tmp/err")"; fail=1; }
# 3. a report newer than its export: exported again
touch -d '+1 minute' "$rep"
runit "$rep" || fail=1
[ "$(wc -l <"$tmp/nsys.log")" -gt "$n" ] || { echo "FAIL: stale export was reused"; fail=1; }
# 4. the export fails: exit 6, one line, the old export and no temporary file left
touch -d '+2 minutes' "$rep"
FAKE_NSYS_FAIL=1 runit "$rep"
rc=$?
[ $rc -eq 6 ] && [ "$(wc -l <"$tmp/err")" -eq 2 ] && grep -q "^llmprof: error: stats: cannot export '$rep': " "$tmp/err" ||
	{ echo "FAIL: failing export: exit $rc: $(cat "$tmp/err")"; fail=1; }
[ ! -s "$tmp/out" ] || { echo "FAIL: failing export printed a report"; fail=1; }
[ "$(ls "$tmp/work")" = "$(printf 'run.nsys-rep\nrun.sqlite')" ] || { echo "FAIL: files left: $(ls "$tmp/work")"; fail=1; }
# 5. no such report: exit 5, as for a missing export
runit "$tmp/work/none.nsys-rep"
rc=$?
[ $rc -eq 5 ] && grep -qx "llmprof: error: cannot open '$tmp/work/none.nsys-rep': No such file or directory" "$tmp/err" ||
	{ echo "FAIL: missing report: exit $rc: $(cat "$tmp/err")"; fail=1; }
# 6. a folder we cannot write: the export goes to a temporary folder, removed
# after (as root, which writes anywhere, the run is made as user nobody)
asuser=
if [ "$(id -u)" -eq 0 ] && command -v setpriv >/dev/null; then
	asuser="setpriv --reuid=65534 --regid=65534 --clear-groups"
	chmod 755 "$tmp" "$tmp/bin"
	chmod 666 "$tmp/nsys.log"
	$asuser test -x "$LLMPROF" -a -r "$h100" || asuser=none
fi
if [ "$(id -u)" -eq 0 ] && [ "${asuser:-none}" = none ]; then
	echo "note: root without setpriv (or nobody cannot run llmprof): the read-only folder case is not checked"
else
	mkdir "$tmp/ro" "$tmp/t" && cp "$rep" "$tmp/ro/r.nsys-rep" && chmod 555 "$tmp/ro" && chmod 777 "$tmp/t"
	$asuser env PATH="$tmp/bin:$PATH" TMPDIR="$tmp/t" "$LLMPROF" stats -f csv -r nvtx_gpu_proj_sum,cuda_api_sum \
		"$tmp/ro/r.nsys-rep" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 0 ] && cmp -s "$tmp/want" "$tmp/out" || { echo "FAIL: read-only folder: exit $rc: $(cat "$tmp/err")"; fail=1; }
	grep -q "^Generating SQLite file $tmp/t/llmprof-stats-[^/]*/r.sqlite from $tmp/ro/r.nsys-rep$" "$tmp/err" ||
		{ echo "FAIL: read-only folder: $(cat "$tmp/err")"; fail=1; }
	[ "$(ls "$tmp/ro")" = r.nsys-rep ] || { echo "FAIL: wrote into a read-only folder"; fail=1; }
	[ -z "$(ls "$tmp/t")" ] || { echo "FAIL: temporary export left: $(ls -R "$tmp/t")"; fail=1; }
fi

# 7. NVIDIA's nsys exports the real report; both print what nsys stats prints
oracle=$(bash "$src/scripts/nsight-cli-oracle.sh" 2>/dev/null) && eval "$oracle"
if [ -x "${NSYS:-}" ]; then
	mkdir "$tmp/real" && cp "$data/nvtx-cpu-gate-stop.nsys-rep" "$tmp/real/a.nsys-rep"
	(cd "$tmp/real" && PATH=$(dirname "$NSYS"):$PATH LC_ALL=C "$LLMPROF" stats -f column -r nvtx_sum a.nsys-rep) >"$tmp/ours" 2>"$tmp/err" ||
		{ echo "FAIL: real export: $(cat "$tmp/err")"; fail=1; }
	cp "$data/nvtx-cpu-gate-stop.nsys-rep" "$tmp/real/b.nsys-rep"
	(cd "$tmp/real" && LC_ALL=C "$NSYS" stats -f column -r nvtx_sum b.nsys-rep) 2>/dev/null |
		grep -v -e '^Processing \[' -e '^Generating SQLite file' >"$tmp/theirs"
	cmp -s "$tmp/theirs" "$tmp/ours" || { echo "FAIL: real export differs from nsys stats:"; diff "$tmp/theirs" "$tmp/ours" | head; fail=1; }
	grep -q 'LLM:decode_all' "$tmp/ours" || { echo "FAIL: real export: $(cat "$tmp/ours")"; fail=1; }
else
	echo "note: no nsys oracle: the real export is not checked"
fi
exit $fail
