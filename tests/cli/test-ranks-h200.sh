#!/usr/bin/env bash
# Ranks on real NVIDIA H200 recordings (tests/data/ranks/h200-tp/, README.md
# there): a tensor-parallel decode over NCCL whose program timed every decode
# all-reduce per rank with CUDA events (truth.json: the rank that waits least
# arrives last). Checked against that truth:
#  - under nsys, the ranks are named by NCCL's communicator-init payloads
#    (rank 0 / rank 1 with the pids the program printed), not by pid;
#  - the straggler is the rank the events name, in the report, metrics.json
#    and the finding; its decode lateness distribution is given;
#  - its cause is the one its own timeline shows: on every recording its
#    collectives start ~11 us after their launch while the other ranks'
#    hosts run milliseconds ahead: host;
#  - the planted GPU work (--slow-rank R: a 100 us spin kernel before every
#    second all-reduce) is found on rank R: one more kernel, 90..110 us more
#    GPU time, before about half of the collectives it arrives last in;
#  - with the launcher path's own per-rank files, merged.md has no step p50
#    for prefill (no steps there).
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
data=$src/tests/data/ranks/h200-tp
tmp=$(mktemp -d /tmp/llmprof-cli-ranks-h200.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v xz >/dev/null || { echo "SKIP: no xz"; exit 77; }
cd "$tmp" || exit 1

check() { # FOLDER TRACE SLOWED_RANK(-1 none) RANK_SOURCE
	local f=$1 trace=$2 slowed=$3 source=$4
	xz -dc "$data/$f/$trace.xz" >"$f.sqlite" || fail "xz $f"
	"$LLMPROF" report --trace "$f.sqlite" -o "$f" >"$f.out" 2>"$f.err" ||
		fail "$f: report exit $?: $(cat "$f.err")"
	python3 - "$data/$f" "$f" "$slowed" "$source" <<'PY' || fail "$f: see above"
import json, sys
truth_dir, out, slowed, source = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
truth = json.load(open(f"{truth_dir}/truth.json"))
pids = {json.load(open(f"{truth_dir}/truth-rank{r}.json"))["pid"]: r
        for r in range(truth["world"])}
m = json.load(open(f"{out}/metrics.json"))
ranks = m["ranks"]
# names: every process is the rank the program says, whatever the backend
for r in ranks:
    assert r["pid"] in pids and r["rank"] == pids[r["pid"]], (r["pid"], r["rank"], pids)
    assert r["label"] == f"rank {r['rank']}", r["label"]
    assert r["rank_source"] == source, (r["rank_source"], source)
want = f"rank {truth['straggler']}"
c = m["collectives"]
assert c["stragglers"][0]["rank"] == want, (c["stragglers"][0], truth)
dec = [s for s in c["late_by_stage"] if s["stage"] == "decode"]
top = dec[0]
assert top["rank"] == want, (top, truth)
# the decode share agrees with the events' (512 decode all-reduces each)
assert top["collectives"] == truth["collectives"], top
share = top["last"] / top["collectives"]
assert abs(share - truth["straggler_share"]) < 0.12, (share, truth["straggler_share"])
late = top["late"]
assert late["n"] == top["last"] and late["p50_us"] <= late["p90_us"] <= late["max_us"], late
# the events time an all-reduce from when its stream reaches the call, before
# the host launched the kernel: their lateness is a lower bound of the
# kernels' arrival gap, and the largest one (a one-off stall) is the same one
assert late["p50_us"] >= 0.9 * truth["lateness_us"]["p50"], (late, truth["lateness_us"])
assert abs(late["max_us"] - truth["lateness_us"]["max"]) <= 0.1 * truth["lateness_us"]["max"], late
assert top["early"]["n"] + top["steady"]["n"] == top["last"], top
# cause: host, with the numbers that say so
more = top["more_than_others"]
assert top["cause"] == "host", top
assert more["gpu_idle_us"] >= 0.5 * late["mean_us"], more
assert top["launch_lag_us"] < 50 and top["others_launch_lag_us"] > 20 * top["launch_lag_us"], top
f = [x for x in m["findings"] if x["code"] == "collective-straggler"]
assert len(f) == 1 and f[0]["text"].startswith(f"Rank {truth['straggler']} arrives last"), f
assert "Cause: **host**" in f[0]["text"] and "p90" in f[0]["text"], f[0]["text"]
assert "CUDA graph" in f[0]["recommendation"], f[0]
# the planted spin: found on the slowed rank and on no other
for s in dec:
    x = s["extra_kernels"]
    if slowed >= 0 and s["rank"] == f"rank {slowed}":
        assert 0.35 <= x["collectives"] / s["last"] <= 0.65, (s["rank"], x, s["last"])
        assert 0.9 <= x["kernels"] <= 1.1 and 90 <= x["gpu_busy_us"] <= 110, x
    else:
        assert x["collectives"] <= 0.05 * s["last"], (s["rank"], x)
if slowed >= 0:
    assert any(s["rank"] == f"rank {slowed}" for s in dec), dec
    text = " ".join(x["text"] for x in m["findings"] if x["code"].startswith("collective-"))
    assert f"Rank {slowed} " in text and "more kernels than the others" in text, text
md = open(f"{out}/report.md").read()
if source == "NCCL":
    assert "named by the rank NCCL's communicator-init payloads give them" in md
    assert "pid " not in " ".join(x["text"] for x in m["findings"])
assert "Late ranks per stage" in md and f"| {want} | decode |" in md, md[:200]
PY
}

check n2-equal-single-nsys run.sqlite -1 NCCL
check n2-slow-single-builtin trace.sqlite 1 RANK
check n4-slow-single-builtin trace.sqlite 3 RANK

# without NCCL's communicator-init records, and no identity table: each
# process drove one GPU of its own (0 and 1), so it is named by the local rank
# that GPU gives (LOCAL_RANK r on cuda:r, as torchrun ran it here), the
# findings give its pid too
python3 - n2-equal-single-nsys.sqlite <<'PY' || fail "strip comm-init"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
n = db.execute("DELETE FROM NVTX_EVENTS WHERE rowid IN (SELECT e.rowid FROM NVTX_EVENTS e "
               "LEFT JOIN StringIds s ON s.id = e.textId "
               "WHERE coalesce(e.text, s.value) LIKE 'ncclCommInit%')").rowcount
assert n == 2, n
db.commit()
PY
"$LLMPROF" report --trace n2-equal-single-nsys.sqlite -o bydev >out 2>err || fail "bydev: $(cat err)"
python3 - "$data/n2-equal-single-nsys" bydev <<'PY' || fail "named by device"
import json, sys
truth = [json.load(open(f"{sys.argv[1]}/truth-rank{r}.json")) for r in (0, 1)]
m = json.load(open(f"{sys.argv[2]}/metrics.json"))
got = [(r["label"], r["rank_source"], r["pid"], r["rank"], r["local_rank"]) for r in m["ranks"]]
assert got == [(f"local rank {r}", "device", truth[r]["pid"], None, r) for r in (0, 1)], got
f = [x for x in m["findings"] if x["code"] == "collective-straggler"][0]
assert f["text"].startswith(f"Local rank 1 (pid {truth[1]['pid']}) arrives last"), f["text"]
PY

# two processes whose communicator-init payloads claim the same rank: NCCL
# names neither (a note says which pids), the GPUs do
xz -dc "$data/n2-equal-single-nsys/run.sqlite.xz" >dup.sqlite || fail "xz dup"
python3 - dup.sqlite <<'PY' || fail "patch the rank"
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
rows = db.execute("SELECT e.rowid, e.binaryData FROM NVTX_EVENTS e "
                  "LEFT JOIN StringIds s ON s.id = e.textId "
                  "WHERE coalesce(e.text, s.value) LIKE 'ncclCommInit%'").fetchall()
assert len(rows) == 2, rows
for rowid, b in rows:  # u64 count; {u64 schema, size, offset}; the Rank entry at +12
    b = bytearray(b)
    off = struct.unpack_from("<Q", b, 24)[0]
    struct.pack_into("<i", b, off + 12, 0)
    db.execute("UPDATE NVTX_EVENTS SET binaryData = ? WHERE rowid = ?", (bytes(b), rowid))
db.commit()
PY
"$LLMPROF" report --trace dup.sqlite -o dup >out 2>err || fail "dup: $(cat err)"
grep -q "NCCL communicator ranks not used: pids 7265 and 7266 both say rank 0" dup/report.md ||
	fail "dup: no note: $(grep -i nccl dup/report.md | head -5)"
python3 - dup/metrics.json <<'PY' || fail "dup: names"
import json, sys
m = json.load(open(sys.argv[1]))
assert [(r["label"], r["rank_source"]) for r in m["ranks"]] == [
    ("local rank 0", "device"), ("local rank 1", "device")], m["ranks"]
PY

# one rank's nsys export (the other process's kernels gone), its NCCL
# records gone, nsys run under Slurm: the rank from the launcher variables in
# the environment nsys recorded for itself
python3 - dup.sqlite <<'PY' || fail "one rank under srun"
import sqlite3, sys
db = sqlite3.connect(sys.argv[1])
db.execute("DELETE FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE (globalPid >> 24) & 16777215 = 7266")
db.execute("DELETE FROM NVTX_EVENTS WHERE rowid IN (SELECT e.rowid FROM NVTX_EVENTS e "
           "LEFT JOIN StringIds s ON s.id = e.textId "
           "WHERE coalesce(e.text, s.value) LIKE 'ncclCommInit%')")
n = db.execute("UPDATE TARGET_INFO_SYSTEM_ENV SET value = value || "
               "';SLURM_JOB_ID=42;SLURM_PROCID=5;SLURM_NTASKS=8;SLURM_LOCALID=1' "
               "WHERE name = 'DeviceEnvironment'").rowcount
assert n == 1, n
db.commit()
PY
"$LLMPROF" report --trace dup.sqlite -o one >out 2>err || fail "one: $(cat err)"
python3 - one/metrics.json <<'PY' || fail "one rank: identity"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["environment"]["rank"] == {"rank": 5, "local_rank": 1, "world_size": 8,
    "launcher": "slurm", "source": "SLURM_PROCID", "host": None,
    "from": "nsys environment"}, m["environment"]["rank"]
PY

# the launcher path's per-rank files: no "step p50" for prefill
cp -r "$data/n2-late-launch-nsys" late && rm -rf late/merged
"$LLMPROF" merge late >out 2>err || fail "merge: exit $?: $(cat err)"
grep -q '^| decode | step p50 | 2 |' late/merged/merged.md || fail "no decode step p50: $(cat late/merged/merged.md)"
! grep -q '^| prefill | step p50' late/merged/merged.md || fail "prefill step p50: $(cat late/merged/merged.md)"
python3 - late/merged/merged.json <<'PY' || fail "merged.json step_p50"
import json, sys
m = json.load(open(sys.argv[1]))
assert all(r["prefill"]["step_p50_ms"] is None for r in m["ranks"]), m["ranks"]
assert all(r["decode"]["step_p50_ms"] > 0 for r in m["ranks"]), m["ranks"]
assert [s["step_p50"] for s in m["stages"] if s["name"] == "prefill"] == [None], m["stages"]
PY
echo ok
