#!/usr/bin/env bash
# overhead-matrix.sh: the builtin tracer's overhead, one GPU session.
#   bench/tracer/overhead-matrix.sh OUTDIR
# Runs the transformers decode loop (bench/tracer/decode_loop.py, default
# args) and 100k tiny launches (gpu-bin/tiny_launch) untraced and under each
# tracer variant, interleaved: round r runs every variant once, each in a
# process of its own (warm-up inside), starting at a rotating position, so
# drift of the machine hits all variants alike. Then checks every traced
# decode log (kernel count, attribution to NVTX ranges, no drops) and prints
# medians, spreads and ratios. Exit 0 only when every run succeeded, every
# check passed and every variant got MATRIX_REPS rounds.
#
# Needs, relative to the repository root (or MATRIX_BIN): gpu-bin/
# libllmprof_tracer.so, trace-tool, tiny_launch (built on the CI machine);
# python3 with torch and transformers. Knobs (environment):
#   MATRIX_REPS (5)            rounds per program
#   MATRIX_DECODE_REPS (MATRIX_REPS)   decode rounds (0: tiny_launch only)
#   MATRIX_BUDGET_S (170)      no new decode round once it would end later
#   MATRIX_VARIANTS ("callback activity activity+LLMPROF_TRACE_API_CALLS=all none")
#                              LLMPROF_TRACE_API values (may be empty: decode
#                              runs untraced only), each optionally followed
#                              by +VAR=VALUE settings (e.g.
#                              activity+LLMPROF_TRACE_MEMOPS=0, or
#                              activity+LLMPROF_TRACE_CPU_SAMPLE_HZ=100 for the
#                              CPU sampler); the default
#                              compares recording launch calls only with
#                              recording every CUDA API call (API_CALLS=all)
#   MATRIX_TINY_VARIANTS (MATRIX_VARIANTS)   the same for tiny_launch
#                              The variant "nsys" runs the program under
#                              `$MATRIX_NSYS profile --trace=cuda,nvtx` instead
#                              (MATRIX_NSYS: nsys binary; MATRIX_NSYS_LIBS:
#                              prepended to its LD_LIBRARY_PATH). The variant
#                              "cupti-floor" injects gpu-bin/libcupti_floor.so
#                              (bench/tracer/cupti_floor.c: CUPTI kernel
#                              activity only, records counted and dropped).
#   MATRIX_DECODE_KERNELS (88447), MATRIX_DECODE_STEP_OPS (43456),
#   MATRIX_PREFILL_OPS (694)   expected content of a traced decode loop
#                              (MATRIX_DECODE_KERNELS=any: count not checked)
#   MATRIX_DECODE_ARGS         extra decode_loop.py arguments, e.g. "--reps 3"
#                              (more samples per process; then set the three
#                              expectations above to match)
#   MATRIX_DECODE_CMD          replaces "python3 decode_loop.py" (tests)
#   MATRIX_PIN                 CPU list for taskset: every run on the same cores
# Cost on the H100 (2026-11-21): a decode process takes ~25 s (imports, model
# construction, warm-up), a tiny one ~1 s; 4 decode variants x 5 rounds need
# ~9 minutes, the default 5 (untraced and the four above) ~11: within one
# 10-minute call, run fewer rounds (MATRIX_REPS=3) or fewer variants. The
# budget check stops decode rounds early and says so (FAIL).
# Output: OUTDIR/{env.txt,raw.csv,checks.txt,matrix.txt,stderr.txt}.
set -u -o pipefail
out=${1:?usage: overhead-matrix.sh OUTDIR}
root=$(cd "$(dirname "$0")/../.." && pwd)
bin=${MATRIX_BIN:-$root/gpu-bin}
so=$bin/libllmprof_tracer.so
tool=$bin/trace-tool
tiny=$bin/tiny_launch
report=$root/bench/tracer/matrix_report.py
decode=$root/bench/tracer/decode_loop.py
reps=${MATRIX_REPS:-5}
decode_reps=${MATRIX_DECODE_REPS:-$reps}
budget=${MATRIX_BUDGET_S:-170}
read -r -a variants <<<"${MATRIX_VARIANTS-callback activity activity+LLMPROF_TRACE_API_CALLS=all none}"
read -r -a tiny_variants <<<"${MATRIX_TINY_VARIANTS-${variants[*]}}"
want_kernels=${MATRIX_DECODE_KERNELS:-88447}
want_step=${MATRIX_DECODE_STEP_OPS:-43456}
want_prefill=${MATRIX_PREFILL_OPS:-694}
logs=${MATRIX_LOGS:-/tmp/llmprof-matrix-logs}
launches=100000

