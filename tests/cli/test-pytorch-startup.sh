#!/usr/bin/env bash
# llmprof's PyTorch startup module (pytorch/; docs/pytorch.md) against a fake
# torch (tests/progs/pytorch/torch: nn.Module's hook machinery as PyTorch 2.x
# has it), with the system python3:
#   - the ranges: names (paths, classes, roots, wrappers, modules outside the
#     tree), nesting, the depth limit, threads, none while "Dynamo traces",
#     balanced when a forward raises (with and without always_call);
#   - the hooks come only after `import torch`, whose loader is left as it was;
#   - the user's sitecustomize still runs (and its error reads as without us);
#   - a failure inside the hooks turns them off, is logged, and the program's
#     result is unchanged; a non-torch program loads nothing;
#   - ops mode enters emit_nvtx without synchronizing;
#   - with the real libllmprof_nvtx.so and the builtin tracer: the domain,
#     registered names and class categories in trace.sqlite;
#   - `llmprof profile -- python3 ...`: the environment, the log, the trace.
# Most checks read the ranges the module's fallback pushes through the fake
# torch.cuda.nvtx (LLMPROF_PYTORCH_NVTX_LIB pointing nowhere), so they need
# no CUDA toolkit; the last two need the tracer and the library.
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
src=${LLMPROF_SOURCE_DIR:?}
L=${LLMPROF:?}
mod=$b/pytorch
progs=$src/tests/progs/pytorch
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
[ -f "$mod/sitecustomize.py" ] || { echo "FAIL: $mod/sitecustomize.py not built" >&2; exit 1; }
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

# py NAME [VAR=VALUE ...]: the scenario with the startup module, the module's
# ranges through the fake torch.cuda.nvtx; output in $t/NAME.out, log $t/NAME.log
py() {
	local name=$1
	shift
	rm -f "$t/$name.log"
	env -u PYTHONPATH -u LLMPROF_PYTORCH_DEPTH PYTHONPATH="$mod:$progs" LLMPROF_PYTORCH=modules \
		LLMPROF_PYTORCH_NVTX_LIB=/nonexistent/libllmprof_nvtx.so LLMPROF_PYTORCH_LOG="$t/$name.log" \
		PYTHONDONTWRITEBYTECODE=1 "$@" python3 "$progs/scenario.py" "${name%%@*}" \
		>"$t/$name.out" 2>"$t/$name.err" || fail "$name: exit $? $(cat "$t/$name.err")"
}
# plain NAME: the scenario without llmprof
plain() {
	env -u PYTHONPATH PYTHONPATH="$progs" PYTHONDONTWRITEBYTECODE=1 \
		python3 "$progs/scenario.py" "$1" >"$t/$1.plain" 2>&1 || fail "$1 without llmprof"
}
expect() { # expect WHAT EXPECTED ACTUAL
	[ "$2" = "$3" ] || { printf 'FAIL %s\n--- expected\n%s\n--- actual\n%s\n' "$1" "$2" "$3" >&2; exit 1; }
}
nvtx() { sed -n 's/^nvtx //p' "$t/$1.out" | sed 's/llmprof\.pytorch://'; }
result() { grep '^result ' "$1"; }

# 1. names and nesting, the program's result unchanged
plain basic
py basic
expect basic-result "$(result "$t/basic.plain")" "$(result "$t/basic.out")"
expect basic-ranges "CausalLM [CausalLM] (MainThread)
  model [Inner] (MainThread)
    model.layers.0 [Layer] (MainThread)
      model.layers.0.norm [Norm] (MainThread)
      model.layers.0.self_attn [Attn] (MainThread)
        model.layers.0.self_attn.q_proj [Linear] (MainThread)
        model.layers.0.self_attn.o_proj [Linear] (MainThread)
      model.layers.0.mlp [MLP] (MainThread)
        model.layers.0.mlp.up [Linear] (MainThread)
        model.layers.0.mlp.down [Linear] (MainThread)
    model.layers.1 [Layer] (MainThread)
      model.layers.1.norm [Norm] (MainThread)
      model.layers.1.self_attn [Attn] (MainThread)
        model.layers.1.self_attn.q_proj [Linear] (MainThread)
        model.layers.1.self_attn.o_proj [Linear] (MainThread)
      model.layers.1.mlp [MLP] (MainThread)
        model.layers.1.mlp.up [Linear] (MainThread)
        model.layers.1.mlp.down [Linear] (MainThread)
  lm_head [Linear] (MainThread)" "$(nvtx basic)"
grep -q "^pid [0-9]*: warning: libllmprof_nvtx.so not loaded (OSError: " "$t/basic.log" ||
	fail "no warning about the missing library: $(cat "$t/basic.log")"
grep -q "^pid [0-9]*: info: module ranges on: torch 2.99.0+fake, domain (default), depth 8, NVTX through torch.cuda.nvtx (default domain)$" "$t/basic.log" ||
	fail "no 'on' line: $(cat "$t/basic.log")"
