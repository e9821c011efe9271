#!/usr/bin/env bash
# tracer-cost-eager.sh: the builtin tracer on eager decode against the
# program untraced and CUPTI's floor, measured so that the ratio holds still
# run to run, in one GPU call of under 6 minutes on one H200 (the target,
# docs/tracer.md "CUPTI's floor and the targets": eager transformers decode
# <= x1.10, or within 0.03 of the floor).
#   bash bench/tracer/tracer-cost-eager.sh OUT
# What holds it still (each the same in every variant):
#   - the launching thread gets a CPU of its own after the program's set-up
#     (the first of TC_PIN, 2-9 on 12 or more CPUs), its hyperthread
#     siblings left idle; every other thread of the process (CUDA's, CUPTI's,
#     the tracer's) runs on the rest of TC_PIN, put back there before each
#     rep: a machine with cores to spare, where the tracer's threads take
#     nothing from the launching one (their CPU time is the "oth cpu" column)
#   - torch's intra-op threads: 1 (as serving engines set for GPU workers)
#   - Python's collector: everything alive after the warm-up frozen, a
#     collection before each rep, so no full collection of the imported
#     modules lands in a timed loop
#   - the Python program decodes eagerly only (no CUDA-graph step), 48
#     tokens a rep, 3 reps a process after one warm-up rep, and as many
#     rounds of short processes as the budget allows: the spread between
#     processes is what the paired ratios have to beat
#   - every rep starts with a fixed pure-Python loop (calib) and every run
#     records the pinned CPUs' steal time, so a slow CPU is seen, not guessed
# Variants (bench/tracer/tracer_cost.py VARIANTS), interleaved with a
# rotating start:
#   untraced, floor (CONCURRENT_KERNEL only), floor_launch (the floor plus
#   CUPTI's launch records, what NVTX attribution needs), builtin (the
#   defaults); the Python program also untraced_shared (untraced with every
#   thread on all of TC_PIN, as the last run had it: what the placement
#   changes); decode_sim also cupti_thread_ids (the defaults with CUPTI's
#   own thread ids: what OS thread ids cost) and no_launch_records
# summary.txt ends each table with verdict lines: the builtin's paired ratio
# and its per-round distance to each floor, median and quartiles, against
# the target, then a calib reading (the same with each run's loop over its
# calib: a CPU slow for a whole process taken out; not the verdict).
# Everything else as bench/tracer/tracer-cost.sh (which this
# calls; every knob there can be set here too).
set -u
here=$(cd "$(dirname "$0")" && pwd)
export TC_BUDGET_S=${TC_BUDGET_S:-320} TC_GRACE_S=${TC_GRACE_S:-25}
export TC_ROUNDS=${TC_ROUNDS:-24} TC_SIM_BUDGET_S=${TC_SIM_BUDGET_S:-65}
export TC_PLACE=${TC_PLACE:-auto}
export TC_SIM_ARGS=${TC_SIM_ARGS:-"300 30 3"}
export TC_PY_ARGS=${TC_PY_ARGS:-"layers=16 steps=48 reps=3 warm=1 graph=0 threads=1 gc=freeze"}
export TC_SIM_VARIANTS=${TC_SIM_VARIANTS-"untraced floor floor_launch builtin no_launch_records cupti_thread_ids"}
export TC_PY_VARIANTS=${TC_PY_VARIANTS-"untraced untraced_shared floor floor_launch builtin"}
exec bash "$here/tracer-cost.sh" "$@"
