#!/usr/bin/env bash
# `report --trace` and `diff` on a trace recorded elsewhere, whose NVTX ranges
# are not llmprof's defaults (TensorRT's, from a public repository:
# tests/data/nsys/README.md): the no-stage-ranges finding lists the trace's
# top-level ranges; a stages.* override (on the command line, in
# $LLMPROF_CONF_DIR or --conf-dir) maps them, and the stage's GPU time is then
# the range's projected GPU time as `llmprof stats -r nvtx_gpu_proj_sum`
# prints it (byte-identical to nsys's); model= with infer.* gives the
# analytic FLOPs `profile` writes for the same keys; each wrong argument has
# its own message and exit code; an .nsys-rep is exported with the nsys on
# PATH (a stand-in here) as `stats` does.
set -u
: "${LLMPROF:?}" "${LLMPROF_SOURCE_DIR:?}"
data=$LLMPROF_SOURCE_DIR/tests/data/nsys
trt=$data/trt-resnet-rtx3090-nsys2023.1.sqlite
h100=$data/nvtx-probe-h100-nsys2025.3.sqlite
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
bad() { echo "FAIL: $*"; fail=1; }
range='ExecutionContext::execute@TensorRT'
decode_gpu_ns() {
	python3 -c 'import json,sys
m = json.load(open(sys.argv[1] + "/metrics.json"))
d = [s for s in m["stages"] if s["role"] == "decode"]
print(round(d[0]["gpu_ms"] * 1e6) if d else "none")' "$1"
}

# 1. defaults: the finding names the trace's top-level range, on stderr too
"$LLMPROF" report --trace "$trt" -o "$tmp/plain" >/dev/null 2>"$tmp/err" || bad "plain: exit $?"
grep -q "The trace's top-level NVTX ranges: \`$range\` ×1 (6.843 ms; inside: " "$tmp/err" ||
	bad "no top-level list: $(cat "$tmp/err")"
grep -q "top-level NVTX ranges: \`$range\`" "$tmp/plain/report.md" || bad "report.md lacks the list"
[ "$(decode_gpu_ns "$tmp/plain")" = none ] || bad "a decode stage without an override"

# 2. the override maps the range: its GPU time is nvtx_gpu_proj_sum's
want=$("$LLMPROF" stats -r nvtx_gpu_proj_sum -f csv "$trt" 2>/dev/null |
	awk -F, '$1 == "TensorRT:ExecutionContext::execute" { print $3 }')
[ -n "$want" ] || bad "no nvtx_gpu_proj_sum row"
"$LLMPROF" report --trace "$trt" -o "$tmp/ov" "stages.decode=[$range]" >/dev/null 2>"$tmp/err" ||
	bad "override: exit $?: $(cat "$tmp/err")"
[ "$(decode_gpu_ns "$tmp/ov")" = "$want" ] || bad "decode GPU $(decode_gpu_ns "$tmp/ov") ns, nsys stats $want"
grep -q 'No NVTX range matched a stage' "$tmp/err" && bad "override: still no stage"

# 3. the same from $LLMPROF_CONF_DIR and from --conf-dir (conf/ copied, stages.decode edited)
cp -r "$LLMPROF_SOURCE_DIR/conf" "$tmp/conf"
sed -i "s/^  decode: \[LLM@decode_all, decode\]/  decode: ['$range']/" "$tmp/conf/config.yaml"
grep -q "decode: \['$range'\]" "$tmp/conf/config.yaml" || bad "conf edit"
LLMPROF_CONF_DIR=$tmp/conf "$LLMPROF" report --trace "$trt" -o "$tmp/env" >/dev/null 2>&1 || bad "env: exit $?"
[ "$(decode_gpu_ns "$tmp/env")" = "$want" ] || bad "LLMPROF_CONF_DIR ignored"
"$LLMPROF" report --conf-dir "$tmp/conf" --trace "$trt" -o "$tmp/cd" >/dev/null 2>&1 || bad "conf-dir: exit $?"
[ "$(decode_gpu_ns "$tmp/cd")" = "$want" ] || bad "--conf-dir ignored"

# 4. model= and infer.*: the analytic FLOPs profile writes for the same keys
keys="model=llama-3.2-1b infer.prompt_len=16 infer.max_new_tokens=5"
# shellcheck disable=SC2086
"$LLMPROF" report --trace "$h100" -o "$tmp/model" $keys >/dev/null 2>&1 || bad "model=: exit $?"
# shellcheck disable=SC2086
"$LLMPROF" profile artifacts.root="$tmp/p" $keys pipeline.ncu.enable=false \
	pipeline.trace.backend=builtin -- /bin/true >"$tmp/out" 2>/dev/null || bad "profile: exit $?"
run=$(sed -n 's/^run: //p' "$tmp/out")
python3 - "$tmp/model/metrics.json" "$run/workload/analytic.json" <<'PY' || bad "model= FLOPs"
import json, sys
m, a = (json.load(open(p)) for p in sys.argv[1:])
st = {s["role"]: s["utilization"] for s in m["stages"]}
for role in ("prefill", "decode"):
    want = a[role]["flops"]
    got = st[role]["flops"]
    assert got is not None and abs(got - want) <= 1e-8 * want, (role, got, want)
    assert st[role]["mfu_datasheet"] is not None, role
