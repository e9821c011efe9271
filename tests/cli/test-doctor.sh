#!/usr/bin/env bash
# `llmprof doctor`: truthful lines with no GPU, the ok/warn/fail format
# with a fix for every problem, tools found on PATH, and exit codes.
set -u
: "${LLMPROF:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-doctor.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1

check_format() {
	awk '
		/^(ok|warn|fail)  [^:]+: ./ { need_fix = ($1 != "ok"); next }
		/^      fix: ./ { if (!need_fix) { print "fix without a problem: " $0; exit 1 } need_fix = 0; next }
		{ print "bad line: " $0; exit 1 }
		END { if (need_fix) { print "problem without a fix"; exit 1 } }' "$1" || fail "format of $1"
}

# no GPU and no NVIDIA tool, whatever this machine has (the known install
# locations are looked for under an empty LLMPROF_SYSROOT)
mkdir -p "$tmp/sysroot"
export LLMPROF_SYSROOT=$tmp/sysroot
LLMPROF_NVML_LIBRARY=/nonexistent/libnvidia-ml.so.1 LLMPROF_NVIDIA_SMI=/nonexistent/nvidia-smi \
PATH=/usr/bin:/bin "$LLMPROF" doctor >out 2>err
rc=$?
[ $rc -eq 0 ] || fail "doctor without GPU: exit $rc, want 0 ($(cat err))"
check_format out
grep -q '^ok    conf: ' out || fail "conf not ok"
grep -q '^warn  gpu: no NVIDIA GPU found: NVML: cannot load /nonexistent/libnvidia-ml.so.1' out ||
	fail "gpu line: $(grep gpu out)"
grep -q 'nvidia-smi: not found' out || fail "nvidia-smi reason missing"
grep -q '^warn  ncu counters: not checked without a GPU$' out || fail "counters line"
grep -qx "warn  ncu: ncu not found on PATH nor at $tmp/sysroot/usr/local/cuda/bin/ncu, $tmp/sysroot/opt/nvidia/nsight-compute/\*/ncu" out ||
	fail "ncu line: $(grep ncu out)"
grep -qx "warn  nsys: nsys not found on PATH nor at $tmp/sysroot/opt/nvidia/nsight-systems/\*/bin/nsys, $tmp/sysroot/opt/nvidia/nsight-compute/\*/host/target-linux-x64/nsys, $tmp/sysroot/usr/local/cuda/bin/nsys" out ||
	fail "nsys line: $(grep nsys out)"

# tools found on PATH, with their versions; nsys with and without importer,
# in Nsight Systems' own layout (where nsys itself looks for it)
mkdir -p "$tmp/bin" "$tmp/nsys/target" "$tmp/nsys/host-linux-x64" "$tmp/nsys/host"
printf '#!/bin/sh\necho "NVIDIA (R) Nsight Compute Command Line Profiler"\necho "Version 2099.1.0.0 (build 1)"\n' >"$tmp/bin/ncu"
printf '#!/bin/sh\necho "NVIDIA Nsight Systems version 2099.2.1"\n' >"$tmp/nsys/target/nsys"
chmod +x "$tmp/bin/ncu" "$tmp/nsys/target/nsys"
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= PATH="$tmp/bin:$tmp/nsys/target:/usr/bin:/bin" \
	"$LLMPROF" doctor >out 2>err || fail "doctor with tools"
check_format out
grep -qx "ok    ncu: $tmp/bin/ncu (2099.1.0.0 (build 1))" out || fail "ncu: $(grep ncu out)"
grep -qx "ok    nsys: $tmp/nsys/target/nsys (2099.2.1)" out || fail "nsys: $(grep nsys out)"
grep -q '^warn  nsys importer: no QdstrmImporter' out || fail "importer should be missing"
# a sibling directory nsys never searches does not count (profile would fail)
printf '#!/bin/sh\n' >"$tmp/nsys/host/QdstrmImporter"
chmod +x "$tmp/nsys/host/QdstrmImporter"
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= PATH="$tmp/bin:$tmp/nsys/target:/usr/bin:/bin" \
	"$LLMPROF" doctor >out 2>err || fail "doctor, importer elsewhere"
