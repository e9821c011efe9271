#!/usr/bin/env python3
"""Write a synthetic Nsight Systems SQLite export (nsys export schema).

Used by the stats benchmark (>= 1M kernels, >= 100k NVTX ranges) and, small,
by tests that compare `llmprof stats` with NVIDIA's `nsys stats` on cases the
public fixtures lack. The layout imitates an LLM run: per thread, a `prefill`
range and a `decode_all` range holding `decode_step` ranges, each holding
operator ranges (`attn.qkv`, `mlp.up_gate`, ...) that launch kernels through
cudaLaunchKernel. With --edge it adds the awkward cases: several processes
and GPUs, a default-domain range with a registered string (textId), start/end
ranges that end on another thread, a range never closed, a CUDA graph launch
(several kernels, one correlationId), kernels outside every range, kernels
whose launch call is missing, overlapping streams, memcpy/memset, kernel names
with commas and quotes, and a domain created before the session (negative
start).

With --regular the kernels follow a fixed sequence per operator, each with
its own base duration, so that two files differ only by --jitter (relative
noise per kernel, from --seed) and --slow NAME:PCT (kernels whose name
contains NAME last PCT % longer); --variant renames the GEMMs to other tile
shapes and architectures (nvjet_sm90_tst_64x8 -> 128x8, sm80_xmma ->
sm90_xmma). `llmprof diff`'s tests and benchmark use them.

usage: gen-nsys-trace.py OUT.sqlite [--kernels N] [--threads T] [--processes P]
                         [--gpus G] [--kernels-per-op K] [--edge] [--seed S]
                         [--regular [--jitter PCT] [--slow NAME:PCT] [--variant]]
                         [--names N]
"""
import argparse
import os
import random
import sqlite3

SCHEMA = """
CREATE TABLE StringIds (id INTEGER NOT NULL PRIMARY KEY, value TEXT NOT NULL);
CREATE TABLE META_DATA_EXPORT (name TEXT NOT NULL, value TEXT);
CREATE TABLE ENUM_CUDA_MEMCPY_OPER (id INTEGER NOT NULL PRIMARY KEY, name TEXT, label TEXT);
CREATE TABLE NVTX_EVENTS (start INTEGER NOT NULL, end INTEGER, eventType INTEGER NOT NULL,
  rangeId INTEGER, category INTEGER, color INTEGER, text TEXT, globalTid INTEGER,
  endGlobalTid INTEGER, textId INTEGER, domainId INTEGER, uint64Value INTEGER,
  int64Value INTEGER, doubleValue REAL, uint32Value INTEGER, int32Value INTEGER,
  floatValue REAL, jsonTextId INTEGER, jsonText TEXT);
CREATE TABLE CUPTI_ACTIVITY_KIND_RUNTIME (start INTEGER NOT NULL, end INTEGER NOT NULL,
  eventClass INTEGER NOT NULL, globalTid INTEGER, correlationId INTEGER,
  nameId INTEGER NOT NULL, returnValue INTEGER NOT NULL, callchainId INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_KERNEL (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, demangledName INTEGER NOT NULL,
  shortName INTEGER NOT NULL, mangledName INTEGER, launchType INTEGER, cacheConfig INTEGER,
  registersPerThread INTEGER NOT NULL, gridX INTEGER NOT NULL, gridY INTEGER NOT NULL,
  gridZ INTEGER NOT NULL, blockX INTEGER NOT NULL, blockY INTEGER NOT NULL,
  blockZ INTEGER NOT NULL, staticSharedMemory INTEGER NOT NULL,
  dynamicSharedMemory INTEGER NOT NULL, localMemoryPerThread INTEGER NOT NULL,
  localMemoryTotal INTEGER NOT NULL, gridId INTEGER NOT NULL, sharedMemoryExecuted INTEGER,
  graphNodeId INTEGER, sharedMemoryLimitConfig INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMCPY (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, bytes INTEGER NOT NULL, copyKind INTEGER NOT NULL,
  deprecatedSrcId INTEGER, srcKind INTEGER, dstKind INTEGER, srcDeviceId INTEGER,
  srcContextId INTEGER, dstDeviceId INTEGER, dstContextId INTEGER, migrationCause INTEGER,
  graphNodeId INTEGER, virtualAddress INTEGER);
CREATE TABLE CUPTI_ACTIVITY_KIND_MEMSET (start INTEGER NOT NULL, end INTEGER NOT NULL,
  deviceId INTEGER NOT NULL, contextId INTEGER NOT NULL, streamId INTEGER NOT NULL,
  correlationId INTEGER, globalPid INTEGER, value INTEGER NOT NULL, bytes INTEGER NOT NULL,
  graphNodeId INTEGER, memKind INTEGER);
"""

