"""tracer_cost: what each part of the builtin tracer costs, in one GPU call.
Driven by bench/tracer/tracer-cost.sh (which builds the binaries); see there
for usage. Standard library only, except the Python programs (torch,
transformers), which run in children.

Programs (each prints its own timings; the tracer is chosen per process):
  sim     bench/tracer/decode_sim (CUDA C): a decode step of K small kernels,
          replayed as a CUDA graph ("graph") and launched eagerly ("eager"),
          a 4-byte copy in and out and a sync per step, CUDA events.
  py      (in this file) a transformers Llama of the Llama-3.2-1B shape with
          random weights, eager decode ("eager", as bench/tracer/decode_loop.py),
          and a Llama-shaped decode step of the same size captured with
          torch.cuda.graph and replayed with a token read back per step
          ("graph"), CUDA events. Children fork from this process after it
          has imported torch and transformers (no CUDA yet), so each costs no
          imports; when that is not possible they are started afresh.

Variants: untraced; CUPTI's floor (bench/tracer/cupti_floor.c: kernel
activity only, records counted and dropped; also with CUPTI zeroing its own
buffers); the builtin tracer as llmprof runs it; and the builtin with one
part removed or swapped (environment switches, LLMPROF_TRACE_BENCH included:
src/trace/tracer_env.h). Each round of a program runs each of its variants
once, each in a process of its own, starting at a rotating position; rounds
repeat while the time budget allows. sim's rounds all come first, so the
Python program (heavier, and the one that can fail) never costs it a round.
Every traced log of the first round is read back and checked (kernel counts
against the program's own totals, TLOG_END, drops, errors; under "discard"
no record but the counts).

Output in OUT: env.txt, raw.csv (one row per program, mode, variant, round),
checks.txt, summary.txt and summary.json (rewritten after every round),
runs.log (what each run printed on stderr, cut).
"""
import collections
import csv
import ctypes
import json
import os
import re
import select
import shutil
import signal
import statistics
import struct
import sys
import time
import traceback

INJECT_VARS = ("CUDA_INJECTION64_PATH", "NVTX_INJECTION64_PATH")

# name -> (library: none | floor | builtin, NVTX injection, environment)
VARIANTS = {
    "untraced": ("none", False, {}),
    # untraced with every thread on all the pinned CPUs even under
    # --main-cpu: what placing the launching thread changes, and its spread
    "untraced_shared": ("none", False, {"TC_SHARED": "1"}),
    "floor": ("floor", False, {}),
    "floor_cupti_zeroes": ("floor", False, {"CUPTI_FLOOR_ZEROED": "0"}),
    # the floor plus CUPTI's launch records (what NVTX attribution needs)
    "floor_launch": ("floor", False, {"CUPTI_FLOOR_LAUNCH": "1"}),
    "builtin": ("builtin", True, {}),
    # the defaults before the kernel-name cache (every record's name hashed)
    "builtin_old": ("builtin", True, {"LLMPROF_TRACE_BENCH": "name-hash"}),
    "no_launch_records": ("builtin", True, {"LLMPROF_TRACE_API": "none"}),
    "no_driver_records": ("builtin", True, {"LLMPROF_TRACE_BENCH": "api-runtime"}),
    "no_memops": ("builtin", True, {"LLMPROF_TRACE_MEMOPS": "0"}),
    "no_nvtx": ("builtin", False, {}),
    "no_graph_nodes": ("builtin", True, {"LLMPROF_TRACE_GRAPH_NODES": "0"}),
    "no_subscriber": ("builtin", True, {"LLMPROF_TRACE_BENCH": "no-subscribe"}),
    "cupti_thread_ids": ("builtin", True, {"LLMPROF_TRACE_BENCH": "tid-default"}),
    "no_convert": ("builtin", True, {"LLMPROF_TRACE_BENCH": "discard"}),
    "no_flush_thread": ("builtin", True, {"LLMPROF_TRACE_LOG_FLUSH_MS": "0"}),
    "no_pool": ("builtin", True, {"LLMPROF_TRACE_CUPTI_POOL": "0"}),
    "no_per_thread_bufs": ("builtin", True, {"LLMPROF_TRACE_PER_THREAD_BUFFERS": "0"}),
    "serial_kernels": ("builtin", True, {"LLMPROF_TRACE_BENCH": "kernel-serial"}),
    "graph_level": ("builtin", True, {"LLMPROF_TRACE_BENCH": "graph-level"}),
    "overhead_records": ("builtin", True, {"LLMPROF_TRACE_BENCH": "overhead"}),
    "minimal": ("builtin", False, {
        "LLMPROF_TRACE_API": "none", "LLMPROF_TRACE_MEMOPS": "0",
        "LLMPROF_TRACE_GRAPH_NODES": "0", "LLMPROF_TRACE_LOG_FLUSH_MS": "0",
        "LLMPROF_TRACE_BENCH": "no-subscribe,discard,no-device"}),
}
SIM_VARIANTS = list(VARIANTS)
PY_VARIANTS = ["untraced", "floor", "builtin", "no_launch_records", "no_memops", "no_nvtx",
               "no_convert", "minimal"]

# log format (src/trace/tracelog.h)
CHUNK_MAGIC = 0x4B4E4843
T_DIAG, T_END, T_API, T_API_ACT, T_KERNEL, T_MEMCPY, T_MEMSET, T_DROPPED, T_GRAPH_NODE = (
    2, 6, 20, 23, 30, 32, 33, 35, 40)
T_KERNEL_NAME = 31
KERNEL_NAME_ID_OFF = 104  # offsetof(struct tlog_kernel, name_id)


