#!/usr/bin/env bash
# test-skips.sh BUILD_DIR: after `ctest` (make test), one line per skipped
# test with the reason it printed, so that a skip is never silent: ctest
# itself says only "***Skipped" and keeps the reason in its log. Reads
# BUILD_DIR/Testing/ctest.out (ctest's own output, which lists the skipped
# tests) and BUILD_DIR/Testing/Temporary/LastTest.log (each test's output).
# The reason: the test's lines that start with "skip" (tests print "skip:
# WHY" before exiting 77), else its last line.
set -u
build=${1:?usage: test-skips.sh BUILD_DIR}
out=$build/Testing/ctest.out
log=$build/Testing/Temporary/LastTest.log
[ -f "$out" ] && [ -f "$log" ] || exit 0
mapfile -t names < <(sed -n 's/^[[:space:]]*[0-9]* - \(.*\) (Skipped)$/\1/p' "$out")
[ ${#names[@]} -gt 0 ] || exit 0
echo "skipped tests (${#names[@]}), with their reasons:"
for name in "${names[@]}"; do
	why=$(awk -v t="\"$name\" start time:" '
		index($0, t) == 1 { on = 1; next }
		on && /^<end of output>$/ { exit }
		on && /^Output:$/ { body = 1; getline; next }
		on && body && NF { last = $0; if (tolower($0) ~ /^skip/) { print; found = 1 } }
		END { if (!found && last != "") print last }' "$log" | head -3 | paste -sd ' ' -)
	echo "  $name: ${why:-(it printed no reason)}"
done