MEMCPY_KINDS = [(0, "CUDA_MEMCPY_KIND_UNKNOWN", "Unknown"), (1, "CUDA_MEMCPY_KIND_HTOD", "Host-to-Device"),
                (2, "CUDA_MEMCPY_KIND_DTOH", "Device-to-Host"), (8, "CUDA_MEMCPY_KIND_DTOD", "Device-to-Device"),
                (10, "CUDA_MEMCPY_KIND_PTOP", "Peer-to-Peer")]

OPS = ["attn.qkv", "attn.sdpa", "attn.out", "mlp.up_gate", "mlp.down", "norm.rms"]
KERNELS = [
    "void gemm_bf16_tn<128, 64, 4>(const __nv_bfloat16 *, const __nv_bfloat16 *, __nv_bfloat16 *, int, int, int)",
    "flash_fwd_kernel",
    "void rms_norm_kernel<float>(float *, const float *, int)",
    "silu_mul(float *, const float *, int)",
    "ampere_sgemm_128x64_tn",
    "softmax \"fused\" kernel",
    "elementwise_add",
]
# --regular: (name, --variant name, base ns)
KERNELS_REGULAR = [
    ("nvjet_sm90_tst_64x8_64x16_4x1_v_bz_TNT", "nvjet_sm90_tst_128x8_64x8_2x1_v_bz_TNT", 30000),
    ("sm80_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize64x64x64_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     "sm90_xmma_gemm_bf16bf16_bf16f32_f32_tn_n_tilesize128x64x64_stage4_warpsize2x2x1_tensor16x8x16_kernel",
     24000),
    ("void k_rmsnorm<__nv_bfloat16>(__nv_bfloat16 *, const __nv_bfloat16 *, int)", None, 6000),
    ("void k_flash_decode<__nv_bfloat16, 64>(__nv_bfloat16 *, const __nv_bfloat16 *, int)", None, 18000),
    ("silu_mul(float *, const float *, int)", None, 8000),
    ("elementwise_add", None, 4000),
]


class Gen:
    def __init__(self, seed):
        self.rng = random.Random(seed)
        self.strings = {}
        self.corr = 0
        self.nvtx, self.rt, self.kern, self.mcpy, self.mset = [], [], [], [], []

    def sid(self, s):
        if s not in self.strings:
            self.strings[s] = len(self.strings) + 1
        return self.strings[s]

    def next_corr(self):
        self.corr += 1
        return self.corr


