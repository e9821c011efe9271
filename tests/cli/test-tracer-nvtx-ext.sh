#!/usr/bin/env bash
# The builtin tracer and NVTX's extension modules (payload schemas, ranges
# with binary payloads), used as NCCL uses them: the program must run to its
# end under the tracer, with and without CUDA tracing, and its core NVTX
# ranges must still be recorded. NVTX looks the extension entry point up
# with dlsym() on the tracer library, a search that reaches the tracer's
# dependencies; CUPTI's own InitializeInjectionNvtxExtension was found there
# and crashed every NCCL program (docs/validation/nccl-crash-h100.md).
set -euo pipefail
b=${LLMPROF_BUILD_DIR:?}
so=$b/tracer/libllmprof_tracer.so
prog=$b/tests/nvtx-ext-program
tool=$b/tests/trace-tool
if [ ! -x "$prog" ] || [ ! -f "$so" ]; then
	echo "skip: CUDA toolkit headers absent, tracer or NVTX test program not built"
	exit 77
fi
t=$(mktemp -d)
trap 'rm -rf "$t"' EXIT

# 1. The entry points NVTX and the CUDA driver look up by name resolve to
#    the tracer itself, never to a library it links.
python3 - "$so" <<'PY'
import ctypes, ctypes.util, sys
so = sys.argv[1]
lib = ctypes.CDLL(so)
libdl = ctypes.CDLL(ctypes.util.find_library("dl") or "libc.so.6")
class DlInfo(ctypes.Structure):
    _fields_ = [("fname", ctypes.c_char_p), ("fbase", ctypes.c_void_p),
                ("sname", ctypes.c_char_p), ("saddr", ctypes.c_void_p)]
libdl.dladdr.argtypes = [ctypes.c_void_p, ctypes.POINTER(DlInfo)]
for name in ("InitializeInjection", "InitializeInjectionNvtx", "InitializeInjectionNvtx2",
             "InitializeInjectionNvtxExtension"):
    fn = getattr(lib, name)
    info = DlInfo()
    assert libdl.dladdr(ctypes.cast(fn, ctypes.c_void_p), ctypes.byref(info)), name
    where = info.fname.decode()
    assert where.endswith("libllmprof_tracer.so"), (name, where)
print("entry points: all in the tracer")
PY

# 2. The program under the tracer: NVTX only, then as CUDA would load it.
for cuda in 0 1; do
	rm -rf "$t/log" && mkdir "$t/log"
	env LLMPROF_TRACE_OUT="$t/log" LLMPROF_TRACE_CUDA=$cuda NVTX_INJECTION64_PATH="$so" \
		"$prog" >"$t/out" 2>"$t/err" || {
		echo "nvtx-ext-program died under the tracer (exit $?, LLMPROF_TRACE_CUDA=$cuda)" >&2
		cat "$t/err" >&2
		exit 1
	}
	[ "$(cat "$t/out")" = "nvtx-ext-program: done (schema not registered)" ]
	"$tool" convert "$t/log" "$t/t.sqlite" >"$t/conv.txt"
	grep -q "problems 0" "$t/conv.txt"
	# decode + three ncclAllReduce pushes; the payload calls are not ranges
	n=$(sqlite3 "$t/t.sqlite" "select count(*) from NVTX_EVENTS where eventType = 59")
	[ "$n" = 4 ] || { echo "expected 4 push/pop ranges, got $n" >&2; exit 1; }
	reg=$(sqlite3 "$t/t.sqlite" "select count(*) from NVTX_EVENTS e join StringIds s
		on s.id = e.textId where s.value = 'ncclAllReduce'")
	[ "$reg" = 3 ] || { echo "expected 3 ncclAllReduce ranges, got $reg" >&2; exit 1; }
done
echo "ok: NVTX extension calls under the tracer"
