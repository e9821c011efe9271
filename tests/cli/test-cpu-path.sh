#!/usr/bin/env bash
# `llmprof profile` of the built-in workload without a GPU: the CPU path is
# chosen on purpose and said so on the terminal and in every report (Device
# row "CPU (no GPU found)"), no GPU-only finding fires, "complete" is said
# only when it is, and a skipped analyze step reads INCOMPLETE, never as an
# all-clear.
set -u
: "${LLMPROF:?}" "${LLMPROF_BUILD_DIR:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-cpu.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
[ -x "$LLMPROF_BUILD_DIR/workloads/llmprof-llm" ] ||
	{ echo "skip: the built-in workload is not built ($LLMPROF_BUILD_DIR/workloads/llmprof-llm)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not installed"; exit 77; }
cd "$tmp" || exit 1
# no GPU, whatever this machine has: both probes (NVML, nvidia-smi) off
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=
small=(infer.prompt_len=16 infer.max_new_tokens=3 pipeline.nsys.path=/nonexistent/nsys)
want_line="llmprof: no GPU found: running the built-in workload on the CPU path on purpose (applied model=tiny device=cpu)"

# 1. the terminal says it once, before anything runs (a dry run too)
"$LLMPROF" profile -n "${small[@]}" >out 2>err || fail "dry run: $(cat err)"
grep -qxF "$want_line" err || fail "no CPU-path line in a dry run: $(cat err)"
"$LLMPROF" profile -n model=tiny "${small[@]}" >out 2>err || fail "dry run model=tiny: $(cat err)"
grep -qxF "llmprof: no GPU found: running the built-in workload on the CPU path on purpose (applied device=cpu)" err ||
	fail "an explicit model is not an applied override: $(cat err)"
"$LLMPROF" profile -n device=cpu model=tiny "${small[@]}" >out 2>err || fail "dry run device=cpu"
grep -q "no GPU found" err && fail "CPU-path line although the user chose it all: $(cat err)"

# 2. a real run: every report says CPU, and no GPU-only finding
"$LLMPROF" profile artifacts.root="$tmp/a" "${small[@]}" >out 2>err || fail "profile: $(cat err)"
run=$(last_run out)
[ "$(grep -cF "$want_line" err)" = 1 ] || fail "CPU-path line not once on stderr: $(cat err)"
grep -q "The trace holds no GPU kernels" err && fail "the GPU-only no-gpu-work finding on stderr"
# a clean builtin trace: nothing found for the trust report, in status.json too
[ "$(json "$run/status.json" 'd.get("trust")')" = 0 ] || fail "status.json trust is not 0"
grep -qxF "Nothing found that would make these numbers wrong." "$run/report.md" ||
	fail "report.md: no 'Nothing found' Trust section"
for f in stakeholder_summary.md report.md; do
	# the summary's environment is one line (checked below)
	[ "$f" = stakeholder_summary.md ] || grep -qxF "| Device | CPU (no GPU found) |" "$run/$f" ||
		fail "$f: no Device row"
	grep -q "^| GPU |" "$run/$f" && fail "$f: a GPU row on the CPU path"
	grep -q "unknown GPU" "$run/$f" && fail "$f: 'unknown GPU'"
	grep -qiE "no-gpu-work|ran on the GPU|prefill-mfu-low|decode-launch-bound|decode-kernels-inefficient|counters-missing" "$run/$f" &&
		fail "$f: a GPU-only finding on the CPU path: $(grep -iE 'no-gpu-work|ran on the GPU|mfu-low|decode-' "$run/$f")"
	grep -q "calibrate" "$run/$f" && fail "$f: asks to calibrate a GPU"
done
# the kernel and operator reports say it too, so their emptiness is expected
for f in kernels.md operators.md; do
	grep -qxF "> Ran on the CPU (no GPU found) on purpose: there are no GPU kernels; times are CPU times." \
		"$run/$f" || fail "$f: no CPU-path line: $(head -5 "$run/$f")"
done
grep -q "^\*\*Executive summary\.\*\* tiny (.*) on the CPU (no GPU found)" "$run/stakeholder_summary.md" ||
	fail "headline: $(grep Executive "$run/stakeholder_summary.md")"
# the summary's sections (tests/cli/test-summary-sections.sh has the GPU
# bundles): all there, the empty ones saying why
s=$run/stakeholder_summary.md
[ "$(grep -E '^#{1,2} ' "$s" | tr '\n' '|')" = "# Stakeholder Summary|## Environment|## Aggregates|## Per-Stage Timings|## MFU and MBU|## Top Operators|## Top Kernels|## Recommendations|## Glossary|" ] ||
	fail "summary sections: $(grep -E '^#{1,2} ' "$s")"
