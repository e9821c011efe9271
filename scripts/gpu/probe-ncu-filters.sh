#!/usr/bin/env bash
# GPU probe: how Nsight Compute's launch filters count, which llmprof's
# one-pass ncu plan relies on, and a real PyTorch pair of exports for the
# join tests. Run on the GPU machine from the project root:
#   scripts/gpu/probe-ncu-filters.sh PROBE_BIN STAGE OUT
# PROBE_BIN: scripts/gpu/probe/ncu_filter_probe.cu built with
#   nvcc -O2 -arch=sm_90 -o PROBE_BIN scripts/gpu/probe/ncu_filter_probe.cu -ldl
# STAGE: an absolute scripts/gpu/stage.sh folder (its lib/ has nsys's
# importer libraries). Parts:
#   p. the probe under several filter combinations (names, grid, duration)
#   h. examples/hf_llama.py under nsys (kernel names, grid, block, order)
#      and under ncu in one per-launch-config pass gated to decode/ with
#      llmprof's deep-mode collection flags (wall time, results, names)
# PARTS (default "ph") picks parts; HF_NCU_DEFAULT=1 runs h2 with ncu's
# default collection instead (the names a user's own export has).
# Everything lands in OUT/probe.tgz too (the device returns few files).
set -uo pipefail
probe=$1 stage=$2 out=$3
NCU=${NCU:-/usr/local/cuda/bin/ncu}
NSYS=${NSYS:-$(ls -d /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | sort -V | tail -1)}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LC_ALL=C
mkdir -p "$out"
w=$(mktemp -d)
now() { date +%s.%N; }
log() { printf '\n=== %s\n' "$*"; }
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$NCU" --version | tail -1
"$NSYS" --version

# one probe run: NAME then ncu filter flags; prints ID, mangled name, grid,
# block, duration for every result
p() {
	local name=$1
	shift
	timeout 120 "$NCU" --clock-control none --metrics gpu__time_duration.sum \
		--kernel-name-base mangled "$@" -o "$w/$name" -f "$probe" >"$w/$name.log" 2>&1
	echo "--- $name: ncu $* (exit $?)"
	"$NCU" --import "$w/$name.ncu-rep" --csv --page raw --print-units base \
		--print-kernel-base mangled --metrics gpu__time_duration.sum \
		>"$out/probe-$name.csv" 2>&1
	python3 - "$out/probe-$name.csv" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
for r in rows[1:]:
    print("  id=%s %-16s grid=%s block=%s ns=%s" % (r["ID"], r["Kernel Name"], r["Grid Size"],
          r["Block Size"], r.get("gpu__time_duration.sum")))
PY
}

PARTS=${PARTS:-ph}
part() { [[ $PARTS == *$1* ]]; }
trap 'tar czf "$out/probe.tgz" -C "$out" --exclude probe.tgz . 2>/dev/null' EXIT
if part p; then
log "p. filter probe"
"$probe"
p e1-plc-c1-nvtx --filter-mode per-launch-config --launch-count 1 --nvtx --nvtx-include decode/
p e2-plc-c2-nvtx --filter-mode per-launch-config --launch-count 2 --nvtx --nvtx-include decode/
p e3-plc-k-c1-nvtx --filter-mode per-launch-config --launch-count 1 --nvtx --nvtx-include decode/ \
	-k 'regex:^(_Z2kAPfi|_Z2kCPfi)$'
p e4-plc-skipbefore6-c1 --filter-mode per-launch-config --launch-count 1 --launch-skip-before-match 6
p e5-plc-skip1-c1-nvtx --filter-mode per-launch-config --launch-skip 1 --launch-count 1 --nvtx \
	--nvtx-include decode/
p e6-global-kid --kernel-id '::regex:^_Z2kAPfi$:4'
p e7-plc-c2-nvtx-step-range --filter-mode per-launch-config --launch-count 2 --nvtx \
	--nvtx-include decode/ --nvtx-include step/

fi
part h || exit 0
log "h1. hf_llama under nsys"
hf=(python3 examples/hf_llama.py --prompt 128 --new-tokens 4)
t0=$(now)
timeout 240 "$NSYS" profile -t cuda,nvtx --sample=none --cpuctxsw=none --cuda-graph-trace=node \
	-o "$w/hf" -f true "${hf[@]}" >"$w/hf-nsys.log" 2>&1
