#!/usr/bin/env bash
# Re-captures the real nsys outputs under tests/data/nsys/ with NVIDIA's nsys
# 2023.4.4 CLI on a machine without a GPU (a CPU-only NVTX program), so the
# failure-mode tests read what nsys really prints.
#
# nsys's target package has no QdstrmImporter; the importer shipped with
# Nsight Compute 2024.1.1 (same oracle cache) imports 2023.4.4 streams once
# libssh.so is on LD_LIBRARY_PATH. We give nsys a directory layout in which it
# finds that importer (hard links, no copies) -- nsys looks for it in
# ../linux-desktop-glibc_2_11_3-x64/ next to its own directory.
#
# Usage: scripts/nsys/capture-test-data.sh [OUT_DIR]   (default tests/data/nsys)
# Needs: scripts/nsight-cli-oracle.sh, gcc, CUDA's nvtx3 headers, apt-get download.
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:-$root/tests/data/nsys}
eval "$(bash "$root/scripts/nsight-cli-oracle.sh")"
tdir=$(dirname "$NSYS")
importer_dir=$(dirname "$NCU")/host/linux-desktop-glibc_2_11_3-x64
nvtx_inc=$(ls -d /usr/local/cuda*/include 2>/dev/null | head -1)
[ -f "$nvtx_inc/nvtx3/nvToolsExt.h" ] || { echo "no nvtx3 headers" >&2; exit 1; }

tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
gcc -O1 -I"$nvtx_inc" "$out/nvtx-cpu-prog.c" -o "$tmp/prog" -ldl

# stock layout: nsys alone (importer missing)
# layout with importer: hard links of the target dir + the importer dir
mkdir -p "$tmp/layout"
cp -al "$tdir" "$tmp/layout/target-linux-x64"
ln -s "$importer_dir" "$tmp/layout/linux-desktop-glibc_2_11_3-x64"
( cd "$tmp" && apt-get download libssh-4 >/dev/null 2>&1 && dpkg -x libssh-4_*.deb x )
mkdir -p "$tmp/lib"
cp -L "$tmp"/x/usr/lib/x86_64-linux-gnu/libssh.so.4 "$tmp/lib/libssh.so"
N=$tmp/layout/target-linux-x64/nsys

cd "$tmp"
# name  env-LD  nsys  args...
cap() {
	local name=$1 ld=$2 nsys=$3; shift 3
	local rc=0
	LD_LIBRARY_PATH=$ld timeout 120 "$nsys" profile "$@" > "$out/$name.stdout" 2> "$out/$name.stderr" || rc=$?
	{ echo "nsys profile $*"; echo "exit $rc";
	  echo "files: $(cd "$tmp" && ls -d "$name".* nodir/"$name".* 2>/dev/null | tr '\n' ' ')"; } > "$out/$name.cmd"
}
common=(--trace=nvtx,osrt --sample=none --force-overwrite true)
cap importer-missing "" "$NSYS" "${common[@]}" -o importer-missing ./prog
cap importer-cannot-start "" "$N" "${common[@]}" -o importer-cannot-start ./prog
cap gate-unregistered "$tmp/lib" "$N" "${common[@]}" -c nvtx -p prefill@LLM -o gate-unregistered ./prog
cap gate-ncu-order "$tmp/lib" "$N" "${common[@]}" -c nvtx -p LLM@prefill -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-ncu-order ./prog
cap gate-default-domain "$tmp/lib" "$N" "${common[@]}" -c nvtx -p decode_all -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-default-domain ./prog
cap gate-ok-stop-shutdown "$tmp/lib" "$N" "${common[@]}" -c nvtx -p prefill@LLM -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-ok-stop-shutdown ./prog
cap gate-ok-stop "$tmp/lib" "$N" "${common[@]}" -c nvtx -p decode_all@LLM --capture-range-end=stop -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-ok-stop ./prog
cap gate-repeat "$tmp/lib" "$N" "${common[@]}" -c nvtx -p decode_step@LLM --capture-range-end=repeat:2 -e NSYS_NVTX_PROFILER_REGISTER_ONLY=0 -o gate-repeat ./prog
cap cuda-profiler-api "$tmp/lib" "$N" "${common[@]}" -c cudaProfilerApi -o cuda-profiler-api ./prog
cap bad-capture-range "$tmp/lib" "$N" "${common[@]}" -c range -o bad ./prog
cap bad-capture-range-end "$tmp/lib" "$N" "${common[@]}" -c nvtx -p x --capture-range-end=bogus -o bad ./prog
cap double-dash "$tmp/lib" "$N" "${common[@]}" -o double-dash -- ./prog
cap program-not-found "$tmp/lib" "$N" "${common[@]}" -o program-not-found ./does-not-exist
cap output-dir-missing "$tmp/lib" "$N" "${common[@]}" -o nodir/output-dir-missing ./prog
# The importer's own start-up failure (what the usability probe sees).
"$importer_dir/QdstrmImporter" --version > "$out/importer-version-nolib.txt" 2>&1 || true
# A small real report for the export/stats tests.
cp gate-ok-stop.nsys-rep "$out/nvtx-cpu-gate-stop.nsys-rep"
# stats on a report with no kernels: the SKIPPED message
"$NSYS" export --type sqlite --force-overwrite true --quiet true -o stats.sqlite gate-ok-stop.nsys-rep > /dev/null
"$NSYS" stats -r cuda_gpu_kern_sum -f csv --force-overwrite true -o stats stats.sqlite > "$out/stats-no-kernels.stdout" 2> "$out/stats-no-kernels.stderr" || true
# Make paths stable: the temp dir becomes /TMP.
sed -i "s|$tmp|/TMP|g" "$out"/*.stdout "$out"/*.stderr "$out"/*.cmd "$out/importer-version-nolib.txt"
sed -i "s|$importer_dir|IMPORTER_DIR|g" "$out/importer-version-nolib.txt"
echo "captured into $out"
