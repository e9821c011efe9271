/* stage_suggest.c: the top-level NVTX ranges of a trace and the stages
 * they could be; see stage_suggest.h. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/stage_suggest.h"
#include "analysis/timeline.h"
#include "core/md.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/strtab.h"
#include "core/banned.h"

/* Range names an engine pushes around each of its steps, stable across
 * its releases, and the stage each is. TensorRT-LLM's PyTorch backend:
 * `@nvtx_range("_forward_step")` on each model-engine forward
 * (tensorrt_llm/_torch/pyexecutor/model_engine.py), one per executor
 * iteration, prefill (context) iterations included. vLLM, SGLang and
 * Hugging Face generate() push no such range by default: their traces
 * are read by name and nesting below. */
static const struct {
	const char *text, *engine;
	int role;
} engine_ranges[] = {
    {"_forward_step", "TensorRT-LLM (one per executor iteration, prefill ones included)",
     STAGE_DECODE_STEP},
};

enum { LIST_MAX = 8, CHILD_MAX = 3 };

struct group {
	int32_t text, domain;
	size_t count, top;   /* instances, and those at the top level */
	int64_t total_ns;    /* of the top-level instances */
	long parent;	     /* the group of its first instance's parent, -1 none */
	int64_t first_start; /* for a stable order */
};

struct sweep {
	const struct trace *t;
	struct group *g;
	size_t ng;
	long *by_name; /* name id -> group, -1 */
};

/* the ranges cmp_range() sorts indices of (qsort has no argument) */
static const struct trace_range *cmp_v;

static int cmp_range(const void *pa, const void *pb)
{
	const struct trace_range *a = &cmp_v[*(const size_t *)pa], *b = &cmp_v[*(const size_t *)pb];

	if (a->gtid != b->gtid)
		return a->gtid < b->gtid ? -1 : 1;
	if (a->start != b->start)
		return a->start < b->start ? -1 : 1;
	return a->end > b->end ? -1 : a->end < b->end;
}

/* NCCL's API ranges are calls, never stages. */
static int skip_range(const struct trace *t, const struct trace_range *r)
{
	const char *dom = strtab_str(&t->strs, r->domain);

	return r->open || r->cross_thread || r->text < 0 || (dom && !strcmp(dom, "NCCL"));
}

static long group_of(struct sweep *s, const struct trace_range *r)
{
	long *slot = &s->by_name[r->name];

	if (*slot < 0) {
		struct group *g = &s->g[s->ng];

		memset(g, 0, sizeof(*g));
		g->text = r->text;
		g->domain = r->domain;
		g->parent = -2; /* not seen yet */
		g->first_start = r->start;
		*slot = (long)s->ng++;
	}
	return *slot;
}

/* Counts, nesting and top-level time of every range name: the ranges of
 * each thread by start, longest first, with the stack of the open ones. */
static void sweep_ranges(struct sweep *s)
{
	const struct trace *t = s->t;
	size_t n = 0, *idx = xcalloc(t->nranges + 1, sizeof(*idx));
	size_t *stack = xcalloc(t->nranges + 1, sizeof(*stack)), depth = 0;

	for (size_t i = 0; i < t->nranges; i++)
		if (!skip_range(t, &t->ranges[i]) && t->ranges[i].name >= 0 &&
		    (size_t)t->ranges[i].name < t->strs.nr)
			idx[n++] = i;
	cmp_v = t->ranges;
	if (n)
		qsort(idx, n, sizeof(*idx), cmp_range);
	for (size_t k = 0; k < n; k++) {
		const struct trace_range *r = &t->ranges[idx[k]];
		struct group *g = &s->g[group_of(s, r)];

		while (depth) {
			const struct trace_range *top = &t->ranges[stack[depth - 1]];

			if (top->gtid == r->gtid && top->end >= r->end && top->end > r->start)
				break;
			depth--;
		}
		g->count++;
		if (g->parent == -2)
			g->parent = depth ? s->by_name[t->ranges[stack[depth - 1]].name] : -1;
		if (!depth) {
			g->top++;
			g->total_ns = i64_sat_add(g->total_ns, i64_sat_sub(r->end, r->start));
		}
		stack[depth++] = idx[k];
	}
	free(idx);
	free(stack);
}

/* The stage spec of a group: "text" or "text@domain", or NULL when the
 * name holds what an override or a shell word would change. */
