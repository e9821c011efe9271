#!/usr/bin/env bash
# The model shape from a transformers config.json the profiled program names
# (docs/workloads.md): a folder argument, --opt=FOLDER and a path to the file
# fill model.* (said in one line, shown by --dry-run, kept in config.yaml and
# inputs.yaml, and MFU/MBU become model-based); an explicit model= or
# model.* override wins; an architecture the analytic model does not cover
# and a malformed or incomplete file are reported in one line and ignored.
set -u
: "${LLMPROF:?}"
src=${LLMPROF_SOURCE_DIR:-$(cd "$(dirname "$0")/../.." && pwd)}
tool=${LLMPROF_BUILD_DIR:-}/tests/trace-tool
fixture=$src/tests/data/hf/llama-3.2-1b
tmp=$(mktemp -d /tmp/llmprof-cli-modeljson.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
dry() { "$LLMPROF" profile --dry-run pipeline.nsys.path=/nonexistent/nsys "$@" >out 2>err; }
shape='model: llama-3.2-1b (llama, 16 layers, hidden 2048, intermediate 8192, heads 32/8 kv, head_dim 64, vocab 128256, tied embeddings yes)'

# a folder argument
mkdir -p m/llama-3.2-1b && cp "$fixture/config.json" m/llama-3.2-1b/
dry -- /bin/true --prompt 8 m/llama-3.2-1b || fail "folder: exit $?, $(cat err)"
grep -qxF "llmprof: model shape from m/llama-3.2-1b/config.json (llama, 16 layers, hidden 2048)" err ||
	fail "folder: note: $(cat err)"
grep -qF "$shape from m/llama-3.2-1b/config.json: MFU/MBU from its analytic FLOPs and bytes" out ||
	fail "folder: dry run: $(grep -n model out)"
# --opt=FOLDER/ and the file's own path
dry -- /bin/true --model=m/llama-3.2-1b/ || fail "--opt=: $(cat err)"
grep -qF "$shape from m/llama-3.2-1b/config.json" out || fail "--opt=: $(grep -n model out)"
dry -- /bin/true "$PWD/m/llama-3.2-1b/config.json" || fail "file: $(cat err)"
grep -qF "$shape from $PWD/m/llama-3.2-1b/config.json" out || fail "file: $(grep -n model out)"
# an argument that only looks like one is not read
dry -- /bin/true m || fail "plain folder: $(cat err)"
grep -q "^model: \|model shape\|config.json" err out && fail "a folder without config.json was used: $(cat err)"

# an explicit model always wins, and the file is not even read
dry model=llama-3.1-8b -- /bin/true m/llama-3.2-1b || fail "model=: $(cat err)"
grep -q "model shape from\|config.json" err && fail "model= did not win: $(cat err)"
grep -q "^model: llama-3.1-8b (llama, 32 layers, hidden 4096" out || fail "model=: $(grep -n '^model' out)"
dry model.num_layers=2 -- /bin/true m/llama-3.2-1b || fail "model.num_layers=: $(cat err)"
grep -q "model shape from" err && fail "model.num_layers= did not win: $(cat err)"

# an architecture the analytic model does not cover: one line, ignored
mkdir gpt2 && printf '{"model_type": "gpt2", "n_embd": 768, "n_layer": 12, "vocab_size": 50257}\n' >gpt2/config.json
dry -- /bin/true gpt2 || fail "gpt2: exit $?, $(cat err)"
[ "$(grep -c '' err)" -eq 1 ] || fail "gpt2: not one line: $(cat err)"
grep -qxF 'llmprof: warning: ignored the model'"'"'s config.json: gpt2/config.json: model_type "gpt2" is not an architecture the analytic model covers (llama, mistral, qwen2); MFU/MBU need model= keys' err ||
	fail "gpt2: $(cat err)"
grep -q "^model: " out && fail "gpt2: a model was guessed: $(grep '^model' out)"

# malformed and incomplete files: one line each, ignored, exit as without them
mkdir bad && printf '{"model_type": "llama",\n  "hidden_size": }\n' >bad/config.json
dry -- /bin/true bad || fail "malformed: exit $?, $(cat err)"
[ "$(grep -c '' err)" -eq 1 ] || fail "malformed: not one line: $(cat err)"
grep -q "^llmprof: warning: ignored the model's config.json: bad/config.json:2:[0-9]*: .*; MFU/MBU need model= keys$" err ||
	fail "malformed: $(cat err)"
mkdir part && printf '{"model_type": "llama", "hidden_size": 2048, "intermediate_size": 8192, "num_attention_heads": 32, "vocab_size": 32000}\n' >part/config.json
dry -- /bin/true part || fail "incomplete: exit $?"
grep -qxF "llmprof: warning: ignored the model's config.json: part/config.json: no \"num_hidden_layers\"; MFU/MBU need model= keys" err ||
	fail "incomplete: $(cat err)"
printf '{"model_type": "llama", "hidden_size": 2048, "intermediate_size": -1, "num_hidden_layers": 2, "num_attention_heads": 32, "vocab_size": 32000}\n' >part/config.json
dry -- /bin/true part || fail "negative: exit $?"
grep -qF 'part/config.json: "intermediate_size" is not a positive integer' err || fail "negative: $(cat err)"

# defaults of optional keys, and qwen2's bias: head_dim = hidden / heads, kv = heads
mkdir qwen && printf '{"model_type": "qwen2", "hidden_size": 896, "intermediate_size": 4864, "num_hidden_layers": 24, "num_attention_heads": 14, "vocab_size": 151936}\n' >qwen/config.json
"$LLMPROF" config show >/dev/null || fail "config show"
dry -- /bin/true qwen || fail "qwen: $(cat err)"
grep -qF "model: qwen (llama, 24 layers, hidden 896, intermediate 4864, heads 14/14 kv, head_dim 64, vocab 151936, tied embeddings no) from qwen/config.json" out ||
	fail "qwen: $(grep -n '^model' out)"

# a real run: config.yaml and inputs.yaml say it, metrics.json's MFU/MBU are model-based
[ -x "$tool" ] && [ -e "${LLMPROF_BUILD_DIR:-}/tracer/libllmprof_tracer.so" ] || { echo "ok (no tracer built: run part skipped)"; exit 0; }
command -v python3 >/dev/null || { echo "ok (no python3: run part skipped)"; exit 0; }
cat >wl.sh <<SH
#!/bin/sh
[ -n "\${LLMPROF_TRACE_OUT:-}" ] && exec "$tool" synth "\$LLMPROF_TRACE_OUT" 20 4
exit 0
SH
chmod +x wl.sh
"$LLMPROF" profile artifacts.root="$tmp/a" pipeline.trace.backend=builtin pipeline.nsys.path=/nonexistent/nsys \
	pipeline.ncu.enable=false -- ./wl.sh m/llama-3.2-1b >out 2>err || fail "run: $(cat err)"
run=$(tail -n 1 out | sed -n 's/^run: //p')
grep -q "^  name: llama-3.2-1b$" "$run/config.yaml" && grep -q "^  num_kv_heads: 8$" "$run/config.yaml" &&
	grep -q "^  rope_theta: 500000" "$run/config.yaml" || fail "config.yaml: $(sed -n '/^model:/,/seed/p' "$run/config.yaml")"
grep -qxF '  config_json: "m/llama-3.2-1b/config.json"' "$run/inputs.yaml" || fail "inputs.yaml: $(cat "$run/inputs.yaml")"
python3 - "$run/metrics.json" <<'PY' || fail "metrics.json"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["model"]["name"] == "llama-3.2-1b" and d["model"]["num_layers"] == 16, d["model"]
u = d["stages"][0]["utilization"]
assert u["bytes"] and u["mbu_datasheet"] is not None, u
PY
echo ok
