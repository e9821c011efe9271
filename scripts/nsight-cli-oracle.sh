#!/usr/bin/env bash
# nsight-cli-oracle.sh: fetches NVIDIA's own command-line tools, nsys
# 2023.4.4 (nsight-systems-target) and ncu 2024.1.1 (nsight-compute,
# nsight-compute-target), from Debian's non-free section into a cache folder,
# unpacked and not installed. The tests use them as an oracle: on a machine
# without a GPU they compare llmprof's output with NVIDIA's on the same file
#   nsys stats -f csv -r cuda_gpu_kern_sum,...  FILE.sqlite
#   ncu --import FILE.ncu-rep --csv --page raw
# Both tools are proprietary: nothing they contain goes into the repository.
#
#   scripts/nsight-cli-oracle.sh [CACHE_DIR]    default ~/.cache/llmprof-nsight
#   scripts/nsight-cli-oracle.sh --announce [CACHE_DIR]
#
# Prints NSYS=<path> and NCU=<path> for `eval`. The first run downloads the
# three packages (379 MB) with apt-get from the Debian archive this
# machine's apt already uses (suite trixie, component non-free), saying so on
# stderr first, unpacks them (about 1 GB) and deletes the packages: one copy
# stays. Later runs only print the paths. Runs that start together wait for
# each other (flock), and the tools appear in the cache only once completely
# unpacked.
#
# LLMPROF_NO_ORACLE=1: fetch nothing (exit 1 saying so). LLMPROF_ORACLE_STATUS
# (`make test` sets it to a file in the build folder): a failed fetch writes
# its reason there, and later calls fail at once with that reason instead of
# trying again; `make test` removes the file when it starts, so each test run
# tries once. --announce prints, when the tools are not in the cache yet, what
# a test run will download and how to skip it, and nothing else.
# Exit: 0 with both paths; 1 with one line on stderr saying why not (no
# network, no Debian apt source, not amd64, LLMPROF_NO_ORACLE).
set -euo pipefail
me=nsight-cli-oracle
die() {
	echo "$me: error: $*" >&2
	# the first failure of a test run is its answer for the rest of the run
	if [ -n "$status" ] && [ ! -s "$status" ]; then echo "$*" >"$status" 2>/dev/null || :; fi
	exit 1
}

announce=0
if [ "${1:-}" = --announce ]; then
	announce=1
	shift
fi
cache=${1:-$HOME/.cache/llmprof-nsight}
status=${LLMPROF_ORACLE_STATUS:-}

nsys=$cache/root/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys
ncu=$cache/root/usr/lib/nsight-compute/ncu
packages=(nsight-systems-target nsight-compute nsight-compute-target)
what="NVIDIA's nsys 2023.4.4 and ncu 2024.1.1 command-line tools (Debian non-free packages ${packages[*]}: 379 MB to download, 1 GB unpacked) into $cache"
skip_how="LLMPROF_NO_ORACLE=1 skips the download (the tests that compare with NVIDIA's tools are then skipped)"

have_tools() { [ -x "$nsys" ] && [ -x "$ncu" ]; }

