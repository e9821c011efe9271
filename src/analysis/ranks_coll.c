/* ranks_coll.c: the NCCL collectives of a multi-process trace (see
 * ranks.h): each rank's part of the trace handed to the collectives module
 * (collectives.h), and its result copied into the model.
 *
 * Each rank gives all its kernels (the module picks the NCCL ones by name
 * and needs the others to tell which communication no compute hides), and
 * its prefill and decode instances as windows: their GPU projections
 * [first op start, last op end], the same span the stage tables call "GPU
 * span", so that exposed communication divides by the time those tables
 * show. Every rank's gaps (collectives_cause.h, from its kernels and their
 * launch calls) and decode steps are kept until the builder has finished,
 * for the stragglers' causes; a --rank-dir rank writes the same part into
 * its collectives.tsv (rank_summary.c). */
#include <stdlib.h>
#include <string.h>

#include "analysis/collectives.h"
#include "analysis/collectives_cause.h"
#include "analysis/nvtxproj.h"
#include "analysis/ranks.h"
#include "core/xalloc.h"
#include "core/banned.h"

/* The windows of a part for the roles lo..hi: one per range with GPU
 * work, labelled by its role. *n = 0 without any. */
static struct coll_window *part_windows(const struct trace *v, const struct stage_config *sc,
					int lo, int hi, size_t *n)
{
	struct coll_window *w = xmalloc(st_mult(v->nranges + 1, sizeof(*w)));
	struct nvtx_proj p;

	*n = 0;
	nvtx_proj_compute(&p, v, 0);
	for (size_t r = 0; r < v->nranges; r++) {
		const char *text = strtab_str(&v->strs, v->ranges[r].text);
		const char *dom = strtab_str(&v->strs, v->ranges[r].domain);
		int role = -1;

		if (!p.nops[r] || !text)
			continue;
		for (int s = lo; s <= hi && role < 0; s++)
			for (size_t i = 0; i < sc->stages[s].nnames && role < 0; i++)
				if (stage_name_matches(sc->stages[s].names[i], text, dom))
					role = s;
		if (role < 0)
			continue;
		w[*n].stage = stage_role_name((enum stage_role)role);
		w[*n].start = p.proj_start[r];
		w[(*n)++].end = p.proj_end[r];
	}
	nvtx_proj_release(&p);
	return w;
}

struct corr_start {
	int64_t corr, start;
};

static int cmp_corr(const void *a, const void *b)
{
	const struct corr_start *x = a, *y = b;

	return (x->corr > y->corr) - (x->corr < y->corr);
}

/* Per kernel of v, the start of the API call that launched it (same
 * correlation id; the part holds one process), or -1. Owned. */
static int64_t *launch_times(const struct trace *v)
{
	struct corr_start *c = xmalloc(st_mult(v->ncalls + 1, sizeof(*c)));
	int64_t *l = xmalloc(st_mult(v->nkernels + 1, sizeof(*l)));

	for (size_t i = 0; i < v->ncalls; i++)
		c[i] = (struct corr_start){trace_call_corr(v, &v->calls[i]), v->calls[i].start};
	qsort(c, v->ncalls, sizeof(*c), cmp_corr);
	for (size_t i = 0; i < v->nkernels; i++) {
		struct corr_start key = {trace_kernel_corr(v, &v->kernels[i]), 0};
		const struct corr_start *at =
		    v->ncalls ? bsearch(&key, c, v->ncalls, sizeof(*c), cmp_corr) : NULL;

		l[i] = at ? at->start : -1;
	}
	free(c);
	return l;
}

