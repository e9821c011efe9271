#!/usr/bin/env bash
# Failure matrix, crafted inputs that used to take memory out of proportion
# to them: the memory a command takes grows with its input by a small,
# fixed amount per row, measured as the peak RSS (GNU time) of the same
# command on a small and a large input (never as a time).
#   1. `report --ncu-csv` alone: metrics.json and kernels.json are written
#      a result at a time (it held every result's ~600 metrics as a JSON
#      tree: ~180 KB per row).
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

# 1. report --ncu-csv alone, 500 and 4,000 rows of ~5 KB in one region
gen="$src/bench/gen-ncu-csv.py"
python3 "$gen" small.csv --rows 500 >/dev/null || fail "gen-ncu-csv.py"
python3 "$gen" large.csv --rows 4000 >/dev/null || fail "gen-ncu-csv.py"
a=$(peak_kb "$LLMPROF" report --ncu-csv small.csv -o r-small)
b=$(peak_kb "$LLMPROF" report --ncu-csv large.csv -o r-large)
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

exit 0
