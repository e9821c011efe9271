#!/usr/bin/env bash
# Installs the Debian packages llmprof's build and tests need, only when one
# is missing (so `make` stays fast and works offline once set up). apt's own
# output is shown (what it fetches, unpacks and sets up), and a line every few
# seconds while it is quiet (scripts/heartbeat.sh).
# Usage: scripts/install-deps.sh [--check]   (--check: report, install nothing)
set -euo pipefail

packages=(cmake ninja-build pkg-config gcc libyaml-dev libsqlite3-dev libjansson-dev
	  libcmocka-dev sqlite3 libxml2-utils python3
	  chromium    # chromium: headless render test of report.html (tests/cli/test-html.sh)
	  libssh-4    # libssh-4: the nsys importer of the test oracle needs libssh.so (tests/cli/test-pipeline.sh)
	  locales     # locales: en_US.UTF-8 for nsys's grouped numbers (tests/cli/test-stats-column-locale.sh)
	  clang-format  # make check-format (CI)
	  libunwind8  # libunwind8: the tracer's CPU sampler unwinds stacks with it (tests/cli/test-tracer-cpu-sample.sh)
	  clang-14 valgrind)  # scripts/fuzz.sh (libFuzzer), scripts/valgrind-tests.sh

missing=()
for p in "${packages[@]}"; do
	if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed'; then
		missing+=("$p")
	fi
done
if [ ${#missing[@]} -eq 0 ]; then
	echo "install-deps: all ${#packages[@]} packages are installed"
	exit 0
fi

if [ "${1:-}" = "--check" ]; then
	echo "missing packages: ${missing[*]}" >&2
	exit 1
fi
echo "install-deps: installing ${missing[*]}" >&2
sudo=
if [ "$(id -u)" -ne 0 ]; then
	command -v sudo >/dev/null || { echo "install-deps: run as root: apt-get install -y ${missing[*]}" >&2; exit 1; }
	sudo=sudo
fi
export DEBIAN_FRONTEND=noninteractive
hb=$(dirname "$0")/heartbeat.sh
echo "install-deps: apt-get update" >&2
bash "$hb" apt-get $sudo apt-get update
echo "install-deps: apt-get install" >&2
bash "$hb" apt-get $sudo apt-get install -y --no-install-recommends "${missing[@]}"
echo "install-deps: done" >&2
