#!/usr/bin/env bash
# Runs a command, copies its output (stdout and stderr, merged) line by line,
# and after HEARTBEAT_S seconds (default 8) without a line prints one saying
# the command is still running, so a long step (nvcc on one file, a slow
# download) is never silent. With --log FILE the command's lines go to FILE
# (replaced) and only the "still running" lines to stdout. Exits with the
# command's status.
# Usage: scripts/heartbeat.sh [--log FILE] LABEL COMMAND [ARGS...]
set -u
exec 3>&1 # where the command's lines go
if [ "${1:-}" = --log ] && [ $# -ge 2 ]; then
	exec 3>"$2" || exit 1
	shift 2
fi
if [ $# -lt 2 ]; then
	echo "usage: scripts/heartbeat.sh [--log FILE] LABEL COMMAND [ARGS...]" >&2
	exit 2
fi
label=$1
shift
interval=${HEARTBEAT_S:-8}
tmp=$(mktemp -d "${TMPDIR:-/tmp}/llmprof-heartbeat.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
mkfifo "$tmp/out" || exit 1
"$@" >"$tmp/out" 2>&1 &
pid=$!
start=$SECONDS
partial=
while :; do
	if IFS= read -r -t "$interval" line; then
		printf '%s%s\n' "$partial" "$line" >&3
		partial=
	elif [ $? -gt 128 ]; then
		partial+=$line # a timed-out read keeps what it had of the line
		printf '%s: still running (%ds)\n' "$label" $((SECONDS - start))
	else
		partial+=$line
		[ -z "$partial" ] || printf '%s\n' "$partial" >&3
		break
	fi
done <"$tmp/out"
wait "$pid"
