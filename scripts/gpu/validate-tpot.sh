#!/usr/bin/env bash
# TPOT against the program's own CUDA events, on a fresh recording
# (docs/report.md "TPOT and the step GPU span"): examples/tp_decode.py in
# one process (--steps 64), its host sleeping GAP us between decode steps
# (0: GPU-bound steps; 400 and 2000: host-bound), under the builtin tracer
# and under nsys (ncu off). Per run: metrics.json's aggregates.tpot_ms
# against the program's decode_ms / steps (CUDA events around the whole
# loop; they also hold the last step's trailing sleep, which TPOT, ending
# at the last step's end, does not: GAP / 64 per token), the step GPU span
# beside it, tokens/s = batch / TPOT. Target: within 1 %.
# Writes OUT/tpot.tsv (one row per run) and OUT/<backend>-gap<GAP>/ (the
# bundle's small files, the truth). Exit 0 when every run is within 1 %.
# Usage: scripts/gpu/validate-tpot.sh STAGE OUT   (STAGE absolute: scripts/gpu/stage.sh)
set -u
stage=${1:?usage: validate-tpot.sh STAGE OUT} out=${2:?}
B=$stage/build
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
printf 'backend\tgap_us\ttpot_ms\ttruth_ms\tdiff_pct\tstep_gpu_span_ms\ttokens_per_s\tverdict\n' >"$out/tpot.tsv"
bad=0
for backend in builtin nsys; do
	for gap in 0 400 2000; do
		name=$backend-gap$gap
		mkdir -p "$w/$name.truth"
		timeout 500 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=$backend \
			pipeline.ncu.enable=false -- python3 "$stage/examples/tp_decode.py" --steps 64 \
			--gap-us "$gap" --truth "$w/$name.truth" >"$w/$name.out" 2>"$w/$name.err"
		rc=$?
		run=$(sed -n 's/^run: //p' "$w/$name.out")
		echo "$name: exit $rc ($run)"
		mkdir -p "$out/$name"
		cp "$w/$name.truth"/* "$w/$name.err" "$out/$name/" 2>/dev/null
		[ -n "$run" ] && cp "$run"/metrics.json "$run"/status.json "$run"/report.md "$out/$name/" 2>/dev/null
		python3 - "$out/$name" "$backend" "$gap" >>"$out/tpot.tsv" <<'PY' || bad=1
import json, sys
d, backend, gap = sys.argv[1:]
try:
    m = json.load(open(d + "/metrics.json"))
    t = json.load(open(d + "/truth-rank0.json"))
except Exception as e:
    print("%s\t%s\t\t\t\t\t\tmissing (%s)" % (backend, gap, e)); sys.exit(1)
a = m["aggregates"]
dec = [s for s in m["stages"] if s["role"] == "decode"]
span = dec[0]["steps"]["mean_ms"] if dec else None
truth = t["decode_ms"] / t["steps"]
tpot = a["tpot_ms"]
diff = None if tpot is None else 100 * (tpot - truth) / truth
ok = diff is not None and abs(diff) <= 1
print("%s\t%s\t%s\t%.4f\t%s\t%s\t%s\t%s" % (backend, gap, tpot, truth,
      "n/a" if diff is None else "%+.2f" % diff, span, a["tokens_per_s"], "ok" if ok else "OFF"))
sys.exit(0 if ok else 1)
PY
	done
done
column -t -s $'\t' "$out/tpot.tsv"
rm -rf "$w"
exit $bad
