"""NVTX ranges for every nn.Module call (and ATen operator) of a PyTorch
program, with no change to its code: the part of llmprof's startup module
(docs/pytorch.md) that sitecustomize.py beside this file loads once the
program's `import torch` has finished, and whose install() registers two
global nn.Module hooks (and, in ops mode, PyTorch's own NVTX operator
ranges). The rules it keeps:

- it never raises into the program and never changes a result: the hooks
  return None (inputs and outputs untouched); any exception of its own turns
  the ranges off and writes one line to $LLMPROF_PYTORCH_LOG, which llmprof
  reads into the run's trust section;
- it does nothing while Dynamo traces (torch.compiler.is_compiling() is the
  hooks' first test, which Dynamo folds to True), so torch.compile sees two
  hooks that return at once and adds no graph break;
- ranges stay balanced: a forward that raises still pops (always_call=True),
  and a post-hook pops the ranges of inner calls that never returned;
- it prices itself: at install, before the hooks go live, it times a
  trivial module's call without global hooks and with its own (calibrate():
  PyTorch's hooked call path costs more than the hook bodies), and the hooks
  time their own bodies (perf_counter_ns); the estimated extra time, module
  calls x the calibrated call path + the bodies' time, against the wall time
  it is part of, is how much slower the program runs. The process writes it
  (since the first module call) when it exits; in auto mode the ranges are
  turned off (and the hooks removed) once it exceeds the budget over a
  window from the 1,000th module call on.

Environment (set by llmprof; docs/pytorch.md has the table):
  LLMPROF_PYTORCH           auto | modules | ops (anything else: nothing installed)
  LLMPROF_PYTORCH_BUDGET    auto: how much slower the hooks may make the program, %
  LLMPROF_PYTORCH_DEPTH     module ranges nest at most this deep (default 8)
  LLMPROF_PYTORCH_SHAPES    ops: 1 = operator ranges carry input shapes
  LLMPROF_PYTORCH_NVTX_LIB  libllmprof_nvtx.so (default: beside this file)
  LLMPROF_PYTORCH_LOG       file the module appends its lines to
"""
import os

DOMAIN = "llmprof.pytorch"
FALLBACK_PREFIX = "llmprof.pytorch:"  # default-domain ranges when the library is missing
DEFAULT_DEPTH = 8
DEFAULT_BUDGET = 3.0  # %, pipeline.trace.pytorch_budget_pct's default
# auto starts its window at the first outermost return after this many module
# calls (what came before holds lazy initialisation, a compilation, a first
# capture: wall time the hooks did not cause), and judges the estimated
# slowdown over the window every AUTO_EVERY calls after, once it spans this
# much wall time
AUTO_MIN_CALLS = 1000
AUTO_MIN_WALL_NS = 20000000
AUTO_EVERY = 1000
# calibrate(): batches of CAL_CALLS calls of a trivial module, without and
# with the hooks, interleaved; at least CAL_MIN_BATCHES, at most CAL_BATCHES,
# no new batch after CAL_MAX_NS (about 8 ms on an H200's host; a slow or
# busy host stops at the minimum)
CAL_CALLS = 200
CAL_BATCHES = 7
CAL_MIN_BATCHES = 3
CAL_MAX_NS = 20000000
SLOWDOWN_CAP = 10000.0  # %, what an estimate at or above the wall time reads
LIB_NAME = "libllmprof_nvtx.so"
LIB_VERSION = 1
# module attributes that hold the module a wrapper wraps: the wrapped one
# takes the wrapper's path (torch.compile, FSDP, activation checkpointing)
WRAPPED_ATTRS = ("_orig_mod", "_fsdp_wrapped_module", "_checkpoint_wrapped_module")
# wrappers whose child "module" is the wrapped model
MODULE_WRAPPERS = ("DistributedDataParallel", "DataParallel")


def log(level, message):
    """Appends "pid N: LEVEL: MESSAGE" to $LLMPROF_PYTORCH_LOG, one write
    per line (O_APPEND: lines of several processes never interleave).
    Never raises."""
    path = os.environ.get("LLMPROF_PYTORCH_LOG")
    if not path:
        return
    try:
        text = " ".join(str(message).split())
        line = ("pid %d: %s: %s\n" % (os.getpid(), level, text)).encode("utf-8", "backslashreplace")
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CREAT | getattr(os, "O_CLOEXEC", 0), 0o644)
        try:
            os.write(fd, line)
        finally:
            os.close(fd)
    except Exception:
        pass