def gtid(pid, tid):
    return (1 << 48) | (pid << 24) | tid


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("out")
    ap.add_argument("--kernels", type=int, default=1000)
    ap.add_argument("--threads", type=int, default=2)
    ap.add_argument("--processes", type=int, default=1)
    ap.add_argument("--gpus", type=int, default=1)
    ap.add_argument("--kernels-per-op", type=int, default=8)
    ap.add_argument("--steps", type=int, default=16, help="decode steps per iteration")
    ap.add_argument("--edge", action="store_true")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--regular", action="store_true")
    ap.add_argument("--jitter", type=float, default=0.0, help="--regular: relative noise, %%")
    ap.add_argument("--slow", default=None, help="--regular: NAME:PCT")
    ap.add_argument("--variant", action="store_true")
    ap.add_argument("--nested", type=int, default=0,
                    help="one thread, N push/pop ranges nested in each other, one kernel "
                    "launched at every level (NVTX nesting depth N)")
    ap.add_argument("--names", type=int, default=0,
                    help="N distinct kernel names: kernel i is named after a base kernel "
                    "with the suffix _k<i %% N> (the memory that follows distinct names)")
    ap.add_argument("--ties", action="store_true",
                    help="a tiny file whose report rows tie, to pin nsys's tie order")
    a = ap.parse_args()
    if a.ties:
        write_ties(a.out)
        return
    if a.nested:
        write_nested(a.out, a.nested)
        return

    g = Gen(a.seed)
    r = g.rng
    launch = g.sid("cudaLaunchKernel_v7000")
    graph_launch = g.sid("cudaGraphLaunch_v10000")
    memcpy_api = g.sid("cudaMemcpyAsync_v3020")
    memset_api = g.sid("cudaMemsetAsync_v3020")
    sync_api = g.sid("cudaStreamSynchronize_v3020")
    if a.regular:
        regular = [(v if a.variant and v else k, base) for k, v, base in KERNELS_REGULAR]
        slow_name, slow_pct = (a.slow.split(":") if a.slow else ("", "0"))
        kbase = [base * (1 + float(slow_pct) / 100 if slow_name and slow_name in k else 1)
                 for k, base in regular]
        KERNELS[:] = [k for k, _ in regular]
    knames = [(g.sid(k), g.sid(k.split("(")[0].split("<")[0].replace("void ", ""))) for k in KERNELS]
    reg_graph = g.sid("graph_replay")  # registered string (textId)
    sid_name = {v: k for k, v in g.strings.items()}
    nth = [0]

    def distinct_name(kn):
        """The next of --names distinct names, made from base name kn."""
        i = nth[0] % a.names
        nth[0] += 1
        full, short = sid_name[kn[0]], sid_name[kn[1]]
        cut = min([c for c in (full.find("<"), full.find("(")) if c >= 0] or [len(full)])
        sfx = "_k%d" % i
        return (g.sid(full[:cut] + sfx + full[cut:]), g.sid(short + sfx))

    threads = [(p, t) for p in range(a.processes) for t in range(a.threads)]
    per_thread = max(1, a.kernels // len(threads))
    # the GPU side: one clock per (gpu, stream)
    stream_free = {}

    for p in range(a.processes):
        pid = 1000 + p
        # domain "LLM" created before the session starts (negative start)
        g.nvtx.append((-1000 - p, None, 75, None, None, None, "LLM", gtid(pid, pid), None, None, 1))

    def range_row(start, end, text, tid, domain=1, style=59, text_id=None, end_tid=None):
        g.nvtx.append((start, end, style, None, None, None, None if text_id else text, tid,
                       end_tid, text_id, domain))

    def launch_kernels(t, tid_g, gpid, dev, n, stream, op_i=0):
        """CPU launches n kernels starting at t; returns the CPU time after."""
        for j in range(n):
            c = g.next_corr()
            d = r.randint(2000, 6000)
            g.rt.append((t, t + d, 1, tid_g, c, launch, 0, None))
            key = (dev, stream)
            ks = max(t + d + r.randint(500, 3000), stream_free.get(key, 0) + r.randint(0, 2000))
            if a.regular:
                ki = (op_i * n + j) % len(knames)
                kd = max(1, round(kbase[ki] * (1 + r.gauss(0, a.jitter / 100))))
                kn = knames[ki]
            else:
                kd = r.randint(1000, 200000)
                kn = knames[r.randrange(len(knames))]
                if a.names:
                    kn = distinct_name(kn)
            g.kern.append((ks, ks + kd, dev, 1, stream, c, gpid, kn[0], kn[1], None, 0, 0, 32,
                           r.choice([1, 2, 64, 132]), 1, 1, 128, 1, 1, 0, 0, 0, 0, c, 0, None, 0))
            stream_free[key] = ks + kd
            t += d + r.randint(200, 1500)
        return t

    for (p, tix) in threads:
        pid = 1000 + p
        tid = pid + tix
        tid_g = gtid(pid, tid)
        gpid = gtid(pid, 0)
        dev = (p + tix) % a.gpus
        stream = 7 + tix * 2
        t = 1_000_000 + tix * 1000
        done = 0
        while done < per_thread:
            # prefill: one op range per OPS entry
            p0 = t
            t += r.randint(1000, 5000)
            for op_i, op in enumerate(OPS):
                o0 = t
                t = launch_kernels(t + 300, tid_g, gpid, dev, a.kernels_per_op, stream, op_i)
                done += a.kernels_per_op
                range_row(o0, t, op, tid_g)
                t += r.randint(100, 900)
            range_row(p0, t, "prefill", tid_g)
            d0 = t
            for s in range(a.steps):
                s0 = t
                t += 500
                for op_i, op in enumerate(OPS[:4]):
                    o0 = t
                    t = launch_kernels(t + 300, tid_g, gpid, dev, a.kernels_per_op, stream, op_i)
                    done += a.kernels_per_op
                    range_row(o0, t, op, tid_g)
                # every step waits for the GPU: idle gaps on the GPU
                t = max(t, stream_free.get((dev, stream), 0)) + r.randint(5000, 20000)
                range_row(s0, t, "decode_step", tid_g)
                if done >= per_thread:
                    break
            range_row(d0, t, "decode_all", tid_g)
            t += r.randint(10000, 50000)

    if a.edge:
        p0 = threads[0]
        pid = 1000 + p0[0]
        t0 = gtid(pid, pid)
        gpid = gtid(pid, 0)
        t = max(x[1] for x in g.rt) + 100000
        # start/end range begun here, ended on another thread: nsys drops it
        # from the projection; a same-thread start/end range is kept
        range_row(t, t + 400000, "async_request", t0, domain=0, style=60,
                  end_tid=gtid(pid, pid + 1))
        range_row(t, t + 400000, "request, \"quoted\"", t0, domain=0, style=60)
        # CUDA graph: one launch, four kernels sharing its correlationId
        c = g.next_corr()
        g.rt.append((t + 1000, t + 9000, 1, t0, c, graph_launch, 0, None))
        ks = t + 20000
        for n in range(4):
            kn = knames[n]
            g.kern.append((ks, ks + 5000, 0, 1, 9, c, gpid, kn[0], kn[1], None, 0, 0, 32, 8, 1, 1,
                           256, 1, 1, 0, 0, 0, 0, c * 10 + n, 0, 100 + n, 0))
            ks += 6000
        range_row(t + 500, t + 10000, "graph_replay", t0, domain=0, text_id=reg_graph)
        # overlapping streams inside one range, plus memcpy and memset
        s0 = t + 100000
        c1, c2, c3, c4 = (g.next_corr() for _ in range(4))
        g.rt.append((s0 + 100, s0 + 900, 1, t0, c1, launch, 0, None))
        g.rt.append((s0 + 1000, s0 + 1900, 1, t0, c2, launch, 0, None))
        g.rt.append((s0 + 2000, s0 + 2900, 1, t0, c3, memcpy_api, 0, None))
        g.rt.append((s0 + 3000, s0 + 3900, 1, t0, c4, memset_api, 0, None))
        g.kern.append((s0 + 5000, s0 + 50000, 0, 1, 20, c1, gpid, knames[0][0], knames[0][1], None,
                       0, 0, 32, 8, 1, 1, 256, 1, 1, 0, 0, 0, 0, c1, 0, None, 0))
        g.kern.append((s0 + 6000, s0 + 30000, 0, 1, 21, c2, gpid, knames[1][0], knames[1][1], None,
                       0, 0, 32, 8, 1, 1, 256, 1, 1, 0, 0, 0, 0, c2, 0, None, 0))
        g.mcpy.append((s0 + 60000, s0 + 61000, 0, 1, 20, c3, gpid, 1 << 20, 1, None, 1, 2, 0, 1, 0, 1,
                       None, None, None))
        g.mset.append((s0 + 62000, s0 + 62500, 0, 1, 20, c4, gpid, 0, 4096, None, 2))
        range_row(s0, s0 + 4000, "two_streams", t0, domain=0)
        range_row(s0 + 50, s0 + 3950, "two_streams", t0, domain=0)  # nested, same name
        # a kernel outside every range, and one whose launch call is missing
        c5 = g.next_corr()
        g.rt.append((s0 + 200000, s0 + 201000, 1, t0, c5, launch, 0, None))
        g.kern.append((s0 + 210000, s0 + 215000, 0, 1, 7, c5, gpid, knames[2][0], knames[2][1], None,
                       0, 0, 32, 8, 1, 1, 256, 1, 1, 0, 0, 0, 0, c5, 0, None, 0))
        g.kern.append((s0 + 220000, s0 + 223000, 0, 1, 7, 999999999, gpid, knames[3][0], knames[3][1],
                       None, 0, 0, 32, 8, 1, 1, 256, 1, 1, 0, 0, 0, 0, 1, 0, None, 0))
        g.rt.append((s0 + 300000, s0 + 300500, 1, t0, g.next_corr(), sync_api, 0, None))
        # a push/pop range never popped (end NULL) around a last launch
        c6 = g.next_corr()
        g.rt.append((s0 + 400000, s0 + 401000, 1, t0, c6, launch, 0, None))
        g.kern.append((s0 + 402000, s0 + 404000, 0, 1, 7, c6, gpid, knames[4][0], knames[4][1], None,
                       0, 0, 32, 8, 1, 1, 256, 1, 1, 0, 0, 0, 0, c6, 0, None, 0))
        range_row(s0 + 399000, None, "never_popped", t0, domain=0)
        # a mark (eventType 34) after everything: nvtx_sum closes open ranges here
        g.nvtx.append((s0 + 900000, None, 34, None, None, None, "mark", t0, None, None, 0))

    if os.path.exists(a.out):
        os.remove(a.out)
    db = sqlite3.connect(a.out)
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", [(i, s) for s, i in g.strings.items()])
    db.executemany("INSERT INTO ENUM_CUDA_MEMCPY_OPER VALUES (?, ?, ?)", MEMCPY_KINDS)
    db.executemany("INSERT INTO META_DATA_EXPORT VALUES (?, ?)", [
        ("EXPORT_PRODUCT_NAME", "llmprof bench/gen-nsys-trace.py"),
        ("EXPORT_SCHEMA_VERSION", "3.7.2")])
    db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, rangeId, category, color, text, "
                   "globalTid, endGlobalTid, textId, domainId) VALUES (?,?,?,?,?,?,?,?,?,?,?)", g.nvtx)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", g.rt)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + ",".join("?" * 27) + ")", g.kern)
    if g.mcpy:
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMCPY VALUES (" + ",".join("?" * 19) + ")", g.mcpy)
    else:
        db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY")  # nsys leaves empty tables out
    if g.mset:
        db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_MEMSET VALUES (" + ",".join("?" * 11) + ")", g.mset)
    else:
        db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET")
    db.commit()
    db.close()
    ranges = sum(1 for e in g.nvtx if e[2] in (59, 60))
    print(f"{a.out}: {len(g.kern)} kernels, {ranges} NVTX ranges, {len(g.rt)} API calls, "
          f"{len(threads)} threads")