void coll_part_of_trace(const struct trace *v, const struct stage_config *sc, struct coll_part *p)
{
	int64_t *launch;

	memset(p, 0, sizeof(*p));
	p->k = xmalloc(st_mult(v->nkernels + 1, sizeof(*p->k)));
	p->nk = v->nkernels;
	for (size_t i = 0; i < v->nkernels; i++) {
		const struct trace_kernel *x = &v->kernels[i];
		const struct trace_ksig *sig = trace_ksig(v, x);
		const char *name = strtab_str(&v->strs, sig->name);

		p->k[i].name = name ? name : "";
		p->k[i].start = x->start;
		p->k[i].end = x->end;
		p->k[i].device = sig->device;
		p->k[i].stream = sig->stream;
	}
	launch = launch_times(v);
	p->gaps = xmalloc(st_mult(v->nkernels + 1, sizeof(*p->gaps)));
	coll_gaps_compute(p->k, p->nk, launch, p->gaps);
	free(launch);
	p->w = part_windows(v, sc, STAGE_PREFILL, STAGE_DECODE, &p->nw);
	p->steps = part_windows(v, sc, STAGE_DECODE_STEP, STAGE_DECODE_STEP, &p->nsteps);
}

void coll_part_release(struct coll_part *p)
{
	free(p->k);
	free(p->gaps);
	free(p->w);
	free(p->steps);
	memset(p, 0, sizeof(*p));
}

/* One rank into the builder: all its kernels and its windows. */
static int add_part(struct coll_builder *b, int id, int host, const struct trace *v,
		    const struct stage_config *sc, struct coll_part *pi, struct strbuf *err)
{
	/* one trace has one timebase per host that recorded it */
	struct coll_rank_input in = {id, host, NULL, v->nkernels, NULL, 0, host};

	coll_part_of_trace(v, sc, pi);
	in.kernels = pi->k;
	in.windows = pi->w;
	in.nwindows = pi->nw;
	return coll_builder_add_rank(b, &in, err);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(const char *const *)a, *(const char *const *)b);
}

/* Host ids: the distinct host names in sorted order (no name = ""), so the
 * reference clock is the first name's. Fills hosts[rank index]. */
static void host_ids(struct report_model *m, int *hosts)
{
	struct report_collectives *c = &m->ranks.coll;
	const char **names = xmalloc(st_mult(m->ranks.nr + 1, sizeof(*names)));
	size_t n = 0;

	for (size_t i = 0; i < m->ranks.nr; i++)
		names[i] = m->ranks.v[i].host ? m->ranks.v[i].host : "";
	qsort(names, m->ranks.nr, sizeof(*names), cmp_str);
	c->hosts = xcalloc(m->ranks.nr + 1, sizeof(*c->hosts));
	for (size_t i = 0; i < m->ranks.nr; i++)
		if (!n || strcmp(names[i], names[n - 1]))
			names[n++] = names[i];
	for (size_t i = 0; i < n; i++)
		c->hosts[i].name = *names[i] ? xstrdup(names[i]) : NULL;
	c->nr_hosts = n;
	for (size_t i = 0; i < m->ranks.nr; i++) {
		const char *h = m->ranks.v[i].host ? m->ranks.v[i].host : "";
		const char **at = bsearch(&h, names, n, sizeof(*names), cmp_str);

		hosts[i] = (int)(at - names);
	}
	free(names);
}

/* The module's rank ids: the ranks themselves when every process has a
 * distinct one (the findings then name them), else the index in
 * m->ranks.v. Either way coll_result.ranks (by id) is in m->ranks.v order. */
static int use_rank_ids(const struct report_model *m)
{
	for (size_t i = 0; i < m->ranks.nr; i++)
		if (m->ranks.v[i].rank < 0 || (i && m->ranks.v[i].rank == m->ranks.v[i - 1].rank))
			return 0;
	return 1;
}

static void copy_rank(struct report_rank_coll *d, const struct coll_rank *r)
{
	d->calls = r->calls;
	d->unmatched = r->unmatched;
	d->comm_ns = r->comm_ns;
	d->exposed_ns = r->exposed_ns;
	d->wait_ns = r->wait_ns;
	d->transfer_ns = r->transfer_ns;
	d->clock_offset_ns = r->clock_offset_ns;
	d->types = xcalloc(COLL_NTYPES, sizeof(*d->types));
	for (int t = 0; t < COLL_NTYPES; t++) {
		const struct coll_type_stat *s = &r->by_type[t];
		struct report_coll_type *x;

		if (!s->calls)
			continue;
		x = &d->types[d->nr_types++];
		x->type = xstrdup(coll_type_name((enum coll_type)t));
		x->calls = s->calls;
		x->matched = s->matched;
		x->total_ns = s->total_ns;
		x->wait_ns = s->wait_ns;
		x->transfer_ns = s->transfer_ns;
	}
	d->stages = xcalloc(r->nstages + 1, sizeof(*d->stages));
	for (size_t s = 0; s < r->nstages; s++) {
		d->stages[s].stage = xstrdup(r->stages[s].stage);
		d->stages[s].windows = r->stages[s].windows;
		d->stages[s].window_ns = r->stages[s].window_ns;
		d->stages[s].comm_ns = r->stages[s].comm_ns;
		d->stages[s].exposed_ns = r->stages[s].exposed_ns;
	}
	d->nr_stages = r->nstages;
}

