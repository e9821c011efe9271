/* select.c: kernel selection for deep mode; see select.h. */
#include <ctype.h>
#include <jansson.h>
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/select.h"
#include "core/error.h"
#include "core/jsonutil.h"
#include "core/md.h"
#include "core/xalloc.h"
#include "trace/kname.h"
#include "core/banned.h"

void select_regex_escape(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (strchr(".[]()*+?{}|^$\\/", *s))
			strbuf_addch(out, '\\');
		strbuf_addch(out, *s);
	}
}

static int is_nccl(const char *name)
{
	for (const char *p = name; *p; p++)
		if (tolower((unsigned char)p[0]) == 'n' && tolower((unsigned char)p[1]) == 'c' &&
		    tolower((unsigned char)p[2]) == 'c' && tolower((unsigned char)p[3]) == 'l')
			return 1;
	return 0;
}

struct cand {
	size_t first; /* first in-stage launch */
	size_t calls;
	double total;
	int excluded; /* 1 pattern, 2 nccl */
};

static int same_op(const char *a, const char *b)
{
	return a == b || (a && b && !strcmp(a, b));
}

static int same_kernel(const struct launch *a, const struct launch *b)
{
	return !strcmp(a->name, b->name) && !memcmp(a->grid, b->grid, sizeof(a->grid)) &&
	       !memcmp(a->block, b->block, sizeof(a->block)) && a->device == b->device &&
	       same_op(a->op, b->op);
}

static int cand_cmp(const void *pa, const void *pb)
{
	const struct cand *a = pa, *b = pb;

	if (a->total != b->total)
		return a->total < b->total ? 1 : -1;
	return a->first < b->first ? -1 : a->first > b->first;
}

static int compile_all(const char *const *pats, size_t n, regex_t **out, struct strbuf *err)
{
	*out = n ? xcalloc(n, sizeof(**out)) : NULL;
	for (size_t i = 0; i < n; i++) {
		int rc = regcomp(&(*out)[i], pats[i], REG_EXTENDED | REG_NOSUB);

		if (rc) {
			char msg[128];

			regerror(rc, &(*out)[i], msg, sizeof(msg));
			for (size_t j = 0; j < i; j++)
				regfree(&(*out)[j]);
			FREE_AND_NULL(*out);
			return error_set(err, "kernel pattern '%s': %s", pats[i], msg);
		}
	}
	return 0;
}

static int any_match(regex_t *re, size_t n, const char *s)
{
	for (size_t i = 0; i < n; i++)
		if (!regexec(&re[i], s, 0, NULL, 0))
			return 1;
	return 0;
}

const char *select_launch_name(const struct launch *l, enum select_name_base base,
			       struct strbuf *tmp)
{
	if (base == SELECT_BASE_DEMANGLED)
		return l->name;
	if (base == SELECT_BASE_MANGLED && l->mangled)
		return l->mangled;
	if (l->short_name)
		return l->short_name;
	strbuf_reset(tmp);
	kname_base(tmp, l->name);
	return tmp->buf;
}

enum select_name_base select_best_base(const struct launch *l, size_t n,
				       enum select_name_base fallback)
{
	if (!n)
		return fallback;
	for (size_t i = 0; i < n; i++)
		if (!l[i].mangled || !*l[i].mangled)
			return fallback;
	return SELECT_BASE_MANGLED;
}

const char *select_base_name(enum select_name_base base)
{
	return base == SELECT_BASE_FUNCTION  ? "function"
	       : base == SELECT_BASE_MANGLED ? "mangled"
					     : "demangled";
}

int select_kernels(const struct launch *l, size_t n, const struct select_opts *o,
		   struct selection *sel, struct strbuf *err)
{
	struct cand *c = NULL;
	size_t nc = 0, alloc = 0;
	regex_t *inc = NULL, *exc = NULL;
	struct strbuf tmp = STRBUF_INIT, tmp2 = STRBUF_INIT;
	int ret = -1;