# the second call reuses the names: the same ranges twice
py twice
expect twice "$(nvtx basic; nvtx basic)" "$(nvtx twice)"

# 2. the depth limit: the outermost module is depth 1
py basic@depth2 LLMPROF_PYTORCH_DEPTH=2
expect depth2 "CausalLM [CausalLM] (MainThread)
  model [Inner] (MainThread)
  lm_head [Linear] (MainThread)" "$(nvtx basic@depth2)"
py basic@depthbad LLMPROF_PYTORCH_DEPTH=zero
expect depth-bad "$(nvtx basic)" "$(nvtx basic@depthbad)"
grep -q "warning: LLMPROF_PYTORCH_DEPTH='zero' is not a number: depth 8" "$t/basic@depthbad.log" ||
	fail "bad depth not logged"

# 3. while Dynamo traces (the fake torch.compile's inner call) nothing is
# pushed; the compiled wrapper is named by what it wraps, its class kept
plain compile
py compile
expect compile-result "$(result "$t/compile.plain")" "$(result "$t/compile.out")"
expect compile "CausalLM [OptimizedModule] (MainThread)" "$(nvtx compile)"
py eager-then-compile LLMPROF_PYTORCH_DEPTH=1
expect eager-then-compile "CausalLM [CausalLM] (MainThread)
CausalLM [OptimizedModule] (MainThread)" "$(nvtx eager-then-compile)"

# 4. a forward that raises, caught by its caller: the ranges balance with
# always_call and, without it, when the caller's range ends
plain raise
for ac in 0 1; do
	py raise@$ac FAKE_TORCH_NO_ALWAYS_CALL=$ac
	expect "raise-result always_call=$((1 - ac))" "$(result "$t/raise.plain")" "$(result "$t/raise@$ac.out")"
	nvtx raise@$ac | grep -q unbalanced && fail "raise (no always_call=$ac): $(nvtx raise@$ac)"
	expect "raise-ranges always_call=$((1 - ac))" "      model.layers.0.mlp [MLP] (MainThread)
        model.layers.0.mlp.up [Linear] (MainThread)
    model.layers.1 [Layer] (MainThread)" "$(nvtx raise@$ac | sed -n '8,10p')"
done
grep -q "this torch has no always_call" "$t/raise@1.log" || fail "no always_call not logged"

# 5. roots: a second model of the same class, a module called on its own
py roots LLMPROF_PYTORCH_DEPTH=2
expect roots "CausalLM [CausalLM] (MainThread)
  model [Inner] (MainThread)
  lm_head [Linear] (MainThread)
CausalLM#2 [CausalLM] (MainThread)
  CausalLM#2.model [Inner] (MainThread)
  CausalLM#2.lm_head [Linear] (MainThread)
Linear [Linear] (MainThread)" "$(nvtx roots)"

# 6. a module outside the caller's tree: its first caller's path, then its class
py outside
expect outside "    model.layers.0 [Layer] (MainThread)
      model.layers.0.Helper [Helper] (MainThread)
        model.layers.0.Helper.lin [Linear] (MainThread)
      model.layers.0.norm [Norm] (MainThread)" "$(nvtx outside | sed -n '3,6p')"
# (named once, by its first caller: layer 1 calls the same module, the same name)
expect outside-once "    model.layers.1 [Layer] (MainThread)
      model.layers.0.Helper [Helper] (MainThread)" "$(nvtx outside | sed -n '13,14p')"

# 7. threads: each has its own nesting
py threads
nvtx threads | grep -q unbalanced && fail "threads: $(nvtx threads)"
for w in worker1 worker2; do
	expect "threads $w" "$(nvtx basic | sed "s/MainThread/$w/")" "$(nvtx threads | grep "($w)")"
done

# 8. import order: nothing during torch's import, the hooks right after it,
# torch's loader left as it was
py import-order
expect import-order "hooks during import: (0, 0)
hooks after import: 1 1
loader restored: SourceFileLoader SourceFileLoader
sitecustomize: llmprof" "$(sed -n '1,4p' "$t/import-order.out")"

# 9. chaining: the user's sitecustomize runs once, after ours, and is the
# module `import sitecustomize` gives
mkdir -p "$t/user" "$t/userbad"
printf 'import sys\nWHO = "user"\nprint("user sitecustomize ran", file=sys.stderr)\n' \
	>"$t/user/sitecustomize.py"
printf 'raise RuntimeError("the user sitecustomize fails")\n' >"$t/userbad/sitecustomize.py"
env -u PYTHONPATH PYTHONPATH="$mod:$progs:$t/user" LLMPROF_PYTORCH=modules \
	LLMPROF_PYTORCH_NVTX_LIB=/nonexistent PYTHONDONTWRITEBYTECODE=1 \
	python3 "$progs/scenario.py" import-order >"$t/chain.out" 2>"$t/chain.err"
