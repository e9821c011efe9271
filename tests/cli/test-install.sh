#!/usr/bin/env bash
# make install DESTDIR=... PREFIX=/usr: the files land where the installed
# llmprof looks for them, and it works from there; the man page and the
# bash completion cover every command and option of the command table.
set -u
: "${LLMPROF:?}" "${LLMPROF_BUILD_DIR:?}" "${LLMPROF_SOURCE_DIR:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-install.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v make >/dev/null || { echo "SKIP: no make"; exit 77; }

# -o all: install what this build made, without rebuilding it under the
# tests that are running
make -C "$LLMPROF_SOURCE_DIR" -o all install BUILD="$LLMPROF_BUILD_DIR" \
	DESTDIR="$tmp/stage" PREFIX=/usr >"$tmp/make.out" 2>&1 ||
	fail "make install: $(tail -n 20 "$tmp/make.out")"
root=$tmp/stage/usr
for f in bin/llmprof share/llmprof/conf/config.yaml share/llmprof/conf/model/tiny.yaml \
	share/man/man1/llmprof.1 share/bash-completion/completions/llmprof; do
	[ -f "$root/$f" ] || fail "not installed: /usr/$f"
done
[ -x "$root/bin/llmprof" ] || fail "bin/llmprof is not executable"
# what this build has, installed beside it
[ ! -f "$LLMPROF_BUILD_DIR/tracer/libllmprof_tracer.so" ] ||
	[ -f "$root/lib/llmprof/libllmprof_tracer.so" ] || fail "tracer not installed"
for w in llmprof-llm llmprof-dummy; do
	[ ! -x "$LLMPROF_BUILD_DIR/workloads/$w" ] || [ -x "$root/libexec/llmprof/$w" ] ||
		fail "$w not installed"
done
[ ! -x "$LLMPROF_BUILD_DIR/llmprof-calibrate" ] || [ -x "$root/libexec/llmprof/llmprof-calibrate" ] ||
	fail "llmprof-calibrate not installed"
for f in sitecustomize.py _llmprof_pytorch.py; do
	[ -f "$root/lib/llmprof/pytorch/$f" ] || fail "PyTorch startup module: $f not installed"
done
[ ! -f "$LLMPROF_BUILD_DIR/pytorch/libllmprof_nvtx.so" ] ||
	[ -f "$root/lib/llmprof/pytorch/libllmprof_nvtx.so" ] || fail "libllmprof_nvtx.so not installed"
# nothing outside DESTDIR
if grep '^-- \(Installing\|Up-to-date\): ' "$tmp/make.out" | grep -qv "$tmp/stage/usr/"; then
	fail "installed outside DESTDIR/PREFIX: $(cat "$tmp/make.out")"
fi

# the installed binary runs, from elsewhere, without the environment
cd "$tmp" || exit 1
run() { env -u LLMPROF_CONF_DIR -u LLMPROF_TRACER_LIB -u LLMPROF_WORKLOADS_DIR "$root/bin/llmprof" "$@"; }
run --version | grep -Eq '^llmprof [0-9]+\.[0-9]+\.[0-9]+ ' || fail "installed --version"
# it reads its own conf/: a value changed there shows
sed -i 's/^\( *\)root: .*/\1root: installed-root/' "$root/share/llmprof/conf/config.yaml"
grep -q 'root: installed-root' "$root/share/llmprof/conf/config.yaml" || fail "cannot edit the installed conf"
run config show >out 2>err || fail "installed config show: $(cat err)"
grep -q '^  root: installed-root$' out || fail "installed config show does not read share/llmprof/conf: $(cat out)"
run profile --dry-run pipeline.trace.backend=auto pipeline.nsys.path=/nonexistent workload=dummy \
	>out 2>err || fail "installed dry run: $(cat err)"
grep -qx "conf: $root/share/llmprof/conf" out || fail "dry run conf: $(grep conf: out)"
grep -q "argv: $root/bin/../libexec/llmprof/llmprof-dummy " out ||
	fail "dry run: not the installed workload: $(grep argv: out)"
if [ -f "$root/lib/llmprof/libllmprof_tracer.so" ]; then
	grep -q "builtin tracer $root/bin/../lib/llmprof/libllmprof_tracer.so" out ||
		fail "dry run: not the installed tracer: $(grep 'trace backend' out)"
fi

# a Python program gets the installed startup module
run profile --dry-run pipeline.trace.backend=builtin -- python3 x.py >out 2>err ||
	[ ! -f "$root/lib/llmprof/libllmprof_tracer.so" ] || fail "installed dry run (python): $(cat err)"
if [ -f "$root/lib/llmprof/libllmprof_tracer.so" ]; then
	grep -q "^  env: PYTHONPATH=$(cd "$root/lib/llmprof/pytorch" && pwd -P)\(:\|$\)" out ||
		fail "dry run: not the installed startup module: $(grep PYTHONPATH out)"
fi

# doctor finds the same installed files
run doctor >out 2>&1
grep -qx "ok    conf: $root/share/llmprof/conf" out || fail "installed doctor conf: $(grep conf: out)"
if [ -x "$root/libexec/llmprof/llmprof-dummy" ]; then
	grep -qx "ok    llmprof-dummy: $root/bin/../libexec/llmprof/llmprof-dummy" out ||
		fail "installed doctor: $(grep dummy out)"
