#!/usr/bin/env bash
# test-html.sh: report.html and the SVG charts of a fixture model are
# well-formed XML (xmllint), and report.html renders in headless Chromium
# without console errors; the screenshot is kept in the build directory
# (test-html/report.png) for a human to look at.
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
	# self-contained: no external resource, no script
	if grep -Eq '<script|<link |src="http|href="http|url\(' "$out/$kind/report.html"; then
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
