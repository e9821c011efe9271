#!/usr/bin/env bash
# trace.json from a synthetic GPU trace: valid JSON, NVTX ranges on their
# thread, kernels on their stream track, one launch->kernel flow per kernel;
# under a small event cap the short GPU ops are merged (and the file says so)
# while NVTX ranges and the kept ops' flows stay.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
tool=$b/tests/trace-tool
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
mkdir "$t/log"
"$tool" synth "$t/log" 300 8 >/dev/null
"$tool" convert "$t/log" "$t/s.sqlite" "$t/full.json" >/dev/null
"$tool" json "$t/s.sqlite" "$t/cap.json" 1000 >"$t/cap.txt"
grep -q '^events 1802 merged 5400$' "$t/cap.txt"
python3 - "$t/full.json" "$t/cap.json" <<'PY'
import json, sys
full = json.load(open(sys.argv[1]))
ev = full["traceEvents"]
kern = [e for e in ev if e.get("cat") == "kernel"]
assert len(kern) == 2400, len(kern)
assert all(e["pid"] == 1000000000 and e["tid"] == 7 for e in kern)
nvtx = [e for e in ev if e.get("cat") == "nvtx"]
assert len(nvtx) == 301 and all(e["pid"] == 4242 and e["tid"] == 4242 for e in nvtx)
assert sum(1 for e in nvtx if e["name"] == "LLM:step") == 300
starts = [e for e in ev if e["ph"] == "s"]
ends = [e for e in ev if e["ph"] == "f"]
assert len(starts) == len(ends) == 3000  # kernels + memcpy + memset
assert {e["id"] for e in starts} == {e["id"] for e in ends}
names = {e["args"]["name"] for e in ev if e["ph"] == "M" and "name" in e.get("args", {})}
assert "GPU 0 (NVIDIA H100 80GB HBM3)" in names and "stream 7" in names, names
assert "synth" in names, names  # the process name, from PROCESSES
assert "note" not in full["otherData"]
# kernel 'ts' in microseconds with ns precision: first kernel at 1105 ns
assert min(e["ts"] for e in kern) == 1.105, min(e["ts"] for e in kern)

cap = json.load(open(sys.argv[2]))
ev = cap["traceEvents"]
assert "cap of 1000 events" in cap["otherData"]["note"]
assert sum(1 for e in ev if e.get("cat") == "nvtx") == 301
kept = [e for e in ev if e.get("cat") == "kernel"]
assert len(kept) == 300 and all(e["dur"] >= 1.070 for e in kept)
merged = [e for e in ev if e.get("cat") == "merged"]
assert sum(int(e["name"].split()[0][1:]) for e in merged) == 5400
assert sum(1 for e in ev if e["ph"] == "s") == 300
PY
echo ok
