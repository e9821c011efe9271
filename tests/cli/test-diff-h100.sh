#!/usr/bin/env bash
# llmprof diff on real traces: the built-in llama-3.2-1b on an H100
# (tests/data/diff/h100/, README.md there; docs/validation/diff-h100.md).
# Its kernels overlap: with programmatic dependent launch each one starts
# before its predecessor ends and waits, so durations sum to more than the
# GPU busy time. Checked here:
# - repeated eager runs (e1 vs e2, e1,e2 vs e3): no significant TPOT change,
#   the gate at 2 % passes;
# - eager (e1,e2,e3) vs CUDA graph (g1): decode is significantly faster, the
#   kernels named are decode kernels, ranked by their change inside the
#   stages; the graph run's extra launches outside every stage (capture,
#   warm-up: +65 ms) are on a line of their own, in no kernel's change;
# - GEMV vs cuBLASLt decode (gemv vs cublas): the gate fails (exit 9), the
#   movers are the GEMM/GEMV kernels (nvjet_*, k_gemv), not k_rmsnorm, whose
#   duration fell by 9 ms only because it waited less; "other GPU work" is
#   what no kernel covers (a few us), not the overlap;
# - each waterfall sums to its stage's change (exactly with one run a side);
# - one kernel's exposed time, by hand: an SQL query on the trace itself.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:?}
data=$src/tests/data/diff/h100
command -v xz >/dev/null || { echo "SKIP: no xz"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-diff-h100.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
for f in e1 e2 e3 g1 gemv cublas; do
	xz -dc "$data/$f.sqlite.xz" >"$f.sqlite" || fail "xz $f"
done
json() { # json FILE PYTHON-EXPR (d = the document)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}
# the waterfalls sum to their stage's change: exactly with one run a side,
# to rounding with repeated runs (each term a mean over runs)
sums() { # sums DIR EPS
	json "$1/diff.json" "all(abs(sum(t['delta_ns'] for t in w['terms']) - w['delta_ns']) <= $2 \
and abs(w['b_ns'] - w['a_ns'] - w['delta_ns']) <= $2 for w in d['waterfall'].values()) \
and sorted(d['waterfall']) == ['decode', 'prefill']" | grep -q True ||
		fail "$1: waterfall terms do not sum to the stage delta"
}

# --- repeated eager runs: only noise
"$LLMPROF" diff e1.sqlite e2.sqlite --fail-above 2 -o noise >out 2>err ||
	fail "e1 vs e2: exit $?: $(cat out err)"
grep -q "^TPOT .*no significant change" out || fail "e1 vs e2 TPOT: $(cat out)"
grep -q "^gate tpot: .*: pass$" out || fail "e1 vs e2 gate: $(cat out)"
sums noise 0
"$LLMPROF" diff e1.sqlite,e2.sqlite e3.sqlite --fail-above 2 -o noise3 >out 2>err ||
	fail "e1,e2 vs e3: exit $?: $(cat out err)"
grep -q "^TPOT .*no significant change" out || fail "e1,e2 vs e3 TPOT: $(cat out)"
sums noise3 1e-6
# no kernel moved by more than 0.1 ms inside the stages
json noise3/diff.json "max(abs(k['delta_ms']) for k in d['kernels']) < 0.1" | grep -q True ||
	fail "e1,e2 vs e3: a kernel moved: $(head -12 out)"

# --- eager vs CUDA graph: decode faster, decode kernels named
"$LLMPROF" diff e1.sqlite,e2.sqlite,e3.sqlite g1.sqlite --fail-above 2 -o graph >out 2>err ||
	fail "graph: exit $?: $(cat out err)"
grep -Eq "^decode GPU time +-3\.[0-9]+ % .* significant$" out || fail "graph decode: $(cat out)"
grep -Eq "^TPOT +-[23]\.[0-9]+ % .* significant$" out || fail "graph TPOT: $(cat out)"
grep -Eq "^gate tpot: -[23]\.[0-9]+ % .*, an improvement \(better by [23]\.[0-9]+ %\): pass$" out ||
	fail "graph gate: $(cat out)"
sums graph 1e-6
# the three kernels printed are decode kernels (launched in decode on both
# sides), each with a change inside the stages under 1 ms: by whole-run
# time k_gemv was "+17 ms", the graph capture's extra launches
[ "$(grep -c '^kernel -0\.[0-9]* ms (-[0-9.]* %)  void k_' out)" = 3 ] || fail "graph: kernel lines: $(cat out)"
json graph/diff.json "all(k['decode_calls_a'] > 0 and k['decode_calls_b'] > 0 \
and k['decode_exposed_ms_b'] < k['decode_exposed_ms_a'] for k in d['kernels'][:3])" | grep -q True ||
	fail "graph: the top kernels are not decode kernels that got faster"
json graph/diff.json "all(abs(k['delta_ms']) < 1 for k in d['kernels'])" | grep -q True ||
	fail "graph: a kernel row counts time outside the stages"
# what ran outside the stages: on its own line, and per kernel in diff.json
grep -Eq '^outside stages: kernels \+65\.[0-9]+ ms \(69\.[0-9]+ -> 134\.[0-9]+ ms; warm-up' out ||
	fail "graph: no outside-stages line: $(cat out)"
json graph/diff.json "d['kernels_outside']['ms_b'] - d['kernels_outside']['ms_a'] > 60 and \
abs(sum(k['outside_ms_b'] - k['outside_ms_a'] for k in d['kernels']) - \
(d['kernels_outside']['ms_b'] - d['kernels_outside']['ms_a'])) < 1e-6" | grep -q True ||
	fail "graph: kernels_outside"
# the decode waterfall: kernel terms first, all of them decode kernels
json graph/diff.json "[t['label'].split('<')[0] for t in d['waterfall']['decode']['terms'][:3]]" |
	grep -qF "['void k_rmsnorm', 'void k_gemv', 'void k_attn_decode']" ||
	fail "graph: decode waterfall: $(json graph/diff.json "d['waterfall']['decode']")"

# --- GEMV vs cuBLASLt decode: slower, the GEMMs are the movers
"$LLMPROF" diff gemv.sqlite cublas.sqlite --fail-above 2 -o gemm >out 2>err
rc=$?
[ $rc -eq 9 ] || fail "gemm: exit $rc, want 9: $(cat out err)"
grep -Eq "^gate tpot: \+(19|2[0-9])\.[0-9]+ % .*significant: FAIL$" out || fail "gemm gate: $(cat out)"
sums gemm 0
# the three kernel lines: GEMM or GEMV kernels, on either side of the row
[ "$(grep -c '^kernel ' out)" = 3 ] || fail "gemm: kernel lines: $(cat out)"
grep '^kernel ' out | grep -Ev '^kernel [-+][0-9.]+ ms( \([-+][0-9.]+ %\))?  (nvjet_|void k_gemv<)' &&
	fail "gemm: a mover is not a GEMM/GEMV: $(cat out)"
grep '^kernel ' out | grep -q k_rmsnorm && fail "gemm: k_rmsnorm named: $(cat out)"
# k_rmsnorm's duration in decode fell by 9.2 ms (it waited less for the
# GEMV before it); its exposed time by 1.8 ms
json gemm/diff.json "[(round(k['decode_ms_b'] - k['decode_ms_a'], 1), \
round(k['decode_exposed_ms_b'] - k['decode_exposed_ms_a'], 1)) for k in d['kernels'] \
if (k['name_b'] or '').startswith('void k_rmsnorm')]" | grep -qF "[(-9.2, -1.8)]" ||
	fail "gemm: k_rmsnorm's decode time"
# the decode waterfall: the first terms are GEMM/GEMV kernels, and the
# GPU work under no kernel changed by microseconds (with durations: +17 ms)
json gemm/diff.json "all(t['label'].startswith(('nvjet_', 'void k_gemv<')) \
for t in d['waterfall']['decode']['terms'][:5])" | grep -q True ||
	fail "gemm: decode waterfall: $(json gemm/diff.json "d['waterfall']['decode']")"
json gemm/diff.json "[abs(t['delta_ns']) < 100000 for t in d['waterfall']['decode']['terms'] \
if t['label'].startswith('other GPU work')]" | grep -qF "[True]" || fail "gemm: other GPU work"

# --- by hand: k_rmsnorm's exposed time in decode, from the trace. In start
# order, covered = the latest end of the kernels before (one GPU, one stream
# here); a launch is in decode when its runtime call starts inside the
# decode_all range on the same thread. sqlite3 gemv.sqlite with the same
# query gives 1023 launches, 13052437 ns of duration, 4822611 ns exposed.
python3 - gemv.sqlite >hand <<'PY' || fail "sql: $(cat hand)"
import sqlite3, sys
q = """
with o as (select k.start, k.end, k.correlationId corr, s.value name,
  max(k.end) over (order by k.start, k.rowid
    rows between unbounded preceding and 1 preceding) cov
  from CUPTI_ACTIVITY_KIND_KERNEL k join StringIds s on s.id = k.shortName),
d as (select n.start, n.end, n.globalTid from NVTX_EVENTS n
  left join StringIds t on t.id = n.textId
  where coalesce(n.text, t.value) = 'decode_all')
select count(*), sum(o.end - o.start),
  sum(max(0, o.end - max(o.start, coalesce(o.cov, o.start))))
from o join CUPTI_ACTIVITY_KIND_RUNTIME r on r.correlationId = o.corr
join d on r.globalTid = d.globalTid and r.start >= d.start and r.start < d.end
where o.name = 'k_rmsnorm'
"""
print(*sqlite3.connect(sys.argv[1]).execute(q).fetchone())
PY
[ "$(cat hand)" = "1023 13052437 4822611" ] || fail "sql: $(cat hand)"
"$LLMPROF" report --trace gemv.sqlite -o rep >/dev/null 2>&1 || fail "report gemv"
json rep/metrics.json "[(k['decode_calls'], k['decode_exposed_ns']) for k in d['kernels'] \
if k['name'].startswith('void k_rmsnorm')]" | grep -qF "[(1023, 4822611)]" ||
	fail "metrics.json: k_rmsnorm's decode exposed time is not the hand-computed 4822611 ns"
json gemm/diff.json "[k['decode_exposed_ms_a'] for k in d['kernels'] \
if (k['name_b'] or '').startswith('void k_rmsnorm')]" | grep -qF "[4.822611]" ||
	fail "diff.json: k_rmsnorm's decode exposed time in A"
echo ok
