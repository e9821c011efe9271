#!/usr/bin/env bash
# GPU validation of llmprof's PyTorch startup module (docs/pytorch.md) on
# programs with no operator NVTX of their own (scripts/gpu/pytorch_modules.py):
#   A  transformers Llama (Llama-3.2-1B shape, 16 layers), eager: untraced,
#      and under `llmprof profile` (builtin tracer) with pipeline.trace.pytorch
#      = none, modules, ops; the same program with hand-placed NVTX around the
#      same modules (pytorch=none). Checksums against untraced; decode shares
#      per module class and per path, modules vs hand (target: 2 points);
#      share of decode kernel time under a module range (target: 95 %).
#   B  the same shape as plain modules: eager vs a torch.cuda.graph decode
#      under modules (replayed kernels attributed to the capture-time module
#      ranges; shares within 2 points of eager).
#   C  torch.compile default and reduce-overhead: checksums, Dynamo graph
#      breaks and graphs untraced vs under modules (target: no extra break).
#   D  overhead: decode time (the program's own CUDA events, best of 2 in
#      each process) untraced / none / modules / ops, interleaved, ROUNDS rounds
#      (default 2).
#   E  nsys (when installed): modules under pipeline.trace.backend=nsys: the
#      domain, registered paths and class categories in nsys's export.
# Writes to OUT (at most 8 files): validate-pytorch-modules.log (everything
# printed), results.json, and for the analysis tests (gzip'd trace.sqlite):
# hf-modules, hf-hand, mini-eager, mini-graph, mini-compile; plus the
# startup module's logs (pytorch-logs.txt); KEEP_DBS names other runs to
# keep (mini-compilero, hf-nsys is nsys's). Stops optional parts once
# LIMIT_S (default 480) seconds have passed, so one 10-minute call is enough.
# Usage: scripts/gpu/validate-pytorch-modules.sh STAGE OUT   (STAGE absolute,
# staged by scripts/gpu/stage.sh: build/llmprof, build/pytorch, build/tracer)
set -u
stage=${1:?usage: validate-pytorch-modules.sh STAGE OUT} out=${2:?}
B=$stage/build
prog=$stage/scripts/gpu/pytorch_modules.py
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
limit=${LIMIT_S:-480}
mkdir -p "$out"
w=$(mktemp -d)
start=$SECONDS
left() { [ $((SECONDS - start)) -lt "$limit" ]; }
# plain NAME ARGS...: untraced; its stdout in $w/NAME.out
plain() {
	local name=$1
	shift
	timeout 200 python3 "$prog" "$@" >"$w/$name.out" 2>"$w/$name.err"
	echo "$name: exit $? $(grep -h '^checksum\|^decode_ms\|^graph_breaks' "$w/$name.out" | tr '\n' ' ') [$((SECONDS - start)) s]"
}
# prof NAME MODE ARGS...: under llmprof profile, builtin tracer, pytorch=MODE
prof() {
	local name=$1 mode=$2 d
	shift 2
	timeout 300 "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend="${BACKEND:-builtin}" \
		pipeline.ncu.enable=false pipeline.trace.pytorch="$mode" model=llama-3.2-1b \
		infer.prompt_len=128 infer.max_new_tokens=32 \
		-- python3 "$prog" --classes "$w/$name.classes.json" "$@" >"$w/$name.pout" 2>"$w/$name.perr"
	local rc=$?
	d=$(sed -n 's/^run: //p' "$w/$name.pout")
	if [ -n "$d" ] && [ -d "$d" ]; then
		rm -rf "$w/keep-$name" && cp -r "$d" "$w/keep-$name"
		cp "$d/logs/workload.out" "$w/$name.out" 2>/dev/null
		{ echo "== $name"; cat "$d/logs/pytorch.log" 2>/dev/null; } >>"$w/pytorch-logs.txt"
	fi
	echo "$name: exit $rc $(grep -h '^checksum\|^decode_ms\|^graph_breaks' "$w/$name.out" 2>/dev/null | tr '\n' ' ') [$((SECONDS - start)) s]"
	[ $rc = 0 ] || tail -n 5 "$w/$name.perr"
}
{
"$B/llmprof" --version
python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__, torch.cuda.get_device_name())'
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
echo "=== A: transformers Llama, eager"
plain hf-plain --model hf
prof hf-none none --model hf
prof hf-modules modules --model hf --repeat 1
prof hf-hand none --model hf --hand --repeat 1
echo "=== B: plain modules, eager and torch.cuda.graph"
plain mini-eager-plain --model mini
prof mini-eager modules --model mini
plain mini-graph-plain --model mini --run graph
prof mini-graph modules --model mini --run graph
echo "=== C: torch.compile"
left || echo "time limit: C skipped"
left && plain mini-compile-plain --model mini --run compile
left && prof mini-compile modules --model mini --run compile
left && plain mini-compilero-plain --model mini --run compile-ro
left && prof mini-compilero modules --model mini --run compile-ro
echo "=== D: overhead rounds (decode_ms; hf eager)"
left && prof hf-ops ops --model hf
for r in $(seq 1 "${ROUNDS:-2}"); do
	left || { echo "time limit: round $r skipped"; break; }
	plain hf-plain-r$r --model hf
	prof hf-none-r$r none --model hf
	prof hf-modules-r$r modules --model hf
	left && prof hf-ops-r$r ops --model hf
