#!/usr/bin/env bash
# bench/pytorch/modes-overhead.sh, which prices each pipeline.trace.pytorch
# mode on a GPU, checked on a CPU (DRY=1: its program "dry" on the tests'
# fake torch): every process runs under the real llmprof, each mode's
# generations get the startup module's estimate of what its hooks added
# (its own formula: calls x the calibrated call path + the hooks' bodies)
# beside the measured ratio to `none`, and the summary, the calibrations,
# auto's decisions and the real run's Trust line are written.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
src=${LLMPROF_SOURCE_DIR:?}
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
[ -f "$b/tracer/libllmprof_tracer.so" ] || { echo "skip: no builtin tracer (no CUDA toolkit)"; exit 77; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

DRY=1 ROUNDS=2 BUILD=$b bash "$src/bench/pytorch/modes-overhead.sh" "$src" "$t/out" >"$t/log" 2>&1 ||
	fail "the bench: $(cat "$t/log")"
for f in summary.md results.json modes-overhead.log pytorch-logs.txt trust-lines.txt; do
	[ -s "$t/out/$f" ] || fail "no $f: $(cat "$t/log")"
done
grep -q "^dry-untraced: exit 0" "$t/out/modes-overhead.log" || fail "untraced: $(cat "$t/log")"
grep -q "^dry-modes: exit 0" "$t/out/modes-overhead.log" || fail "modes: $(cat "$t/log")"
grep -q "^dry-real: exit 0" "$t/out/modes-overhead.log" || fail "real: $(cat "$t/log")"
# one row per mode, every checksum the untraced one's; with hooks, an
# estimate (x ratio) beside the measured / none
python3 - "$t/out/summary.md" "$t/out/results.json" <<'PY' || fail "summary: $(cat "$t/out/summary.md")"
import json, sys
rows = [l.split("|")[1:-1] for l in open(sys.argv[1]) if l.startswith("| dry ")]
rows = {r[1].strip(): [c.strip() for c in r] for r in rows}
assert sorted(rows) == sorted(["untraced", "none", "modules", "ops", "auto",
                                "real (auto at import)"]), sorted(rows)
for mode, r in rows.items():
    assert r[13] == "EQUAL", (mode, r)
    hooked = mode not in ("untraced", "none")
    assert (r[9] != "-") == hooked, (mode, "estimate", r)
    assert (r[5] != "-") == (mode != "untraced"), (mode, "/ none", r)
    if hooked:
        assert float(r[9]) >= 1.0 and r[12].startswith("on "), (mode, r)
res = json.load(open(sys.argv[2]))
gens = [g for g in res["dry-modes"]["rounds"] if g["mode"] == "modules"]
assert len(gens) == 2, gens
for g in gens:
    e = g["estimate"]
    # 17 model calls of 1 + 16 layers a generation
    assert e["calls"] == 17 * 17, e
    assert abs(e["est_ms"] - (e["calls"] * e["path_us"] / 1e3 + e["hook_ms"])) < 1e-6, e
    assert g["hooks"]["calls"] == 2 * 17 * 17 and g["hooks"]["on"] is True, g["hooks"]
PY
# a calibration per install: modules, ops and auto each round in process,
# and the real run's at import
n=$(grep -c "^info: calibration: hooked call path" "$t/out/modes-overhead.log")
[ "$n" = 7 ] || fail "$n calibrations: $(cat "$t/out/modes-overhead.log")"
grep -q "auto: module ranges on while they make the program at most 3 % slower" "$t/out/modes-overhead.log" ||
	fail "no auto decision: $(cat "$t/out/modes-overhead.log")"
grep -Eq "^PyTorch ranges: auto in 1 process \(torch 2\.99\.0\+fake\); .*estimated [0-9.]+% slower \(calls × " \
	"$t/out/trust-lines.txt" || fail "trust line: $(cat "$t/out/trust-lines.txt")"
echo "test-pytorch-modes-bench: ok"
