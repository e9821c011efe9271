#!/usr/bin/env bash
# The source's layers point one way: a file may include only headers of its
# own folder or of a lower layer (docs/internals.md, "Layers"). Declared
# order, lowest first; folders on one line are one layer and may not include
# each other:
#   core < config < model < trace < bundle < analysis < report, nsight < pipeline < cmd
# Also fails on a folder under src/ that no layer names, so a new folder is a
# decision, not an accident. A probe tree checks the checker first.
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

# check ROOT: prints "FILE: includes HEADER (LAYER above LAYER)" per breach
check() {
	local root=$1
	python3 - "$root" "$layers" <<'PY'
import os, re, sys
root, spec = sys.argv[1], sys.argv[2]
rank = {}
for i, line in enumerate(spec.split("\n")):
    for name in line.split():
        rank[name] = i
bad = 0
for d, _, files in os.walk(os.path.join(root, "src")):
    rel = os.path.relpath(d, os.path.join(root, "src"))
    top = rel.split(os.sep)[0]
    for f in sorted(files):
        if not f.endswith((".c", ".h")):
            continue
        path = os.path.join("src", rel, f) if rel != "." else os.path.join("src", f)
        if rel == ".":
            mine = len(rank)  # src/main.c stands above every layer
        elif top not in rank:
            print(f"{path}: folder src/{top}/ is in no layer")
            bad += 1
            continue
        else:
            mine = rank[top]
        text = open(os.path.join(root, path), errors="replace").read()
        for m in re.finditer(r'^\s*#\s*include\s+"([A-Za-z0-9_]+)/[^"]+"', text, re.M):
            other = m.group(1)
            if other == top or other not in rank and other in ("workloads", "tracer"):
                continue
            if other not in rank:
                print(f"{path}: includes {m.group(0).split(None, 1)[1].strip()} from src/{other}/, in no layer")
                bad += 1
            elif rank[other] > mine or (rank[other] == mine and other != top):
                print(f"{path}: includes {m.group(0).split(None, 1)[1].strip()}: {other} is not below {top if rel != '.' else 'main'}")
                bad += 1
sys.exit(1 if bad else 0)
PY
}

# 1. the checker catches an upward include, a sideways one and a stray folder
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/src/core" "$probe/src/report" "$probe/src/nsight" "$probe/src/misc"
printf '#include "cmd/cmd.h"\n' >"$probe/src/core/a.c"
printf '#include "nsight/n.h"\n' >"$probe/src/report/b.c"
printf '#include "core/a.h"\n' >"$probe/src/nsight/n.h"
printf 'int x;\n' >"$probe/src/misc/m.c"
out=$(check "$probe")
for want in 'src/core/a.c: includes "cmd/cmd.h"' 'src/report/b.c: includes "nsight/n.h"' \
	'src/misc/m.c: folder src/misc/ is in no layer'; do
	case $out in *"$want"*) ;; *) echo "FAIL: the checker missed: $want"; fail=1 ;; esac
done
case $out in *nsight/n.h:*) echo "FAIL: the checker flagged nsight -> core"; fail=1 ;; esac

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
