#!/usr/bin/env bash
# Clear one-line errors for odd inputs: symlink loops and dangling symlinks
# say so (never "No such file", "did you mean 'loop'?" or "not a
# directory"); config option lists offer only options that load; a
# duplicate key points at the first key; ${now:} says what is wrong; model
# sizes are checked against the workload's own limits; control bytes and
# invalid UTF-8 from overrides and a tool's --version are escaped on the
# terminal; --version/--help with extra words are usage errors; a bundle's
# env.json nested too deep is a bad input (5); Markdown replaces invalid
# UTF-8 as JSON and HTML do.
set -u
. "$(dirname "$0")/failures-lib.sh"
F=${LLMPROF_SOURCE_DIR:?}/tests/data/nsys/nvtx-probe-h100-nsys2025.3.sqlite
[ -f "$F" ] || fail "fixture $F missing"
one_line() { [ "$(wc -l <"$1")" -eq 1 ] || fail "not one line: $(cat "$1")"; }

# 1. a symlink loop and a dangling symlink as an input, a run folder, a root
ln -s loop loop
ln -s "$tmp/nowhere/x" dang
"$LLMPROF" stats loop >out 2>err
expect 5 $? err "^llmprof: error: cannot open 'loop': Too many levels of symbolic links$"
"$LLMPROF" report --trace loop -o r >out 2>err
expect 5 $? err "^llmprof: error: report: 'loop' is a symlink loop$"
"$LLMPROF" report --trace dang -o r >out 2>err
expect 5 $? err "^llmprof: error: report: 'dang' is a dangling symlink \(to '$tmp/nowhere/x'\)$"
"$LLMPROF" report loop >out 2>err
expect 5 $? err "^llmprof: error: report: 'loop' is a symlink loop$"
"$LLMPROF" report dang >out 2>err
expect 5 $? err "^llmprof: error: report: 'dang' is a dangling symlink \(to '$tmp/nowhere/x'\)$"
"$LLMPROF" report --trace "$F" --ncu-csv loop -o r >out 2>err
expect 5 $? err "^llmprof: error: report: 'loop' is a symlink loop$"
"$LLMPROF" diff loop "$F" >out 2>err
expect 5 $? err "^llmprof: error: diff: 'loop' is a symlink loop$"
"$LLMPROF" merge dang >out 2>err
expect 5 $? err "^llmprof: error: merge: 'dang' is a dangling symlink \(to '$tmp/nowhere/x'\)$"
"$LLMPROF" profile -o dang -- /bin/true >out 2>err
expect 7 $? err "^llmprof: error: '$tmp/dang' is a dangling symlink \(to '$tmp/nowhere/x'\)$"
"$LLMPROF" profile artifacts.root=loop -- /bin/true >out 2>err
expect 7 $? err "^llmprof: error: '$tmp/loop' is a symlink loop$"
"$LLMPROF" report --trace "$F" -o dang >out 2>err
expect 7 $? err "^llmprof: error: report: 'dang' is a dangling symlink \(to '$tmp/nowhere/x'\)$"
[ -e nowhere ] && fail "something was created through the dangling symlink"

# 2. config options: a loop or a dangling link says so; the list offers
# only options that load (no 'loop', 'dangling', 'my model', 'dir')
cp -r "${LLMPROF_SOURCE_DIR}/conf" conf
ln -s loop.yaml conf/model/loop.yaml
ln -s nowhere.yaml conf/model/dangling.yaml
cp conf/model/tiny.yaml "conf/model/my model.yaml"
mkdir conf/model/dir.yaml
export LLMPROF_CONF_DIR=$tmp/conf
"$LLMPROF" config show model=loop >out 2>err
expect 3 $? err "^llmprof: error: '$tmp/conf/model/loop.yaml' is a symlink loop \(override 'model=loop'\)$"
"$LLMPROF" config show model=dangling >out 2>err
expect 3 $? err "^llmprof: error: '$tmp/conf/model/dangling.yaml' is a dangling symlink \(to 'nowhere.yaml'\) \(override 'model=dangling'\)$"
"$LLMPROF" config show model=lop >out 2>err
expect 3 $? err "^llmprof: error: config group 'model' has no option 'lop' \(options: auto, llama-3.1-8b, llama-3.2-1b, mistral-7b, qwen2.5-7b, tiny\) \(override 'model=lop'\)$"
"$LLMPROF" config show model=dir >out 2>err
expect 3 $? err "^llmprof: error: '$tmp/conf/model/dir.yaml' is a directory, not a regular file"
one_line err
unset LLMPROF_CONF_DIR

# 3. a duplicate key points at the first key, not at its value
cp -r "${LLMPROF_SOURCE_DIR}/conf" dup
n=$(($(wc -l <dup/config.yaml) + 1))
first=$(grep -n '^run:' dup/config.yaml | head -n 1 | cut -d: -f1)
printf 'run:\n  mode: deep\n' >>dup/config.yaml
LLMPROF_CONF_DIR=$tmp/dup "$LLMPROF" config show >out 2>err
expect 3 $? err "^llmprof: error: $tmp/dup/config.yaml:$n:1: duplicate key 'run' \(first at $tmp/dup/config.yaml:$first:1\)$"
"$LLMPROF" config show 'run={mode: deep,   mode: light}' >out 2>err
expect 3 $? err "duplicate key 'mode' at column 20 \(first at column 6\)$"