grep -q '^warn  nsys importer: no QdstrmImporter' out || fail "importer in host/ should not count"
printf '#!/bin/sh\n' >"$tmp/nsys/host-linux-x64/QdstrmImporter"
chmod +x "$tmp/nsys/host-linux-x64/QdstrmImporter"
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= PATH="$tmp/bin:$tmp/nsys/target:/usr/bin:/bin" \
	"$LLMPROF" doctor >out 2>err || fail "doctor with importer"
grep -q "^ok    nsys importer: $tmp/nsys/target/../host-linux-x64/QdstrmImporter$" out ||
	fail "importer: $(grep importer out)"

# a broken ncu is a warning that says what happened
printf '#!/bin/sh\nexit 3\n' >"$tmp/bin/ncu"
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= PATH="$tmp/bin:/usr/bin:/bin" "$LLMPROF" doctor >out 2>err
grep -qx "warn  ncu: '$tmp/bin/ncu --version' exited with status 3" out || fail "broken ncu: $(grep ncu out)"

# this machine as it is: a GPU line either way, never both
"$LLMPROF" doctor >out 2>err || fail "plain doctor failed: $(cat err)"
check_format out
if grep -q '^ok    gpu 0: ' out; then
	grep -q '^warn  gpu: no NVIDIA GPU' out && fail "GPU both found and missing"
else
	grep -q '^warn  gpu: no NVIDIA GPU found: ' out || fail "no gpu line"
fi

# the NVML path, through a stand-in library with NVML's symbols
if command -v cc >/dev/null; then
	cat >"$tmp/fake-nvml.c" <<'C'
#include <string.h>
struct mem { unsigned long long total, free, used; };
int nvmlInit_v2(void) { return 0; }
int nvmlShutdown(void) { return 0; }
const char *nvmlErrorString(int r) { return "fake error"; }
int nvmlSystemGetDriverVersion(char *b, unsigned n) { strncpy(b, "550.54.15", n); return 0; }
int nvmlSystemGetCudaDriverVersion_v2(int *v) { *v = 12040; return 0; }
int nvmlDeviceGetCount_v2(unsigned *c) { *c = 2; return 0; }
int nvmlDeviceGetHandleByIndex_v2(unsigned i, void **d) { *d = (void *)(long)(i + 1); return 0; }
int nvmlDeviceGetName(void *d, char *b, unsigned n) { strncpy(b, "NVIDIA H100 80GB HBM3", n); return 0; }
int nvmlDeviceGetUUID(void *d, char *b, unsigned n) { strncpy(b, d == (void *)1 ? "GPU-aaaa" : "GPU-bbbb", n); return 0; }
int nvmlDeviceGetCudaComputeCapability(void *d, int *a, int *b) { *a = 9; *b = 0; return 0; }
int nvmlDeviceGetMemoryInfo(void *d, struct mem *m) { m->total = 85520809984ull; return 0; }
int nvmlDeviceGetMaxClockInfo(void *d, int t, unsigned *c) { *c = t == 1 ? 1980 : 2619; return 0; }
int nvmlDeviceGetClockInfo(void *d, int t, unsigned *c) { *c = t == 1 ? 345 : 2619; return 0; }
int nvmlDeviceGetAttributes_v2(void *d, void *a) { return 3; /* NVML_ERROR_NOT_SUPPORTED */ }
C
	cc -shared -fPIC -o "$tmp/libfake-nvml.so" "$tmp/fake-nvml.c" || fail "cannot build the NVML stand-in"
	LLMPROF_NVML_LIBRARY=$tmp/libfake-nvml.so LLMPROF_NVIDIA_SMI= "$LLMPROF" doctor >out 2>err ||
		fail "doctor with NVML stand-in: $(cat err)"
	check_format out
	grep -qx 'ok    driver: 550.54.15, CUDA 12.4 (via nvml)' out || fail "driver line: $(grep driver out)"
	grep -qx 'ok    gpu 0: NVIDIA H100 80GB HBM3, compute capability 9.0, 79.6 GiB' out ||
		fail "gpu 0 line: $(grep gpu out)"
	grep -q '^ok    gpu 1: ' out || fail "no gpu 1 line"
	grep -q '^warn  gpu: ' out && fail "GPU reported missing"
	grep -q '^ok    ncu counters\|^warn  ncu counters: unknown\|^fail  ncu counters' out ||
		fail "counters should be checked with a GPU: $(grep counters out)"
	# and env.json records the same GPUs
	LLMPROF_NVML_LIBRARY=$tmp/libfake-nvml.so LLMPROF_NVIDIA_SMI= \
		"$LLMPROF" profile artifacts.root="$tmp/runs" -- /bin/true >out 2>err || fail "profile"
	run=$(tail -n 1 out | sed 's/^run: //')
	python3 - "$run/env.json" <<'PY' || fail "env.json GPUs"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["gpu_probe"]["source"] == "nvml", d["gpu_probe"]