static void copy_result(struct report_model *m, const struct coll_result *r)
{
	struct report_collectives *c = &m->ranks.coll;

	c->instances = r->ninstances;
	for (size_t i = 0; i < r->nranks && i < m->ranks.nr; i++) {
		copy_rank(&m->ranks.v[i].coll, &r->ranks[i]);
		c->calls += r->ranks[i].calls;
	}
	c->available = c->calls > 0;
	c->stragglers = xcalloc(r->nstragglers + 1, sizeof(*c->stragglers));
	for (size_t i = 0; i < r->nstragglers; i++) {
		const struct coll_straggler *s = &r->stragglers[i];

		c->stragglers[i] = (struct report_coll_straggler){
		    (int)s->rank_index, s->count, s->late_ns, s->mean_late_ns, s->share};
	}
	c->nr_stragglers = r->nstragglers;
	/* clock ids are the host ids here (add_part), so clocks[h] is host h */
	for (size_t h = 0; h < r->nclocks && h < c->nr_hosts; h++) {
		c->hosts[h].ranks = r->clocks[h].ranks;
		c->hosts[h].samples = r->clocks[h].samples;
		c->hosts[h].offset_ns = r->clocks[h].offset_ns;
		c->hosts[h].residual_ns = r->clocks[h].residual_ns;
		c->hosts[h].aligned = r->clocks[h].aligned;
	}
	c->residual_median_ns = r->residual_median_ns;
	c->residual_max_ns = r->residual_max_ns;
	c->residual_samples = r->residual_samples;
	c->mismatches = xcalloc(r->nmismatches + 1, sizeof(*c->mismatches));
	for (size_t i = 0; i < r->nmismatches; i++) {
		const struct coll_mismatch *x = &r->mismatches[i];

		c->mismatches[i] =
		    (struct report_coll_mismatch){xstrdup(coll_type_name(x->type)),
						  x->stream_ord,
						  x->min_calls,
						  x->max_calls,
						  x->ranks_short,
						  (int)coll_result_rank_index(r, x->min_rank),
						  (int)coll_result_rank_index(r, x->max_rank)};
	}
	c->nr_mismatches = r->nmismatches;
}

static void copy_findings(struct report_model *m, const struct coll_result *r,
			  const struct coll_causes *cs, const char *const *labels)
{
	struct report_collectives *c = &m->ranks.coll;
	struct coll_finding *f;
	size_t nf;

	nf = coll_findings(r, "decode", cs, labels, &f);
	c->findings = xcalloc(nf + 1, sizeof(*c->findings));
	for (size_t i = 0; i < nf; i++) {
		/* the strings move into the model */
		c->findings[i] = (struct report_finding){(enum finding_severity)f[i].severity,
							 f[i].code, f[i].text, f[i].recommendation};
		f[i].code = f[i].text = f[i].recommendation = NULL;
	}
	c->nr_findings = nf;
	coll_findings_free(f, nf);
}

static struct report_late late_of(const struct coll_late_dist *d)
{
	return (struct report_late){d->n, d->mean_ns, (double)d->p50_ns, (double)d->p90_ns,
				    (double)d->max_ns};
}

