#!/usr/bin/env bash
# Failure matrix, crafted inputs that used to take memory out of proportion
# to them: the memory a command takes grows with its input by a small,
# fixed amount per row, measured as the peak RSS (GNU time) of the same
# command on a small and a large input (never as a time).
#   1. `report --ncu-csv` alone: metrics.json and kernels.json are written
#      a result at a time (it held every result's ~600 metrics as a JSON
#      tree: ~180 KB per row).
#   2. `stats -r nvtx_gpu_proj_sum` on NVTX ranges nested 200,000 deep: the
#      projection scanned every open range per range and per launch
#      (quadratic in the depth: minutes); it must end within the 60 s guard
#      (timeout: 124 is a failure, as in test-failures-hangs.sh) with the
#      numbers the nesting gives.
#   3. `report --trace`: at most 320 bytes of memory per kernel (400 under
#      ASan, whose shadow adds an eighth); it took ~390 (the pairs of every
#      range, copies of them per stage, a per-event name in trace.json).
#   4. llmprof-llm --analytic-out with 1,048,576 new tokens: the file lists
#      at most 4,096 decode steps, then gives the first step and the change
#      per step (it listed every step: 343 MB).
set -u
. "$(dirname "$0")/failures-lib.sh"
src=${LLMPROF_SOURCE_DIR:?}
[ -x /usr/bin/time ] || skip "GNU time (/usr/bin/time) missing"
command -v python3 >/dev/null || skip "python3 missing"
# ASan keeps freed memory in quarantine: measure without it
export ASAN_OPTIONS=${ASAN_OPTIONS:+$ASAN_OPTIONS:}quarantine_size_mb=0

# peak_kb CMD...: the command's peak RSS in KB (it must succeed)
peak_kb() {
	/usr/bin/time -f %M -o rss "$@" >out 2>err || fail "'$*': $(cat err)"
	tail -n 1 rss
}

# slope SMALL_KB LARGE_KB ROWS_SMALL ROWS_LARGE MAX_KB_PER_ROW WHAT
slope() {
	local per=$((($2 - $1) / ($4 - $3)))
	echo "$6: $1 KB at $3 rows, $2 KB at $4 rows: $per KB per row"
	[ "$per" -le "$5" ] || fail "$6: $per KB per row (at most $5)"
}

# 1. report --ncu-csv alone, 500 and 4,000 rows of ~5 KB in one region, every
# result listed (--max-rows above the rows: a region lists 1,000 by default)
gen="$src/bench/gen-ncu-csv.py"
python3 "$gen" small.csv --rows 500 >/dev/null || fail "gen-ncu-csv.py"
python3 "$gen" large.csv --rows 4000 >/dev/null || fail "gen-ncu-csv.py"
a=$(peak_kb "$LLMPROF" report --ncu-csv small.csv -o r-small --max-rows 4000)
b=$(peak_kb "$LLMPROF" report --ncu-csv large.csv -o r-large --max-rows 4000)
slope "$a" "$b" 500 4000 40 "report --ncu-csv"
# what was written is whole: every result, every metric
python3 - r-large <<'PY' || fail "report --ncu-csv: outputs"
import json, sys
d = sys.argv[1]
m = json.load(open(d + "/regions/LLM_decode_all_LLM_decode_step/metrics.json"))
assert len(m["results"]) == 4000, len(m["results"])
assert all(len(r["metrics"]) > 500 for r in m["results"])
k = json.load(open(d + "/kernels.json"))
assert len(k["launches"]) == 4000 and k["total_calls"] == 4000
PY

# 2. nvtx_gpu_proj_sum at nesting depth 200,000: range i (name level_<i % 8>)
# holds the kernels of levels i..N-1, one launch each, at level i
N=200000
python3 "$src/bench/gen-nsys-trace.py" nested.sqlite --nested $N >/dev/null || fail "gen-nsys-trace.py"
timeout 60 "$LLMPROF" stats -f csv -r nvtx_gpu_proj_sum nested.sqlite >proj.csv 2>err
rc=$?
[ $rc -ne 124 ] || fail "stats -r nvtx_gpu_proj_sum at depth $N still running after 60 s"
[ $rc -eq 0 ] || fail "stats at depth $N: exit $rc: $(cat err)"
python3 - proj.csv $N <<'PY' || fail "nvtx_gpu_proj_sum at depth $N: numbers"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
n = int(sys.argv[2])
assert len(rows) == 8, len(rows)
for r in rows:
    k = int(r["Range"].split("_")[1])
    levels = range(k, n, 8)
    assert int(r["Range Instances"]) == len(levels), r
    assert int(r["Total GPU Ops"]) == sum(n - i for i in levels), r
    assert abs(float(r["Avg Range Lvl"]) - sum(levels) / len(levels)) < 0.051, r
PY

# 3. report --trace on 20,000 and 200,000 kernels
python3 "$src/bench/gen-nsys-trace.py" k20k.sqlite --kernels 20000 --threads 4 >/dev/null ||
	fail "gen-nsys-trace.py"
python3 "$src/bench/gen-nsys-trace.py" k200k.sqlite --kernels 200000 --threads 4 >/dev/null ||
	fail "gen-nsys-trace.py"
a=$(peak_kb "$LLMPROF" report --trace k20k.sqlite -o t-small)
b=$(peak_kb "$LLMPROF" report --trace k200k.sqlite -o t-large)
max=320
ldd "${LLMPROF%% *}" 2>/dev/null | grep -q libasan && max=400
per=$(((b - a) * 1024 / 180000))
echo "report --trace: $a KB at 20,000 kernels, $b KB at 200,000: $per bytes per kernel"
[ "$per" -le "$max" ] || fail "report --trace: $per bytes per kernel (at most $max)"
grep -q '^| decode' t-large/report.md || fail "report --trace: no decode stage in report.md"

# 4. analytic.json of a 1,048,576-token generation (written before the
# model runs: the run itself is ended once the file is there)
llm=${LLMPROF_BUILD_DIR:-}/workloads/llmprof-llm
if [ -x "$llm" ]; then
	for new in 4097 4098 1048576; do
		"$llm" --device cpu --prompt-len 4 --new-tokens $new --max-pos $((new + 8)) \
			--analytic-out "a$new.json" >/dev/null 2>&1 &
		pid=$!
		wait_file "a$new.json" || fail "llmprof-llm --new-tokens $new: no analytic.json"
		kill "$pid" 2>/dev/null
		wait "$pid" 2>/dev/null
	done
	size=$(stat -c %s a1048576.json)
	[ "$size" -le 65536 ] || fail "analytic.json of 1,048,576 tokens: $size bytes"
	python3 - a4097.json a4098.json a1048576.json <<'PY' || fail "analytic.json steps"
import json, sys
listed, first_affine, big = (json.load(open(f)) for f in sys.argv[1:])
assert len(listed["decode_steps"]) == 4096 and "decode_steps_affine" not in listed
for a, n in ((first_affine, 4097), (big, 1048575)):
    s = a["decode_steps_affine"]
    assert "decode_steps" not in a and s["steps"] == n, s
    f, d = s["first"], s["per_step"]
    for k in ("flops", "bytes", "attn_flops", "kv_read_bytes"):
        assert a["decode"][k] == n * f[k] + d[k] * n * (n - 1) // 2, k
# the listed steps follow the same line
st = listed["decode_steps"]
assert all(st[i]["flops"] - st[i - 1]["flops"] == st[1]["flops"] - st[0]["flops"] for i in range(1, 4096))
PY
else
	echo "SKIP (4): $llm not built"
fi

exit 0