grep -qx "sitecustomize: user" "$t/chain.out" || fail "chain: $(cat "$t/chain.out")"
expect chain-runs-once "user sitecustomize ran" "$(cat "$t/chain.err")"
grep -q "^nvtx llmprof.pytorch:CausalLM" "$t/chain.out" || fail "chain: no ranges"
# ... its failure reads as it does without llmprof, and the program runs
for with in 0 1; do
	pp="$progs:$t/userbad"
	[ $with = 1 ] && pp="$mod:$pp"
	env -u PYTHONPATH PYTHONPATH="$pp" LLMPROF_PYTORCH=modules LLMPROF_PYTORCH_NVTX_LIB=/nonexistent \
		PYTHONDONTWRITEBYTECODE=1 python3 "$progs/scenario.py" basic >"$t/bad$with.out" 2>"$t/bad$with.err" ||
		fail "a failing user sitecustomize stopped the program ($with)"
done
expect chain-error "$(cat "$t/bad0.err")" "$(cat "$t/bad1.err")"
grep -q "Error in sitecustomize" "$t/bad1.err" || fail "no sitecustomize error: $(cat "$t/bad1.err")"
expect chain-error-result "$(result "$t/bad0.out")" "$(result "$t/bad1.out")"

# 10. failures inside the hooks: off, logged once, the result unchanged
for what in push pop; do
	py basic@$what FAKE_TORCH_NVTX_FAIL=$what
	expect "fail-$what result" "$(result "$t/basic.plain")" "$(result "$t/basic@$what.out")"
	expect "fail-$what log lines" 1 "$(grep -c ": error: " "$t/basic@$what.log")"
	[ ! -s "$t/basic@$what.err" ] || fail "fail-$what: the program saw: $(cat "$t/basic@$what.err")"
done
grep -q "error: module ranges off after an error in the forward pre-hook of a CausalLM: RuntimeError: fake NVTX push failure$" \
	"$t/basic@push.log" || fail "push failure: $(cat "$t/basic@push.log")"
expect fail-push-ranges "" "$(nvtx basic@push)"
grep -q "error: module ranges off after an error in the forward hook of a Norm: RuntimeError: fake NVTX pop failure$" \
	"$t/basic@pop.log" || fail "pop failure: $(cat "$t/basic@pop.log")"
# a torch with torch.compile and no is_compiling(): no hooks at all
py basic@nocompiling FAKE_TORCH_NO_IS_COMPILING=1
expect nocompiling-ranges "" "$(nvtx basic@nocompiling)"
grep -q "error: torch 2.99.0+fake has torch.compile but no is_compiling(): no module ranges" \
	"$t/basic@nocompiling.log" || fail "nocompiling: $(cat "$t/basic@nocompiling.log")"

# 11. a program that never imports torch: the startup module adds only
# itself (and the import machinery it chains with) and a finder, loads none
# of the hooks' code, and writes nothing
probe='import sys
print("\n".join(sorted(sys.modules)))
print("finders:", [type(f).__name__ for f in sys.meta_path if type(f).__name__ == "_TorchFinder"])'
env -u PYTHONPATH -u LLMPROF_PYTORCH PYTHONDONTWRITEBYTECODE=1 python3 -c "$probe" >"$t/base.out"
env -u PYTHONPATH PYTHONPATH="$mod" LLMPROF_PYTORCH=modules LLMPROF_PYTORCH_LOG="$t/notorch.log" \
	PYTHONDONTWRITEBYTECODE=1 python3 -c "$probe" >"$t/notorch.out"
mods() { grep -v "^finders:" "$1" | LC_ALL=C sort; }
added=$(LC_ALL=C comm -13 <(mods "$t/base.out") <(mods "$t/notorch.out") | tr '\n' ' ')
for m in $added; do
	case $m in
	sitecustomize | importlib.machinery | importlib.util) ;;
	*) fail "notorch: the startup module imported $m" ;;
	esac
done
grep -qx "finders: \['_TorchFinder'\]" "$t/notorch.out" || fail "notorch: no finder"
[ ! -e "$t/notorch.log" ] || fail "a program without torch got a log: $(cat "$t/notorch.log")"
# ... and without LLMPROF_PYTORCH the module only chains: no finder
env -u PYTHONPATH -u LLMPROF_PYTORCH PYTHONPATH="$mod" PYTHONDONTWRITEBYTECODE=1 \
	python3 -c "$probe" >"$t/off.out"
grep -qx "finders: \[\]" "$t/off.out" || fail "off: a finder"
grep -qx "_llmprof_pytorch" "$t/off.out" && fail "off: the module was imported"

# 12. ops: emit_nvtx entered at import, without synchronizing the device
py ops@ops LLMPROF_PYTORCH=ops LLMPROF_PYTORCH_SHAPES=1
expect ops "ops: True shapes: True synchronized: False sync calls: 0" "$(sed -n 1p "$t/ops@ops.out")"
grep -q "info: operator ranges on (emit_nvtx, shapes on) on thread MainThread" "$t/ops@ops.log" ||
	fail "ops: $(cat "$t/ops@ops.log")"