die() { echo "overhead-matrix: $*" >&2; exit 1; }
mkdir -p "$out" || die "cannot create $out"
for f in "$so" "$tool" "$tiny" "$report" "$decode"; do
	[ -e "$f" ] || die "missing $f"
done
so=$(cd "$(dirname "$so")" && pwd)/$(basename "$so") # injection paths must be absolute
rm -rf "$logs" && mkdir -p "$logs" || die "cannot create $logs"
# Nothing of an outer profiler or tracer may leak into the untraced runs.
unset CUDA_INJECTION64_PATH NVTX_INJECTION64_PATH LLMPROF_TRACE_OUT LLMPROF_TRACE_API \
	LLMPROF_TRACE_API_CALLS LLMPROF_TRACE_MEMOPS LLMPROF_TRACE_CUDA LLMPROF_TRACE_NVTX \
	LLMPROF_TRACE_CPU_SAMPLE_HZ LLMPROF_TRACE_CPU_UNWIND
# The machine's own CUPTI first (it matches the driver).
export LD_LIBRARY_PATH=/usr/local/cuda/lib64:/usr/local/cuda/extras/CUPTI/lib64${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
# trace-tool needs libsqlite3.so.0: the machine's, else one carried in gpu-bin/lib.
tool_run() { LD_LIBRARY_PATH=$LD_LIBRARY_PATH:$bin/lib "$tool" "$@"; }
failures=0
fail() { echo "FAIL: $*" | tee -a "$out/checks.txt"; failures=$((failures + 1)); }
t_start=$(date +%s)
elapsed() { echo $(($(date +%s) - t_start)); }

{
	date -u
	nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv
	nvcc --version 2>/dev/null | tail -1
	ls -l /usr/local/cuda/lib64/libcupti.so.* 2>&1
	ldd "$so" | grep -i cupti
	python3 -c 'import torch, transformers; print("torch", torch.__version__, "cuda", torch.version.cuda, "transformers", transformers.__version__)'
	sha256sum "$so" "$tiny" "$tool"
	tool_run convert /nonexistent /tmp/x.sqlite 2>&1 | head -1 # loads?
	[ -f "$root/.gpu-commit" ] && echo "llmprof commit $(cat "$root/.gpu-commit")"
	nproc
	echo "decode variants: untraced ${variants[*]}; tiny variants: untraced ${tiny_variants[*]}"
	echo "rounds $reps (decode $decode_reps); budget ${budget}s; decode args: ${MATRIX_DECODE_ARGS:-(none)}"
} >"$out/env.txt" 2>&1 || die "environment probe failed (see $out/env.txt)"
cat "$out/env.txt"
echo "program,variant,round,wall_s" >"$out/raw.csv"
: >"$out/checks.txt"
: >"$out/stderr.txt"

# run_one PROGRAM VARIANT ROUND: one process; appends to raw.csv.
run_one() {
	local prog=$1 v=$2 r=$3 dir="" line rc wall key
	local -a envs=() cmd pre=()
	if [ "$v" = nsys ]; then
		dir=$logs/$prog-$v-$r
		mkdir -p "$dir" || die "cannot create $dir"
		[ -x "${MATRIX_NSYS:-}" ] || die "variant nsys needs MATRIX_NSYS"
		envs=(LD_LIBRARY_PATH="${MATRIX_NSYS_LIBS:+$MATRIX_NSYS_LIBS:}$LD_LIBRARY_PATH")
		pre=("$MATRIX_NSYS" profile --trace=cuda,nvtx -o "$dir/run" --force-overwrite=true)
	elif [ "$v" = cupti-floor ]; then
		[ -f "$bin/libcupti_floor.so" ] || die "variant cupti-floor needs $bin/libcupti_floor.so"
		rm -f "$logs/floor-count"
		envs=(CUDA_INJECTION64_PATH="$(cd "$bin" && pwd)/libcupti_floor.so"
		      CUPTI_FLOOR_OUT="$logs/floor-count")
	elif [ "$v" != untraced ]; then
		dir=$logs/$prog-$v-$r
		mkdir -p "$dir" || die "cannot create $dir"
		envs=(LLMPROF_TRACE_OUT="$dir" CUDA_INJECTION64_PATH="$so" NVTX_INJECTION64_PATH="$so"
		      LLMPROF_TRACE_API="${v%%+*}")
		local -a extra
		IFS=+ read -r -a extra <<<"$v"
		[ "${#extra[@]}" -gt 1 ] && envs+=("${extra[@]:1}")
	fi
	case $prog in
	tiny) cmd=("$tiny" "$launches") key=wall_s ;;
	decode)
		if [ -n "${MATRIX_DECODE_CMD:-}" ]; then
			read -r -a cmd <<<"$MATRIX_DECODE_CMD"
		else
			local -a dargs
			read -r -a dargs <<<"${MATRIX_DECODE_ARGS:-}"
			cmd=(python3 "$decode" "${dargs[@]}")
		fi
		key=decode_wall_s
		;;
	esac
	echo "== $prog $v round $r" >>"$out/stderr.txt"
	# nsys prints its own lines after the program's: take the program's
	local -a pin=()
	[ -n "${MATRIX_PIN:-}" ] && pin=(taskset -c "$MATRIX_PIN")
	env "${envs[@]}" timeout 150 "${pin[@]}" "${pre[@]}" "${cmd[@]}" >"$logs/stdout" 2>>"$out/stderr.txt"
	rc=$?
	line=$(grep -a "$key" "$logs/stdout" | tail -n 1)
	wall=$(awk -v k="$key" '{ for (i = 1; i < NF; i++) if ($i == k) print $(i + 1) }' <<<"$line")
	if [ "$rc" -ne 0 ] || [ -z "$wall" ]; then
		fail "$prog $v round $r: rc $rc, output '$line'"
		return
	fi
	if [ "$prog" = tiny ] && ! grep -q ' err 0$' <<<"$line"; then
		fail "tiny $v round $r: CUDA error: $line"
		return
	fi
	echo "$prog,$v,$r,$wall" >>"$out/raw.csv"
	if [ "$v" = cupti-floor ]; then # the floor must have seen every kernel
		local fk want=$want_kernels
		[ "$prog" = tiny ] && want=$((launches + 100))
		fk=$(cat "$logs/floor-count" 2>/dev/null)
		if [ "$want" != any ] && [ "$fk" != "kernels $want dropped 0" ]; then
			fail "$prog $v round $r: floor saw '${fk:-nothing}' (want $want kernels)"
		else
			echo "ok   $prog $v round $r: ${fk:-?}" >>"$out/checks.txt"
		fi
	fi
	printf '%4ss  %-6s round %d  %-18s %s\n' "$(elapsed)" "$prog" "$r" "$v" "$wall"
}