	memset(sel, 0, sizeof(*sel));
	if (!(o->coverage > 0 && o->coverage <= 1)) {
		error_set(err, "run.coverage %g is outside (0, 1]", o->coverage);
		goto out;
	}
	if (!o->top_n || !o->launch_count) {
		error_set(err, "run.top_n_kernels and the launch count must be at least 1");
		goto out;
	}
	if (compile_all(o->include, o->nr_include, &inc, err) ||
	    compile_all(o->exclude, o->nr_exclude, &exc, err))
		goto out;
	sel->target_coverage = o->coverage;
	sel->top_n = o->top_n;

	/* Distinct kernels of the stage, with their time. */
	for (size_t i = 0; i < n; i++) {
		double d = (double)(l[i].end - l[i].start);
		size_t j;

		if (!l[i].in_stage)
			continue;
		if (d < 0)
			d = 0;
		sel->stage_launches++;
		sel->stage_ns += d;
		for (j = nc; j > 0; j--)
			if (same_kernel(&l[c[j - 1].first], &l[i]))
				break;
		if (!j) {
			ALLOC_GROW(c, nc + 1, alloc);
			memset(&c[nc], 0, sizeof(c[nc]));
			c[nc].first = i;
			if (is_nccl(l[i].name))
				c[nc].excluded = 2;
			else if ((o->nr_include && !any_match(inc, o->nr_include, l[i].name)) ||
				 any_match(exc, o->nr_exclude, l[i].name))
				c[nc].excluded = 1; /* exclude wins over include */
			j = ++nc;
		}
		c[j - 1].calls++;
		c[j - 1].total += d;
	}
	sel->distinct = nc;
	if (nc)
		qsort(c, nc, sizeof(*c), cand_cmp);

	for (size_t k = 0; k < nc; k++) {
		const struct launch *f = &l[c[k].first];
		struct selected_kernel *s;
		const char *bn;
		size_t skip = 0;

		if (c[k].excluded == 2) {
			sel->nccl_kernels++;
			sel->nccl_ns += c[k].total;
			continue;
		}
		if (c[k].excluded) {
			sel->excluded_kernels++;
			sel->excluded_ns += c[k].total;
			continue;
		}
		if (sel->stage_ns > 0 && sel->covered_ns >= o->coverage * sel->stage_ns) {
			sel->stop_reason = xstrdup("coverage reached");
			break;
		}
		if (sel->nr >= o->top_n) {
			sel->stop_reason = xstrdup("top_n reached");
			break;
		}
		/* ncu counts launches that pass all its filters: the name
		 * filter matches any launch configuration of this name, and an
		 * NVTX include hides launches outside the range. */
		bn = select_launch_name(f, o->base, &tmp);
		for (size_t i = 0; i < c[k].first; i++) {
			if (o->nvtx_gated && !l[i].in_stage)
				continue;
			if (!strcmp(select_launch_name(&l[i], o->base, &tmp2), bn))
				skip++;
		}
		ALLOC_GROW(sel->k, sel->nr + 1, sel->alloc);
		s = &sel->k[sel->nr++];
		memset(s, 0, sizeof(*s));
		s->name = xstrdup(f->name);
		s->op = f->op ? xstrdup(f->op) : NULL;
		strbuf_reset(&tmp2);
		if (f->short_name)
			strbuf_addstr(&tmp2, f->short_name);
		else
			kname_base(&tmp2, f->name);
		s->short_name = strbuf_detach(&tmp2, NULL);
		memcpy(s->grid, f->grid, sizeof(s->grid));
		memcpy(s->block, f->block, sizeof(s->block));
		s->device = f->device;
		s->calls = c[k].calls;
		s->total_ns = c[k].total;
		s->share = sel->stage_ns > 0 ? c[k].total / sel->stage_ns : 0;
		s->launch_index = c[k].first;
		s->launch_skip = skip;
		s->launch_count = o->launch_count;
		{
			struct strbuf re = STRBUF_INIT;

			strbuf_addstr(&re, "regex:^");
			select_regex_escape(&re, bn);
			strbuf_addch(&re, '$');
			s->kernel_name = strbuf_detach(&re, NULL);
			strbuf_addstr(&re, "::regex:^");
			select_regex_escape(&re, bn);
			strbuf_addf(&re, "$:%zu", skip + 1);
			s->kernel_id = strbuf_detach(&re, NULL);
		}
		sel->covered_ns += c[k].total;
	}
	if (!sel->stop_reason)
		sel->stop_reason =
		    xstrdup(sel->stage_ns > 0 && sel->covered_ns >= o->coverage * sel->stage_ns
				? "coverage reached"
				: "no more kernels");
	sel->coverage = sel->stage_ns > 0 ? sel->covered_ns / sel->stage_ns : 0;
	ret = 0;
out:
	for (size_t i = 0; inc && i < o->nr_include; i++)
		regfree(&inc[i]);
	for (size_t i = 0; exc && i < o->nr_exclude; i++)
		regfree(&exc[i]);
	free(inc);
	free(exc);
	free(c);
	strbuf_release(&tmp);
	strbuf_release(&tmp2);
	if (ret)
		selection_release(sel);
	return ret;
}

