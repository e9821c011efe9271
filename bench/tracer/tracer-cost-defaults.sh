#!/usr/bin/env bash
# tracer-cost-defaults.sh: the builtin tracer's defaults against the program
# untraced and CUPTI's floor, 8 interleaved rounds, in one GPU call of under
# 9 minutes on one H200 (the targets, docs/tracer.md "CUPTI's floor and the
# targets": CUDA-graph decode <= x1.05, eager transformers decode <= x1.10,
# or within 0.03 of the floor).
#   bash bench/tracer/tracer-cost-defaults.sh OUT
# Programs and variants (bench/tracer/tracer_cost.py VARIANTS):
#   sim  decode_sim's CUDA-graph and eager loops (300 kernels a step):
#        untraced, floor, builtin (the defaults), builtin_old (the defaults
#        before the kernel-name cache), no_per_thread_bufs (CUPTI's shared
#        activity buffer: a candidate default) and no_convert (records
#        counted, not converted: the most that converting them off CUPTI's
#        thread could save)
#   py   a transformers Llama (1B shape) eager decode and a Llama-shaped
#        step captured with torch.cuda.graph: untraced, floor, builtin,
#        builtin_old
# Everything else as bench/tracer/tracer-cost.sh (which this calls; every
# knob there can be set here too). Builds the tracer, the floor and
# decode_sim from this tree (a staged one too: cc, nvcc and CUPTI of the
# machine), results in OUT (summary.txt first).
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TC_BUDGET_S=${TC_BUDGET_S:-480} TC_GRACE_S=${TC_GRACE_S:-30}
export TC_ROUNDS=${TC_ROUNDS:-8} TC_SIM_BUDGET_S=${TC_SIM_BUDGET_S:-170}
export TC_SIM_ARGS=${TC_SIM_ARGS:-"300 50 3"}
export TC_PY_ARGS=${TC_PY_ARGS:-"layers=16 steps=32 gsteps=64 reps=3 glayers=16"}
export TC_SIM_VARIANTS=${TC_SIM_VARIANTS-"untraced floor builtin builtin_old no_per_thread_bufs no_convert"}
export TC_PY_VARIANTS=${TC_PY_VARIANTS-"untraced floor builtin builtin_old"}
exec bash "$here/tracer-cost.sh" "$@"