# The first http(s) URI of a Debian archive (not debian-security) in this
# machine's apt sources, deb822 or one-line format.
debian_uri() {
	local f deb822=() oneline=() uri='' re='^https?://.+/debian/?$'
	for f in /etc/apt/sources.list.d/*.sources; do [ -f "$f" ] && deb822+=("$f"); done
	for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do [ -f "$f" ] && oneline+=("$f"); done
	[ ${#deb822[@]} -eq 0 ] ||
		uri=$(awk -v re="$re" '$1 == "URIs:" { for (i = 2; i <= NF; i++) if ($i ~ re) { print $i; exit } }' "${deb822[@]}")
	[ -n "$uri" ] || [ ${#oneline[@]} -eq 0 ] ||
		uri=$(awk -v re="$re" '$1 == "deb" { for (i = 2; i <= NF; i++) if ($i ~ re) { print $i; exit } }' "${oneline[@]}")
	[ -n "$uri" ] && echo "$uri"
}

fetch() {
	local uri opts deb why
	{ command -v apt-get && command -v dpkg; } >/dev/null ||
		die "apt-get and dpkg are needed to fetch the tools (a Debian or Ubuntu machine)"
	[ "$(dpkg --print-architecture)" = amd64 ] ||
		die "NVIDIA's packages are for amd64, this machine is $(dpkg --print-architecture)"
	uri=$(debian_uri) || die "no Debian archive among this machine's apt sources (/etc/apt/sources.list*)"
	mkdir -p "$cache/lists/partial" "$cache/debs" "$cache/aptcache/archives/partial"
	cat >"$cache/trixie-non-free.sources" <<SRC
Types: deb
URIs: $uri
Suites: trixie
Components: non-free
Signed-By: /usr/share/keyrings/debian-archive-keyring.gpg
SRC
	# apt-get on its own source list, lists and cache: the machine's apt
	# lists and cache are left alone, and nothing is installed
	opts=(-q -o "Dir::Etc::SourceList=$cache/trixie-non-free.sources"
	      -o Dir::Etc::SourceParts=/dev/null -o "Dir::State::Lists=$cache/lists"
	      -o "Dir::Cache=$cache/aptcache")
	echo "$me: downloading $what, once; $skip_how" >&2
	apt-get "${opts[@]}" update >"$cache/apt.log" 2>&1 ||
		die "apt-get update on $uri (trixie non-free) failed; see $cache/apt.log"
	# apt-get update succeeds when it could not reach the archive at all
	if why=$(grep -m 1 '^W: Failed to fetch' "$cache/apt.log"); then
		die "cannot reach the Debian archive: ${why#W: }"
	fi
	rm -f "$cache"/debs/*.deb
	(cd "$cache/debs" && apt-get "${opts[@]}" download "${packages[@]}") >>"$cache/apt.log" 2>&1 ||
		die "apt-get download ${packages[*]} failed; see $cache/apt.log"
	rm -rf "$cache/root.new"
	for deb in "$cache"/debs/*.deb; do
		dpkg -x "$deb" "$cache/root.new" || die "dpkg -x '$deb' failed"
	done
	rm -rf "$cache/root"
	mv "$cache/root.new" "$cache/root"
	have_tools || die "the packages in $cache/debs hold no nsys or ncu where expected"
	one_copy
}

# The unpacked tools are all the tests use: the packages (and apt's own
# copies) go once they are unpacked.
one_copy() {
	rm -f "$cache"/debs/*.deb "$cache"/aptcache/archives/*.deb "$cache"/aptcache/*.bin
}

if [ $announce -eq 1 ]; then
	if ! have_tools && [ -z "${LLMPROF_NO_ORACLE:-}" ]; then
		echo "$me: this test run downloads $what, once, to compare llmprof's output with NVIDIA's; $skip_how"
	fi
	exit 0
fi
if ! have_tools; then
	[ -z "${LLMPROF_NO_ORACLE:-}" ] || { echo "$me: error: LLMPROF_NO_ORACLE is set: NVIDIA's tools are not fetched" >&2; exit 1; }
	if [ -n "$status" ] && [ -s "$status" ]; then
		echo "$me: error: $(head -1 "$status") (this test run tried once already)" >&2
		exit 1
	fi
	mkdir -p "$cache" || die "cannot create '$cache'"
	exec 9>"$cache/lock"
	! command -v flock >/dev/null || flock 9
	have_tools || fetch
elif compgen -G "$cache/debs/*.deb" >/dev/null; then
	# a cache from before packages were deleted once unpacked
	exec 9>"$cache/lock"
	! command -v flock >/dev/null || flock 9
	one_copy
fi
echo "NSYS=$nsys"
echo "NCU=$ncu"
