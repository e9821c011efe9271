#!/usr/bin/env bash
# GPU check that a change of structure changed no result: two llmprof
# binaries (BEFORE and AFTER, both in the staged build/) profile the same
# workloads back to back on the same GPU, and the bundles come back for
# scripts/gpu/compare-bundles.py (run here, on the CPU side):
#   deep   the built-in llama-3.2-1b, deep mode: builtin tracer + ncu
#   nsys   the same with the nsys backend, ncu off
#   hf     a transformers Llama program (examples/hf_llama.py), deep mode
# Usage: validate-same-reports.sh STAGE_DIR OUT_DIR BEFORE AFTER
#   (STAGE_DIR absolute: nsys's importer finds its libraries through
#   LD_LIBRARY_PATH, which a relative path breaks once nsys changes folder)
set -u
stage=${1:?usage: validate-same-reports.sh STAGE_DIR OUT_DIR BEFORE AFTER}
out=${2:?}
before=${3:?}
after=${4:?}
case $stage in /*) ;; *) echo "STAGE_DIR must be absolute" >&2; exit 2 ;; esac
B=$stage/build
NCU=${NCU:-/usr/local/cuda/bin/ncu}
NSYS=${NSYS:-$(ls -d /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | sort -V | tail -1)}
export LD_LIBRARY_PATH=$stage/lib:${LD_LIBRARY_PATH:-}
export LLMPROF_CONF_DIR=$stage/conf
mkdir -p "$out"
w=$(mktemp -d)
common=(model=llama-3.2-1b infer.prompt_len=128 infer.max_new_tokens=32)
{
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
"$NCU" --version | tail -1
"$NSYS" --version
for bin in "$before" "$after"; do
	"$B/$bin" --version
	for run in deep nsys hf; do
		case $run in
		deep) args=("${common[@]}" run.mode=deep pipeline.trace.backend=builtin pipeline.ncu.path="$NCU") ;;
		nsys) args=("${common[@]}" pipeline.trace.backend=nsys pipeline.nsys.path="$NSYS" pipeline.ncu.enable=false) ;;
		hf) args=("${common[@]}" run.mode=deep run.top_n_kernels=3 pipeline.trace.backend=builtin
			pipeline.ncu.path="$NCU" -- python3 "$stage/examples/hf_llama.py" --prompt 128 --new-tokens 32) ;;
		esac
		t0=$(date +%s.%N)
		timeout 280 "$B/$bin" profile -q -o "$w/$bin-$run" "${args[@]}" >"$w/o" 2>"$w/e"
		rc=$?
		echo "$bin $run: exit $rc in $(python3 -c "print(round($(date +%s.%N) - $t0, 1))") s"
		tail -n 3 "$w/e"
		d=$(sed -n 's/^run: //p' "$w/o")
		[ -n "$d" ] && mv "$d" "$w/keep-$bin-$run"
	done
done
} 2>&1 | tee "$out/validate-same-reports.log"
tar -C "$w" -czf "$out/bundles.tgz" --exclude='*.ncu-rep' --exclude='*.sqlite' --exclude='*.bin' \
	--exclude='trace.json' --exclude='*.nsys-rep' --exclude='*.qdstrm' --exclude='*.tmp.*' \
	$(cd "$w" && ls -d keep-* 2>/dev/null)
rm -rf "$w"
