#!/usr/bin/env bash
# The builtin tracer and NVTX's extension modules (payload schemas, ranges
# with binary payloads), used as NCCL uses them: the program must run to its
# end under the tracer, with and without CUDA tracing, its NVTX ranges must
# be recorded, and the payload extension is taken: trace.sqlite has the
# schemas, the enum and each range's payload bytes in nsys's tables and
# blob layout, careless inputs (NULL, empty, unknown schema, huge size)
# leave no bytes or only what the schema allows, and `llmprof report`
# reads the bytes per NCCL call. With LLMPROF_TRACE_NVTX_PAYLOADS=0 the
# extension is declined again. NVTX looks the extension entry point up
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

# 1b. The extension entry point takes the payload module only, as NVTX
#     describes it (version 3, compatibility 0x0103 or 0x0104, one segment
#     with the slots it fills), and declines the rest untouched: the
#     counters and memory modules, a newer compatibility id, other layouts.
mkdir "$t/ctypes-log"
LLMPROF_TRACE_OUT="$t/ctypes-log" LLMPROF_TRACE_CUDA=0 python3 - "$so" <<'PY'
import ctypes, sys
lib = ctypes.CDLL(sys.argv[1])
class Seg(ctypes.Structure):
    _fields_ = [("id", ctypes.c_size_t), ("slotCount", ctypes.c_size_t),
                ("slots", ctypes.POINTER(ctypes.c_ssize_t))]
class Info(ctypes.Structure):
    _fields_ = [("nvtxVer", ctypes.c_uint16), ("structSize", ctypes.c_uint16),
                ("moduleId", ctypes.c_uint16), ("compatId", ctypes.c_uint16),
                ("segmentsCount", ctypes.c_size_t), ("segments", ctypes.POINTER(Seg)),
                ("getExport", ctypes.c_void_p), ("extInfo", ctypes.c_void_p)]
init = lib.InitializeInjectionNvtxExtension
init.argtypes = [ctypes.POINTER(Info)]
def call(module=2, compat=0x0104, nseg=1, nslots=63, ver=3, size=ctypes.sizeof(Info)):
    slots = (ctypes.c_ssize_t * 64)()
    segs = (Seg * 2)(Seg(0, nslots, slots), Seg(1, nslots, slots))
    info = Info(ver, size, module, compat, nseg, segs, None, None)
    return init(ctypes.byref(info)), [i for i in range(64) if slots[i]]
assert call() == (1, [0, 1, 3, 4]), call()
assert call(compat=0x0103)[0] == 1
for bad in (dict(module=4), dict(module=1), dict(compat=0x0105), dict(compat=0x0102),
            dict(nseg=2), dict(nseg=0), dict(nslots=4), dict(ver=2), dict(size=16)):
    assert call(**bad) == (0, []), (bad, call(**bad))
