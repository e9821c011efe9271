#!/usr/bin/env bash
# The launcher path's clocks (docs/collectives.md, "Clocks"), on real H200
# recordings and synthetic traces:
# - the recorded launcher fixture (version 1 collectives.tsv: per-process
#   origins, no clock stated) merged: aligned on collective ends, said so,
#   rank 1 named with a lateness its NCCL kernel times agree with, a
#   residual measured over every rank, its cause unknown and said to be
#   (the file holds no gaps);
# - the same with rank 1 moved to another host id and 5 ms ahead (a test
#   helper's edit): same straggler, same lateness (5 %), the 5 ms recovered;
# - one multi-process trace, analysed by one command, and split into the
#   per-rank files the launcher path writes (trace-tool split-ranks, the
#   product's writer) and merged: same straggler, wait and transfer (1 %),
#   the same late ranks per stage with the same cause and numbers (1 %),
#   on the real H200 traces and on synthetic ones with a planted GPU cause
#   and a planted host cause; again with one rank on a simulated host 5 ms
#   ahead.
set -u
: "${LLMPROF:?}"
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
[ -x "$tool" ] || { echo "no trace-tool built"; exit 77; }
command -v xz >/dev/null || { echo "no xz"; exit 77; }
data=${LLMPROF_SOURCE_DIR:?}/tests/data/ranks
tmp=$(mktemp -d /tmp/llmprof-cli-merge-clocks.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1

# 1. the launcher fixture as recorded
cp -r "$data/h200x2-launcher" fix
"$LLMPROF" merge fix >out 2>err || fail "merge fix: $? $(cat err)"
grep -qx "slowest: rank 1 by arriving last at NCCL collectives" out || fail "fix: $(cat out)"
# 2. rank 1 on another host, its clock 5 ms ahead
cp -r fix sim && rm -rf sim/merged
python3 - sim/ranks/1 <<'PY' || fail "sim edit"
import json, sys
d = sys.argv[1]
lines = open(f"{d}/collectives.tsv").read().splitlines()
out = []
for l in lines:
    f = l.split("\t")
    if f[0] == "host":
        f[1] = "sim-host-1"
    elif f[0] == "window":
        f[2], f[3] = str(int(f[2]) + 5000000), str(int(f[3]) + 5000000)
    elif f[0] == "kernel":
        f[1], f[2] = str(int(f[1]) + 5000000), str(int(f[2]) + 5000000)
    out.append("\t".join(f))
open(f"{d}/collectives.tsv", "w").write("\n".join(out) + "\n")
r = json.load(open(f"{d}/rank.json"))
r["host"] = "sim-host-1"
json.dump(r, open(f"{d}/rank.json", "w"))
PY
"$LLMPROF" merge sim >out 2>err || fail "merge sim: $? $(cat err)"
python3 - <<'PY' || fail "launcher fixture"
import json
def load(d):
    return json.load(open(f"{d}/merged/merged.json"))
m, s = load("fix"), load("sim")
c = m["collectives"]
assert m["slowest_rank"] == 1, m["slowest_rank"]
st = c["stragglers"][0]
assert st["rank"] == 1 and st["share"] > 0.5, st
# the ranks' own NCCL kernel times: rank 0 waits (32.291 - 10.698) ms more
own = [json.load(open(f"fix/ranks/{r}/metrics.json"))["nccl_calls"]["by_process"] for r in (0, 1)]
kern = [sum(x["kernel_time_ms"] for x in o) for o in own]
w = {r["rank"]: r["wait_ms"] for r in c["ranks"]}
d_wait, d_kern = w[0] - w[1], kern[0] - kern[1]
assert abs(d_wait - d_kern) <= 0.05 * d_kern, (d_wait, d_kern)
# ... and so does the lateness: rank 1's summed lateness - rank 0's (two
# ranks: whoever is last, the other waits that long) is that difference
late = {x["rank"]: x["mean_late_us"] * x["count"] / 1e3 for x in c["stragglers"]}
d_late = late[1] - late.get(0, 0)
assert abs(d_late - d_kern) <= 0.05 * d_kern, (d_late, d_kern)
# no clock stated: each rank its own domain, aligned, said so; a residual
assert all(r["clock"] is None for r in m["ranks"])
assert len(c["clocks"]) == 2 and all(x["aligned"] for x in c["clocks"]), c["clocks"]
res = c["residual"]
assert res["samples"] == 2 * c["instances"] and res["median_ns"] < 50000, res
assert any("state no clock" in t for t in m["trust"]), m["trust"]
md = open("fix/merged/merged.md").read()
assert "**Trust:** ranks 0, 1 state no clock" in md, md
assert "over %d samples" % res["samples"] in md
# the findings: the straggler, and no clock finding (0.1 us residual)
codes = [f["code"] for f in m["findings"]]
assert "collective-straggler" in codes and "clock-residual" not in codes, codes
strag = [f for f in m["findings"] if f["code"] == "collective-straggler"][0]["text"]
assert "Rank 1" in strag
# version 1 files hold no gaps: the lateness per stage, the cause unknown and
# why, never a guess
(dec,) = [x for x in c["late_by_stage"] if x["rank"] == 1 and x["stage"] == "decode"]
assert dec["cause"] == "unknown" and dec["more_than_others"]["gpu_busy_us"] is None, dec
assert 95 < dec["late"]["p50_us"] < 110, dec
assert all(x["cause"] == "unknown" for x in c["late_by_stage"])
assert "ranks 0 (version 1), 1 (version 1)" in c["cause_unknown_why"], c["cause_unknown_why"]
assert "Cause unknown: " in strag and "Cause: **" not in strag, strag
assert "\nCause unknown: " in md
# rank 1 on a simulated host 5 ms ahead: the same answer, the 5 ms recovered
t = s["collectives"]
assert s["slowest_rank"] == 1 and t["stragglers"][0]["rank"] == 1
assert abs(t["stragglers"][0]["mean_late_us"] - st["mean_late_us"]) <= 0.05 * st["mean_late_us"]
off = {r["rank"]: r["clock_offset_ns"] for r in c["ranks"]}
soff = {r["rank"]: r["clock_offset_ns"] for r in t["ranks"]}
assert soff[1] - off[1] == 5000000, (off, soff)
print("fixture: rank 1, %.1f us late in %.0f %%, wait difference %.3f ms and lateness "
      "difference %.3f ms vs NCCL kernel difference %.3f ms, residual %.1f us; simulated "
      "host: offset %.1f us recovered" % (st["mean_late_us"], 100 * st["share"], d_wait,
      d_late, d_kern, res["median_ns"] / 1e3, (soff[1] - off[1]) / 1e3))
PY

# ... and the two launcher recordings with the program's own truth (CUDA
# events per decode all-reduce: truth.json's straggler)
for f in n2-slow-launch-builtin n2-late-launch-nsys; do
	mkdir "$f" && cp -r "$data/h200-tp/$f/ranks" "$data/h200-tp/$f/truth.json" "$f/"
	"$LLMPROF" merge "$f" >out 2>err || fail "merge $f: $? $(cat err)"
	python3 - "$f" <<'PY' || fail "$f: not the program's straggler"
import json, sys
d = sys.argv[1]
m, truth = json.load(open(f"{d}/merged/merged.json")), json.load(open(f"{d}/truth.json"))
c = m["collectives"]
assert m["slowest_rank"] == truth["straggler"] == c["stragglers"][0]["rank"], (m["slowest_rank"], truth)
own = [json.load(open(f"{d}/ranks/{r}/metrics.json"))["nccl_calls"]["by_process"] for r in (0, 1)]
kern = [sum(x["kernel_time_ms"] for x in o) for o in own]
w = {r["rank"]: r["wait_ms"] for r in c["ranks"]}
assert abs((w[0] - w[1]) - (kern[0] - kern[1])) <= 0.05 * abs(kern[0] - kern[1]), (w, kern)
assert c["residual"]["samples"] == 2 * c["instances"] and c["residual"]["median_ns"] < 50000
print("%s: rank %d (truth %d, %.0f %%), %.1f us late; wait difference %.3f ms, NCCL kernel "
      "difference %.3f ms; residual %.1f us" % (d, c["stragglers"][0]["rank"], truth["straggler"],
      100 * truth["straggler_share"], c["stragglers"][0]["mean_late_us"], w[0] - w[1],
      kern[0] - kern[1], c["residual"]["median_ns"] / 1e3))
PY
done

# 3. one trace both ways (and 4. with a simulated host)
both() { # NAME TRACE [CAUSE]: CAUSE the straggler's, when planted
	"$LLMPROF" report --trace "$2" -o "$1.single" >/dev/null 2>"$1.err" ||
		fail "report $1: $(cat "$1.err")"
	"$tool" split-ranks "$2" "$1.run" || fail "split $1"
	"$LLMPROF" merge "$1.run" >/dev/null 2>"$1.err" || fail "merge $1: $(cat "$1.err")"
	"$tool" split-ranks "$2" "$1.sim" 1 5000000 sim-host-1 || fail "split $1 sim"
	"$LLMPROF" merge "$1.sim" >/dev/null 2>"$1.err" || fail "merge $1 sim: $(cat "$1.err")"
	python3 - "$1" ${3:+"$3"} <<'PY' || fail "$1: the two paths differ"
import json, re, sys
n = sys.argv[1]
one = json.load(open(f"{n}.single/metrics.json"))["collectives"]
m = json.load(open(f"{n}.run/merged/merged.json"))
s = json.load(open(f"{n}.sim/merged/merged.json"))
c = m["collectives"]
def near(a, b, rel):
    return abs(a - b) <= rel * max(abs(a), abs(b)) + 1e-6
# ranks: the single path in its order (ranked, then by pid) = the split's ids
assert len(one["ranks"]) == len(c["ranks"]), (len(one["ranks"]), len(c["ranks"]))
for a, b in zip(one["ranks"], c["ranks"]):
    assert near(a["wait_ms"], b["wait_ms"], 0.01), (n, a["label"], a["wait_ms"], b["wait_ms"])
    assert near(a["transfer_ms"], b["transfer_ms"], 0.01), (n, a["label"], a["transfer_ms"],
                                                         b["transfer_ms"])
lab = one["stragglers"][0]["rank"]
idx = [r["label"] for r in one["ranks"]].index(lab)
assert c["stragglers"][0]["rank"] == c["ranks"][idx]["rank"], (lab, c["stragglers"][0])
assert near(one["stragglers"][0]["mean_late_ms"] * 1e3, c["stragglers"][0]["mean_late_us"], 0.01)
assert len(c["clocks"]) == 1 and c["residual"]["samples"] == len(c["ranks"]) * c["instances"]
assert all(r["clock"] and r["clock"].startswith(("realtime on", "nsys-utc on")) for r in m["ranks"])
assert m["trust"] == [] or all("residual" in t for t in m["trust"]), m["trust"]
t = s["collectives"]
assert t["stragglers"][0]["rank"] == c["stragglers"][0]["rank"]
assert near(t["stragglers"][0]["mean_late_us"], c["stragglers"][0]["mean_late_us"], 0.05)
off = [x for x in t["clocks"] if x["clock"] != 0][0]["offset_ns"]
assert abs(off - 5000000) <= max(2000, 2 * c["residual"]["median_ns"]), off
# why: the same ranks late in the same stages for the same cause, with the
# same numbers (1 %)
la, lb = one["late_by_stage"], c["late_by_stage"]
assert len(la) == len(lb) and la, (n, la, lb)
lab_of = {r["rank"]: a["label"] for a, r in zip(one["ranks"], c["ranks"])}
def close(a, b, what):
    if a is None or b is None:
        assert a is b, (n, what, a, b)
    else:
        assert near(a, b, 0.01), (n, what, a, b)
for a, b in zip(la, lb):
    assert a["rank"] == lab_of[b["rank"]] and a["stage"] == b["stage"], (n, a, b)
    for k in ("collectives", "last", "early_collectives", "cause", "early_is"):
        assert a[k] == b[k], (n, k, a[k], b[k])
    for part in ("late", "early", "steady"):
        for k in a[part]:
            close(a[part][k], b[part][k], part + " " + k)
    for k in a["more_than_others"]:
        close(a["more_than_others"][k], b["more_than_others"][k], k)
    for k in a["extra_kernels"]:
        close(a["extra_kernels"][k], b["extra_kernels"][k], "extra " + k)
    close(a["launch_lag_us"], b["launch_lag_us"], "lag")
    close(a["others_launch_lag_us"], b["others_launch_lag_us"], "others' lag")
assert c["cause_unknown_why"] is None
# the simulated host: the same causes
assert [(x["rank"], x["stage"], x["cause"]) for x in t["late_by_stage"]] == \
    [(x["rank"], x["stage"], x["cause"]) for x in lb], (t["late_by_stage"], lb)
fa = [f for f in json.load(open(f"{n}.single/metrics.json"))["findings"]
      if f["code"] == "collective-straggler"]
fb = [f for f in m["findings"] if f["code"] == "collective-straggler"]
cause = re.search(r"Cause: \*\*(\w+)\*\*", fa[0]["text"]).group(1) if fa else None
assert len(fa) == len(fb) and (not fb or "Cause: **%s**" % cause in fb[0]["text"]), (fa, fb)
want = sys.argv[2] if len(sys.argv) > 2 else None
assert want is None or cause == want, (n, cause, want)
print("%s: straggler %s, %.1f us late, cause %s; simulated host offset %.1f us (5000 "
      "planted)" % (n, lab, c["stragglers"][0]["mean_late_us"], cause, off / 1e3))
PY
}
xz -dc "$data/h200-tp/n2-slow-single-builtin/trace.sqlite.xz" >n2.sqlite || fail "xz n2"
both n2 n2.sqlite
# a clock that is not what it claims: rank 1 states rank 0's clock but runs
# 5 ms ahead. One domain, no alignment between them: the residual, measured
# inside the domain too, shows it, as a trust item and a finding
h=$(awk -F'\t' '$1 == "clock" { print $3 }' n2.run/ranks/0/collectives.tsv)
"$tool" split-ranks n2.sqlite lie 1 5000000 "$h" || fail "split lie"
"$LLMPROF" merge lie >/dev/null 2>err || fail "merge lie: $(cat err)"
python3 - <<'PY' || fail "a wrong clock claim passed"
import json
m = json.load(open("lie/merged/merged.json"))
c = m["collectives"]
assert len(c["clocks"]) == 1 and c["residual"]["median_ns"] > 4900000, c["residual"]
assert any(t.startswith("clock residual after alignment") for t in m["trust"]), m["trust"]
assert any(f["code"] == "clock-residual" for f in m["findings"]), m["findings"]
md = open("lie/merged/merged.md").read()
assert "**Trust:** clock residual after alignment" in md and "`clock-residual`" in md
PY
xz -dc "$data/h200-tp/n4-slow-single-builtin/trace.sqlite.xz" >n4.sqlite || fail "xz n4"
both n4 n4.sqlite
xz -dc "$data/h200-tp/n2-equal-single-nsys/run.sqlite.xz" >nsys.sqlite || fail "xz nsys"
both nsys nsys.sqlite
# synthetic traces: 2 and 8 ranks (8 a host: one node), rank 1 / 5 slower:
# its GPU (slower kernels) or its host (late launches, its GPU idle)
for n in 2 8; do
	for how in nccl nccl-host; do
		d=syn$n-$how
		mkdir -p "$d/log"
		"$tool" synth-ranks "$d/log" "$n" 6 3 $((n == 2 ? 1 : 5)) 20000 $how ||
			fail "synth $d"
		"$tool" convert "$d/log" "$d.sqlite" >/dev/null || fail "convert $d"
		both "$d" "$d.sqlite" "$([ $how = nccl ] && echo GPU || echo host)"
	done
done
echo ok
