#!/usr/bin/env bash
# Real H100 exports (ncu 2025.3.1, docs/validation/ncu-h100.md):
#  - a 4096^3 bf16 cuBLASLt GEMM: llmprof's FLOPs must equal 2*M*N*K, from the
#    typed tensor metric, and the untyped tensor-instruction count must not be
#    turned into FLOPs;
#  - the dummy model under kernel replay with NVTX include: the regions nest
#    and reconcile.
set -euo pipefail
data=$LLMPROF_SOURCE_DIR/tests/data/ncu
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

"$LLMPROF" report --ncu-csv "$data/h100-gemm4096-bf16-ncu2025.3.raw.csv" -o "$out/gemm" >/dev/null
python3 - "$out/gemm/kernels.json" <<'PY' || fail "gemm FLOPs"
import json, sys
k = json.load(open(sys.argv[1]))["launches"][0]
want = 2 * 4096 ** 3
assert k["flops"]["bf16"] == want, k["flops"]
assert k["flops_total"] == want, k["flops_total"]
assert k["flops"]["tensor"] is None
assert k["bound"] == "compute", k["bound"]
PY

"$LLMPROF" report --ncu-csv "$data/h100-dummy-kernel-replay-ncu2025.3.raw.csv" -o "$out/dummy" >/dev/null
python3 - "$out/dummy/regions/report.json" <<'PY' || fail "dummy regions"
import json, sys
d = json.load(open(sys.argv[1]))
r = {x["path"]: x for x in d["regions"]}
assert set(r) == {"A", "A/A::A1", "B", "head", "residual", "residual/block.conv1",
                  "residual/block.conv2", "stem"}, sorted(r)
assert r["A/A::A1"]["parent"] == "A" and r["A/A::A1"]["depth"] == 1
kids = r["residual/block.conv1"]["total_ms"] + r["residual/block.conv2"]["total_ms"]
assert abs(kids - r["residual"]["total_ms"]) <= 0.01 * r["residual"]["total_ms"]
assert r["residual"]["instances"] is None  # unknown under kernel replay
PY
echo "ok"
