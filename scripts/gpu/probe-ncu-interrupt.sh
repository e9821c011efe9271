#!/usr/bin/env bash
# GPU probe: does Nsight Compute keep what it measured when the program it
# profiles is interrupted? llmprof's ncu step relies on it: Ctrl-C goes to
# the profiled program first (NCU_INTERRUPT_WAIT_S, docs/ncu.md "Ctrl-C:
# what was measured is kept"). Two runs of a program that never ends, each
# interrupted after 12 s: "target" sends SIGINT to the program (what
# llmprof does), "ncu" to ncu itself (what it did before). For each: how
# long ncu took to exit, its last lines, and how many results its report
# holds. Run on the GPU machine from the project root:
#   scripts/gpu/probe-ncu-interrupt.sh OUT
set -uo pipefail
out=$1
export PATH=/usr/local/cuda/bin:$PATH LC_ALL=C
NCU=${NCU:-$(command -v ncu || ls /opt/nvidia/nsight-compute/*/ncu 2>/dev/null | sort -V | tail -1)}
mkdir -p "$out"
"$NCU" --version | tail -1
nvcc -O2 -o "$out/k" scripts/gpu/probe/ncu_interrupt_probe.cu || exit 1
for mode in target ncu; do
	rm -f "$out/rep-$mode.ncu-rep"
	"$NCU" --target-processes all --section SpeedOfLight -k regex:kA -o "$out/rep-$mode" "$out/k" \
		>"$out/ncu-$mode.log" 2>&1 &
	np=$!
	sleep 12
	tp=$(pgrep -P $np | head -1)
	if [ $mode = target ]; then kill -INT "$tp"; else kill -INT $np; fi
	t0=$(date +%s.%N)
	for _ in $(seq 300); do kill -0 $np 2>/dev/null || break; sleep 0.1; done
	echo "$mode: SIGINT to pid $([ $mode = target ] && echo "$tp (the program)" || echo "$np (ncu)");" \
		"ncu ended after $(python3 -c "import time; print(round(time.time() - $t0, 2))") s"
	kill -KILL $np 2>/dev/null
	wait $np
	echo "$mode: ncu exit status $?; its last lines:"
	tail -n 3 "$out/ncu-$mode.log" | sed 's/^/    /'
	if [ -f "$out/rep-$mode.ncu-rep" ]; then
		echo "$mode: report with $("$NCU" --import "$out/rep-$mode.ncu-rep" --csv --page raw \
			--metrics gpu__time_duration.sum | tail -n +3 | wc -l) results"
	else
		echo "$mode: no report"
	fi
done