PY
grep -q 'from model.name=llama-3.2-1b with infer.batch_size=1, infer.prompt_len=16, infer.max_new_tokens=5' \
	"$tmp/model/report.md" || bad "no note on the model's keys"

# 5. each wrong argument: its own message and code
expect() { # CODE TEXT ARGS...
	local code=$1 text=$2 rc
	shift 2
	"$LLMPROF" "$@" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq "$code" ] && grep -qF -- "$text" "$tmp/err" || bad "$*: exit $rc: $(cat "$tmp/err")"
}
expect 3 "unknown config key 'stages.bogus'" report --trace "$trt" -o "$tmp/x" stages.bogus=1
expect 3 "config group 'model' has no option 'nosuch'" report --trace "$trt" -o "$tmp/x" model=nosuch
expect 2 "--trace FILE takes no RUN_DIR ('nosuchdir' given)" report --trace "$trt" -o "$tmp/x" nosuchdir
expect 2 "--trace FILE needs -o DIR" report --trace "$trt" "stages.decode=[$range]"
expect 2 "overrides apply to a trace" report --ncu-csv "$trt" -o "$tmp/x" stages.decode=[x]
expect 3 "unknown config key 'stages.bogus'" diff "$trt" "$trt" stages.bogus=1
expect 2 "expected two inputs" diff "$trt" stages.decode=[x]
# on a bundle: keys on its config.yaml, with -o only (its own reports follow config.yaml)
expect 2 "KEY=VALUE overrides on RUN_DIR need -o DIR" report "$run" stages.decode=[x]
expect 3 "a bundle holds no conf/ groups: give keys such as model.name=..." \
	report "$run" -o "$tmp/x" model=tiny
# (that bundle, its trace the TensorRT export: the override maps the range, in diff too)
cp -r "$run" "$tmp/bundle" && mkdir -p "$tmp/bundle/nsys" && cp "$trt" "$tmp/bundle/nsys/run.sqlite"
"$LLMPROF" report "$tmp/bundle" -o "$tmp/rb" "stages.decode=[$range]" >/dev/null 2>&1 || bad "bundle override: exit $?"
[ "$(decode_gpu_ns "$tmp/rb")" = "$want" ] || bad "bundle override: decode GPU $(decode_gpu_ns "$tmp/rb")"
"$LLMPROF" diff "$tmp/bundle" "$trt" "stages.decode=[$range]" >"$tmp/out" 2>&1 || bad "diff bundle: exit $?"
grep -q '^decode GPU time    +0.00 %' "$tmp/out" || bad "diff bundle: $(cat "$tmp/out")"
LLMPROF_CONF_DIR=$tmp/none expect 3 "(configuration: $tmp/none)" report --trace "$trt" -o "$tmp/x"

# 6. diff with the override: both sides have the stage
"$LLMPROF" diff "$trt" "$trt" "stages.decode=[$range]" >"$tmp/out" 2>&1 || bad "diff: exit $?"
grep -q '^decode GPU time    +0.00 %' "$tmp/out" || bad "diff: $(cat "$tmp/out")"

# 7. .nsys-rep: exported beside the report with the nsys on PATH, as stats does
mkdir "$tmp/bin" "$tmp/w"
. "$LLMPROF_SOURCE_DIR/tests/cli/fake-nsys-lib.sh"
fake_nsys "$tmp/bin" "$trt"
cp "$data/nvtx-cpu-gate-stop.nsys-rep" "$tmp/w/r.nsys-rep"
PATH=$tmp/bin:$PATH "$LLMPROF" report --trace "$tmp/w/r.nsys-rep" -o "$tmp/rep" "stages.decode=[$range]" \
	>/dev/null 2>"$tmp/err" || bad "nsys-rep: exit $?: $(cat "$tmp/err")"
cmp -s "$trt" "$tmp/w/r.sqlite" || bad "no r.sqlite beside the report"
[ "$(decode_gpu_ns "$tmp/rep")" = "$want" ] || bad "nsys-rep: decode GPU"
cp "$data/nvtx-cpu-gate-stop.nsys-rep" "$tmp/w/q.qdrep"
PATH=$tmp/bin:$PATH "$LLMPROF" diff "$tmp/w/q.qdrep" "$trt" "stages.decode=[$range]" >"$tmp/out" 2>&1 ||
	bad "diff .qdrep: exit $?: $(cat "$tmp/out")"
cp "$data/nvtx-cpu-gate-stop.nsys-rep" "$tmp/w/f.nsys-rep"
FAKE_NSYS_FAIL=1 PATH=$tmp/bin:$PATH expect 6 "report: cannot export '$tmp/w/f.nsys-rep'" \
	report --trace "$tmp/w/f.nsys-rep" -o "$tmp/x"
[ ! -e "$tmp/w/f.sqlite" ] || bad "a failed export left f.sqlite"
# no nsys at all (an empty PATH; one in a standard place would still be found)
if [ ! -e /usr/local/cuda/bin/nsys ] && ! ls -d /opt/nvidia/nsight-systems/*/bin/nsys >/dev/null 2>&1; then
	PATH=/nonexistent "$LLMPROF" report --trace "$tmp/w/f.nsys-rep" -o "$tmp/x" >/dev/null 2>"$tmp/err"
	rc=$?
	[ $rc -eq 4 ] && grep -qF "is an nsys report and nsys is needed to export it" "$tmp/err" ||
		bad "no nsys: exit $rc: $(cat "$tmp/err")"
fi
exit $fail
