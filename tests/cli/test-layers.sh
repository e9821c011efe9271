#!/usr/bin/env bash
# The source's layers point one way: a file may include only headers of its
# own folder or of a lower layer (docs/internals.md, "Layers"). Declared
# order, lowest first; folders on one line are one layer and may not include
# each other:
#   core < config < model < trace < bundle < analysis < report, nsight < pipeline < cmd
# Also fails on a folder under src/ that no layer names, so a new folder is a
# decision, not an accident.
#
# The two folders outside src/ that share code with it are rows of their
# own (docs/internals.md says why):
#   workloads/  may include core/ only; src/ may include workloads/llm_shape.h
#               (the model's shape limits and analytic cost), from config/
#               up, and nothing else of workloads/
#   tracer/     may include trace/ only (the log format it writes, its
#               environment, rank identity, API names); nothing includes it
# A probe tree checks the checker first.
set -u
src=${LLMPROF_SOURCE_DIR:?}
fail=0

layers='core
config
model
trace
bundle
analysis
report nsight
pipeline
cmd'

# outside: FOLDER MAY-INCLUDE EXPORTED-HEADER@LOWEST-LAYER-THAT-MAY-INCLUDE-IT
outside='workloads core llm_shape.h@config
tracer trace'

# check ROOT: prints "FILE: includes HEADER (LAYER above LAYER)" per breach
check() {
	local root=$1
	python3 - "$root" "$layers" "$outside" <<'PY'
import os, re, sys
root, spec, out_spec = sys.argv[1], sys.argv[2], sys.argv[3]
rank = {}
for i, line in enumerate(spec.split("\n")):
    for name in line.split():
        rank[name] = i
may, exports = {}, {}
for line in out_spec.split("\n"):
    f = line.split()
    may[f[0]] = {w for w in f[1:] if "@" not in w}
    exports[f[0]] = dict(w.split("@") for w in f[1:] if "@" in w)
inc_re = re.compile(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/([^"]+)"', re.M)
bad = 0

def report(msg):
    global bad
    print(msg)
    bad += 1

def sources(top):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in sorted(files):
            if f.endswith((".c", ".h", ".cu")):
                yield os.path.relpath(os.path.join(d, f), root)

# src/: one layer per folder; workloads/ and tracer/ only as their rows allow
for path in sources("src"):
    rel = os.path.relpath(os.path.dirname(path), "src")
    top = rel.split(os.sep)[0]
    if rel == ".":
        mine, top = len(rank), "main"  # src/main.c stands above every layer
    elif top not in rank:
        report(f"{path}: folder src/{top}/ is in no layer")
        continue
    else:
        mine = rank[top]
    text = open(os.path.join(root, path), errors="replace").read()
    for m in inc_re.finditer(text):
        other, header = m.group(1), m.group(2)
        inc = f'"{other}/{header}"'
        if other == top:
            continue
        if other in may:
            low = exports[other].get(header)
            if low is None:
                allowed = ", ".join(f"{other}/{h}" for h in exports[other]) or "nothing"
                report(f"{path}: includes {inc}: src/ may include {allowed} of {other}/")
            elif mine < rank[low]:
                report(f"{path}: includes {inc}: only {low}/ and the layers above may")
        elif other not in rank:
            report(f"{path}: includes {inc} from src/{other}/, in no layer")
        elif rank[other] > mine or (rank[other] == mine and other != top):
            report(f"{path}: includes {inc}: {other} is not below {top}")

# workloads/ and tracer/: their own folder, and the layers their row names
for top in may:
    for path in sources(top):
        text = open(os.path.join(root, path), errors="replace").read()
        for m in inc_re.finditer(text):
            other = m.group(1)
            if other != top and other not in may[top]:
                allowed = ", ".join(f"{o}/" for o in sorted(may[top]))
                report(f'{path}: includes "{other}/{m.group(2)}": {top}/ may include {allowed} only')
sys.exit(1 if bad else 0)
PY
}

# 1. the checker catches an upward include, a sideways one, a stray folder,
# and every include across the rows of workloads/ and tracer/
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/src/core" "$probe/src/config" "$probe/src/report" "$probe/src/nsight" \
	"$probe/src/misc" "$probe/workloads" "$probe/tracer"
printf '#include "cmd/cmd.h"\n' >"$probe/src/core/a.c"
printf '#include "nsight/n.h"\n' >"$probe/src/report/b.c"
printf '#include "core/a.h"\n' >"$probe/src/nsight/n.h"
printf 'int x;\n' >"$probe/src/misc/m.c"
printf '#include "workloads/llm_shape.h"\n' >"$probe/src/core/w.c"
printf '#include "workloads/llm_shape.h"\n' >"$probe/src/config/ok.c"
printf '#include "workloads/llm.h"\n' >"$probe/src/report/w.c"
printf '#include "tracer/tracer.h"\n' >"$probe/src/nsight/t.c"
printf '#include "llm.h"\n#include "core/strbuf.h"\n#include "trace/trace.h"\n' \
	>"$probe/workloads/w.c"
printf '#include "trace/tracelog.h"\n#include "core/util.h"\n' >"$probe/tracer/t.c"
out=$(check "$probe")
for want in 'src/core/a.c: includes "cmd/cmd.h"' 'src/report/b.c: includes "nsight/n.h"' \
	'src/misc/m.c: folder src/misc/ is in no layer' \
	'src/core/w.c: includes "workloads/llm_shape.h": only config/ and the layers above may' \
	'src/report/w.c: includes "workloads/llm.h": src/ may include workloads/llm_shape.h of workloads/' \
	'src/nsight/t.c: includes "tracer/tracer.h": src/ may include nothing of tracer/' \
	'workloads/w.c: includes "trace/trace.h": workloads/ may include core/ only' \
	'tracer/t.c: includes "core/util.h": tracer/ may include trace/ only'; do
	case $out in *"$want"*) ;; *) echo "FAIL: the checker missed: $want"; fail=1 ;; esac
done
for wrong in nsight/n.h: src/config/ok.c workloads/w.c:\ includes\ \"core tracer/t.c:\ includes\ \"trace; do
	case $out in *"$wrong"*) echo "FAIL: the checker flagged an include it allows: $wrong"; fail=1 ;; esac
done

# 2. the tree
if ! out=$(check "$src"); then
	echo "FAIL: includes against the layer order:"
	echo "$out"
	fail=1
fi

# 3. every source file under src/ includes core/banned.h, which turns the
# calls the conventions avoid (strcpy, sprintf, atoi, ...) into build errors
missing=$(cd "$src" && grep -L -r --include='*.c' 'core/banned.h' src)
if [ -n "$missing" ]; then
	echo "FAIL: without core/banned.h: $missing"
	fail=1
fi
exit $fail
