#!/usr/bin/env bash
# The trust report (docs/report.md "Trust"): a trace with nothing that could
# make its numbers wrong says so in report.md and has "trust": [] in
# metrics.json; one whose tracer dropped records (META_DATA_EXPORT
# LLMPROF_DROPPED_CUPTI), with an inverted kernel and a timestamp out of
# range lists them, in order, and raises the records-dropped and
# timestamps-invalid findings.
set -u
src=${LLMPROF_SOURCE_DIR:?}
db=$src/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite
[ -f "$db" ] || { echo "FAIL: fixture $db missing"; exit 1; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

# clean: without NVTX ranges no kernel is outside a stage, every kernel has
# its launch, no record was lost
cp "$db" "$tmp/clean.sqlite"
python3 -c 'import sqlite3, sys
c = sqlite3.connect(sys.argv[1]); c.execute("DELETE FROM NVTX_EVENTS"); c.commit()' \
	"$tmp/clean.sqlite" || fail=1
"$LLMPROF" report --trace "$tmp/clean.sqlite" -o "$tmp/clean" >/dev/null 2>"$tmp/stderr" ||
	{ echo "FAIL: report (clean): $(cat "$tmp/stderr")"; fail=1; }
grep -qx "Nothing found that would make these numbers wrong." "$tmp/clean/report.md" ||
	{ echo "FAIL: clean trace: no 'Nothing found' in report.md"; fail=1; }
python3 - "$tmp/clean/metrics.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
if d["trust"] != []:
    sys.exit("FAIL: clean trace: trust %r" % d["trust"])
PY

grep -q "<h3>Trust</h3>" "$tmp/clean/report.html" ||
	{ echo "FAIL: report.html has no Trust heading"; fail=1; }

# planted: 12 CUPTI records dropped, one kernel ending before its start
cp "$db" "$tmp/bad.sqlite"
python3 - "$tmp/bad.sqlite" <<'PY' || fail=1
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
c.execute("INSERT INTO META_DATA_EXPORT VALUES ('LLMPROF_DROPPED_CUPTI', '12')")
c.execute('UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET "end" = start - 5 '
          "WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_KERNEL)")
# a memset ending beyond +-2^62 ns: clamped at load
c.execute('UPDATE CUPTI_ACTIVITY_KIND_MEMSET SET "end" = 9000000000000000000 '
          "WHERE rowid = (SELECT min(rowid) FROM CUPTI_ACTIVITY_KIND_MEMSET)")
c.commit()
PY
"$LLMPROF" report --trace "$tmp/bad.sqlite" -o "$tmp/bad" >/dev/null 2>"$tmp/stderr" ||
	{ echo "FAIL: report (planted): $(cat "$tmp/stderr")"; fail=1; }
sed -n '/^## Trust$/,/^## /p' "$tmp/bad/report.md" >"$tmp/trust.md"
for row in "| What | How many | Affects |" \
	"| CUPTI records dropped (buffer full) | 12 | every kernel count, time and share |" \
	"| kernel ending at or before its start | 1 | kernel times, GPU busy and idle |" \
	"| timestamp clamped at load (out of range) | 1 | spans and times of the records concerned |"; do
	grep -qxF "$row" "$tmp/trust.md" || { echo "FAIL: Trust section lacks '$row':"; cat "$tmp/trust.md"; fail=1; }
done
python3 - "$tmp/bad/metrics.json" <<'PY' || fail=1
import json, sys
d = json.load(open(sys.argv[1]))
codes = [t["code"] for t in d["trust"]]
if codes[:3] != ["records-dropped-cupti", "timestamps-inverted", "timestamps-clamped"]:
    sys.exit("FAIL: trust codes %r" % codes)
first = d["trust"][0]
if first["count"] != 12 or first["threshold"] != 0 or first["above_threshold"] is not True:
    sys.exit("FAIL: trust[0] %r" % first)
found = {f["code"]: f["severity"] for f in d["findings"]}
if found.get("records-dropped") != "critical" or found.get("timestamps-invalid") != "warning":
    sys.exit("FAIL: findings %r" % found)
PY
exit $fail
