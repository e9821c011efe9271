#!/usr/bin/env bash
# test-config.sh: `llmprof config show|keys` end to end: the acceptance
# overrides, exit codes and one-line errors, --conf-dir, and that the key
# table in docs/configuration.md is exactly `llmprof config keys --markdown`.
set -uo pipefail

src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
bin=${LLMPROF:-$src/build/llmprof}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
failures=0

fail() {
	echo "FAIL: $*" >&2
	failures=$((failures + 1))
}

# run ARGS...: sets rc, out, err
run() {
	"$bin" "$@" >"$tmp/out" 2>"$tmp/err"
	rc=$?
	out=$(cat "$tmp/out")
	err=$(cat "$tmp/err")
}

expect_rc() { [ "$rc" -eq "$1" ] || fail "$2: exit $rc, want $1 (stderr: $err)"; }
expect_out() { grep -qF -- "$1" "$tmp/out" || fail "$2: stdout lacks '$1'"; }
expect_one_error() { # MESSAGE-FRAGMENT WHAT
	[ "$(wc -l <"$tmp/err")" -eq 1 ] || fail "$2: stderr is not one line: $err"
	case "$err" in "llmprof: error: "*"$1"*) ;; *) fail "$2: stderr '$err' lacks '$1'" ;; esac
	[ -z "$out" ] || fail "$2: stdout not empty on error"
}

# The two acceptance checks.
run config show pipeline.ncu.ncu_cli.replay_mode=range profiling/ncu@pipeline.ncu=ncu.high
expect_rc 0 "show with ncu.high"
expect_out "      replay_mode: range" "show with ncu.high"
for s in SpeedOfLight ComputeWorkloadAnalysis MemoryWorkloadAnalysis WorkloadDistribution \
	Occupancy SchedulerStats WarpStateStats LaunchStats InstructionStats; do
	expect_out "        - $s" "ncu.high section $s"
done
expect_out 'description: "High-coverage preset' "ncu.high description"

run config show pipeline.ncu.ncu_cli.replay_mod=range
expect_rc 3 "misspelled key"
expect_one_error "unknown config key 'pipeline.ncu.ncu_cli.replay_mod'; did you mean 'pipeline.ncu.ncu_cli.replay_mode'? (override 'pipeline.ncu.ncu_cli.replay_mod=range')" "misspelled key"

# Defaults, groups and typing through the CLI.
run config show
expect_rc 0 "show"
expect_out "device: cuda:0" "show"
expect_out "  name: auto" "show model"
run config show model=tiny workload=dummy 'stages.prefill=[a, "b,c"]' run.coverage=1
expect_rc 0 "groups"
expect_out "  hidden_size: 128" "model=tiny"
expect_out "  kind: dummy" "workload=dummy"
expect_out '    - b,c' "quoted list item"
expect_out "  coverage: 1.0" "int given for a float"
run config show "artifacts.root=runs/\${model.name}/\${now:%Y}"
expect_rc 0 "interpolation"
expect_out "  root: runs/auto/$(date -u +%Y)" "interpolation and now (UTC)"

run config show run.top_n_kernels=abc
expect_rc 3 "type error"
expect_one_error "config key 'run.top_n_kernels' expects an integer, got 'abc' (override 'run.top_n_kernels=abc')" "type error"
run config show model=tny
expect_rc 3 "bad option"
expect_one_error "did you mean 'tiny'?" "bad option"
run config show 'run.stage=${run.stage}'
expect_rc 3 "cycle"
expect_one_error "interpolation cycle: run.stage -> run.stage" "cycle"
run config show 'k=[a'
expect_rc 3 "bad override syntax"
expect_one_error "override 'k=[a': expected ',' or ']' at column 5" "bad override syntax"

# --conf-dir and LLMPROF_CONF_DIR.
run config show --conf-dir "$tmp/none"
expect_rc 3 "missing conf dir"
expect_one_error "cannot read '$tmp/none/config.yaml'" "missing conf dir"
mkdir -p "$tmp/conf/model"
cp "$src/conf/model/tiny.yaml" "$tmp/conf/model/"
printf 'defaults:\n  - model: tiny\nrun:\n  top_n_kernels: 7\n' >"$tmp/conf/config.yaml"
run config show --conf-dir "$tmp/conf"
expect_rc 0 "--conf-dir"
expect_out "  top_n_kernels: 7" "--conf-dir"
expect_out "  prompt_len: 128" "--conf-dir fills schema defaults"
LLMPROF_CONF_DIR="$tmp/conf" run config show run.top_n_kernels=8
expect_out "  top_n_kernels: 8" "LLMPROF_CONF_DIR"
printf 'defaults:\n  - model: tiny\nrun:\n  top_n_kernels: [1\n' >"$tmp/conf/config.yaml"
run config show --conf-dir "$tmp/conf"
expect_rc 3 "malformed YAML"
expect_one_error "$tmp/conf/config.yaml:5:1: did not find expected ',' or ']'" "malformed YAML"

# Usage errors are exit 2.
run config
expect_rc 2 "no subcommand"
run config frob
expect_rc 2 "unknown subcommand"
run config show --markdown
expect_rc 2 "--markdown with show"
run config --help
expect_rc 0 "--help"
expect_out "keys [--markdown]" "--help names config keys"
expect_out "--conf-dir DIR" "--help names --conf-dir"

# config keys: one line per schema key; the docs table is the generated one.
run config keys
expect_rc 0 "keys"
expect_out "pipeline.ncu.ncu_cli.replay_mode" "keys"
nkeys=$(wc -l <"$tmp/out")
run config keys --markdown
expect_rc 0 "keys --markdown"
[ "$(($(wc -l <"$tmp/out") - 1))" -eq "$nkeys" ] || fail "markdown rows != keys"
sed -n '/<!-- BEGIN CONFIG KEYS/,/<!-- END CONFIG KEYS/p' "$src/docs/configuration.md" |
	sed '1d;$d' >"$tmp/doc-table"
if ! diff -u "$tmp/doc-table" "$tmp/out" >"$tmp/diff"; then
	fail "docs/configuration.md key table differs from 'llmprof config keys --markdown'; regenerate it:"
	cat "$tmp/diff" >&2
fi

[ "$failures" -eq 0 ] || { echo "$failures failure(s)" >&2; exit 1; }
echo "test-config.sh: all checks passed"
