#!/usr/bin/env bash
# profile --rank-dir and merge, through the real pipeline: each rank is one
# `llmprof profile --rank-dir RUN` whose program writes that rank's
# synthetic builtin-tracer log (trace-tool synth-rank: the rank from the
# environment, an NCCL AllReduce per step, rank SLOW made slower), as
# mpirun would start them. Checks the rank folders, collectives.tsv, the
# cross-rank table, the slowest rank, a missing rank (exit 8), the refusals
# (no rank in the environment, the same rank twice) and bad input.
set -u
: "${LLMPROF:?}"
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
[ -x "$tool" ] || { echo "no trace-tool built"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-merge.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
export TOOL=$tool
model=() # extra settings of every rank
rank() { # RUN RANK WORLD SLOW_RANK: one rank as a launcher starts it
	local slow=0
	[ "$2" = "$4" ] && slow=20000
	env -u RANK -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK -u PMI_RANK \
		OMPI_COMM_WORLD_RANK="$2" OMPI_COMM_WORLD_SIZE="$3" SLOW=$slow \
		"$LLMPROF" profile -q --rank-dir "$1" pipeline.ncu.enable=false "${model[@]}" -- \
		sh -c 'exec "$TOOL" synth-rank "$LLMPROF_TRACE_OUT" 4 3 "$SLOW" 20000 node0' \
		>"$1.$2.out" 2>"$1.$2.err" || fail "rank $2 of $1: $(cat "$1.$2.err")"
}
# "two" with a model preset and peaks: each rank's report states MFU/MBU
model=(model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=5 hardware.peak_tflops=1000
	hardware.peak_bandwidth_gbs=3000)
rank two 0 2 1
[ ! -e two/merged ] || fail "merged before rank 1 ended"
rank two 1 2 1
model=()
for r in 0 1 2 3; do rank four "$r" 4 2 & done
wait
# the last rank to end merged them all, as `llmprof merge` does below
[ -f two/merged/merged.json ] && [ -f four/merged/merged.json ] || fail "no merge when the last rank ended"
cp two/merged/merged.json two.auto.json
cp two/merged/merged.md two.auto.md
[ -f two/ranks/1/collectives.tsv ] || fail "no collectives.tsv: $(ls two/ranks/1)"
head -1 two/ranks/1/collectives.tsv | grep -qx '# llmprof collectives 3' || fail "tsv header"
# the clock its times are in: the tracer's CLOCK_REALTIME, on the recorded
# host, this machine's boot
boot=$(cat /proc/sys/kernel/random/boot_id)
sed -n 3p two/ranks/1/collectives.tsv | grep -qx "clock	realtime	node0	$boot" ||
	fail "tsv clock: $(sed -n 3p two/ranks/1/collectives.tsv)"
[ "$(grep -c '^kernel' two/ranks/1/collectives.tsv)" = 5 ] || fail "5 AllReduce kernels"
# each with its launch and its gap (the first has no NCCL kernel before it),
# and the 4 decode steps
awk -F'\t' '$1 == "kernel" { n++; if (NF != 10 || $6 !~ /^[0-9]+$/ || ($7 == "-") != (n == 1) ||
	(n > 1 && ($8 !~ /^[0-9]+$/ || $9 != 3))) bad = 1 } END { exit bad || n != 5 }' \
	two/ranks/1/collectives.tsv || fail "tsv kernel gaps: $(grep '^kernel' two/ranks/1/collectives.tsv)"
[ "$(grep -c '^step' two/ranks/1/collectives.tsv)" = 4 ] || fail "4 decode steps"
grep -q '"world_size": 4' four/ranks/3/rank.json || fail "rank.json: $(cat four/ranks/3/rank.json)"
[ "$(cat four.2.out)" = "run: $tmp/four/ranks/2" ] || fail "run line: $(cat four.2.out)"

"$LLMPROF" merge two >out 2>err || fail "merge two: $? $(cat err)"
grep -qx "slowest: rank 1 by arriving last at NCCL collectives" out || fail "two: $(cat out)"
cmp -s two.auto.json two/merged/merged.json && cmp -s two.auto.md two/merged/merged.md ||
	fail "the automatic merge differs from llmprof merge"
# one rank of one: merged at once, said on stderr; no world size: no merge
env -u RANK -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u WORLD_SIZE \
	RANK=0 WORLD_SIZE=1 "$LLMPROF" profile --rank-dir solo pipeline.ncu.enable=false -- true \
	>out 2>err || fail "solo: $(cat err)"
grep -qx "llmprof: every rank has ended: merged into $tmp/solo/merged" err || fail "solo: $(cat err)"
[ -f solo/merged/merged.json ] || fail "solo: not merged"
env -u RANK -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK -u PMI_RANK -u WORLD_SIZE \
	-u SLURM_NTASKS -u OMPI_COMM_WORLD_SIZE -u PMI_SIZE \
	RANK=0 "$LLMPROF" profile -q --rank-dir nows pipeline.ncu.enable=false -- true >out 2>err ||
	fail "nows: $(cat err)"
