#!/usr/bin/env bash
# test-html.sh: report.html and the SVG charts of a fixture model are
# well-formed XML (xmllint), and report.html renders in headless Chromium
# without console errors; the screenshot is kept in the build directory
# (test-html/report.png) for a human to look at.
# Layout: the fixture reports and the report of the real H100 bundle
# (tests/data/report/h100-deep-llama1b) are opened at 1366 and 1920 px with
# tests/cli/html-layout.js injected, which fails on horizontal page overflow,
# overlapping or cut chart text, clipped table cells and a hidden Bound
# column; screenshots go to build/test-artifacts/report-NAME-WIDTH.png. The
# old report.html of an H100 transformers run (tests/data/report/
# html-h100-old) must fail the same check, so the check can fail.
# Skips (77) when xmllint or chromium is missing.
set -euo pipefail

build=${LLMPROF_BUILD_DIR:?}
driver=$build/tests/test-report
[ -x "$driver" ] || { echo "skip: $driver not built (cmocka missing?)"; exit 77; }
command -v xmllint >/dev/null || { echo "skip: xmllint not installed"; exit 77; }

out=$build/test-html
rm -rf "$out"
mkdir -p "$out"
for kind in complete ncu-failed; do
	"$driver" --write "$out/$kind" "$kind"
	for f in "$out/$kind/report.html" "$out/$kind"/charts/*.svg; do
		xmllint --noout "$f" || { echo "FAIL: $f is not well-formed"; exit 1; }
	done
	# self-contained: no external resource, no script but the inline sorter
	if grep -Eq '<script [^>]*src|<link |src="http|href="http|url\(' "$out/$kind/report.html"; then
		echo "FAIL: $kind/report.html references external resources or scripts"
		exit 1
	fi
done

chromium=
for c in chromium chromium-browser google-chrome; do
	if command -v "$c" >/dev/null; then chromium=$c; break; fi
done
[ -n "$chromium" ] || { echo "skip: chromium not installed (scripts/install-deps.sh installs it)"; exit 77; }

profile=$(mktemp -d)
trap 'rm -rf "$profile"' EXIT
for kind in complete ncu-failed; do
	log=$out/$kind-chromium.log
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$profile" --enable-logging=stderr --v=0 \
		--screenshot="$out/$kind.png" --window-size=1280,2000 \
		"file://$out/$kind/report.html" >"$log" 2>&1 || {
		echo "FAIL: chromium exited with $? on $kind/report.html"; cat "$log"; exit 1; }
	if grep -E 'Uncaught|ERROR:CONSOLE|:CONSOLE\(' "$log"; then
		echo "FAIL: console errors while rendering $kind/report.html"
		exit 1
	fi
	[ -s "$out/$kind.png" ] || { echo "FAIL: no screenshot for $kind"; cat "$log"; exit 1; }
	# a blank page would compress to almost nothing
	size=$(stat -c %s "$out/$kind.png")
	[ "$size" -gt 20000 ] || { echo "FAIL: $kind screenshot is only $size bytes"; exit 1; }
	echo "ok: $kind rendered ($size-byte screenshot at $out/$kind.png)"
done

# layout: NAME HTML WIDTH -> prints PASS or FAIL and the reasons
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
arts=$build/test-artifacts
mkdir -p "$arts"
layout() {
	local name=$1 html=$2 w=$3 probe
	probe=$(dirname "$html")/.layout-probe.html
	python3 - "$html" "$src/tests/cli/html-layout.js" "$probe" <<'PY'
import sys
h = open(sys.argv[1]).read()
js = "<script>" + open(sys.argv[2]).read() + "</script>"
i = h.rfind("</body>")
open(sys.argv[3], "w").write(h[:i] + js + h[i:] if i >= 0 else h + js)
PY
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$profile" --hide-scrollbars --window-size="$w,1000" \
		--virtual-time-budget=2000 --enable-logging=stderr --v=0 \
		--dump-dom "file://$probe" 2>"$out/$name-$w.log" |
		python3 -c 'import sys, re, html
m = re.findall(r"<pre id=\"llmprof-verdict\">(.*?)</pre>", sys.stdin.read(), re.S)
print(html.unescape(m[-1]) if m else "FAIL\nno verdict (did the page load?)")'
	if grep -E 'Uncaught|ERROR:CONSOLE|:CONSOLE\(' "$out/$name-$w.log"; then
		echo "FAIL: console errors"
	fi
	timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
		--user-data-dir="$profile" --hide-scrollbars --window-size="$w,2400" \
		--screenshot="$arts/report-$name-$w.png" "file://$html" >/dev/null 2>&1 || true
}
command -v python3 >/dev/null || { echo "skip: layout checks need python3"; exit 0; }
h100=$out/h100
cp -r "$src/tests/data/report/h100-deep-llama1b" "$h100"
chmod -R u+w "$h100"
python3 - "$h100" <<'PY'
import lzma, os, sys
for f in ("trace/trace.sqlite", "ncu/raw.csv"):
    p = os.path.join(sys.argv[1], f)
    open(p, "wb").write(lzma.decompress(open(p + ".xz", "rb").read()))
    os.remove(p + ".xz")
PY
"${LLMPROF:-$build/llmprof}" report "$h100" >/dev/null 2>"$out/h100-report.err" ||
	{ echo "FAIL: llmprof report on the H100 bundle"; cat "$out/h100-report.err"; exit 1; }
if grep -qi "unknown GPU" "$h100/report.html"; then
	echo "FAIL: the H100 report.html names an unknown GPU"; exit 1
fi
fail=0
for w in 1366 1920; do
	for name in complete ncu-failed h100; do
		html=$out/$name/report.html
		[ "$name" = h100 ] && html=$h100/report.html
		v=$(layout "$name" "$html" "$w")
		if [ "${v%%$'\n'*}" != PASS ]; then
			echo "FAIL: $name report.html at $w px:"; echo "$v"; fail=1
		else
			echo "ok: $name report.html fits at $w px ($arts/report-$name-$w.png)"
		fi
	done
	mkdir -p "$out/old"
	cp "$src/tests/data/report/html-h100-old/report.html" "$out/old/report.html"
	v=$(layout old "$out/old/report.html" "$w")
	case $v in
	PASS*) echo "FAIL: the layout check passed the old, broken H100 page at $w px"; fail=1 ;;
	*) echo "ok: the old H100 page fails the layout check at $w px: $(echo "$v" | sed -n 2p)" ;;
	esac
done
exit $fail
