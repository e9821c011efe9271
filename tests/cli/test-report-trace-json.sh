#!/usr/bin/env bash
# `llmprof report --trace EXPORT.sqlite -o DIR` writes DIR/trace.json (the
# Perfetto timeline the builtin backend writes as trace/trace.json) for an
# nsys export too: every kernel and memset of the export on a GPU track, the
# NVTX ranges, launch calls with flow arrows. A kernel-summary .csv has no
# timeline: no trace.json, and no error.
set -u
src=${LLMPROF_SOURCE_DIR:?}
db=$src/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite
[ -f "$db" ] || { echo "FAIL: fixture $db missing"; exit 1; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0

"$LLMPROF" report --trace "$db" -o "$tmp/out" >"$tmp/stdout" 2>"$tmp/stderr"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: report --trace exited $rc: $(cat "$tmp/stderr")"; fail=1; }
if [ ! -f "$tmp/out/trace.json" ]; then
	echo "FAIL: no trace.json for an nsys export"; fail=1
else
	# the export holds 14 kernels, 2 memsets, 16 launches (H100, nsys 2025.3)
	python3 - "$tmp/out/trace.json" <<'PY' || fail=1
import collections, json, sys
d = json.load(open(sys.argv[1]))
n = collections.Counter(e.get("cat") for e in d["traceEvents"] if e.get("ph") == "X")
flows = sum(1 for e in d["traceEvents"] if e.get("ph") == "s")
gpu = [e for e in d["traceEvents"] if e.get("ph") == "M" and e.get("name") == "process_name"
       and e["args"]["name"].startswith("GPU")]
ok = n["kernel"] == 14 and n["memset"] == 2 and n["nvtx"] > 0 and n["cuda_api"] > 0 \
    and flows == 16 and gpu
if not ok:
    print("FAIL: trace.json of the export: events %s, flows %d, GPU tracks %d" % (dict(n), flows, len(gpu)))
sys.exit(0 if ok else 1)
PY
fi
grep -q "trace.json" "$tmp/stderr" && { echo "FAIL: trace.json warning: $(cat "$tmp/stderr")"; fail=1; }

# a kernel summary is no timeline: reports, no trace.json, no complaint
"$LLMPROF" stats -r cuda_gpu_kern_sum -f csv "$db" >"$tmp/k.csv" || fail=1
"$LLMPROF" report --trace "$tmp/k.csv" -o "$tmp/csv" >/dev/null 2>"$tmp/stderr"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: report --trace k.csv exited $rc: $(cat "$tmp/stderr")"; fail=1; }
[ -e "$tmp/csv/trace.json" ] && { echo "FAIL: trace.json from a kernel summary"; fail=1; }
grep -q "trace.json" "$tmp/stderr" && { echo "FAIL: csv trace: $(cat "$tmp/stderr")"; fail=1; }
# extreme timestamps (a damaged export): the analysis clamps them, and
# trace.json's durations saturate instead of overflowing (UBSan in the
# sanitizer build: perfetto.c subtracted them as they came)
cp "$db" "$tmp/x.sqlite" && chmod u+w "$tmp/x.sqlite"
python3 - "$tmp/x.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
lo, hi = -(1 << 63), (1 << 63) - 1
db.execute("UPDATE NVTX_EVENTS SET start=?, end=? WHERE rowid IN (SELECT rowid FROM NVTX_EVENTS WHERE end IS NOT NULL LIMIT 1)", (lo, hi))
db.execute("UPDATE NVTX_EVENTS SET start=?, end=NULL WHERE rowid IN (SELECT rowid FROM NVTX_EVENTS WHERE end IS NOT NULL LIMIT 1)", (lo,))
db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start=?, end=? WHERE rowid IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1)", (lo, hi))
db.execute("UPDATE CUPTI_ACTIVITY_KIND_KERNEL SET start=?, end=? WHERE rowid IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_KERNEL LIMIT 1 OFFSET 1)", (hi, lo))
db.execute("UPDATE CUPTI_ACTIVITY_KIND_RUNTIME SET start=?, end=? WHERE rowid IN (SELECT rowid FROM CUPTI_ACTIVITY_KIND_RUNTIME LIMIT 1)", (lo, hi))
db.commit()
PY
"$LLMPROF" report --trace "$tmp/x.sqlite" -o "$tmp/xout" >/dev/null 2>"$tmp/stderr"
rc=$?
[ $rc -eq 0 ] || { echo "FAIL: extreme timestamps: exit $rc: $(cat "$tmp/stderr")"; fail=1; }
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/xout/trace.json" ||
	{ echo "FAIL: extreme timestamps: trace.json"; fail=1; }
exit $fail
