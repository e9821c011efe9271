/* trace_par.c: trace_load()'s readers on threads of their own (trace_par.h). */
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <sqlite3.h>

#include "core/xalloc.h"
#include "trace/trace_par.h"
#include "core/banned.h"

static void *reader_main(void *arg)
{
	struct trace_reader *r = arg;

	r->rc = r->load(&r->scratch, r->part, &r->err);
	return NULL;
}

/* The scratch trace a reader fills: its own connection, and a read-only
 * view of what the load needs of t (no string is interned by these parts;
 * StringIds' map is only read). */
static void scratch_init(struct trace *s, const struct trace *t, struct nsysdb *db)
{
	memset(s, 0, sizeof(*s));
	s->db = db;
	s->path = t->path;
	s->sids = t->sids;
	s->kernels_lean = t->kernels_lean;
	s->has_strings = t->has_strings;
	s->has_kernels = t->has_kernels;
	s->has_calls = t->has_calls;
}

static int reader_start(struct trace_reader *r, struct trace *t, unsigned part,
			trace_part_loader load)
{
	struct strbuf err = STRBUF_INIT;
	sigset_t all, old;
	int rc;

	memset(r, 0, sizeof(*r));
	r->part = part;
	r->load = load;
	strbuf_init(&r->err, 0);
	/* the same file: a path replaced since trace_open() is read by the
	 * caller's connection, not this one */
	if (nsysdb_open(&r->db, t->db->path, &err) || r->db.size != t->db->size) {
		nsysdb_close(&r->db);
		strbuf_release(&err);
		return -1;
	}
	strbuf_release(&err);
	scratch_init(&r->scratch, t, &r->db);
	/* signals (Ctrl-C) stay with the caller's thread, as without readers */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	rc = pthread_create(&r->thread, NULL, reader_main, r);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (rc) {
		nsysdb_close(&r->db);
		return -1;
	}
	return 0;
}

unsigned trace_par_start(struct trace_par *par, struct trace *t, unsigned todo,
			 trace_part_loader load)
{
	unsigned want = todo & (TRACE_KERNELS | TRACE_CALLS), started = 0;

	par->n = 0;
	/* with nothing else to read, the caller's thread reads the calls */
	if (!(todo & (TRACE_MEMOPS | TRACE_NVTX)))
		want &= ~(unsigned)TRACE_CALLS;
	if (!t->db || !sqlite3_threadsafe() || !want || want == todo)
		return 0;
	for (unsigned part = TRACE_KERNELS; part <= TRACE_CALLS; part <<= 1) {
		if (!(want & part) || reader_start(&par->r[par->n], t, part, load))
			continue;
		par->n++;
		started |= part;
	}
	return started;
}

static int part_index(unsigned part)
{
	int k = 0;

	while (part >>= 1)
		k++;
	return k;
}

/* Moves a reader's part into t, whose part is empty (never loaded, or
 * emptied by a failed load). */
static void adopt(struct trace *t, struct trace *s, unsigned part)
{
	if (part == TRACE_KERNELS) {
		free(t->kernels);
		rectab_release(&t->ksigs);
		t->kernels = s->kernels;
		t->nkernels = s->nkernels;
		t->kernels_alloc = s->kernels_alloc;
		t->ksigs = s->ksigs;
		t->kernels_bad_time += s->kernels_bad_time;
	} else {
		free(t->calls);
		rectab_release(&t->csigs);
		t->calls = s->calls;
		t->ncalls = s->ncalls;
		t->calls_alloc = s->calls_alloc;
		t->csigs = s->csigs;
	}
	t->clamped += s->clamped;
	t->loaded |= part;
}

void trace_par_finish(struct trace_par *par, struct trace *t, struct strbuf *errs)
{
	for (size_t i = 0; i < par->n; i++) {
		struct trace_reader *r = &par->r[i];

		pthread_join(r->thread, NULL);
		if (r->rc) {
			strbuf_addstr(&errs[part_index(r->part)], r->err.buf);
			free(r->scratch.kernels);
			rectab_release(&r->scratch.ksigs);
			free(r->scratch.calls);
			rectab_release(&r->scratch.csigs);
		} else {
			adopt(t, &r->scratch, r->part);
		}
		nsysdb_close(&r->db);
		strbuf_release(&r->err);
	}
	par->n = 0;
}
