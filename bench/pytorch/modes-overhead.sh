#!/usr/bin/env bash
# What each mode of llmprof's PyTorch startup module costs a GPU program
# (pipeline.trace.pytorch, docs/pytorch.md), to choose the default for Python
# programs and auto's budget from numbers: one call, one GPU, < 8 minutes.
#
# Programs (bench/pytorch/modes_bench.py over scripts/gpu/pytorch_modules.py:
# random weights, Llama-3.2-1B shape, 16 layers, nothing downloaded):
#   hf-eager        transformers LlamaForCausalLM, eager greedy decode
#   mini-graph      the same shape as plain modules, decode step replayed
#                   from a torch.cuda.graph
#   mini-compile    torch.compile (default)
#   mini-compilero  torch.compile(mode="reduce-overhead")
# For each program, three processes:
#   untraced  plain python, no llmprof: the baseline decode times, checksums
#             and Dynamo's graph breaks
#   modes     under `llmprof profile` (builtin tracer, ncu off,
#             pipeline.trace.pytorch=none so the program starts clean), the
#             modes none, modules, ops, auto installed and removed in turn by
#             the startup module's own install()/uninstall(), ROUNDS rounds
#             (default 4), the order rotated each round; each mode's
#             generation is timed after an untimed one (recompiles, captures)
#   real      under `llmprof profile pipeline.trace.pytorch=auto` as a user
#             runs it (the hooks installed at `import torch`): decode times,
#             checksums and Dynamo's graph breaks with llmprof, and the
#             report's Trust line (what auto chose, its estimated slowdown);
#             not for mini-graph, whose replays run no hook
# Ratios per mode: median decode_ms and wall_ms over the rounds, / untraced and
# / none; beside the measured wall / none, the slowdown the startup module
# estimates for the same generation (its calibrated call path x the
# generation's module calls + the hooks' timed bodies, over its wall time),
# the extra wall ms measured against none and estimated, the last estimate
# auto judged (since the mode's first module call, at every 1,000th) and
# whether the ranges were still on at the end; checksums of every generation against untraced; graph breaks
# untraced vs real vs each mode. Results under OUT: modes-overhead.log (all
# printed, with every install's calibration line), results.json (every
# generation), summary.md (the table), pytorch-logs.txt (the startup
# module's logs), trust-lines.txt.
#
# Usage (on the GPU machine, from a tree staged by scripts/gpu/stage.sh):
#   bash bench/pytorch/modes-overhead.sh STAGE OUT
# STAGE absolute (build/llmprof, build/pytorch, build/tracer, scripts/, lib/).
# Environment: ROUNDS (4; the compiled programs COMPILE_ROUNDS, 2: a mode
# switch may recompile), NEW_TOKENS (16), PROGRAMS (all four), BUDGET (the
# auto budget, %, 3: the default), LIMIT_S (380: no process starts past it), HARD_S (470:
# every process is stopped by then, so the call ends within 8 minutes).
# DRY=1: the script's own check on a CPU (tests/cli/test-pytorch-modes-bench.sh):
# STAGE the source tree (BUILD its build folder, default STAGE/build), the
# program "dry" (modes_bench.py) on the tests' fake torch, no GPU.
set -u
stage=${1:?usage: modes-overhead.sh STAGE OUT} out=${2:?}
B=${BUILD:-$stage/build}
bench=$stage/bench/pytorch/modes_bench.py
[ -f "$bench" ] || bench=$(cd "$(dirname "$0")" && pwd)/modes_bench.py
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
export LLMPROF_PYTORCH_DIR=$B/pytorch
export PYTHONPATH=$stage/scripts/gpu${PYTHONPATH:+:$PYTHONPATH}
if [ "${DRY:-0}" = 1 ]; then # the script's own check on a CPU: the tests' fake torch
	export PYTHONPATH=$stage/tests/progs/pytorch:$PYTHONPATH
	PROGRAMS=${PROGRAMS:-dry}
