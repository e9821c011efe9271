#!/usr/bin/env bash
# Validates llmprof's nsys backend pieces on a GPU machine (H100/H200 with
# nsys 2025.3.1 inside Nsight Compute): the usability probe without and with
# the importer's missing libraries, then `nsys profile` exactly as
# nsys_build_profile writes it (ungated; NVTX-gated on LLM@decode_all ->
# decode_all@LLM with NSYS_NVTX_PROFILER_REGISTER_ONLY=0; a wrong gate), the
# export and stats steps, and nsys_diag's reading of each outcome.
#
# Prepare here (no GPU needed), from the worktree root:
#   ../shared/tools/gpu-nsys-libs.sh .gpu-libs          # libdw, libelf, liblzma, libbz2
#   scripts/gpu/validate-nsys.sh --build                # static build/nsys-validate
# Then on the GPU machine, in the same tree (with .gpu-libs and build/nsys-validate):
#   OUT=/some/dir scripts/gpu/validate-nsys.sh
# Results: $OUT/validate.txt (the log below) and $OUT/cases.tgz (nsys outputs,
# commands, kern_sum CSVs). docs/validation/nsys-h100.md records a run.
set -uo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
cd "$root"
if [ "${1:-}" = "--build" ]; then
	mkdir -p build
	gcc -static -O2 -std=c11 -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE -Isrc \
		scripts/gpu/nsys-validate.c src/core/strbuf.c src/core/xalloc.c src/core/error.c \
		src/core/fsutil.c src/core/util.c src/core/proc.c src/core/version.c src/config/enums.c \
		src/nsight/tools.c src/nsight/nsys.c src/nsight/nsys_diag.c src/nsight/nsys_exec.c src/trace/sqlite_open.c \
		-l:libsqlite3.a -l:libjansson.a -lm -lpthread -ldl -o build/nsys-validate 2>&1 | grep -v 'Using .dlopen' >&2
	ls -la build/nsys-validate
	exit 0
fi
OUT=${OUT:-/tmp/nsys-validate}
mkdir -p "$OUT"
log=$OUT/validate.txt
exec > >(tee "$log") 2>&1
NSYS=${NSYS:-$(ls -d /opt/nvidia/nsight-compute/*/host/target-linux-x64/nsys 2>/dev/null | sort -V | tail -1)}
echo "date: $(date -u +%FT%TZ)"
nvidia-smi --query-gpu=name,driver_version,memory.total --format=csv,noheader
echo "nsys: $NSYS"
"$NSYS" --version
nvcc --version | tail -1
work=$(mktemp -d)
nvcc -O2 -arch=sm_90 -o "$work/probe" tests/data/nsys/nvtx-probe-program.cu -ldl || exit 1
"$work/probe"
echo "== probe without the importer's libraries"
NSYS_VALIDATE_PROBE_ONLY=1 build/nsys-validate "$NSYS" "$work/x" /bin/true
echo "== with .gpu-libs on LD_LIBRARY_PATH"
export LD_LIBRARY_PATH=$root/.gpu-libs${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}
cd "$work"
"$root/build/nsys-validate" "$NSYS" "$work/cases" ./probe
rc=$?
# What each capture holds: NVTX ranges and kernels per case (from the exports).
for db in "$work"/cases/*/run.sqlite; do
	[ -f "$db" ] || continue
	echo "== $(basename "$(dirname "$db")")"
	python3 - "$db" <<'PY'
import sqlite3, sys
c = sqlite3.connect(sys.argv[1])
t = {r[0] for r in c.execute("select name from sqlite_master where type='table'")}
if "NVTX_EVENTS" in t:
    q = """select coalesce(n.text, s.value), count(*) from NVTX_EVENTS n left join StringIds s
           on n.textId = s.id where n.eventType in (59, 60) group by 1 order by 1"""
    print("nvtx ranges:", c.execute(q).fetchall())
if "CUPTI_ACTIVITY_KIND_KERNEL" in t:
    q = """select s.value, count(*), sum(k.end - k.start) from CUPTI_ACTIVITY_KIND_KERNEL k
           join StringIds s on k.shortName = s.id group by 1 order by 1"""
    print("kernels (name, count, total ns):", c.execute(q).fetchall())
PY
done
tar czf "$OUT/cases.tgz" -C "$work" --exclude='*.nsys-rep' --exclude='*.sqlite' --exclude='*.qdstrm' cases
echo "exit: $rc"
exit $rc
