#!/usr/bin/env bash
# Failure matrix, inputs to stats and report: missing, a directory, empty,
# not SQLite, truncated at many points, bytes flipped, a kern_sum CSV cut
# inside a quoted name, a bundle without a trace; and kernel and range
# names over 4 KB (up to 64 KB) carried whole into every output. A bad
# input gives exit 5 and one line naming the file; nothing crashes.
set -u
. "$(dirname "$0")/failures-lib.sh"
data=${LLMPROF_SOURCE_DIR:?}/tests/data
F=$data/nsys/nvtx-probe-h100-nsys2025.3.sqlite
[ -f "$F" ] || fail "fixture $F missing"

# 1. not there, a directory, empty, not SQLite
"$LLMPROF" stats /nonexistent.sqlite >out 2>err
expect 5 $? err "^llmprof: error: cannot open '/nonexistent.sqlite': No such file or directory$"
"$LLMPROF" stats "$tmp" >out 2>err
expect 5 $? err "^llmprof: error: '$tmp' is a directory, not an SQLite export$"
: >empty.sqlite
"$LLMPROF" stats empty.sqlite >out 2>err
expect 5 $? err "^llmprof: error: 'empty.sqlite' is empty, not an SQLite export$"
"$LLMPROF" report --trace empty.sqlite -o r >out 2>err
expect 5 $? err "^llmprof: error: report: analyze: 'empty.sqlite' is empty, not an SQLite export \(the reports say so\)$"
head -n 1 r/report.md | grep -q "^# Profiling report: INCOMPLETE (step 'analyze' failed)" ||
	fail "report on an empty file: report.md does not say it is incomplete"
head -c 3000 /dev/urandom >rand.sqlite
"$LLMPROF" stats rand.sqlite >out 2>err
expect 5 $? err "^llmprof: error: 'rand.sqlite' is not a readable SQLite database: "
sqlite3 other.sqlite 'CREATE TABLE t(x); INSERT INTO t VALUES (1);'
"$LLMPROF" stats other.sqlite >out 2>err
expect 5 $? err "^llmprof: error: 'other.sqlite' is an SQLite file but not an nsys or llmprof trace export$"

# 2. truncated at many points: exit 5 with a one-line reason, always (a cut
# inside the last page used to read as a smaller export, exit 0 with other
# numbers: the header says how long the file is); with bytes flipped: exit
# 0 (the damage missed what is read) or 5; never anything else, and stdout
# holds no partial report on exit 5
size=$(stat -c %s "$F")
n5=0
for cut in 0 100 512 4096 65536 100000 $((size / 2)) $((size - 4096)) $((size - 1)); do
	head -c $cut "$F" >cut.sqlite
	for cmd in stats report; do
		if [ $cmd = stats ]; then
			"$LLMPROF" stats cut.sqlite >out 2>err
		else
			"$LLMPROF" report --trace cut.sqlite -o "rep$cut" >out 2>err
		fi
		rc=$?
		case $rc in
		5) [ "$(grep -c '^llmprof: error: ' err)" = 1 ] || fail "$cmd cut $cut: $(cat err)"
		   [ $cut -eq 0 ] || grep -q "'cut.sqlite' is truncated: $cut bytes" err ||
			fail "$cmd cut $cut: $(cat err)"
		   grep -q "cut.sqlite" err || fail "$cmd cut $cut: message does not name the file"
		   [ $cmd = report ] || [ ! -s out ] || fail "stats cut $cut: partial output on exit 5"
		   n5=$((n5 + 1)) ;;
		*) fail "$cmd on a file cut at $cut: exit $rc: $(cat err)" ;;
		esac
	done
done
[ $n5 -eq 18 ] || fail "only $n5 truncations were noticed"
for off in 100 1000 5000 20000 60000 120000 200000 300000 400000 500000; do
	cp "$F" flip.sqlite && chmod u+w flip.sqlite
	printf '\xff\x00\xff\x7f' | dd of=flip.sqlite bs=1 seek=$off conv=notrunc 2>/dev/null
	"$LLMPROF" stats flip.sqlite >out 2>err
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 5 ] || fail "stats, bytes flipped at $off: exit $rc: $(cat err)"
	"$LLMPROF" report --trace flip.sqlite -o flip >out 2>err
	rc=$?
	[ $rc -eq 0 ] || [ $rc -eq 5 ] || fail "report, bytes flipped at $off: exit $rc: $(cat err)"
	ls flip 2>/dev/null | grep -q '\.tmp\.' && fail "report left a temporary file"