fi
rounds=${ROUNDS:-4} tokens=${NEW_TOKENS:-16} budget=${BUDGET:-3} limit=${LIMIT_S:-380}
hard=${HARD_S:-470}
mkdir -p "$out"
w=$(mktemp -d)
start=$SECONDS
left() { [ $((SECONDS - start)) -lt "$limit" ]; }
# cap SECONDS: a process's time limit, never past HARD_S
cap() {
	local rest=$((hard - (SECONDS - start)))
	[ "$rest" -lt "$1" ] && echo "$((rest > 10 ? rest : 10))" || echo "$1"
}
common=(--new-tokens "$tokens" --budget "$budget")
# run NAME PROG: untraced
untraced() {
	timeout "$(cap 150)" python3 "$bench" --program "$2" --modes untraced --rounds "$rounds" "${common[@]}" \
		--json "$w/$1.json" >"$w/$1.out" 2>"$w/$1.err"
	echo "$1: exit $? [$((SECONDS - start)) s]"
	tail -n 2 "$w/$1.out"
}
# prof NAME PROG MODE ARGS...: under llmprof profile, pipeline.trace.pytorch=MODE
prof() {
	local name=$1 prog=$2 mode=$3 d rc
	shift 3
	timeout "$(cap 240)" "$B/llmprof" profile -q -o "$w/runs" pipeline.trace.backend=builtin \
		pipeline.ncu.enable=false pipeline.trace.pytorch="$mode" \
		pipeline.trace.pytorch_budget_pct="$budget" model=llama-3.2-1b \
		-- python3 "$bench" --program "$prog" --rounds "$rounds" "${common[@]}" \
		--json "$w/$name.json" --log "$w/$name.pytorch.log" "$@" >"$w/$name.pout" 2>"$w/$name.perr"
	rc=$?
	{ [ -f "$w/$name.pytorch.log" ] && echo "== $name (in-process modes)" && cat "$w/$name.pytorch.log"; } \
		>>"$w/pytorch-logs.txt" 2>/dev/null
	d=$(sed -n 's/^run: //p' "$w/$name.pout")
	if [ -n "$d" ] && [ -d "$d" ]; then
		cp "$d/logs/workload.out" "$w/$name.out" 2>/dev/null
		{ echo "== $name"; cat "$d/logs/pytorch.log" 2>/dev/null; } >>"$w/pytorch-logs.txt"
		{ echo "== $name"; grep -E '^PyTorch ranges|^\| .*PyTorch|^Tracing cost' "$d/report.md"; } \
			>>"$w/trust-lines.txt" 2>/dev/null
		rm -rf "$d/trace" # the traces are not kept: minutes of disk per round
	fi
	echo "$name: exit $rc [$((SECONDS - start)) s]"
	[ $rc = 0 ] || tail -n 5 "$w/$name.perr"
}
{
	"$B/llmprof" --version
	if [ "${DRY:-0}" = 1 ]; then
		echo "dry run: programs $PROGRAMS on the tests' fake torch, no GPU"
	else
		python3 -c 'import torch, transformers; print("torch", torch.__version__, "transformers", transformers.__version__, torch.cuda.get_device_name())'
		nvidia-smi --query-gpu=name,driver_version,clocks.max.sm --format=csv,noheader
	fi
	echo "rounds $rounds, new tokens $tokens, auto budget $budget %"
	for p in ${PROGRAMS:-hf-eager mini-graph mini-compile mini-compilero}; do
		left || { echo "time limit: $p skipped"; continue; }
		case $p in mini-compile*) rounds=${COMPILE_ROUNDS:-2} ;; *) rounds=${ROUNDS:-4} ;; esac
		echo "=== $p ($rounds rounds)"
		untraced "$p-untraced" "$p"
		left && prof "$p-modes" "$p" none --modes none,modules,ops,auto
		# the real path (hooks at import): the default's cost, and graph
		# breaks with llmprof; a CUDA-graph replay runs no hook
		[ "$p" = mini-graph ] || { left && prof "$p-real" "$p" auto --real; }
	done
	python3 - "$w" "$out/summary.md" <<'PY'