grep -qF "**Device** CPU (no GPU found);" "$s" || fail "summary environment: $(cat "$s")"
grep -qxF "None: the workload ran on the CPU, where no GPU peak applies." "$s" || fail "summary MFU: $(cat "$s")"
grep -qxF "No GPU kernels: the workload ran on the CPU." "$s" || fail "summary kernels: $(cat "$s")"
grep -q "^| attn\." "$s" || fail "summary operators: $(cat "$s")"
grep -q "the first 1" "$s" && fail "summary: 'the first 1'"
# "3 new tokens" in the headline (the first from prefill) beside the decode
# steps' 2 tokens, under a name that says so
grep -qF "3 new tokens" "$s" || fail "headline tokens: $(grep Executive "$s")"
grep -qF "**Tokens from decode steps** 2;" "$s" || fail "summary aggregates: $(cat "$s")"
grep -qxF "| Tokens from decode steps | 2 |" "$run/report.md" || fail "report.md aggregates tokens"
grep -q "sorted by CPU time: the workload ran on the CPU, so the GPU columns are n/a" "$run/operators.md" ||
	fail "operators.md intro: $(sed -n 5p "$run/operators.md")"
grep -q "cpu-path" "$run/report.md" || fail "report.md: no cpu-path finding"
grep -q "every report below is complete" "$run/report.md" && fail "report.md claims completeness on the CPU path"
grep -q "<td>Device</td><td>CPU (no GPU found)</td>" "$run/report.html" || fail "report.html: no Device row"
[ "$(json "$run/metrics.json" 'd["environment"]["device"]')" = "CPU (no GPU found)" ] || fail "metrics.json device"
[ "$(json "$run/metrics.json" 'd["environment"]["gpu"]')" = None ] || fail "metrics.json names a GPU"
# with the tracer, cpu-path is the only finding; without it (no CUDA toolkit)
# analyze is skipped, and step-skipped says so (section 4)
want="['cpu-path']"
[ -e "$LLMPROF_BUILD_DIR/tracer/libllmprof_tracer.so" ] || want="['cpu-path', 'step-skipped']"
[ "$(json "$run/metrics.json" 'sorted(f["code"] for f in d["findings"])')" = "$want" ] ||
	fail "findings beyond cpu-path: $(json "$run/metrics.json" 'd["findings"]')"

# 3. device=cpu on a machine with a GPU (env.json lists one): CPU (device=cpu),
#    the GPU still named; the same reports from `llmprof report`
cp -r "$run" "$tmp/withgpu"
python3 - "$tmp/withgpu/env.json" <<'PY'
import json, sys
p = sys.argv[1]; d = json.load(open(p))
d["gpus"] = [{"index": 0, "name": "NVIDIA H100 80GB HBM3", "sm_count": 132}]
json.dump(d, open(p, "w"), indent=2)
PY
"$LLMPROF" report "$tmp/withgpu" >out 2>err || fail "report: $(cat err)"
grep -qxF "| Device | CPU (device=cpu) |" "$tmp/withgpu/report.md" || fail "device=cpu row"
grep -qxF "| GPU | NVIDIA H100 80GB HBM3 |" "$tmp/withgpu/report.md" || fail "the present GPU is not named"
[ "$(json "$tmp/withgpu/metrics.json" 'all(s["utilization"][k] is None for s in d["stages"] for k in ("mfu_datasheet", "mbu_datasheet"))')" = True ] ||
	fail "MFU/MBU against the GPU's peaks on the CPU path"
grep -q "prefill-mfu-low\|decode-launch-bound\|decode-kernels-inefficient" "$tmp/withgpu/report.md" &&
	fail "GPU-peak findings on the CPU path"

# 4. no timeline backend (a build without the CUDA toolkit has no tracer, and
#    nsys is absent): analyze is skipped and every report says INCOMPLETE
PATH=/usr/bin:/bin LLMPROF_TRACER_LIB=/nonexistent.so "$LLMPROF" profile artifacts.root="$tmp/b" \
	"${small[@]}" >out 2>err || fail "profile without a backend: $(cat err)"
run=$(last_run out)
[ "$(json "$run/status.json" '[s["state"] for s in d["steps"] if s["name"] == "analyze"][0]')" = skipped ] ||
	fail "analyze not skipped"
grep -q "^Incomplete: analyze skipped because no timeline trace: " err || fail "stderr: $(cat err)"
s=$run/stakeholder_summary.md
grep -q "^> INCOMPLETE: analyze skipped because no timeline trace: pipeline.trace.backend=auto: nsys is not usable" "$s" ||
	fail "summary does not say incomplete: $(head -n 5 "$s")"
grep -q "No bottleneck crossed the thresholds" "$s" && fail "summary reads as an all-clear"
grep -q "^1\. .*Incomplete: analyze skipped because" "$s" || fail "summary findings: $(cat "$s")"
head -n 1 "$run/report.md" | grep -qxF "# Profiling report: INCOMPLETE (step 'analyze' skipped)" ||
	fail "report.md title: $(head -n 1 "$run/report.md")"
grep -q "complete\." "$run/report.md" && fail "report.md says complete"
grep -qxF "| State | incomplete |" "$run/report.md" || fail "report.md State row"
grep -q "<h1>Profiling report: INCOMPLETE</h1>" "$run/report.html" || fail "report.html title"
[ "$(json "$run/metrics.json" 'd["run"]["state"]')" = incomplete ] || fail "metrics.json state"
echo ok