# 13a. what the hooks cost: every mode calibrates at install, before the
# hooks go live, and writes its estimate at exit; the calibration's own calls
# are in no count and pushed no range (basic-ranges above)
grep -Eq "^pid [0-9]+: info: cost: 19 module calls, [0-9.]+ ms in the hooks, [0-9.]+ us a call of PyTorch's hooked call path \(calibrated\): [0-9.]+ ms estimated of [0-9.]+ ms wall time since the first call, [0-9.]+ % slower; 19 ranges pushed$" \
	"$t/basic.log" || fail "no cost line: $(cat "$t/basic.log")"
grep -Eq "^pid [0-9]+: info: calibration: hooked call path [0-9.]+ us a call \(a trivial module: [0-9.]+ us without the hooks, [0-9.]+ us with them, [0-9.]+ us of it in their bodies; min of [3-7] batches of 200 calls each way, [0-9.]+ ms\)$" \
	"$t/basic.log" || fail "no calibration line: $(cat "$t/basic.log")"
expect calibration-first "calibration
module ranges on" "$(sed -n 's/^pid [0-9]*: info: \(calibration\|module ranges on\):.*/\1/p' "$t/basic.log")"
expect calibration-leaves-nothing "after import: entries 0 calls 0 wall0 None" \
	"$(grep '^after import:' "$t/import-order.out")"

# 13b. auto: module ranges while the estimated slowdown stays within
# LLMPROF_PYTORCH_BUDGET (the program does ~15x the hooks' work of its own:
# SCENARIO_WORK, about 6 % slower), off above it. The hooks are timed by the
# wall clock: on CPUs shared by parallel tests a preempted hook reads long,
# so the budget kept is wide
plain many
py many@kept LLMPROF_PYTORCH=auto LLMPROF_PYTORCH_BUDGET=100 SCENARIO_WORK=50000
expect auto-kept-result "$(result "$t/many.plain")" "$(result "$t/many@kept.out")"
expect auto-kept-calls 120 "$(nvtx many@kept | grep -c '^CausalLM ')"
expect auto-kept-ranges "$((120 * 19))" "$(nvtx many@kept | wc -l)"
expect auto-kept-hooks "hooks at the end: 1 1" "$(grep '^hooks at the end' "$t/many@kept.out")"
grep -q "^pid [0-9]*: info: auto: module ranges on while they make the program at most 100 % slower (estimated from the 1000th module call on: module calls x the calibrated call path + the hooks' own time, over the wall time)$" \
	"$t/many@kept.log" || fail "auto on: $(cat "$t/many@kept.log")"
grep -Eq "^pid [0-9]+: info: auto: module ranges kept: estimated [0-9.]+ % slower, within the 100 % budget$" \
	"$t/many@kept.log" || fail "auto kept: $(cat "$t/many@kept.log")"
grep -q "warning: auto" "$t/many@kept.log" && fail "auto kept, yet: $(cat "$t/many@kept.log")"
# over the budget: off at the first judgement (auto's window starts at the
# first model call's return after 1,000 module calls, the 53rd, and is judged
# 1,000 calls later, at the 106th), balanced, the hooks removed, the result
# unchanged
py many@off LLMPROF_PYTORCH=auto LLMPROF_PYTORCH_BUDGET=0 SCENARIO_WORK=50000
expect auto-off-result "$(result "$t/many.plain")" "$(result "$t/many@off.out")"
expect auto-off-ranges "$(nvtx many@kept | sed -n "1,$((106 * 19))p")" "$(nvtx many@off)"
expect auto-off-hooks "hooks at the end: 0 0" "$(grep '^hooks at the end' "$t/many@off.out")"
grep -Eq "^pid [0-9]+: warning: auto: module ranges off: estimated [0-9.]+ % slower \(1007 module calls x [0-9.]+ us hooked call path \+ [0-9.]+ ms in the hooks = [0-9.]+ ms of [0-9.]+ ms wall time from module call 1007 on\), above the 0 % budget$" \
	"$t/many@off.log" || fail "auto off: $(cat "$t/many@off.log")"
grep -q "kept" "$t/many@off.log" && fail "auto off, yet: $(cat "$t/many@off.log")"
# a failure under auto: off, logged once, the hooks removed, the result unchanged
py many@fail LLMPROF_PYTORCH=auto LLMPROF_PYTORCH_BUDGET=60 FAKE_TORCH_NVTX_FAIL=push
expect auto-fail-result "$(result "$t/many.plain")" "$(result "$t/many@fail.out")"
expect auto-fail-log 1 "$(grep -c ": error: module ranges off after an error" "$t/many@fail.log")"
expect auto-fail-hooks "hooks at the end: 0 0" "$(grep '^hooks at the end' "$t/many@fail.out")"
[ ! -s "$t/many@fail.err" ] || fail "auto fail: the program saw: $(cat "$t/many@fail.err")"
# a bad budget: the default, said
py basic@badbudget LLMPROF_PYTORCH=auto LLMPROF_PYTORCH_BUDGET=lots
expect bad-budget "$(nvtx basic)" "$(nvtx basic@badbudget)"
grep -q "warning: LLMPROF_PYTORCH_BUDGET='lots' is no share in \[0, 100\]: 3 %" "$t/basic@badbudget.log" ||
	fail "bad budget: $(cat "$t/basic@badbudget.log")"
