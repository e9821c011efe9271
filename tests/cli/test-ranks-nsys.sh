#!/usr/bin/env bash
# The nsys backend with several ranks, through the real pipeline and a
# stand-in nsys whose export has what an nsys export has: kernels, NVTX
# ranges and pids, and no rank identity (trace-tool synth-rank[s] + convert,
# then the LLMPROF_PROCESSES table dropped).
#  1. mpirun-style: one `llmprof profile --rank-dir RUN` per rank. Each
#     rank's bundle names its rank from the launcher's environment
#     (rank.json, the Environment row, metrics.json), writes collectives.tsv
#     with this host, and `llmprof merge` names the slowed rank.
#  2. torchrun-style: one llmprof around the launcher, one export holding
#     every rank: the ranks are told apart by pid and the collectives still
#     name the slowed one.
set -u
: "${LLMPROF:?}" "${LLMPROF_SOURCE_DIR:?}"
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
[ -x "$tool" ] || { echo "SKIP: trace-tool not built (needs the CUDA toolkit headers)"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-ranks-nsys.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1

mkdir bin
. "$LLMPROF_SOURCE_DIR/tests/cli/fake-nsys-lib.sh"
# profile: "record" what this rank (or job) ran
on_profile=$(cat <<EOF
	mkdir -p "\$out.log" || exit 1
	if [ -n "\${JOB_RANKS:-}" ]; then # torchrun: every rank, rank 1 slowed
		"$tool" synth-ranks "\$out.log" "\$JOB_RANKS" 4 3 1 20000 nccl >/dev/null || exit 1
	else # this rank, as the launcher's environment says
		"$tool" synth-rank "\$out.log" 4 3 "\${SLOW:-0}" 20000 node0 || exit 1
	fi
EOF
)
on_export=$(cat <<EOF
	"$tool" convert "\${rep%.nsys-rep}.log" "\$out" >/dev/null || exit 1
	python3 -c 'import sqlite3, sys; c = sqlite3.connect(sys.argv[1]); c.execute("DROP TABLE LLMPROF_PROCESSES"); c.commit()' "\$out"
EOF
)
fake_nsys_profile bin "$on_profile" "$on_export"
nsys=(pipeline.trace.backend=nsys pipeline.nsys.path="$tmp/bin/nsys" pipeline.ncu.enable=false)

# 1. mpirun-style: rank 1 of 2 slowed
for r in 0 1; do
	slow=0
	[ "$r" = 1 ] && slow=20000
	env -u RANK -u SLURM_PROCID -u OMPI_COMM_WORLD_RANK -u PMI_RANK \
		OMPI_COMM_WORLD_RANK="$r" OMPI_COMM_WORLD_SIZE=2 SLOW=$slow \
		"$LLMPROF" profile -q --rank-dir run "${nsys[@]}" -- true >"out.$r" 2>"err.$r" ||
		fail "rank $r: $(cat "err.$r")"
done
python3 - run "$(hostname)" <<'PY' || fail "rank bundles"
import json, sqlite3, sys
run, host = sys.argv[1], sys.argv[2]
for r in (0, 1):
    d = f"{run}/ranks/{r}"
    db = sqlite3.connect(f"{d}/nsys/run.sqlite")
    assert not db.execute("SELECT name FROM sqlite_master WHERE name='LLMPROF_PROCESSES'").fetchall()
    tsv = open(f"{d}/collectives.tsv").read().splitlines()
    assert tsv[0] == "# llmprof collectives 3" and tsv[1] == f"host\t{host}", tsv[:2]
    boot = open("/proc/sys/kernel/random/boot_id").read().strip()
    # the fake nsys's export is llmprof's converter's, so its clock is the
    # tracer's CLOCK_REALTIME (a real nsys export states nsys-utc)
    assert tsv[2] == f"clock\trealtime\t{host}\t{boot}", tsv[2]
    assert sum(l.startswith("kernel\t") for l in tsv) == 5, tsv
    # each with its launch and the gap before it (the first has none)
    gaps = [l.split("\t")[5:9] for l in tsv if l.startswith("kernel\t")]
    assert gaps[0][1:] == ["-"] * 3 and all(g[1] != "-" and g[3] == "3" for g in gaps[1:]), gaps
    m = json.load(open(f"{d}/metrics.json"))
    assert m["environment"]["rank"] == {"rank": r, "local_rank": None, "world_size": 2,
        "launcher": "openmpi", "source": "OMPI_COMM_WORLD_RANK", "host": host,
        "from": "rank.json"}, m["environment"]["rank"]
    assert f"| Rank | {r} of 2 (openmpi) |" in open(f"{d}/report.md").read()
PY
"$LLMPROF" merge run >out 2>err || fail "merge: $? $(cat err)"
grep -qx "slowest: rank 1 by arriving last at NCCL collectives" out || fail "merge: $(cat out)"
python3 - run/merged/merged.json "$(hostname)" <<'PY' || fail "merged.json"
import json, sys
m = json.load(open(sys.argv[1]))
assert m["complete"] is True and [r["rank"] for r in m["ranks"]] == [0, 1]
assert all(r["host"] == sys.argv[2] for r in m["ranks"]), m["ranks"]
c = m["collectives"]
assert c["instances"] == 5 and c["stragglers"][0]["rank"] == 1, c
# why, from the nsys exports' gaps: its kernels are slower (3 x 20 us)
(late,) = [x for x in c["late_by_stage"] if x["stage"] == "decode"]
assert late["rank"] == 1 and late["cause"] == "GPU", late
assert abs(late["more_than_others"]["gpu_busy_us"] - 60) < 1e-6, late
PY

# 2. torchrun-style: one llmprof, one export of 2 ranks, no identities
JOB_RANKS=2 "$LLMPROF" profile -q artifacts.root=job "${nsys[@]}" -- true >out 2>err ||
	fail "torchrun job: $(cat err)"
bundle=$(sed -n 's/^run: //p' out)
python3 - "$bundle" <<'PY' || fail "torchrun job under nsys"
import json, sys
m = json.load(open(f"{sys.argv[1]}/metrics.json"))
assert [r["label"] for r in m["ranks"]] == ["pid 5000", "pid 5001"], m["ranks"]
assert all(r["rank"] is None for r in m["ranks"])
c = m["cross_rank"]
assert c["identified"] is False and c["slowest"] == "pid 5001", c
assert c["slowest_by"] == "last arrival at collectives"
assert m["collectives"]["stragglers"][0]["rank"] == "pid 5001"
assert m["environment"]["rank"] is None
r = open(f"{sys.argv[1]}/report.md").read()
assert "The trace records no rank identities" in r and "| pid 5001 | 5001 |" in r
PY
echo ok