echo "nsys exit $? in $(python3 -c "print(round($(now)-$t0,1))") s"; tail -n 5 "$w/hf-nsys.log"
timeout 120 "$NSYS" export --type sqlite -f true -o "$w/hf.sqlite" "$w/hf.nsys-rep" >/dev/null 2>&1
echo "export exit $?"
python3 - "$w/hf.sqlite" "$out" <<'PY'
import sqlite3, sys, csv
db = sqlite3.connect(sys.argv[1]); out = sys.argv[2]
s = lambda i: db.execute("select value from StringIds where id=?", (i,)).fetchone()[0]
rows = db.execute("""select k.start, k.demangledName, k.shortName, k.mangledName, k.gridX, k.gridY,
  k.gridZ, k.blockX, k.blockY, k.blockZ, k.correlationId from CUPTI_ACTIVITY_KIND_KERNEL k
  order by k.start""").fetchall()
rng = db.execute("""select n.start, n.end, coalesce(n.text, s.value) from NVTX_EVENTS n
  left join StringIds s on n.textId = s.id where n.eventType = 59""").fetchall()
dec = [r for r in rng if r[2] == "decode"]
names = {}
with open(out + "/hf-nsys-kernels.tsv", "w") as f:
    w = csv.writer(f, delimiter="\t", lineterminator="\n")
    w.writerow(["ordinal", "in_decode", "demangled", "short", "mangled", "grid", "block"])
    for i, r in enumerate(rows):
        ind = any(a <= r[0] < b for a, b, _ in dec)
        w.writerow([i, int(ind), s(r[1]), s(r[2]), s(r[3]) if r[3] is not None else "",
                    "%d,%d,%d" % r[4:7], "%d,%d,%d" % r[7:10]])
        names[s(r[1])] = names.get(s(r[1]), 0) + 1
print("kernels", len(rows), "distinct names", len(names), "decode ranges", len(dec))
PY

log "h2. hf_llama, one per-launch-config ncu pass over decode/ (deep-mode flags)"
flags=(--target-processes all --set roofline --replay-mode kernel
	--metrics gpu__time_duration.sum,sm__throughput.avg.pct_of_peak_sustained_elapsed,gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed,dram__bytes_read.sum,dram__bytes_write.sum,sm__sass_thread_inst_executed_op_ffma_pred_on.sum,sm__sass_thread_inst_executed_op_fadd_pred_on.sum,sm__sass_thread_inst_executed_op_fmul_pred_on.sum,sm__sass_thread_inst_executed_op_hfma_pred_on.sum,sm__sass_thread_inst_executed_op_hadd_pred_on.sum,sm__sass_thread_inst_executed_op_hmul_pred_on.sum,sm__ops_path_tensor_src_bf16_dst_fp32.sum,sm__ops_path_tensor_src_fp16.sum
	--section SpeedOfLight --section MemoryWorkloadAnalysis --section Occupancy --section SchedulerStats
	--clock-control none --cache-control all)
[ "${HF_NCU_DEFAULT:-0}" = 1 ] && flags=(--clock-control none)
t0=$(now)
timeout 300 "$NCU" "${flags[@]}" --filter-mode per-launch-config --launch-count 1 --nvtx \
	--nvtx-include decode/ -o "$w/hfncu" -f "${hf[@]}" >"$w/hf-ncu.log" 2>&1
rc=$?
t1=$(now)
echo "ncu exit $rc, wall $(python3 -c "print(round($t1-$t0,1))") s, results $(grep -c '==PROF== Profiling' "$w/hf-ncu.log")"
grep -v '==PROF== Profiling' "$w/hf-ncu.log" | tail -n 5
"$NCU" --import "$w/hfncu.ncu-rep" --csv --page raw --print-units base >"$out/hf-ncu-raw.csv" 2>&1
"$NCU" --import "$w/hfncu.ncu-rep" --csv --page raw --print-units base --print-kernel-base mangled \
	--metrics gpu__time_duration.sum >"$out/hf-ncu-mangled.csv" 2>&1
wc -l "$out"/hf-ncu-*.csv
python3 - "$out/hf-ncu-mangled.csv" "$out/hf-ncu-raw.csv" <<'PY'
import csv, sys
m = list(csv.DictReader(open(sys.argv[1])))[1:]
d = list(csv.DictReader(open(sys.argv[2])))[1:]
for a, b in list(zip(m, d))[:80]:
    print("  id=%s grid=%s block=%s %s | %s" % (a["ID"], a["Grid Size"], a["Block Size"],
          a["Kernel Name"][:60], b["Kernel Name"][:90]))
PY
cp "$w"/*.log "$out/" 2>/dev/null
rm -rf "$w"
