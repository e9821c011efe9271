/* test-cpusample.c: CPU samples of NVTX stage ranges (analysis/cpusample.h)
 * on traces built in memory: a sample counts for a stage when its thread
 * has one of the stage's ranges open (once, however many), other threads
 * and times do not; categories carry their most sampled function;
 * functions group by (function, library); the samples outside CUDA API
 * calls form their own set. Then the findings' sentences that cite them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "analysis/cpusample.h"
#include "analysis/findings.h"
#include "core/xalloc.h"
#include "model/model.h"
#include "trace/trace.h"

#define GT(pid, tid) ((1LL << 48) | ((int64_t)(pid) << 24) | (tid))

static void add_range(struct trace *t, int64_t s, int64_t e, int64_t gtid)
{
	struct trace_range *r;

	ALLOC_GROW(t->ranges, t->nranges + 1, t->ranges_alloc);
	r = &t->ranges[t->nranges++];
	memset(r, 0, sizeof(*r));
	r->category = -1;
	r->start = s;
	r->end = e;
	r->gtid = gtid;
	r->name = r->text = strtab_intern(&t->strs, "r", 1);
	r->domain = -1;
}

static void add_call(struct trace *t, int64_t s, int64_t e, int64_t gtid)
{
	struct trace_call *c;

	ALLOC_GROW(t->calls, t->ncalls + 1, t->calls_alloc);
	c = &t->calls[t->ncalls++];
	memset(c, 0, sizeof(*c));
	c->start = s;
	c->end = e;
	struct trace_csig sig = {.gtid = gtid, .name = strtab_intern(&t->strs, "cudaMalloc", 10)};

	c->sig = trace_csig_id(t, sig, (int64_t)t->ncalls, &c->corr_lo);
}

static int32_t id(struct trace *t, const char *s)
{
	return strtab_intern(&t->strs, s, strlen(s));
}

static void add_sample(struct trace *t, struct trace_cpu_samples *v, int64_t ts, int64_t gtid,
		       const char *lib, const char *fn, const char *cat)
{
	struct trace_cpu_sample *c;

	ALLOC_GROW(v->v, v->n + 1, v->alloc);
	c = &v->v[v->n++];
	c->ts = ts;
	c->gtid = gtid;
	c->period_ns = 10;
	c->library = id(t, lib);
	c->function = id(t, fn);
	c->category = id(t, cat);
}

static const char *s_of(const struct trace *t, int32_t i)
{
	return strtab_str(&t->strs, i);
}

static void test_by_stage(void **state)
{
	struct trace t;
	struct trace_cpu_samples v;
	struct cpu_sample_use u[2];
	const uint8_t mask[3] = {1, 1, 2}; /* prefill (two, overlapping), decode */
	int64_t a = GT(7, 7), b = GT(7, 8);

	(void)state;
	memset(&t, 0, sizeof(t));
	memset(&v, 0, sizeof(v));
	add_range(&t, 0, 1000, a);
	add_range(&t, 500, 1200, a); /* nested/overlapping: a sample counts once */
	add_range(&t, 2000, 3000, a);
	add_call(&t, 100, 200, a);
	/* v is sorted by (gtid, ts), as trace_cpu_samples_load leaves it */
	add_sample(&t, &v, 50, a, "libpython3.11.so", "_PyEval_EvalFrameDefault",
		   "Python interpreter");
	add_sample(&t, &v, 150, a, "libcuda.so.1", "libcuda.so.1+0x1234", "CUDA driver");
	add_sample(&t, &v, 600, a, "libpython3.11.so", "_PyEval_EvalFrameDefault",
		   "Python interpreter");
	add_sample(&t, &v, 700, a, "libpython3.11.so", "PyObject_GetAttr", "Python interpreter");
	add_sample(&t, &v, 1100, a, "libtorch_cpu.so", "at::native::add", "PyTorch");
	add_sample(&t, &v, 1500, a, "libtorch_cpu.so", "at::native::add", "PyTorch"); /* none */
	add_sample(&t, &v, 2500, a, "libc.so.6", "memcpy", "libc/kernel");
	add_sample(&t, &v, 600, b, "libtorch_cpu.so", "at::native::mul",
		   "PyTorch"); /* other thread */
	memset(u, 0, sizeof(u));
	cpu_samples_by_mask(u, 2, &t, mask, &v, 1);

	assert_int_equal(u[0].all.samples, 5);
	assert_int_equal(u[0].all.ns, 50);
	assert_int_equal(u[0].all.ncats, 3);
	assert_string_equal(s_of(&t, u[0].all.cats[0].name), "Python interpreter");
	assert_int_equal(u[0].all.cats[0].samples, 3);
	assert_int_equal(u[0].all.cats[0].ns, 30);
	assert_string_equal(s_of(&t, u[0].all.cats[0].detail), "_PyEval_EvalFrameDefault");
	/* ties by name: CUDA driver before PyTorch */
	assert_string_equal(s_of(&t, u[0].all.cats[1].name), "CUDA driver");
	assert_string_equal(s_of(&t, u[0].all.cats[2].name), "PyTorch");
	assert_string_equal(s_of(&t, u[0].all.cats[2].detail), "at::native::add");
	assert_int_equal(u[0].all.nfuncs, 4);
	assert_string_equal(s_of(&t, u[0].all.funcs[0].name), "_PyEval_EvalFrameDefault");
	assert_string_equal(s_of(&t, u[0].all.funcs[0].detail), "libpython3.11.so");
	assert_int_equal(u[0].all.funcs[0].samples, 2);
	/* outside CUDA API calls: the libcuda sample at 150 is inside one */
	assert_int_equal(u[0].outside.samples, 4);
	assert_int_equal(u[0].outside.ncats, 2);
	assert_string_equal(s_of(&t, u[0].outside.cats[0].name), "Python interpreter");
	assert_int_equal(u[0].outside.cats[0].samples, 3);

	assert_int_equal(u[1].all.samples, 1);
	assert_string_equal(s_of(&t, u[1].all.funcs[0].name), "memcpy");
	assert_string_equal(s_of(&t, u[1].all.cats[0].name), "libc/kernel");
	cpu_sample_use_release(&u[0]);
	cpu_sample_use_release(&u[1]);

	/* without every API call recorded: no outside set */
	memset(u, 0, sizeof(u));
	cpu_samples_by_mask(u, 2, &t, mask, &v, 0);
	assert_int_equal(u[0].all.samples, 5);
	assert_int_equal(u[0].outside.samples, 0);
	assert_null(u[0].outside.cats);
	cpu_sample_use_release(&u[0]);
	cpu_sample_use_release(&u[1]);
	trace_cpu_samples_release(&v);
	trace_close(&t);
}

