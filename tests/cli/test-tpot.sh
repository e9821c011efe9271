#!/usr/bin/env bash
# TPOT is the decode time over the steps, host gaps included, per step
# (docs/report.md "TPOT"), checked against independent truths:
#  1. two real one-GPU decodes on an H200 whose host sleeps 400 us between
#     steps (tests/data/ranks/h200-tp/tpot-hostgap-*, builtin tracer and
#     nsys): TPOT within 1 % of the program's own CUDA-event decode time per
#     step, and the per-step GPU span kept apart under its own name;
#  2. a host-bound loop derived from the nsys one: every step after the
#     first starts 10 ms later than recorded (all rows from that step on
#     moved), so the per-token time grows by exactly 10 ms x 63/64 while no
#     step's GPU span changes;
#  3. the same loop with no GPU rows at all (the CPU path): TPOT from the
#     step ranges alone, not n/a;
#  4. tokens/s = batch / TPOT, by construction.
set -u
: "${LLMPROF:?}" "${LLMPROF_SOURCE_DIR:?}"
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
command -v xz >/dev/null || { echo "skip: xz not installed"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-tpot.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
data="$LLMPROF_SOURCE_DIR/tests/data/ranks/h200-tp"
cd "$tmp" || exit 1
xz -dc "$data/tpot-hostgap-builtin/trace.sqlite.xz" >builtin.sqlite || fail "xz builtin"
xz -dc "$data/tpot-hostgap-nsys/run.sqlite.xz" >nsys.sqlite || fail "xz nsys"

# within(A, B, PCT): |A - B| <= PCT % of B
within() { python3 -c 'import sys; a,b,p=map(float,sys.argv[1:]); sys.exit(abs(a-b) > p/100*abs(b))' "$@"; }

# 1. against the CUDA events
for b in builtin nsys; do
	"$LLMPROF" report --trace "$b.sqlite" -o "r-$b" >/dev/null 2>err || fail "report $b: $(cat err)"
	truth=$(json "$data/tpot-hostgap-$b/truth-rank0.json" "d['decode_ms'] / d['steps']")
	tpot=$(json "r-$b/metrics.json" "d['aggregates']['tpot_ms']")
	[ "$(json "r-$b/metrics.json" "d['aggregates']['tpot_basis']")" = wall ] || fail "$b: tpot_basis"
	within "$tpot" "$truth" 1 || fail "$b: TPOT $tpot ms, CUDA events $truth ms per step"
	# the step GPU span is still there, under its own name, and below TPOT by the gaps
	span=$(json "r-$b/metrics.json" "[s for s in d['stages'] if s['role'] == 'decode'][0]['steps']['mean_ms']")
	[ "$(json "r-$b/metrics.json" "[s for s in d['stages'] if s['role'] == 'decode'][0]['steps']['basis']")" = gpu_span ] ||
		fail "$b: steps basis"
	python3 -c "import sys; sys.exit(not (0 < $span < $tpot - 0.3))" || fail "$b: step GPU span $span vs TPOT $tpot"
	grep -q "| TPOT (ms; decode wall time per step) |" "r-$b/report.md" || fail "$b: report.md TPOT row"
	grep -q "GPU span mean (ms)" "r-$b/report.md" || fail "$b: report.md step table"
	echo "$b: TPOT $tpot ms, CUDA events $truth ms, step GPU span $span ms"
done

# 2. a host-bound loop: every step i >= 1 starts 10 ms x i later
python3 - nsys.sqlite loop.sqlite <<'PY' || fail "derive the loop"
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
starts = sorted(r[0] for r in db.execute(
    "select n.start from NVTX_EVENTS n left join StringIds s on s.id = n.textId "
    "where coalesce(n.text, s.value) = 'decode_step'"))
assert len(starts) == 64, len(starts)
EXTRA = 10_000_000
cuts = starts[1:]
def shift(ts):
    if ts is None:
        return None
    lo, hi = 0, len(cuts)
    while lo < hi:
        mid = (lo + hi) // 2
        if cuts[mid] <= ts:
            lo = mid + 1
        else:
            hi = mid
    return ts + EXTRA * lo
db.create_function("shift", 1, shift, deterministic=True)
# ranges: both ends on their own; GPU work and API calls: moved as a whole
db.execute('update NVTX_EVENTS set "end" = shift("end"), start = shift(start)')
for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_RUNTIME",
          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_CUDA_EVENT"):
    cols = [r[1] for r in db.execute("pragma table_info(%s)" % t)]
    if "end" in cols:
        db.execute('update %s set "end" = "end" + shift(start) - start, start = shift(start)' % t)
    elif "start" in cols:
        db.execute("update %s set start = shift(start)" % t)
db.commit()
PY
"$LLMPROF" report --trace loop.sqlite -o r-loop >/dev/null 2>err || fail "report loop: $(cat err)"
t0=$(json r-nsys/metrics.json "d['aggregates']['tpot_ms']")
t1=$(json r-loop/metrics.json "d['aggregates']['tpot_ms']")
want=$(python3 -c "print($t0 + 10 * 63 / 64)")
within "$t1" "$want" 0.001 || fail "loop: TPOT $t1 ms, expected $want ms"
s0=$(json r-nsys/metrics.json "[s for s in d['stages'] if s['role'] == 'decode'][0]['steps']['mean_ms']")
s1=$(json r-loop/metrics.json "[s for s in d['stages'] if s['role'] == 'decode'][0]['steps']['mean_ms']")
within "$s1" "$s0" 0.001 || fail "loop: step GPU span moved from $s0 to $s1 ms"
echo "loop: TPOT $t1 ms (expected $want), step GPU span $s1 ms"

# 3. the CPU path: no GPU rows, the step ranges alone
python3 - loop.sqlite cpu.sqlite <<'PY' || fail "derive the CPU loop"
import shutil, sqlite3, sys
shutil.copy(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
for t in ("CUPTI_ACTIVITY_KIND_KERNEL", "CUPTI_ACTIVITY_KIND_MEMCPY", "CUPTI_ACTIVITY_KIND_RUNTIME",
          "CUPTI_ACTIVITY_KIND_SYNCHRONIZATION", "CUPTI_ACTIVITY_KIND_CUDA_EVENT"):
    db.execute("delete from %s" % t)
db.commit()
PY
"$LLMPROF" report --trace cpu.sqlite -o r-cpu >/dev/null 2>err || fail "report cpu: $(cat err)"
t2=$(json r-cpu/metrics.json "d['aggregates']['tpot_ms']")
[ "$t2" != None ] || fail "CPU path: TPOT is n/a with 64 timed decode_step ranges"
# the last step's GPU work may end after its range: at most that much apart
within "$t2" "$t1" 0.5 || fail "CPU path: TPOT $t2 ms, with the GPU rows $t1 ms"
[ "$(json r-cpu/metrics.json "[s for s in d['stages'] if s['role'] == 'decode'][0]['steps']['mean_ms']")" = None ] ||
	fail "CPU path: a step GPU span without GPU work"
echo "cpu: TPOT $t2 ms"

# 4. tokens/s = batch / TPOT: a bundle with a config (batch 4)
mkdir -p run/nsys && cp loop.sqlite run/nsys/run.sqlite || fail "bundle"
"$LLMPROF" config show infer.batch_size=4 infer.max_new_tokens=65 >run/config.yaml 2>err || fail "config show: $(cat err)"
"$LLMPROF" report run >/dev/null 2>err || fail "report run: $(cat err)"
python3 - run/metrics.json <<'PY' || fail "tokens/s is not batch / TPOT"
import json, sys
a = json.load(open(sys.argv[1]))["aggregates"]
assert a["tokens"] == 256, a
want = 4 * 1000 / a["tpot_ms"]
assert abs(a["tokens_per_s"] - want) <= 1e-9 * want, (a, want)
PY
echo ok
