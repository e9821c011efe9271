#!/usr/bin/env bash
# fuzz-jobs.sh: long fuzz runs on a many-core machine. Each target runs with
# -jobs=N -workers=N (N = nproc) and -runs=TOTAL/N per job, from FUZZ_DIR
# (default .gpu/fuzz: fuzz-<target> built by scripts/fuzz.sh, corpus/<target>/,
# lib/ with the shared libraries they need), seeded also with
# tests/fuzz/corpus and tests/fuzz/regressions. MAXT=S stops each job after S s.
# KEEP_CORPUS=1 brings the grown corpus back (OUT/<target>/corpus in all.tgz),
# so a run longer than one sitting continues from where the last one stopped.
# usage: OUT=DIR scripts/fuzz-jobs.sh TOTAL TARGET...   (from the repository root)
# Writes OUT/summary.txt (executions summed over the jobs, jobs with errors)
# and OUT/all.tgz.aa, .ab, ... (per target: stats, errors, crash inputs).
set -u
: "${OUT:?set OUT to an output directory}"
total=$1; shift
F=${FUZZ_DIR:-$PWD/.gpu/fuzz}
n=$(nproc)
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
export LD_LIBRARY_PATH=$F/lib
for t in "$@"; do
	o=$OUT/$t; mkdir -p "$o" "$F/crashes/$t"
	w=$(mktemp -d); cp -r "$F/corpus/$t" "$w/corpus"
	args=(-jobs=$n -workers=$n -runs=$((total / n)) -timeout=10 -rss_limit_mb=2048 ${MAXT:+-max_total_time=$MAXT}
	      -print_final_stats=1 -artifact_prefix="$o/crash-")
	[ -f "tests/fuzz/fuzz-$t.dict" ] && args+=(-dict="$PWD/tests/fuzz/fuzz-$t.dict")
	[ -f "tests/fuzz/fuzz-$t.options" ] && args+=($(cat "tests/fuzz/fuzz-$t.options"))
	seeds=("$PWD/tests/fuzz/corpus/$t"); [ -d "tests/fuzz/regressions/$t" ] && seeds+=("$PWD/tests/fuzz/regressions/$t")
	t0=$(date +%s)
	(cd "$w" && "$F/fuzz-$t" "${args[@]}" "$w/corpus" "${seeds[@]}" >"$o/main.log" 2>&1)
	rc=$?
	t1=$(date +%s)
	execs=$(cat "$w"/fuzz-*.log | awk '/^stat::number_of_executed_units/ { s += $2 } END { print s + 0 }')
	jobs_done=$(grep -l '^stat::number_of_executed_units' "$w"/fuzz-*.log | wc -l)
	crashes=$(grep -l -E 'ERROR: (AddressSanitizer|LeakSanitizer|libFuzzer)|runtime error|SUMMARY' "$w"/fuzz-*.log | wc -l)
	echo "$t: rc $rc, jobs $n (finished $jobs_done), executions $execs, wall $((t1 - t0)) s, logs with errors $crashes, corpus $(ls "$w/corpus" | wc -l)" | tee -a "$OUT/summary.txt"
	for l in "$w"/fuzz-*.log; do grep -E '^stat::|cov:' "$l" | tail -9; done >"$o/stats.txt"
	grep -h -E 'ERROR|SUMMARY|Test unit written|runtime error' "$w"/fuzz-*.log | head -40 >"$o/errors.txt"
	tail -n 30 "$w/fuzz-0.log" >"$o/job0-tail.log"
	[ -n "${KEEP_CORPUS:-}" ] && cp -r "$w/corpus" "$o/corpus"
	rm -rf "$w"
done
nproc >>"$OUT/summary.txt"; lscpu | grep -E 'Model name|^CPU\(s\)' >>"$OUT/summary.txt"
# few files come back, 16 MiB at most each: everything in one archive, cut
# into parts (cat all.tgz.* | tar xz)
a=$(mktemp -d)
(cd "$OUT" && tar czf - . | split -b 15M - "$a/all.tgz." &&
	find . -mindepth 1 ! -name summary.txt -delete && mv "$a"/all.tgz.* .)
rm -rf "$a"
