#!/usr/bin/env bash
# The nsys backend exports NVTX extended payloads (NCCL's message sizes,
# docs/collectives.md) with --include-blobs true when the nsys in use lists
# that option in `nsys export --help`, and leaves it out for an older nsys
# that would reject it. A stand-in nsys records each export's argv.
set -u
: "${LLMPROF:?}" "${LLMPROF_SOURCE_DIR:?}"
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
[ -x "$tool" ] || { echo "SKIP: trace-tool not built (needs the CUDA toolkit headers)"; exit 77; }
tmp=$(mktemp -d /tmp/llmprof-cli-nsys-blobs.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1

mkdir bin
. "$LLMPROF_SOURCE_DIR/tests/cli/fake-nsys-lib.sh"
on_profile=$(cat <<EOF
	mkdir -p "\$out.log" || exit 1
	"$tool" synth-rank "\$out.log" 2 2 0 20000 node0 >/dev/null || exit 1
EOF
)
on_export=$(cat <<EOF
	if [ "\$1" = --help ]; then
		echo "usage: nsys export [<args>] [nsys-rep]"
		[ -n "\${FAKE_BLOBS:-}" ] && printf '\t--include-blobs [true|false]\n'
		exit 0
	fi
	echo "\$*" >>"$tmp/export-argv"
	case " \$* " in *" --include-blobs "*) [ -n "\${FAKE_BLOBS:-}" ] ||
		{ echo "unrecognised option '--include-blobs'" >&2; exit 1; } ;; esac
	"$tool" convert "\${rep%.nsys-rep}.log" "\$out" >/dev/null
EOF
)
fake_nsys_profile bin "$on_profile" "$on_export"
nsys=(pipeline.trace.backend=nsys pipeline.nsys.path="$tmp/bin/nsys" pipeline.ncu.enable=false)

# an nsys whose export knows --include-blobs
RANK=0 FAKE_VERSION=2025.3.1.90 FAKE_BLOBS=1 "$LLMPROF" profile -q -o new "${nsys[@]}" -- true \
	>out.new 2>err.new || fail "new nsys: $(cat err.new)"
grep -q -- "--type sqlite --include-blobs true " export-argv ||
	fail "no --include-blobs true: $(cat export-argv)"
[ -n "$(find new -name run.sqlite -size +0)" ] || fail "new nsys: no export"

# an older one that would reject it
rm -f export-argv
RANK=0 FAKE_VERSION=2023.4.4.54 "$LLMPROF" profile -q -o old "${nsys[@]}" -- true \
	>out.old 2>err.old || fail "old nsys: $(cat err.old)"
[ -s export-argv ] || fail "old nsys: no export ran"
! grep -q -- "--include-blobs" export-argv || fail "old nsys given --include-blobs: $(cat export-argv)"
[ -n "$(find old -name run.sqlite -size +0)" ] || fail "old nsys: no export"
echo OK