void coll_straggles_copy(const struct coll_causes *cs, struct report_coll_straggle **out, size_t *n)
{
	*out = xcalloc(cs->n + 1, sizeof(**out));
	*n = cs->n;
	for (size_t i = 0; i < cs->n; i++) {
		const struct coll_straggle *s = &cs->v[i];
		struct report_coll_straggle *d = &(*out)[i];

		d->rank_index = (int)s->rank_index;
		d->stage = xstrdup(s->stage);
		d->instances = s->instances;
		d->count = s->count;
		d->late = late_of(&s->late);
		d->early = late_of(&s->early);
		d->steady = late_of(&s->steady);
		d->early_by_steps = s->early_by_steps;
		d->early_instances = s->early_instances;
		d->explained = s->explained;
		d->busy_ns = s->busy_ns;
		d->idle_ns = s->idle_ns;
		d->kernels = s->kernels;
		d->lag_ns = s->lag_ns;
		d->others_lag_ns = s->others_lag_ns;
		d->busy_med_ns = s->busy_med_ns;
		d->extra_n = s->extra_n;
		d->extra_busy_ns = s->extra_busy_ns;
		d->extra_kernels = s->extra_kernels;
		d->cause = xstrdup(coll_cause_name(s->cause));
	}
}

/* The causes of r's stragglers from the kept inputs (in m->ranks.v order,
 * which is r's), into m; then the findings, which name them. */
static void causes_and_findings(struct report_model *m, const struct coll_result *r,
				const struct coll_part *pi)
{
	struct coll_cause_rank *in = xcalloc(r->nranks + 1, sizeof(*in));
	const char **labels = xcalloc(r->nranks + 1, sizeof(*labels));
	char **own = xcalloc(r->nranks + 1, sizeof(*own));
	struct coll_causes cs;

	for (size_t i = 0; i < r->nranks; i++) {
		const struct report_rank *rk = &m->ranks.v[i];

		in[i] = (struct coll_cause_rank){pi[i].gaps, pi[i].nk,	  pi[i].w,
						 pi[i].nw,   pi[i].steps, pi[i].nsteps};
		labels[i] = rk->label;
		if (rk->label && rk->rank_source && !strcmp(rk->rank_source, "device")) {
			/* a name inferred from its GPU: the findings give the pid too */
			struct strbuf sb = STRBUF_INIT;

			strbuf_addf(&sb, "%s (pid %lld)", rk->label, (long long)rk->pid);
			labels[i] = own[i] = strbuf_detach(&sb, NULL);
		}
	}
	coll_causes_compute(r, in, &cs);
	coll_straggles_copy(&cs, &m->ranks.coll.straggles, &m->ranks.coll.nr_straggles);
	copy_findings(m, r, &cs, labels);
	coll_causes_release(&cs);
	for (size_t i = 0; i < r->nranks; i++)
		free(own[i]);
	free(own);
	free(labels);
	free(in);
}

void ranks_coll_fill(struct report_model *m, const struct trace *const *views,
		     const struct stage_config *sc)
{
	struct coll_builder *b = coll_builder_new();
	struct strbuf err = STRBUF_INIT;
	struct coll_result r;
	int *hosts = xcalloc(m->ranks.nr + 1, sizeof(*hosts));
	struct coll_part *pi = xcalloc(m->ranks.nr + 1, sizeof(*pi));
	int by_rank = use_rank_ids(m);

	host_ids(m, hosts);
	for (size_t i = 0; i < m->ranks.nr; i++)
		if (add_part(b, by_rank ? m->ranks.v[i].rank : (int)i, hosts[i], views[i], sc,
			     &pi[i], &err))
			goto fail;
	for (size_t i = 0; i < m->ranks.nr; i++)
		m->ranks.v[i].coll.host = hosts[i];
	if (coll_builder_finish(b, &r, &err))
		goto fail;
	copy_result(m, &r);
	if (r.nranks == m->ranks.nr)
		causes_and_findings(m, &r, pi);
	else
		copy_findings(m, &r, NULL, NULL);
	coll_result_release(&r);
	goto out;
fail:
	report_model_add_note(m, "NCCL collectives not analysed: %s", err.buf);
out:
	for (size_t i = 0; i < m->ranks.nr; i++)
		coll_part_release(&pi[i]);
	free(pi);
	coll_builder_free(b);
	free(hosts);
	strbuf_release(&err);
}
