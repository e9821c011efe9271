/* findings_cause.c: the rules that name a cause whether or not the model
 * is known (docs/report.md, "Findings and recommendations"): GPU idle in a
 * stage full of launches, a kernel family dominating a stage, kernels below
 * the measured DRAM or GEMM ceiling, host-device copies in decode. Each
 * cites its numbers and, where it can be justified, the time it would save
 * (docs/report.md, "Estimated savings"). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings.h"
#include "analysis/findings_priv.h"
#include "bundle/layout.h"
#include "core/md.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/format.h"
#include "trace/kname.h"
#include "core/banned.h"

static int has_finding(const struct report_model *m, const char *code)
{
	for (size_t i = 0; i < m->nr_findings; i++)
		if (!strcmp(m->findings[i].code, code))
			return 1;
	return 0;
}

/* "60.0% Python interpreter, 25.0% PyTorch (`at::native::add`), the rest
 * 5.5%" for the first FINDINGS_SAMPLE_CATS of n groups out of total
 * samples. */
static void sample_shares(struct strbuf *sb, const struct report_sample_group *g, size_t n,
			  uint64_t total)
{
	for (size_t i = 0; i < n && i < FINDINGS_SAMPLE_CATS; i++) {
		if (i)
			strbuf_addstr(sb, ", ");
		fmt_frac_pct(sb, rnum_of((double)g[i].samples / (double)total));
		strbuf_addf(sb, " %s", g[i].name);
		if (strcmp(g[i].detail, g[i].name)) {
			strbuf_addstr(sb, " (");
			md_code_plain(sb, g[i].detail);
			strbuf_addch(sb, ')');
		}
	}
	if (n > FINDINGS_SAMPLE_CATS) {
		uint64_t rest = 0;
		for (size_t i = FINDINGS_SAMPLE_CATS; i < n; i++)
			rest += g[i].samples;
		strbuf_addstr(sb, ", the rest ");
		fmt_frac_pct(sb, rnum_of((double)rest / (double)total));
	}
}

int findings_cpu_samples(struct strbuf *sb, const struct report_stage *st)
{
	if (!st->cpu_samples)
		return 0;
	strbuf_addf(sb, " Sampled CPU time (%" PRIu64 " sample%s, ", st->cpu_samples,
		    st->cpu_samples == 1 ? "" : "s");
	fmt_ms(sb, st->sampled_ms);
	strbuf_addstr(sb, " ms): ");
	sample_shares(sb, st->sample_cats, st->nr_sample_cats, st->cpu_samples);
	strbuf_addch(sb, '.');
	return 1;
}

int findings_cpu_split(struct strbuf *sb, const struct report_stage *st)
{
	if (!st->api_ms.available || !st->cpu_ms.available) {
		findings_cpu_samples(sb, st);
		return 0;
	}
	strbuf_addstr(sb, " Where its ");
	fmt_ms(sb, st->cpu_ms);
	strbuf_addstr(sb, " ms of CPU time went: ");
	fmt_ms(sb, st->api_ms);
	strbuf_addstr(sb, " ms in CUDA API calls");
	for (size_t i = 0; i < st->nr_api_top; i++) {
		strbuf_addstr(sb, i ? ", " : " (");
		md_code_plain(sb, st->api_top[i].name);
		strbuf_addch(sb, ' ');
		fmt_ms(sb, st->api_top[i].ms);
		strbuf_addstr(sb, " ms");
	}
	if (st->api_rest_calls) {
		strbuf_addstr(sb, ", others ");
		fmt_ms(sb, st->api_rest_ms);
		strbuf_addstr(sb, " ms");
	}
	if (st->nr_api_top)
		strbuf_addch(sb, ')');
	strbuf_addstr(sb, ", ");
	fmt_ms(sb, st->host_ms);
	if (!st->cpu_samples_outside) {
		strbuf_addstr(sb, " ms outside CUDA (host code: Python, the framework).");
		findings_cpu_samples(sb, st);
		return 1;
	}
	strbuf_addf(sb, " ms outside CUDA: sampled (%" PRIu64 " sample%s) ",
		    st->cpu_samples_outside, st->cpu_samples_outside == 1 ? "" : "s");
	sample_shares(sb, st->sample_outside_cats, st->nr_sample_outside_cats,
		      st->cpu_samples_outside);
	strbuf_addch(sb, '.');
	return 1;
}

