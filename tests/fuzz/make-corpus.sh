#!/usr/bin/env bash
# make-corpus.sh: (re)generates the seed corpora tests/fuzz/corpus/<target>/
# from the project's fixtures. Small files only (each under 96 KiB), so
# they can live in the repository and be replayed by ctest.
#
#   tests/fuzz/make-corpus.sh [BUILD_DIR]     (BUILD_DIR has tests/trace-tool; default build)
#
# sqlite:    the four real nsys exports of tests/data/nsys, cut to
#            the tables the reader uses and 40 rows each, 512-byte pages;
#            and synthetic ones from bench/gen-nsys-trace.py (with --edge).
# tracelog:  logs written by trace-tool synth (the tracer's record format).
# config:    conf/**/*.yaml.
# overrides: override lines in the grammar of docs/configuration.md.
# report:    calibration and analytic inputs from tests/data/report.
# kname:     kernel names as nsys, ncu and the builtin tracer spell them.
set -euo pipefail
here=$(cd "$(dirname "$0")" && pwd)
src=$(cd "$here/../.." && pwd)
data=$src/tests/data
build=${1:-$src/build}
out=$here/corpus
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

mkdir -p "$out"/{sqlite,tracelog,config,overrides,report,ncu-csv,nvtx-filter,kname}

