/* findings_common.c: what every rule of the findings engine measures and
 * says the same way (findings_priv.h): a kernel's time and launches in a
 * stage, a stage's kernels by time, the units a saving is counted in, the
 * saving itself, how a finding names a kernel and how a recommendation
 * names a file of the run bundle. The rules are in findings.c and
 * findings_cause.c; this file calls neither. */
#include <stdarg.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings_priv.h"
#include "bundle/layout.h"
#include "core/md.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/format.h"
#include "trace/kname.h"
#include "core/banned.h"

/* A kernel's GPU time and launches inside stage st: the per-stage figures
 * a trace gives (never its warm-up launches), or, in a model built without
 * them, its totals when it is labelled with that stage. */
static int role_index(const struct report_stage *st)
{
	return st->role == REPORT_ROLE_PREFILL || st->role == REPORT_ROLE_DECODE ? (int)st->role
										 : -1;
}

uint64_t findings_kernel_stage_ns(const struct report_kernel *k, const struct report_stage *st)
{
	int r = role_index(st);

	if (r >= 0 && (k->stage_calls[r] || k->stage_ns[r]))
		return k->stage_ns[r];
	return k->stage && st->name && !strcmp(k->stage, st->name) ? k->total_ns : 0;
}

uint64_t findings_kernel_stage_calls(const struct report_kernel *k, const struct report_stage *st)
{
	int r = role_index(st);

	if (r >= 0 && (k->stage_calls[r] || k->stage_ns[r]))
		return k->stage_calls[r];
	return k->stage && st->name && !strcmp(k->stage, st->name) ? k->calls : 0;
}

uint64_t findings_stage_kernel_ns(const struct report_model *m, const struct report_stage *st)
{
	uint64_t t = 0;

	for (size_t i = 0; i < m->nr_kernels; i++)
		t += findings_kernel_stage_ns(&m->kernels[i], st);
	return t;
}

/* The stage's kernels by their time inside it, longest first (ties in
 * model order); n of them. Owned array of indices into m->kernels. */
size_t *findings_stage_kernels_by_time(const struct report_model *m, const struct report_stage *st,
				       size_t *n)
{
	size_t *idx = xmalloc((m->nr_kernels + 1) * sizeof(*idx));

	*n = 0;
	for (size_t i = 0; i < m->nr_kernels; i++)
		if (findings_kernel_stage_ns(&m->kernels[i], st))
			idx[(*n)++] = i;
	for (size_t i = 1; i < *n; i++) { /* insertion sort: stable, n is small */
		size_t v = idx[i], j = i;
		uint64_t t = findings_kernel_stage_ns(&m->kernels[v], st);

		while (j > 0 && findings_kernel_stage_ns(&m->kernels[idx[j - 1]], st) < t) {
			idx[j] = idx[j - 1];
			j--;
		}
		idx[j] = v;
	}
	return idx;
}

static void kernel_base(struct strbuf *out, const struct report_kernel *k)
{
	kname_display(out, k->short_name ? k->short_name : k->full_name, KNAME_SCOPE | KNAME_UNWRAP,
		      80);
}

/* "<128, 4>": the template arguments of the kernel's fullest name; nothing
 * when it has none. */
static void kernel_targs(struct strbuf *out, const struct report_kernel *k)
{
	struct str a[8];
	const char *name = k->full_name ? k->full_name : k->short_name;
	size_t n = name ? kname_targs(name, a, 8) : 0;

	if (!n)
		return;
	strbuf_addch(out, '<');
	for (size_t i = 0; i < n && i < 8; i++)
		strbuf_addf(out, "%s%.*s", i ? ", " : "", (int)a[i].len, a[i].p);
	strbuf_addstr(out, n > 8 ? ", ...>" : ">");
}

static void kernel_launch(struct strbuf *out, const struct report_kernel *k)
{
	if (k->grid[0] || k->block[0])
		strbuf_addf(out, " (grid %dx%dx%d, block %dx%dx%d)", k->grid[0], k->grid[1],
			    k->grid[2], k->block[0], k->block[1], k->block[2]);
}

/* How many kernels of m other than k read as k does at this level: 0 base
 * name, 1 with template arguments, 2 with the launch configuration too. */
static size_t same_name(const struct report_model *m, const struct report_kernel *k, int level)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT;
	size_t n = 0;

	kernel_base(&a, k);
	if (level >= 1)
		kernel_targs(&a, k);
	if (level >= 2)
		kernel_launch(&a, k);
	for (size_t i = 0; i < m->nr_kernels; i++) {
		const struct report_kernel *o = &m->kernels[i];

		if (o == k)
			continue;
		strbuf_reset(&b);
		kernel_base(&b, o);
		if (level >= 1)
			kernel_targs(&b, o);
		if (level >= 2)
			kernel_launch(&b, o);
		n += !strcmp(a.buf, b.buf);
	}
	strbuf_release(&a);
	strbuf_release(&b);
	return n;
}

void findings_kernel_name(struct strbuf *sb, const struct report_model *m,
			  const struct report_kernel *k)
{
	struct strbuf name = STRBUF_INIT;

	kernel_base(&name, k);
	if (m && same_name(m, k, 0)) {
		kernel_targs(&name, k);
		if (same_name(m, k, 1)) {
			kernel_launch(&name, k);
			/* still ambiguous (another scope, device or parameter
			 * list): its row in kernels.md */
			if (same_name(m, k, 2) && k >= m->kernels && k < m->kernels + m->nr_kernels)
				strbuf_addf(&name, " (%s #%zu)", bundle_art(BA_KERNELS_MD),
					    (size_t)(k - m->kernels) + 1);
		}
	}
	md_code_plain(sb, name.buf);
	strbuf_release(&name);
}

const char *findings_rec(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	strbuf_reset(sb);
	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
	return sb->buf;
}

void findings_set_saving(struct report_model *m, double per_unit_ms, const char *unit,
			 double run_ms)
{
	struct report_finding *f = &m->findings[m->nr_findings - 1];

	if (!(per_unit_ms > 0) || !(run_ms > 0))
		return;
	f->saving_ms = rnum_of(per_unit_ms);
	f->saving_unit = unit;
	f->saving_run_ms = rnum_of(run_ms);
}

double findings_stage_units(const struct report_stage *st, const char **unit)
{
	if (st->role == REPORT_ROLE_DECODE && st->steps) {
		*unit = "token";
		return (double)st->steps;
	}
	*unit = "request";
	return (double)st->instances;
}
