#!/usr/bin/env bash
# Nothing is written outside the bundle: symlinks planted at every file and
# folder name a bundle holds, by the profiled program (it knows
# LLMPROF_RUN_DIR and that llmprof is its parent) and inside a bundle given
# to `llmprof report`, never make llmprof write through them (a --rank-dir
# whose ranks/ is a link included). Checksums of every file outside are
# compared before and after; llmprof either writes real files in the bundle
# or stops with one clear line and exit 7. Also the output names that are
# no names: `stats -o ''`, `stats -o /dev/null`,
# `report -o ''`, an empty `artifacts.root`, and a `latest` that the user
# owns (a regular file), which is never replaced.
set -u
: "${LLMPROF:?}"
tmp=$(mktemp -d /tmp/llmprof-cli-outside.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
last_run() { tail -n 1 "$1" | sed -n 's/^run: //p'; }
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI=
cd "$tmp" || exit 1

files="config.yaml env.json inputs.yaml status.json metrics.json report.md report.html kernels.md
operators.md stakeholder_summary.md analytic.json trace/trace.sqlite trace/trace.json
charts/kernels.svg charts/roofline.svg charts/timeline.svg"
# written after the program ran (the names before it are its inputs: a link
# there is read, which is not this test's business)
later="status.json metrics.json report.md report.html kernels.md operators.md
stakeholder_summary.md charts/kernels.svg charts/roofline.svg charts/timeline.svg"
steps="trace analyze select ncu join reports nsys-export nsys-stats"

# The victims: one file per name, and a folder that a link may point to.
out=$tmp/outside
mkdir -p "$out/d"
for f in $files; do
	echo "not yours: $f" >"$out/$(basename "$f")"
	echo "not yours either: $f" >"$out/d/$(basename "$f")"
done
snapshot() { (cd "$out" && find . -printf '%p %y %s\n' | sort && find . -type f -exec sha256sum {} + | sort); }
snapshot >before
unchanged() { snapshot >after && cmp -s before after || fail "$1: files outside changed: $(diff before after | head -5)"; }

# The workload: plants links at the final names and at the temporary names
# the old scheme used (<name>.tmp.<llmprof's pid>), at every step's log, and
# (with "dirs") at the folders; "rundir" replaces the run directory itself.
cat >plant.sh <<'EOF'
d=$LLMPROF_RUN_DIR o=$1 p=$PPID
for f in $FILES; do
	mkdir -p "$d/$(dirname "$f")"
	ln -sfn "$o/$(basename "$f")" "$d/$f.tmp.$p"
	ln -sfn "$o/$(basename "$f")" "$d/$f.tmp"
done
for f in $LATER; do ln -sfn "$o/$(basename "$f")" "$d/$f"; done
for s in $STEPS; do
	for e in out err argv env; do ln -sfn "$o/status.json" "$d/logs/$s.$e"; done
done
case ${2:-} in
dirs) rm -rf "$d/charts" && ln -s "$o/d" "$d/charts" ;;
rundir) mv "$d" "$d.moved" && ln -s "$o/d" "$d" ;;
esac
exit 0
EOF
export FILES="$files" LATER="$later" STEPS="$steps"

# 1. files: every write lands in a real file of the bundle
"$LLMPROF" profile artifacts.root="$tmp/a" -- sh "$tmp/plant.sh" "$out" >o1 2>e1
rc=$?
unchanged "profile, links at file names"
[ $rc -eq 0 ] || fail "profile with planted file links: exit $rc, want 0: $(cat e1)"
run=$(last_run o1)
for f in $later config.yaml env.json inputs.yaml; do
	[ -f "$run/$f" ] && [ ! -L "$run/$f" ] || fail "$f is not a real file in the bundle"
done
grep -q '"state": "ok"' "$run/status.json" || fail "status.json not ok"

# 2. a folder: charts -> outside; the reports step fails, nothing is written there
"$LLMPROF" profile artifacts.root="$tmp/b" -- sh "$tmp/plant.sh" "$out" dirs >o2 2>e2
rc=$?
unchanged "profile, charts -> outside"
[ $rc -eq 7 ] || fail "profile with charts -> outside: exit $rc, want 7: $(cat e2)"
grep -Eq "error: '.*/charts' was replaced by a symlink; llmprof writes only into real directories" e2 ||
	fail "no clear message for the charts link: $(cat e2)"

# 3. the run directory itself replaced by a link: nothing more is written
"$LLMPROF" profile artifacts.root="$tmp/c" -- sh "$tmp/plant.sh" "$out" rundir >o3 2>e3
rc=$?
unchanged "profile, run directory -> outside"
[ $rc -eq 7 ] || fail "profile with the run directory replaced: exit $rc, want 7: $(cat e3)"
grep -q "is no longer a real directory; nothing more is written" e3 ||
	fail "no clear message for the replaced run directory: $(cat e3)"

