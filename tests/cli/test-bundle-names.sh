#!/usr/bin/env bash
# The run bundle's files are named in one place: the table of
# src/bundle/layout.c (docs/internals.md, "Layers").
#  1. docs/run-bundle.md's table is exactly `llmprof help --bundle-files`.
#  2. No string literal in a .c file under src/ outside src/bundle/ spells a
#     name from that table: a file name ("status.json", "ncu/raw.csv", its
#     last component "raw.csv"), a folder inside another ("ncu/regions"), or
#     a name with a varying part ("logs/<step>.out" as "logs/%s.out"), or
#     the base a tool adds its own suffix to ("ncu/k%zu" for
#     ncu/k<i>.ncu-rep, "nsys/summary" for nsys/summary_<report>.csv).
#     Folder names alone ("logs", "charts") are too common a word to tell
#     apart and are not searched. Exempt: the static help text of the
#     command table (cmd/*.c opts[] and cmd_entry: prose --help prints,
#     checked by test-help.sh), and the allow-list below, each with why.
# A probe tree checks the checker first.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:?}
tmp=$(mktemp -d /tmp/llmprof-cli-names.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail=0

"$LLMPROF" help --bundle-files >"$tmp/table" || { echo "FAIL: help --bundle-files: exit $?"; exit 1; }

# 1. the doc's table is the generated one
sed -n '/<!-- BEGIN BUNDLE FILES/,/<!-- END BUNDLE FILES/p' "$src/docs/run-bundle.md" |
	sed '1d;$d' >"$tmp/doc-table"
if ! diff -u "$tmp/doc-table" "$tmp/table" >"$tmp/diff"; then
	echo "FAIL: docs/run-bundle.md's file table differs from 'llmprof help --bundle-files'; regenerate it:"
	cat "$tmp/diff"
	fail=1
fi

# Files that may spell names, and why. Paths relative to the source tree;
# a folder ends in '/'.
allow='src/bundle/ the table itself
src/config/ below src/bundle/ (it cannot ask the table); conf/config.yaml is the configuration'"'"'s own file, whose name a bundle'"'"'s copy keeps so that a bundle loads as a conf dir'

# scan ROOT: prints "FILE:LINE: NAME in LITERAL" per spelling
scan() {
	python3 - "$1" "$tmp/table" "$allow" <<'PY'
import os, re, sys
root, table, allow = sys.argv[1], sys.argv[2], sys.argv[3]
allowed = [l.split(" ", 1)[0] for l in allow.splitlines() if l.strip()]
paths = []
for line in open(table):
    m = re.match(r"\| `([^`]+)` \|", line)
    if m:
        paths.append(m.group(1).rstrip("/"))
B = r"(?<![A-Za-z0-9_-])(?<!docs/)"  # a name starts the literal or follows a separator;
                                    # docs/report.md is a page of the docs, not the file
E = r"(?![A-Za-z0-9_])"      # and ends there
pats = set()
VAR = r"(?:%[-#0-9.]*[a-z]+|[A-Za-z0-9_-]+|<[a-z]+>)"
for p in paths:
    if "<" in p:
        parts = re.split(r"<[a-z]+>", p)
        pats.add((p, B + VAR.join(re.escape(x) for x in parts) + E))
    elif "." in p.rsplit("/", 1)[-1]:
        pats.add((p, B + re.escape(p) + E))
        base = p.rsplit("/", 1)[-1]
        pats.add((base, B + re.escape(base) + E))
    if "/" in p:
        # the base a tool adds its own extension or suffix to
        # ("ncu/k%zu" for ncu/k<i>.ncu-rep, "nsys/summary" for
        # nsys/summary_<report>.csv): a folder path and the last
        # component up to its first dot or underscore, when that leaves
        # a name of its own
        d, last = p.rsplit("/", 1)
        stem = re.split(r"[._]", last, 1)[0]
        if stem and stem != last:
            parts = re.split(r"<[a-z]+>", d + "/" + stem)
            pats.add((d + "/" + stem, B + VAR.join(re.escape(x) for x in parts) + r"(?![A-Za-z0-9_./-])"))
    elif "/" in p:
        pats.add((p, B + re.escape(p) + E))
pats = [(n, re.compile(r)) for n, r in sorted(pats)]

def literals(text):
    """(offset, string) of every string literal, comments skipped"""
    i, n = 0, len(text)
    while i < n:
        c = text[i]
        if text.startswith("//", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        elif text.startswith("/*", i):
            j = text.find("*/", i + 2)
            i = n if j < 0 else j + 2
        elif c == "'":
            j = i + 1
            while j < n and text[j] != "'":
                j += 2 if text[j] == "\\" else 1
            i = j + 1
        elif c == '"':
            j = i + 1
            while j < n and text[j] != '"':
                j += 2 if text[j] == "\\" else 1
            yield i, text[i + 1:j]
            i = j + 1
        elif text.startswith("#include", i):
            i = text.find("\n", i)
            i = n if i < 0 else i
        else:
            i += 1

def help_spans(text):
    """the command table's static help: opts[] and a cmd_entry"""
    spans = []
    for m in re.finditer(r"static const struct opt \w+\[\] = \{|const struct cmd_entry \w+ = \{", text):
        end = text.find("\n};", m.end())
        spans.append((m.start(), len(text) if end < 0 else end))
    return spans

bad = 0
for d, _, files in os.walk(os.path.join(root, "src")):
    for f in sorted(files):
        if not f.endswith(".c"):
            continue
        rel = os.path.relpath(os.path.join(d, f), root)
        if any(rel == a or (a.endswith("/") and rel.startswith(a)) for a in allowed):
            continue
        text = open(os.path.join(d, f), errors="replace").read()
        spans = help_spans(text) if rel.startswith("src/cmd/") else []
        for off, lit in literals(text):
            if any(a <= off < b for a, b in spans):
                continue
            for name, rx in pats:
                if rx.search(lit):
                    line = text.count("\n", 0, off) + 1
                    print(f"{rel}:{line}: {name} in \"{lit}\"")
                    bad += 1
                    break
sys.exit(1 if bad else 0)
PY
}

# 2a. the checker catches a spelling in code and in a message, and lets a
# comment, the help table, the table itself and a word that only contains a
# name through
probe=$tmp/probe
mkdir -p "$probe/src/pipeline" "$probe/src/cmd" "$probe/src/bundle"
cat >"$probe/src/pipeline/a.c" <<'EOF'
/* status.json in a comment is fine */
static const char *a = "status.json";
static void f(void) { g("%s/logs/%s.err", "no ncu/raw.csv here", "mymetrics.json", "raw.csvx"); }
static const char *d = "see docs/report.md";
static void h(void) { g("ncu/k%zu", i); g("nsys/summary"); g("nsys/summaryx"); }
EOF
cat >"$probe/src/cmd/c.c" <<'EOF'
static const struct opt opts[] = {
    {"o", 0, 0, 0, "DIR", "write diff.md into DIR"},
};
const struct cmd_entry e = {
    .description = "reads status.json",
};
static const char *b = "charts/kernels.svg";
EOF
printf 'static const char *t = "status.json";\n' >"$probe/src/bundle/layout.c"
out=$(scan "$probe")
for want in 'src/pipeline/a.c:2: status.json' 'src/pipeline/a.c:3: logs/<step>.err' \
	'src/cmd/c.c:7: charts/kernels.svg' 'src/pipeline/a.c:5: ncu/k<i>' \
	'src/pipeline/a.c:5: nsys/summary'; do
	case $out in *"$want"*) ;; *) echo "FAIL: the checker missed: $want"; fail=1 ;; esac
done
case $out in *raw.csv*) ;; *) echo "FAIL: the checker missed ncu/raw.csv in a message"; fail=1 ;; esac
case $out in *summaryx* | *mymetrics* | *raw.csvx* | *src/bundle/* | *c.c:2:* | *c.c:5:* | *a.c:1:* | *a.c:4:*)
	echo "FAIL: the checker flagged what it must not: $out"; fail=1 ;;
esac

# 2b. the tree
if ! out=$(scan "$src"); then
	echo "FAIL: artifact names spelled outside src/bundle/ (use bundle/layout.h):"
	echo "$out"
	fail=1
fi
[ $fail -eq 0 ] && echo "test-bundle-names.sh: all checks passed"
exit $fail