# ---- the hooks --------------------------------------------------------------
# Module state, set by install(); the hooks read it on every module call.
_on = False            # ranges are pushed (False after a failure)
_depth = DEFAULT_DEPTH
_tls = None            # threading.local: .s, the thread's stack of module calls
_entries = {}          # id(module) -> (weakref, push function, its argument, category, path)
_is_compiling = None   # torch.compiler.is_compiling
_pop = None
_names = None          # the _Names that gives each module its path and class
# What the hooks cost (counted without a lock: threads racing on an update
# lose it, never the program's time): module calls seen, nanoseconds inside
# the hooks, the wall clock at the first call; the calibrated cost of
# PyTorch's hooked call path outside the hook bodies, ns a call.
_calls = 0
_hook_ns = 0
_pushed = 0
_wall0 = None
_path_ns = 0.0
_clock = None          # time.perf_counter_ns
_auto = None           # auto mode: its budget in %, else None
_judged = None         # auto: the last estimate it judged, % slower
_base = None           # auto: (calls, hook ns, clock) where its window starts
_next_check = AUTO_MIN_CALLS
_stacks = []           # every thread's stack (auto removes the hooks when all are empty)
_handles = []          # the hook handles (auto removes them)


def _pre_hook(mod, args):
    if _is_compiling():  # first: Dynamo folds it to True and traces nothing more
        return None
    if not _on:
        return None
    global _calls, _hook_ns, _pushed, _wall0
    t0 = _clock()
    if _wall0 is None:
        _wall0 = t0
    try:
        st = getattr(_tls, "s", None)
        if st is None:
            st = _tls.s = []
            _stacks.append(st)
        e = _entries.get(id(mod))
        if e is None or e[0]() is not mod:
            e = _names.entry(mod, st)
        if len(st) < _depth:
            e[1](e[2], e[3])
            _pushed += 1
        st.append(mod)
    except Exception as x:
        _fail("forward pre-hook of a %s" % _class_name(mod), x)
    _calls += 1
    _hook_ns += _clock() - t0
    return None


def _post_hook(mod, args, out):
    if _is_compiling():
        return None
    global _hook_ns
    t0 = _clock()
    try:
        st = getattr(_tls, "s", None)
        if not st:
            if _auto is not None and not _on:  # off (a failure): the hooks go
                _auto_check()
            return None
        i = len(st) - 1
        if st[i] is not mod:
            # an inner call raised without reaching its post-hook (a torch
            # without always_call): its ranges end with this one
            while i >= 0 and st[i] is not mod:
                i -= 1
            if i < 0:  # this call's pre-hook did not push (installed meanwhile)
                return None
        while len(st) > i:
            st.pop()
            if len(st) < _depth:
                _pop()
        if not st and _auto is not None and (_calls >= _next_check or not _on):
            _auto_check()
    except Exception as x:
        st = getattr(_tls, "s", None)
        if st:
            del st[:]
        _fail("forward hook of a %s" % _class_name(mod), x)
    _hook_ns += _clock() - t0
    return None


def _slowdown(est_ns, wall_ns):
    """How much slower, in %, a program ran whose wall time wall_ns holds
    est_ns of the hooks' extra time: est / (wall - est), the ratio to the
    same program without them, less 1. SLOWDOWN_CAP when the estimate is
    not below the wall time."""
    if est_ns <= 0:
        return 0.0
    base = wall_ns - est_ns
    if base <= 0 or 100.0 * est_ns >= SLOWDOWN_CAP * base:
        return SLOWDOWN_CAP
    return 100.0 * est_ns / base