int findings_stage_graphs(const struct report_model *m, const struct report_stage *st)
{
	return m->llm.cuda_graph == 1 || (st->kernels && st->graph_kernels * 2 >= st->kernels);
}

void findings_graph_rec(struct strbuf *rec, const struct report_stage *st)
{
	if (st->graph_kernels)
		strbuf_addf(rec,
			    "The step already replays CUDA graphs (%" PRIu64 " of its %" PRIu64
			    " kernels), so the idle time is the host's work between replays",
			    st->graph_kernels, st->kernels);
	else
		strbuf_addstr(rec, "The step already runs as a CUDA graph, so the idle time is "
				   "the host's work between replays");
	if (st->copies && st->copy_ms.available) {
		strbuf_addf(rec, ", %" PRIu64 " host-device cop%s (", st->copies,
			    st->copies == 1 ? "y" : "ies");
		fmt_ms(rec, st->copy_ms);
		strbuf_addstr(rec, " ms) among it");
	}
	strbuf_addstr(rec, ": move host work (sampling, cache bookkeeping, copies, "
			   "synchronisation) out of the step or into the graph, or raise the "
			   "batch size to amortise it");
}

static int staged(const struct report_stage *s)
{
	return s->role == REPORT_ROLE_PREFILL || s->role == REPORT_ROLE_DECODE;
}

/* GPU idle inside a prefill or decode stage full of launches: the CPU
 * cannot launch kernels as fast as the GPU runs them. Decided from the
 * idle share and the launch rate alone; decode-launch-bound (which also
 * needs the model's MBU) says it for decode when it fired. */
void rule_launch_bound(struct report_model *m)
{
	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];
		struct strbuf t = STRBUF_INIT, rec = STRBUF_INIT;
		double share, per_ms, gap_us, cpu_us;
		const char *unit;
		double n = findings_stage_units(s, &unit);

		if (!staged(s) || !s->idle_ms.available || !s->gpu_ms.available ||
		    s->gpu_ms.v <= 0 || !s->cpu_ms.available || s->cpu_ms.v <= 0 || s->kernels < 2)
			continue;
		share = s->idle_ms.v / s->gpu_ms.v;
		per_ms = (double)s->kernels / s->cpu_ms.v;
		if (share < FINDINGS_IDLE_SHARE_HIGH || per_ms < FINDINGS_LAUNCH_RATE_MIN ||
		    s->idle_ms.v < FINDINGS_LAUNCH_IDLE_MS_MIN)
			continue;
		if (s->role == REPORT_ROLE_DECODE && has_finding(m, "decode-launch-bound"))
			continue;
		gap_us = s->idle_ms.v * 1e3 / (double)s->kernels;
		cpu_us = s->cpu_ms.v * 1e3 / (double)s->kernels;
		fmt_frac_pct(&t, rnum_of(share));
		strbuf_addstr(&t, " of its GPU span (");
		fmt_ms(&t, s->idle_ms);
		strbuf_addstr(&t, " ms of ");
		fmt_ms(&t, s->gpu_ms);
		strbuf_addf(&t, " ms) between %" PRIu64 " kernels: ", s->kernels);
		fmt_fixed(&t, rnum_of(per_ms * 1e3), 0);
		strbuf_addf(&t,
			    " launches/s, a mean gap of %.1f us between kernels and %.1f us of "
			    "CPU time per launch",
			    gap_us, cpu_us);
		if (findings_stage_graphs(m, s))
			findings_graph_rec(&rec, s);
		else
			strbuf_addstr(
			    &rec, "Capture the step in a CUDA graph (PyTorch: "
				  "torch.cuda.graphs or torch.compile mode=\"reduce-overhead\"; "
				  "built-in model: infer.cuda_graph=true), fuse small kernels, "
				  "or raise the batch size to amortise launches");
		if (n > 0) {
			strbuf_addf(&rec, "; up to %.3f ms per %s is idle GPU time",
				    s->idle_ms.v / n, unit);
		}
		strbuf_addch(&rec, '.');
		strbuf_addstr(&t,
			      ": launch and CPU overhead, not the kernels, sets the stage's time.");
		findings_cpu_split(&t, s);
		report_model_add_finding(m, FINDING_WARNING, "stage-launch-bound", rec.buf,
					 "The GPU is idle in %s %s", s->name ? s->name : "a stage",
					 t.buf);
		if (n > 0)
			findings_set_saving(m, s->idle_ms.v / n, unit, s->idle_ms.v);
		strbuf_release(&t);
		strbuf_release(&rec);
	}
}