done
echo "=== E: nsys"
if left && command -v nsys >/dev/null; then
	BACKEND=nsys prof hf-nsys modules --model hf
	db=$w/keep-hf-nsys/nsys/run.sqlite
	if [ -f "$db" ]; then
		sqlite3 "$db" "SELECT 'domain', count(*) FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'llmprof.pytorch';
			SELECT 'module ranges (with textId, category)', count(*), count(textId), count(category) FROM NVTX_EVENTS r
			WHERE r.eventType = 59 AND r.domainId = (SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'llmprof.pytorch' LIMIT 1);
			SELECT 'categories named', count(*) FROM NVTX_EVENTS WHERE eventType = 33;"
	fi
else
	echo "nsys: skipped (not installed or time limit)"
fi
echo "=== launch-bound findings of the graph and compiled decodes"
for n in mini-graph mini-compile mini-compilero; do
	grep -h 'launch-bound' "$w/keep-$n/report.md" 2>/dev/null | sed "s/^/$n: /"
done
python3 - "$w" <<'PY'
import glob, json, os, re, statistics, sys
w = sys.argv[1]
res = {"runs": {}}
def outvals(name):
    p = os.path.join(w, name + ".out")
    if not os.path.exists(p):
        return None
    t = open(p).read()
    v = {}
    m = re.search(r"^checksum (\S+) (\S+)", t, re.M)
    v["checksum"] = (m.group(1), m.group(2)) if m else None
    m = re.search(r"^decode_ms (\S+)", t, re.M)
    v["decode_ms"] = float(m.group(1)) if m else None
    m = re.search(r"^graph_breaks (\d+) unique_graphs (\d+)", t, re.M)
    v["graph_breaks"], v["graphs"] = (int(m.group(1)), int(m.group(2))) if m else (None, None)
    return v
for p in sorted(glob.glob(os.path.join(w, "*.out"))):
    n = os.path.basename(p)[:-4]
    res["runs"][n] = outvals(n)
print("--- checksums against untraced")
pairs = [("hf-plain", n) for n in ("hf-none", "hf-modules", "hf-ops", "hf-hand")] + [
    ("mini-eager-plain", "mini-eager"), ("mini-graph-plain", "mini-graph"),
    ("mini-compile-plain", "mini-compile"), ("mini-compilero-plain", "mini-compilero")]
for a, b in pairs:
    ra, rb = res["runs"].get(a), res["runs"].get(b)
    if ra and rb:
        print("%-16s %-16s %s  %s vs %s" % (a, b, "EQUAL" if ra["checksum"] == rb["checksum"] else "DIFFERENT",
                                         ra["checksum"], rb["checksum"]))
print("--- Dynamo graph breaks / graphs, untraced vs modules")
for a, b in (("mini-compile-plain", "mini-compile"), ("mini-compilero-plain", "mini-compilero")):
    ra, rb = res["runs"].get(a), res["runs"].get(b)
    if ra and rb:
        print("%-20s breaks %s -> %s, graphs %s -> %s" % (b, ra["graph_breaks"], rb["graph_breaks"], ra["graphs"], rb["graphs"]))