static void add_group(struct report_sample_group **g, size_t *n, const char *name,
		      const char *detail, uint64_t samples)
{
	*g = xrealloc(*g, (*n + 1) * sizeof(**g));
	(*g)[*n].name = xstrdup(name);
	(*g)[*n].detail = xstrdup(detail);
	(*g)[*n].samples = samples;
	(*g)[*n].ms = rnum_of((double)samples);
	(*n)++;
}

static const struct report_finding *find(const struct report_model *m, const char *code)
{
	for (size_t i = 0; i < m->nr_findings; i++)
		if (!strcmp(m->findings[i].code, code))
			return &m->findings[i];
	return NULL;
}

/* The H100 prefill of issue 21: 371 ms of CPU time, 258.6 ms in CUDA API
 * calls, 112.7 ms outside CUDA, sampled. */
static struct report_stage *setup_stage(struct report_model *m)
{
	struct report_stage *s;

	report_model_init(m);
	s = report_model_add_stage(m, "prefill", REPORT_ROLE_PREFILL);
	s->cpu_ms = rnum_of(371.3);
	s->gpu_ms = rnum_of(60.2);
	s->busy_ms = rnum_of(0.85);
	s->kernels = 83;
	s->cpu_samples = 360;
	s->sampled_ms = rnum_of(360);
	add_group(&s->sample_cats, &s->nr_sample_cats, "CUDA driver", "libcuda.so.1+0x1", 250);
	add_group(&s->sample_cats, &s->nr_sample_cats, "Python interpreter",
		  "_PyEval_EvalFrameDefault", 110);
	return s;
}

static void test_finding_text(void **state)
{
	struct report_model m;
	struct report_stage *s;
	const struct report_finding *f;

	(void)state;
	/* every API call recorded and samples outside them */
	s = setup_stage(&m);
	s->api_ms = rnum_of(258.6);
	s->host_ms = rnum_of(112.7);
	s->api_calls = 12;
	s->cpu_samples_outside = 110;
	s->sampled_outside_ms = rnum_of(110);
	add_group(&s->sample_outside_cats, &s->nr_sample_outside_cats, "Python interpreter",
		  "Python interpreter", 66);
	add_group(&s->sample_outside_cats, &s->nr_sample_outside_cats, "PyTorch", "at::native::add",
		  28);
	add_group(&s->sample_outside_cats, &s->nr_sample_outside_cats, "libc/kernel", "memcpy", 10);
	add_group(&s->sample_outside_cats, &s->nr_sample_outside_cats, "other", "foo", 6);
	report_model_derive(&m);
	findings_run(&m);
	f = find(&m, "stage-setup-bound");
	assert_non_null(f);
	assert_non_null(strstr(f->text, "112.700 ms outside CUDA: sampled (110 samples) 60.0% "
					"Python interpreter, 25.5% PyTorch (`at::native::add`), "
					"9.1% libc/kernel (`memcpy`), the rest 5.5%."));
	assert_null(strstr(f->text, "Sampled CPU time"));
	report_model_release(&m);

	/* samples but launches only: the samples as a sentence of their own,
	 * and the hint to record every call stays */
	s = setup_stage(&m);
	report_model_derive(&m);
	findings_run(&m);
	f = find(&m, "stage-setup-bound");
	assert_non_null(f);
	assert_non_null(strstr(f->text, " Sampled CPU time (360 samples, 360.000 ms): 69.4% CUDA "
					"driver (`libcuda.so.1+0x1`), 30.6% Python interpreter "
					"(`_PyEval_EvalFrameDefault`)."));
	assert_non_null(strstr(f->recommendation, "pipeline.trace.api_calls=all"));
	report_model_release(&m);

	/* no samples: today's text */
	s = setup_stage(&m);
	s->cpu_samples = 0;
	report_model_derive(&m);
	findings_run(&m);
	f = find(&m, "stage-setup-bound");
	assert_non_null(f);
	assert_null(strstr(f->text, "ampled"));
	report_model_release(&m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_by_stage),
	    cmocka_unit_test(test_finding_text),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
