#!/usr/bin/env bash
# Exports of older nsys generations: before 2021 TARGET_INFO_GPU names the
# device `deviceId`, not `id`, and some exports have no ENUM_CUDA_MEMCPY_OPER.
# `report --trace` must still name the GPU (report.md, the GPU track of
# trace.json) and write trace.json, its copies named by CUPTI's kinds (the
# values the enum table lists: 8 is Device-to-Device).
#
# No such export is in tests/data, so the fixture is made here by hand from
# trt-resnet-rtx3090-nsys2023.1.sqlite (a real nsys 2023.1 export) by the two
# differences the old schema has, and nothing else: the enum table dropped,
# TARGET_INFO_GPU.id renamed deviceId (the values unchanged).
set -u
src=${LLMPROF_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
python3 - "$src/tests/data/nsys/trt-resnet-rtx3090-nsys2023.1.sqlite" "$tmp" <<'PY' || exit 1
import shutil, sqlite3, sys
for name, sql in [("noenum", ["DROP TABLE ENUM_CUDA_MEMCPY_OPER"]),
                  ("deviceid", ["ALTER TABLE TARGET_INFO_GPU RENAME COLUMN id TO deviceId"]),
                  ("old", ["DROP TABLE ENUM_CUDA_MEMCPY_OPER",
                           "ALTER TABLE TARGET_INFO_GPU RENAME COLUMN id TO deviceId"])]:
    dst = "%s/%s.sqlite" % (sys.argv[2], name)
    shutil.copyfile(sys.argv[1], dst)
    db = sqlite3.connect(dst)
    for q in sql:
        db.execute(q)
    db.commit()
PY
for f in noenum deviceid old; do
	"$LLMPROF" report --trace "$tmp/$f.sqlite" -o "$tmp/$f" >"$tmp/$f.out" 2>&1 ||
		{ echo "FAIL: $f: report --trace: $(cat "$tmp/$f.out")"; fail=1; continue; }
	if grep -q 'no trace.json' "$tmp/$f.out" || [ ! -s "$tmp/$f/trace.json" ]; then
		echo "FAIL: $f: no trace.json: $(grep -i warning "$tmp/$f.out")"; fail=1; continue
	fi
	grep -q '^| GPU | NVIDIA GeForce RTX 3090 |' "$tmp/$f/report.md" ||
		{ echo "FAIL: $f: report.md does not name the GPU: $(grep '^| GPU |' "$tmp/$f/report.md")"; fail=1; }
	grep -q '"GPU 0 (NVIDIA GeForce RTX 3090)"' "$tmp/$f/trace.json" ||
		{ echo "FAIL: $f: trace.json's GPU track is not named"; fail=1; }
	want=4 kind='Device-to-Device'
	n=$(grep -o "\"\\[CUDA memcpy $kind\\]\"" "$tmp/$f/trace.json" | wc -l)
	[ "$n" -ge "$want" ] || { echo "FAIL: $f: $n '[CUDA memcpy $kind]' events in trace.json, want $want"; fail=1; }
done
# stats: the memory reports need the enum in nsys too (SKIPPED, exit 0); the
# kernel summary is unchanged
"$LLMPROF" stats -f csv -r cuda_gpu_mem_time_sum,cuda_gpu_kern_sum "$tmp/old.sqlite" >"$tmp/stats" 2>"$tmp/err" ||
	{ echo "FAIL: stats on the old schema: $(cat "$tmp/err")"; fail=1; }
grep -q 'does not contain ENUM_CUDA_MEMCPY_OPER table' "$tmp/err" || { echo "FAIL: no SKIPPED for the memory report: $(cat "$tmp/err")"; fail=1; }
cmp -s "$tmp/stats" "$src/tests/data/nsys/oracle/trt-resnet-rtx3090-nsys2023.1_cuda_gpu_kern_sum.csv" ||
	{ echo "FAIL: kernel summary changed with the schema"; fail=1; }
exit $fail