class Bench:
    def __init__(self, a):
        self.a = a
        self.out = a.out
        self.t0 = a.t0 or time.time()
        self.failures = 0
        self.rows = []  # dicts, as in raw.csv
        self.fork_ok = False
        self.logs = os.path.join(a.tmp, "logs")
        os.makedirs(self.logs, exist_ok=True)
        self.runs_log = open(os.path.join(self.out, "runs.log"), "a")
        self.checks = open(os.path.join(self.out, "checks.txt"), "a")
        self.expect = {}  # (program, round) -> builtin kernel count, for py
        self.by_name = {}  # (program, round, variant) -> kernels per mangled name
        self.failed_in_row = {"sim": 0, "py": 0}

    # ---- bookkeeping ----
    def elapsed(self):
        return time.time() - self.t0

    def note(self, line, fail=False):
        if fail:
            self.failures += 1
            line = "FAIL: " + line
        print(line, flush=True)
        self.checks.write(line + "\n")
        self.checks.flush()

    def env_for(self, variant, logdir):
        lib, nvtx, extra = VARIANTS[variant]
        env = {k: v for k, v in os.environ.items()
               if k not in INJECT_VARS and not k.startswith("LLMPROF_TRACE") and
               not k.startswith("CUPTI_FLOOR") and k != "TC_MAIN_CPU"}
        if lib == "floor":
            env["CUDA_INJECTION64_PATH"] = os.path.join(self.a.bin, "libcupti_floor.so")
            env["CUPTI_FLOOR_OUT"] = os.path.join(logdir, "floor-count")
        elif lib == "builtin":
            so = os.path.join(self.a.bin, "libllmprof_tracer.so")
            env["CUDA_INJECTION64_PATH"] = so
            if nvtx:
                env["NVTX_INJECTION64_PATH"] = so
            env["LLMPROF_TRACE_OUT"] = logdir
        env.update(extra)
        if lib == "builtin":  # the tracer's counts at exit; switches nothing off
            env["LLMPROF_TRACE_BENCH"] = ",".join(filter(None, (extra.get("LLMPROF_TRACE_BENCH"),
                                                                 "stats")))
        return env

    # ---- one run ----
    def run(self, prog, variant, rnd):
        logdir = os.path.join(self.logs, "%s-%s-%d" % (prog, variant, rnd))
        os.makedirs(logdir, exist_ok=True)
        env = self.env_for(variant, logdir)
        hard = self.t0 + self.a.budget_s + self.a.grace_s - time.time()
        timeout = min(self.a.timeout_s if prog == "py" else 60, max(hard, 5))
        cpus = self.a.pin
        if self.a.main_cpu is not None and "TC_SHARED" not in VARIANTS[variant][2]:
            # the program moves its launching thread there
            cpus = self.a.others
            env["TC_MAIN_CPU"] = str(self.a.main_cpu)
        steal0 = steal_ms(self.a.steal_cpus)
        t = time.time()
        if prog == "sim":
            cmd = [os.path.join(self.a.bin, "decode_sim")] + self.a.sim_args.split()
            rc, stdout, stderr, cpu = spawn(cmd, env, timeout, cpus)
        elif self.fork_ok:
            rc, stdout, stderr, cpu = fork_child(env, self.a.py_args, timeout, cpus)
        else:
            cmd = [sys.executable, os.path.abspath(__file__), "py-child", self.a.py_args]
            rc, stdout, stderr, cpu = spawn(cmd, env, timeout, cpus)
        wall = time.time() - t
        steal = steal_ms(self.a.steal_cpus) - steal0
        self.runs_log.write("== %s %s round %d: rc %s, %.1f s\n%s\n%s\n" % (
            prog, variant, rnd, rc, wall, stdout[-1500:], stderr[-3000:]))
        self.runs_log.flush()
        results = parse_lines(stdout, prog)
        modes = [m for m in results if m not in ("totals", "phases", "setup")]
        setup = [ln for ln in stdout.splitlines() if ln.startswith("pydecode setup")]
        if setup and not getattr(self, "setup_noted", False):
            self.setup_noted = True
            self.note("py child: " + setup[0][len("pydecode "):])
        if rc != 0 or not modes:
            self.note("%s %s round %d: rc %s, %d timed modes (runs.log)" % (
                prog, variant, rnd, rc, len(modes)), fail=True)
        for m in modes if rnd else ():  # round 0 warms caches up: not kept
            r = results[m]
            self.rows.append({"program": prog, "mode": m, "variant": variant, "round": rnd,
                              "ms_median": r.get("ms_median"), "ms_min": r.get("ms_min"),
                              "main_cpu_ms": r.get("main_cpu_ms"),
                              "proc_cpu_ms": r.get("proc_cpu_ms"),
                              "calib_ms": r.get("calib_ms"),
                              "kernels": (r["kernels_per_step"] * r["steps"]
                                          if "kernels_per_step" in r and "steps" in r else None),
                              "process_cpu_s": round(cpu, 3), "process_wall_s": round(wall, 2),
                              "steal_ms": round(steal, 1), "rc": rc})
        print("%5.0fs  %-3s round %d  %-20s %s" % (self.elapsed(), prog, rnd, variant, "  ".join(
            "%s %.3f ms" % (m, results[m].get("ms_median", float("nan"))) for m in modes)),
            flush=True)
        if rc == 0 and modes:
            try:
                self.check(prog, variant, rnd, logdir, results)
            except Exception as e:  # a log this script cannot read fails the run, no more
                self.note("%s %s round %d: the check failed: %r" % (prog, variant, rnd, e),
                          fail=True)
        shutil.rmtree(logdir, ignore_errors=True)
        return rc == 0 and bool(modes)

    # ---- what a traced run left ----
    def check(self, prog, variant, rnd, logdir, results):
        lib, _, extra = VARIANTS[variant]
        tot = results.get("totals", {})
        if lib == "floor":
            try:
                line = open(os.path.join(logdir, "floor-count")).read().strip()
            except OSError:
                line = ""
            f = dict(zip(line.split()[::2], line.split()[1::2]))
            ok = (f.get("dropped") == "0" and "kernels" in f and
                  (prog != "sim" or tot.get("kernels") == float(f["kernels"])) and
                  ("CUPTI_FLOOR_LAUNCH" not in extra or int(f.get("api", 0)) > 0))
            self.note("%s %s round %d: floor saw '%s' (program: %s kernels)" % (
                prog, variant, rnd, line or "nothing", tot.get("kernels", "?")), fail=not ok)
            return
        if lib != "builtin" or (rnd > 1 and not self.a.check_all):
            return
        logs = [os.path.join(logdir, f) for f in os.listdir(logdir) if f.endswith(".bin")]
        if len(logs) != 1:
            self.note("%s %s round %d: %d trace logs" % (prog, variant, rnd, len(logs)), fail=True)
            return
        c = read_log(logs[0])
        bench = extra.get("LLMPROF_TRACE_BENCH", "")
        kernels = c["kernels"]
        if "discard" in bench:
            kernels = c["bench_kernels"]
        msg = ("%s %s round %d: kernels %s memcpy %d memset %d launch records %d graph nodes %d "
               "dropped %d errors %d end %s log %.1f MB" % (
                   prog, variant, rnd, kernels, c["memcpy"], c["memset"], c["api"],
                   c["graph_nodes"], c["dropped"], len(c["errors"]), c["end"], c["bytes"] / 1e6))
        if "cupti_buffers" in c:
            msg += " cupti buffers %d completed in %.1f ms" % (c["cupti_buffers"], c["convert_ms"])
        if "buffers_where" in c:
            msg += (" (%d completed on the launching thread; %d requested, %d there, %d not "
                    "from the pool)" % c["buffers_where"])
        if c.get("overhead") not in (None, "none"):
            msg += " cupti overhead records: %s" % c["overhead"]
        if c["warnings"]:
            msg += " warnings: %s" % " | ".join(c["warnings"][:3])
        bad = []
        if not c["end"]:
            bad.append("no TLOG_END")
        if c["dropped"] or c["errors"] or c["problems"]:
            bad.append("drops, errors or damage: %s" % (c["errors"] + c["problems"])[:3])
        want = tot.get("kernels")
        if "graph-level" in bench:
            # informative: which records CUPTI gives for replays then
            msg += " graph records %d (program: %s kernels, %s graph launches)" % (
                c["bench_graphs"], want, tot.get("graph_launches"))
        elif prog == "sim" and want is not None and kernels != want:
            bad.append("want %d kernels" % want)
        if prog == "py" and "graph-level" not in bench:
            seen = self.expect.setdefault(("py", rnd), kernels)
            if kernels != seen:
                msg += " (other py variants of this round: %s)" % seen
        if variant in ("builtin", "builtin_old"):
            # the name cache changes no kernel's name: the same kernels per
            # mangled name under both (the program is deterministic)
            other = self.by_name.get((prog, rnd, "builtin_old" if variant == "builtin"
                                      else "builtin"))
            self.by_name[(prog, rnd, variant)] = c["by_name"]
            if other is not None:
                if other != c["by_name"]:
                    diff = sorted(set(other) ^ set(c["by_name"]))[:3] or [
                        n for n in other if other[n] != c["by_name"][n]][:3]
                    why = "kernels per name differ from the other builtin variant's: %s" % diff
                    if prog == "sim":
                        bad.append(why)
                    else:  # a library's own choice of kernels may differ run to run
                        msg += " (NOTE: %s)" % why
                else:
                    msg += " (kernels per name as builtin%s: %d names)" % (
                        "_old" if variant == "builtin" else "", len(other))
        if "discard" in bench:
            # records counted, not converted: only kernel counts reach the log
            if c["api"] or c["memcpy"] or c["memset"] or c["kernels"]:
                bad.append("records written although discarded")
        elif VARIANTS[variant][2].get("LLMPROF_TRACE_API") == "none":
            if c["api"]:
                bad.append("launch records with LLMPROF_TRACE_API=none")
        elif not c["api"]:
            bad.append("no launch records")
        self.note(msg + ("; " + "; ".join(bad) if bad else ""), fail=bool(bad))

    # ---- rounds ----
    def rounds(self):
        """sim's rounds first, then py's: nothing the Python program does (a
        crash, a hang up to its timeout, its import time) can cost the C
        program its rounds. Each program interleaves its own variants."""
        for prog in ("sim", "py"):
            if not getattr(self.a, prog + "_variants"):
                continue
            try:
                self.prog_rounds(prog)
            except Exception as e:
                self.note("%s: stopped by %r" % (prog, e), fail=True)
                traceback.print_exc()
            self.write_summary()

    def prog_rounds(self, prog):
        vs = getattr(self.a, prog + "_variants")
        # sim may stop early (--sim-budget-s), leaving py its rounds
        budget = min(self.a.budget_s, self.a.sim_budget_s or self.a.budget_s) \
            if prog == "sim" else self.a.budget_s
        ok = self.run(prog, "untraced", 0)  # cold caches (libraries, kernels) stay out of round 1
        if prog == "py" and self.fork_ok and not ok:
            self.note("py: a forked child failed; starting children afresh from now on")
            self.fork_ok = False
        last = 0.0
        for rnd in range(1, self.a.rounds + 1):
            if self.elapsed() + last > budget:
                self.note("%s: stopped after %d of %d rounds: a round takes %.0f s, %.0f s of "
                          "the %d s budget left" % (prog, rnd - 1, self.a.rounds, last,
                                                     budget - self.elapsed(), budget))
                return
            t = time.time()
            for i in range(len(vs)):
                if self.elapsed() > self.a.budget_s + self.a.grace_s:
                    self.note("%s: out of time in round %d" % (prog, rnd), fail=True)
                    return
                if self.failed_in_row[prog] >= 3:
                    self.note("%s: 3 runs in a row failed: its other runs skipped" % prog,
                              fail=True)
                    return
                ok = self.run(prog, vs[(i + rnd - 1) % len(vs)], rnd)
                self.failed_in_row[prog] = 0 if ok else self.failed_in_row[prog] + 1
            last = time.time() - t
            self.write_summary()

    def write_summary(self):
        with open(os.path.join(self.out, "raw.csv"), "w", newline="") as f:
            cols = ["program", "mode", "variant", "round", "ms_median", "ms_min", "main_cpu_ms",
                    "proc_cpu_ms", "calib_ms", "kernels", "process_cpu_s", "process_wall_s",
                    "steal_ms", "rc"]
            w = csv.DictWriter(f, fieldnames=cols)
            w.writeheader()
            for r in self.rows:
                w.writerow(r)
        text, js = summarize(self.rows)
        head = "tracer cost: %s, %.0f s, %d failure(s)\n" % (
            time.strftime("%Y-%m-%d %H:%M:%S UTC", time.gmtime()), self.elapsed(), self.failures)
        with open(os.path.join(self.out, "summary.txt"), "w") as f:
            f.write(head + text)
        with open(os.path.join(self.out, "summary.json"), "w") as f:
            json.dump({"failures": self.failures, "elapsed_s": round(self.elapsed()), "tables": js},
                      f, indent=1)