# a program that never imports torch, under auto: nothing loaded, no log
env -u PYTHONPATH PYTHONPATH="$mod" LLMPROF_PYTORCH=auto LLMPROF_PYTORCH_BUDGET=5 \
	LLMPROF_PYTORCH_LOG="$t/notorch-auto.log" PYTHONDONTWRITEBYTECODE=1 python3 -c "$probe" >"$t/notorch-auto.out"
expect notorch-auto "$(cat "$t/notorch.out")" "$(cat "$t/notorch-auto.out")"
[ ! -e "$t/notorch-auto.log" ] || fail "auto: a program without torch got a log"

# 13d. the estimate prices PyTorch's hooked call path, which the hooks cannot
# time themselves. On the fake torch's own clock (FAKE_TORCH_CLOCK: 100 ns a
# read, 1 us a module call, FAKE_TORCH_HOOKED_US more with global hooks)
# every number is exact whatever the host's load: the calibration must find
# the hooked path (+ the clock reads outside the bodies), the estimate must
# be calls x it + the bodies' time, equal to what the program's loop really
# lost against the same loop without llmprof (2,280 calls), and the slowdown
# est / (wall - est) equal to lost / the loop without llmprof
clk() { py "$@" FAKE_TORCH_CLOCK=1; }
env -u PYTHONPATH PYTHONPATH="$progs" PYTHONDONTWRITEBYTECODE=1 FAKE_TORCH_CLOCK=1 \
	python3 "$progs/scenario.py" many >"$t/many-clock.plain"
clk many@clock FAKE_TORCH_HOOKED_US=1
expect clock-result "$(result "$t/many.plain")" "$(result "$t/many@clock.out")"
cost_check() { # cost_check LOG [PLAIN OUT MIN_PATH_US]: the cost line's arithmetic
	python3 - "$@" <<'PY'
import re, sys
log = open(sys.argv[1]).read()
path = float(re.search(r"calibration: hooked call path ([0-9.]+) us a call", log).group(1))
c = re.search(r"cost: (\d+) module calls, ([0-9.]+) ms in the hooks, ([0-9.]+) us a call of "
              r"PyTorch's hooked call path \(calibrated\): ([0-9.]+) ms estimated of ([0-9.]+) ms "
              r"wall time since the first call, ([0-9.]+) % slower", log)
calls, hook, cal, est, wall, slower = int(c.group(1)), *map(float, c.groups()[1:])
assert calls == 2280 and cal == path, c.group(0)
assert abs(est - (calls * cal / 1e3 + hook)) < 0.002, ("estimate is not calls x path + hooks", c.group(0))
if est < wall and 100 * est / (wall - est) < 10000:
    assert abs(slower - 100 * est / (wall - est)) < 0.01 * max(1, slower), ("slowdown", c.group(0))
else:  # the cap: an estimate at or above the wall time
    assert slower == 10000, ("slowdown cap", c.group(0))
if len(sys.argv) > 2:
    plain, out, want = sys.argv[2], sys.argv[3], float(sys.argv[4])
    loop = lambda f: float(re.search(r"^loop ms ([0-9.]+)$", open(f).read(), re.M).group(1))
    lost = loop(out) - loop(plain)
    assert path == want, "calibrated %.3f us a call, not %.3f" % (path, want)
    assert abs(est - lost) <= 0.002, "estimated %.3f ms, the loop lost %.3f ms" % (est, lost)
    # (the wall time starts in the first call: its own 1 us and more are before it)
    assert abs(slower - 100 * lost / loop(plain)) < 0.2, ("slowdown", slower, lost, loop(plain))
PY
}
# 1 us + the two reads outside the bodies, 1.4 us lost a call: 140 % slower
cost_check "$t/many@clock.log" "$t/many-clock.plain" "$t/many@clock.out" 1.200 ||
	fail "clock: $(cat "$t/many@clock.log")"
grep -Eq "cost: 2280 module calls, .* 140\.[01][0-9] % slower; 2280 ranges pushed$" "$t/many@clock.log" ||
	fail "clock: $(cat "$t/many@clock.log")"
# on the host's clock, a busy hooked path of 100 us: the calibration finds at
# least that (a busy wait never ends early) and the arithmetic holds
py many@slow FAKE_TORCH_HOOKED_US=100
expect slow-result "$(result "$t/many.plain")" "$(result "$t/many@slow.out")"
cost_check "$t/many@slow.log" || fail "slow path: $(cat "$t/many@slow.log")"
grep -Eq "calibration: hooked call path (99\.|[1-9][0-9][0-9]+\.)" "$t/many@slow.log" ||
	fail "slow path under 99 us: $(cat "$t/many@slow.log")"
