"""Compares llmprof-llm --dump-logits files: rel L2 error of GPU logits
against the CPU reference, and greedy tokens. Usage:
workloads_compare.py REF.bin GOT.bin LABEL TOL"""
import sys
import numpy as np
ref = np.fromfile(sys.argv[1], dtype=np.float32).astype(np.float64)
got = np.fromfile(sys.argv[2], dtype=np.float32).astype(np.float64)
label, tol = sys.argv[3], float(sys.argv[4])
ok = ref.shape == got.shape and np.isfinite(got).all()
rel = float(np.linalg.norm(got - ref) / np.linalg.norm(ref)) if ok else float("nan")
ok = ok and rel <= tol
print(f"logits: {label:48s} n={got.size} rel_l2={rel:.3e} max_abs={np.abs(got-ref).max():.3e} tol={tol:.0e} {'ok' if ok else 'FAIL'}")
