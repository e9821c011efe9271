#!/usr/bin/env bash
# fake-ncu.sh: a stand-in for NVIDIA's ncu, ONLY to exercise how
# `llmprof profile` drives ncu on a machine without a GPU (the real ncu
# cannot capture there). Its console text is ncu 2024.1's own; the imports
# print NVIDIA's raw-page CSVs from tests/data/ncu. Never used for numbers.
#   FAKE_NCU_LOG    each invocation's argv (one line, args joined by '|'),
#                   then "env:" lines for the variables that matter
#   FAKE_NCU_MODE   ok | perm | nokernels
#   FAKE_NCU_CSV    the raw CSV every import prints (default: the dummy one)
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
--list-sections)
	cat <<'T'
-------------------------------------------- ----------------------------------------------------------------- ------- --------------------------------------------------
Identifier                                   Display Name                                                      Enabled Filename                                          
-------------------------------------------- ----------------------------------------------------------------- ------- --------------------------------------------------
LaunchStats                                  Launch Statistics                                                 yes     ...pute/2024.1.1/Sections/LaunchStatistics.section
MemoryWorkloadAnalysis                       Memory Workload Analysis                                          no      ...024.1.1/Sections/MemoryWorkloadAnalysis.section
T
	exit 0 ;;
--import)
	[ -f "$2" ] || { echo "==ERROR== Failed to open file $2" >&2; exit 1; }
	cat "$(cat "$2")"
	exit 0 ;;
esac
out= prog=()
while [ $# -gt 0 ]; do
	case "$1" in
	-o) out=$2; shift 2 ;;
	--nvtx|--force-overwrite) shift ;;
	--*) shift 2 ;;
	*) prog=("$@"); break ;;
	esac
done

"${prog[@]}" >/dev/null 2>&1
sleep 0.3 # a capture takes time; the import does not
echo "==PROF== Connected to process 4242 (${prog[0]})"
mode=${FAKE_NCU_MODE:-ok}
case "$mode" in
perm)
	echo "==ERROR== ERR_NVGPUCTRPERM - The user does not have permission to access NVIDIA GPU Performance Counters on the target device 0. For instructions on enabling permissions and to get more information see https://developer.nvidia.com/ERR_NVGPUCTRPERM"
	echo "==PROF== Disconnected from process 4242"
	exit 1 ;;
nokernels)
	echo "==PROF== Disconnected from process 4242"
	echo "==WARNING== No kernels were profiled."
	exit 0 ;;
esac
echo '==PROF== Profiling "add" - 0: 0%....50%....100% - 9 passes'
echo "==PROF== Disconnected from process 4242"
echo "${FAKE_NCU_CSV:-$data/h100-dummy-kernel-replay-ncu2025.3.raw.csv}" >"$out.ncu-rep"
echo "==PROF== Report: $out.ncu-rep"
exit 0
