#!/usr/bin/env bash
# llmprof diff on pairs of fixture traces (tests/data/diff/, made by
# bench/gen-nsys-trace.py --regular; README.md there): a planted 10 %
# slowdown of one kernel family (nvjet) is found, attributed and fails the
# gate; two traces with only noise (other jitter seeds) do not; renamed GEMM
# variants match by family; each waterfall's terms sum exactly to the stage's
# change; the real H100 bundle against itself has no change at all, and
# against a copy that says H200 a note that the hardware differs; a per-rank
# diff of two ranked traces; bundle inputs, repeated runs and bad inputs. diff.md of base vs slow is golden
# (LLMPROF_UPDATE_GOLDEN=1 rewrites it).
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:?}
data=$src/tests/data/diff
tmp=$(mktemp -d /tmp/llmprof-cli-diff.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
for f in base noise noise2 slow slow2 variant; do
	xz -dc "$data/$f.sqlite.xz" >"$f.sqlite" || fail "xz $f"
done
json() { # json FILE PYTHON-EXPR (d = the document)
	python3 -c "import json,sys; d=json.load(open(sys.argv[1])); print($2)" "$1"
}

# --- a 10 % slower nvjet family: found, attributed, the gate fails (exit 9)
"$LLMPROF" diff base.sqlite slow.sqlite -o slow --fail-above 2 >out 2>err
rc=$?
[ $rc -eq 9 ] || fail "slow: exit $rc, want 9: $(cat out err)"
grep -q "^gate tpot: +2.92 % \[+2.54, +3.30\], worse by more than 2 % and significant: FAIL$" out ||
	fail "slow gate line: $(cat out)"
"$LLMPROF" diff base.sqlite slow.sqlite --fail-above 2 --metric stage:decode >out 2>err
rc=$?
[ $rc -eq 9 ] || fail "slow stage:decode: exit $rc, want 9: $(cat out err)"
grep -q "^gate stage:decode: +2.91 % \[+2.71, +3.12\], worse by more than 2 % and significant: FAIL$" out ||
	fail "slow stage:decode gate line: $(cat out)"
# change % beside change ms: nvjet's exposed time, +9.9 %
grep -q "^kernel +1.662 ms (+9.9 %)  nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT (name)$" out ||
	fail "slow: no change % on the terminal: $(cat out)"
grep -q '^| `nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT` | name | .* | +1.662 | +9.9 % |' slow/diff.md ||
	fail "slow: no change % in diff.md's kernel table"
# the reverse is an improvement, called one, and passes
"$LLMPROF" diff slow.sqlite base.sqlite --fail-above 2 --metric stage:decode >out 2>err ||
	fail "improvement: exit $?: $(cat out err)"
grep -q "^gate stage:decode: -2.83 % .*, an improvement (better by 2.83 %): pass$" out ||
	fail "improvement gate line: $(cat out)"
# one run a side, a metric without samples: no interval, cannot tell
"$LLMPROF" diff base.sqlite slow.sqlite --fail-above 2 --metric tokens_per_s >out 2>err
[ $? -eq 10 ] || fail "tokens/s without a batch size: want exit 10: $(cat out err)"
grep -q "^gate tokens_per_s: not measured on either side: cannot tell$" out ||
	fail "tokens/s gate line: $(cat out)"
[ "$(json slow/diff.json "d['kernels'][0]['name_b']")" = nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT ] ||
	fail "top mover is not the nvjet kernel"
[ "$(json slow/diff.json "d['waterfall']['decode']['terms'][0]['label']")" = \
	nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT ] || fail "decode waterfall does not start with nvjet"
# the planted 10 %: nvjet's time grows by 10 % (+-1 % of jitter)
json slow/diff.json "abs(d['kernels'][0]['ms_b'] / d['kernels'][0]['ms_a'] - 1.10) < 0.01" |
	grep -q True || fail "nvjet did not grow by 10 %"
# the waterfall: stage delta = sum of the terms, exactly (ns, one run a side)
for f in slow; do
	json $f/diff.json "all(sum(t['delta_ns'] for t in w['terms']) == w['delta_ns'] and \
w['b_ns'] - w['a_ns'] == w['delta_ns'] for w in d['waterfall'].values()) and len(d['waterfall']) == 2" |
		grep -q True || fail "$f: waterfall terms do not sum to the stage delta"
done
if [ "${LLMPROF_UPDATE_GOLDEN:-}" = 1 ]; then
	sed "s|$tmp/||" slow/diff.md >"$data/base-slow.diff.md"
fi
diff -u "$data/base-slow.diff.md" <(sed "s|$tmp/||" slow/diff.md) || fail "diff.md differs from golden"
grep -q '<svg' slow/diff.html || fail "diff.html has no SVG"
# diff.md and diff.html show the one metrics table: the same header and cells
python3 - slow/diff.md slow/diff.html <<'PY' || fail "diff.html's metrics differ from diff.md's"
import html, re, sys
md, page = (open(f).read() for f in sys.argv[1:])
block = md.split("## Metrics\n\n", 1)[1].split("\n\n", 1)[0].splitlines()
rows = [[re.sub(r"\\(.)", r"\1", c.strip()) for c in l.strip("|").split(" | ")]
        for i, l in enumerate(block) if i != 1]
table = page.split("<h2>Metrics</h2>", 1)[1].split("</table>", 1)[0]
cells = [[html.unescape(c) for c in re.findall(r"<t[hd][^>]*>(.*?)</t[hd]>", r)]
         for r in re.findall(r"<tr>(.*?)</tr>", table)]
assert len(rows[0]) == 8 and rows == cells, (rows[:2], cells[:2])
PY
! grep -Eq '(src|href)="(https?:)?//' slow/diff.html || fail "diff.html loads an external asset"

# --- only noise: the gate passes (exit 0), TPOT shows no significant change
"$LLMPROF" diff base.sqlite noise.sqlite --fail-above 2 >out 2>err || fail "noise: exit $?: $(cat out err)"
grep -q "^TPOT .*no significant change" out || fail "noise TPOT: $(cat out)"
grep -q "but not significantly: pass$" out || fail "noise gate: $(cat out)"
# worse by more than the threshold, but within the noise: cannot tell (exit 10)
"$LLMPROF" diff noise.sqlite base.sqlite --fail-above 0.1 >out 2>err
[ $? -eq 10 ] || fail "noise at 0.1 %: want exit 10: $(cat out err)"
grep -q "^gate tpot: +0.16 % \[-0.21, +0.54\], worse by more than 0.1 % but the interval includes no change (more runs or steps narrow it): cannot tell$" out ||
	fail "noise at 0.1 % gate line: $(cat out)"
for m in ttft stage:decode stage:prefill; do
	"$LLMPROF" diff base.sqlite noise.sqlite --fail-above 5 --metric $m >out 2>err ||
		fail "noise --metric $m: exit $?"
done

# --- renamed variants (other tiles, sm80 -> sm90) match by family
"$LLMPROF" diff base.sqlite variant.sqlite -o var >/dev/null 2>err || fail "variant: $(cat err)"
[ "$(json var/diff.json "sorted(k['match'] for k in d['kernels'])")" = \
	"['family', 'family', 'name', 'name', 'name', 'name']" ] || fail "variant matches"
[ "$(json var/diff.json "d['kernel_counts']")" = "{'gone': 0, 'new': 0, 'other_variant': 2}" ] ||
	fail "variant counts"
grep -q '^| `nvjet_sm90_tst_128x8_64x8_2x1_v_bz_TNT` | family (A: nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT) | ' \
	var/diff.md || fail "variant row: $(grep -A3 '^| kernel (B' var/diff.md)"

# --- repeated runs: intervals across runs
"$LLMPROF" diff base.sqlite,noise.sqlite noise2.sqlite,slow.sqlite,slow2.sqlite -o runs \
	>/dev/null 2>err || fail "runs: $(cat err)"
[ "$(json runs/diff.json "[m['basis'] for m in d['metrics'] if m['key'] == 'tpot_ms'][0]")" = runs ] ||
	fail "runs: TPOT interval is not across runs"
[ "$(json runs/diff.json "d['b']['runs']")" = 3 ] || fail "runs: B has 3 runs"

# --- the real H100 bundle against itself: no change, nothing significant
cp -r "$src/tests/data/report/h100-deep-llama1b" h100
xz -d h100/trace/trace.sqlite.xz h100/ncu/raw.csv.xz
"$LLMPROF" diff h100 h100 -o self --fail-above 0 >out 2>err || fail "self: exit $?: $(cat err)"
json self/diff.json "all(m['delta'] in (0, None) and not m['significant'] for m in d['metrics']) \
and all(k['delta_ms'] == 0 and k['match'] == 'mangled' for k in d['kernels'])" | grep -q True ||
	fail "self: a change or an unmatched kernel"
json self/diff.json "d['a']['gpu'] == 'NVIDIA H100 80GB HBM3' and d['a']['backend'] == 'builtin'" |
	grep -q True || fail "self: GPU or backend"

# --- the same bundle said to run on an H200: the report says the hardware differs
cp -r h100 h200 && sed -i 's/NVIDIA H100 80GB HBM3/NVIDIA H200/' h200/env.json
"$LLMPROF" diff h100 h200 -o hw >out 2>err || fail "hw: $(cat err)"
grep -q "The hardware differs: A ran on NVIDIA H100 80GB HBM3, B on NVIDIA H200" hw/diff.md ||
	fail "hw note: $(head -12 hw/diff.md)"
grep -q "^note: The hardware differs: A ran on NVIDIA H100 80GB HBM3, B on NVIDIA H200" out ||
	fail "hw note not on the terminal: $(cat out)"
# the gate cannot judge other hardware (exit 10), unless told to
"$LLMPROF" diff h100 h200 --fail-above 5 >out 2>err
[ $? -eq 10 ] || fail "hw gate: want exit 10: $(cat out err)"
grep -q "; but A ran on NVIDIA H100 80GB HBM3 and B on NVIDIA H200 (--allow-hardware-change judges anyway): cannot tell$" out ||
	fail "hw gate line: $(cat out)"
"$LLMPROF" diff h100 h200 --fail-above 5 --allow-hardware-change >out 2>err ||
	fail "hw gate allowed: exit $?: $(cat out err)"

# --- two ranks, rank 1 slower in B: the per-rank table shows it
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
if [ -x "$tool" ]; then
	mkdir ra rb
	"$tool" synth-ranks ra 2 8 4 -1 0 >/dev/null && "$tool" synth-ranks rb 2 8 4 1 20000 >/dev/null &&
		"$tool" convert ra ra.sqlite >/dev/null && "$tool" convert rb rb.sqlite >/dev/null ||
		fail "synth-ranks"
	"$LLMPROF" diff ra.sqlite rb.sqlite -o rk >/dev/null 2>err || fail "ranks: $(cat err)"
	json rk/diff.json "[(r['label'], r['kernel_ms_b'] > 10 * r['kernel_ms_a']) for r in d['ranks']]" |
		grep -qF "[('rank 0', False), ('rank 1', True)]" || fail "ranks: $(cat rk/diff.json)"
fi

# --- bundles made by llmprof report, a bare trace against a bundle
mkdir -p bundle/trace && cp slow.sqlite bundle/trace/trace.sqlite
"$LLMPROF" report bundle >/dev/null 2>&1 || fail "report bundle"
[ -f bundle/metrics.json ] || fail "no metrics.json in the bundle"
"$LLMPROF" diff base.sqlite bundle --fail-above 2 --metric stage:decode >out 2>err
[ $? -eq 9 ] || fail "trace vs bundle: want exit 9: $(cat out err)"
"$LLMPROF" diff base.sqlite bundle -o tb >/dev/null 2>&1
grep -q "different backends (A: trace file, B: builtin)" tb/diff.md || fail "backend note"

# --- a trace whose name holds a comma is one run, not a list
cp base.sqlite 'base,1.sqlite'
"$LLMPROF" diff 'base,1.sqlite' base.sqlite >out 2>err || fail "a comma in a file name: $(cat err)"

# --- bad inputs: one line on stderr, documented codes
expect() { # expect CODE MESSAGE-REGEX ARGS...
	local code=$1 msg=$2
	shift 2
	"$LLMPROF" diff "$@" >out 2>err
	local rc=$?
	[ $rc -eq "$code" ] || fail "diff $*: exit $rc, want $code: $(cat err)"
	[ "$(wc -l <err)" -eq 1 ] || fail "diff $*: not one line: $(cat err)"
	grep -Eq -- "$msg" err || fail "diff $*: message: $(cat err)"
}
expect 5 "cannot read 'missing.sqlite': No such file or directory" base.sqlite missing.sqlite
mkdir empty
expect 5 "'empty' is not a run bundle" empty base.sqlite
echo hello >text.txt
expect 5 "'text.txt' is neither a run bundle nor a trace" base.sqlite text.txt
cp -r bundle broken && echo '{"truncated": ' >broken/metrics.json
expect 5 "metrics.json" base.sqlite broken
expect 2 "expected two inputs" base.sqlite
expect 2 "unknown --metric 'p99'" base.sqlite noise.sqlite --fail-above 1 --metric p99
expect 2 "--fail-above 'x'" base.sqlite noise.sqlite --fail-above x
echo ok