def _cost(base=None):
    """What the hooks cost since the first module call, or since base
    ((calls, hook ns, clock) then): (module calls, ms in the hooks' bodies,
    us a call of the hooked call path (calibrated), estimated extra ms =
    calls x that + the bodies' ms, wall ms, estimated slowdown in %)."""
    calls, hook, t0 = base if base is not None else (0, 0, _wall0)
    calls, hook = _calls - calls, _hook_ns - hook
    wall = (_clock() - t0) if t0 is not None else 0
    est = calls * _path_ns + hook
    return calls, hook / 1e6, _path_ns / 1e3, est / 1e6, wall / 1e6, _slowdown(est, wall)


def _auto_check():
    """auto, at an outermost module's return, every AUTO_EVERY calls: the
    first time, its window starts; then the estimated slowdown over the
    window against the budget. Above it the ranges go off, and the hooks are
    removed once no thread has a range open (until then they only pop what
    they pushed)."""
    global _on, _next_check, _judged, _base
    if _on:
        _next_check = _calls + AUTO_EVERY
        if _base is None:
            _base = (_calls, _hook_ns, _clock())
            return
        calls, hook_ms, path_us, est_ms, wall_ms, slow = _cost(_base)
        if wall_ms * 1e6 < AUTO_MIN_WALL_NS:
            return
        _judged = slow
        if slow <= _auto:
            return
        _on = False
        log("warning", "auto: module ranges off: estimated %.2f %% slower (%d module calls x "
            "%.3f us hooked call path + %.3f ms in the hooks = %.3f ms of %.3f ms wall time "
            "from module call %d on), above the %g %% budget"
            % (slow, calls, path_us, hook_ms, est_ms, wall_ms, _base[0], _auto))
    if any(_stacks):
        return
    for h in _handles:
        h.remove()
    del _handles[:]
    _next_check = float("inf")


def _report():
    """At exit: what the hooks cost this process (llmprof reads the line
    into the run's trust section)."""
    try:
        if not _calls:
            return
        calls, hook_ms, path_us, est_ms, wall_ms, slow = _cost()
        log("info", "cost: %d module calls, %.3f ms in the hooks, %.3f us a call of PyTorch's "
            "hooked call path (calibrated): %.3f ms estimated of %.3f ms wall time since the "
            "first call, %.2f %% slower; %d ranges pushed"
            % (calls, hook_ms, path_us, est_ms, wall_ms, slow, _pushed))
        if _auto is not None and _on:
            log("info", "auto: module ranges kept: estimated %.2f %% slower, within the %g %% "
                "budget%s" % (slow if _judged is None else _judged, _auto,
                              "" if _judged is not None else
                              " (never judged: %d module calls)" % calls))
    except Exception:
        pass


def _class_name(mod):
    try:
        return type(mod).__name__
    except Exception:
        return "module"


def _fail(where, exc):
    """Turns the ranges off, once, and says why."""
    global _on
    try:
        if not _on:
            return
        _on = False
        log("error", "module ranges off after an error in the %s: %s: %s"
            % (where, type(exc).__name__, exc))
    except Exception:
        _on = False