# ... and auto judges that, exactly: module calls of 20 us, 9.6 us more
# hooked, 10 us lost a call (the hooks' bodies alone: 0.2), 50 % slower:
# kept within 51 %, off above 49 % at the first judgement (auto's window
# starts at the first model call's return after 1,000 module calls, the
# 53rd, and is judged 1,000 calls later, at the 106th)
slow=(FAKE_TORCH_CALL_US=20 FAKE_TORCH_HOOKED_US=9.6)
clk many@c51 LLMPROF_PYTORCH=auto LLMPROF_PYTORCH_BUDGET=51 "${slow[@]}"
grep -Eq "info: auto: module ranges kept: estimated 50\.0[0-9] % slower, within the 51 % budget$" \
	"$t/many@c51.log" || fail "auto 51: $(cat "$t/many@c51.log")"
clk many@c49 LLMPROF_PYTORCH=auto LLMPROF_PYTORCH_BUDGET=49 "${slow[@]}"
expect auto-c49-result "$(result "$t/many.plain")" "$(result "$t/many@c49.out")"
expect auto-c49-ranges "$(nvtx many@kept | sed -n "1,$((106 * 19))p")" "$(nvtx many@c49)"
expect auto-c49-hooks "hooks at the end: 0 0" "$(grep '^hooks at the end' "$t/many@c49.out")"
grep -Eq "warning: auto: module ranges off: estimated 50\.0[0-9] % slower \(1007 module calls x 9\.800 us hooked call path \+ 0\.20[0-9] ms in the hooks = 10\.07[0-9] ms of 30\.2[0-9]+ ms wall time from module call 1007 on\), above the 49 % budget$" \
	"$t/many@c49.log" || fail "auto 49: $(cat "$t/many@c49.log")"
# ... from its 1,000th call on: a first call that waits 3 s (lazy
# initialisation) would have kept the ranges on a judgement since the first
# call (0.7 % slower by then); the window puts it at 50 %
clk many@lazy LLMPROF_PYTORCH=auto LLMPROF_PYTORCH_BUDGET=49 "${slow[@]}" SCENARIO_FIRST_SLEEP_MS=3000
expect auto-lazy-ranges "$(nvtx many@kept | sed -n "1,$((106 * 19))p")" "$(nvtx many@lazy)"
grep -Eq "warning: auto: module ranges off: estimated 50\.0[0-9] % slower .* from module call 1007 on\), above the 49 % budget$" \
	"$t/many@lazy.log" || fail "auto, lazy first call: $(cat "$t/many@lazy.log")"
# a calibration that fails (the fake's 3rd forward-hook registration raises,
# the pre-hook registered just before it): ranges off, said once, no hook
# left behind, the program's result unchanged, nothing on its stderr
for m in modules auto; do
	py many@calfail-$m LLMPROF_PYTORCH=$m FAKE_TORCH_REGISTER_FAIL=3
	expect "calfail-$m result" "$(result "$t/many.plain")" "$(result "$t/many@calfail-$m.out")"
	expect "calfail-$m hooks" "hooks at the end: 0 0" "$(grep '^hooks at the end' "$t/many@calfail-$m.out")"
	expect "calfail-$m ranges" "" "$(nvtx many@calfail-$m)"
	expect "calfail-$m log" "error: module ranges off: calibrating the hooks' cost failed: RuntimeError: fake registration failure" \
		"$(sed 's/^pid [0-9]*: //' "$t/many@calfail-$m.log" | grep -v '^warning: libllmprof_nvtx.so not loaded')"
	[ ! -s "$t/many@calfail-$m.err" ] || fail "calfail-$m: the program saw: $(cat "$t/many@calfail-$m.err")"
done

# 13c. uninstall() (the modes benchmark): hooks gone, the cost returned,
# install() again gives the same ranges
plain uninstall
py uninstall
expect uninstall-result "$(result "$t/uninstall.plain")" "$(result "$t/uninstall.out")"
expect uninstall "uninstall: calls 19 ranges 19 on True
hooks after uninstall: 0 0" "$(grep '^uninstall\|^hooks after' "$t/uninstall.out")"
expect uninstall-ranges "$(nvtx basic; nvtx basic)" "$(nvtx uninstall)"

# 13. the real library under the builtin tracer (NVTX only): the domain, the
# paths as registered strings, the classes as named categories
so=$b/tracer/libllmprof_tracer.so
if [ ! -f "$so" ] || [ ! -f "$mod/libllmprof_nvtx.so" ]; then
	echo "skip (rest): no CUDA toolkit: tracer or libllmprof_nvtx.so not built"
	echo "test-pytorch-startup: ok (fake torch only)"
	exit 0
fi
env -u PYTHONPATH PYTHONPATH="$mod:$progs" LLMPROF_PYTORCH=modules LLMPROF_PYTORCH_LOG="$t/lib.log" \
	PYTHONDONTWRITEBYTECODE=1 "$L" nvtx --keep "$t/keep" -- python3 "$progs/scenario.py" twice >"$t/lib.out"