def quartiles(xs):
    """(p25, median, p75) of xs (inclusive method), None when empty."""
    xs = sorted(x for x in xs if x is not None)
    if not xs:
        return None
    if len(xs) == 1:
        return (xs[0],) * 3
    q = statistics.quantiles(xs, n=4, method="inclusive")
    return (q[0], q[1], q[2])


# The targets (docs/tracer.md "CUPTI's floor and the targets"): ratio to
# untraced, or within this much of the floor's where the floor is above it.
TARGETS = {"eager": 1.10, "graph": 1.05}
FLOOR_MARGIN = 0.03


def summarize(rows):
    """Per program and mode: each variant's median (over rounds) of its
    in-process median and its minimum; ratios to untraced: of those medians
    and minima, and paired (per round, run / that round's untraced run:
    median and quartiles); the same per-round difference to the floor's
    paired ratio (and to floor_launch's); what removing a part saves against
    the full builtin tracer; CPU time of the launching thread and of the
    other threads during the timed loop; the calibration loop's ms and the
    CPUs' steal; where runs have a calib, the paired ratio and the distances
    to the floors again with each run's loop time over its calib (a reading
    beside the verdict, which stays on the loop times). Then, for the builtin, the verdict against the target."""
    groups = collections.OrderedDict()
    for r in rows:
        if r["ms_median"] is None:
            continue
        groups.setdefault((r["program"], r["mode"]), collections.OrderedDict()).setdefault(
            r["variant"], {})[r["round"]] = r
    lines, js = [], {}
    for (prog, mode), by_v in groups.items():
        base = by_v.get("untraced", {})

        def paired(v):
            runs = by_v.get(v, {})
            return {k: runs[k]["ms_median"] / base[k]["ms_median"] for k in runs if k in base}

        pr = {v: paired(v) for v in by_v}

        def per_calib(r):
            return r["ms_median"] / r["calib_ms"] if r.get("calib_ms") else None

        def paired_calib(v):  # the same with each run's loop over its calib
            runs = by_v.get(v, {})
            return {k: per_calib(runs[k]) / per_calib(base[k]) for k in runs
                    if k in base and per_calib(runs[k]) and per_calib(base[k])}

        pc = {v: paired_calib(v) for v in by_v}

        def stats(v):
            runs = by_v[v]
            med = statistics.median(x["ms_median"] for x in runs.values())
            mn = min(x["ms_min"] for x in runs.values())
            cpu = [x["main_cpu_ms"] for x in runs.values() if x["main_cpu_ms"] is not None]
            oth = [x["proc_cpu_ms"] - x["main_cpu_ms"] for x in runs.values()
                   if x["proc_cpu_ms"] is not None and x["main_cpu_ms"] is not None]
            cal = [x["calib_ms"] for x in runs.values() if x.get("calib_ms") is not None]
            s = {"n": len(runs), "failed_runs": sum(1 for x in runs.values() if x["rc"] != 0),
                 "ms_median": med, "ms_min": mn,
                 "ms_range": [min(x["ms_median"] for x in runs.values()),
                              max(x["ms_median"] for x in runs.values())],
                 "main_cpu_ms": statistics.median(cpu) if cpu else None,
                 "other_cpu_ms": statistics.median(oth) if oth else None,
                 "calib_ms": quartiles(cal),
                 "steal_ms": statistics.median(x.get("steal_ms") or 0 for x in runs.values())}
            if base:
                bmed = statistics.median(x["ms_median"] for x in base.values())
                s["ratio_median"] = med / bmed
                k = [x.get("kernels") for x in runs.values() if x.get("kernels")]
                if k:  # decode_sim: per kernel of the loop, launched or replayed
                    s["us_per_kernel"] = (med - bmed) * 1e3 / statistics.median(k)
                s["ratio_min"] = mn / min(x["ms_min"] for x in base.values())
                q = quartiles(pr[v].values())
                if q:
                    s["paired"], s["paired_q"] = q[1], [q[0], q[2]]
                    s["paired_range"] = [min(pr[v].values()), max(pr[v].values())]
                q = quartiles(pc[v].values())
                if q:
                    s["paired_calib"], s["paired_calib_q"] = q[1], [q[0], q[2]]
                for fl in ("floor", "floor_launch"):
                    for key, p in (("over_", pr), ("calib_over_", pc)):
                        d = [p[v][k] - p[fl][k] for k in p[v] if k in p.get(fl, {})]
                        q = quartiles(d)
                        if q and v != fl and VARIANTS.get(v, ("",))[0] != "none":
                            s[key + fl], s["%s%s_q" % (key, fl)] = q[1], [q[0], q[2]]
            return s
        st = {v: stats(v) for v in by_v}
        full = st.get("builtin") or {}
        lines.append("\n%s %s: ms of the timed loop (median over rounds, and their range); "
                     "ratio = to untraced: median of medians; paired = median over rounds of "
                     "run / that round's untraced run, [quartiles]; -floor = per round, "
                     "paired ratio minus the floor's: median [quartiles]; -fl.l = the same "
                     "against floor_launch; saves = builtin's ratio minus this variant's; +us/k = "
                     "(median - untraced's) per kernel of the loop (decode_sim); CPU ms "
                     "of the loop on the launching thread and on all others; calib = ms of a "
                     "fixed Python loop before each rep; steal = ms the hypervisor took from "
                     "the pinned CPUs during the run; p/cal = paired with each run's loop "
                     "over its calib; * = a run failed (checks.txt)" % (prog, mode))
        lines.append("%-19s %2s %9s %17s %6s %20s %20s %7s %6s %6s %8s %8s %6s %6s %6s" % (
            "variant", "n", "median", "range", "ratio", "paired [q1 q3]", "-floor [q1 q3]",
            "-fl.l", "saves", "+us/k", "main cpu", "oth cpu", "calib", "steal", "p/cal"))

        def f(x, fmt):
            return fmt % x if x is not None else "-"

        def fq(s, key, fmt):
            if s.get(key) is None:
                return "-"
            return (fmt + " [" + fmt + " " + fmt + "]") % (s[key], s[key + "_q"][0],
                                                          s[key + "_q"][1])
        for v, s in st.items():
            saves = (full["ratio_median"] - s["ratio_median"]
                     if "ratio_median" in full and "ratio_median" in s and v != "builtin" and
                     VARIANTS.get(v, ("",))[0] != "none" else None)
            s["saves"] = saves
            lines.append("%-19s %2d %9.3f %17s %6s %20s %20s %7s %6s %6s %8s %8s %6s %6s %6s" % (
                v + ("*" if s["failed_runs"] else ""), s["n"], s["ms_median"],
                "%.2f-%.2f" % tuple(s["ms_range"]), f(s.get("ratio_median"), "%.3f"),
                fq(s, "paired", "%.3f"), fq(s, "over_floor", "%+.3f"),
                f(s.get("over_floor_launch"), "%+.3f"), f(saves, "%+.3f"),
                f(s.get("us_per_kernel"), "%+.2f"),
                f(s["main_cpu_ms"], "%.1f"), f(s["other_cpu_ms"], "%.1f"),
                f(s["calib_ms"] and s["calib_ms"][1], "%.2f"), "%.0f" % s["steal_ms"],
                f(s.get("paired_calib"), "%.3f")))
        lines.extend(verdict(prog, mode, st))
        js["%s %s" % (prog, mode)] = st
    return "\n".join(lines) + "\n", js


