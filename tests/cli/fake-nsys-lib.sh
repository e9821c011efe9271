# fake-nsys-lib.sh: a stand-in for NVIDIA's nsys that exports, for the tests
# of `stats` and `report` on an .nsys-rep (sourced; defines one function and
# does nothing else).
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
