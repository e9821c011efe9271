#!/usr/bin/env bash
# compare-tracers.sh: two builds of the builtin tracer on the same programs,
# interleaved (the order alternates per round), so that a change to the
# tracer's default hot path can be measured against the build before it.
#   bench/tracer/compare-tracers.sh OLD.so NEW.so [ROUNDS]
# Always: bench/tracer/nvtx_pushpop.c (built here with cc; no GPU needed),
# ns per NVTX push/pop pair. With a GPU and TINY=path/to/tiny_launch
# (scripts/gpu/stage.sh builds gpu-bin/tiny_launch): us per launch of 100k
# launches. With DECODE=1 and python3 with torch and transformers:
# bench/tracer/decode_loop.py's decode_wall_s. Both libraries run with
# LLMPROF_TRACE_API=activity, the default. Prints each run and the medians.
set -u
old=${1:?usage: compare-tracers.sh OLD.so NEW.so [ROUNDS]} new=${2:?} rounds=${3:-6}
here=$(cd "$(dirname "$0")" && pwd)
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
cc -O2 -I/usr/local/cuda/include -o "$w/pushpop" "$here/nvtx_pushpop.c" -ldl ||
	{ echo "compare-tracers: cannot build nvtx_pushpop.c" >&2; exit 1; }
run() { # LIB KEY PROGRAM...: the value after KEY (or the only number printed)
	local so=$1 key=$2
	shift 2
	rm -rf "$w/log" && mkdir -p "$w/log"
	env LLMPROF_TRACE_OUT="$w/log" CUDA_INJECTION64_PATH="$so" NVTX_INJECTION64_PATH="$so" \
		LLMPROF_TRACE_API=activity timeout 150 "$@" 2>>"$w/stderr" |
		awk -v k="$key" 'k == "" && NF == 1 { print $1 } k != "" { for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' |
		tail -n 1
}
bench() { # NAME KEY PROGRAM...
	local name=$1 key=$2 r v so
	shift 2
	for ((r = 1; r <= rounds; r++)); do
		for v in $( ((r % 2)) && echo old new || echo new old); do
			so=$old
			[ "$v" = new ] && so=$new
			echo "$name $v $r $(run "$so" "$key" "$@")"
		done
	done | tee -a "$w/all"
}
bench pushpop_ns "" "$w/pushpop"
[ -n "${TINY:-}" ] && bench tiny_us_per_launch us_per_launch "$TINY" 100000
[ "${DECODE:-0}" = 1 ] && bench decode_wall_s decode_wall_s python3 "$here/decode_loop.py"
python3 - "$w/all" <<'PY'
import statistics, sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    if len(f) == 4:
        rows.setdefault((f[0], f[1]), []).append(float(f[3]))
for name in dict.fromkeys(k[0] for k in rows):
    o, n = rows.get((name, "old"), []), rows.get((name, "new"), [])
    if o and n:
        print("%s: old median %.3f min %.3f; new median %.3f min %.3f; new/old median %.3f" % (
            name, statistics.median(o), min(o), statistics.median(n), min(n),
            statistics.median(n) / statistics.median(o)))
PY