[ -d nows/ranks/0 ] && [ ! -e nows/merged ] || fail "merged without a world size"
"$LLMPROF" merge four >out 2>err || fail "merge four: $? $(cat err)"
grep -qx "slowest: rank 2 by arriving last at NCCL collectives" out || fail "four: $(cat out)"
python3 - four/merged/merged.json <<'PY' || fail "merged.json"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["complete"] is True and m["world_size"] == 4 and m["missing"] == []
assert [r["rank"] for r in m["ranks"]] == [0, 1, 2, 3]
dec = [s for s in m["stages"] if s["name"] == "decode"][0]
assert dec["gpu"]["ranks"] == 4 and dec["gpu"]["min_ms"] <= dec["gpu"]["median_ms"] <= dec["gpu"]["max_ms"]
c = m["collectives"]
assert c["instances"] == 5 and c["mismatches"] == 0, c
assert c["stragglers"][0]["rank"] == 2 and c["stragglers"][0]["count"] == 5
# why: its kernels are slower (the GPU), 3 x 20 us more busy time before each
# decode collective, as the single-trace analysis says (test-merge-clocks.sh)
(late,) = [x for x in c["late_by_stage"] if x["stage"] == "decode"]
assert late["rank"] == 2 and late["cause"] == "GPU" and late["last"] == 4, late
assert abs(late["more_than_others"]["gpu_busy_us"] - 60) < 1e-6, late
assert abs(late["more_than_others"]["gpu_idle_us"]) < 1e-6, late
assert c["cause_unknown_why"] is None
(f,) = [f for f in m["findings"] if f["code"] == "collective-straggler"]
assert "Cause: **GPU**" in f["text"] and "same kernels" in f["recommendation"], f
# the slow rank waits for nobody; the others wait 3 x 20 us per step
w = {r["rank"]: r["wait_ms"] for r in c["ranks"]}
assert w[2] == 0 and all(abs(w[r] - 5 * 0.06) < 1e-9 for r in (0, 1, 3)), w
# each rank's NCCL calls and bytes, as its own report has them: 5 AllReduce
# of 1 MiB on a communicator of 4
for r in m["ranks"]:
    own = json.load(open(f"four/ranks/{r['rank']}/metrics.json"))["nccl_calls"]["by_process"][0]
    (n,) = r["nccl_calls"]["by_type"]
    assert (n["type"], n["calls"], n["bytes"], n["ranks"]) == ("AllReduce", 5, 5 << 20, 4), n
    assert n["algbw_gbps"] == own["algbw_gbps"] and n["busbw_gbps"] == own["busbw_gbps"], (n, own)
    assert abs(n["busbw_gbps"] - n["algbw_gbps"] * 1.5) < 1e-9 * n["algbw_gbps"], n
PY
grep -q '^| 2 | AllReduce | 5 | 1048576 | 5242880 | ' four/merged/merged.md ||
	fail "merged.md NCCL bytes: $(grep -A8 'NCCL calls' four/merged/merged.md)"
grep -q '^| decode | GPU time | 4 |' four/merged/merged.md || fail "stage table: $(cat four/merged/merged.md)"
grep -q '"utilization": null' four/merged/merged.json || fail "four: no model, yet a utilization"

# per-rank MFU/MBU: the ranks' AllReduces all match, so one tensor-parallel
# group of 2: each rank's own MFU/MBU (the whole model's work) / 2
python3 - two <<'PY' || fail "two: per-rank MFU/MBU"
import json, sys
d = sys.argv[1]
m = json.load(open(f"{d}/merged/merged.json"))
u = m["utilization"]
assert u["split"] == "model-parallel" and u["divisor"] == 2, u
md = open(f"{d}/merged/merged.md").read()
assert u["basis"] in md
for r in m["ranks"]:
    own = {s["role"]: s["utilization"] for s in
           json.load(open(f"{d}/ranks/{r['rank']}/metrics.json"))["stages"]}
    assert own["decode"]["mbu_datasheet"] > 0 and own["prefill"]["mfu_datasheet"] > 0
    assert abs(r["decode"]["mbu_datasheet"] - own["decode"]["mbu_datasheet"] / 2) < 1e-12
    assert abs(r["prefill"]["mfu_datasheet"] - own["prefill"]["mfu_datasheet"] / 2) < 1e-12
    row = [l for l in md.splitlines() if l.startswith(f"| {r['rank']} | ")][0]
    assert row.endswith(f"| {100 * r['decode']['mbu_datasheet']:.1f}% |"), row
