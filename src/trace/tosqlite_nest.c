/* tosqlite_nest.c: which activity-source driver calls lie inside a runtime
 * call of their thread (tosqlite_internal.h, struct api_nest), decided
 * while pass 1 reads the log, in memory that does not follow its size.
 *
 * The rule is tosqlite_api_nest()'s (tosqlite_row.c): sorted by thread,
 * start, runtime before driver, end descending, corr, a driver call's
 * parent is the last runtime call before it if that one encloses it; that
 * is, among the thread's runtime calls starting at or before it, the one
 * starting last (then ending first, then the highest corr). CUPTI writes a
 * call's record when it returns, so a thread's runtime calls come in the
 * order of their starts and a nested driver call before its runtime call:
 * a driver call is decided once a runtime call of its thread starting
 * after it arrives (or the log ends), and only the undecided ones are
 * kept. A log in another order (a runtime call starting before one seen
 * already, a driver call starting before the latest runtime call, a driver
 * corr twice) sets fallback: then pass 1 collects every call and sorts them
 * (tosqlite_pass.c), with the same answer. */
#include <string.h>

#include "core/xalloc.h"
#include "trace/tosqlite_internal.h"
#include "core/banned.h"

struct nest_call {
	uint64_t start, end;
	uint32_t corr;
};

struct nest_driver {
	struct nest_call call;
	struct nest_call rt; /* the parent candidate, when has_rt */
	int has_rt;
};

struct nest_thread {
	uint32_t tid;
	int has_rt;
	struct nest_call rt; /* the thread's last runtime call in the sort order */
	struct nest_driver *pend;
	size_t npend, apend;
};

/* Whether runtime call b comes after a in the sort order (same thread,
 * b starting no earlier). */
static int later_runtime(const struct nest_call *a, const struct nest_call *b)
{
	if (b->start != a->start)
		return b->start > a->start;
	if (b->end != a->end)
		return b->end < a->end;
	return b->corr > a->corr;
}

static struct nest_thread *nest_thread(struct api_nest *n, uint32_t tid)
{
	if (n->last < n->nthreads && n->threads[n->last].tid == tid)
		return &n->threads[n->last];
	for (size_t i = 0; i < n->nthreads; i++)
		if (n->threads[i].tid == tid)
			return &n->threads[n->last = i];
	ALLOC_GROW(n->threads, n->nthreads + 1, n->athreads);
	memset(&n->threads[n->nthreads], 0, sizeof(n->threads[0]));
	n->threads[n->nthreads].tid = tid;
	n->last = n->nthreads;
	return &n->threads[n->nthreads++];
}

void api_nest_result(struct api_nest *n, uint32_t corr, uint32_t parent)
{
	if (!parent) {
		u32set_add(&n->top, corr);
		return;
	}
	u32set_add(&n->nested, corr);
	if (corr != parent) {
		ALLOC_GROW(n->aliases, n->naliases + 1, n->aaliases);
		n->aliases[n->naliases++] = (uint64_t)corr << 32 | parent;
	}
}

static void decide(struct api_nest *n, const struct nest_driver *d)
{
	int in = d->has_rt && d->call.end <= d->rt.end;

	api_nest_result(n, d->call.corr, in ? d->rt.corr : 0);
}

void api_nest_add(struct api_nest *n, const struct tlog_api *a)
{
	struct nest_call c = {a->start, a->end, a->corr};
	struct nest_thread *t;
	size_t k = 0;

	if (n->fallback)
		return;
	t = nest_thread(n, a->tid);
	if (t->has_rt && c.start < t->rt.start) {
		n->fallback = 1; /* not in the order CUPTI writes */
		return;
	}
	if (a->h.aux == TLOG_API_DRIVER) {
		struct nest_driver *d;

		if (u32set_has(&n->drivers, c.corr)) {
			n->fallback = 1;
			return;
		}
		u32set_add(&n->drivers, c.corr);
		ALLOC_GROW(t->pend, t->npend + 1, t->apend);
		d = &t->pend[t->npend++];
		d->call = c;
		d->rt = t->rt;
		d->has_rt = t->has_rt;
		return;
	}
	u32set_add(&n->top, c.corr); /* a runtime call is nobody's child */
	if (!t->has_rt || later_runtime(&t->rt, &c))
		t->rt = c;
	t->has_rt = 1;
	for (size_t i = 0; i < t->npend; i++) {
		struct nest_driver *d = &t->pend[i];

		if (c.start > d->call.start) {
			decide(n, d); /* no runtime call to come starts at or before it */
			continue;
		}
		if (!d->has_rt || later_runtime(&d->rt, &c))
			d->rt = c;
		d->has_rt = 1;
		t->pend[k++] = *d;
	}
	t->npend = k;
}

void api_nest_finish(struct api_nest *n)
{
	for (size_t i = 0; i < n->nthreads; i++) {
		struct nest_thread *t = &n->threads[i];

		for (size_t j = 0; !n->fallback && j < t->npend; j++)
			decide(n, &t->pend[j]);
		FREE_AND_NULL(t->pend);
		t->npend = t->apend = 0;
	}
	FREE_AND_NULL(n->threads);
	n->nthreads = n->athreads = n->last = 0;
	u32set_free(&n->drivers);
}

void api_nest_release(struct api_nest *n)
{
	api_nest_finish(n);
	u32set_free(&n->top);
	u32set_free(&n->nested);
	FREE_AND_NULL(n->aliases);
	n->naliases = n->aaliases = 0;
}
