#!/usr/bin/env bash
# Operator tables of PyTorch programs with no operator NVTX of their own,
# from the startup module's ranges (docs/pytorch.md), on real H200
# recordings (tests/data/pytorch/h200-modules/README.md):
# - transformers Llama: >= 95 % of decode kernel time under a module range;
#   the class table's shares equal those of the same program with NVTX placed
#   by hand around the same modules (within 2 points, class and path);
# - a torch.cuda.graph decode: its replayed kernels get the module classes
#   of the eager run (within 2 points);
# - torch.compile: the compiled code's kernels (Triton, cuBLAS, cuDNN) under
#   the module that called the compiled code, every Triton kernel with its
#   fused-op label in kernels.md.
set -u
: "${LLMPROF:?}"
data=${LLMPROF_SOURCE_DIR:?}/tests/data/pytorch/h200-modules
tmp=$(mktemp -d /tmp/llmprof-cli-ptops.XXXXXX)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }
cd "$tmp" || exit 1
for m in hf-modules hf-hand mini-eager mini-graph mini-compile; do
	xz -dc "$data/$m.sqlite.xz" >"$m.sqlite" || fail "unpack $m"
	"$LLMPROF" report --trace "$m.sqlite" -o "r-$m" >/dev/null 2>err || fail "report $m: $(cat err)"
done
grep -q '^## By module class' r-hf-modules/operators.md || fail "no class table: $(head -20 r-hf-modules/operators.md)"
grep -q '^| LlamaAttention | decode | 16 | 496 |' r-hf-modules/operators.md ||
	fail "LlamaAttention row: $(grep LlamaAttention r-hf-modules/operators.md)"
grep -q '^| lm_head | decode |' r-hf-modules/operators.md || fail "lm_head (no dot in its path) is no operator"
grep -q '^## By module class' r-hf-hand/operators.md && fail "class table without classes"
grep -q 'Fused ops' r-hf-modules/kernels.md && fail "fused-op column without Inductor kernels"

python3 - <<'PY' || fail "shares"
import json, sys

def load(d):
    m = json.load(open(d + "/metrics.json"))
    busy = {s["name"]: s.get("busy_ms") for s in m["stages"]}["decode"]
    return m, busy

def worst(a, b):
    return 100 * max(abs(a.get(k, 0) - b.get(k, 0)) for k in set(a) | set(b))

bad = []
mm, bm = load("r-hf-modules")
mh, bh = load("r-hf-hand")
dec = [o for o in mm["operators"] if o["stage"] == "decode"]
cov = sum(o.get("gpu_ms") or 0 for o in dec) / bm
if cov < 0.95:
    bad.append("hf coverage %.3f" % cov)
cls = {o["name"]: o.get("class") for o in mm["operators"]}
if None in cls.values():
    bad.append("module operator without a class")
pm = {o["name"]: (o.get("gpu_ms") or 0) / bm for o in dec}
ph = {o["name"]: (o.get("gpu_ms") or 0) / bh for o in mh["operators"] if o["stage"] == "decode"}
common = set(pm) & set(ph)
if len(common) < 200:
    bad.append("only %d paths in common" % len(common))
pm = {k: pm[k] for k in common}
ph = {k: ph[k] for k in common}
if worst(pm, ph) > 2:
    bad.append("path shares differ by %.2f points" % worst(pm, ph))
cm, ch = {}, {}
for k in common:
    cm[cls[k]] = cm.get(cls[k], 0) + pm[k]
    ch[cls[k]] = ch.get(cls[k], 0) + ph[k]
if worst(cm, ch) > 2:
    bad.append("class shares differ by %.2f points: %s / %s" % (worst(cm, ch), cm, ch))
# the class table agrees with the operators it sums
tab = {c["class"]: c for c in mm["operator_classes"] if c["stage"] == "decode"}
sums = {}
for o in dec:
    sums[cls[o["name"]]] = sums.get(cls[o["name"]], 0) + (o.get("gpu_ms") or 0)
if set(sums) != set(tab):
    bad.append("classes %s vs operators' %s" % (sorted(tab), sorted(sums)))
for c, v in sums.items():
    if c in tab and abs((tab[c].get("gpu_ms") or 0) - v) > 1e-3:
        bad.append("class row %s %.6f ms vs its operators %.6f ms" % (c, tab[c].get("gpu_ms") or 0, v))
# incl. nested of a layer covers its attention and MLP, each kernel once
l, a, p = (tab[c].get("gpu_incl_ms") or 0 for c in ("LlamaDecoderLayer", "LlamaAttention", "LlamaMLP"))
if not l >= a + p > 0:
    bad.append("layer incl %.3f < attention %.3f + mlp %.3f" % (l, a, p))

def classes(d):
    m, busy = load(d)
    return {c["class"]: (c.get("gpu_ms") or 0) / busy
            for c in m["operator_classes"] if c["stage"] == "decode"}

ge, gg = classes("r-mini-eager"), classes("r-mini-graph")
if worst(ge, gg) > 2 or len(gg) < 6:
    bad.append("graph vs eager classes differ by %.2f points: %s / %s" % (worst(ge, gg), gg, ge))
mc, bc = load("r-mini-compile")
cc = sum(o.get("gpu_ms") or 0 for o in mc["operators"]
         if o["stage"] == "decode" and o.get("class") == "OptimizedModule") / bc
if cc < 0.95:
    bad.append("compiled decode under its module: %.3f" % cc)
# the compiled code's kernels, Inductor's Triton kernels and its extern
# GEMMs and attention alike, belong to the module that called the compiled
# code (the outermost module whose hooks ran outside Dynamo: the model, class
# OptimizedModule); decode kernels outside it are the step's eager glue
# (argmax, copies), in no module
dec_ops = [(o["name"], o.get("class")) for o in mc["operators"] if o["stage"] == "decode"]
if dec_ops != [("MiniForCausalLM", "OptimizedModule")]:
    bad.append("compiled decode operators: %s" % dec_ops)
for k in mc["kernels"]:
    inductor = k["name"].startswith(("triton_", "nvjet_", "cudnn_"))
    if inductor and k.get("decode_calls") and k.get("operator") != "MiniForCausalLM":
        bad.append("compiled kernel %s under %s" % (k["name"][:60], k.get("operator")))
    if not inductor and k["stage"] == "decode" and k.get("operator") is not None:
        bad.append("eager glue kernel %s under %s" % (k["name"][:60], k.get("operator")))
print("\n".join(bad), file=sys.stderr)
sys.exit(1 if bad else 0)
PY
# every Triton kernel of the compiled program labelled, and nothing else
n=$(grep -c '^| [0-9]* | `triton_' r-mini-compile/kernels.md)
[ "$n" -ge 10 ] || fail "only $n Triton kernels in kernels.md"
[ "$(grep '^| [0-9]* | `triton_' r-mini-compile/kernels.md | grep -cE '\| (pointwise|reduction|persistent reduction): ')" -eq "$n" ] ||
	fail "unlabelled Triton kernels: $(grep '^| [0-9]* | `triton_' r-mini-compile/kernels.md | head -3)"
grep -q '^| [0-9]* | `triton_poi_fused__unsafe_view_mul_silu_5` | pointwise: \\_unsafe_view, mul, silu |' \
	r-mini-compile/kernels.md || fail "silu label: $(grep silu_5 r-mini-compile/kernels.md)"
grep '^| [0-9]* | `nvjet' r-mini-compile/kernels.md | grep -qE '\| `nvjet[^|]*\|  *\| GPU' ||
	fail "a cuBLAS kernel got a label: $(grep nvjet r-mini-compile/kernels.md | head -1)"
echo ok
