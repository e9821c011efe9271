#!/usr/bin/env bash
# The two launch-call sources of the tracer (LLMPROF_TRACE_API=callback:
# TLOG_API records on the calling thread plus correlation aliases; activity:
# TLOG_API_ACT records in the GPU buffer, with the driver calls nested in
# runtime calls) must convert to the same database: same launch-call rows
# (threads, times, correlation ids), same GPU rows, same NVTX rows.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
tool=$b/tests/trace-tool
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir "$t/cb" "$t/act"
"$tool" synth "$t/cb" 300 8 >/dev/null
"$tool" synth "$t/act" 300 8 activity >/dev/null
"$tool" convert "$t/cb" "$t/cb.sqlite" >"$t/cb.txt"
"$tool" convert "$t/act" "$t/act.sqlite" >"$t/act.txt"
# 300 steps x (8 kernels + memcpy + memset); every second call has a driver
# call of its own id that the GPU record carries
grep -q ' kernels 2400 memcpy 300 memset 300 api 3000$' "$t/act.txt"
grep -q 'unattributed 0 ' "$t/act.txt"
# 1,500 nested driver-call records in place of the callback log's 1,500 aliases
grep -q ' records 8110 ' "$t/act.txt"
python3 - "$t/cb.sqlite" "$t/act.sqlite" <<'PY'
import sqlite3, sys
a, b = (sqlite3.connect(p) for p in sys.argv[1:3])
for table in ("CUPTI_ACTIVITY_KIND_RUNTIME", "CUPTI_ACTIVITY_KIND_KERNEL",
              "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_MEMSET", "NVTX_EVENTS",
              "StringIds"):
    q = f"SELECT * FROM {table}"
    ra, rb = sorted(a.execute(q).fetchall(), key=repr), sorted(b.execute(q).fetchall(), key=repr)
    assert ra and ra == rb, (table, len(ra), len(rb))
n = b.execute("SELECT count(*) FROM CUPTI_ACTIVITY_KIND_RUNTIME WHERE eventClass = 1").fetchone()[0]
assert n == 0, n  # nested driver calls are not rows of their own
PY

# LLMPROF_TRACE_API_CALLS=all: the other calls are rows too, counted apart
# from the launch calls (one module load, one synchronisation per step, its
# nested driver call folded in), and attribution is unchanged
mkdir "$t/all"
"$tool" synth "$t/all" 300 8 all >/dev/null
"$tool" convert "$t/all" "$t/all.sqlite" >"$t/all.txt"
grep -q ' kernels 2400 memcpy 300 memset 300 api 3000 api_other 301$' "$t/all.txt"
grep -q 'unattributed 0 ' "$t/all.txt"
python3 - "$t/all.sqlite" <<'PY'
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
q = ("SELECT s.value, r.eventClass, count(*), sum(r.end - r.start) FROM CUPTI_ACTIVITY_KIND_RUNTIME r "
     "JOIN StringIds s ON s.id = r.nameId WHERE s.value NOT LIKE 'cudaLaunch%' "
     "AND s.value NOT LIKE 'cudaMem%' GROUP BY 1, 2 ORDER BY 1")
rows = db.execute(q).fetchall()
assert rows == [("cuModuleLoadData", 1, 1, 100000), ("cudaStreamSynchronize_v3020", 0, 300, 1500000)], rows
PY
echo ok
