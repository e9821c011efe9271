# failures-lib.sh: helpers for tests/cli/test-failures-*.sh (sourced).
# Each case asserts the exit code, the one-line message and what is kept.
: "${LLMPROF:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-fail.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1
fail() { echo "FAIL: $*" >&2; exit 1; }
skip() { echo "SKIP: $*"; exit 77; }
json() { python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print(eval(sys.argv[2]))' "$@"; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }

# expect RC FILE REGEX: the command's exit code and a stderr line matching
# REGEX (grep -E); the message is one line ("llmprof: error: ...").
expect() {
	local want=$1 got=$2 errf=$3 re=$4
	[ "$got" -eq "$want" ] || fail "exit $got, want $want; stderr: $(cat "$errf")"
	LC_ALL=C grep -Eq -- "$re" "$errf" || fail "no stderr line matching '$re': $(cat "$errf")"
}

# A process that is gone or a zombie (dead, waiting for init to reap it).
alive() {
	local s
	s=$(sed 's/.*) //' "/proc/$1/stat" 2>/dev/null | cut -d' ' -f1)
	[ -n "$s" ] && [ "$s" != Z ]
}
wait_file() { for _ in $(seq 200); do [ -s "$1" ] && return 0; sleep 0.05; done; return 1; }

# Every bundle invariant that must hold whatever went wrong: status.json is
# valid JSON with the given state and exit code, every JSON/YAML file in the
# bundle parses, no temporary file is left, the state of each step is legal.
check_bundle() {
	local run=$1 state=$2 code=$3
	[ -d "$run" ] || fail "no bundle '$run'"
	python3 - "$run" "$state" "$code" <<'PY' || fail "bundle $run"
import json, os, sys, yaml
run, state, code = sys.argv[1], sys.argv[2], sys.argv[3]
st = json.load(open(os.path.join(run, "status.json"), encoding="utf-8"))
if st["state"] != state:
    sys.exit("state %r, want %r" % (st["state"], state))
if code != "-" and str(st["exit_code"]) != code:
    sys.exit("exit_code %r, want %s" % (st["exit_code"], code))
legal = {"pending", "running", "ok", "failed", "skipped", "timeout", "interrupted"}
for s in st["steps"]:
    if s["state"] not in legal:
        sys.exit("step %s state %r" % (s["name"], s["state"]))
    if state != "running" and s["state"] in ("running", "pending"):
        sys.exit("step %s still %s in a finished run" % (s["name"], s["state"]))
for dp, dn, fn in os.walk(run):
    for f in fn:
        p = os.path.join(dp, f)
        if ".tmp." in f:
            sys.exit("temporary file left: " + p)
        if f.endswith(".json"):
            json.load(open(p, encoding="utf-8"))
        if f.endswith(".yaml"):
            yaml.safe_load(open(p, encoding="utf-8"))
PY
}
step_field() { json "$1/status.json" "[s for s in d['steps'] if s['name']=='$2'][0].get('$3')"; }
