#!/usr/bin/env bash
# merge-scale.sh: `llmprof merge` of 64 and 256 synthetic ranks. Each rank
# folder holds what `profile --rank-dir` leaves for the merge: rank.json,
# status.json, a metrics.json with prefill and decode, and a collectives.tsv
# (version 3) of COLL NCCL AllReduce kernels with their gaps (default 10000:
# the NCCL share of a 100k-kernel tensor-parallel trace, 2 all-reduces per
# layer; the other kernels never reach the summary, only their busy time
# before each collective), one decode step every 2. Ranks on 8 hosts, host
# h's clock 5 ms ahead per h, rank 7 arrives 30 us late (its host: 30 us
# more idle GPU time before each collective). Prints wall time and peak RSS of
# each merge (GNU time), fails when a peak RSS exceeds 1 GB, and prints the
# time ratio 256/64 (linear in ranks: 4). Results: bench/results/merge-scale.md.
# usage: bench/merge-scale.sh [BUILD_DIR [COLL]]
set -euo pipefail
build=${1:-build}
coll=${2:-10000}
llmprof=$build/llmprof
[ -x "$llmprof" ] || { echo "merge-scale: $llmprof missing: run make first" >&2; exit 2; }
tmp=$(mktemp -d /tmp/llmprof-merge-scale.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
declare -A secs
for ranks in 64 256; do
	python3 - "$tmp/r$ranks" "$ranks" "$coll" <<'PY'
import json, os, sys
run, n, coll = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
name = "ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)"
for r in range(n):
    d = f"{run}/ranks/{r}"
    os.makedirs(d)
    host = r // (n // 8)
    skew = host * 5_000_000
    json.dump({"rank": r, "world_size": n, "host": f"node{host}"}, open(f"{d}/rank.json", "w"))
    json.dump({"state": "ok"}, open(f"{d}/status.json", "w"))
    dec = 40.0 + (0.3 if r == 7 else 0)
    json.dump({"stages": [
        {"role": "prefill", "name": "prefill", "instances": 1, "gpu_ms": 5.0, "busy_ms": 4.8,
         "kernels": 2000, "steps": {"p50_ms": None}},
        {"role": "decode", "name": "decode", "instances": 1, "gpu_ms": dec, "busy_ms": dec - 1,
         "kernels": 98000, "steps": {"p50_ms": dec / 100}}]}, open(f"{d}/metrics.json", "w"))
    late = 30_000 if r == 7 else (r % 5) * 100
    lines = ["# llmprof collectives 3", f"host\tnode{host}",
             f"clock\trealtime\tnode{host}\tboot-{host}",
             f"window\tprefill\t{skew}\t{skew + 5_000_000}",
             f"window\tdecode\t{skew + 5_000_000}\t{skew + 5_000_000 + coll * 40_000}"]
    for s in range(coll // 2):  # a decode step every 2 collectives
        t = skew + 5_000_000 + 2 * s * 40_000
        lines.append(f"step\t{t}\t{t + 80_000}")
    for i in range(coll):
        t = skew + 5_000_000 + i * 40_000
        # its gap: 15 us of 45 kernels since the previous collective's end,
        # the rest idle (rank 7: 30 us more, its host late; launched 5 us
        # before its start where the others' hosts are 2 ms ahead)
        start = t + 20_000 + late
        launch = start - (5_000 if r == 7 else 2_000_000)
        gap = f"{t - 40_000 + 60_000}\t15000\t45" if i else "-\t-\t-"
        lines.append(f"kernel\t{start}\t{t + 60_000}\t0\t13\t{launch}\t{gap}\t{name}")
    open(f"{d}/collectives.tsv", "w").write("\n".join(lines) + "\n")
PY
	/usr/bin/time -f "wall_s %e peak_rss_kb %M" -o "$tmp/time" "$llmprof" merge "$tmp/r$ranks" >"$tmp/out"
	size=$(du -sk "$tmp/r$ranks/ranks" | cut -f1)
	read -r _ s _ kb <"$tmp/time"
	secs[$ranks]=$s
	echo "ranks $ranks: collectives/rank $coll, summaries $((size / 1024)) MB, merge ${s} s, peak RSS $((kb / 1024)) MB; $(head -1 "$tmp/out")"
	python3 -c "import json,sys; c=json.load(open(sys.argv[1]))['collectives']; d=[x for x in c['late_by_stage'] if x['stage'] == 'decode'][0]; print('  instances', c['instances'], 'residual_median_ns', c['residual']['median_ns'], 'straggler rank', c['stragglers'][0]['rank'], 'decode cause', d['rank'], d['cause'], 'idle +%.1f us' % d['more_than_others']['gpu_idle_us'])" "$tmp/r$ranks/merged/merged.json"
	[ "$kb" -le 1048576 ] || { echo "merge-scale: peak RSS $((kb / 1024)) MB > 1 GB at $ranks ranks" >&2; exit 1; }
	rm -rf "$tmp/r$ranks"
done
awk -v a="${secs[64]}" -v b="${secs[256]}" 'BEGIN { printf "time ratio 256/64: %.2f (linear: 4)\n", b / a }'
