#!/usr/bin/env bash
# NVTX range names as the nsys that wrote the export spells them: nsys 2024.1
# and later print a default-domain range as ":A" in nvtx_sum, nvtx_gpu_proj_sum
# and nvtx_kern_sum, 2023.4 and earlier as "A"; a named domain reads "LLM:prefill"
# in both. auto reads EXPORT_PRODUCT_VERSION; --nsys-version overrides it.
set -u
data=${LLMPROF_SOURCE_DIR:?}/tests/data/nsys
h100=$data/nvtx-probe-h100-nsys2025.3.sqlite # written by nsys 2025.3.2.0
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
fail=0
check() { # check WANT_REGEX NOT_REGEX ARGS...
	local want=$1 not=$2; shift 2
	"$LLMPROF" stats -f csv "$@" >"$tmp/out" 2>"$tmp/err" || { echo "FAIL: stats $*: $(cat "$tmp/err")"; fail=1; return; }
	grep -Eq "$want" "$tmp/out" || { echo "FAIL: stats $*: no /$want/ in: $(cat "$tmp/out")"; fail=1; }
	! grep -Eq "$not" "$tmp/out" || { echo "FAIL: stats $*: /$not/ in: $(cat "$tmp/out")"; fail=1; }
}
# auto: 2025.3 wrote it
check '^:A,PushPop,11296,' '^A,' -r nvtx_gpu_proj_sum "$h100"
check ',PushPop,:A::A1$' ',PushPop,A::A1$' -r nvtx_sum "$h100"
check '^:B,PushPop,603,603,' '^B,' -r nvtx_kern_sum "$h100"
check '^LLM:decode_all,PushPop,' '^:LLM' -r nvtx_gpu_proj_sum --nsys-version auto "$h100"
# chosen by hand
check '^A,PushPop,11296,' '^:A,' -r nvtx_gpu_proj_sum --nsys-version 2023.4 "$h100"
check '^:A,PushPop,11296,' '^A,' -r nvtx_gpu_proj_sum --nsys-version 2024.1.1 "$h100"
# the same export, said to be written by 2023.4.4: bare names
if ! command -v python3 >/dev/null; then
	echo "note: no python3: the relabelled export is not checked"
elif python3 - "$h100" "$tmp/old.sqlite" <<'PY'; then
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
db.execute("UPDATE META_DATA_EXPORT SET value = '2023.4.4.54-234433681190v0' WHERE name = 'EXPORT_PRODUCT_VERSION'")
db.commit()
PY
	check '^A,PushPop,11296,' '^:A,' -r nvtx_gpu_proj_sum "$tmp/old.sqlite"
	# the domain named by a registered string (textId), its text NULL: 2024 and
	# later read the string, 2023.4 only the text (none: the range reads bare)
	python3 - "$h100" "$tmp/reg.sqlite" <<'PY' || { echo "FAIL: cannot build the registered-domain export"; fail=1; }
import shutil, sqlite3, sys
shutil.copyfile(sys.argv[1], sys.argv[2])
db = sqlite3.connect(sys.argv[2])
sid = db.execute("SELECT max(id) + 1 FROM StringIds").fetchone()[0]
db.execute("INSERT INTO StringIds (id, value) VALUES (?, 'LLMreg')", (sid,))
db.execute("UPDATE NVTX_EVENTS SET text = NULL, textId = ? WHERE eventType = 75", (sid,))
db.commit()
PY
	check '^LLMreg:decode_all,PushPop,' '^LLM:' -r nvtx_gpu_proj_sum "$tmp/reg.sqlite"
	check '^decode_all,PushPop,' 'LLMreg' -r nvtx_gpu_proj_sum --nsys-version 2023.4 "$tmp/reg.sqlite"
else
	echo "FAIL: cannot relabel the export"; fail=1
fi
# a bad version is a usage error
"$LLMPROF" stats --nsys-version 2025 "$h100" >/dev/null 2>"$tmp/err"
rc=$?
[ $rc -eq 2 ] && grep -q "^llmprof: error: stats: --nsys-version '2025' is not a version like 2025.3 (or auto)$" "$tmp/err" ||
	{ echo "FAIL: bad --nsys-version: exit $rc: $(cat "$tmp/err")"; fail=1; }
exit $fail
