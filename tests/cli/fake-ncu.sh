#!/usr/bin/env bash
# fake-ncu.sh: a stand-in for NVIDIA's ncu, ONLY to exercise how
# `llmprof profile` drives ncu on a machine without a GPU (the real ncu
# cannot capture there). Its console text is ncu 2024.1's own; the imports
# print NVIDIA's raw-page CSVs from tests/data/ncu. Never used for numbers.
#   FAKE_NCU_LOG    each invocation's argv (one line, args joined by '|'),
#                   then "env:" lines for the variables that matter
#   FAKE_NCU_MODE   ok | perm | nokernels | slow (three results, their
#                   progress dots printed over ~1.5 s, as ncu does) | live
#                   (FAKE_NCU_RESULTS results, default 2, printed while the
#                   program runs, FAKE_NCU_PROCS=2 says a second process
#                   connected; ncu's error and exit status when a signal
#                   ends it)
#   FAKE_NCU_QUERY  --query-metrics: "fail" (no driver, as on a machine
#                   without a GPU), or a command whose output is printed
#                   instead of the gh100 excerpt below (e.g. the real ncu
#                   with --query-metrics --chip gh100)
#   FAKE_NCU_CSV    the raw CSV every import prints (default: the dummy one);
#                   an import with --print-kernel-base B prints
#                   <csv>.B.csv instead where that file exists
#   FAKE_NCU_ONE_PASS  1: --help offers --filter-mode per-launch-config (as
#                   ncu 2024.1+ does); otherwise it does not
#   FAKE_NCU_NAMES  a file of "mangled|demangled|grid|block" lines: a capture
#                   whose -k regex:^MANGLED$ is listed writes its own raw
#                   CSV instead, the dummy's first result renamed to that
#                   kernel and configuration, so that it joins a trace
#   The program runs with FAKE_NCU_CAPTURE=<-o's base name> (k0, k1, ...),
#   so that it can tell the captures apart (hang in one, as a test needs).
#   Like ncu, the report is written when the program has ended, however
#   it ended (an interrupt that reaches only the program keeps it).
#   FAKE_NCU_ORACLE, FAKE_NCU_DETAILS_REP  `--import R --page details ...`
#                   runs NVIDIA's ncu (the oracle) on that real report
#                   instead; without them it fails, as a broken import would
set -u
data=$(cd "$(dirname "$0")/../data/ncu" && pwd)
log=${FAKE_NCU_LOG:-/dev/null}
(IFS='|'; echo "$*") >>"$log"
echo "env: CUDA_INJECTION64_PATH=${CUDA_INJECTION64_PATH-unset} LC_ALL=${LC_ALL-unset} LLMPROF_RUN_DIR=${LLMPROF_RUN_DIR-unset}" >>"$log"
case "${1:-}" in
--version)
	echo "NVIDIA (R) Nsight Compute Command Line Profiler"
	echo "Copyright (c) 2018-2024 NVIDIA Corporation"
	echo "Version 2024.1.1.0 (build 33998838) (public-release)"
	exit 0 ;;
--help)
	echo "usage: ncu [options] [program] [program-arguments]"
	echo "  -k [ --kernel-name ] arg              Filter the kernel in one of the following ways:"
	if [ "${FAKE_NCU_ONE_PASS:-0}" = 1 ]; then
		echo "  --filter-mode arg (=global)           Set the filter mode for kernel launches. Available modes:"
		echo "                                           per-launch-config: Apply kernel filters and launch filters on kernel"
	fi
	exit 0 ;;
--list-sections)
	# ncu 2024.1.1's own table
	cat "$data/list-sections-ncu2024.1.1.txt"
	exit 0 ;;
--query-metrics)
	case "${FAKE_NCU_QUERY:-}" in
	fail) echo "==ERROR== Driver could not be loaded."; exit 1 ;;
	?*) $FAKE_NCU_QUERY; exit ;;
	esac
	# ncu 2024.1.1 --query-metrics --chip gh100, the lines of the metrics
	# llmprof's presets ask for
	cat <<'T'
Chip gh100
------------------------------------------------------------------------------- --------------- --------------- ----------------------------------------------------------------------
Metric Name                                                                     Metric Type     Metric Unit     Metric Description                                                    
------------------------------------------------------------------------------- --------------- --------------- ----------------------------------------------------------------------
dram__bytes_read                                                                Counter         byte            # of bytes read from DRAM                                             
dram__bytes_write                                                               Counter         byte            # of bytes written to DRAM                                            
gpu__compute_memory_throughput                                                  Throughput      %               Compute Memory Pipeline Throughput                                    
gpu__time_duration                                                              Counter         nsecond         equals to gpu__time_duration_measured_user if collectable, otherwise  
                                                                                                                equals to gpu__time_duration_measured_wallclock                       
sm__ops_path_tensor_src_bf16_dst_fp32                                       Counter                         # of math ops executed in Tensor path with source BF16 and            
                                                                                                            destination FP32                                                      
sm__ops_path_tensor_src_fp16                                                Counter                         # of math ops executed in Tensor path with source FP16                
sm__sass_thread_inst_executed_op_fadd_pred_on                                 Counter         inst            # of FADD thread instructions executed where all predicates were true 
sm__sass_thread_inst_executed_op_ffma_pred_on                                 Counter         inst            # of FFMA thread instructions executed where all predicates were true 
sm__sass_thread_inst_executed_op_fmul_pred_on                                 Counter         inst            # of FMUL thread instructions executed where all predicates were true 
sm__sass_thread_inst_executed_op_hadd_pred_on                                 Counter         inst            # of HADD thread instructions executed where all predicates were true 
sm__sass_thread_inst_executed_op_hfma_pred_on                                 Counter         inst            # of HFMA thread instructions executed where all predicates were true 
sm__sass_thread_inst_executed_op_hmul_pred_on                                 Counter         inst            # of HMUL thread instructions executed where all predicates were true 
sm__throughput                                                                Throughput      %               SM throughput assuming ideal load balancing across SMSPs              
==PROF== Note that these metrics must be appended with a valid suffix before profiling them. See --help for more information on --query-metrics-mode.
T
	exit 0 ;;
