#!/usr/bin/env bash
# `llmprof stats -f csv -o` against nsys 2025.3.1's own files
# (tests/data/nsys/oracle-2025.3, recorded on an H200 machine): the eight
# reports on six real exports (nsys 2023.1 to 2026.1) and on the three
# fixtures of scripts/nsys/stats-fixtures.py (halves rounded as nsys 2025.3
# rounds them, a report with no data, inverted timestamps), byte for byte,
# including the empty file of a skipped report.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:?}
data=$src/tests/data/nsys
oracle=$data/oracle-2025.3
tmp=$(mktemp -d /tmp/llmprof-cli-oracle25.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0
reports=cuda_api_sum,cuda_gpu_kern_sum,cuda_gpu_mem_size_sum,cuda_gpu_mem_time_sum,nvtx_gpu_proj_sum,nvtx_kern_sum,nvtx_sum,osrt_sum
mkdir -p "$tmp/out"
python3 "$src/scripts/nsys/stats-fixtures.py" "$data/nvtx-probe-h100-nsys2025.3.sqlite" "$tmp" || exit 1
for e in nccl-ws1-h100-nsys2025.3-blobs nccl-ws1-h100-nsys2025.3-noblobs \
	nokernels-rtx5060ti-nsys2025.1 nvtx-probe-h100-nsys2025.3 trt-resnet-rtx3090-nsys2023.1 \
	vectoradd-um-a4500-nsys2026.1 round nodata inverted; do
	db=$data/$e.sqlite
	[ -f "$db" ] || db=$tmp/$e.sqlite
	"$LLMPROF" stats -f csv --nsys-version 2025.3 -r "$reports" -o "$tmp/out/$e" "$db" \
		>/dev/null 2>"$tmp/err" || { echo "FAIL: stats $e: $(cat "$tmp/err")"; fail=1; }
done
n=0
for want in "$oracle"/*.csv; do
	f=$(basename "$want")
	n=$((n + 1))
	if ! cmp -s "$want" "$tmp/out/$f"; then
		echo "FAIL: $f differs from nsys 2025.3.1's:"
		diff "$want" "$tmp/out/$f" | head -5
		fail=1
	fi
done
[ "$n" = 72 ] || { echo "FAIL: $n oracle files, 72 expected"; fail=1; }
[ $fail = 0 ] && echo "ok: $n files byte-identical with nsys 2025.3.1"
exit $fail