def verdict(prog, mode, st):
    """The builtin against the target, in words, with its spread: met when
    the paired median is at most the target; the quartiles say whether the
    noise could move it across."""
    b, target = st.get("builtin") or {}, TARGETS.get(mode)
    if prog != "py" or target is None or b.get("paired") is None:
        return []

    def side(med, q, lim):
        where = ("the quartiles below it too" if q[1] <= lim else
                 "the quartiles above it too" if q[0] > lim else "the quartiles straddle it")
        return "%s (%s)" % ("met" if med <= lim else "not met", where)
    out = ["verdict %s %s, builtin over %d rounds: paired x%.3f [%.3f %.3f] against x%.2f: %s" % (
        prog, mode, b["n"], b["paired"], b["paired_q"][0], b["paired_q"][1], target,
        side(b["paired"], b["paired_q"], target))]
    for fl in ("floor", "floor_launch"):
        f = st.get(fl) or {}
        if b.get("over_" + fl) is None or f.get("paired") is None:
            continue
        out.append("verdict %s %s, builtin - %s (x%.3f [%.3f %.3f]) per round: %+.3f [%+.3f %+.3f] "
                   "against +%.2f: %s" % (
                       prog, mode, fl, f["paired"], f["paired_q"][0], f["paired_q"][1],
                       b["over_" + fl], b["over_%s_q" % fl][0], b["over_%s_q" % fl][1],
                       FLOOR_MARGIN, side(b["over_" + fl], b["over_%s_q" % fl], FLOOR_MARGIN)))
    if b.get("paired_calib") is not None:
        out.append("calib reading %s %s (each run's loop over its calib, paired; not the "
                   "verdict): builtin x%.3f [%.3f %.3f]%s" % (
                       prog, mode, b["paired_calib"], b["paired_calib_q"][0],
                       b["paired_calib_q"][1], "".join(
                           "; - %s %+.3f [%+.3f %+.3f]" % (
                               fl, b["calib_over_" + fl], b["calib_over_%s_q" % fl][0],
                               b["calib_over_%s_q" % fl][1])
                           for fl in ("floor", "floor_launch") if "calib_over_" + fl in b)))
    for v in ("untraced", "untraced_shared"):
        u = st.get(v) or {}
        if u.get("ms_range"):
            out.append("noise %s %s: %s %.1f-%.1f ms over %d rounds (max/min %.2f)%s" % (
                prog, mode, v, u["ms_range"][0], u["ms_range"][1], u["n"],
                u["ms_range"][1] / u["ms_range"][0],
                "; calib %.2f [%.2f %.2f] ms" % (u["calib_ms"][1], u["calib_ms"][0],
                                                 u["calib_ms"][2]) if u.get("calib_ms") else ""))
    return out