grep -Eq '^llmprof\.pytorch +model\.layers\.1\.self_attn +PushPop +2 +3 +model\.layers\.1 +model\.layers\.1\.self_attn@llmprof\.pytorch +llmprof\.pytorch@model\.layers\.1\.self_attn/$' \
	"$t/lib.out" || fail "nvtx listing: $(cat "$t/lib.out")"
expect lib-ranges 19 "$(grep -c '^llmprof\.pytorch ' "$t/lib.out")"
expect lib-counts "" "$(awk '/^llmprof\.pytorch / && ($3 != "PushPop" || $4 != 2)' "$t/lib.out")"
grep -q "info: module ranges on: torch 2.99.0+fake, domain llmprof.pytorch, depth 8, NVTX through $mod/libllmprof_nvtx.so$" \
	"$t/lib.log" || fail "lib log: $(cat "$t/lib.log")"
db=$t/keep/trace.sqlite
q() { sqlite3 -separator '|' "$db" "$1"; }
dom=$(q "SELECT domainId FROM NVTX_EVENTS WHERE eventType = 75 AND text = 'llmprof.pytorch'")
[ -n "$dom" ] || fail "no llmprof.pytorch domain"
# every range of the domain: a registered path, a category named by its class
expect lib-rows "38|38|38" "$(q "SELECT count(*), count(textId), count(category) FROM NVTX_EVENTS
	WHERE eventType = 59 AND domainId = $dom")"
