#!/usr/bin/env bash
# GPU validation: Ctrl-C during deep mode's ncu step keeps what ncu
# measured. `llmprof profile run.mode=deep` on examples/hf_llama.py (the
# transformers Llama) in the background; AFTER_S seconds (default 30) after
# the ncu capture started, SIGINT goes to llmprof, as a terminal's Ctrl-C
# would. Printed: exit code and time to exit, status.json's state and step
# messages, how many results ncu/raw.csv holds and how many joined, the
# report's first lines. Run from a staged tree (scripts/gpu/stage.sh):
#   scripts/gpu/validate-ncu-interrupt.sh STAGE OUT     (STAGE absolute)
set -u
stage=${1:?usage: validate-ncu-interrupt.sh STAGE OUT} out=${2:?}
B=$stage/build
NCU=${NCU:-/usr/local/cuda/bin/ncu}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
"$B/llmprof" profile artifacts.root="$w/runs" run.mode=deep pipeline.trace.backend=builtin \
	pipeline.ncu.path="$NCU" model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32 \
	-- python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32 >"$w/out" 2>"$w/err" &
p=$!
run=
for _ in $(seq 600); do
	run=$(sed -n 's/^llmprof: run //p' "$w/err" | head -n 1)
	[ -n "$run" ] && [ -e "$run/logs/ncu-k0.argv" ] && break
	kill -0 $p 2>/dev/null || break
	sleep 0.5
done
[ -e "$run/logs/ncu-k0.argv" ] || { echo "the ncu capture never started"; tail "$w/err"; exit 1; }
sleep "${AFTER_S:-30}"
echo "SIGINT to llmprof (pid $p) $(date +%T), ${AFTER_S:-30} s into the ncu capture"
t0=$(date +%s.%N)
kill -INT $p
wait $p
rc=$?
echo "llmprof exit $rc after $(python3 -c "import time; print(round(time.time() - $t0, 1))") s"
tail -n 12 "$w/err"
python3 - "$run" <<'PY'
import csv, json, os, sys
d = sys.argv[1]
st = json.load(open(os.path.join(d, "status.json")))
print("status:", st.get("state"), "exit", st.get("exit_code"))
for s in st.get("steps", []):
    print("  %-8s %-12s %s" % (s["name"], s["state"], (s.get("message") or "")[:300]))
raw = os.path.join(d, "ncu", "raw.csv")
if os.path.exists(raw):
    print("ncu/raw.csv results:", max(0, len(list(csv.reader(open(raw)))) - 2))
m = os.path.join(d, "ncu", "measured.json")
if os.path.exists(m):
    r = json.load(open(m)).get("results", [])
    print("results mapped to launches:", sum(1 for x in r if x.get("launch_index") is not None), "of", len(r))
PY
head -n 6 "$run/report.md"
grep -n "counters\|Counter" "$run/kernels.md" | head -n 5
cp "$w/err" "$out/interrupt.err"
tar czf "$out/interrupted-bundle.tgz" -C "$run" --exclude='*.ncu-rep' --exclude='*.sqlite' \
	--exclude='trace/log' . 2>/dev/null
rm -rf "$w"