def parse_lines(stdout, prog):
    """'decode_sim MODE k v k v ...' or 'pydecode MODE k v ...' lines: MODE ->
    {key: float}."""
    tag = {"sim": "decode_sim", "py": "pydecode"}[prog]
    res = {}
    for line in stdout.splitlines():
        f = line.split()
        if len(f) < 2 or f[0] != tag:
            continue
        d = {}
        for i in range(2, len(f) - 1, 2):
            try:
                d[f[i]] = float(f[i + 1])
            except ValueError:
                pass
        res[f[1]] = d
    return res


def read_log(path):
    """Counts of what a trace log holds (format: src/trace/tracelog.h)."""
    data = open(path, "rb").read()
    c = dict.fromkeys(("kernels", "memcpy", "memset", "api", "graph_nodes", "dropped"), 0)
    c.update({"bytes": len(data), "end": False})
    errors, warnings, problems = [], [], []
    if data[:8] != b"LLMPTLOG":
        problems.append("not a trace log")
        return dict(c, errors=errors, warnings=warnings, problems=problems, bench_kernels=0,
                    bench_graphs=0)
    off = struct.unpack_from("<I", data, 12)[0]
    bench_k = bench_g = 0
    by_id, names = {}, {}  # kernels per name id; name id -> mangled name
    while off + 16 <= len(data):
        magic, size = struct.unpack_from("<II", data, off)
        if magic != CHUNK_MAGIC:
            problems.append("bad chunk at %d" % off)
            break
        p, end = off + 16, min(off + 16 + size, len(data))
        while p + 8 <= end:
            typ, rsz, aux = struct.unpack_from("<HHI", data, p)
            if rsz < 8 or p + rsz > end:
                problems.append("bad record at %d" % p)
                break
            if typ == T_KERNEL:
                c["kernels"] += 1
                nid = struct.unpack_from("<I", data, p + KERNEL_NAME_ID_OFF)[0]
                by_id[nid] = by_id.get(nid, 0) + 1
            elif typ == T_KERNEL_NAME:
                nid, mlen = struct.unpack_from("<II", data, p + 8)
                names[nid] = data[p + 24:p + 24 + mlen].decode("utf-8", "replace")
            elif typ == T_MEMCPY:
                c["memcpy"] += 1
            elif typ == T_MEMSET:
                c["memset"] += 1
            elif typ in (T_API, T_API_ACT):
                c["api"] += 1
            elif typ == T_GRAPH_NODE:
                c["graph_nodes"] += 1
            elif typ == T_DROPPED:
                c["dropped"] += struct.unpack_from("<Q", data, p + 16)[0]
            elif typ == T_END:
                c["end"] = True
            elif typ == T_DIAG:
                code, ln = struct.unpack_from("<II", data, p + 16)
                msg = data[p + 24:p + 24 + ln].decode("utf-8", "replace")
                if aux >= 2:
                    errors.append(msg)
                elif aux == 1:
                    warnings.append(msg)
                elif msg.startswith("benchmark switches"):
                    w = msg.replace(",", "").replace(";", "").split()
                    bench_k = int(w[w.index("kernel") + 2])
                    bench_g = int(w[w.index("graph") + 2])
                    c["cupti_buffers"] = int(w[w.index("buffers") + 1])
                    c["convert_ms"] = float(w[w.index("buffers") + 3])
                    c["overhead"] = msg.partition("overhead records:")[2].strip()
                    m = re.search(r"\((\d+) completed on the thread that initialised CUDA; "
                                  r"requested (\d+), (\d+) there, (\d+) not from the pool\)", msg)
                    if m:
                        c["buffers_where"] = tuple(int(x) for x in m.groups())
            p += rsz
        off += 16 + size
    by_name = collections.Counter()
    for nid, n in by_id.items():
        by_name[names.get(nid, "<no name record %d>" % nid)] += n
    return dict(c, errors=errors, warnings=warnings, problems=problems, bench_kernels=bench_k,
                bench_graphs=bench_g, by_name=by_name)


