#!/usr/bin/env bash
# Leaks do not grow with the input: `llmprof stats` (every report) and
# `llmprof report --trace` on synthetic nsys exports of N and 10N kernels
# (and ranges), checked by valgrind memcheck (plain build) or LeakSanitizer
# (ASan build). Both sizes must leak nothing at all.
set -u
. "$(dirname "$0")/failures-lib.sh"
gen=$LLMPROF_SOURCE_DIR/bench/gen-nsys-trace.py
bin=$LLMPROF
[ -x "$bin" ] || skip "no llmprof binary"
if [ -n "${LLMPROF_UNDER_VALGRIND:-}" ]; then
	mode=wrapped # $LLMPROF already runs under valgrind; valgrind-tests.sh reads its logs
elif ldd "$bin" 2>/dev/null | grep -q 'libasan'; then
	mode=lsan
elif command -v valgrind >/dev/null; then
	mode=valgrind
else
	skip "neither valgrind nor an ASan build"
fi
python3 "$gen" n.sqlite --kernels 1000 --seed 11 >gen.log || fail "gen N"
python3 "$gen" n10.sqlite --kernels 10000 --seed 11 >>gen.log || fail "gen 10N"
cat gen.log

# lost BYTES-FILE CMD...: runs CMD, writes "definite indirect" lost bytes
lost() {
	local f=$1
	shift
	case $mode in
	valgrind)
		valgrind --leak-check=full --log-file=vg.log "$@" >/dev/null 2>err ||
			fail "$*: $(cat err)"
		python3 - vg.log >"$f" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
def get(kind):
    m = re.search(kind + r" lost: ([\d,]+) bytes", t)
    return int(m.group(1).replace(",", "")) if m else 0
if "ERROR SUMMARY: 0 errors" not in t and "All heap blocks were freed" not in t:
    if re.search(r"ERROR SUMMARY: [1-9]", t) and not re.search(r"(definitely|indirectly) lost", t):
        sys.exit("memcheck errors:\n" + t[-3000:])
print(get("definitely"), get("indirectly"))
PY
		[ $? -eq 0 ] || fail "$*: valgrind: $(tail -30 vg.log)" ;;
	lsan)
		ASAN_OPTIONS=detect_leaks=1 "$@" >/dev/null 2>err
		if grep -q "LeakSanitizer" err; then
			python3 - err >"$f" <<'PY'
import re, sys
t = open(sys.argv[1]).read()
d = sum(int(x) for x in re.findall(r"Direct leak of (\d+) byte", t))
i = sum(int(x) for x in re.findall(r"Indirect leak of (\d+) byte", t))
print(d, i)
PY
		else
			echo "0 0" >"$f"
		fi ;;
	wrapped)
		"$@" >/dev/null 2>err || fail "$*: $(cat err)"
		echo "0 0" >"$f" ;;
	esac
}
for what in stats report; do
	for s in n n10; do
		if [ $what = stats ]; then
			lost "$what.$s" "$bin" stats -r cuda_gpu_kern_sum,nvtx_sum,nvtx_gpu_proj_sum,nvtx_kern_sum,cuda_api_sum,cuda_gpu_mem_time_sum,cuda_gpu_mem_size_sum "$s.sqlite"
		else
			lost "$what.$s" "$bin" report --trace "$s.sqlite" -o "rep-$s"
		fi
	done
	echo "$what ($mode): N: $(cat "$what.n") bytes lost (definite indirect), 10N: $(cat "$what.n10")"
	[ "$(cat "$what.n")" = "0 0" ] || fail "$what leaks on N kernels: $(cat "$what.n")"
	[ "$(cat "$what.n10")" = "0 0" ] || fail "$what leaks on 10N kernels: $(cat "$what.n10")"
done
echo ok
