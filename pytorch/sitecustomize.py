"""llmprof's startup module for PyTorch programs (docs/pytorch.md).

`llmprof profile` puts this folder first on PYTHONPATH, so every Python
interpreter of the profiled program imports this file at start-up (site.py
imports the first ``sitecustomize`` on sys.path). It only installs an import
hook that waits for ``import torch`` (it never imports torch itself), then
runs the ``sitecustomize`` that would have run without llmprof: the next one
on sys.path after this folder. Without LLMPROF_PYTORCH=modules or ops it
installs nothing and only chains.
"""


def _llmprof_start():
    import os
    import sys

    here = os.path.dirname(os.path.abspath(__file__))
    if os.environ.get("LLMPROF_PYTORCH", "") in ("modules", "ops"):
        try:
            import _llmprof_pytorch

            _llmprof_pytorch.start()
        except Exception as e:  # never into the program: say why and go on
            try:
                import _llmprof_pytorch

                _llmprof_pytorch.log("error", "startup module not installed: %s: %s"
                                     % (type(e).__name__, e))
            except Exception:
                pass
    _llmprof_chain(here, os, sys)


def _llmprof_chain(here, os, sys):
    """Runs the next sitecustomize on sys.path, as site.py would have; its
    errors are its own and reach site.py as they would have."""
    import importlib.machinery
    import importlib.util

    rest = []
    for p in sys.path:
        try:
            if os.path.samefile(p or os.curdir, here):
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


_llmprof_start()