# ---- processes ----
def steal_ms(cpus):
    """Time the hypervisor gave away of these CPUs (all when empty), in ms,
    from /proc/stat's steal column (USER_HZ ticks: 10 ms steps)."""
    total = 0
    try:
        for line in open("/proc/stat"):
            f = line.split()
            if not f[0].startswith("cpu") or f[0] == "cpu" or len(f) < 9:
                continue
            if not cpus or int(f[0][3:]) in cpus:
                total += int(f[8])
    except (OSError, ValueError):
        return 0.0
    return total * 1000.0 / os.sysconf("SC_CLK_TCK")


def placement(pin_set, main):
    """The launching thread's CPU and the others' for --main-cpu (auto: the
    first pinned CPU; none: no placement): (main, others, why) or
    (None, pin_set, why). The others leave out main's hyperthread siblings."""
    if main == "none" or (main == "auto" and not pin_set):
        return None, pin_set, "launching thread not placed (all threads on %s)" % (
            fmt_cpus(pin_set) or "any CPU")
    cpu = min(pin_set) if main == "auto" else int(main)
    try:
        sib = parse_cpus(open("/sys/devices/system/cpu/cpu%d/topology/thread_siblings_list"
                              % cpu).read().strip())
    except OSError:
        sib = {cpu}
    pool = pin_set or set(os.sched_getaffinity(0))
    others = pool - sib - {cpu}
    if not others:
        return None, pin_set, "CPU %d has no other CPU beside it: not placed" % cpu
    return cpu, others, ("launching thread on CPU %d (hyperthread siblings %s, left idle), the "
                         "process's other threads on %s" % (cpu, fmt_cpus(sib - {cpu}) or "none",
                                                            fmt_cpus(others)))


def fmt_cpus(cpus):
    return ",".join(str(c) for c in sorted(cpus))


def place_threads(others, main_tid):
    """Every thread of this process but main_tid onto others (threads made
    after the launching thread moved inherited its CPU)."""
    for t in os.listdir("/proc/self/task"):
        if int(t) != main_tid:
            try:
                os.sched_setaffinity(int(t), others)
            except OSError:
                pass  # gone since


def pin(cpus):
    if cpus:
        try:
            os.sched_setaffinity(0, cpus)
        except OSError:
            pass


def spawn(cmd, env, timeout, cpus):
    """Runs cmd with env (a session of its own, on cpus); returns the exit
    status (124: killed at the timeout), stdout, stderr and its CPU seconds."""
    return _child(lambda: os.execve(cmd[0], cmd, env), timeout, cpus)


def fork_child(env, py_args, timeout, cpus):
    """Runs py_child in a fork of this process (torch and transformers
    imported, CUDA not initialised) with env as its environment."""
    def body():
        os.environ.clear()
        os.environ.update(env)  # putenv: cuInit and NVTX read it in C
        rc = 1
        try:
            rc = py_child(py_args)
        except BaseException:
            traceback.print_exc()
        sys.stdout.flush()
        sys.stderr.flush()
        # C's exit: the tracer's at-exit flush runs; the Python-level exit
        # handlers this process registered before the fork do not.
        ctypes.CDLL(None).exit(rc)
    return _child(body, timeout, cpus)


def _child(body, timeout, cpus):
    sys.stdout.flush()
    sys.stderr.flush()
    rout, wout = os.pipe()
    rerr, werr = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(rout)
            os.close(rerr)
            os.dup2(wout, 1)
            os.dup2(werr, 2)
            os.setsid()
            pin(cpus)
            body()
        except BaseException:
            traceback.print_exc()
        os._exit(127)
    os.close(wout)
    os.close(werr)
    bufs = {rout: [], rerr: []}
    deadline = time.time() + timeout
    open_fds = [rout, rerr]
    rc = None
    while open_fds:
        left = deadline - time.time()
        if left <= 0:
            if rc is not None:
                break  # killed 10 s ago and still a pipe open: give up on it
            try:
                os.killpg(pid, signal.SIGKILL)
            except OSError:
                pass
            rc = 124
            deadline = time.time() + 10
            left = 10
        r, _, _ = select.select(open_fds, [], [], min(left, 5))
        for fd in r:
            b = os.read(fd, 65536)
            if b:
                bufs[fd].append(b)
            else:
                open_fds.remove(fd)
                os.close(fd)
    _, status, ru = os.wait4(pid, 0)
    if rc is None:
        rc = os.waitstatus_to_exitcode(status)
    return (rc, b"".join(bufs[rout]).decode("utf-8", "replace"),
            b"".join(bufs[rerr]).decode("utf-8", "replace"), ru.ru_utime + ru.ru_stime)


def cuda_untouched():
    """True when this process has not initialised the CUDA driver (so a
    fork may use it): libcuda not loaded, or loaded and cuInit not called
    (cuDeviceGetCount says CUDA_ERROR_NOT_INITIALIZED without initialising)."""
    maps = open("/proc/self/maps").read()
    if "libcuda.so" not in maps:
        return True
    n = ctypes.c_int(0)
    return ctypes.CDLL("libcuda.so.1").cuDeviceGetCount(ctypes.byref(n)) == 3


