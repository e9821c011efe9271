#!/usr/bin/env bash
# Bytes per NCCL collective from NCCL's NVTX extended payloads, on real nsys
# exports of a world-size-1 torchrun program (tests/data/nsys/README.md,
# "NCCL payloads"): 33 ncclAllReduce calls of 64 x 1024 bf16 = 131072 bytes,
# which launch no kernel with one rank.
#  1. exported with --include-blobs: the bytes, the op and the ranks of the
#     communicator in metrics.json, report.md and the summary; the process
#     is rank 0, as its communicator-init payload says (rank 0 of 1);
#  2. exported without: the same calls, bytes n/a and why, never 0.
set -u
: "${LLMPROF:?}" "${LLMPROF_SOURCE_DIR:?}"
data=$LLMPROF_SOURCE_DIR/tests/data/nsys
tmp=$(mktemp -d /tmp/llmprof-cli-nccl-bytes.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1

for f in blobs noblobs; do
	"$LLMPROF" report --trace "$data/nccl-ws1-h100-nsys2025.3-$f.sqlite" -o "$f" \
		>"out.$f" 2>"err.$f" || fail "$f: $(cat "err.$f")"
done

python3 - <<'PY' || fail "metrics.json"
import json
m = json.load(open("blobs/metrics.json"))["nccl_calls"]
assert m["bytes_unknown_why"] is None, m
(r,) = m["by_process"]
want = {"type": "AllReduce", "calls": 33, "sized_calls": 33, "bytes": 33 * 131072,
        "bytes_per_call": 131072.0, "op": "Sum", "ranks": 1, "launched_calls": 0,
        "kernels": 0, "algbw_gbps": None, "busbw_gbps": None}
for k, v in want.items():
    assert r[k] == v, (k, r[k], v)
assert r["process"] == "rank 0", r
e = json.load(open("blobs/metrics.json"))["environment"]["rank"]
assert (e["rank"], e["world_size"], e["source"], e["from"]) == (0, 1, "NCCL", "NCCL"), e
m = json.load(open("noblobs/metrics.json"))["nccl_calls"]
assert m["bytes_unknown_why"] == "nsys export without --include-blobs", m
(r,) = m["by_process"]
want = {"type": "AllReduce", "calls": 33, "sized_calls": 0, "bytes": None,
        "bytes_per_call": None, "op": None, "ranks": None}
for k, v in want.items():
    assert r[k] == v, (k, r[k], v)
PY

grep -q '^| rank 0 | AllReduce | 33 | 131072 | 4325376 | Sum | 1 | 0 | ' blobs/report.md ||
	fail "report.md row: $(grep AllReduce blobs/report.md)"
grep -q 'none launched a kernel' blobs/stakeholder_summary.md || fail "summary: no kernel sentence"
grep -q '^| pid [0-9]* | AllReduce | 33 | n/a | n/a | n/a | n/a | 0 | ' noblobs/report.md ||
	fail "report.md n/a row: $(grep AllReduce noblobs/report.md)"
grep -q 'bytes n/a (nsys export without --include-blobs)' noblobs/report.md ||
	fail "report.md: no reason for n/a"
grep -q 'bytes n/a (nsys export without --include-blobs)' noblobs/report.html ||
	fail "report.html: no reason for n/a"
echo OK