assert init(None) == 0
print("extension modules: the payload module taken, the rest declined")
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
	[ "$(cat "$t/out")" = "nvtx-ext-program: done (schema registered)" ]
	"$tool" convert "$t/log" "$t/t.sqlite" >"$t/conv.txt"
	grep -q "problems 0" "$t/conv.txt"
	# decode, the init range, three ncclAllReduce pushes each with a
	# nvtxRangePushPayload range inside, seven careless ncclAllReduce pushes
	n=$(sqlite3 "$t/t.sqlite" "select count(*) from NVTX_EVENTS where eventType = 59")
	[ "$n" = 15 ] || { echo "expected 15 push/pop ranges, got $n" >&2; exit 1; }
	reg=$(sqlite3 "$t/t.sqlite" "select count(*) from NVTX_EVENTS e join StringIds s
		on s.id = e.textId where s.value = 'ncclAllReduce'")
	[ "$reg" = 10 ] || { echo "expected 10 ncclAllReduce ranges, got $reg" >&2; exit 1; }
	python3 - "$t/t.sqlite" <<'PY'
import sqlite3, struct, sys
db = sqlite3.connect(sys.argv[1])
S = 1 << 24
assert db.execute("SELECT schemaId, type, numEntries, payloadSize FROM NVTX_PAYLOAD_SCHEMAS "
                  "ORDER BY schemaId").fetchall() == [(S + 2, 1, 4, 24), (S + 5, 1, 3, 24)]
assert db.execute("SELECT name, type, offset FROM NVTX_PAYLOAD_SCHEMA_ENTRIES WHERE schemaId = ? "
                  "ORDER BY idx", (S + 5,)).fetchall() == [
    ("NCCL communicator ID", 18, 0), ("Message size [bytes]", 22, 8),
    ("Reduction operation", S + 20, 16)]
assert db.execute("SELECT schemaId, numEntries, size FROM NVTX_PAYLOAD_ENUMS").fetchall() == [
    (S + 20, 5, 4)]
assert [r[0] for r in db.execute("SELECT name FROM NVTX_PAYLOAD_ENUM_ENTRIES ORDER BY idx")] == [
    "Sum", "Product", "Max", "Min", "Avg"]
def blobs(name):
    return [r[0] for r in db.execute(
        "SELECT binaryData FROM NVTX_EVENTS e JOIN StringIds s ON s.id = e.textId "
        "WHERE s.value = ? ORDER BY e.start", (name,))]
def one(schema, data):
    return struct.pack("<4Q", 1, schema, len(data), 32) + data
comm = struct.pack("<Q", 0x68D0C2D9DE8A3A2D)
def coll(n, op):
    return comm + struct.pack("<Qi4x", n, op)
(init,) = blobs("ncclCommInitRankConfig")
assert init == one(S + 2, comm + struct.pack("<iii4x", 2, 0, 0)), init.hex()
b = blobs("ncclAllReduce")
assert b[:3] == [one(S + 5, coll(4096, 0)), one(S + 5, coll(8192, 0)),
                 one(S + 5, coll(16384, 2))], [x.hex() for x in b[:3] if x]
# NULL array, no payloads, unknown schema, NULL data, size 0: no bytes
assert b[3:8] == [None] * 5, b[3:8]
# a huge size: the schema's 24 bytes; three payloads: the first two
assert b[8] == one(S + 5, coll(512, 0)), b[8]
two = struct.pack("<7Q", 2, S + 5, 24, 56, S + 5, 24, 80) + coll(512, 0) * 2
assert b[9] == two, b[9].hex()
print("payload tables and blobs as nsys writes them")
PY
	if [ -n "${LLMPROF:-}" ]; then
		"$LLMPROF" report --trace "$t/t.sqlite" -o "$t/rep" >/dev/null 2>&1
		python3 - "$t/rep/metrics.json" <<'PY'
import json, sys
(r,) = json.load(open(sys.argv[1]))["nccl_calls"]["by_process"]
want = {"type": "AllReduce", "calls": 10, "sized_calls": 5, "bytes": 29696, "ranks": 2,
        "op": None, "launched_calls": 0}
assert {k: r[k] for k in want} == want, r
PY
		rm -rf "$t/rep"
	fi
done

# 3. The payload extension declined on request: the program still ends.
rm -rf "$t/log" && mkdir "$t/log"
env LLMPROF_TRACE_OUT="$t/log" LLMPROF_TRACE_CUDA=0 LLMPROF_TRACE_NVTX_PAYLOADS=0 \
	NVTX_INJECTION64_PATH="$so" "$prog" >"$t/out"
[ "$(cat "$t/out")" = "nvtx-ext-program: done (schema not registered)" ]
"$tool" convert "$t/log" "$t/t.sqlite" >/dev/null
n=$(sqlite3 "$t/t.sqlite" "select count(*) from sqlite_master where name like 'NVTX_PAYLOAD%'")
[ "$n" = 0 ] || { echo "payload tables written with the extension declined" >&2; exit 1; }
echo "ok: NVTX extension calls under the tracer"