# ---- the Python programs (in a child) ----
def py_child(arg_str):
    """Eager transformers decode and a CUDA-graph decode (graph=0: eager
    only), reps alternating; prints 'pydecode MODE ...' lines. Returns the
    exit status. threads=N (default: torch's own) sets torch's intra-op
    threads; gc=freeze moves everything alive after the warm-up out of the
    collector's reach and collects before each rep, so no full collection
    of the imported modules lands in a timed loop; warm=N warm-up reps.
    TC_MAIN_CPU (the environment): the launching thread moves to that CPU
    after the model is built, and before the warm-up and each rep every
    other thread goes back to the CPUs the process started on."""
    import gc
    import threading
    import torch
    import torch.nn.functional as F
    from llama_1b import llama_1b

    a = dict(x.split("=") for x in arg_str.split())
    layers, steps, gsteps = int(a.get("layers", 16)), int(a.get("steps", 32)), int(a.get("gsteps", 64))
    reps, prompt, glayers = int(a.get("reps", 5)), int(a.get("prompt", 128)), int(a.get("glayers", 16))
    with_graph, warm, freeze = a.get("graph", "1") != "0", int(a.get("warm", 1)), a.get("gc") == "freeze"
    threads0 = torch.get_num_threads()
    if a.get("threads", "default") != "default":
        torch.set_num_threads(int(a["threads"]))
    others, main_cpu = os.sched_getaffinity(0), os.environ.get("TC_MAIN_CPU")
    main_tid = threading.get_native_id()
    nvtx = torch.cuda.nvtx
    t0 = time.perf_counter()
    torch.zeros(1, device="cuda")
    torch.cuda.synchronize()
    t_cuda = time.perf_counter()
    model, ids = llama_1b(layers, prompt)
    t_model = time.perf_counter()

    def timed(fn):
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        torch.cuda.synchronize()
        w0, c0, p0 = time.perf_counter(), time.thread_time(), time.process_time()
        e0.record()
        fn()
        e1.record()
        torch.cuda.synchronize()
        return (e0.elapsed_time(e1), (time.thread_time() - c0) * 1e3,
                (time.process_time() - p0) * 1e3, (time.perf_counter() - w0) * 1e3)

    def eager_rep():
        with torch.inference_mode():
            nvtx.range_push("prefill")
            out = model(ids, use_cache=True)
            nvtx.range_pop()
            state = {"cache": out.past_key_values, "tok": out.logits[:, -1:].argmax(-1)}

            def loop():
                nvtx.range_push("decode_all")
                for _ in range(steps):
                    nvtx.range_push("decode_step")
                    o = model(state["tok"], past_key_values=state["cache"], use_cache=True)
                    state["cache"] = o.past_key_values
                    state["tok"] = o.logits[:, -1:].argmax(-1)
                    nvtx.range_pop()
                nvtx.range_pop()
            return timed(loop)

    graph_rep = None
    try:
        graph_rep = build_graph(torch, F, model, glayers, gsteps, timed) if with_graph else None
    except Exception:
        traceback.print_exc()
        print("pydecode: the CUDA-graph decode could not be built; eager only", file=sys.stderr)
    t_graph = time.perf_counter()
    if main_cpu:
        try:
            os.sched_setaffinity(0, {int(main_cpu)})  # 0: this thread only (Linux)
        except (OSError, ValueError) as e:
            print("pydecode: CPU %s: %s; threads not placed" % (main_cpu, e), file=sys.stderr)
            main_cpu = None

    def before_rep():  # outside the timed loop
        if main_cpu:
            place_threads(others, main_tid)
        if freeze:
            gc.collect()
        return calibrate()
    for _ in range(warm):  # kernel selection, allocator, cuBLAS handles
        before_rep()
        eager_rep()
        if graph_rep:
            graph_rep()
    if freeze:
        gc.collect()
        gc.freeze()
    t_warm = time.perf_counter()
    res = {"eager": [], "graph": []}
    calib = []
    for _ in range(reps):
        calib.append(before_rep())
        res["eager"].append(eager_rep())
        if graph_rep:
            before_rep()
            res["graph"].append(graph_rep())
    for mode, rs in res.items():
        if not rs:
            continue
        n = steps if mode == "eager" else gsteps
        med = lambda i: statistics.median(r[i] for r in rs)  # noqa: E731
        print("pydecode %s steps %d reps %d ms_median %.4f ms_min %.4f main_cpu_ms %.4f "
              "proc_cpu_ms %.4f wall_ms %.4f calib_ms %.4f" % (
                  mode, n, len(rs), med(0), min(r[0] for r in rs), med(1), med(2), med(3),
                  statistics.median(calib)), flush=True)
    print("pydecode setup torch_threads %d of %d gc %s main_cpu %s others %s" % (
        torch.get_num_threads(), threads0, "frozen" if freeze else "default",
        main_cpu or "-", fmt_cpus(others)), flush=True)
    print("pydecode phases cuda_init_s %.2f model_s %.2f graph_build_s %.2f warm_s %.2f timed_s %.2f"
          % (t_cuda - t0, t_model - t_cuda, t_graph - t_model, t_warm - t_graph,
             time.perf_counter() - t_warm), flush=True)
    return 0


def calibrate():
    """ms of a fixed piece of pure-Python work on the calling thread: how
    fast the launching thread's CPU ran just before a rep."""
    t = time.perf_counter()
    x = 0
    for i in range(100000):
        x += i * i
    return (time.perf_counter() - t) * 1e3