# round PROGRAM R: every variant once, starting at a rotating position.
round() {
	local -a all
	local n i
	if [ "$1" = tiny ]; then all=(untraced "${tiny_variants[@]}"); else all=(untraced "${variants[@]}"); fi
	n=${#all[@]}
	for ((i = 0; i < n; i++)); do
		run_one "$1" "${all[$(((i + $2) % n))]}" "$2"
	done
}

# Cold caches (imports, CUDA JIT cache) must not land in the first round.
if [ -n "${MATRIX_DECODE_CMD:-}" ]; then
	read -r -a warm <<<"$MATRIX_DECODE_CMD"
else
	warm=(python3 -c 'import torch, transformers; torch.zeros(1, device="cuda")')
fi
if ((decode_reps > 0)); then
	timeout 120 "${warm[@]}" >>"$out/stderr.txt" 2>&1 || fail "decode warm-up failed"
fi
timeout 60 "$tiny" 1000 >/dev/null 2>>"$out/stderr.txt" || fail "tiny_launch warm-up failed"

decode_rounds=0
for ((r = 1; r <= decode_reps; r++)); do
	t0=$(date +%s)
	round decode "$r"
	decode_rounds=$r
	per_round=$(($(date +%s) - t0))
	if ((r < decode_reps && $(elapsed) + per_round > budget)); then
		fail "decode: stopped after $r of $decode_reps rounds (${budget}s budget; a round takes ${per_round}s)"
		break
	fi
done
for ((r = 1; r <= reps; r++)); do
	round tiny "$r"
done

# Checks: every traced decode log, round 1 of the tiny logs.
check_log() { # check_log PROGRAM VARIANT ROUND
	local prog=$1 v=$2 r=$3 dir=$logs/$1-$2-$3 conv k api other ops unattr drops problems
	[ -d "$dir" ] && [ "$v" != nsys ] || return
	conv=$(tool_run convert "$dir" "$dir/t.sqlite" 2>&1)
	if [ $? -ne 0 ]; then
		fail "$prog $v round $r: convert failed: $conv"
		return
	fi
	k=$(awk '/^files/ { for (i = 1; i < NF; i++) if ($i == "kernels") print $(i + 1) }' <<<"$conv")
	api=$(awk '/^files/ { for (i = 1; i < NF; i++) if ($i == "api") print $(i + 1) }' <<<"$conv")
	# the other CUDA API calls (LLMPROF_TRACE_API_CALLS=all); "api" counts launch calls only
	other=$(awk '/^files/ { n = 0; for (i = 1; i < NF; i++) if ($i == "api_other") n = $(i + 1); print n }' <<<"$conv")
	ops=$(awk '/^files/ { for (i = 1; i < NF; i++) if ($i ~ /^(kernels|memcpy|memset)$/) n += $(i + 1); print n }' <<<"$conv")
	unattr=$(awk '/^open_ranges/ { print $6 }' <<<"$conv")
	drops=$(awk '/^open_ranges/ { print $8 + $10 }' <<<"$conv")
	problems=$(awk '/^open_ranges/ { print $12 }' <<<"$conv")
	local want=$want_kernels
	[ "$prog" = tiny ] && want=$((launches + 100))
	local msg="$prog $v round $r: kernels $k api $api unattributed $unattr dropped $drops problems $problems"
	[ "$want" = any ] || [ "$k" = "$want" ] || { fail "$msg (want $want kernels)"; return; }
	[ "$drops" = 0 ] && [ "$problems" = 0 ] || { fail "$msg"; return; }
	case $v in
	*LLMPROF_TRACE_API_CALLS=all*)
		msg="$msg api_other $other"
		[ "$other" -gt 0 ] || { fail "$msg (want other CUDA API calls)"; return; } ;;
	*) [ "$other" = 0 ] || { fail "$msg api_other $other (want launch calls only)"; return; } ;;
	esac
	if [ "${v%%+*}" = none ]; then
		[ "$api" = 0 ] || { fail "$msg (want no launch calls)"; return; }
		echo "ok   $msg" >>"$out/checks.txt"
		return
	fi
	# one launch call per GPU op (no CUDA graphs in these programs)
	[ "$unattr" = 0 ] && [ "$api" = "$ops" ] || { fail "$msg (want $ops launch calls)"; return; }
	if [ "$prog" = decode ]; then
		local at step prefill
		at=$(python3 "$report" attrib "$dir/t.sqlite") || { fail "$msg: attrib failed"; return; }
		step=$(awk '$1 == "decode_step" { print $2 }' <<<"$at")
		prefill=$(awk '$1 == "prefill" { print $2 }' <<<"$at")
		msg="$msg decode_step $step prefill $prefill"
		[ "$step" = "$want_step" ] && [ "$prefill" = "$want_prefill" ] ||
			{ fail "$msg (want $want_step / $want_prefill)"; return; }
	fi
	echo "ok   $msg" >>"$out/checks.txt"
	rm -f "$dir/t.sqlite"
}
for v in "${variants[@]}"; do
	for ((r = 1; r <= decode_rounds; r++)); do
		check_log decode "$v" "$r"
	done
done
for v in "${tiny_variants[@]}"; do
	check_log tiny "$v" 1
done
grep '^ok' "$out/checks.txt"

{
	echo "overhead matrix: $(date -u), $(elapsed)s, failures $failures"
	python3 "$report" table "$out/raw.csv" "$launches"
} | tee "$out/matrix.txt"
[ "$failures" -eq 0 ] || { echo "overhead-matrix: $failures failure(s), see above" >&2; exit 1; }