/* The family of a kernel: the words of its base name before the first
 * that holds a digit (nvjet_sm90_tst_128x64_64x8_... -> nvjet,
 * cutlass_80_tensorop_... -> cutlass); the whole base name when the
 * first word has one or none does. */
static void kernel_family(struct strbuf *out, const struct report_kernel *k)
{
	struct strbuf base = STRBUF_INIT;
	const char *p;
	size_t cut = 0;

	strbuf_reset(out);
	kname_display(&base, k->short_name ? k->short_name : k->full_name,
		      KNAME_SCOPE | KNAME_UNWRAP, SIZE_MAX);
	for (p = base.buf; *p;) {
		const char *w = p;
		int digit = 0;

		for (; *p && *p != '_'; p++)
			digit |= *p >= '0' && *p <= '9';
		if (digit) {
			cut = w > base.buf ? (size_t)(w - base.buf - 1) : 0;
			break;
		}
		if (*p)
			p++;
	}
	strbuf_add(out, base.buf, cut ? cut : base.len);
	strbuf_release(&base);
}

/* Several kernels of one family (tile variants of one GEMM library, say)
 * that together dominate a stage: the family is the thing to tune, as one
 * of them alone may not cross kernel-dominant's share. */
void rule_kernel_family(struct report_model *m)
{
	struct strbuf fam = STRBUF_INIT, other = STRBUF_INIT, t = STRBUF_INIT, rec = STRBUF_INIT;

	for (size_t s = 0; s < m->nr_stages; s++) {
		const struct report_stage *st = &m->stages[s];
		uint64_t st_ns = findings_stage_kernel_ns(m, st);
		size_t nk, *idx = findings_stage_kernels_by_time(m, st, &nk);
		char *done = xcalloc(nk + 1, 1);

		for (size_t j = 0; st_ns && j < nk; j++) {
			uint64_t ns = 0, calls = 0;
			size_t members = 0;

			if (done[j])
				continue;
			kernel_family(&fam, &m->kernels[idx[j]]);
			for (size_t l = j; l < nk; l++) {
				kernel_family(&other, &m->kernels[idx[l]]);
				if (strcmp(fam.buf, other.buf))
					continue;
				done[l] = 1;
				members++;
				ns += findings_kernel_stage_ns(&m->kernels[idx[l]], st);
				calls += m->kernels[idx[l]].calls;
			}
			if (members < 2 || (double)ns / (double)st_ns <= FINDINGS_FAMILY_SHARE)
				continue;
			strbuf_reset(&t);
			strbuf_addstr(&t, "The kernel family ");
			md_code_plain(&t, fam.buf);
			strbuf_addf(&t, " (%zu kernels, led by ", members);
			findings_kernel_name(&t, m, &m->kernels[idx[j]]);
			strbuf_addstr(&t, ") takes ");
			fmt_frac_pct(&t, rnum_of((double)ns / (double)st_ns));
			strbuf_addstr(&t, " of ");
			md_escape_inline(&t, st->name);
			strbuf_addstr(&t, " kernel time (");
			fmt_ns_as_ms(&t, (double)ns);
			strbuf_addstr(&t, " ms).");
			report_model_add_finding(
			    m, FINDING_INFO, "kernel-family-dominant",
			    findings_rec(&rec,
					 "Tune the family as one: its variants share a library "
					 "and a shape choice (tile sizes, split-K, dtype), so one "
					 "fix moves all of them; %s lists each with its counters.",
					 bundle_art(BA_KERNELS_MD)),
			    "%s", t.buf);
		}
		free(done);
		free(idx);
	}
	strbuf_release(&fam);
	strbuf_release(&other);
	strbuf_release(&t);
	strbuf_release(&rec);
}

