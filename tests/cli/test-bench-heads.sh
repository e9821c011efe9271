#!/usr/bin/env bash
# bench/report-names-bench.sh and bench/export-check-bench.sh on tiny inputs:
# both run to the end and append one run to their result file, the heading
# they share (bench/bench-lib.sh: the title once, then which llmprof, the
# commit, the time and the machine) followed by their own lines and tables,
# with one row per size asked for; a second run appends under the same title;
# nothing is left in the temporary folder's place.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
src=${LLMPROF_SOURCE_DIR:?}
for c in python3 sqlite3 lscpu free; do
	command -v $c >/dev/null || { echo "skip: $c not installed"; exit 77; }
done
[ -x /usr/bin/time ] || { echo "skip: GNU time (/usr/bin/time) not installed"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
llmprof=$b/llmprof
date_re='[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z'
machine_re='^- machine: .*, [0-9]+ cores, [0-9]+ GiB RAM, page cache warm$'

# head FILE TITLE RUNS: the title once, RUNS headings, each with its machine line
head_ok() {
	local f=$1 title=$2 runs=$3
	[ "$(sed -n 1p "$f")" = "$title" ] || fail "$f: first line $(sed -n 1p "$f")"
	[ "$(grep -c "^# " "$f")" = 1 ] || fail "$f: the title more than once"
	[ "$(grep -Ec "^## $llmprof \([0-9a-f?]+\), $date_re$" "$f")" = "$runs" ] ||
		fail "$f: not $runs run headings: $(grep '^## ' "$f")"
	[ "$(grep -Ec "$machine_re" "$f")" = "$runs" ] || fail "$f: machine lines"
}

TMPDIR=$t bash "$src/bench/report-names-bench.sh" "$llmprof" "$t/names.md" 300 -- 40 >"$t/names.out" 2>&1 ||
	fail "report-names-bench: $(cat "$t/names.out")"
head_ok "$t/names.md" '# Memory and report sizes per distinct kernel name' 1
grep -q "^- command: \`bench/report-names-bench.sh $llmprof RESULT 300 -- 40\`, one run each$" "$t/names.md" ||
	fail "names: command line"
grep -Eq '^\| 300 \| [0-9]+ \| [0-9.]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \|$' "$t/names.md" ||
	fail "names: no --trace row for 300 names: $(cat "$t/names.md")"
grep -Eq '^\| 40 \| [0-9]+ \| [0-9.]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \| [0-9]+ \|$' "$t/names.md" ||
	fail "names: no --ncu-csv row for 40 results: $(cat "$t/names.md")"

for run in 1 2; do
	TMPDIR=$t bash "$src/bench/export-check-bench.sh" "$llmprof" 2000 "$t/check.md" >"$t/check.out" 2>&1 ||
		fail "export-check-bench: $(cat "$t/check.out")"
done
head_ok "$t/check.md" '# What checking that an export is whole costs' 2
[ "$(grep -c '^- input: `bench/gen-nsys-trace.py OUT --kernels 2000 --threads 4 --gpus 2 --steps 16` ([0-9]* MiB)$' "$t/check.md")" = 2 ] ||
	fail "check: input lines"
[ "$(grep -Ec '^\| `PRAGMA quick_check` alone \| [0-9.]+ \|$' "$t/check.md")" = 2 ] || fail "check: rows"
# what the script prints is the end of the result file
[ "$(tail -n 9 "$t/check.md")" = "$(cat "$t/check.out")" ] || fail "check: printed $(cat "$t/check.out")"
# the work folders are gone
[ -z "$(find "$t" -mindepth 1 -maxdepth 1 -type d)" ] || fail "left behind: $(ls "$t")"
echo ok
