#!/usr/bin/env bash
# Bytes per NCCL collective from NCCL's NVTX extended payloads
# (docs/collectives.md "Bytes"), under both backends, on one GPU:
# examples/multi_rank.py under torchrun at world size 1 (33 all_reduce of
# rows x hidden bf16; with one rank NCCL launches no kernel for them), run
# once untraced for its checksum, then under `llmprof profile` with the
# builtin tracer and with nsys (ncu off). Printed per backend: the NCCL
# calls and bytes llmprof reports (metrics.json "nccl_calls") against the
# program's own count, whether trace.sqlite / run.sqlite holds the payload
# tables and blobs, and whether the checksum is unchanged. Then the same
# with --avg (ReduceOp.AVG in the 32 decode steps): NCCL runs its
# oneRankReduce kernel for those even at world size 1, so the calls'
# kernel time and algbw are checked against the kernels' own durations in
# the export (independent of llmprof's attribution). About two minutes.
# Usage: scripts/gpu/validate-nccl-bytes.sh STAGE OUT   (STAGE absolute)
set -u
stage=${1:?usage: validate-nccl-bytes.sh STAGE OUT} out=${2:?}
B=$stage/build
ex=$stage/examples
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
for variant in sum avg; do
prog=(torchrun --standalone --nproc-per-node 1 "$ex/multi_rank.py" --hidden 1024 --rows 64)
[ $variant = avg ] && prog+=(--avg)
echo "#### variant $variant: ${prog[*]}"
t0=$SECONDS
timeout 120 "${prog[@]}" >"$w/plain-$variant.out" 2>"$w/plain-$variant.err"
echo "untraced: exit $? in $((SECONDS - t0)) s; $(grep -h '^checksum\|all_reduce' "$w/plain-$variant.out" | tr '\n' ';')"
for be in builtin nsys; do
	t0=$SECONDS
	timeout 300 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=$be \
		pipeline.ncu.enable=false -- "${prog[@]}" >"$w/$be.out" 2>"$w/$be.err"
	rc=$?
	run=$(sed -n 's/^run: //p' "$w/$be.out")
	echo "== $be: exit $rc in $((SECONDS - t0)) s"
	[ $rc = 0 ] || tail -5 "$w/$be.err"
	[ -n "$run" ] && mv "$run" "$w/$be-$variant"
	python3 - "$w/$be-$variant" "$w/plain-$variant.out" <<'PY'
import glob, json, os, re, sqlite3, sys
d, plain = sys.argv[1], sys.argv[2]
own = {}
for f in (plain, d + "/logs/workload.out"):
    if os.path.exists(f):
        t = open(f).read()
        own[f] = (re.findall(r"^checksum (\S+)", t, re.M),
                  re.findall(r"all_reduce calls (\d+) bytes (\d+)", t))
(pc, pa), (tc, ta) = own.get(plain, ([], [])), own.get(d + "/logs/workload.out", ([], []))
print("  program: all_reduce (calls, bytes) untraced %s, traced %s" % (pa, ta))
print("  checksum untraced %s traced %s: %s" % (pc, tc, "SAME" if pc and pc == tc else "DIFFERENT"))
for db in glob.glob(d + "/trace/trace.sqlite") + glob.glob(d + "/nsys/run.sqlite"):
    c = sqlite3.connect(db)
    def q(sql):
        try:
            return c.execute(sql).fetchall()
        except sqlite3.Error as e:
            return "error: %s" % e
    print("  %s: schemas %s entries %s enums %s, NVTX rows with a blob %s" % (
        os.path.relpath(db, d), q("SELECT count(*) FROM NVTX_PAYLOAD_SCHEMAS"),
        q("SELECT count(*) FROM NVTX_PAYLOAD_SCHEMA_ENTRIES"),
        q("SELECT count(*) FROM NVTX_PAYLOAD_ENUMS"),
        q("SELECT count(*) FROM NVTX_EVENTS WHERE binaryData IS NOT NULL")))
    print("    first blob: %s" % q("SELECT hex(binaryData) FROM NVTX_EVENTS WHERE "
                                    "binaryData IS NOT NULL ORDER BY rowid LIMIT 2"))
if not os.path.exists(d + "/metrics.json"):
    print("  no metrics.json"); sys.exit(0)
n = json.load(open(d + "/metrics.json")).get("nccl_calls")
if not n:
    print("  metrics.json: no nccl_calls"); sys.exit(0)
print("  bytes unknown because: %s" % n["bytes_unknown_why"])
for r in n["by_process"]:
    print("  llmprof: %s %s calls %s bytes %s per call %s op %s ranks %s launched %s "
          "kernels %s algbw %s busbw %s" % (r["process"], r["type"], r["calls"], r["bytes"],
          r["bytes_per_call"], r["op"], r["ranks"], r["launched_calls"], r["kernels"],
          r["algbw_gbps"], r["busbw_gbps"]))
    if r["type"] == "AllReduce" and ta:
        ok = [int(ta[0][0]), int(ta[0][1])] == [r["calls"], r["bytes"]]
        print("  AllReduce calls/bytes vs the program: %s" % ("MATCH" if ok else "MISMATCH"))
    if r["type"] != "AllReduce" or not r["kernels"]:
        continue
    # independent: NCCL's oneRankReduce kernels and their durations, read
    # from the export by name; the calls with a kernel are the 32 AVG ones
    for db in glob.glob(d + "/trace/trace.sqlite") + glob.glob(d + "/nsys/run.sqlite"):
        c = sqlite3.connect(db)
        ks = c.execute("SELECT count(*), sum(k.end - k.start) FROM CUPTI_ACTIVITY_KIND_KERNEL k "
                       "JOIN StringIds s ON s.id = k.demangledName "
                       "WHERE s.value LIKE '%oneRankReduce%'").fetchone()
        per_call = r["bytes_per_call"]
        algbw = r["launched_calls"] * per_call / ks[1] if ks[1] else None
        print("  export: %d oneRankReduce kernels, %.6f ms; llmprof: %d kernels, %.6f ms, "
              "%d calls launched" % (ks[0], ks[1] / 1e6, r["kernels"], r["kernel_time_ms"],
                                      r["launched_calls"]))
        print("  algbw from the export %.3f GB/s, llmprof %s GB/s: %s" % (
            algbw, r["algbw_gbps"], "MATCH" if r["algbw_gbps"] and
            abs(r["algbw_gbps"] - algbw) <= 1e-3 * algbw and ks[0] == r["kernels"] == 32
            else "MISMATCH"))
PY
	[ -f "$w/$be-$variant/report.md" ] &&
		sed -n '/^## Collectives/,/^## [A-Z]/p' "$w/$be-$variant/report.md" | head -12
done
done
tar czf "$out/nccl-bytes.tgz" -C "$w" --exclude='trace/log' --exclude='*.nsys-rep' \
	$(cd "$w" && ls -d builtin-* nsys-* plain-* 2>/dev/null)
rm -rf "$w"