static const char *spec_of(const struct trace *t, const struct group *g, struct strbuf *sb)
{
	const char *text = strtab_str(&t->strs, g->text);
	const char *dom = strtab_str(&t->strs, g->domain);

	strbuf_reset(sb);
	strbuf_addstr(sb, text);
	if (dom)
		strbuf_addf(sb, "@%s", dom);
	if (!text || !*text || strchr(text, '@'))
		return NULL;
	for (const char *p = sb->buf; *p; p++)
		if ((unsigned char)*p < 0x20 || strchr("'\"\\`[],{}", *p))
			return NULL;
	return sb->buf;
}

static int has_word(const char *s, const char *const *words)
{
	for (; *words; words++) {
		size_t n = strlen(*words);

		for (const char *p = s; *p; p++)
			if (!strncasecmp(p, *words, n))
				return 1;
	}
	return 0;
}

static const char *const prefill_words[] = {"prefill", "prompt", NULL};
static const char *const decode_words[] = {"decode", "generat", NULL};
static const char *const step_words[] = {"step", "token", "iter", NULL};

/* The group for role r by its name, the most frequent (decode_step) or
 * the longest (the others); -1 none. */
static long by_words(const struct sweep *s, const char *const *words, int step, long not )
{
	long best = -1;

	for (size_t i = 0; i < s->ng; i++) {
		const struct group *g = &s->g[i];
		const char *text = strtab_str(&s->t->strs, g->text);

		if ((long)i == not || !text || !has_word(text, words))
			continue;
		if (best < 0 ||
		    (step ? g->count > s->g[best].count : g->total_ns > s->g[best].total_ns))
			best = (long)i;
	}
	return best;
}

/* The most frequent group nested directly in group parent, seen at least
 * twice; -1 none. */
static long busiest_child(const struct sweep *s, long parent)
{
	long best = -1;

	for (size_t i = 0; i < s->ng; i++)
		if (s->g[i].parent == parent && (long)i != parent && s->g[i].count >= 2 &&
		    (best < 0 || s->g[i].count > s->g[best].count))
			best = (long)i;
	return best;
}

/* Which group each stage role could be: engine names first, then names,
 * then nesting (a range seen once holding one seen many times: decode and
 * its steps; a top-level range seen many times: the steps), which also
 * completes what the names left out. */
static void guess(const struct sweep *s, long role[STAGE_NROLES], const char **engine)
{
	long longest = -1, *dec = &role[STAGE_DECODE], *step = &role[STAGE_DECODE_STEP];

	for (int r = 0; r < STAGE_NROLES; r++)
		role[r] = -1;
	for (size_t i = 0; i < s->ng; i++)
		for (size_t e = 0; e < ARRAY_SIZE(engine_ranges); e++)
			if (!strcmp(strtab_str(&s->t->strs, s->g[i].text), engine_ranges[e].text)) {
				role[engine_ranges[e].role] = (long)i;
				*engine = engine_ranges[e].engine;
			}
	if (*engine)
		return;
	role[STAGE_PREFILL] = by_words(s, prefill_words, 0, -1);
	*dec = by_words(s, decode_words, 0, -1);
	*step = by_words(s, step_words, 1, *dec);
	if (role[STAGE_PREFILL] < 0 && *dec < 0 && *step < 0) {
		for (size_t i = 0; i < s->ng; i++)
			if (s->g[i].top &&
			    (longest < 0 || s->g[i].total_ns > s->g[longest].total_ns))
				longest = (long)i;
		if (longest < 0)
			return;
		if (s->g[longest].count == 1)
			*dec = busiest_child(s, longest) >= 0 ? longest : -1;
		else
			*step = longest;
	}
	if (*dec >= 0 && *step < 0)
		*step = busiest_child(s, *dec);
	if (*step >= 0 && *dec < 0 && s->g[*step].parent >= 0 &&
	    s->g[*step].parent != role[STAGE_PREFILL] && s->g[s->g[*step].parent].count == 1)
		*dec = s->g[*step].parent;
}

/* the groups cmp_group_time() sorts indices of */
static const struct group *cmp_g;

static int cmp_group_time(const void *pa, const void *pb)
{
	const struct group *a = &cmp_g[*(const long *)pa], *b = &cmp_g[*(const long *)pb];

	if (a->total_ns != b->total_ns)
		return a->total_ns > b->total_ns ? -1 : 1;
	return a->first_start < b->first_start ? -1 : a->first_start > b->first_start;
}