void selection_release(struct selection *sel)
{
	for (size_t i = 0; i < sel->nr; i++) {
		free(sel->k[i].name);
		free(sel->k[i].short_name);
		free(sel->k[i].op);
		free(sel->k[i].kernel_name);
		free(sel->k[i].kernel_id);
	}
	free(sel->k);
	free(sel->stop_reason);
	memset(sel, 0, sizeof(*sel));
}

void selection_render_md(const struct selection *sel, struct strbuf *out)
{
	double cum = 0;

	strbuf_addf(out,
		    "Selected %zu of %zu distinct kernels of the stage (%zu launches, %.6f ms "
		    "of GPU time), covering %.1f %% of its GPU time (target %.1f %%, top_n %zu: "
		    "%s).",
		    sel->nr, sel->distinct, sel->stage_launches, sel->stage_ns / 1e6,
		    100 * sel->coverage, 100 * sel->target_coverage, sel->top_n,
		    sel->stop_reason ? sel->stop_reason : "");
	if (sel->nccl_kernels)
		strbuf_addf(out,
			    " %zu NCCL kernels (%.1f %% of the stage) are never kernel-replayed: "
			    "collectives wait on other ranks and hang under replay.",
			    sel->nccl_kernels,
			    sel->stage_ns > 0 ? 100 * sel->nccl_ns / sel->stage_ns : 0.0);
	if (sel->excluded_kernels)
		strbuf_addf(out,
			    " %zu kernels (%.1f %%) were left out by the include/exclude "
			    "patterns.",
			    sel->excluded_kernels,
			    sel->stage_ns > 0 ? 100 * sel->excluded_ns / sel->stage_ns : 0.0);
	strbuf_addstr(out, "\n\n");
	if (!sel->nr)
		return;
	strbuf_addstr(out,
		      "| # | Kernel | Launch (grid x block) | Calls | Stage time (ms) | Share % | "
		      "Cumulative % | ncu selection |\n"
		      "|---:|:---|:---|---:|---:|---:|---:|:---|\n");
	for (size_t i = 0; i < sel->nr; i++) {
		const struct selected_kernel *k = &sel->k[i];
		struct strbuf ncu = STRBUF_INIT;

		cum += k->share;
		strbuf_addf(out, "| %zu | ", i + 1);
		md_text(out, k->short_name);
		if (k->op) {
			strbuf_addstr(out, " in ");
			md_text(out, k->op);
		}
		strbuf_addf(out, " | (%d,%d,%d) x (%d,%d,%d) | %zu | %.6f | %.2f | %.2f | `",
			    k->grid[0], k->grid[1], k->grid[2], k->block[0], k->block[1],
			    k->block[2], k->calls, k->total_ns / 1e6, 100 * k->share, 100 * cum);
		strbuf_addf(&ncu, "-k %s -s %zu -c %zu", k->kernel_name, k->launch_skip,
			    k->launch_count);
		for (const char *p = ncu.buf; *p; p++) {
			if (*p == '|')
				strbuf_addch(out, '\\'); /* GFM splits cells even in code */
			strbuf_addch(out, *p);
		}
		strbuf_addstr(out, "` |\n");
		strbuf_release(&ncu);
	}
}