--import)
	[ -f "$2" ] || { echo "==ERROR== Failed to open file $2" >&2; exit 1; }
	case " $* " in
	*" --page details "*)
		# the human-readable page: NVIDIA's ncu on a real report
		[ -n "${FAKE_NCU_ORACLE:-}" ] || { echo "==ERROR== fake ncu: no details page" >&2; exit 1; }
		shift 2
		exec "$FAKE_NCU_ORACLE" --import "${FAKE_NCU_DETAILS_REP:?}" "$@" ;;
	esac
	csv=$(cat "$2")
	case " $* " in
	*" --print-kernel-base "*)
		b=$(printf '%s\n' "$@" | sed -n '/^--print-kernel-base$/{n;p;}')
		[ -f "${csv%.csv}.$b.csv" ] && csv=${csv%.csv}.$b.csv ;;
	esac
	cat "$csv"
	exit 0 ;;
esac
out= prog=() kname=
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--kernel-name) kname=$2; shift 2 ;;
	--nvtx|--force-overwrite) shift ;;
	--*) shift 2 ;;
	*) prog=("$@"); break ;;
	esac
done

mode=${FAKE_NCU_MODE:-ok} rc=0
if [ "$mode" = live ]; then
	# as ncu does: the results come in while the program runs; a program
	# that ends by a signal is ncu's error, and its exit status
	FAKE_NCU_CAPTURE=$(basename "$out") "${prog[@]}" >/dev/null 2>&1 &
	pid=$!
	echo "==PROF== Connected to process $pid (${prog[0]})"
	[ "${FAKE_NCU_PROCS:-1}" = 2 ] && echo "==PROF== Connected to process $((pid + 1)) (${prog[0]})"
	for r in $(seq 0 $((${FAKE_NCU_RESULTS:-2} - 1))); do
		echo "==PROF== Profiling \"add\" - $r: 0%....50%....100% - 9 passes"
	done
	wait "$pid"
	st=$?
	if [ "$st" -gt 128 ]; then
		rc=$((st - 128))
		echo "==ERROR== The application returned an error code ($rc)."
	fi
	echo "==PROF== Disconnected from process $pid"
else
	FAKE_NCU_CAPTURE=$(basename "$out") "${prog[@]}" >/dev/null 2>&1
	sleep 0.3 # a capture takes time; the import does not
	echo "==PROF== Connected to process 4242 (${prog[0]})"
fi
case "$mode" in
perm)
	echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
	echo "==PROF== Disconnected from process 4242"
	exit 1 ;;
nokernels)
	echo "==PROF== Disconnected from process 4242"
	echo "==WARNING== No kernels were profiled."
	exit 0 ;;
slow)
	# ncu grows each result's line as passes complete; the program's own
	# output may land in the middle of it
	for r in 0 1 2; do
		printf '==PROF== Profiling "add" - %s: 0%%' $r
		sleep 0.2
		printf '....50%%'
		sleep 0.2
		[ $r = 1 ] && printf 'tokens: 8\n'
		printf '....100%% - 9 passes\n'
		sleep 0.1
	done ;;
esac
case "$mode" in
live) ;;
slow) echo "==PROF== Disconnected from process 4242" ;;
*) echo '==PROF== Profiling "add" - 0: 0%....50%....100% - 9 passes'
   echo "==PROF== Disconnected from process 4242" ;;
esac
csv=${FAKE_NCU_CSV:-$data/h100-dummy-kernel-replay-ncu2025.3.raw.csv}
if [ -n "${FAKE_NCU_NAMES:-}" ]; then
	# the dummy's header, units and first result, as kernel $kname (one
	# result per listed name of a one-pass alternation "regex:^(a|b)$"),
	# and <out>.mangled.csv, the names import of the same results
	python3 - "$csv" "$FAKE_NCU_NAMES" "$kname" "$out.fake.csv" <<'PY' && csv=$out.fake.csv
import csv, sys
src, names, kname, dst = sys.argv[1:]
m = kname[len("regex:^"):-1] if kname.startswith("regex:^") else ""
want = m[1:-1].split("|") if m.startswith("(") and m.endswith(")") else [m]
listed = [l.rstrip("\n").split("|") for l in open(names)]
sel = [row for w in want for row in listed if row[0] == w]
if not sel:
    sys.exit(1)
rows = list(csv.reader(open(src, newline="")))
h = rows[0]
out, mout = rows[:2], [rows[0], rows[1]]
for i, row in enumerate(sel):
    r = list(rows[2])
    r[h.index("ID")], r[h.index("Kernel Name")] = str(i), row[1]
    r[h.index("Grid Size")], r[h.index("Block Size")] = row[2], row[3]
    out.append(r)
    mr = list(r)
    mr[h.index("Kernel Name")] = row[0]
    mout.append(mr)
with open(dst, "w", newline="") as f:
    csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(out)
with open(dst[:-len(".csv")] + ".mangled.csv", "w", newline="") as f:
    csv.writer(f, quoting=csv.QUOTE_ALL, lineterminator="\n").writerows(mout)
PY
fi
echo "$csv" >"$out.ncu-rep"
echo "==PROF== Report: $out.ncu-rep"
exit "$rc"
