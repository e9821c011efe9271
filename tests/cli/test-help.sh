#!/usr/bin/env bash
# Every command has working --help with help text for every option;
# --version; unknown commands suggest the nearest one.
set -u
: "${LLMPROF:?}"
fail() { echo "FAIL: $*" >&2; exit 1; }
out=$(mktemp); trap 'rm -f "$out"' EXIT

"$LLMPROF" --help >"$out" || fail "--help"
cmds=$(awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on=0}' "$out")
[ -n "$cmds" ] || fail "no commands listed in --help"
for c in profile doctor config; do
	echo "$cmds" | grep -qx "$c" || fail "'$c' missing from --help"
done
for c in $cmds; do
	"$LLMPROF" "$c" --help >"$out" 2>&1 || fail "$c --help failed"
	grep -q "^usage: llmprof $c" "$out" || fail "$c --help has no usage line"
	# the generated help puts each option's text after a run of spaces
	# (or, for a long option, on the next line, indented past the option column)
	awk '/^options:/ {on=1; next}
	     on && pending { if (substr($0, 1, 20) !~ /^ *$/ || $0 ~ /^ *$/) { print "no help: " prev; bad=1 } pending=0; next }
	     on && /^  +-/ { line=$0; sub(/^  +/, "", line);
			     if (match(line, /[^ ]  +[^ ]/) == 0) { pending=1; prev=$0 } }
	     END { exit bad || pending }' "$out" || fail "$c: an option lacks help text"
	"$LLMPROF" help "$c" >/dev/null || fail "help $c"
done
"$LLMPROF" profile --help | grep -q -- '--dry-run' || fail "profile --help lacks --dry-run"

"$LLMPROF" --version >"$out" || fail "--version"
grep -Eq '^llmprof [0-9]+\.[0-9]+\.[0-9]+ \([0-9a-f]+(-dirty)?|unknown\)$' "$out" ||
	fail "--version: $(cat "$out")"

"$LLMPROF" profil >/dev/null 2>"$out"; rc=$?
[ $rc -eq 2 ] || fail "unknown command: exit $rc, want 2"
grep -q "did you mean 'profile'" "$out" || fail "no suggestion: $(cat "$out")"
"$LLMPROF" doctr 2>"$out" >/dev/null
grep -q "did you mean 'doctor'" "$out" || fail "no suggestion for doctr"
"$LLMPROF" profile --no-such-option >/dev/null 2>"$out"; rc=$?
[ $rc -eq 2 ] || fail "unknown option: exit $rc"
echo ok