def build_graph(torch, F, model, nlayers, gsteps, timed):
    """A Llama-shaped decode step (RMSNorm, fused QKV, rotary, attention over
    a 256-slot cache whose position wraps, so any number of replays stays
    inside it; SwiGLU MLP, the model's tied embedding as LM head), random
    weights, captured once with torch.cuda.graph; NVTX layerN ranges open at
    capture. Returns a function timing gsteps replays, each fed the
    previous token and read back to the CPU (a sync per step, as serving
    engines do)."""
    dev, dt = "cuda", torch.bfloat16
    H, NH, HD, FF, CTX = 2048, 16, 128, 8192, 256
    gen = torch.Generator(device=dev)
    gen.manual_seed(0)

    def w(*s):
        return torch.randn(*s, device=dev, dtype=dt, generator=gen) * 0.02
    layers = [{"n1": torch.ones(H, device=dev, dtype=dt), "qkv": w(H, 3 * H), "o": w(H, H),
               "n2": torch.ones(H, device=dev, dtype=dt), "gu": w(H, 2 * FF), "down": w(FF, H),
               "k": torch.zeros(1, NH, CTX, HD, device=dev, dtype=dt),
               "v": torch.zeros(1, NH, CTX, HD, device=dev, dtype=dt)} for _ in range(nlayers)]
    emb = model.get_input_embeddings().weight  # (vocab, H)
    nf = torch.ones(H, device=dev, dtype=dt)
    pos = torch.zeros(1, dtype=torch.long, device=dev)
    inv_freq = 1.0 / (500000.0 ** (torch.arange(0, HD, 2, device=dev, dtype=torch.float32) / HD))

    def rms(x, wt):
        xf = x.float()
        return (xf * torch.rsqrt(xf.pow(2).mean(-1, keepdim=True) + 1e-5)).to(dt) * wt

    def rope(t, cos, sin):
        t1, t2 = t[..., :HD // 2], t[..., HD // 2:]
        return torch.cat((t1 * cos - t2 * sin, t2 * cos + t1 * sin), -1)

    def step(tok):
        x = emb.index_select(0, tok)  # (1, H)
        f = pos.float()[:, None] * inv_freq[None, :]  # (1, HD/2)
        cos, sin = f.cos().to(dt), f.sin().to(dt)
        for i, ly in enumerate(layers):
            torch.cuda.nvtx.range_push("layer%d" % i)
            h = rms(x, ly["n1"])
            q, k, v = (h @ ly["qkv"]).view(1, 3, NH, HD).unbind(1)  # (1, NH, HD) each
            q = rope(q, cos, sin).unsqueeze(2)  # (1, NH, 1, HD)
            ly["k"].index_copy_(2, pos, rope(k, cos, sin).unsqueeze(2))
            ly["v"].index_copy_(2, pos, v.unsqueeze(2))
            att = F.scaled_dot_product_attention(q, ly["k"], ly["v"])
            x = x + att.reshape(1, H) @ ly["o"]
            h = rms(x, ly["n2"])
            g, u = (h @ ly["gu"]).chunk(2, -1)
            x = x + (F.silu(g) * u) @ ly["down"]
            torch.cuda.nvtx.range_pop()
        logits = rms(x, nf) @ emb.t()
        pos.add_(1).remainder_(CTX)
        return logits.argmax(-1)

    static_tok = torch.zeros(1, dtype=torch.long, device=dev)
    with torch.no_grad():
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            for _ in range(3):
                step(static_tok)
        torch.cuda.current_stream().wait_stream(s)
        graph = torch.cuda.CUDAGraph()
        torch.cuda.nvtx.range_push("capture")
        with torch.cuda.graph(graph):
            static_out = step(static_tok)
        torch.cuda.nvtx.range_pop()

    # The graph reads and writes these by address, and torch keeps no
    # reference to tensors made outside the capture: were they freed when
    # this function returns, the eager decode would reuse their memory and
    # the replays would index the KV cache with whatever it wrote there.
    keep = (layers, emb, nf, pos, inv_freq, static_tok, static_out)

    def loop():
        for _ in range(gsteps):
            torch.cuda.nvtx.range_push("decode_step")
            graph.replay()
            static_tok.copy_(static_out)
            static_out.item()  # the token to the CPU: one sync per step
            torch.cuda.nvtx.range_pop()

    def rep():
        with torch.no_grad():
            r = timed(loop)
        p = int(pos.item())
        if not 0 <= p < CTX:
            raise RuntimeError("graph decode: position %d outside the %d-slot cache" % (p, CTX))
        return r
    rep.keep = keep  # alive as long as the graph can be replayed
    return rep


def main():
    import argparse
    if len(sys.argv) == 3 and sys.argv[1] == "py-child":
        sys.exit(py_child(sys.argv[2]))
    ap = argparse.ArgumentParser()
    ap.add_argument("--bin", required=True)
    ap.add_argument("--out", required=True)
    ap.add_argument("--tmp", required=True)
    ap.add_argument("--t0", type=float, default=0.0, help="epoch seconds the budget counts from")
    ap.add_argument("--budget-s", type=int, default=400)
    ap.add_argument("--grace-s", type=int, default=40, help="after the budget: runs killed")
    ap.add_argument("--sim-budget-s", type=int, default=0,
                    help="no sim round starts that would end later (0: --budget-s)")
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--timeout-s", type=int, default=120, help="per Python run (C: 60)")
    ap.add_argument("--sim-variants", default=" ".join(SIM_VARIANTS))
    ap.add_argument("--py-variants", default=" ".join(PY_VARIANTS))
    ap.add_argument("--sim-args", default="300 100 4", help="decode_sim K STEPS REPS")
    ap.add_argument("--py-args", default="layers=16 steps=32 gsteps=64 reps=4 glayers=16")
    ap.add_argument("--pin", default="", help="CPU list, e.g. 2-9 (every run)")
    ap.add_argument("--main-cpu", default="none",
                    help="auto (the first pinned CPU), N or none: the launching thread's CPU, "
                         "every other thread on the pinned CPUs but it and its siblings")
    ap.add_argument("--check-all", action="store_true", help="read every traced log, not round 1's")
    ap.add_argument("--no-fork", action="store_true", help="start every py child afresh")
    a = ap.parse_args()
    a.sim_variants = a.sim_variants.split()
    a.py_variants = a.py_variants.split()
    for v in a.sim_variants + a.py_variants:
        if v not in VARIANTS:
            ap.error("unknown variant %s (known: %s)" % (v, " ".join(VARIANTS)))
    a.pin = parse_cpus(a.pin)
    a.main_cpu, a.others, where = placement(a.pin, a.main_cpu)
    a.steal_cpus = a.pin
    os.makedirs(a.out, exist_ok=True)
    b = Bench(a)
    b.note("placement: " + where)
    if a.py_variants:
        try:
            import torch  # noqa: F401
            import transformers  # noqa: F401
            from transformers import LlamaConfig, LlamaForCausalLM  # noqa: F401 (preloaded)
            b.fork_ok = not a.no_fork and cuda_untouched()
            b.note("py: torch %s, transformers %s; children %s" % (
                torch.__version__, transformers.__version__,
                "forked from this process" if b.fork_ok else "started afresh"))
        except Exception as e:
            b.note("py: no torch/transformers (%s): Python programs skipped" % e, fail=True)
            a.py_variants = []
    if not os.path.exists(os.path.join(a.bin, "decode_sim")):
        if a.sim_variants:
            b.note("sim: no decode_sim in %s: skipped" % a.bin, fail=True)
        a.sim_variants = []
    try:
        b.rounds()
    finally:
        b.write_summary()
    sys.stdout.write(open(os.path.join(a.out, "summary.txt")).read())
    return 1 if b.failures else 0


def parse_cpus(s):
    cpus = set()
    for part in filter(None, s.split(",")):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


if __name__ == "__main__":
    sys.exit(main())