expect lib-classes "Attn|4
CausalLM|2
Inner|2
Layer|4
Linear|18
MLP|4
Norm|4" "$(q "SELECT c.text, count(*) FROM NVTX_EVENTS r JOIN NVTX_EVENTS c
	ON c.eventType = 33 AND c.domainId = r.domainId AND c.category = r.category
	WHERE r.eventType = 59 AND r.domainId = $dom GROUP BY c.text ORDER BY c.text")"
expect lib-path-class "model.layers.0.self_attn|Attn" "$(q "SELECT s.value, c.text FROM NVTX_EVENTS r
	JOIN StringIds s ON s.id = r.textId JOIN NVTX_EVENTS c ON c.eventType = 33
	AND c.domainId = r.domainId AND c.category = r.category
	WHERE r.eventType = 59 AND r.domainId = $dom AND s.value = 'model.layers.0.self_attn' LIMIT 1")"

# 14. llmprof profile: auto gives a Python program the module, the user's
# PYTHONPATH after it; the log in logs/; the ranges in the trace
env -u PYTHONPATH PYTHONPATH="$progs" PYTHONDONTWRITEBYTECODE=1 "$L" profile -q -o "$t/runs" \
	pipeline.trace.backend=builtin pipeline.ncu.enable=false -- python3 "$progs/scenario.py" basic \
	>"$t/p.out" 2>"$t/p.err" || fail "profile: $(cat "$t/p.err")"
run=$(sed -n 's/^run: //p' "$t/p.out")
real=$(cd "$mod" && pwd -P)
grep -qx "PYTHONPATH=$real:$progs" "$run/logs/workload.env" || fail "env: $(cat "$run/logs/workload.env")"
grep -qx "LLMPROF_PYTORCH=auto" "$run/logs/workload.env" || fail "env: no mode"
grep -qx "LLMPROF_PYTORCH_BUDGET=3" "$run/logs/workload.env" || fail "env: no budget"
grep -qx "LLMPROF_PYTORCH_LOG=$run/logs/pytorch.log" "$run/logs/workload.env" || fail "env: no log"
grep -q "info: module ranges on: torch 2.99.0+fake, domain llmprof.pytorch" "$run/logs/pytorch.log" ||
	fail "profile log: $(cat "$run/logs/pytorch.log" 2>&1)"
expect profile-result "$(result "$t/basic.plain")" "$(result "$run/logs/workload.out")"
python3 - "$run/status.json" <<'PY' || fail "status.json"
import json, sys
st = json.load(open(sys.argv[1]))
msg = [s for s in st["steps"] if s["name"] == "config"][0]["message"]
assert ("pipeline.trace.pytorch=auto: modules, off above an estimated 3 % slowdown "
        "(python3 is a Python interpreter)") in msg, msg
PY
expect profile-ranges 19 "$(sqlite3 "$run/trace/trace.sqlite" "SELECT count(*) FROM NVTX_EVENTS r
	JOIN NVTX_EVENTS d ON d.eventType = 75 AND d.domainId = r.domainId AND d.text = 'llmprof.pytorch'
	WHERE r.eventType = 59")"
# the report's Trust section says what the module did, from its log
grep -Eq "^PyTorch ranges: auto in 1 process \(torch 2\.99\.0\+fake\); auto kept the module ranges in 1, turned them off in 0 \(budget: 3 % slower, estimated\); 19 module calls, estimated [0-9.]+% slower \(calls × [0-9.]+ us of PyTorch's hooked call path, calibrated at start, \+ [0-9.]+ ms in the hooks = [0-9.]+ ms of [0-9.]+ ms wall time since the first module call\), 19 ranges pushed\.$" \
	"$run/report.md" || fail "trust line: $(grep -A12 '^## Trust' "$run/report.md")"
grep '^| .*PyTorch' "$run/report.md" && fail "a trust item for a run that went well"
python3 - "$run/metrics.json" <<'PY' || fail "metrics.json pytorch"
import json, sys
p = json.load(open(sys.argv[1]))["pytorch"]
want = {"mode": "auto", "processes": 1, "torch": "2.99.0+fake", "errors": 0, "first_error": None,
        "auto_budget_pct": 3.0, "auto_kept": 1, "auto_off": 0, "costed_processes": 1,
        "module_calls": 19, "ranges": 19}
got = {k: p.get(k) for k in want}
assert got == want, got
assert p["hooks_ms"] > 0 and p["wall_ms"] > 0 and p["call_path_ms"] > 0, p
assert abs(p["estimated_ms"] - p["hooks_ms"] - p["call_path_ms"]) < 0.002, p
est = p["estimated_ms"]
assert abs(p["estimated_slowdown"] / (est / (p["wall_ms"] - est)) - 1) < 1e-6, p
PY
# ... an older llmprof's log (the hooks' CPU share) still reads, without an estimate
cp -r "$run" "$t/old-run"
printf '%s\n' "pid 7: info: module ranges on: torch 2.99.0+fake, domain llmprof.pytorch, depth 8, NVTX through x" \
	"pid 7: info: auto: module ranges on while the hooks take at most 5 % of the process's CPU time" \
	"pid 7: info: cost: 19 module calls, 0.250 ms in the hooks, 1.20 % of 20.833 ms process CPU time since the first call; 19 ranges pushed" \
	"pid 7: info: auto: module ranges kept: 1.20 % within the 5 % budget" >"$t/old-run/logs/pytorch.log"
"$L" report "$t/old-run" >/dev/null 2>"$t/old.err" || fail "report of an old log: $(cat "$t/old.err")"
grep -qx "PyTorch ranges: auto in 1 process (torch 2.99.0+fake); auto kept the module ranges in 1, turned them off in 0 (budget: 5 % slower, estimated); 19 module calls, 0.250 ms in the hooks (an older llmprof's log: no estimate of the slowdown), 19 ranges pushed." \
	"$t/old-run/report.md" || fail "old log: $(grep '^PyTorch ranges' "$t/old-run/report.md")"
python3 - "$t/old-run/metrics.json" <<'PY' || fail "old log: metrics.json"
import json, sys
p = json.load(open(sys.argv[1]))["pytorch"]
assert p["module_calls"] == 19 and p["hooks_ms"] == 0.25 and p["costed_processes"] == 1, p
assert [p[k] for k in ("call_path_ms", "estimated_ms", "wall_ms", "estimated_slowdown")] == [None] * 4, p
PY
# ... and a failure that turned the ranges off is a trust item and a finding
env -u PYTHONPATH PYTHONPATH="$progs" PYTHONDONTWRITEBYTECODE=1 "$L" profile -q \
	-o "$t/runs-fail" pipeline.trace.backend=builtin pipeline.ncu.enable=false pipeline.trace.pytorch=modules \
	-- python3 "$progs/scenario.py" fail-later >"$t/pf.out" 2>"$t/pf.err" || fail "profile (fail): $(cat "$t/pf.err")"
rf=$(sed -n 's/^run: //p' "$t/pf.out")
grep -qF "| PyTorch range error in the startup module's log, the ranges turned off: module ranges off after an error in the forward hook of a Norm: OSError: fake pop failure | 1 |" \
	"$rf/report.md" || fail "failure trust item: $(grep -A8 '^## Trust' "$rf/report.md")"
grep -q "pytorch-ranges-failed" "$rf/metrics.json" || fail "failure: no finding in metrics.json"
grep -q "^PyTorch ranges: modules in 1 process (torch 2.99.0+fake); 23 module calls, .*; 1 error turned ranges off\.$" "$rf/report.md" ||
	fail "failure line: $(grep '^PyTorch ranges' "$rf/report.md")"
# none: the program's environment as it was; a C program under auto: the same
for case in none c; do
	if [ $case = none ]; then
		set -- pipeline.trace.pytorch=none -- python3 "$progs/scenario.py" basic
	else
		set -- -- "$b/tests/nvtx-test-program"
	fi
	env -u PYTHONPATH PYTHONPATH="$progs" "$L" profile -q -o "$t/runs-$case" pipeline.trace.backend=builtin \
		pipeline.ncu.enable=false "$@" >"$t/$case.out" 2>"$t/$case.err" || fail "profile $case"
	r=$(sed -n 's/^run: //p' "$t/$case.out")
	grep -q "PYTORCH\|PYTHONPATH" "$r/logs/workload.env" && fail "$case: $(cat "$r/logs/workload.env")"
	[ ! -e "$r/logs/pytorch.log" ] || fail "$case: a log"
	grep -q "PyTorch" "$r/report.md" && fail "$case: $(grep PyTorch "$r/report.md")"
done
echo "test-pytorch-startup: ok"
