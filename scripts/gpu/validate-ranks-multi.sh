#!/usr/bin/env bash
# Ranks, stragglers and per-rank decode times on several GPUs, against the
# program's own CUDA events (examples/tp_decode.py: each rank times every
# decode all_reduce; the rank whose all_reduce is shortest arrived last).
#
# For each N in $NS, each variant in $VARIANTS (equal: no rank slowed; slow:
# rank N-1 spins ~100 us on its GPU before each MLP all_reduce; gpuslow: the
# same for $GPUSLOW_US (3000) us, long enough that its GPU, not the hosts'
# launches, sets the pace: the straggler's cause should read GPU; late: rank
# N-1 sleeps on the host there) and $REPEAT rounds, the modes in $MODES run
# in turn:
#   plain              untraced (the truth's own spread)
#   single-<backend>   llmprof profile -- torchrun ... (one trace, every rank)
#   launch-<backend>   torchrun --no-python llmprof profile --rank-dir RUN ...
#                      (one llmprof per rank, then the automatic merge)
# backend: builtin or nsys. Each run's verdict is printed by ranks_eval.py
# (one line a run) and gathered in $OUT/ranks-summary.json; a single-command
# run's trace is also split into the per-rank files the launcher path writes
# and merged ($stage/gpu-bin/trace-tool split-ranks), and ranks_eval.py says
# whether both give the same straggler, wait and transfer (1 %) and the same
# late ranks per stage with the same cause and numbers (1 %); its table gives
# each configuration's decode causes, so that a launch-<backend> row can be
# read against the single-<backend> row of the same job shape; ranks-symmetry.txt
# compares each mode's distribution of the rank that arrives last (the
# program's events) with the untraced runs', and its decode time with
# theirs (REPEAT=10 for the >= 10 runs a mode that needs); with KEEP=1 each
# run's small files and traces are packed into $OUT/ranks-data-*.tar.xz
# (under 16 MiB a part) for tests/data fixtures.
#
# Usage: [NS="2 4"] [VARIANTS="equal slow"] [MODES=...] [REPEAT=1] [KEEP=0]
#        [PAIRS=1] scripts/gpu/validate-ranks-multi.sh STAGE OUT
# STAGE is absolute (scripts/gpu/stage.sh). With PAIRS=1 and 4 GPUs, two
# 2-rank jobs of the same mode run at once on GPUs 0,1 and 2,3.
set -u
stage=${1:?usage: validate-ranks-multi.sh STAGE OUT} out=${2:?}
B=$stage/build
ex=$stage/examples
here=$(cd "$(dirname "$0")" && pwd)
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
NS=${NS:-"2 4"}
VARIANTS=${VARIANTS:-"equal slow"}
MODES=${MODES:-"plain single-builtin launch-builtin single-nsys launch-nsys"}
REPEAT=${REPEAT:-1}
KEEP=${KEEP:-0}
PROG_ARGS=${PROG_ARGS:-"--blocks 8 --hidden 2048 --steps 32"}
mkdir -p "$out"
w=${WORK:-$(mktemp -d)}
mkdir -p "$w"
ngpu=$(nvidia-smi -L | wc -l)
echo "gpus: $ngpu; $(nvidia-smi --query-gpu=name,driver_version --format=csv,noheader | head -1)"
echo "torch: $(python3 -c 'import torch; print(torch.__version__, torch.cuda.nccl.version())')"
echo "NCCL_NVLS_ENABLE=${NCCL_NVLS_ENABLE:-unset}"

# The same trace both ways: the single command's analysis (its bundle) and
# the per-rank files the launcher path would write from it (trace-tool
# split-ranks, the product's writer), merged; ranks_eval.py compares them.
both_ways() { # RUN_DIR
	local d=$1 tr tool=$stage/gpu-bin/trace-tool
	[ -x "$tool" ] || return 0
	for tr in "$d/bundle/trace/trace.sqlite" "$d/bundle/nsys/run.sqlite"; do
		[ -f "$tr" ] || continue
		"$tool" split-ranks "$tr" "$d/split" >>"$d/err.txt" 2>&1 &&
			"$B/llmprof" merge "$d/split" >>"$d/out.txt" 2>>"$d/err.txt"
		return 0
	done
}