fi

# the man page: every command and every option of --help, valid roff
"$LLMPROF" help --man >man.1 || fail "help --man"
cmp -s man.1 "$root/share/man/man1/llmprof.1" || fail "installed llmprof.1 is not 'help --man'"
sed 's/\\-/-/g; s/\\f[BIR]//g' man.1 >man.txt
"$LLMPROF" --help >help.txt
cmds=$(awk '/^commands:/ {on=1; next} on && /^  [a-z]/ {print $1} on && /^$/ {on=0}' help.txt)
[ -n "$cmds" ] || fail "no commands in --help"
grep -q -- '-V, --version' man.txt || fail "man page lacks -V, --version"
for c in $cmds; do
	grep -qx ".SS \"llmprof $c\"" man.txt || fail "man page lacks the command $c"
	"$LLMPROF" "$c" --help >h.txt
	opts=$(sed -n '/^options:/,$p' h.txt | grep -oE '^  +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
		sed 's/^ *//')
	[ -n "$opts" ] || fail "$c --help lists no option"
	section=$(awk -v h=".SS \"llmprof $c\"" '$0 == h {on=1; next} on && /^\.S[SH] / {exit} on' man.txt)
	while read -r o; do
		printf '%s\n' "$section" | grep -qF -- "$o" || fail "man page: $c lacks '$o'"
	done <<<"$opts"
	summary=$(awk -v c="$c" '/^commands:/ {on=1; next} on && $1 == c {sub(/^  [a-z]+ +/, ""); print; exit}' help.txt)
	printf '%s\n' "$section" | grep -qF -- "$summary" || fail "man page: $c lacks its summary"
done
# its exit codes are docs/exit-codes.md's
want=$(grep -oE '^\| *[0-9]+ \| `EXIT_' "$LLMPROF_SOURCE_DIR/docs/exit-codes.md" | grep -oE '[0-9]+' | sort -n)
got=$(awk '/^\.SH EXIT STATUS/ {on=1; next} on && /^\.SH/ {exit} on && /^\.B [0-9]+$/ {print $2}' man.txt | sort -n)
[ -n "$want" ] && [ "$want" = "$got" ] || fail "man page exit codes '$(echo $got)', docs/exit-codes.md '$(echo $want)'"
if command -v groff >/dev/null; then
	groff -man -Tutf8 -ww -z man.1 2>groff.err
	[ ! -s groff.err ] || fail "groff warns about llmprof.1: $(cat groff.err)"
else
	echo "note: no groff: llmprof.1 is not rendered"
fi

# the bash completion: commands, options per command, config keys and values
"$LLMPROF" help --bash-completion >comp.bash || fail "help --bash-completion"
cmp -s comp.bash "$root/share/bash-completion/completions/llmprof" ||
	fail "installed completion is not 'help --bash-completion'"
bash -n comp.bash || fail "completion: bash syntax"
complete_words() {
	bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$((${#COMP_WORDS[@]} - 1))
		_llmprof; printf "%s\n" "${COMPREPLY[@]}"' _ comp.bash "$@" 2>&1
}
[ "$(complete_words llmprof pro)" = profile ] || fail "completion of 'pro': $(complete_words llmprof pro)"
got=$(complete_words llmprof '')
for c in $cmds --help --version; do
	printf '%s\n' "$got" | grep -qx -- "$c" || fail "completion lacks the command $c"
done
for c in $cmds; do
	got=$(complete_words llmprof "$c" -)
	"$LLMPROF" "$c" --help >h.txt
	for o in $(sed -n '/^options:/,$p' h.txt | grep -oE '^  +(-[a-zA-Z], )?--[a-z][a-z0-9-]*' |
		sed 's/,//; s/^ *//'); do
		printf '%s\n' "$got" | grep -qx -- "$o" || fail "completion of '$c -' lacks $o"
	done
done
[ "$(complete_words llmprof profile --qu)" = --quiet ] || fail "completion of --qu"
[ "$(complete_words llmprof profile run.mo)" = run.mode= ] || fail "completion of run.mo: $(complete_words llmprof profile run.mo)"
[ "$(complete_words llmprof profile run.mode = li)" = light ] || fail "completion of run.mode=li"
[ "$(complete_words llmprof profile model = ti)" = tiny ] || fail "completion of model=ti"
[ "$(complete_words llmprof config s)" = show ] || fail "completion of config s"
got=$(complete_words llmprof stats -f '')
[ "$(echo $got)" = "column csv md json" ] || fail "completion of stats -f: $got"
mkdir -p dir.d
[ "$(complete_words llmprof profile -o dir.)" = dir.d ] || fail "completion of -o DIR"
# every config key
"$LLMPROF" config keys >keys.txt || fail "config keys"
got=$(complete_words llmprof profile '')
for k in $(awk 'NR > 1 {print $1}' keys.txt); do
	printf '%s\n' "$got" | grep -qx -- "$k=" || fail "completion lacks the key $k="
done
echo ok
