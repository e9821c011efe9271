#!/usr/bin/env bash
# Failure matrix, crafted inputs that used to hang or eat memory: a FIFO as
# every kind of input file (config.yaml through LLMPROF_CONF_DIR, a group
# file, the stats and report --trace input, --ncu-csv, a bundle's
# trace/trace.sqlite, config.yaml, status.json, env.json), a symlink to /dev/zero as config.yaml
# and --ncu-csv, an --ncu-csv over its 2 GiB cap, and an export whose kernel
# or string table is a recursive VIEW; a WAL-mode export and one beside a
# leftover journal read as they are. Each ends at once (timeout 10: 124 is a
# failure) with its documented exit code and one line naming the file.
set -u
. "$(dirname "$0")/failures-lib.sh"
src=${LLMPROF_SOURCE_DIR:?}
command -v sqlite3 >/dev/null || skip "sqlite3 CLI missing"
command -v mkfifo >/dev/null || skip "mkfifo missing"

# run RC REGEX CMD...: CMD within 10 s, with exit RC and a matching message
run() {
	local want=$1 re=$2 rc
	shift 2
	timeout 10 "$@" >out 2>err </dev/null
	rc=$?
	[ $rc -ne 124 ] || fail "'$*' still running after 10 s"
	expect "$want" $rc err "$re"
	[ "$(grep -c '^llmprof: error: ' err)" -le 1 ] || fail "'$*': more than one error line"
}

mkfifo fifo.sqlite fifo.csv
ln -s /dev/zero zero.csv

# 1. stats and report --trace on a FIFO; --ncu-csv a FIFO or /dev/zero
run 5 "^llmprof: error: 'fifo.sqlite' is a FIFO, not a regular file$" \
	"$LLMPROF" stats fifo.sqlite
run 5 "^llmprof: error: 'fifo.csv' is a FIFO, not a regular file$" \
	"$LLMPROF" stats fifo.csv
run 5 "^llmprof: error: report: analyze: 'fifo.sqlite' is a FIFO, not a regular file" \
	"$LLMPROF" report --trace fifo.sqlite -o r1
run 5 "^llmprof: error: report: 'fifo.csv' is a FIFO, not a regular file$" \
	"$LLMPROF" report --ncu-csv fifo.csv -o r2
run 5 "^llmprof: error: report: 'zero.csv' is a character device, not a regular file$" \
	"$LLMPROF" report --ncu-csv zero.csv -o r3
run 5 "^llmprof: error: 'zero.csv' is a character device, not a regular file$" \
	"$LLMPROF" stats zero.csv

# an Nsight Compute CSV over the 2 GiB cap (sparse: no disk used) is
# refused before it is read, in one line that names the cap and says why
truncate -s $((2 * 1024 * 1024 * 1024 + 1)) big.csv
run 5 "^llmprof: error: report: 'big.csv' is too large: 2147483649 bytes, over the 2 GiB an Nsight Compute CSV may have \(llmprof holds it in memory whole\); export fewer results or metrics$" \
	"$LLMPROF" report --ncu-csv big.csv -o r4
[ ! -e r4 ] || fail "report --ncu-csv of a CSV over the cap created its output folder"
# the same with a trace to join it to (the join step reads it)
out=$("$LLMPROF" report --trace "$src/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite" \
	--ncu-csv big.csv -o r5 2>&1)
echo "$out" | grep -q "'big.csv' is too large: 2147483649 bytes, over the 2 GiB an Nsight Compute CSV may have" ||
	fail "report --trace --ncu-csv of a CSV over the cap: $out"
rm big.csv

# 2. the configuration: config.yaml a FIFO or /dev/zero, a group file a FIFO
for kind in fifo zero group; do
	cp -r "$src/conf" "conf-$kind"
	case $kind in
	fifo) rm "conf-$kind/config.yaml" && mkfifo "conf-$kind/config.yaml"
	      f=conf-$kind/config.yaml what="a FIFO" ;;
	zero) rm "conf-$kind/config.yaml" && ln -s /dev/zero "conf-$kind/config.yaml"
	      f=conf-$kind/config.yaml what="a character device" ;;
	group) rm "conf-$kind/model/tiny.yaml" && mkfifo "conf-$kind/model/tiny.yaml"
	       f=conf-$kind/model/tiny.yaml what="a FIFO" ;;
	esac
	LLMPROF_CONF_DIR=$tmp/conf-$kind run 3 "'$tmp/$f' is $what, not a regular file$" \
		"$LLMPROF" profile --dry-run model=tiny -- /bin/true