class _Names:
    """A module's path and class, found once per module.

    The first time a module is called that no walk has named, it becomes a
    root: its subtree is walked (named_children, depth first) and every module
    in it gets a path. A root called at the outermost level is named by its
    class (the module a torch.compile or DDP wrapper wraps); its descendants
    by their attribute path below it, as named_modules() names them
    (model.layers.3.self_attn), unless another root already gave one of those
    paths, then they are prefixed by the root's name (Class#N for the Nth
    root of a class). A root first called inside another module's forward
    (a module kept outside the caller's tree) gets the caller's path, a dot
    and its class, and its descendants that prefix. The wrapped module of a
    wrapper (WRAPPED_ATTRS, MODULE_WRAPPERS' "module") shares the wrapper's
    path."""

    def __init__(self, nvtx):
        import threading
        import weakref

        self.weakref = weakref
        self.lock = threading.RLock()
        self.nvtx = nvtx
        self.taken = set()     # paths given
        self.roots = {}        # class name -> outermost roots of that class seen
        self.messages = {}     # (path, class) -> (push function, argument)
        self.categories = {}   # class name -> category id

    def entry(self, mod, st):
        with self.lock:
            e = self._live(mod)
            if e is None:
                self._name(mod, st)
                e = _entries[id(mod)]
            return e

    @staticmethod
    def _live(mod):
        e = _entries.get(id(mod))
        return e if e is not None and e[0]() is mod else None

    def _name(self, mod, st):
        inner = self._unwrap(mod)
        known = self._live(inner) if inner is not mod else None
        if known is not None:  # a new wrapper around a module already named
            self._add(mod, known[4])
            return
        if st:
            parent = _entries.get(id(st[-1]))
            base = parent[4] + "." if parent is not None else ""
            root = base + _class_name(inner)
            prefix = root + "."
        else:
            cls = _class_name(inner)
            n = self.roots[cls] = self.roots.get(cls, 0) + 1
            root = cls if n == 1 else "%s#%d" % (cls, n)
            prefix = ""
        named = self._walk(mod)
        if not prefix and any(rel is not None and rel in self.taken for _, rel in named):
            prefix = root + "."
        for m, rel in named:
            self._add(m, root if rel is None else prefix + rel)

    @staticmethod
    def _unwrap(mod):
        for _ in range(8):
            inner = None
            for a in WRAPPED_ATTRS:
                inner = getattr(mod, "_modules", {}).get(a)
                if inner is not None:
                    break
            if inner is None and _class_name(mod) in MODULE_WRAPPERS:
                inner = getattr(mod, "_modules", {}).get("module")
            if inner is None:
                return mod
            mod = inner
        return mod

    def _walk(self, root):
        """[(module, relative path or None for the root's own)], root first;
        modules named before keep their names (and their subtrees)."""
        out = [(root, None)]
        seen = {id(root)}
        todo = [(root, None)]
        while todo:
            m, rel = todo.pop()
            try:
                children = list(m.named_children())
            except Exception:
                continue
            wrapper = _class_name(m) in MODULE_WRAPPERS
            for name, c in reversed(children):
                if c is None or id(c) in seen or self._live(c) is not None:
                    continue
                seen.add(id(c))
                if name in WRAPPED_ATTRS or (wrapper and name == "module"):
                    crel = rel
                else:
                    crel = name if rel is None else rel + "." + name
                out.append((c, crel))
                todo.append((c, crel))
        return out

    def _add(self, mod, path):
        self.taken.add(path)
        cls = _class_name(mod)
        cat = self.categories.get(cls)
        if cat is None:
            cat = self.categories[cls] = len(self.categories) + 1
            self.nvtx.category(cat, cls)
        fn = self.messages.get((path, cls))
        if fn is None:
            fn = self.messages[path, cls] = self.nvtx.message(path, cls)
        key = id(mod)

        def gone(ref, key=key):
            e = _entries.get(key)
            if e is not None and e[0] is ref:
                del _entries[key]

        _entries[key] = (self.weakref.ref(mod, gone), fn[0], fn[1], cat, path)


class _LibNvtx:
    """Ranges in the llmprof.pytorch domain through libllmprof_nvtx.so."""

    how = "library"

    def __init__(self, path):
        import ctypes

        lib = ctypes.CDLL(path)
        lib.llmprof_nvtx_version.restype = ctypes.c_int
        lib.llmprof_nvtx_version.argtypes = []
        if lib.llmprof_nvtx_version() != LIB_VERSION:
            raise OSError("%s is of another version" % path)
        lib.llmprof_nvtx_init.restype = ctypes.c_int
        lib.llmprof_nvtx_init.argtypes = [ctypes.c_char_p]
        lib.llmprof_nvtx_register.restype = ctypes.c_void_p
        lib.llmprof_nvtx_register.argtypes = [ctypes.c_char_p]
        lib.llmprof_nvtx_category.restype = None
        lib.llmprof_nvtx_category.argtypes = [ctypes.c_uint32, ctypes.c_char_p]
        lib.llmprof_nvtx_push.restype = ctypes.c_int
        lib.llmprof_nvtx_push.argtypes = [ctypes.c_void_p, ctypes.c_uint32]
        lib.llmprof_nvtx_push_ascii.restype = ctypes.c_int
        lib.llmprof_nvtx_push_ascii.argtypes = [ctypes.c_char_p, ctypes.c_uint32]
        lib.llmprof_nvtx_pop.restype = ctypes.c_int
        lib.llmprof_nvtx_pop.argtypes = []
        self.lib = lib
        self.path = path
        self.attached = bool(lib.llmprof_nvtx_init(DOMAIN.encode()))
        self.pop = lib.llmprof_nvtx_pop

    def category(self, cat, cls):
        self.lib.llmprof_nvtx_category(cat, cls.encode("utf-8", "backslashreplace"))

    def message(self, path, cls):
        text = path.encode("utf-8", "backslashreplace")
        handle = self.lib.llmprof_nvtx_register(text)
        if handle:
            return self.lib.llmprof_nvtx_push, handle
        return self.lib.llmprof_nvtx_push_ascii, text