# 4. ${now:} with 2,000 %c, one that formats too long, an empty one
many=$(printf '%%c%.0s' $(seq 2000))
"$LLMPROF" config show "artifacts.root=\${now:$many}" >out 2>err
expect 3 $? err "^llmprof: error: \\$\{now:FORMAT\}: the format is 4000 bytes long, at most 255 "
one_line err
"$LLMPROF" config show "artifacts.root=\${now:$(printf '%%c%.0s' $(seq 100))}" >out 2>err
expect 3 $? err "^llmprof: error: \\$\{now:FORMAT\}: the result is longer than 511 bytes "
"$LLMPROF" config show 'artifacts.root=x${now:}' >out 2>err
expect 3 $? err "^llmprof: error: \\$\{now:\} needs a strftime format, e.g. \\$\{now:%Y%m%d\} "

# 5. model sizes the workload cannot take are config errors, naming the key
"$LLMPROF" config show model=tiny model.hidden_size=9223372036854775807 >out 2>err
expect 3 $? err "^llmprof: error: config key 'model.hidden_size' must be in \[1, 1048576\], got '9223372036854775807' "
"$LLMPROF" profile --dry-run model=tiny model.hidden_size=9223372036854775807 -- /bin/true >out 2>err
expect 3 $? err "config key 'model.hidden_size' must be in \[1, 1048576\]"
"$LLMPROF" config show model=tiny model.head_dim=1 >out 2>err
expect 3 $? err "config key 'model.head_dim' must be in \[2, 1024\], got '1'"

# 6. escape sequences and invalid UTF-8 never reach the terminal raw
mkdir bin
printf '#!/bin/sh\nprintf "NVIDIA Nsight Systems version 2023.4.4 \\033]0;pwned\\007\\033[31mX\\377\\302\\233\\n"\n' >bin/nsys
chmod +x bin/nsys
PATH=$tmp/bin:$PATH "$LLMPROF" doctor >out 2>err
grep -q '^ok    nsys: .*(2023\.4\.4 \\x1b\]0;pwned\\x07\\x1b\[31mX\\xff\\xc2\\x9b)$' out ||
	fail "doctor: the tool's version line is not escaped: $(grep nsys: out | od -c | head)"
LC_ALL=C grep -q $'[\033\007\377]' out err && fail "doctor printed a control byte or invalid UTF-8"
"$LLMPROF" config show "$(printf 'run.mode=\033[2J\377')" >out 2>err
expect 3 $? err '^llmprof: error: .*\\x1b\[2J'
LC_ALL=C grep -q $'[\033\377]' err && fail "an override's bytes reached the terminal raw"
"$LLMPROF" report --trace "$(printf 'x\033[2Jy\377')" -o r >out 2>err
expect 5 $? err "^llmprof: error: report: cannot read 'x\\\\x1b\[2Jy\\\\xff': No such file or directory$"
LC_ALL=C grep -q $'[\033\377]' err && fail "a file name's bytes reached the terminal raw"

# 7. --version and --help take no stray words
for args in "--version --bogus" "-V x" "version extra"; do
	# shellcheck disable=SC2086
	"$LLMPROF" $args >out 2>err
	expect 2 $? err "^llmprof: error: (--version|-V|version) takes no arguments: '(--bogus|x|extra)' \(see 'llmprof --help'\)$"
	[ -s out ] && fail "$args printed the version"
done
"$LLMPROF" --help --bogus >out 2>err
expect 2 $? err "^llmprof: error: unknown option '--bogus' \(see 'llmprof --help'\)$"
"$LLMPROF" help nosuch >out 2>err
expect 2 $? err "^llmprof: error: unknown command 'nosuch' \(see 'llmprof --help'\)$"
"$LLMPROF" help profile x >out 2>err
expect 2 $? err "^llmprof: error: help takes at most one command name: 'x'"
"$LLMPROF" help profile >out 2>err || fail "help profile: exit $?"

# 8. a bundle's env.json nested too deep: bad input (5), not a write error
"$LLMPROF" report --trace "$F" -o b >out 2>err || fail "report: $(cat err)"
printf '{"status": "ok"}' >b/status.json
python3 -c "print('{\"x\": ' + '[' * 3000 + ']' * 3000 + '}')" >b/env.json
"$LLMPROF" report b >out 2>err
expect 5 $? err "^llmprof: error: report: b/env.json:1:[0-9]+: maximum parsing depth reached"
one_line err

# 9. invalid UTF-8 in a kernel name: U+FFFD in Markdown as in JSON and HTML
cp "$F" u.sqlite && chmod u+w u.sqlite
sqlite3 u.sqlite "UPDATE StringIds SET value = CAST(X'6164645fff5f6b65726e656c' AS TEXT)
	WHERE value LIKE 'add(float%' OR id IN (SELECT shortName FROM CUPTI_ACTIVITY_KIND_KERNEL);" ||
	fail "sqlite3"
"$LLMPROF" report --trace u.sqlite -o ur >out 2>err || fail "report: $(cat err)"
for f in kernels.md report.md metrics.json report.html trace.json; do
	LC_ALL=C grep -q $'\377' "ur/$f" && fail "ur/$f keeps the invalid byte"
	grep -q $'add_\xef\xbf\xbd_kernel' "ur/$f" || grep -q 'add\\\\_\xef\xbf\xbd\\\\_kernel' "ur/$f" ||
		grep -q $'add\\\\_\xef\xbf\xbd\\\\_kernel' "ur/$f" || fail "ur/$f: no U+FFFD in the kernel name"
done
echo ok
