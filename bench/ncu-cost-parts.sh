#!/usr/bin/env bash
# bench/ncu-cost-parts.sh: where Nsight Compute's time goes on the
# transformers Llama program (examples/hf_llama.py: 1B shape, random weights,
# prompt 128, 32 new tokens), part by part, in one call on one GPU:
#   alone       the program without ncu;
#   nomatch     under ncu with a kernel filter that matches nothing: what ncu
#               costs a program it measures nothing of;
#   nomatch_lazy  the same with CUDA_MODULE_LOADING=LAZY set explicitly;
#   default     10 cuBLAS results (-k regex:nvjet, from the 2,000th such
#               launch) with llmprof's default collection (SpeedOfLight,
#               Occupancy, LaunchStats and its 13 metrics);
#   cache_none  the same with --cache-control none (no cache flush a pass);
#   sol_only    the same with the SpeedOfLight section alone;
#   one_metric  the same with gpu__time_duration.sum alone (one pass);
#   ballast_20, ballast_60  default, with 20 or 60 GB more device memory held
#               by the program (bench/ncu_ballast.py): whether a result's
#               cost grows with the memory the program holds.
#   window      default, on 30 consecutive launches of any kernel from the
#               20,000th (deep mode's plan form: many kernels, each once or
#               twice), not 10 launches of a few cuBLAS kernels;
#   window_nosass  the same without the sm__sass_* metrics, which ncu
#               collects by patching each kernel's code.
# NCU_PARTS (default: all but the ballast and window parts) names the parts
# to run.
# Each ncu line is time-stamped as it ends: per result, the seconds between
# consecutive "==PROF== Profiling" lines; before the first and after the
# last. OUT/parts.tsv, OUT/env.txt and OUT/logs.tgz (every console, stamped).
# Usage: bench/ncu-cost-parts.sh STAGE OUT   (STAGE absolute, scripts/gpu/stage.sh)
# NCU (default /usr/local/cuda/bin/ncu).
set -u
stage=${1:?usage: ncu-cost-parts.sh STAGE OUT} out=${2:?usage: ncu-cost-parts.sh STAGE OUT}
NCU=${NCU:-/usr/local/cuda/bin/ncu}
PROG=(python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32)
mkdir -p "$out"
w=$(mktemp -d)
trap 'rm -rf "$w"' EXIT
{
	echo "gpu: $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -n 1)"
	echo "ncu: $("$NCU" --version | tail -n 1)"
	echo "staged commit: $(cat "$stage/commit" 2>/dev/null)"
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__)' 2>&1 | tail -n 1
	echo "CUDA_MODULE_LOADING=${CUDA_MODULE_LOADING-unset}"
} | tee "$out/env.txt"

console=$(cd "$(dirname "$0")" && pwd)/ncu_console.py

M_DEF=gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum
WIN=(-k regex:nvjet --launch-skip 2000 --launch-count 10)
BASE=(--target-processes all --replay-mode kernel --clock-control none)

printf 'part\trc\twall_s\tresults\tpasses\tbefore_first_s\tper_result_s\tafter_last_s\n' >"$out/parts.tsv"
run_part() { # name env... -- argv...
	local name=$1 t0 t1 rc
	shift
	local envs=()
	while [ "$1" != -- ]; do envs+=("$1"); shift; done
	shift
	t0=$(date +%s.%N)
	env "${envs[@]}" timeout 300 "$@" 2>&1 | python3 -u "$console" stamp "$t0" >"$w/$name.log"
	rc=${PIPESTATUS[0]}
	t1=$(date +%s.%N)
	python3 "$console" times "$w/$name.log" |
		awk -F'\t' -v name="$name" -v rc="$rc" -v t0="$t0" -v t1="$t1" '{
			printf "%s\t%s\t%.1f\t%s\t%s\t%s\t%s\t", name, rc, t1 - t0, $1, $2, $3, $4
			if ($1 > 0) printf "%.1f\n", t1 - t0 - $5; else print "nan" }' >>"$out/parts.tsv"
	tail -n 1 "$out/parts.tsv"
}

DEF=(--cache-control all --section SpeedOfLight --section Occupancy --section LaunchStats --metrics "$M_DEF")
BALLAST=(python3 "$(cd "$(dirname "$0")" && pwd)/ncu_ballast.py")
for part in ${NCU_PARTS:-alone nomatch nomatch_lazy default cache_none sol_only one_metric}; do
	case $part in
	alone) run_part alone -- "${PROG[@]}" ;;
	nomatch) run_part nomatch -- "$NCU" "${BASE[@]}" -k regex:^llmprof_matches_no_kernel$ "${PROG[@]}" ;;
	nomatch_lazy) run_part nomatch_lazy CUDA_MODULE_LOADING=LAZY -- "$NCU" "${BASE[@]}" \
		-k regex:^llmprof_matches_no_kernel$ "${PROG[@]}" ;;
	default) run_part default -- "$NCU" "${BASE[@]}" "${DEF[@]}" -o "$w/def" "${WIN[@]}" "${PROG[@]}" ;;
	cache_none) run_part cache_none -- "$NCU" "${BASE[@]}" --cache-control none --section SpeedOfLight \
		--section Occupancy --section LaunchStats --metrics "$M_DEF" -o "$w/cn" "${WIN[@]}" "${PROG[@]}" ;;
	sol_only) run_part sol_only -- "$NCU" "${BASE[@]}" --cache-control all --section SpeedOfLight \
		-o "$w/sol" "${WIN[@]}" "${PROG[@]}" ;;
	one_metric) run_part one_metric -- "$NCU" "${BASE[@]}" --cache-control all \
		--metrics gpu__time_duration.sum -o "$w/one" "${WIN[@]}" "${PROG[@]}" ;;
	window) run_part window -- "$NCU" "${BASE[@]}" "${DEF[@]}" -o "$w/win" --launch-skip 20000 \
		--launch-count 30 "${PROG[@]}" ;;
	window_nosass) run_part window_nosass -- "$NCU" "${BASE[@]}" --cache-control all --section SpeedOfLight \
		--section Occupancy --section LaunchStats --metrics "$(echo "$M_DEF" | tr , '\n' |
			grep -v sm__sass_ | paste -sd,)" -o "$w/winns" --launch-skip 20000 --launch-count 30 "${PROG[@]}" ;;
	ballast_*) run_part "$part" -- "$NCU" "${BASE[@]}" "${DEF[@]}" -o "$w/$part" "${WIN[@]}" \
		"${BALLAST[@]}" "${part#ballast_}" "${PROG[@]:1}" ;;
	*) echo "ncu-cost-parts.sh: no part $part" >&2 ;;
	esac
done
tar -czf "$out/logs.tgz" -C "$w" $(cd "$w" && ls *.log)
cat "$out/parts.tsv"