def ops(name):
    d = os.path.join(w, "keep-" + name)
    p = os.path.join(d, "metrics.json")
    if not os.path.exists(p):
        return None, None, None
    m = json.load(open(p))
    st = {s["name"]: s for s in m.get("stages", [])}
    dec = st.get("decode") or {}
    o = [x for x in m.get("operators", []) if x.get("stage") == "decode"]
    cls = {}
    cp = os.path.join(w, name + ".classes.json")
    if os.path.exists(cp):
        cls = json.load(open(cp))
    return o, dec, cls
def shares(name):
    o, dec, cls = ops(name)
    if o is None:
        return None
    busy = dec.get("busy_ms") or 0
    by_path = {x["name"]: (x.get("gpu_ms") or 0) for x in o}
    by_cls = {}
    for n, ms in by_path.items():
        c = cls.get(n, "?")
        by_cls[c] = by_cls.get(c, 0) + ms
    cov = sum(by_path.values()) / busy if busy else None
    return {"busy_ms": busy, "covered": cov,
            "path": {k: v / busy for k, v in by_path.items()} if busy else {},
            "class": {k: v / busy for k, v in by_cls.items()} if busy else {}}
res["shares"] = {}
for n in ("hf-modules", "hf-hand", "mini-eager", "mini-graph", "mini-compile", "mini-compilero"):
    s = shares(n)
    res["shares"][n] = s
    if s:
        print("%-16s decode busy %.2f ms, under a module range %.1f %%" % (n, s["busy_ms"], 100 * (s["covered"] or 0)))
def compare(a, b, what):
    sa, sb = res["shares"].get(a), res["shares"].get(b)
    if not sa or not sb:
        print(a, b, "missing")
        return
    keys = sorted(set(sa[what]) | set(sb[what]), key=lambda k: -max(sa[what].get(k, 0), sb[what].get(k, 0)))
    worst = max([abs(sa[what].get(k, 0) - sb[what].get(k, 0)) for k in keys] or [0])
    print("--- %s vs %s by %s: largest difference %.2f points (target <= 2)" % (a, b, what, 100 * worst))
    for k in keys[:12]:
        print("  %-40s %6.2f %%  %6.2f %%" % (k, 100 * sa[what].get(k, 0), 100 * sb[what].get(k, 0)))
compare("hf-modules", "hf-hand", "class")
compare("hf-modules", "hf-hand", "path")
compare("mini-eager", "mini-graph", "class")
print("--- overhead: decode_ms (each the best of 2 generations in its process)")
groups = {}
for n, v in res["runs"].items():
    m = re.match(r"^hf-(plain|none|modules|ops)(-r\d)?$", n)
    if n == "hf-modules":  # one generation only (its trace is kept small)
        continue
    if m and v and v["decode_ms"]:
        groups.setdefault(m.group(1), []).append(v["decode_ms"])
base = statistics.median(groups["plain"]) if groups.get("plain") else None
nonev = statistics.median(groups["none"]) if groups.get("none") else None
for k in ("plain", "none", "modules", "ops"):
    if groups.get(k):
        med = statistics.median(groups[k])
        print("  %-8s n=%d median %.2f ms  min %.2f  /untraced %s  /none %s" % (
            k, len(groups[k]), med, min(groups[k]),
            "%.3f" % (med / base) if base else "-", "%.3f" % (med / nonev) if nonev else "-"))
res["overhead_decode_ms"] = groups
json.dump(res, open(os.path.join(w, "results.json"), "w"), indent=1, sort_keys=True)
PY
} 2>&1 | tee "$out/validate-pytorch-modules.log"
cp "$w/results.json" "$w/pytorch-logs.txt" "$out/" 2>/dev/null
for n in ${KEEP_DBS:-hf-modules hf-hand mini-eager mini-graph mini-compile}; do
	db=$w/keep-$n/trace/trace.sqlite
	[ -f "$db" ] || db=$w/keep-$n/nsys/run.sqlite
	[ -f "$db" ] && gzip -c "$db" >"$out/$n.sqlite.gz"
done
ls -la "$out"
rm -rf "$w"