/* `name` ×N (T ms; inside: `child` ×M, ...), Markdown. */
static void list_group(const struct sweep *s, long gi, struct strbuf *out)
{
	const struct group *g = &s->g[gi];
	const char *dom = strtab_str(&s->t->strs, g->domain);
	struct strbuf name = STRBUF_INIT;
	long shown[CHILD_MAX];
	size_t nshown = 0;

	strbuf_addstr(&name, strtab_str(&s->t->strs, g->text));
	if (dom)
		strbuf_addf(&name, "@%s", dom);
	md_code_plain(out, name.buf);
	strbuf_addf(out, " ×%zu (%.3f ms", g->top, (double)g->total_ns / 1e6);
	while (nshown < CHILD_MAX) {
		long best = -1;

		for (size_t i = 0; i < s->ng; i++) {
			int taken = 0;

			for (size_t k = 0; k < nshown; k++)
				taken |= shown[k] == (long)i;
			if (!taken && s->g[i].parent == gi &&
			    (best < 0 || s->g[i].count > s->g[best].count))
				best = (long)i;
		}
		if (best < 0)
			break;
		strbuf_addstr(out, nshown ? ", " : "; inside: ");
		strbuf_reset(&name);
		strbuf_addstr(&name, strtab_str(&s->t->strs, s->g[best].text));
		md_code_plain(out, name.buf);
		strbuf_addf(out, " ×%zu", s->g[best].count);
		shown[nshown++] = best;
	}
	strbuf_addch(out, ')');
	strbuf_release(&name);
}

/* The length of text without its trailing digits. */
static size_t stem_len(const char *text)
{
	size_t n = strlen(text);

	while (n && isdigit((unsigned char)text[n - 1]))
		n--;
	return n;
}

/* Top-level range names that differ only in a trailing number
 * (forward_0, forward_1, ...): a stage names its ranges exactly, so they
 * cannot be one stage. Said once, for the most frequent stem. */
static void numbered_note(const struct sweep *s, struct strbuf *note)
{
	enum { CHECK_MAX = 2000 };
	size_t best = 0, checked = 0;
	const char *example = NULL;

	for (size_t i = 0; i < s->ng && checked < CHECK_MAX; i++) {
		const char *a = strtab_str(&s->t->strs, s->g[i].text);
		size_t n = 0, stem;

		if (!s->g[i].top || !a || (stem = stem_len(a)) == strlen(a))
			continue;
		checked++;
		for (size_t j = 0; j < s->ng; j++) {
			const char *b = strtab_str(&s->t->strs, s->g[j].text);

			n += s->g[j].top && b && stem_len(b) == stem && strlen(b) > stem &&
			     !strncmp(a, b, stem);
		}
		if (n > best) {
			best = n;
			example = a;
		}
	}
	if (best < 3)
		return;
	strbuf_addf(note, "%zu top-level range names differ only in a trailing number (such as ",
		    best);
	md_code_plain(note, example);
	strbuf_addstr(note, "): a stage names its ranges exactly, so push one name for every "
			    "step (a step number can go in the range's payload)");
}

void stage_suggest(const struct trace *t, struct strbuf *list, struct strbuf *ov,
		   struct strbuf *note)
{
	static const char *const keys[STAGE_NROLES] = {"stages.prefill", "stages.decode",
						       "stages.decode_step"};
	struct sweep s = {t, NULL, 0, NULL};
	struct strbuf sb = STRBUF_INIT;
	long role[STAGE_NROLES], *order;
	const char *engine = NULL;
	size_t listed = 0, tops = 0;

	s.g = xcalloc(t->nranges + 1, sizeof(*s.g));
	s.by_name = xmalloc(st_mult(t->strs.nr + 1, sizeof(*s.by_name)));
	for (size_t i = 0; i <= t->strs.nr; i++)
		s.by_name[i] = -1;
	sweep_ranges(&s);
	guess(&s, role, &engine);
	for (int r = 0; r < STAGE_NROLES; r++) {
		const char *spec = role[r] >= 0 ? spec_of(t, &s.g[role[r]], &sb) : NULL;

		if (!spec)
			continue;
		strbuf_addf(ov, "%s'%s=[%s]'", ov->len ? " " : "", keys[r], spec);
	}
	if (engine && ov->len)
		strbuf_addf(ov, " (range names of %s)", engine);
	numbered_note(&s, note);
	order = xcalloc(s.ng + 1, sizeof(*order));
	for (size_t i = 0; i < s.ng; i++)
		order[i] = (long)i;
	cmp_g = s.g;
	if (s.ng)
		qsort(order, s.ng, sizeof(*order), cmp_group_time);
	for (size_t i = 0; i < s.ng; i++) {
		if (!s.g[order[i]].top)
			continue;
		tops++;
		if (listed == LIST_MAX)
			continue;
		strbuf_addstr(list, listed++ ? ", " : "");
		list_group(&s, order[i], list);
	}
	if (tops > listed)
		strbuf_addf(list, " and %zu more", tops - listed);
	free(order);
	free(s.g);
	free(s.by_name);
	strbuf_release(&sb);
}
