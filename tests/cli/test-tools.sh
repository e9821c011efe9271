#!/usr/bin/env bash
# One way to find each tool (src/nsight/tools.h): `doctor` and `profile
# --dry-run` name the same nsys, ncu and tracer library for a set of fake
# installations: tools on PATH, in the known install locations (under
# LLMPROF_SYSROOT, a stand-in for /), an nsys on PATH passed over for one
# that can finish a report, the deprecated LLMPROF_TRACER. And a dry run
# with an unusable nsys prints the whole plan, marks the steps that would
# fail and exits 4. The fake tools print NVIDIA's own --version lines and,
# for the importer, a recorded loader failure (tests/data/nsys/).
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tmp=$(mktemp -d /tmp/llmprof-cli-tools.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
export LLMPROF_NVML_LIBRARY= LLMPROF_NVIDIA_SMI= # no GPU, whatever this machine has
unset LLMPROF_TRACER LLMPROF_TRACER_LIB
base=/usr/bin:/bin

fake() { # fake PATH BODY: an executable script
	mkdir -p "$(dirname "$1")"
	printf '#!/bin/sh\n%s\n' "$2" >"$1"
	chmod +x "$1"
}
nsys_v='[ "$1" = --version ] && echo "NVIDIA Nsight Systems version 2025.3.1.90-253135822126v0"'
debian_v='[ "$1" = --version ] && echo "NVIDIA Nsight Systems version 2023.4.4.54-234433681190v0"'
ncu_v='[ "$1" = --version ] && { echo "NVIDIA (R) Nsight Compute Command Line Profiler"; echo "Version 2025.3.1.0 (build 36398880) (public-release)"; }'
touch "$tmp/libllmprof_tracer.so"

# doctor's "ok    THING: X" and the dry run's "THING: X" must be the same X
compare() { # compare CASE PATH-DIRS SYSROOT [overrides...]
	local name=$1 path=$2 root=$3 t d p
	shift 3
	PATH=$path LLMPROF_SYSROOT=$root "$LLMPROF" doctor "$@" >"doctor.$name" 2>"doctor.$name.err" ||
		fail "$name: doctor: $(cat "doctor.$name.err")"
	PATH=$path LLMPROF_SYSROOT=$root "$LLMPROF" profile -n artifacts.root="$tmp/none" "$@" \
		-- /bin/true >"dry.$name" 2>"dry.$name.err" || fail "$name: dry run: $(cat "dry.$name.err")"
	for t in nsys ncu "builtin tracer"; do
		d=$(sed -n "s/^ok    $t: //p" "doctor.$name")
		p=$(sed -n "s/^$t: //p" "dry.$name")
		[ -n "$d" ] || fail "$name: doctor found no $t: $(cat "doctor.$name")"
		[ "$d" = "$p" ] || fail "$name: $t: doctor says '$d', the dry run '$p'"
	done
	[ ! -e "$tmp/none" ] || fail "$name: the dry run created a bundle"
}

# 1. nothing on PATH: Nsight Compute's own install, with its nsys and the
# importer nsys finds in ../linux-desktop-glibc_2_11_3-x64 (the H100 image)
r1=$tmp/root1
nc=$r1/opt/nvidia/nsight-compute
fake "$nc/2025.3.1/ncu" "$ncu_v"
fake "$nc/2025.3.1/host/target-linux-x64/nsys" "$nsys_v"
fake "$nc/2025.3.1/host/linux-desktop-glibc_2_11_3-x64/QdstrmImporter" 'exit 0'
fake "$nc/2024.1.1/ncu" 'echo "Version 2024.1.1.0 (build 33998838)"' # older: not chosen
LLMPROF_TRACER_LIB=$tmp/libllmprof_tracer.so compare known "$base" "$r1"
grep -qx "ok    nsys: $nc/2025.3.1/host/target-linux-x64/nsys (2025.3.1.90-253135822126v0)" doctor.known ||
	fail "known: nsys: $(grep nsys doctor.known)"
grep -qx "ok    ncu: $nc/2025.3.1/ncu (2025.3.1.0 (build 36398880) (public-release))" doctor.known ||
	fail "known: ncu: $(grep ncu doctor.known)"
grep -qx "ok    nsys importer: $nc/2025.3.1/host/target-linux-x64/../linux-desktop-glibc_2_11_3-x64/QdstrmImporter" doctor.known ||
	fail "known: importer: $(grep importer doctor.known)"
grep -q "^trace backend: nsys (pipeline.trace.backend=auto: nsys 2025.3.1.90-253135822126v0 at $nc/2025.3.1/host/target-linux-x64/nsys can finish a report)$" dry.known ||
	fail "known: backend: $(grep backend dry.known)"
grep -q "^  argv: $nc/2025.3.1/host/target-linux-x64/nsys profile " dry.known || fail "known: workload argv"

# 2. Debian's nsys on PATH (no QdstrmImporter: it cannot finish a report)
# and a full one in the known location: both pick the full one and say
# which one they passed over and why; ncu on PATH wins over the known one
mkdir -p "$tmp/deb"
fake "$tmp/deb/nsys" "$debian_v"
fake "$tmp/deb/ncu" "$ncu_v"
LLMPROF_TRACER_LIB=$tmp/libllmprof_tracer.so compare passed "$tmp/deb:$base" "$r1"
grep -qx "ok    nsys: $nc/2025.3.1/host/target-linux-x64/nsys (2025.3.1.90-253135822126v0); passed over $tmp/deb/nsys (nsys 2023.4.4.54-234433681190v0 has no QdstrmImporter next to it: it would record a .qdstrm but never write a .nsys-rep)" doctor.passed ||
	fail "passed: nsys: $(grep nsys doctor.passed)"
grep -qx "ok    ncu: $tmp/deb/ncu (2025.3.1.0 (build 36398880) (public-release))" doctor.passed ||
	fail "passed: ncu: $(grep ncu doctor.passed)"

# 3. explicit settings win, and name their key; the deprecated
# LLMPROF_TRACER still works, with a warning from both
LLMPROF_TRACER=$tmp/libllmprof_tracer.so compare explicit "$tmp/deb:$base" "$r1" \
	pipeline.nsys.path="$nc/2025.3.1/host/target-linux-x64/nsys" pipeline.ncu.path="$nc/2024.1.1/ncu"
grep -qx "ok    ncu: $nc/2024.1.1/ncu (2024.1.1.0 (build 33998838))" doctor.explicit ||
	fail "explicit: ncu: $(grep ncu doctor.explicit)"
grep -qx "ok    builtin tracer: $tmp/libllmprof_tracer.so" doctor.explicit || fail "explicit: tracer"
grep -qx "warn  builtin tracer: LLMPROF_TRACER is deprecated; set LLMPROF_TRACER_LIB instead" doctor.explicit ||
	fail "explicit: no deprecation line: $(cat doctor.explicit)"
grep -qx "llmprof: warning: LLMPROF_TRACER is deprecated; set LLMPROF_TRACER_LIB instead" dry.explicit.err ||
	fail "explicit: dry run: no deprecation warning: $(cat dry.explicit.err)"
# LLMPROF_TRACER_LIB wins over the old name, without a warning
LLMPROF_TRACER=/nonexistent.so LLMPROF_TRACER_LIB=$tmp/libllmprof_tracer.so LLMPROF_SYSROOT=$r1 \
	PATH=$base "$LLMPROF" doctor >out 2>&1 || fail "both tracer variables: $(cat out)"
grep -qx "ok    builtin tracer: $tmp/libllmprof_tracer.so" out && ! grep -q deprecated out ||
	fail "both tracer variables: $(grep tracer out)"

# 4. an nsys whose importer cannot start (the loader's own message, as
# recorded): doctor warns about the importer; backend=auto falls back to
# the builtin tracer; backend=nsys: the dry run prints the whole plan,
# marks the nsys steps and exits 4, as the run would
mkdir -p "$tmp/nolib/target-linux-x64" "$tmp/nolib/host-linux-x64"
fake "$tmp/nolib/target-linux-x64/nsys" "$debian_v"
fake "$tmp/nolib/host-linux-x64/QdstrmImporter" \
	"sed \"s|IMPORTER_DIR|\$(dirname \"\$0\")|\" '$src/tests/data/nsys/importer-version-nolib.txt' >&2; exit 127"
imp="$tmp/nolib/target-linux-x64/../host-linux-x64"
empty=$tmp/empty
mkdir -p "$empty"
export LLMPROF_TRACER_LIB=$tmp/libllmprof_tracer.so
PATH=$tmp/nolib/target-linux-x64:$base LLMPROF_SYSROOT=$empty "$LLMPROF" doctor >out 2>err || fail "nolib: doctor"
grep -qx "ok    nsys: $tmp/nolib/target-linux-x64/nsys (2023.4.4.54-234433681190v0)" out || fail "nolib: nsys: $(grep nsys out)"
grep -qx "warn  nsys importer: nsys's importer cannot start: libssh.so is missing, so nsys leaves a .qdstrm and no report" out ||
	fail "nolib: importer: $(grep importer out)"
PATH=$tmp/nolib/target-linux-x64:$base LLMPROF_SYSROOT=$empty "$LLMPROF" profile -n -- /bin/true >out 2>err ||
	fail "nolib: auto dry run: $(cat err)"
grep -qx "nsys: $tmp/nolib/target-linux-x64/nsys (2023.4.4.54-234433681190v0): not usable: nsys's importer cannot start: libssh.so is missing, so nsys leaves a .qdstrm and no report" out ||
	fail "nolib: dry run nsys line: $(grep '^nsys' out)"
grep -q "^trace backend: builtin (pipeline.trace.backend=auto: nsys is not usable (nsys's importer cannot start: libssh.so is missing" out ||
	fail "nolib: auto backend: $(grep backend out)"
! grep -q "would fail" out || fail "nolib: auto marked a step: $(cat out)"

PATH=$tmp/nolib/target-linux-x64:$base LLMPROF_SYSROOT=$empty "$LLMPROF" profile -n \
	artifacts.root="$tmp/none" pipeline.trace.backend=nsys -- /bin/true >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "nolib: backend=nsys dry run: exit $rc, want 4 ($(cat err))"
why="pipeline.trace.backend=nsys: nsys's importer cannot start: libssh.so is missing, so nsys leaves a .qdstrm and no report; put libssh.so on LD_LIBRARY_PATH"
grep -q "^llmprof: error: dry run: step 'workload' would fail: $why" err || fail "nolib: stderr: $(cat err)"
[ "$(wc -l <err)" -eq 1 ] || fail "nolib: more than one line on stderr: $(cat err)"
# every step, each with its argv or what it does; the nsys ones marked
for n in "1: config" "2: provenance" "3: workload" "4: nsys-export" "5: nsys-stats" "6: analyze" \
	"7: select" "8: ncu" "9: join" "10: reports"; do
	grep -q "^step $n" out || fail "nolib: no step $n: $(cat out)"
done
grep -q "^  argv: $tmp/nolib/target-linux-x64/nsys profile --trace=cuda,nvtx,osrt .* /bin/true$" out ||
	fail "nolib: workload argv: $(cat out)"
grep -q "^  argv: $tmp/nolib/target-linux-x64/nsys export " out || fail "nolib: export argv"
[ "$(grep -c "^  would fail: $why" out)" -eq 3 ] || fail "nolib: marks: $(grep 'would fail' out)"
[ ! -e "$tmp/none" ] || fail "nolib: the dry run created a bundle"

# 5. Debian's nsys alone, backend=nsys and bad nsys options too: still the
# whole plan; the first problem is the exit code (4, the missing importer)
PATH=$tmp/deb:$base LLMPROF_SYSROOT=$empty "$LLMPROF" profile -n pipeline.trace.backend=nsys \
	pipeline.nsys.capture_range=nvtx pipeline.nsys.gating_nvtx=true -- /bin/true >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "debian: exit $rc, want 4 ($(cat err))"
grep -q "^  would fail: pipeline.trace.backend=nsys: nsys 2023.4.4.54-234433681190v0 has no QdstrmImporter next to it" out ||
	fail "debian: mark: $(cat out)"
grep -q "^step 10: reports" out || fail "debian: plan incomplete: $(cat out)"
# with an nsys that works, bad options alone: exit 3, the workload marked
PATH=$base LLMPROF_SYSROOT=$r1 "$LLMPROF" profile -n pipeline.trace.backend=nsys \
	pipeline.nsys.capture_range=nvtx pipeline.nsys.gating_nvtx=true -- /bin/true >out 2>err
rc=$?
[ $rc -eq 3 ] || fail "bad options: exit $rc, want 3 ($(cat err))"
grep -q "^llmprof: error: dry run: step 'workload' would fail: .*nvtx_capture" err || fail "bad options: $(cat err)"
grep -q "^step 10: reports" out || fail "bad options: plan incomplete: $(cat out)"
# the real run stops with the same code before creating anything
PATH=$base LLMPROF_SYSROOT=$r1 "$LLMPROF" profile artifacts.root="$tmp/none" pipeline.trace.backend=nsys \
	pipeline.nsys.capture_range=nvtx pipeline.nsys.gating_nvtx=true -- /bin/true >out 2>err
[ $? -eq 3 ] && [ ! -e "$tmp/none" ] || fail "bad options: the real run: $(cat err)"

# 6. a missing built-in workload and workload.kind=command without a
# program: marked, not fatal; exit 4 and 3
LLMPROF_WORKLOADS_DIR=$tmp/nowhere PATH=$base LLMPROF_SYSROOT=$empty "$LLMPROF" profile -n workload=dummy >out 2>err
rc=$?
[ $rc -eq 4 ] || fail "no workload: exit $rc, want 4 ($(cat err))"
grep -q "^  would fail: built-in workload '$tmp/nowhere/llmprof-dummy' not found" out || fail "no workload: $(cat out)"
grep -q "^step 9: reports" out || fail "no workload: plan incomplete: $(cat out)"
PATH=$base LLMPROF_SYSROOT=$empty "$LLMPROF" profile -n workload=command >out 2>err
rc=$?
[ $rc -eq 3 ] || fail "no program: exit $rc, want 3 ($(cat err))"
grep -qx "  argv: '<no program>'" out && grep -q "^  would fail: workload.kind=command needs a program" out ||
	fail "no program: $(cat out)"

# 6b. an importer that is a real program linked against two libraries the
# machine lacks (stand-ins for libllmprof-test-dw.so.1 and libllmprof-test-elf.so.1, under names no
# machine has: built here, then moved away):
# doctor names both (the loader's own message names only the first) and
# points at docs/nsys.md; the fix it documents (the folder on
# LD_LIBRARY_PATH) makes it ok
if command -v cc >/dev/null; then
	mkdir -p "$tmp/elf/target-linux-x64" "$tmp/elf/host-linux-x64" "$tmp/elflibs" "$tmp/elfsrc"
	fake "$tmp/elf/target-linux-x64/nsys" "$nsys_v"
	echo 'int dw_stub(void) { return 0; }' >"$tmp/elfsrc/dw.c"
	printf '%s\n' '#include <stdio.h>' 'int dw_stub(void); int elf_stub(void);' \
		'int main(int c, char **v) { if (c > 1) puts("QdstrmImporter 1.0"); return dw_stub() + elf_stub(); }' >"$tmp/elfsrc/imp.c"
	sed 's/dw_stub/elf_stub/' "$tmp/elfsrc/dw.c" >"$tmp/elfsrc/elf.c"
	cc -shared -fPIC -Wl,-soname,libllmprof-test-dw.so.1 -o "$tmp/elfsrc/libllmprof-test-dw.so.1" "$tmp/elfsrc/dw.c" &&
		cc -shared -fPIC -Wl,-soname,libllmprof-test-elf.so.1 -o "$tmp/elfsrc/libllmprof-test-elf.so.1" "$tmp/elfsrc/elf.c" &&
		cc -o "$tmp/elf/host-linux-x64/QdstrmImporter" "$tmp/elfsrc/imp.c" "$tmp/elfsrc/libllmprof-test-dw.so.1" "$tmp/elfsrc/libllmprof-test-elf.so.1" ||
		fail "elf: cannot build the stand-in importer"
	mv "$tmp/elfsrc/libllmprof-test-dw.so.1" "$tmp/elfsrc/libllmprof-test-elf.so.1" "$tmp/elflibs/"
	PATH=$tmp/elf/target-linux-x64:$base LLMPROF_SYSROOT=$empty LD_LIBRARY_PATH= "$LLMPROF" doctor >out 2>err || fail "elf: doctor"
	grep -q "^warn  nsys importer: nsys's importer cannot start: libllmprof-test-dw.so.1, libllmprof-test-elf.so.1 are missing" out ||
		fail "elf: doctor does not name both libraries: $(grep -A1 importer out)"
	grep -q "put libllmprof-test-dw.so.1, libllmprof-test-elf.so.1 on LD_LIBRARY_PATH (docs/nsys.md, \"When nsys's importer lacks libraries\")" out ||
		fail "elf: the fix: $(grep -A1 importer out)"
	grep -q "^### When nsys's importer lacks libraries" "$src/docs/nsys.md" || fail "elf: docs/nsys.md has no such section"
	PATH=$tmp/elf/target-linux-x64:$base LLMPROF_SYSROOT=$empty LD_LIBRARY_PATH=$tmp/elflibs "$LLMPROF" doctor >out 2>err ||
		fail "elf: doctor with the libraries"
	grep -q "^ok    nsys importer: " out || fail "elf: with the libraries on LD_LIBRARY_PATH: $(grep -A1 importer out)"
else
	echo "note: no C compiler: the missing-libraries importer case is not run"
fi

# 7. all is well: exit 0, nothing marked
PATH=$base LLMPROF_SYSROOT=$r1 "$LLMPROF" profile -n -- /bin/true >out 2>err || fail "ok: $(cat err)"
! grep -q "would fail" out && [ ! -s err ] || fail "ok: $(cat out err)"
echo ok