import glob, json, os, statistics, sys
w, summary = sys.argv[1], sys.argv[2]
res, lines = {}, []
for p in sorted(glob.glob(os.path.join(w, "*.json"))):
    res[os.path.basename(p)[:-5]] = json.load(open(p))
json.dump(res, open(os.path.join(w, "results.json"), "w"), indent=1)
def med(gs, k):
    v = [g[k] for g in gs]
    return statistics.median(v) if v else None
lines.append("| program | mode | n | decode ms (median) | / untraced | / none | wall ms (median) | / untraced | / none | estimated / none (the generation) | extra wall ms: measured vs none / estimated | auto's last judged estimate % | ranges at the end | checksums = untraced | Dynamo breaks / graphs |")
lines.append("|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---|---:|---|---|---|")
progs = sorted({k.rsplit("-", 1)[0] for k in res})
def fmt(v, f="%.3f"):
    return "-" if v is None else f % v
for prog in progs:
    u = res.get(prog + "-untraced")
    if not u:
        continue
    base = [g for g in u["rounds"]]
    sums = {tuple(g["checksum"]) for g in base}
    bd, bw = med(base, "decode_ms"), med(base, "wall_ms")
    rows = [("untraced", base, u)]
    mo = res.get(prog + "-modes")
    if mo:
        for mode in ("none", "modules", "ops", "auto"):
            rows.append((mode, [g for g in mo["rounds"] if g["mode"] == mode], mo))
    re_ = res.get(prog + "-real")
    if re_:
        rows.append(("real (auto at import)", re_["rounds"], re_))
    nd = nw = None
    for mode, gs, src in rows:
        if not gs:
            continue
        d, wl = med(gs, "decode_ms"), med(gs, "wall_ms")
        if mode == "none":
            nd, nw = d, wl
        eq = all(tuple(g["checksum"]) in sums for g in gs) and len(sums) == 1
        ests = [g["estimate"] for g in gs if g.get("estimate")]
        est_ratio = (1 + statistics.median(e["slowdown_pct"] for e in ests) / 100) if ests else None
        est_ms = statistics.median(e["est_ms"] for e in ests) if ests else None
        running = [g["hooks"]["judged_pct"] for g in gs if g.get("hooks", {}).get("judged_pct") is not None]
        ons = [g["hooks"]["on"] for g in gs if "on" in g.get("hooks", {})]
        dyn = gs[-1].get("dynamo", {})
        lines.append("| %s | %s | %d | %.3f | %.3f | %s | %.3f | %.3f | %s | %s | %s / %s | %s | %s | %s | %s / %s |" % (
            prog, mode, len(gs), d, d / bd, "%.3f" % (d / nd) if nd else "-", wl, wl / bw,
            "%.3f" % (wl / nw) if nw else "-", fmt(est_ratio),
            fmt(wl - nw if nw and mode != "none" else None, "%.1f"), fmt(est_ms, "%.1f"),
            fmt(statistics.median(running) if running else None, "%.2f"),
            ("on %d/%d" % (sum(ons), len(ons))) if ons else "-",
            "EQUAL" if eq else "DIFFERENT", dyn.get("graph_breaks", "?"), dyn.get("unique_graphs", "?")))
text = "\n".join(lines) + "\n"
open(summary, "w").write(text)
print(text)
PY
	echo "--- Trust lines of the real runs"
	cat "$w/trust-lines.txt" 2>/dev/null
	echo "--- calibrations (each install)"
	grep -h "calibration:" "$w/pytorch-logs.txt" 2>/dev/null | sed 's/^pid [0-9]*: //' | head -40
	echo "--- auto's decisions"
	grep -h "auto:" "$w/pytorch-logs.txt" 2>/dev/null | sed 's/^pid [0-9]*: //' | sort | uniq -c | head -30
	echo "[$((SECONDS - start)) s]"
} 2>&1 | tee "$out/modes-overhead.log"
cp "$w/results.json" "$w/pytorch-logs.txt" "$w/trust-lines.txt" "$out/" 2>/dev/null
ls -la "$out"
rm -rf "$w"