PY
# one rank short of a collective: the share is unknown, no per-rank MFU/MBU
mkdir short && cp -r two/ranks short/ && rm -rf short/merged
sed -i '$d' short/ranks/1/collectives.tsv
"$LLMPROF" merge short >out 2>err || fail "merge short: $(cat err)"
python3 - short/merged/merged.json <<'PY' || fail "short: per-rank MFU/MBU"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["utilization"]["split"] == "unknown" and m["utilization"]["divisor"] is None
assert m["collectives"]["mismatches"] == 1
assert all(r["decode"]["mbu_datasheet"] is None for r in m["ranks"])
PY

# no model work, but one rank's own Nsight Compute counters: its MFU/MBU from
# them, its own (never shared), marked "(counters)"; the others "-"
mkdir ctr && cp -r four/ranks ctr/ && rm -rf ctr/merged
python3 - ctr/ranks/0/metrics.json <<'PY' || fail "ctr: edit"
import json, sys
m = json.load(open(sys.argv[1]))
for s in m["stages"]:
    s["utilization"]["mfu_counter" if s["role"] == "prefill" else "mbu_counter"] = \
        0.125 if s["role"] == "prefill" else 0.25
json.dump(m, open(sys.argv[1], "w"))
PY
"$LLMPROF" merge ctr >out 2>err || fail "merge ctr: $(cat err)"
grep -q '^| 0 | .* | 12.5% (counters) | 25.0% (counters) |$' ctr/merged/merged.md &&
	grep -q '^| 1 | .* | - | - |$' ctr/merged/merged.md && grep -q 'Nsight Compute counters' ctr/merged/merged.md ||
	fail "ctr: merged.md: $(grep -A6 '## Ranks' ctr/merged/merged.md)"
python3 - ctr/merged/merged.json <<'PY' || fail "ctr: merged.json"
import json, sys
r = {x["rank"]: x for x in json.load(open(sys.argv[1]))["ranks"]}
assert r[0]["decode"]["mbu_counter"] == 0.25 and r[0]["prefill"]["mfu_counter"] == 0.125, r[0]
assert r[0]["decode"]["mbu_datasheet"] is None and r[1]["decode"]["mbu_counter"] is None, r
PY

# a missing rank: the rest merged, listed, exit 8
mkdir three && cp -r four/ranks three/ && rm -rf three/ranks/1
"$LLMPROF" merge three >out 2>err
rc=$?
[ "$rc" = 8 ] || fail "missing rank: exit $rc"
grep -qx "llmprof: merge: incomplete: rank 1 missing" err || fail "missing: $(cat err)"
grep -q '"missing": \[' three/merged/merged.json && grep -q 'incomplete' three/merged/merged.md ||
	fail "merged.md/json do not say so"

# refusals: no rank in the environment, the same rank twice
env -u RANK -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK -u PMI_RANK \
	"$LLMPROF" profile --rank-dir x -- true >out 2>err
[ $? = 2 ] && [ "$(wc -l <err)" = 1 ] && grep -q "no rank in the environment" err ||
	fail "no rank: $(cat err)"
[ ! -e x ] || fail "no rank: created x"
# ... a rank variable that holds no rank: said so, not "no rank"
env -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK -u PMI_RANK RANK=abc \
	"$LLMPROF" profile --rank-dir x -- true >out 2>err
[ $? = 2 ] && [ "$(wc -l <err)" = 1 ] &&
	grep -q "^llmprof: error: profile: --rank-dir: RANK='abc' is not a rank" err ||
	fail "RANK=abc: $(cat err)"
[ ! -e x ] || fail "RANK=abc: created x"
RANK=1 "$LLMPROF" profile --rank-dir two -- true >out 2>err
[ $? = 2 ] && grep -q "rank 1 was already profiled" err || fail "same rank twice: $(cat err)"

# bad input: one line, exit 5
mkdir empty
"$LLMPROF" merge empty >out 2>err
[ $? = 5 ] && [ "$(wc -l <err)" = 1 ] && grep -q "has no ranks/ folder" err || fail "no ranks/: $(cat err)"
# a gap that ends after its kernel starts: damaged, not a cause to compute
mkdir badgap && cp -r four/ranks badgap/ && rm -rf badgap/merged
awk -F'\t' -v OFS='\t' '$1 == "kernel" && $7 != "-" && !done { $7 = $2 + 1; done = 1 } 1' \
	four/ranks/1/collectives.tsv >badgap/ranks/1/collectives.tsv
"$LLMPROF" merge badgap >out 2>err
[ $? = 5 ] && [ "$(wc -l <err)" = 1 ] && grep -q "ranks/1/collectives.tsv:[0-9]*: not a collectives.tsv kernel record (version 3)" err ||
	fail "damaged gap: $(cat err)"
echo '{"stages": [' >two/ranks/0/metrics.json
"$LLMPROF" merge two >out 2>err
[ $? = 5 ] && [ "$(wc -l <err)" = 1 ] && grep -q "ranks/0/metrics.json:" err ||
	fail "corrupt metrics.json: $(cat err)"
echo ok