/* A kernel below a measured ceiling: `achieved` of `ceiling` (the same
 * unit); its time in the stage would shrink by 1 - achieved / ceiling if
 * it reached the ceiling. */
struct below {
	size_t k;
	double achieved, saving_ns;
};

static int cmp_below(const void *a, const void *b)
{
	const struct below *x = a, *y = b;

	if (x->saving_ns != y->saving_ns)
		return x->saving_ns > y->saving_ns ? -1 : 1;
	return x->k < y->k ? -1 : x->k > y->k;
}

typedef int (*achieved_fn)(const struct report_model *m, const struct report_kernel *k,
			   double *achieved);

/* Memory-bound kernels: DRAM bytes per launch / ncu duration, in GB/s. */
static int dram_achieved(const struct report_model *m, const struct report_kernel *k, double *gbs)
{
	(void)m;
	if (k->c->bound != BOUND_MEMORY || !k->c->dram_bytes.available ||
	    !k->c->duration_ns.available || k->c->duration_ns.v <= 0)
		return 0;
	*gbs = k->c->dram_bytes.v / k->c->duration_ns.v;
	return 1;
}

/* Tensor-core kernels with work enough to be compute-bound (bound compute,
 * or arithmetic intensity at or above the measured ridge point): FLOPs per
 * launch / ncu duration, in TFLOP/s. */
static int gemm_achieved(const struct report_model *m, const struct report_kernel *k,
			 double *tflops)
{
	const struct report_peaks *p = &m->peaks;
	double ridge = p->measured_gbs.available && p->measured_gbs.v > 0
			   ? p->measured_tflops.v * 1e3 / p->measured_gbs.v
			   : 0;

	if (!k->c->flops_tensor.available || k->c->flops_tensor.v <= 0 ||
	    !k->c->achieved_tflops.available)
		return 0;
	if (k->c->bound != BOUND_COMPUTE &&
	    !(ridge > 0 && k->c->ai.available && k->c->ai.v >= ridge))
		return 0;
	*tflops = k->c->achieved_tflops.v;
	return 1;
}

static void ceiling_rule(struct report_model *m, struct rnum ceiling, double low, achieved_fn fn,
			 const char *code, const char *what, const char *unit_name,
			 const char *advice)
{
	if (!ceiling.available || ceiling.v <= 0)
		return;
	for (size_t s = 0; s < m->nr_stages; s++) {
		const struct report_stage *st = &m->stages[s];
		struct below *b = xmalloc((m->nr_kernels + 1) * sizeof(*b));
		struct strbuf t = STRBUF_INIT;
		size_t nb = 0;
		double total = 0, n;
		const char *unit;

		for (size_t i = 0; staged(st) && i < m->nr_kernels; i++) {
			const struct report_kernel *k = &m->kernels[i];
			uint64_t ns = findings_kernel_stage_ns(k, st);
			double a;

			if (!ns || !fn(m, k, &a) || a >= low * ceiling.v)
				continue;
			b[nb].k = i;
			b[nb].achieved = a;
			b[nb].saving_ns = (double)ns * (1 - a / ceiling.v);
			total += b[nb++].saving_ns;
		}
		if (!nb)
			goto next;
		qsort(b, nb, sizeof(*b), cmp_below);
		for (size_t j = 0; j < nb && j < FINDINGS_MAX_KERNELS_NAMED; j++) {
			strbuf_addstr(&t, j ? ", " : "");
			findings_kernel_name(&t, m, &m->kernels[b[j].k]);
			strbuf_addstr(&t, " (");
			fmt_fixed(&t, rnum_of(b[j].achieved), b[j].achieved < 10 ? 1 : 0);
			strbuf_addf(&t, " %s, ", unit_name);
			fmt_frac_pct(&t, rnum_of(b[j].achieved / ceiling.v));
			strbuf_addstr(&t, ", ");
			fmt_ns_as_ms(&t, (double)findings_kernel_stage_ns(&m->kernels[b[j].k], st));
			strbuf_addstr(&t, " ms)");
		}
		n = findings_stage_units(st, &unit);
		report_model_add_finding(
		    m, FINDING_WARNING, code, advice,
		    "%zu %s kernel%s of %s run%s below %.0f%% of the measured ceiling (%.0f %s): "
		    "%s. Reaching it would save %.3f ms of %s kernel time%s.",
		    nb, what, nb == 1 ? "" : "s", st->name ? st->name : "a stage",
		    nb == 1 ? "s" : "", low * 100, ceiling.v, unit_name, t.buf, total / 1e6,
		    st->name ? st->name : "the stage",
		    nb > FINDINGS_MAX_KERNELS_NAMED ? " (all of them)" : "");
		if (n > 0)
			findings_set_saving(m, total / 1e6 / n, unit, total / 1e6);
	next:
		strbuf_release(&t);
		free(b);
	}
}