assert d["driver_version"] == "550.54.15" and d["cuda_driver_version"] == "12.4"
g = d["gpus"]
assert [x["uuid"] for x in g] == ["GPU-aaaa", "GPU-bbbb"], g
assert g[0]["compute_capability"] == "9.0" and g[0]["memory_total_bytes"] == 85520809984
assert g[0]["max_sm_clock_mhz"] == 1980 and g[0]["sm_clock_mhz"] == 345
assert g[0]["sm_count"] is None and "SM count" in d["gpu_probe"]["note"]
PY
fi

# the nvidia-smi path, through a stand-in script
printf '#!/bin/sh
echo "0, NVIDIA H200, GPU-cccc, 00000000:19:00.0, 9.0, 143771, 1980, 3201, 1980, 3201, 570.86.15"
' \
	>"$tmp/bin/nvidia-smi"
chmod +x "$tmp/bin/nvidia-smi"
LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=$tmp/bin/nvidia-smi "$LLMPROF" doctor >out 2>err
grep -qx 'ok    driver: 570.86.15 (via nvidia-smi)' out || fail "smi driver: $(grep driver out)"
grep -qx 'ok    gpu 0: NVIDIA H200, compute capability 9.0, 140.4 GiB' out || fail "smi gpu: $(grep gpu out)"

# a broken conf folder is the one fatal problem
"$LLMPROF" doctor --conf-dir "$tmp/noconf" >out 2>err
rc=$?
[ $rc -eq 3 ] || fail "bad conf: exit $rc, want 3"
grep -q "^fail  conf: $tmp/noconf: " out || fail "conf fail line: $(head -2 out)"
# ... and says so on stderr, one line, as every failing command does
[ "$(wc -l <err)" -eq 1 ] && grep -q "^llmprof: error: doctor: the configuration does not load: cannot read '$tmp/noconf/config.yaml'" err ||
	fail "bad conf: stderr: '$(cat err)'"
"$LLMPROF" doctor extra >/dev/null 2>&1; [ $? -eq 2 ] || fail "extra argument accepted"
# KEY=VALUE overrides apply as in profile: a wrong one is the conf failure
"$LLMPROF" doctor run.tmeout_s=1 >out 2>err
rc=$?
[ $rc -eq 3 ] || fail "bad override: exit $rc, want 3"
grep -q "^fail  conf: .*unknown config key 'run.tmeout_s'; did you mean 'run.timeout_s'?" out ||
	fail "bad override line: $(head -2 out)"
grep -q "^llmprof: error: doctor: the configuration does not load: unknown config key 'run.tmeout_s'" err ||
	fail "bad override: stderr: '$(cat err)'"
"$LLMPROF" doctor pipeline.ncu.path=/nonexistent/ncu >out 2>err || fail "ncu override: $(cat err)"
grep -qx "warn  ncu: pipeline.ncu.path='/nonexistent/ncu' is not an executable file" out ||
	fail "ncu override line: $(grep ncu out)"
echo ok
