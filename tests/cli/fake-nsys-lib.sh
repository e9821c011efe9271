# fake-nsys-lib.sh: stand-ins for NVIDIA's nsys: one that exports, for the
# tests of `stats` and `report` on an .nsys-rep, and one that profiles too,
# for the tests of `profile` (sourced; defines two functions and does
# nothing else).
#
# fake_nsys DIR SQLITE [LOG]: writes DIR/nsys, which says it is nsys
# 2025.3.2 and "exports" any report by copying SQLITE to the file its -o
# names; any other command fails (exit 2). FAKE_NSYS_FAIL=1 in its
# environment makes the export fail as nsys's importer does (exit 1). With
# LOG, each call's argv is appended to LOG, one line, '|' between
# arguments.
fake_nsys() {
	local dir=$1 db=$2 log=${3:-/dev/null}
	cat >"$dir/nsys" <<FAKE
#!/usr/bin/env bash
(IFS='|'; echo "\$*") >>"$log"
case "\$1" in
--version) echo "NVIDIA Nsight Systems version 2025.3.2.0"; exit 0 ;;
export) ;;
*) echo "fake nsys: unexpected \$1" >&2; exit 2 ;;
esac
[ -z "\${FAKE_NSYS_FAIL:-}" ] || { echo "Importer error status: An unknown error occurred." >&2; exit 1; }
out=
while [ \$# -gt 1 ]; do [ "\$1" = -o ] && out=\$2; shift; done
cp "$db" "\$out"
FAKE
	chmod +x "$dir/nsys"
}

# fake_nsys_profile DIR RECORD EXPORT: writes DIR/nsys, a stand-in for the
# nsys that `llmprof profile` drives, and DIR/QdstrmImporter (the importer
# llmprof looks for beside it). --version says nsys
# ${FAKE_VERSION:-2025.3.2.0}. `profile` runs the program after its
# options, then RECORD with $out the -o name and $rc the program's status,
# then writes a placeholder $out.nsys-rep and exits $rc. `export` runs
# EXPORT with its arguments in "$@", $out the -o file and $rep the last
# argument (the report). `stats` does nothing. RECORD and EXPORT are shell
# text put into the script as they are: the caller escapes each $ the fake
# is to expand when it runs.
fake_nsys_profile() {
	local dir=$1 record=$2 export=$3
	cat >"$dir/nsys" <<FAKE
#!/usr/bin/env bash
cmd=\$1; shift
case "\$cmd" in
--version) echo "NVIDIA Nsight Systems version \${FAKE_VERSION:-2025.3.2.0}"; exit 0 ;;
profile)
	out=
	while [ \$# -gt 0 ]; do
		case "\$1" in
		-o) out=\$2; shift 2 ;;
		--force-overwrite) shift 2 ;;
		-*) shift ;;
		*) break ;;
		esac
	done
	"\$@"; rc=\$?
$record
	echo fake >"\$out.nsys-rep"; exit \$rc ;;
export)
	out= rep=\${@: -1} prev=
	for a in "\$@"; do [ "\$prev" = -o ] && out=\$a; prev=\$a; done
$export
	;;
stats) exit 0 ;;
esac
FAKE
	printf '#!/bin/sh\necho QdstrmImporter\n' >"$dir/QdstrmImporter"
	chmod +x "$dir/nsys" "$dir/QdstrmImporter"
}
