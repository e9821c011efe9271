#!/usr/bin/env bash
# docs/internals.md maps every source file: under "## Every file", a
# "### `FOLDER/`" heading per folder of src/, tracer/ and workloads/, and a
# "- `NAME`: what it owns" line per .c and .cu file and per header without
# a .c or .cu of its own name. Fails on a file the map does not name (a new
# or moved file without its line) and on a name that is no file (a deleted
# or moved one still listed). A probe tree checks the checker first.
set -u
src=${LLMPROF_SOURCE_DIR:?}
fail=0

# check ROOT: prints one line per file missing from ROOT/docs/internals.md
# and per name there that is no file
check() {
	python3 - "$1" <<'PY'
import os, re, sys
root = sys.argv[1]
have = set()
for top in ("src", "tracer", "workloads"):
    for d, _, files in os.walk(os.path.join(root, top)):
        for f in files:
            base, ext = os.path.splitext(f)
            lone_h = ext == ".h" and not any(
                os.path.exists(os.path.join(d, base + e)) for e in (".c", ".cu"))
            if ext in (".c", ".cu") or lone_h:
                have.add(os.path.relpath(os.path.join(d, f), root))
named, folder, inside = set(), None, False
for line in open(os.path.join(root, "docs", "internals.md"), errors="replace"):
    if line.startswith("## "):
        inside = line.strip() == "## Every file"
        continue
    if not inside:
        continue
    m = re.match(r"### `([^`]+)/`\s*$", line)
    if m:
        folder = m.group(1)
        continue
    m = re.match(r"- `([^`/]+)`:", line)
    if m and folder:
        named.add(os.path.join(folder, m.group(1)))
bad = 0
for f in sorted(have - named):
    print(f"{f}: not on the map (docs/internals.md, \"Every file\")")
    bad += 1
for f in sorted(named - have):
    print(f"{f}: on the map, but no such file")
    bad += 1
sys.exit(1 if bad else 0)
PY
}

# 1. the checker: a file not named, a name that is no file, a header that
# goes with its .c, a name under the wrong folder, a name outside the section
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
mkdir -p "$probe/src/core" "$probe/tracer" "$probe/workloads" "$probe/docs"
touch "$probe/src/main.c" "$probe/src/core/a.c" "$probe/src/core/a.h" "$probe/src/core/lone.h" \
	"$probe/src/core/b.c" "$probe/tracer/t.c" "$probe/workloads/w.cu" "$probe/workloads/x.c"
cat >"$probe/docs/internals.md" <<'EOF'
## Layers

- `x.c`: named outside the section does not count

## Every file

### `src/`

- `main.c`: the entry point

### `src/core/`

- `a.c`: a
- `lone.h`: a header on its own
- `gone.c`: deleted
- `t.c`: under the wrong folder

### `tracer/`

- `t.c`: t

### `workloads/`

- `w.cu`: w

## Conventions
EOF
out=$(check "$probe")
for want in 'src/core/b.c: not on the map' 'workloads/x.c: not on the map' \
	'src/core/gone.c: on the map, but no such file' 'src/core/t.c: on the map, but no such file'; do
	case $out in *"$want"*) ;; *) echo "FAIL: the checker missed: $want"; fail=1 ;; esac
done
for wrong in src/main.c src/core/a.c src/core/a.h src/core/lone.h tracer/t.c workloads/w.cu; do
	case $out in *"$wrong:"*) echo "FAIL: the checker flagged $wrong"; fail=1 ;; esac
done

# 2. the tree
if ! out=$(check "$src"); then
	echo "FAIL: docs/internals.md does not map every source file:"
	echo "$out"
	fail=1
fi
exit $fail