def write_nested(out, depth):
    """depth push/pop ranges, each inside the previous one, on one thread; at
    every level a launch call (its kernel on the GPU) before the next range
    opens: range i holds depth - i kernels."""
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(SCHEMA)
    db.executemany("INSERT INTO StringIds VALUES (?, ?)",
                   [(1, "cudaLaunchKernel_v7000"), (2, "nested_kernel")])
    t, p = gtid(10, 10), gtid(10, 0)
    end = 10 * depth + 10
    nvtx, rt, kern = [], [], []
    for i in range(depth):
        s = 10 * i
        nvtx.append((s, 2 * end - s, 59, "level_%d" % (i % 8), t, None, 0))
        rt.append((s + 1, s + 3, 1, t, i + 1, 1, 0, None))
        kern.append((end + 4 * i, end + 4 * i + 3, 0, 1, 7, i + 1, p, 2, 2, None, 0, 0, 32, 1, 1, 1,
                     1, 1, 1, 0, 0, 0, 0, i + 1, 0, None, 0))
    db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) "
                   "VALUES (?,?,?,?,?,?,?)", nvtx)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", rt)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + ",".join("?" * 27) + ")", kern)
    db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY")
    db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET")
    db.commit()
    db.close()
    print(f"{out}: {depth} kernels, {depth} NVTX ranges nested {depth} deep, {depth} API calls, 1 thread")