done

# a config.yaml over the 16 MiB cap (sparse: no disk used) is refused
# without reading it
cp -r "$src/conf" conf-big
truncate -s 17M conf-big/config.yaml
LLMPROF_CONF_DIR=$tmp/conf-big run 3 "'$tmp/conf-big/config.yaml' is too large \(17825792 bytes; at most 16777216\)$" \
	"$LLMPROF" profile --dry-run -- /bin/true

# 3. a bundle whose trace/trace.sqlite, config.yaml, status.json or
# env.json is a FIFO
"$LLMPROF" profile artifacts.root="$tmp/b" -- /bin/true >out 2>/dev/null || fail "profile"
bundle=$(last_run out)
mkdir -p "$bundle/trace"
mkfifo "$bundle/trace/trace.sqlite"
run 5 "^llmprof: error: report: analyze: '$bundle/trace/trace.sqlite' is a FIFO, not a regular file" \
	"$LLMPROF" report "$bundle"
rm "$bundle/trace/trace.sqlite" "$bundle/config.yaml"
mkfifo "$bundle/config.yaml"
run 5 "^llmprof: error: report: '$bundle/config.yaml' is a FIFO, not a regular file$" \
	"$LLMPROF" report "$bundle"
rm "$bundle/config.yaml"
for f in status.json env.json; do
	mv "$bundle/$f" "$f.keep" && mkfifo "$bundle/$f"
	run 5 "^llmprof: error: report: '$bundle/$f' is a FIFO, not a regular file$" \
		"$LLMPROF" report "$bundle"
	rm "$bundle/$f" && mv "$f.keep" "$bundle/$f"
done

# 4. an export whose kernel table, or whose StringIds, is a recursive view
# that never ends: refused before any query runs
for t in CUPTI_ACTIVITY_KIND_KERNEL StringIds; do
	other=StringIds
	[ $t = StringIds ] && other=CUPTI_ACTIVITY_KIND_KERNEL
	sqlite3 "view-$t.sqlite" "
CREATE TABLE $other(id INTEGER, value TEXT);
CREATE VIEW $t AS WITH RECURSIVE r(n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r)
	SELECT n AS id, zeroblob(1000) AS value, n AS start, n AS end, n AS deviceId,
	       n AS streamId, n AS shortName, n AS demangledName FROM r;"
	run 5 "^llmprof: error: 'view-$t.sqlite': '$t' is a view, not a table; an export holds tables only$" \
		"$LLMPROF" stats "view-$t.sqlite"
	run 5 "^llmprof: error: report: analyze: 'view-$t.sqlite': '$t' is a view, not a table" \
		"$LLMPROF" report --trace "view-$t.sqlite" -o "rv-$t"
done

# 5. exports are opened immutable: a WAL-mode export in a read-only folder
# ("disk I/O error" before) and one beside a leftover journal ("attempt to
# write a readonly database" before) read like the original
F=$src/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite
[ -f "$F" ] || fail "fixture $F missing"
"$LLMPROF" stats "$F" >want.txt 2>err || fail "stats on the fixture: $(cat err)"
mkdir wal && cp "$F" wal/x.sqlite && chmod u+w wal/x.sqlite
sqlite3 wal/x.sqlite 'PRAGMA journal_mode=WAL;' >/dev/null || fail "sqlite3: WAL"
chmod a-w wal
timeout 10 "$LLMPROF" stats wal/x.sqlite >got.txt 2>err || fail "stats on a WAL-mode export: exit $?: $(cat err)"
chmod u+w wal
cmp -s want.txt got.txt || fail "stats on a WAL-mode export differs from the original"
cp "$F" j.sqlite && chmod u+w j.sqlite
printf 'a leftover journal, not one SQLite wrote' >j.sqlite-journal
timeout 10 "$LLMPROF" stats j.sqlite >got.txt 2>err || fail "stats beside a leftover journal: exit $?: $(cat err)"
cmp -s want.txt got.txt || fail "stats beside a leftover journal differs from the original"
cmp -s j.sqlite "$F" || fail "the export was changed"
echo "ok"