void selection_json(const struct selection *sel, const struct select_opts *o,
		    const struct select_pass *pass, struct strbuf *out)
{
	json_t *root = json_object(), *arr = json_array(), *pats;
	char *text;

	json_object_set_new(root, "stage_launches", json_integer((json_int_t)sel->stage_launches));
	json_object_set_new(root, "stage_gpu_time_ns", json_real(sel->stage_ns));
	json_object_set_new(root, "distinct_kernels", json_integer((json_int_t)sel->distinct));
	json_object_set_new(root, "target_coverage", json_real(sel->target_coverage));
	json_object_set_new(root, "top_n", json_integer((json_int_t)sel->top_n));
	json_object_set_new(root, "selected", json_integer((json_int_t)sel->nr));
	json_object_set_new(root, "covered_gpu_time_ns", json_real(sel->covered_ns));
	json_object_set_new(root, "coverage", json_real(sel->coverage));
	json_object_set_new(root, "stop_reason",
			    json_string(sel->stop_reason ? sel->stop_reason : ""));
	json_object_set_new(root, "nvtx_gated", json_boolean(o->nvtx_gated));
	json_object_set_new(root, "kernel_name_base", json_string(select_base_name(o->base)));
	pats = json_array();
	for (size_t i = 0; i < o->nr_include; i++)
		json_array_append_new(pats, json_string(o->include[i]));
	json_object_set_new(root, "include_patterns", pats);
	pats = json_array();
	for (size_t i = 0; i < o->nr_exclude; i++)
		json_array_append_new(pats, json_string(o->exclude[i]));
	json_object_set_new(root, "exclude_patterns", pats);
	json_object_set_new(root, "excluded_kernels",
			    json_integer((json_int_t)sel->excluded_kernels));
	json_object_set_new(root, "excluded_gpu_time_ns", json_real(sel->excluded_ns));
	json_object_set_new(root, "nccl_kernels_not_replayed",
			    json_integer((json_int_t)sel->nccl_kernels));
	json_object_set_new(root, "nccl_gpu_time_ns", json_real(sel->nccl_ns));
	for (size_t i = 0; i < sel->nr; i++) {
		const struct selected_kernel *s = &sel->k[i];
		json_t *e;

		e = json_pack("{s:i,s:s,s:s,s:[iii],s:[iii],s:i,s:i,s:f,s:f,"
			      "s:i,s:i,s:i,s:s,s:s}",
			      "rank", (json_int_t)(i + 1), "name", s->name, "short_name",
			      s->short_name, "grid", s->grid[0], s->grid[1], s->grid[2], "block",
			      s->block[0], s->block[1], s->block[2], "device", s->device, "calls",
			      (json_int_t)s->calls, "total_ns", s->total_ns, "share", s->share,
			      "launch_index", (json_int_t)s->launch_index, "launch_skip",
			      (json_int_t)s->launch_skip, "launch_count",
			      (json_int_t)s->launch_count, "kernel_name", s->kernel_name,
			      "kernel_id", s->kernel_id);
		if (!e) /* a name that is not UTF-8: json_pack refuses it */
			e = json_pack("{s:i}", "rank", (json_int_t)(i + 1));
		json_object_set_new(e, "operator", s->op ? json_string_lossy(s->op) : json_null());
		json_array_append_new(arr, e);
	}
	json_object_set_new(root, "kernels", arr);
	if (pass)
		select_pass_json(pass, root);
	text = json_dumps(root, JSON_INDENT(2) | JSON_PRESERVE_ORDER | JSON_REAL_PRECISION(12));
	strbuf_addstr(out, text ? text : "{}");
	strbuf_addch(out, '\n');
	free(text);
	json_decref(root);
}