void rule_memory_ceiling(struct report_model *m)
{
	struct strbuf rec = STRBUF_INIT;

	ceiling_rule(
	    m, m->peaks.measured_gbs, FINDINGS_DRAM_CEILING_LOW, dram_achieved,
	    "memory-below-ceiling", "memory-bound", "GB/s",
	    findings_rec(&rec,
			 "Cut the bytes these kernels move or move them faster: vectorised "
			 "loads, fusion with their neighbours, lower-precision weights or "
			 "KV cache; %s has each one's DRAM SOL %%.",
			 bundle_art(BA_KERNELS_MD)));
	strbuf_release(&rec);
}

void rule_tensor_ceiling(struct report_model *m)
{
	ceiling_rule(m, m->peaks.measured_tflops, FINDINGS_GEMM_CEILING_LOW, gemm_achieved,
		     "tensor-below-ceiling", "tensor-core", "TFLOP/s",
		     "Check the GEMM shapes and tiles: padded or skinny shapes, a split-K or "
		     "tile choice that leaves SMs idle, or a dtype without a fast tensor-core "
		     "path; larger batches fill the tiles.");
}

/* Copies between host and device inside decode: each synchronous copy
 * (a token id read back with .item(), a mask uploaded per step) makes the
 * CPU wait for the GPU, so launches cannot run ahead of the kernels. */
void rule_decode_host_copies(struct report_model *m)
{
	const struct report_stage *d = report_model_stage_by_role(m, REPORT_ROLE_DECODE);
	struct strbuf t = STRBUF_INIT;
	const char *unit;
	double n;

	if (!d || !d->copies || !d->copy_ms.available)
		return;
	n = findings_stage_units(d, &unit);
	strbuf_addf(&t, "%" PRIu64 " host-device copies in decode", d->copies);
	if (n > 0)
		strbuf_addf(&t, " (%.1f per %s)", (double)d->copies / n, unit);
	strbuf_addstr(&t, ", ");
	fmt_si(&t, d->copy_bytes, "B");
	strbuf_addstr(&t, " in ");
	fmt_ms(&t, d->copy_ms);
	strbuf_addstr(&t, " ms of GPU time");
	report_model_add_finding(
	    m, FINDING_INFO, "decode-host-copies",
	    "Keep decode on the device: sample and check stop conditions on the GPU, "
	    "read tokens back every few steps or asynchronously (pinned memory, "
	    "non_blocking=True), and upload per-step inputs once.",
	    "%s: a synchronous copy makes the CPU wait for the GPU, so it cannot launch "
	    "ahead.",
	    t.buf);
	if (n > 0)
		findings_set_saving(m, d->copy_ms.v / n, unit, d->copy_ms.v);
	strbuf_release(&t);
}