class _TorchNvtx:
    """The fallback without the library: torch.cuda.nvtx, default domain,
    "llmprof.pytorch:PATH [CLASS]" (no categories there)."""

    how = "torch.cuda.nvtx (default domain)"
    attached = True

    def __init__(self, torch):
        nvtx = torch.cuda.nvtx
        push = nvtx.range_push
        self.pop = nvtx.range_pop
        self.push = lambda text, cat: push(text)

    def category(self, cat, cls):
        pass

    def message(self, path, cls):
        return self.push, "%s%s [%s]" % (FALLBACK_PREFIX, path, cls)


def _no_sync(*args, **kwargs):
    return None


def _install_ops(torch, shapes):
    """PyTorch's own NVTX operator ranges (what emit_nvtx gives), entered
    once and never left, on the thread that imported torch (and the threads
    PyTorch hands its profiler state to, such as autograd's)."""
    ctx = torch.autograd.profiler.emit_nvtx(enabled=True, record_shapes=shapes)
    cuda = torch.cuda
    sync = cuda.synchronize
    # emit_nvtx's __enter__ synchronizes the device: during import that would
    # start CUDA in a program that may not want it yet
    cuda.synchronize = _no_sync
    try:
        ctx.__enter__()
    finally:
        cuda.synchronize = sync
    return ctx


def _quiet_dynamo_warning():
    """PyTorch (2.8 and later) warns once when a torch.compile(module)
    wrapper is called while global module hooks exist: the hooks fire for
    the wrapper too. Those hooks are ours, the extra range is meant (the
    module that called the compiled code), and the program's stderr must
    read as without llmprof: that one warning, from Dynamo, is ignored."""
    import warnings

    warnings.filterwarnings("ignore", message=r"(?s).*global.*hook", category=UserWarning,
                            module=r"torch\._dynamo")


def _env_budget():
    raw = os.environ.get("LLMPROF_PYTORCH_BUDGET", "")
    try:
        b = float(raw)
        if not 0 <= b <= 100:
            raise ValueError(raw)
        return b
    except ValueError:
        if raw:
            log("warning", "LLMPROF_PYTORCH_BUDGET=%r is no share in [0, 100]: %g %%"
                % (raw, DEFAULT_BUDGET))
        return DEFAULT_BUDGET


def _env_depth():
    raw = os.environ.get("LLMPROF_PYTORCH_DEPTH", "")
    try:
        d = int(raw)
    except ValueError:
        if raw:
            log("warning", "LLMPROF_PYTORCH_DEPTH=%r is not a number: depth %d"
                % (raw, DEFAULT_DEPTH))
        return DEFAULT_DEPTH
    if d < 1:
        log("warning", "LLMPROF_PYTORCH_DEPTH=%d is below 1: depth 1" % d)
        return 1
    return d


def _find_is_compiling(torch):
    f = getattr(getattr(torch, "compiler", None), "is_compiling", None)
    if f is None:
        f = getattr(getattr(torch, "_utils", None), "is_compiling", None)
    if f is None and not hasattr(torch, "compile"):
        f = _never  # no Dynamo in this torch
    return f


def _never():
    return False


def _nvtx_backend(torch):
    path = os.environ.get("LLMPROF_PYTORCH_NVTX_LIB") or os.path.join(
        os.path.dirname(os.path.abspath(__file__)), LIB_NAME)
    try:
        return _LibNvtx(path), None
    except Exception as e:
        why = "%s: %s" % (type(e).__name__, e)
    return _TorchNvtx(torch), why


_kept = []  # what must live as long as the process: hook handles, the ops context
_reporting = []  # the exit handler, registered once


