"""llmprof's startup module for PyTorch programs (docs/pytorch.md).

`llmprof profile` puts this folder first on PYTHONPATH, so every Python
interpreter of the profiled program imports this file at start-up (site.py
imports the first ``sitecustomize`` on sys.path). With LLMPROF_PYTORCH=auto, modules
or ops it puts a finder on sys.meta_path that waits for ``import torch``
(it never imports torch itself): once torch's own import has finished, it
loads _llmprof_pytorch.py beside this file, which installs the hooks. Then,
in every case, it runs the ``sitecustomize`` that would have run without
llmprof: the next one on sys.path after this folder.

This file is compiled at every start where __pycache__ cannot be written (an
installed tree), so it stays small: a program that never imports torch
costs one finder call per import and nothing else.
"""


def _llmprof_log(level, message):
    """The error path: _llmprof_pytorch.log() writes the line."""
    try:
        _llmprof_module().log(level, message)
    except Exception:
        pass


def _llmprof_module():
    """_llmprof_pytorch, loaded from this file's folder (whatever sys.path
    has become by the time torch is imported)."""
    import importlib.util
    import os
    import sys

    mod = sys.modules.get("_llmprof_pytorch")
    if mod is None:
        path = os.path.join(_llmprof_here, "_llmprof_pytorch.py")
        spec = importlib.util.spec_from_file_location("_llmprof_pytorch", path)
        mod = importlib.util.module_from_spec(spec)
        sys.modules["_llmprof_pytorch"] = mod
        try:
            spec.loader.exec_module(mod)
        except BaseException:
            sys.modules.pop("_llmprof_pytorch", None)
            raise
    return mod


def _llmprof_install(torch):
    try:
        _llmprof_module().install(torch)
    except Exception as e:  # never into the program: say why and go on
        _llmprof_log("error", "module ranges off: the startup module failed to load: %s: %s"
                     % (type(e).__name__, e))


class _LlmprofLoader:
    """Stands for torch's loader from find_spec to exec_module: puts the real
    one back before torch's code runs, and installs the hooks after."""

    def __init__(self, real, finder):
        self.real = real
        self.finder = finder

    def create_module(self, spec):
        return self.real.create_module(spec)

    def exec_module(self, module):
        spec = getattr(module, "__spec__", None)
        if spec is not None and spec.loader is self:
            spec.loader = self.real
        if getattr(module, "__loader__", None) is self:
            module.__loader__ = self.real
        self.real.exec_module(module)
        self.finder.done()
        _llmprof_install(module)


class _TorchFinder:
    """On sys.meta_path until torch is imported: finds nothing itself; for
    "torch" it asks the finders after it and wraps the loader found."""

    def find_spec(self, name, path=None, target=None):
        if name != "torch":
            return None
        import sys

        try:
            spec = None
            for f in list(sys.meta_path):
                if f is self:
                    continue
                find = getattr(f, "find_spec", None)
                if find is None:
                    continue
                spec = find(name, path, target)
                if spec is not None:
                    break
            if spec is None or not hasattr(spec.loader, "exec_module"):
                return spec
            spec.loader = _LlmprofLoader(spec.loader, self)
            return spec
        except Exception as e:
            _llmprof_log("error", "module ranges off: cannot follow the import of torch: %s: %s"
                         % (type(e).__name__, e))
            self.done()
            return None

    def done(self):
        import sys

        try:
            sys.meta_path.remove(self)
        except ValueError:
            pass

    def invalidate_caches(self):
        pass


def _llmprof_start():
    import os
    import sys

    global _llmprof_here
    _llmprof_here = os.path.dirname(os.path.abspath(__file__))
    if os.environ.get("LLMPROF_PYTORCH", "") in ("auto", "modules", "ops"):
        try:
            torch = sys.modules.get("torch")
            if torch is not None:  # already imported (an embedding interpreter)
                _llmprof_install(torch)
            else:
                sys.meta_path.insert(0, _TorchFinder())
        except Exception as e:
            _llmprof_log("error", "module ranges off: %s: %s" % (type(e).__name__, e))
    _llmprof_chain(os, sys)


def _llmprof_chain(os, sys):
    """Runs the next sitecustomize on sys.path, as site.py would have; its
    errors are its own and reach site.py as they would have."""
    import importlib.machinery
    import importlib.util

    rest = []
    for p in sys.path:
        try:
            if os.path.samefile(p or os.curdir, _llmprof_here):
                continue
        except (OSError, ValueError, TypeError):
            pass
        rest.append(p)
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is None or spec.loader is None:
        return
    mod = importlib.util.module_from_spec(spec)
    sys.modules["sitecustomize"] = mod
    try:
        spec.loader.exec_module(mod)
    except BaseException:
        sys.modules.pop("sitecustomize", None)
        raise


_llmprof_here = None
_llmprof_start()
