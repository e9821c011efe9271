#!/usr/bin/env bash
# Names from a trace are data, never markup or terminal control: a GPU name
# with HTML, a Markdown link and a newline in diff.md (the side lines and the
# hardware note); NVTX names with a terminal escape in `stats -f md` (as
# \x1b text), in `stats -f column` on a terminal (as \x1b; into a pipe
# or a file the bytes stay nsys's own, tests/cli/test-stats-golden.sh) and
# in the `nvtx` listing. An ncu region named report.md gets a folder of its
# own, not the place of regions/report.md.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:?}
b=${LLMPROF_BUILD_DIR:?}
tmp=$(mktemp -d /tmp/llmprof-cli-hostile.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
esc=$(printf '\033')

# --- diff.md: the GPU name is text
cp -r "$src/tests/data/report/h100-deep-llama1b" a
xz -d a/trace/trace.sqlite.xz a/ncu/raw.csv.xz
cp -r a h
python3 - h/env.json <<'PY'
import json, sys
p = sys.argv[1]
s = open(p).read().replace("NVIDIA H100 80GB HBM3",
    json.dumps("<img src=x onerror=alert(1)>\n# [pwn](http://x) \x1b[2J")[1:-1])
open(p, "w").write(s)
PY
"$LLMPROF" diff a h -o d >out 2>err || fail "diff: exit $?: $(cat err)"
grep -q '<img' d/diff.md && fail "diff.md: raw HTML from the GPU name: $(grep -n '<img' d/diff.md)"
grep -q '^# \[pwn\]' d/diff.md && fail "diff.md: the GPU name's newline started a heading"
grep -q "$esc" d/diff.md && fail "diff.md: an escape byte from the GPU name"
grep -Fq 'GPU: &lt;img src=x onerror=alert(1)&gt; # \[pwn\](http://x) \\x1b\[2J; backend' d/diff.md ||
	fail "diff.md: the GPU name not shown as text: $(sed -n 3,5p d/diff.md)"
grep -Fq 'The hardware differs: A ran on NVIDIA H100 80GB HBM3, B on &lt;img' d/diff.md ||
	fail "diff.md: the hardware note: $(grep -n Note d/diff.md)"
grep -q '<img' d/diff.html && fail "diff.html: raw HTML from the GPU name"
grep -q "$esc" out && fail "diff: an escape byte on stdout"

# --- stats: an NVTX name with a terminal escape and HTML
cp "$src/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite" t.sqlite
sqlite3 t.sqlite "UPDATE NVTX_EVENTS SET text = '<b>x</b>' || char(27) || '[31mRED' WHERE text = 'prefill'" ||
	fail "sqlite3"
"$LLMPROF" stats -r nvtx_sum -f md t.sqlite >md 2>err || fail "stats -f md: $(cat err)"
grep -Fq '| LLM:&lt;b&gt;x&lt;/b&gt;\\x1b\[31mRED |' md || fail "stats -f md: $(grep LLM md)"
grep -q "$esc" md && fail "stats -f md: an escape byte"
# column into a pipe: nsys's bytes (the escape byte as the trace has it)
"$LLMPROF" stats -r nvtx_sum -f column t.sqlite >col 2>err || fail "stats -f column: $(cat err)"
grep -q "LLM:<b>x</b>${esc}\[31mRED" col || fail "stats -f column into a pipe changed the name"
# column on a terminal: shown as \x1b, the columns still aligned
python3 - "$LLMPROF" t.sqlite >tty <<'PY' || fail "stats on a terminal: $(cat tty)"
import os, pty, sys
pid, fd = pty.fork()
if pid == 0:
    os.execv(sys.argv[1], [sys.argv[1], "stats", "-r", "nvtx_sum", "-f", "column", sys.argv[2]])
out = b""
while True:
    try:
        chunk = os.read(fd, 65536)
    except OSError:
        break
    if not chunk:
        break
    out += chunk
_, st = os.waitpid(pid, 0)
sys.stdout.write(out.decode().replace("\r\n", "\n"))
sys.exit(os.waitstatus_to_exitcode(st))
PY
grep -q "$esc" tty && fail "stats -f column on a terminal: an escape byte reached it"
grep -Fq 'LLM:<b>x</b>\x1b[31mRED' tty || fail "stats -f column on a terminal: $(grep LLM: tty)"
[ "$(awk '/^ -----/ { print length($0) }' tty)" = "$(awk '/LLM:<b>/ { print length($0) }' tty)" ] ||
	fail "stats -f column on a terminal: the escaped cell is not padded to its column"

# --- ncu regions named like the files beside them: their own folders
sed -e 's/<default domain>:B:none/<default domain>:report.md:none/' \
	-e 's/<default domain>:A:none/<default domain>:report.json:none/' \
	"$src/tests/data/ncu/nvtx-nested-default-domain-h100-ncu2025.3.raw-base.csv" >r.csv
"$LLMPROF" report --ncu-csv r.csv -o ro >out 2>err || fail "report --ncu-csv, a region called report.md: exit $?: $(cat err)"
[ -f ro/regions/report.md ] && [ -f ro/regions/report.json ] &&
	[ -f ro/regions/report.md-2/metrics.json ] && [ -f ro/regions/report.json-2/metrics.json ] ||
	fail "regions named report.md/report.json: $(ls -R ro/regions)"
grep -q '"report.md-2"' ro/regions/report.json || grep -q 'report.md-2' ro/regions/report.md ||
	fail "the region's folder is not named in the reports"

# --- the nvtx listing
prog=$b/tests/nvtx-test-program
if [ -x "$prog" ] && [ -f "$b/tracer/libllmprof_tracer.so" ]; then
	"$LLMPROF" nvtx -- "$prog" name "a${esc}[2Jb
c" >out 2>err || fail "nvtx: exit $?: $(cat err)"
	grep -q "$esc" out && fail "nvtx: an escape byte in the listing"
	grep -Eq '^\(default\) +a\\x1b\[2Jb\\x0ac +PushPop +1 +0 +- ' out ||
		fail "nvtx: the hostile range: $(grep -n PushPop out)"
fi
echo ok