# 4. report on a bundle holding links at every name it writes
cp -r "$run" rb
for f in $later; do [ "$f" = status.json ] || ln -sfn "$out/$(basename "$f")" "rb/$f"; done
rm -rf rb/charts && ln -s "$out/d" rb/charts
"$LLMPROF" report rb >o4 2>e4
rc=$?
unchanged "report, charts -> outside"
[ $rc -eq 7 ] || fail "report with charts -> outside: exit $rc, want 7: $(cat e4)"
grep -Eq "error: report: 'rb/charts' is a symlink; llmprof writes only into real directories" e4 ||
	fail "no clear message for the charts link: $(cat e4)"
rm rb/charts
"$LLMPROF" report rb >o5 2>e5 || fail "report with file links: exit $?: $(cat e5)"
unchanged "report, links at file names"
for f in metrics.json report.md report.html charts/kernels.svg; do
	[ -f "rb/$f" ] && [ ! -L "rb/$f" ] || fail "report: $f is not a real file"
done
find rb "$run" -name "*.tmp*" -type f | grep -q . && fail "temporary files left: $(find rb "$run" -name "*.tmp*" -type f)"

# 4a. the bundle named through the user's own symlink (<root>/latest) is
# followed; below it nothing is
"$LLMPROF" report "$tmp/a/latest" >o13 2>e13 || fail "report through latest: exit $?: $(cat e13)"
unchanged "report through latest"
[ -f "$run/report.md" ] && [ ! -L "$run/report.md" ] || fail "report through latest: no report.md"

# 4c. --rank-dir DIR whose ranks/ is a symlink: refused, nothing written there
mkdir rk && ln -s "$out/d" rk/ranks
RANK=0 WORLD_SIZE=1 "$LLMPROF" profile --rank-dir rk -- true >o14 2>e14
rc=$?
unchanged "profile --rank-dir, ranks -> outside"
[ $rc -eq 7 ] || fail "--rank-dir with ranks -> outside: exit $rc, want 7: $(cat e14)"
grep -q "error: '$tmp/rk/ranks' is a symlink; llmprof writes only into real directories" e14 ||
	fail "no clear message for the ranks link: $(cat e14)"

# 4b. report --ncu-csv -o DIR with regions -> outside
R=${LLMPROF_SOURCE_DIR:?}/tests/data/ncu/h100-dummy-kernel-replay-ncu2025.3.raw.csv
[ -f "$R" ] || fail "fixture $R missing"
mkdir nd && ln -s "$out/d" nd/regions
"$LLMPROF" report --ncu-csv "$R" -o nd >o12 2>e12
rc=$?
unchanged "report --ncu-csv, regions -> outside"
[ $rc -eq 7 ] || fail "report --ncu-csv with regions -> outside: exit $rc, want 7: $(cat e12)"
grep -q "error: report: 'nd/regions' is a symlink; llmprof writes only into real directories" e12 ||
	fail "no clear message for the regions link: $(cat e12)"

# 5. names that are no names
touch x.sqlite
"$LLMPROF" stats -o /dev/null x.sqlite >o6 2>e6
[ $? -eq 2 ] || fail "stats -o /dev/null: want exit 2: $(cat e6)"
grep -q "error: stats: --output '/dev/null' is a device or special file, not a file name prefix" e6 ||
	fail "stats -o /dev/null: $(cat e6)"
ls /dev/null_* >/dev/null 2>&1 && fail "stats wrote /dev/null_*"
mkdir cwd && cd cwd || exit 1
echo mine >latest
"$LLMPROF" stats -o '' ../x.sqlite >o7 2>e7
[ $? -eq 2 ] || fail "stats -o '': want exit 2: $(cat e7)"
grep -q "error: stats: option '--output' needs a file name prefix" e7 || fail "stats -o '': $(cat e7)"
"$LLMPROF" report -o '' "$run" >o8 2>e8
[ $? -eq 2 ] || fail "report -o '': want exit 2: $(cat e8)"
grep -q "error: report: option '--output' needs a directory" e8 || fail "report -o '': $(cat e8)"
"$LLMPROF" profile artifacts.root= -- /bin/true >o9 2>e9
[ $? -eq 3 ] || fail "artifacts.root=: want exit 3: $(cat e9)"
grep -q "error: config key 'artifacts.root' cannot be empty" e9 || fail "artifacts.root=: $(cat e9)"
[ "$(ls | sort | tr '\n' ' ')" = "e7 e8 e9 latest o7 o8 o9 " ] || fail "files appeared: $(ls)"
[ "$(cat latest)" = mine ] || fail "latest was replaced"
cd .. || exit 1

# 6. <root>/latest that is the user's own file is never replaced (a warning)
mkdir r && echo mine >r/latest
"$LLMPROF" profile artifacts.root="$tmp/r" -- /bin/true >o10 2>e10 || fail "profile: $(cat e10)"
[ -f r/latest ] && [ ! -L r/latest ] && [ "$(cat r/latest)" = mine ] || fail "r/latest replaced"
grep -q "warning: not replacing '$tmp/r/latest': it is not a symlink" e10 || fail "no warning: $(cat e10)"
rm r/latest
"$LLMPROF" profile artifacts.root="$tmp/r" -- /bin/true >o11 2>e11 || fail "profile: $(cat e11)"
[ -L r/latest ] || fail "latest not created"
echo ok