run_one() { # NAME N VARIANT MODE DEVICES
	local name=$1 n=$2 variant=$3 mode=$4 devs=$5 t0=$SECONDS rc
	local d=$w/$name
	mkdir -p "$d"
	local pa=($PROG_ARGS --truth "$d/truth")
	case $variant in
	slow) pa+=(--slow-rank $((n - 1))) ;;
	gpuslow) pa+=(--slow-rank $((n - 1)) --slow-us "${GPUSLOW_US:-3000}") ;;
	late) pa+=(--late-rank $((n - 1))) ;;
	esac
	local tr=(torchrun --standalone --nproc-per-node "$n")
	case $mode in
	plain)
		CUDA_VISIBLE_DEVICES=$devs timeout 300 "${tr[@]}" "$ex/tp_decode.py" "${pa[@]}" \
			>"$d/out.txt" 2>"$d/err.txt"
		rc=$?
		;;
	single-*)
		CUDA_VISIBLE_DEVICES=$devs timeout 400 "$B/llmprof" profile -q -o "$d/runs" \
			pipeline.trace.backend="${mode#single-}" pipeline.ncu.enable=false \
			-- "${tr[@]}" "$ex/tp_decode.py" "${pa[@]}" >"$d/out.txt" 2>"$d/err.txt"
		rc=$?
		local run
		run=$(sed -n 's/^run: //p' "$d/out.txt")
		[ -n "$run" ] && mv "$run" "$d/bundle"
		both_ways "$d"
		;;
	launch-*)
		CUDA_VISIBLE_DEVICES=$devs timeout 400 "${tr[@]}" --no-python "$B/llmprof" profile -q \
			--rank-dir "$d/bundle" pipeline.trace.backend="${mode#launch-}" \
			pipeline.ncu.enable=false -- python3 "$ex/tp_decode.py" "${pa[@]}" \
			>"$d/out.txt" 2>"$d/err.txt"
		rc=$?
		;;
	esac
	echo "$rc $((SECONDS - t0))" >"$d/rc"
}

i=0
for n in $NS; do
	[ "$n" -le "$ngpu" ] || { echo "skip N=$n: $ngpu GPUs"; continue; }
	for r in $(seq 1 "$REPEAT"); do
		for variant in $VARIANTS; do
			for mode in $MODES; do
				name=n$n-$variant-$mode-r$r
				if [ "$n" = 2 ] && [ "${PAIRS:-1}" = 1 ] && [ "$ngpu" -ge 4 ]; then
					run_one "$name" 2 "$variant" "$mode" 0,1 &
					run_one "$name-b" 2 "$variant" "$mode" 2,3 &
					wait
					python3 "$here/ranks_eval.py" "$w/$name" "$w/$name-b" | tee -a "$out/ranks-eval.txt"
				else
					run_one "$name" "$n" "$variant" "$mode" "$(seq -s, 0 $((n - 1)))"
					python3 "$here/ranks_eval.py" "$w/$name" | tee -a "$out/ranks-eval.txt"
				fi
				i=$((i + 1))
			done
		done
	done
done
python3 "$here/ranks_eval.py" --summary "$w" >"$out/ranks-summary.json"
python3 "$here/ranks_eval.py" --table "$w" | tee "$out/ranks-table.txt"
python3 "$here/ranks_eval.py" --symmetry "$w" | tee "$out/ranks-symmetry.txt"
if [ "$KEEP" = 1 ]; then
	# small files of every run and the traces, for fixtures
	(cd "$w" && find . \( -name '*.json' -o -name '*.tsv' -o -name '*.md' -o -name 'out.txt' \
		-o -name 'err.txt' -o -name 'rc' -o -name 'trace.sqlite' -o -name 'run.sqlite' \
		-o -name 'workload.out' -o -name 'config.yaml' \) -print0 |
		tar --null -T - -cJf "$out/ranks-data.tar.xz")
	split -b 15m -d "$out/ranks-data.tar.xz" "$out/ranks-data.tar.xz." && rm "$out/ranks-data.tar.xz"
	ls -la "$out"
fi
