"""Diagnostics of CUDA-graph node records in a builtin-tracer trace.sqlite:
what LLMPROF_GRAPH_NODES holds, whether replayed kernels' graphNodeIds are
found there (as clones or as the nodes made), and which NVTX ranges were open
on the making thread when nodes were made. For GPU runs; not part of llmprof.
Usage: python3 graph-nodes-diag.py TRACE.sqlite"""
import sqlite3
import sys

db = sqlite3.connect(sys.argv[1])
q = lambda s: db.execute(s).fetchall()
print("graph node rows by type, clone or made:",
      q("select nodeType, originalNodeId is not null, count(*), count(distinct globalTid), "
        "min(timestamp), max(timestamp) from LLMPROF_GRAPH_NODES group by 1, 2"))
print("graph kernels:", q("select count(*), count(distinct graphNodeId) from "
                          "CUPTI_ACTIVITY_KIND_KERNEL where graphNodeId is not null"))
print("kernel node ids found as nodeId:", q(
    "select count(*) from CUPTI_ACTIVITY_KIND_KERNEL k where graphNodeId is not null and "
    "exists (select 1 from LLMPROF_GRAPH_NODES g where g.nodeId = k.graphNodeId)"))
print("... as a clone's nodeId:", q(
    "select count(*) from CUPTI_ACTIVITY_KIND_KERNEL k where graphNodeId is not null and "
    "exists (select 1 from LLMPROF_GRAPH_NODES g where g.nodeId = k.graphNodeId and "
    "g.originalNodeId is not null)"))
print("... as an originalNodeId:", q(
    "select count(*) from CUPTI_ACTIVITY_KIND_KERNEL k where graphNodeId is not null and "
    "exists (select 1 from LLMPROF_GRAPH_NODES g where g.originalNodeId = k.graphNodeId)"))
print("sample kernel graphNodeIds:", q("select distinct graphNodeId from CUPTI_ACTIVITY_KIND_KERNEL "
                                       "where graphNodeId is not null limit 5"))
print("sample nodes:", q("select globalTid, timestamp, nodeId, originalNodeId, graphId, nodeType "
                         "from LLMPROF_GRAPH_NODES order by timestamp limit 8"))
made = q("select globalTid, timestamp from LLMPROF_GRAPH_NODES where originalNodeId is null "
         "order by timestamp")
if made:
    tid, t0 = made[0]
    t1 = made[-1][1]
    print("made nodes span %.3f ms on globalTid %d (%d nodes)" % ((t1 - t0) / 1e6, tid, len(made)))
    rows = q("select e.start, e.end, coalesce(e.text, s.value), e.globalTid from NVTX_EVENTS e "
             "left join StringIds s on s.id = e.textId where e.eventType in (59, 60) and "
             "e.start <= %d and (e.end is null or e.end >= %d) order by e.start" % (t1, t0))
    print("NVTX ranges overlapping that span:")
    for st, en, name, g in rows[:40]:
        print("  %s tid %s  %+.3f .. %s ms" % (name, g, (st - t0) / 1e6,
              "open" if en is None else "%+.3f" % ((en - t0) / 1e6)))
    for tid_, ts in made[:5]:
        inside = q("select coalesce(e.text, s.value) from NVTX_EVENTS e left join StringIds s "
                   "on s.id = e.textId where e.globalTid = %d and e.start <= %d and "
                   "(e.end is null or e.end > %d) order by e.start" % (tid_, ts, ts))
        print("  node at %+.3f ms: open on its thread: %s" % ((ts - t0) / 1e6, [r[0] for r in inside]))
    apis = q("select count(*), min(start), max(end) from CUPTI_ACTIVITY_KIND_RUNTIME where "
             "start <= %d and end >= %d" % (t1, t0))
    print("runtime API calls during the span:", apis)