def write_ties(out):
    """Rows with equal sort keys: nsys keeps SQLite's GROUP BY order (StringIds id
    for cuda_api_sum, the name for the others)."""
    if os.path.exists(out):
        os.remove(out)
    db = sqlite3.connect(out)
    db.executescript(SCHEMA)
    strs = {1: "zeta_v1000x", 2: "cudaMalloc_v3020", 3: "alpha", 4: "cudaFree_v3020", 5: "k_b", 6: "k_a"}
    db.executemany("INSERT INTO StringIds VALUES (?, ?)", strs.items())
    t, p = gtid(10, 10), gtid(10, 0)
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_RUNTIME VALUES (?,?,?,?,?,?,?,?)", [
        (0, 100, 1, t, 1, 2, 0, None), (200, 300, 1, t, 2, 4, 0, None), (400, 450, 1, t, 3, 1, 0, None),
        (500, 550, 1, t, 4, 3, 0, None), (600, 610, 1, t, 5, 2, 0, None), (700, 710, 1, t, 6, 4, 0, None)])
    db.executemany("INSERT INTO NVTX_EVENTS (start, end, eventType, text, globalTid, textId, domainId) "
                   "VALUES (?,?,?,?,?,?,?)", [
                       (0, 100, 59, "zz", t, None, 0), (200, 300, 59, "aa", t, None, 0),
                       (400, 500, 60, "aa", t, None, 0), (600, 700, 59, None, t, 3, 0)])
    db.executemany("INSERT INTO CUPTI_ACTIVITY_KIND_KERNEL VALUES (" + ",".join("?" * 27) + ")", [
        (s, e, 0, 1, 7, c, p, n, n, None, 0, 0, 32, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0, c, 0, None, 0)
        for (s, e, c, n) in [(1000, 1100, 1, 5), (1200, 1300, 2, 6), (1400, 1450, 3, 6), (1500, 1550, 4, 5)]])
    db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_MEMCPY")
    db.execute("DROP TABLE CUPTI_ACTIVITY_KIND_MEMSET")
    db.commit()
    db.close()


if __name__ == "__main__":
    main()