done

# 3. an nsys stats CSV cut inside a quoted kernel name
C=$data/nsys/stats-csv/dsocr-rtx5090-decode.cuda_gpu_kern_sum.csv
head -c 3000 "$C" >cut.csv
"$LLMPROF" report --trace cut.csv -o csvrep >out 2>err
expect 5 $? err "^llmprof: error: (report: analyze: )?cut.csv:9: a quoted field is not closed \(truncated file\?\)"
printf 'garbage,"x\n' >bad.csv
"$LLMPROF" report --trace bad.csv -o csvrep >out 2>err
expect 5 $? err "^llmprof: error: (report: analyze: )?bad.csv: not an nsys cuda_gpu_kern_sum CSV"

# 3b. an ncu raw page cut anywhere: exit 5 naming file:line, or (cut at a
# line end) the rows before it
R=$data/ncu/mathkernels-gtx1660ti-ncu2022.4.raw-base.csv
[ -f "$R" ] || fail "fixture $R missing"
head -c 0 "$R" >n.csv
"$LLMPROF" report --ncu-csv n.csv -o ni >out 2>err
expect 5 $? err "^llmprof: error: report: n.csv: empty file, no CSV header$"
head -c 2000 "$R" >n.csv
"$LLMPROF" report --ncu-csv n.csv -o ni >out 2>err
expect 5 $? err "^llmprof: error: report: n.csv:1:[0-9]+: unterminated quoted field$"
head -c 15000 "$R" >n.csv
"$LLMPROF" report --ncu-csv n.csv -o ni >out 2>err
expect 5 $? err "^llmprof: error: report: n.csv:4: the last row has 21 of 279 fields and no line end \(truncated file\?\)$"
# a short row in the middle (a line end after it, rows after it) is as
# damaged as a long one: never a row of empty cells
awk 'NR == 4 { print "\"0\",\"k\""; next } { print }' "$R" >n.csv
"$LLMPROF" report --ncu-csv n.csv -o nshort >out 2>err
expect 5 $? err "^llmprof: error: report: n.csv:4: row has 2 fields, the header 279$"
[ ! -e nshort/kernels.md ] || fail "a short ncu row gave kernels.md"
# cut inside its header, right after a field: it read as a header of 17
# fields and no rows ("ncu profiled nothing", exit 0)
python3 -c 'import sys; d = open(sys.argv[1], "rb").read(); sys.stdout.buffer.write(d[:d.index(b"\",\"", 300) + 2])' "$R" >n.csv
"$LLMPROF" report --ncu-csv n.csv -o nhead >out 2>err
expect 5 $? err "^llmprof: error: report: n.csv:1: the header has 17 fields and no line end \(truncated file\?\)$"
# the kernel duration in a unit llmprof does not know (it was read as ns),
# or below zero: exit 5 naming it; a known unit (usecond) is converted
ncu_dur() { # ncu_dur ROW VALUE: that cell of gpu__time_duration.sum changed
	python3 - "$R" "$1" "$2" <<'PY' >n.csv
import csv, sys
rows = list(csv.reader(open(sys.argv[1], newline="")))
rows[int(sys.argv[2])][rows[0].index("gpu__time_duration.sum")] = sys.argv[3]
csv.writer(sys.stdout, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(rows)
PY
}
ncu_dur 1 furlong
"$LLMPROF" report --ncu-csv n.csv -o nunit >out 2>err
expect 5 $? err "^llmprof: error: report: n.csv: gpu__time_duration.sum is in 'furlong', not a time unit llmprof knows$"
ncu_dur 3 -1500
"$LLMPROF" report --ncu-csv n.csv -o nneg >out 2>err
expect 5 $? err "^llmprof: error: report: n.csv:4: gpu__time_duration.sum is -1500 ns, below zero$"
ncu_dur 1 usecond
"$LLMPROF" report --ncu-csv n.csv -o nus >out 2>err || fail "a duration in usecond: $(cat err)"
for cut in 5000 12000 17000 19000; do
	head -c $cut "$R" >n.csv
	"$LLMPROF" report --ncu-csv n.csv -o "ni$cut" >out 2>err
	rc=$?
	[ $rc -eq 5 ] || fail "report --ncu-csv on a raw page cut at $cut: exit $rc: $(cat err)"
done

# 4. report on a bundle: without a trace (reports say what is missing),
# with status.json gone, damaged, or empty
"$LLMPROF" profile artifacts.root="$tmp/b" -- /bin/true >out 2>/dev/null || fail "profile"
run=$(last_run out)
"$LLMPROF" report "$run" >out 2>err || fail "report on a bundle without a trace: $(cat err)"
grep -q "INCOMPLETE: trace skipped because" "$run/report.md" || fail "report.md does not say the trace is missing"
cp "$run/status.json" status.keep
printf '{"state": "ok", "steps": [' >"$run/status.json"
"$LLMPROF" report "$run" >out 2>err
expect 5 $? err "^llmprof: error: report: $run/status.json:1:[0-9]+: "
: >"$run/status.json"
"$LLMPROF" report "$run" >out 2>err
expect 5 $? err "^llmprof: error: report: $run/status.json:1:0: "
rm "$run/status.json"
"$LLMPROF" report "$run" >out 2>err
expect 5 $? err "^llmprof: error: report: '$run' holds no status.json and no trace"
"$LLMPROF" report "$tmp/nonexistent" >out 2>err
expect 5 $? err "^llmprof: error: report: '$tmp/nonexistent' is not a run directory$"

# 5. names over 4 KB: a kernel name of 5000 and 65536 bytes, a range name
# of 8192, through every stats format and the reports
python3 "$LLMPROF_SOURCE_DIR/bench/gen-nsys-trace.py" long.sqlite --kernels 40 --seed 5 >/dev/null ||
	fail "gen-nsys-trace.py"
python3 - long.sqlite <<'PY' || fail "long names"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
ids = [r[0] for r in db.execute(
    "SELECT DISTINCT demangledName FROM CUPTI_ACTIVITY_KIND_KERNEL ORDER BY 1 LIMIT 2")]
names = ["void long_kernel<" + "A, " * 1664 + "B>(float *)",   # 5000+ bytes
         "k" + "x" * 65535]
for i, n in zip(ids, names):
    db.execute("UPDATE StringIds SET value=? WHERE id=?", (n, i))
r = db.execute("SELECT rowid FROM NVTX_EVENTS WHERE text='attn.qkv' LIMIT 1").fetchone()
if r:
    db.execute("UPDATE NVTX_EVENTS SET text=? WHERE text='attn.qkv'", ("r" * 8192,))
db.commit()
open("names.txt", "w").write("\n".join(names))
PY
for fmt in csv md json; do
	"$LLMPROF" stats -f $fmt -r cuda_gpu_kern_sum,nvtx_sum,nvtx_kern_sum long.sqlite >"long.$fmt" 2>err ||
		fail "stats -f $fmt on long names: $(cat err)"
done
python3 - <<'PY' || fail "long names were cut"
import csv, io, json
names = open("names.txt").read().split("\n")
text = open("long.csv").read()
for n in names:
    assert n in text, "csv lacks a %d-byte name" % len(n)
assert "r" * 8192 in text, "csv lacks the 8192-byte range name"
doc = open("long.json").read()
for n in names:
    assert n in doc, "json lacks a %d-byte name" % len(n)
md = open("long.md").read()
assert names[1] in md
PY
"$LLMPROF" report --trace long.sqlite -o longrep >out 2>err || fail "report on long names: $(cat err)"
python3 - <<'PY' || fail "reports lost a long name"
import json
names = open("names.txt").read().split("\n")
md = open("longrep/kernels.md").read()
assert names[1] in md and names[0].replace("<", "\\<") in md or names[0] in md, "kernels.md"
m = json.dumps(json.load(open("longrep/metrics.json")))
assert names[1] in m, "metrics.json"
PY
echo ok
