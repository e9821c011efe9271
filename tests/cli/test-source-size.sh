#!/usr/bin/env bash
# Size limits on the project's own C (not workloads/, tests/): no file over
# 1,000 lines and no function over 150 lines, so each file and function can
# be read whole (docs/internals.md, "Conventions"). A function is counted
# from its first line to the "}" in column 0 that closes it (the style puts a
# function's braces in column 0). A probe checks the counter first.
set -u
src=${LLMPROF_SOURCE_DIR:?}
MAX_FILE=1000
MAX_FUNC=150
fail=0

# measure FILE...: "FILE: N lines" / "FILE:LINE: NAME: N lines" past a limit
measure() {
	python3 - "$MAX_FILE" "$MAX_FUNC" "$@" <<'PY'
import re, sys
max_file, max_func = int(sys.argv[1]), int(sys.argv[2])
bad = 0
for path in sys.argv[3:]:
    lines = open(path, errors="replace").read().split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    if len(lines) > max_file:
        print(f"{path}: {len(lines)} lines (at most {max_file})")
        bad += 1
    start = None
    for i, l in enumerate(lines):
        if l.startswith("{") and start is None:
            # the signature: back to the line that opens it (not blank, not
            # a comment or preprocessor line, not a closing brace)
            j = i - 1
            while j > 0 and lines[j - 1].strip() and not lines[j - 1].startswith(("}", "#", "/*", " *", "*/")) \
                    and not lines[j - 1].rstrip().endswith((";", "*/")):
                j -= 1
            start = j
        elif l.startswith("}") and start is not None:
            n = i - start + 1
            m = re.search(r"([A-Za-z_][A-Za-z0-9_]*)\s*\(", " ".join(lines[start:start + 3]))
            name = m.group(1) if m else "?"
            if n > max_func and not lines[start].rstrip().endswith("="):
                print(f"{path}:{start + 1}: {name}: {n} lines (at most {max_func})")
                bad += 1
            start = None
sys.exit(1 if bad else 0)
PY
}

# 1. the counter sees a long function and a long file
probe=$(mktemp -d)
trap 'rm -rf "$probe"' EXIT
{
	printf 'static int\nlong_one(void)\n{\n'
	for i in $(seq 1 160); do printf '\tx();\n'; done
	printf '}\n\nint short_one(void)\n{\n\treturn 0;\n}\n'
} >"$probe/f.c"
out=$(measure "$probe/f.c")
case $out in *"f.c:1: long_one: 164 lines"*) ;; *) echo "FAIL: the counter said: $out"; fail=1 ;; esac
case $out in *short_one*) echo "FAIL: the counter flagged short_one"; fail=1 ;; esac
for i in $(seq 1 1001); do echo "int v$i;"; done >"$probe/g.c"
case $(measure "$probe/g.c") in *"g.c: 1001 lines"*) ;; *) echo "FAIL: a 1001-line file passed"; fail=1 ;; esac

# 2. the tree
cd "$src" || exit 1
mapfile -t files < <(git ls-files 2>/dev/null -- 'src/*.[ch]' 'tracer/*.[ch]' 'calibrate/*.[ch]' \
	'calibrate/*.cu' 'bench/*.[ch]' 'scripts/*.[ch]' || find src tracer calibrate bench scripts \
	-name '*.[ch]' -o -name '*.cu')
[ ${#files[@]} -gt 50 ] || { echo "FAIL: found only ${#files[@]} source files"; exit 1; }
if ! out=$(measure "${files[@]}"); then
	echo "FAIL: over the size limits:"
	echo "$out"
	fail=1
fi
exit $fail