def _sink(*args):
    """calibrate()'s NVTX: the hooks' whole path, no range."""
    return 0


def _register(modmod):
    """Registers the two hooks: ([pre, post], always_call given). Leaves
    none registered when it raises."""
    pre = modmod.register_module_forward_pre_hook(_pre_hook)
    try:
        try:
            post = modmod.register_module_forward_hook(_post_hook, always_call=True)
            return [pre, post], True
        except TypeError:
            return [pre, modmod.register_module_forward_hook(_post_hook)], False
    except BaseException:
        pre.remove()
        raise


def calibrate(torch, modmod):
    """What PyTorch's hooked call path costs beyond the hook bodies, ns a
    call: batches of CAL_CALLS calls of a trivial module (no tensor, no
    state: forward returns its argument, None), each batch once without the
    global hooks (as the program was; other tools' global hooks stay) and
    once with llmprof's, interleaved (a first pair unrecorded, warming up).
    With the hooks the module gets a range that goes nowhere (_sink: the
    bodies run their whole path, named module, stack, counters, and push
    nothing into the trace); the bodies' own time, as they time it, is taken
    out: in the program they are timed as they run, the real NVTX tool's
    cost included. (min over batches of hooked - bodies) - (min of plain),
    over CAL_CALLS; never below 0. Runs before the hooks go live, on the
    importing thread, with the GIL as any Python code; leaves no hook, no
    name and no count behind, also when it raises (which install() turns
    into ranges off). Returns (ns a call, a line saying how it was found)."""
    global _on, _pop, _calls, _hook_ns, _pushed, _wall0, _next_check
    import threading
    import weakref

    class LlmprofProbe(torch.nn.Module):
        def forward(self, x):
            return x

    probe = LlmprofProbe()
    me = threading.get_ident()
    real_pop = _pop

    def pop():  # the probe's pops go nowhere; another thread's are its own
        return 0 if threading.get_ident() == me else real_pop()

    clock = _clock
    calls = range(CAL_CALLS)
    plain, hooked = [], []
    handles = []
    saved = (_on, _next_check)
    _entries[id(probe)] = (weakref.ref(probe), _sink, None, 0, "(calibration)")
    _pop = pop
    _on, _next_check = True, float("inf")  # no auto judgement of the probe
    start = clock()
    try:
        for b in range(CAL_BATCHES + 1):
            t0 = clock()
            for _ in calls:
                probe(None)
            t1 = clock()
            handles = _register(modmod)[0]
            h0 = _hook_ns
            t2 = clock()
            for _ in calls:
                probe(None)
            t3 = clock()
            h1 = _hook_ns
            for h in handles:
                h.remove()
            handles = []
            if not _on:  # _fail() said why
                raise RuntimeError("the hooks failed on a trivial module")
            if b:
                plain.append(t1 - t0)
                hooked.append((t3 - t2, h1 - h0))
            if b >= CAL_MIN_BATCHES and clock() - start > CAL_MAX_NS:
                break
    finally:
        for h in handles:
            h.remove()
        _entries.pop(id(probe), None)
        _pop = real_pop
        _on, _next_check = saved
        _calls = _hook_ns = _pushed = 0
        _wall0 = None
    spent = clock() - start
    base = min(plain)
    with_ = min(t for t, _ in hooked)
    path = min(t - b for t, b in hooked)
    bodies = sorted(b for _, b in hooked)[len(hooked) // 2]
    ns = max(0.0, (path - base) / float(CAL_CALLS))
    return ns, ("calibration: hooked call path %.3f us a call (a trivial module: %.3f us "
                "without the hooks, %.3f us with them, %.3f us of it in their bodies; min of "
                "%d batches of %d calls each way, %.1f ms)"
                % (ns / 1e3, base / 1e3 / CAL_CALLS, with_ / 1e3 / CAL_CALLS,
                   bodies / 1e3 / CAL_CALLS, len(plain), CAL_CALLS, spent / 1e6))


def uninstall():
    """Removes the hooks and leaves PyTorch's operator ranges, and returns
    what the hooks cost since install() ({"calls", "hook_ms", "path_us",
    "est_ms", "wall_ms", "slowdown_pct": _cost()'s, "ranges", "on", and
    "judged_pct": auto's last judged estimate or None), counters reset.
    Not for programs: for bench/pytorch/modes-overhead.sh, which measures
    every mode in one process (install() again after setting
    LLMPROF_PYTORCH). Never raises."""
    global _on, _calls, _hook_ns, _pushed, _wall0, _next_check, _auto, _judged, _base
    try:
        out = dict(zip(("calls", "hook_ms", "path_us", "est_ms", "wall_ms", "slowdown_pct"),
                       _cost()))
        out.update(ranges=_pushed, on=_on, judged_pct=_judged)
        _on = False
        for h in _handles:
            h.remove()
        del _handles[:]
        for k in _kept:
            if hasattr(k, "__exit__"):
                k.__exit__(None, None, None)
        del _kept[:]
        for st in _stacks:
            del st[:]
        _calls = _hook_ns = _pushed = 0
        _wall0 = None
        _next_check = AUTO_MIN_CALLS
        _auto = _judged = _base = None
        return out
    except Exception as e:
        log("error", "uninstall: %s: %s" % (type(e).__name__, e))
        return {}


def install(torch):
    """Registers the hooks on torch (just imported), after calibrate(). Never
    raises."""
    global _on, _depth, _tls, _is_compiling, _pop, _names, _clock, _auto, _path_ns
    try:
        mode = os.environ.get("LLMPROF_PYTORCH", "")
        if mode not in ("auto", "modules", "ops"):
            return
        version = getattr(torch, "__version__", "?")
        modmod = torch.nn.modules.module
        is_compiling = _find_is_compiling(torch)
        if is_compiling is None:
            log("error", "torch %s has torch.compile but no is_compiling(): no module "
                "ranges (they could break its graphs)" % version)
            return
        import atexit
        import threading
        import time

        nvtx, why = _nvtx_backend(torch)
        if why:
            log("warning", "%s not loaded (%s): module ranges go to NVTX's default domain "
                "through torch.cuda.nvtx, named %sPATH [CLASS]" % (LIB_NAME, why, FALLBACK_PREFIX))
        _depth = _env_depth()
        _auto = _env_budget() if mode == "auto" else None
        _clock = time.perf_counter_ns
        _tls = threading.local()
        _is_compiling = is_compiling
        _pop = nvtx.pop
        if _names is None:  # again after uninstall(): the names and categories given stay
            _names = _Names(nvtx)
        try:
            _path_ns, how = calibrate(torch, modmod)
        except Exception as e:
            _on = False
            log("error", "module ranges off: calibrating the hooks' cost failed: %s: %s"
                % (type(e).__name__, e))
            return
        log("info", how)
        handles, always = _register(modmod)
        _kept.extend(handles)
        _handles.extend(handles)
        _quiet_dynamo_warning()
        if not _reporting:
            atexit.register(_report)
            _reporting.append(_report)
        _on = True
        log("info", "module ranges on: torch %s, domain %s, depth %d, NVTX through %s%s%s"
            % (version, DOMAIN if nvtx.how == "library" else "(default)", _depth,
               nvtx.path if nvtx.how == "library" else nvtx.how,
               "" if nvtx.attached else " (no NVTX tool attached: ranges go nowhere)",
               "" if always else "; this torch has no always_call: a forward that raises "
               "ends its ranges at its caller's return"))
        if _auto is not None:
            log("info", "auto: module ranges on while they make the program at most %g %% "
                "slower (estimated from the %dth module call on: module calls x the "
                "calibrated call path + the hooks' own time, over the wall time)"
                % (_auto, AUTO_MIN_CALLS))
        if mode == "ops":
            shapes = os.environ.get("LLMPROF_PYTORCH_SHAPES", "0") == "1"
            try:
                _kept.append(_install_ops(torch, shapes))
                log("info", "operator ranges on (emit_nvtx, shapes %s) on thread %s"
                    % ("on" if shapes else "off", threading.current_thread().name))
            except Exception as e:
                log("error", "operator ranges off: %s: %s" % (type(e).__name__, e))
    except Exception as e:
        _on = False
        log("error", "module ranges off: installing the hooks failed: %s: %s"
            % (type(e).__name__, e))
