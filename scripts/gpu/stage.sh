#!/usr/bin/env bash
# Stages a build for the GPU machine: the binaries, the PyTorch startup
# module (build/pytorch), conf/, the shared
# libraries llmprof links that a CUDA image may lack (libyaml, jansson,
# sqlite3) and the libraries nsys's importer needs there, into DEST
# (default .gpu/stage, git-ignored). A GPU run then carries DEST and starts
# with:  export LD_LIBRARY_PATH=$PWD/DEST/lib:$LD_LIBRARY_PATH
set -euo pipefail
cd "$(dirname "$0")/../.."
dest=${1:-.gpu/stage}
rm -rf "$dest" && mkdir -p "$dest/build/workloads" "$dest/build/tracer" "$dest/lib"
cp build/llmprof build/llmprof-calibrate "$dest/build/"
cp build/workloads/llmprof-llm build/workloads/llmprof-dummy "$dest/build/workloads/"
cp build/tracer/libllmprof_tracer.so "$dest/build/tracer/"
# the PyTorch startup module (docs/pytorch.md): build/pytorch/ as llmprof finds it
mkdir -p "$dest/build/pytorch"
cp build/pytorch/*.py build/pytorch/libllmprof_nvtx.so "$dest/build/pytorch/"
cp -r conf scripts examples "$dest/"
for so in libyaml-0.so.2 libjansson.so.4 libsqlite3.so.0; do
	cp -L "/lib/x86_64-linux-gnu/$so" "$dest/lib/"
done
if [ -d .gpu-libs ]; then cp -L .gpu-libs/* "$dest/lib/"; fi
# the tracer benchmarks' binaries (bench/tracer/overhead-matrix.sh MATRIX_BIN)
mkdir -p "$dest/gpu-bin"
cp build/tracer/libllmprof_tracer.so build/tests/trace-tool "$dest/gpu-bin/"
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$dest/gpu-bin/tiny_launch" bench/tracer/tiny_launch.cu
cc -shared -fPIC -O2 -I/usr/local/cuda/include -o "$dest/gpu-bin/libcupti_floor.so" \
	bench/tracer/cupti_floor.c -L/usr/local/cuda/lib64 -lcupti
cc -shared -fPIC -O1 -g -o "$dest/gpu-bin/segv_report.so" scripts/gpu/probe/segv_report.c -ldl
# the launch pattern bench/ncu-deep-time.sh checks ncu's filters and replay passes on
/usr/local/cuda/bin/nvcc -O2 -arch=sm_90 -o "$dest/gpu-bin/ncu_filter_probe" \
	scripts/gpu/probe/ncu_filter_probe.cu -ldl
git rev-parse --short HEAD >"$dest/commit"
du -sh "$dest"
