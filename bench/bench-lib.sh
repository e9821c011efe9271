# bench/bench-lib.sh: what the benchmark scripts share. Sourced, never run:
#   . "$(dirname "$0")/bench-lib.sh"
# It sets here (bench/), root (the checkout) and work (a temporary folder,
# removed at exit), and defines bench_head.
here=$(cd "$(dirname "$0")" && pwd)
root=$(dirname "$here")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT

# bench_head RESULT TITLE LLMPROF: starts RESULT with the line TITLE when it
# is empty, then appends the heading of one run: which llmprof, at which
# commit, when, on what machine. The script appends the rest.
bench_head() {
	local result=$1 title=$2 llmprof=$3 rev cpu
	rev=$(git -C "$root" rev-parse --short HEAD 2>/dev/null || echo '?')
	cpu=$(lscpu | sed -n 's/^Model name: *//p' | head -1)
	mkdir -p "$(dirname "$result")"
	[ -s "$result" ] || printf '%s\n' "$title" >"$result"
	cat >>"$result" <<MD

## $llmprof ($rev), $(date -u +%Y-%m-%dT%H:%M:%SZ)

- machine: $cpu, $(nproc) cores, $(free -g | awk '/^Mem:/ {print $2}') GiB RAM, page cache warm
MD
}
