#!/usr/bin/env bash
# tracer-cost.sh: what each part of the builtin tracer costs, on a CUDA-graph
# replay decode loop and an eager one, with CUPTI's floor beside it, in one
# GPU call (about 6.5 minutes on an H200 with the defaults).
#   bash bench/tracer/tracer-cost.sh OUT        (on the GPU machine)
# Builds, from this repository, into a temporary directory: the tracer
# (tracer/*.c with cc, the flags of tracer/CMakeLists.txt), the CUPTI floor
# (bench/tracer/cupti_floor.c) and bench/tracer/decode_sim.cu (nvcc); then
# bench/tracer/tracer_cost.py runs the programs untraced, under the floor,
# under the builtin tracer and under the builtin with each part removed
# alone, in interleaved rounds, and writes OUT/{env.txt, raw.csv,
# checks.txt, summary.txt, summary.json, runs.log}. Needs python3; the
# transformers programs need torch and transformers (skipped, and said so,
# without them). Exit 0 when every run and check passed.
#
# Knobs (environment):
#   TC_BUDGET_S (400)   no round starts that would end later, counted from
#                       this script's start (build included); runs still
#                       going 40 s past it are killed
#   TC_ROUNDS (3)       rounds at most
#   TC_SIM_BUDGET_S     no sim round starts that would end later (default:
#                       TC_BUDGET_S), so the Python program keeps its rounds
#   TC_GRACE_S (40)     how long past the budget a run may still go
#   TC_SIM_VARIANTS, TC_PY_VARIANTS   variant names (tracer_cost.py's
#                       VARIANTS), space-separated; empty: that program is
#                       skipped
#   TC_SIM_ARGS ("300 100 4")   decode_sim: kernels per step, steps, reps
#   TC_PY_ARGS ("layers=16 steps=32 gsteps=64 reps=4 glayers=16")
#   TC_PIN              CPUs every run is pinned to (default 2-9 when the
#                       machine has 12 or more, else none; "none": none)
#   TC_BIN              a directory with some of libllmprof_tracer.so,
#                       libcupti_floor.so and decode_sim (a staged build's
#                       .gpu/stage/gpu-bin: scripts/gpu/stage.sh): those are
#                       used, the others built from this tree
#   TC_PLACE (none)     auto or a CPU: the launching thread of every run gets
#                       that CPU (auto: the first of TC_PIN) to itself, after
#                       the program's set-up; its other threads (CUDA's,
#                       CUPTI's, the tracer's) the rest of TC_PIN but that
#                       CPU's hyperthread siblings (tracer_cost.py --main-cpu)
#   TC_NO_FORK=1        start every Python child afresh (imports included)
set -u
t0=$(date +%s)
out=${1:-${OUT:-}}
[ -n "$out" ] || { echo "usage: tracer-cost.sh OUT" >&2; exit 2; }
root=$(cd "$(dirname "$0")/../.." && pwd)
cuda=${CUDA_HOME:-/usr/local/cuda}
mkdir -p "$out" || exit 2
out=$(cd "$out" && pwd)
tmp=$(mktemp -d /tmp/tracer-cost.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT
export LD_LIBRARY_PATH=$cuda/lib64:$cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
env_txt=$out/env.txt

# CUPTI to link against: the toolkit's (it matches the driver on these machines)
cupti=
for d in "$cuda/lib64" "$cuda/extras/CUPTI/lib64"; do
	for f in "$d/libcupti.so" "$d"/libcupti.so.[0-9]*; do
		[ -f "$f" ] && { cupti=$f; break 2; }
	done
done

# Builds into $tmp/bin what it lacks: with TC_BIN, what that directory has
# is linked in (a staged build's gpu-bin/ has the tracer and the floor) and
# only the rest is built from this tree.
build() {
	local cc=${CC:-$(command -v cc || command -v gcc)}
	bin=$tmp/bin
	mkdir -p "$bin"
	if [ -n "${TC_BIN:-}" ]; then
		for f in libllmprof_tracer.so libcupti_floor.so decode_sim; do
			[ -f "$TC_BIN/$f" ] && ln -s "$(cd "$TC_BIN" && pwd)/$f" "$bin/$f" && echo "prebuilt: $TC_BIN/$f"
		done
	fi
	[ -n "$cupti" ] || { echo "build: no libcupti.so under $cuda"; return 1; }
	local cupti_dir
	cupti_dir=$(dirname "$cupti")
	[ -e "$bin/libllmprof_tracer.so" ] ||
		"$cc" -std=c11 -O2 -g -DNDEBUG -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -fPIC -shared \
			-fvisibility=hidden -I"$root/src" -I"$cuda/include" \
			"$root"/tracer/{log,nvtx,nvtx_payload,cupti,records,sample,cost}.c "$root/src/trace/rankid.c" \
			"$cupti" -Wl,-rpath,"$cupti_dir" -lpthread -ldl -lrt -Wl,--no-undefined \
			-o "$bin/libllmprof_tracer.so" || { echo "build: the tracer failed"; return 1; }
	[ -e "$bin/libcupti_floor.so" ] ||
		"$cc" -O2 -shared -fPIC -I"$cuda/include" "$root/bench/tracer/cupti_floor.c" "$cupti" \
			-Wl,-rpath,"$cupti_dir" -o "$bin/libcupti_floor.so" || echo "build: the floor failed"
	local cap
	cap=$(nvidia-smi --query-gpu=compute_cap --format=csv,noheader 2>/dev/null | head -n 1 | tr -d '. ')
	[ -e "$bin/decode_sim" ] ||
		"$cuda/bin/nvcc" -O2 -arch="sm_${cap:-90}" -o "$bin/decode_sim" \
			"$root/bench/tracer/decode_sim.cu" -ldl || echo "build: decode_sim failed"
	return 0
}

{
	echo "tracer-cost.sh started $(date -u)"
	nvidia-smi --query-gpu=name,driver_version,compute_cap,clocks.sm,clocks.max.sm,memory.total --format=csv 2>&1
	"$cuda/bin/nvcc" --version 2>&1 | tail -n 2
	echo "cupti: $cupti -> $(readlink -f "$cupti" 2>/dev/null)"
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)' 2>&1 | tail -n 1
	echo "cpus $(nproc); $(grep -m1 'model name' /proc/cpuinfo)"
	# what can make one CPU slower than another, or the same CPU slower later
	lscpu 2>/dev/null | grep -Ei '^(socket|core|thread|numa node|cpu max|cpu min|hypervisor|model name)'
	for c in /sys/devices/system/cpu/cpu[0-9]*; do
		printf '%s siblings %s governor %s MHz %s\n' "${c##*/}" \
			"$(cat "$c/topology/thread_siblings_list" 2>/dev/null)" \
			"$(cat "$c/cpufreq/scaling_governor" 2>/dev/null || echo -)" \
			"$(($(cat "$c/cpufreq/scaling_cur_freq" 2>/dev/null || echo 0) / 1000))"
	done
	awk -F': ' '/cpu MHz/ {printf "%s ", int($2)} END {print "(cpu MHz, /proc/cpuinfo)"}' /proc/cpuinfo
	echo "load average $(cut -d' ' -f1-3 /proc/loadavg)"
	echo "llmprof commit $(git -C "$root" rev-parse HEAD 2>/dev/null || cat "$root/.gpu-commit" 2>/dev/null || echo unknown)"
	echo "tracer sources sha256 $(cat "$root"/tracer/*.c "$root"/tracer/*.h | sha256sum | cut -c1-16)"
	tb=$(date +%s)
	build 2>&1
	echo "built in $(($(date +%s) - tb)) s"
	ls -lL "$bin" 2>&1
} >"$env_txt" 2>&1
bin=$tmp/bin
cat "$env_txt"
[ -f "$bin/libllmprof_tracer.so" ] || { echo "tracer-cost: no tracer library (see $env_txt)" >&2; exit 1; }

