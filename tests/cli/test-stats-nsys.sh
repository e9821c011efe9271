#!/usr/bin/env bash
# Compare `llmprof stats -f csv` with NVIDIA's own `nsys stats` 2023.4.4 on synthetic
# exports that hold what the public fixtures lack: several processes, threads and
# GPUs, start/end ranges ended on another thread, a range never closed, a CUDA graph
# launch, overlapping streams, memcpy/memset, kernels outside every range or without
# a launch call, registered strings, names with commas and quotes. Skips (77) when
# scripts/nsight-cli-oracle.sh cannot fetch nsys or python3 is missing.
set -u
src=${LLMPROF_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
oracle=$(bash "$src/scripts/nsight-cli-oracle.sh" 2>"$tmp/oracle.err") ||
	{ echo "skip: NVIDIA's nsys CLI is not available: $(cat "$tmp/oracle.err")"; exit 77; }
eval "$oracle"
[ -x "${NSYS:-}" ] || { echo "FAIL: nsight-cli-oracle.sh printed no executable nsys"; exit 1; }
gen=$src/bench/gen-nsys-trace.py
python3 "$gen" "$tmp/edge.sqlite" --kernels 600 --threads 3 --processes 2 --gpus 2 --steps 3 --edge >/dev/null || exit 1
python3 "$gen" "$tmp/plain.sqlite" --kernels 3000 --threads 4 --steps 5 --seed 7 >/dev/null || exit 1
python3 "$gen" "$tmp/ties.sqlite" --ties || exit 1
# enough launches on enough threads that nvtx_gpu_proj_sum sweeps two halves
# of the threads side by side (nvtxproj.c sweep_split())
python3 "$gen" "$tmp/split.sqlite" --kernels 12000 --threads 4 --processes 2 --steps 4 --edge --seed 9 >/dev/null || exit 1
fail=0
rm -f "$tmp/nsys_nvtx_gpu_proj_sum.csv"
"$NSYS" stats -f csv -r nvtx_gpu_proj_sum --force-overwrite true -o "$tmp/nsys" "$tmp/split.sqlite" >"$tmp/nsys.log" 2>&1
[ -f "$tmp/nsys_nvtx_gpu_proj_sum.csv" ] || { echo "skip: nsys produced nothing: $(head -3 "$tmp/nsys.log")"; exit 77; }
tr -d '\r' <"$tmp/nsys_nvtx_gpu_proj_sum.csv" >"$tmp/want.csv"
if "$LLMPROF" stats -f csv -r nvtx_gpu_proj_sum "$tmp/split.sqlite" | cmp -s "$tmp/want.csv" -; then
	echo "ok: split.sqlite nvtx_gpu_proj_sum"
else
	echo "FAIL: split.sqlite nvtx_gpu_proj_sum differs from nsys"; fail=1
fi
for db in "$tmp/edge.sqlite" "$tmp/plain.sqlite" "$tmp/ties.sqlite"; do
	for r in cuda_gpu_kern_sum nvtx_sum nvtx_gpu_proj_sum nvtx_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum; do
		rm -f "$tmp/nsys_$r.csv"
		"$NSYS" stats -f csv -r "$r" --force-overwrite true -o "$tmp/nsys" "$db" >"$tmp/nsys.log" 2>&1
		if grep -q SKIPPED "$tmp/nsys.log"; then : >"$tmp/nsys_$r.csv"; fi
		[ -f "$tmp/nsys_$r.csv" ] || { echo "skip: nsys produced nothing for $r: $(head -3 "$tmp/nsys.log")"; exit 77; }
		"$LLMPROF" stats -f csv -r "$r" "$db" >"$tmp/ours.csv" 2>"$tmp/err" || { echo "FAIL: $r: $(cat "$tmp/err")"; fail=1; continue; }
		tr -d '\r' <"$tmp/nsys_$r.csv" >"$tmp/want.csv"
		if cmp -s "$tmp/want.csv" "$tmp/ours.csv"; then
			echo "ok: $(basename "$db") $r"
		else
			echo "FAIL: $(basename "$db") $r differs from nsys"; diff "$tmp/want.csv" "$tmp/ours.csv" | head -10; fail=1
		fi
	done
done
# -f column too (what nsys prints on the console, less its "Processing [...]"
# lines), in the C locale; and a report that ran but found nothing: ranges on
# another thread than every launch
python3 - "$src/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite" "$tmp/nodata.sqlite" <<'PY' || exit 1
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
db.execute("UPDATE NVTX_EVENTS SET globalTid = globalTid + 1")
db.commit()
PY
for db in "$tmp/edge.sqlite" "$tmp/plain.sqlite" "$tmp/ties.sqlite" "$tmp/nodata.sqlite"; do
	for r in cuda_gpu_kern_sum nvtx_sum nvtx_gpu_proj_sum nvtx_kern_sum cuda_api_sum cuda_gpu_mem_time_sum cuda_gpu_mem_size_sum; do
		(cd "$tmp" && LC_ALL=C "$NSYS" stats -f column -r "$r" "$(basename "$db")") 2>/dev/null | grep -v '^Processing \[' >"$tmp/want.txt"
		(cd "$tmp" && LC_ALL=C "$LLMPROF" stats -f column --nsys-version 2023.4 -r "$r" "$(basename "$db")") >"$tmp/ours.txt" 2>"$tmp/err" ||
			{ echo "FAIL: column $r: $(cat "$tmp/err")"; fail=1; continue; }
		if cmp -s "$tmp/want.txt" "$tmp/ours.txt"; then
			echo "ok: column $(basename "$db") $r"
		else
			echo "FAIL: column $(basename "$db") $r differs from nsys"; diff "$tmp/want.txt" "$tmp/ours.txt" | head -10; fail=1
		fi
	done
done
grep -q "^Report was successfully run, but no data was returned.$" "$tmp/ours.txt" 2>/dev/null ||
	(cd "$tmp" && "$LLMPROF" stats -f column -r nvtx_gpu_proj_sum nodata.sqlite | grep -q "^Report was successfully run, but no data was returned.$") ||
	{ echo "FAIL: column: no 'no data' case"; fail=1; }
# -f json too (nsys's layout: indented objects, NULL as "")
for r in nvtx_kern_sum cuda_gpu_mem_size_sum nvtx_gpu_proj_sum; do
	rm -f "$tmp/nsys_$r.json"
	"$NSYS" stats -f json -r "$r" --force-overwrite true -o "$tmp/nsys" "$tmp/edge.sqlite" >/dev/null 2>&1
	[ -f "$tmp/nsys_$r.json" ] || { echo "skip: nsys wrote no json for $r"; exit 77; }
	"$LLMPROF" stats -f json -r "$r" "$tmp/edge.sqlite" >"$tmp/ours.json" || fail=1
	if tr -d '\r' <"$tmp/nsys_$r.json" | cmp -s - "$tmp/ours.json"; then
		echo "ok: json $r"
	else
		echo "FAIL: json $r differs from nsys"; diff <(tr -d '\r' <"$tmp/nsys_$r.json") "$tmp/ours.json" | head; fail=1
	fi
done
exit $fail
