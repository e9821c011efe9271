#!/usr/bin/env bash
# What `make test` does about NVIDIA's CLIs (scripts/nsight-cli-oracle.sh)
# when the archive cannot be reached: --announce says what would be
# downloaded, how big, where and how to skip it; the first call fails with
# the reason and records it in LLMPROF_ORACLE_STATUS's file, the later calls
# of the same run fail at once with that reason and no second try;
# LLMPROF_NO_ORACLE=1 tries nothing. A cache holding the tools keeps one
# copy (the packages go). scripts/test-skips.sh lists each skipped test of a
# ctest run with its reason. Runs against a fake apt-get (no network used).
set -u
src=${LLMPROF_SOURCE_DIR:?}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*"; exit 1; }
oracle=$src/scripts/nsight-cli-oracle.sh
command -v dpkg >/dev/null && [ "$(dpkg --print-architecture)" = amd64 ] || { echo "skip: not a Debian amd64 machine"; exit 77; }
mkdir -p "$tmp/bin" "$tmp/home"
cat >"$tmp/bin/apt-get" <<'SH'
#!/bin/sh
echo "apt-get $*" >>"$APT_CALLS"
echo "W: Failed to fetch http://deb.example/debian/dists/trixie/InRelease  Temporary failure resolving 'deb.example'"
exit 0
SH
chmod +x "$tmp/bin/apt-get"
export APT_CALLS=$tmp/apt-calls HOME=$tmp/home PATH=$tmp/bin:$PATH
export LLMPROF_ORACLE_STATUS=$tmp/status
unset LLMPROF_NO_ORACLE

# what a run will download, before it starts
bash "$oracle" --announce >"$tmp/announce" 2>&1 || fail "--announce failed"
grep -q "379 MB to download, 1 GB unpacked) into $tmp/home/.cache/llmprof-nsight" "$tmp/announce" &&
	grep -q "LLMPROF_NO_ORACLE=1 skips the download" "$tmp/announce" || fail "announce: $(cat "$tmp/announce")"
[ ! -e "$APT_CALLS" ] || fail "--announce ran apt-get"

# offline: one try, then the same reason at once
bash "$oracle" >/dev/null 2>"$tmp/err1" && fail "the fetch succeeded offline"
grep -q "downloading NVIDIA's nsys 2023.4.4 and ncu 2024.1.1" "$tmp/err1" || fail "no word before downloading: $(cat "$tmp/err1")"
grep -q "error: cannot reach the Debian archive: Failed to fetch" "$tmp/err1" || fail "first call: $(cat "$tmp/err1")"
grep -q "cannot reach the Debian archive" "$tmp/status" || fail "the reason is not recorded: $(cat "$tmp/status" 2>&1)"
for i in 2 3 4; do
	bash "$oracle" >/dev/null 2>"$tmp/err$i" && fail "call $i succeeded"
	grep -q "cannot reach the Debian archive.*(this test run tried once already)" "$tmp/err$i" || fail "call $i: $(cat "$tmp/err$i")"
done
[ "$(grep -c update "$APT_CALLS")" -eq 1 ] || fail "apt-get ran $(grep -c update "$APT_CALLS") times, want once"

# LLMPROF_NO_ORACLE=1: nothing tried
rm -f "$APT_CALLS" "$tmp/status"
LLMPROF_NO_ORACLE=1 bash "$oracle" >/dev/null 2>"$tmp/err" && fail "LLMPROF_NO_ORACLE: succeeded"
grep -q "LLMPROF_NO_ORACLE is set" "$tmp/err" || fail "LLMPROF_NO_ORACLE: $(cat "$tmp/err")"
[ ! -e "$APT_CALLS" ] || fail "LLMPROF_NO_ORACLE: apt-get ran"
[ -z "$(LLMPROF_NO_ORACLE=1 bash "$oracle" --announce)" ] || fail "LLMPROF_NO_ORACLE: announced a download"

# a cache with the tools and the packages they came from: one copy stays
c=$tmp/cache
mkdir -p "$c/root/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64" "$c/root/usr/lib/nsight-compute" "$c/debs"
for t in "$c/root/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys" "$c/root/usr/lib/nsight-compute/ncu"; do
	printf '#!/bin/sh\n' >"$t"
	chmod +x "$t"
done
touch "$c/debs/nsight-compute_1_amd64.deb"
bash "$oracle" "$c" >"$tmp/paths" 2>"$tmp/err" || fail "cached tools: $(cat "$tmp/err")"
grep -qx "NSYS=$c/root/usr/lib/x86_64-linux-gnu/nsight-systems/target-linux-x64/nsys" "$tmp/paths" || fail "cached: $(cat "$tmp/paths")"
[ ! -e "$c/debs/nsight-compute_1_amd64.deb" ] || fail "the packages stay beside the unpacked tools"
[ -z "$(bash "$oracle" --announce "$c")" ] || fail "announced a download with the tools cached"

# the skipped tests of a ctest run, each with its reason
b=$tmp/build
mkdir -p "$b/Testing/Temporary"
printf '%s\n' 'The following tests did not run:' '	115 - cli/test-stats-nsys (Skipped)' \
	'	 27 - unit/test-nsys-oracle (Skipped)' >"$b/Testing/ctest.out"
cat >"$b/Testing/Temporary/LastTest.log" <<'LOG'
115/138 Test: cli/test-stats-nsys
"cli/test-stats-nsys" start time: Nov 28 21:05 UTC
Output:
----------------------------------------------------------
skip: NVIDIA's nsys CLI is not available: no network
<end of output>
27/138 Test: unit/test-nsys-oracle
"unit/test-nsys-oracle" start time: Nov 28 21:05 UTC
Output:
----------------------------------------------------------
[ RUN      ] oracle
the nsys oracle is not available (no network)
<end of output>
LOG
bash "$src/scripts/test-skips.sh" "$b" >"$tmp/skips" || fail "test-skips.sh failed"
grep -qx "  cli/test-stats-nsys: skip: NVIDIA's nsys CLI is not available: no network" "$tmp/skips" &&
	grep -qx "  unit/test-nsys-oracle: the nsys oracle is not available (no network)" "$tmp/skips" &&
	grep -q "^skipped tests (2)" "$tmp/skips" || fail "test-skips: $(cat "$tmp/skips")"
echo ok