pin=${TC_PIN:-}
if [ -z "$pin" ] && [ "$(nproc)" -ge 12 ]; then pin=2-9; fi
[ "$pin" = none ] && pin=
args=(--bin "$bin" --out "$out" --tmp "$tmp" --t0 "$t0" --budget-s "${TC_BUDGET_S:-400}"
	--rounds "${TC_ROUNDS:-3}" --pin "$pin")
[ -n "${TC_SIM_BUDGET_S:-}" ] && args+=(--sim-budget-s "$TC_SIM_BUDGET_S")
[ -n "${TC_GRACE_S:-}" ] && args+=(--grace-s "$TC_GRACE_S")
[ -n "${TC_SIM_VARIANTS+set}" ] && args+=(--sim-variants "$TC_SIM_VARIANTS")
[ -n "${TC_PY_VARIANTS+set}" ] && args+=(--py-variants "$TC_PY_VARIANTS")
[ -n "${TC_SIM_ARGS:-}" ] && args+=(--sim-args "$TC_SIM_ARGS")
[ -n "${TC_PY_ARGS:-}" ] && args+=(--py-args "$TC_PY_ARGS")
[ "${TC_NO_FORK:-0}" = 1 ] && args+=(--no-fork)
[ -n "${TC_PLACE:-}" ] && args+=(--main-cpu "$TC_PLACE")
# Nothing of an outer tracer may leak into the runs.
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH LLMPROF_TRACE_OUT
python3 "$root/bench/tracer/tracer_cost.py" "${args[@]}"
rc=$?
echo "tracer-cost.sh ended $(date -u), $(($(date +%s) - t0)) s, rc $rc" >>"$env_txt"
exit $rc
