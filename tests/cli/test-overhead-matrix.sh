#!/usr/bin/env bash
# bench/tracer/overhead-matrix.sh without a GPU: fake programs stand in for
# tiny_launch and the decode loop (traced ones write a synthetic log with
# trace-tool synth). The matrix must pass when every run and check succeeds,
# and exit 1 naming the problem when a run fails or a traced run leaves no
# log: it must never fail silently.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
src=${LLMPROF_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir "$t/bin"
cp "$b/tests/trace-tool" "$t/bin/"
: >"$t/bin/libllmprof_tracer.so" # loaded by nothing here
cat >"$t/bin/tiny_launch" <<SH
#!/usr/bin/env bash
# 14,300 steps x (7 kernels + memcpy + memset): 100,100 kernels, 128,700 launch calls
if [ -n "\${LLMPROF_TRACE_OUT:-}" ] && [ -z "\${FAKE_NO_LOG:-}" ]; then
	mode=
	[ "\${LLMPROF_TRACE_API_CALLS:-}" = all ] && mode=all
	"$t/bin/trace-tool" synth "\$LLMPROF_TRACE_OUT" 14300 7 \$mode >/dev/null || exit 1
fi
[ -n "\${FAKE_FAIL:-}" ] && [ "\${LLMPROF_TRACE_API:-}" = activity ] && exit 3
echo "tiny_launch launches \$1 wall_s 0.\$((RANDOM % 9 + 1))00000 us_per_launch 5 err 0"
SH
cat >"$t/bin/decode" <<'SH'
#!/usr/bin/env bash
echo "decode_loop steps 64 reps 1 decode_wall_s 0.70$((RANDOM % 9)) min_s 0.7"
SH
chmod +x "$t/bin/tiny_launch" "$t/bin/decode"
run() {
	MATRIX_BIN=$t/bin MATRIX_REPS=2 MATRIX_LOGS=$t/logs MATRIX_VARIANTS= \
		MATRIX_TINY_VARIANTS="callback activity ${EXTRA_VARIANT:-}" MATRIX_DECODE_CMD=$t/bin/decode \
		"$src/bench/tracer/overhead-matrix.sh" "$t/out" >"$t/stdout" 2>&1
}

run || { cat "$t/stdout"; exit 1; }
grep -q '^ok   tiny callback round 1: kernels 100100 api 128700 unattributed 0' "$t/out/checks.txt"
grep -q '^ok   tiny activity round 1: kernels 100100 api 128700' "$t/out/checks.txt"
grep -Eq '^activity +2 ' "$t/out/matrix.txt"
grep -Eq '^untraced +2 ' "$t/out/matrix.txt"
[ "$(grep -c '^tiny,' "$t/out/raw.csv")" = 6 ]
[ "$(grep -c '^decode,untraced,' "$t/out/raw.csv")" = 2 ]

# recording every CUDA API call: launch calls still one per GPU op, the
# other calls counted apart (one module load, one synchronisation per step)
EXTRA_VARIANT=activity+LLMPROF_TRACE_API_CALLS=all run || { cat "$t/stdout"; exit 1; }
grep -q '^ok   tiny activity+LLMPROF_TRACE_API_CALLS=all round 1: kernels 100100 api 128700 unattributed 0 dropped 0 problems 0 api_other 14301$' "$t/out/checks.txt"
grep -Eq '^activity\+LLMPROF_TRACE_API_CALLS=all +2 ' "$t/out/matrix.txt"

# a failing run
if FAKE_FAIL=1 run; then echo "a failed run went unnoticed"; exit 1; fi
grep -q '^FAIL: tiny activity round 1: rc 3' "$t/out/checks.txt"

# a traced run that wrote no log
if FAKE_NO_LOG=1 run; then echo "a missing log went unnoticed"; exit 1; fi
grep -q "^FAIL: tiny callback round 1: convert failed: .*no trace logs" "$t/out/checks.txt"
echo ok