# --- sqlite ---------------------------------------------------------------
shrink() { # in out
	cp "$1" "$2"
	chmod u+w "$2"
	local keep="'StringIds','NVTX_EVENTS','CUPTI_ACTIVITY_KIND_KERNEL','CUPTI_ACTIVITY_KIND_RUNTIME','CUPTI_ACTIVITY_KIND_MEMCPY','CUPTI_ACTIVITY_KIND_MEMSET','ENUM_CUDA_MEMCPY_OPER','META_DATA_EXPORT','EXPORT_META_DATA'"
	local drops
	drops=$(sqlite3 "$2" "SELECT 'DROP ' || type || ' IF EXISTS \"' || name || '\";' FROM sqlite_master
		WHERE type IN ('table','view') AND name NOT IN ($keep) AND name NOT LIKE 'sqlite_%'")
	{
		echo "PRAGMA foreign_keys=OFF;"
		echo "$drops"
		for t in NVTX_EVENTS CUPTI_ACTIVITY_KIND_KERNEL CUPTI_ACTIVITY_KIND_RUNTIME \
			CUPTI_ACTIVITY_KIND_MEMCPY CUPTI_ACTIVITY_KIND_MEMSET; do
			if sqlite3 "$2" "SELECT 1 FROM sqlite_master WHERE name='$t'" | grep -q 1; then
				echo "DELETE FROM $t WHERE rowid NOT IN (SELECT rowid FROM $t ORDER BY start LIMIT 40);"
			fi
		done
		# keep only the strings the kept rows name
		local refs="SELECT 0 WHERE 0"
		for tc in CUPTI_ACTIVITY_KIND_KERNEL.demangledName CUPTI_ACTIVITY_KIND_KERNEL.shortName \
			CUPTI_ACTIVITY_KIND_KERNEL.mangledName CUPTI_ACTIVITY_KIND_RUNTIME.nameId \
			NVTX_EVENTS.textId; do
			if sqlite3 "$2" "SELECT 1 FROM pragma_table_info('${tc%.*}') WHERE name='${tc#*.}'" | grep -q 1; then
				refs="$refs UNION SELECT ${tc#*.} FROM ${tc%.*}"
			fi
		done
		echo "DELETE FROM StringIds WHERE id NOT IN ($refs);"
	} >"$tmp/shrink.sql"
	sqlite3 "$2" <"$tmp/shrink.sql" 2>/dev/null || true
	sqlite3 "$2" "PRAGMA page_size=512; VACUUM;"
}
for f in "$data"/nsys/*.sqlite; do
	b=$(basename "$f" .sqlite)
	shrink "$f" "$tmp/$b.sqlite"
	size=$(stat -c %s "$tmp/$b.sqlite")
	if [ "$size" -le 98304 ]; then
		cp "$tmp/$b.sqlite" "$out/sqlite/$b.sqlite"
	else
		echo "make-corpus: $b too large after shrinking ($size bytes), skipped" >&2
	fi
done
python3 "$src/bench/gen-nsys-trace.py" "$tmp/synth-edge.sqlite" --kernels 24 --edge --seed 7 >/dev/null
python3 "$src/bench/gen-nsys-trace.py" "$tmp/synth-ties.sqlite" --ties >/dev/null
python3 "$src/bench/gen-nsys-trace.py" "$tmp/synth-plain.sqlite" --kernels 12 --seed 3 >/dev/null
for b in synth-edge synth-ties synth-plain; do
	sqlite3 "$tmp/$b.sqlite" "PRAGMA page_size=512; VACUUM;"
	cp "$tmp/$b.sqlite" "$out/sqlite/$b.sqlite"
done

# --- tracelog ---------------------------------------------------------------
if [ -x "$build/tests/trace-tool" ]; then
	for shape in "1 2" "2 3" "3 1"; do
		rm -rf "$tmp/tl" && mkdir "$tmp/tl"
		# shellcheck disable=SC2086
		"$build/tests/trace-tool" synth "$tmp/tl" $shape >/dev/null
		f=$(ls "$tmp"/tl/trace-*.bin | head -1)
		cp "$f" "$out/tracelog/synth-${shape// /x}.bin"
	done
else
	echo "make-corpus: $build/tests/trace-tool missing: tracelog corpus not refreshed" >&2
fi

# --- config -----------------------------------------------------------------
find "$src/conf" -name '*.yaml' | sort | while read -r f; do
	rel=${f#"$src/conf/"}
	cp "$f" "$out/config/${rel//\//_}"
done

# --- overrides ----------------------------------------------------------------
i=0
while IFS= read -r line; do
	i=$((i + 1))
	printf '%b' "$line" >"$out/overrides/$(printf '%02d' $i)"
done <<'LINES'
run.top_n_kernels=5
model=llama-3.2-1b\ninfer.batch_size=4
+run.extra=[a,b,"c d"]
~run.timeout_s
workload=dummy\ninfer.prompt_len=64\ninfer.max_new_tokens=2
profiling/ncu@pipeline.ncu=ncu.high
artifacts.root=/tmp/${now:%Y}
run.timeout_s=-5
infer.batch_size=1e12
run.top_n_kernels=-1
run.tmeout_s=3
model.name='quoted: value'
infer.dtype=[bf16
LINES

# --- ncu-csv ------------------------------------------------------------------
for f in "$data"/ncu/*.csv; do
	[ "$(stat -c %s "$f")" -le 40960 ] && cp "$f" "$out/ncu-csv/" && chmod u+w "$out/ncu-csv/$(basename "$f")"
done

# --- nvtx-filter: line 1 a name or ncu expression, then the ranges seen -------
i=0
while IFS= read -r line; do
	i=$((i + 1))
	printf '%b' "$line" >"$out/nvtx-filter/$(printf '%02d' $i)"
done <<'LINES'
LLM@decode_all\nLLM\tdecode_all\nLLM\tprefill\nLLM\tdecode_step
decode\ndecode\nprefill
LLM@decode_all/\nLLM\tdecode_all
regex:LLM@decode.*/\nLLM\tdecode_all\nLLM\tdecode_step
A/B/\nA\nB
A/+/B\nA\nX\nB
a\\@b@c\\,d\nc,d\ta@b
LLM@step\nLLM\tstep\ts
TensorRT@layer[0]*+\nTensorRT\tlayer[0]*+
@\n\t\n
LINES

# --- kname: one kernel name per file -------------------------------------------
# nsys's demangled names (NVIDIA's demangler), the tracer's (the C++ runtime's),
# ncu's NVTX-renamed ones, and names that are no C++ declaration
{
	cut -f4 "$data/nsys/hf-llama-h100-nsys2025.3.kernels.tsv" | tail -n +2 | sort -u | head -24
	cut -f2 "$data/tracer/graph-decode-h100/kernel-names.tsv" | tail -n +2 | sort -u
	printf '%s\n' 'A::A1/scale(float *, float, int)' 'range' 'gemv_bf16_kernel<128, 4>' \
		'void cutlass::Kernel2<cutlass_80_simt_sgemm_128x32_8x5_tn_align1>(T1::Params)' \
		'ncclDevKernel_AllReduce_Sum_bf16_RING_LL(ncclDevKernelArgsStorage<4096ul>)' \
		'void k_gemv<__nv_bfloat16, float, 1>(float*, int) [clone .constprop.0]' \
		'triton_poi_fused_mul_silu_split_4'
} | awk 'length($0) <= 4096' | {
	i=0
	while IFS= read -r line; do
		i=$((i + 1))
		printf '%s' "$line" >"$out/kname/$(printf '%02d' $i)"
	done
}

# --- report -----------------------------------------------------------------
cp "$src/tests/data/report/analytic-llama-tiny.json" "$out/report/analytic-llama-tiny.json"

du -sh "$out"/* >&2
