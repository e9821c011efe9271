/* test-config-typed.c: struct llmprof_config (config/typed.h) and the
 * schema rows that fill it: every row bound to a field of its type, enum
 * rows with every value named, and the struct config_load() fills
 * (defaults, overrides of every key, enums, null, lists). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "config/config.h"
#include "core/strbuf.h"
#include "core/util.h"

#define CONF LLMPROF_SOURCE_DIR "/conf"

static struct config *load(size_t n, const char *const *ov)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;

	if (config_load_at(&cfg, CONF, n, ov, 0, &err))
		fail_msg("load failed: %s", err.buf);
	strbuf_release(&err);
	return cfg;
}

#define ARRAY_N(...) (sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))
#define LOAD(...) load(ARRAY_N(__VA_ARGS__), (const char *const[]){__VA_ARGS__})

static const struct config_key *row(const char *key)
{
	const struct config_key *keys;
	size_t n;

	keys = config_schema(&n);
	for (size_t i = 0; i < n; i++)
		if (!strcmp(keys[i].key, key))
			return &keys[i];
	fail_msg("no schema row '%s'", key);
	return NULL;
}

/* --- the table against the struct --- */

static enum config_ctype ctype_for(const struct config_key *k)
{
	int null = !!(k->flags & CONFIG_NULLABLE);

	switch (k->type) {
	case CONFIG_STR:
		return CONFIG_C_STR;
	case CONFIG_INT:
		return null ? CONFIG_C_INT_OR_NULL : CONFIG_C_INT;
	case CONFIG_FLOAT:
		return null ? CONFIG_C_FLOAT_OR_NULL : CONFIG_C_FLOAT;
	case CONFIG_BOOL:
		return null ? CONFIG_C_NONE : CONFIG_C_BOOL; /* no nullable bools */
	case CONFIG_ENUM:
		return null ? CONFIG_C_NONE : CONFIG_C_ENUM; /* no nullable enums */
	case CONFIG_STRLIST:
		return CONFIG_C_STRLIST;
	case CONFIG_OPEN_MAP:
		return CONFIG_C_TREE;
	}
	return CONFIG_C_NONE;
}

static size_t ctype_size(enum config_ctype t)
{
	switch (t) {
	case CONFIG_C_INT:
		return sizeof(int64_t);
	case CONFIG_C_FLOAT:
		return sizeof(double);
	case CONFIG_C_BOOL:
	case CONFIG_C_ENUM:
		return sizeof(int);
	case CONFIG_C_STRLIST:
		return sizeof(struct config_strlist);
	default:
		return sizeof(void *);
	}
}

static void test_every_row_has_a_field_of_its_type(void **state)
{
	const struct config_key *keys;
	size_t n;

	keys = config_schema(&n);
	for (size_t i = 0; i < n; i++) {
		const struct config_key *k = &keys[i];

		if (k->ctype == CONFIG_C_NONE)
			fail_msg("schema row '%s' fills no field of struct llmprof_config", k->key);
		if (k->ctype != ctype_for(k))
			fail_msg("schema row '%s': its field's C type (%d) is not the one its "
				 "type needs (%d)",
				 k->key, (int)k->ctype, (int)ctype_for(k));
		if (k->offset >= sizeof(struct llmprof_config))
			fail_msg("schema row '%s': offset %zu is outside the struct", k->key,
				 k->offset);
	}
}

static int by_offset(const void *a, const void *b)
{
	const struct config_key *x = *(const struct config_key *const *)a;
	const struct config_key *y = *(const struct config_key *const *)b;

	return x->offset < y->offset ? -1 : x->offset > y->offset;
}

/* The rows tile the struct: no two share bytes, and what lies between two
 * fields is never more than padding (less than the struct's alignment: a
 * section struct starts aligned to it), so a pointer or 64-bit field without
 * a row shows up too. */
static void test_rows_tile_the_struct(void **state)
{
	const struct config_key *keys, **sorted;
	size_t n, end = 0;

	keys = config_schema(&n);
	sorted = calloc(n, sizeof(*sorted));
	assert_non_null(sorted);
	for (size_t i = 0; i < n; i++)
		sorted[i] = &keys[i];
	qsort(sorted, n, sizeof(*sorted), by_offset);
	for (size_t i = 0; i < n; i++) {
		size_t size = ctype_size(sorted[i]->ctype);

		if (sorted[i]->offset < end)
			fail_msg("schema row '%s' overlaps the field before it", sorted[i]->key);
		if (sorted[i]->offset - end >= _Alignof(struct llmprof_config))
			fail_msg("%zu bytes before the field of '%s' belong to no row",
				 sorted[i]->offset - end, sorted[i]->key);
		end = sorted[i]->offset + size;
	}
	if (sizeof(struct llmprof_config) - end >= _Alignof(struct llmprof_config))
		fail_msg("the last %zu bytes of struct llmprof_config belong to no row",
			 sizeof(struct llmprof_config) - end);
	free(sorted);
}

static void test_enum_rows_name_every_value(void **state)
{
	const struct config_key *keys;
	size_t n, enums = 0;

	keys = config_schema(&n);
	for (size_t i = 0; i < n; i++) {
		const struct config_key *k = &keys[i];

		if (k->type != CONFIG_ENUM)
			continue;
		enums++;
		assert_non_null(k->values);
		assert_true(k->nr_values > 0);
		for (size_t v = 0; v < k->nr_values; v++) {
			if (!k->values[v])
				fail_msg("enum key '%s': C value %zu has no name", k->key, v);
			for (size_t w = 0; w < v; w++)
				if (!strcmp(k->values[v], k->values[w]))
					fail_msg("enum key '%s': '%s' twice", k->key, k->values[v]);
		}
		if (k->values[k->nr_values])
			fail_msg("enum key '%s': '%s' has no C value", k->key,
				 k->values[k->nr_values]);
	}
	assert_int_equal(enums, 15);
	assert_ptr_equal(row("pipeline.trace.api_calls")->values, trace_api_calls_names);
	assert_ptr_equal(row("pipeline.trace.pytorch")->values, trace_pytorch_names);
	assert_string_equal(trace_pytorch_names[TRACE_PYTORCH_MODULES], "modules");
	assert_string_equal(trace_api_calls_names[TRACE_API_CALLS_ALL], "all");
	/* the arrays the argv builders use are the rows' own */
	assert_ptr_equal(row("run.mode")->values, run_mode_names);
	assert_ptr_equal(row("run.stage")->values, run_stage_names);
	assert_ptr_equal(row("pipeline.ncu.ncu_cli.replay_mode")->values, ncu_replay_mode_names);
	assert_ptr_equal(row("pipeline.nsys.capture_range")->values, nsys_capture_range_names);
	assert_string_equal(ncu_replay_mode_names[NCU_REPLAY_APP_RANGE], "app-range");
	assert_string_equal(nsys_capture_range_names[NSYS_CAPTURE_RANGE_CUDA_PROFILER_API],
			    "cudaProfilerApi");
	assert_string_equal(infer_dtype_names[INFER_DTYPE_FP16], "fp16");
}

/* --- the filled struct against the tree --- */

/* The field of row k in c equals what the tree holds at k's key. */
static void check_field(const struct config *cfg, const struct config_key *k)
{
	const char *p = (const char *)config_typed(cfg) + k->offset;
	const struct cnode *n = config_get(cfg, k->key);
	const void *ptr;
	struct config_strlist l;
	int64_t i;
	double f;
	int b;

	assert_non_null(n); /* every key has a value after loading */
	if (n->type == CNODE_NULL)
		n = NULL;
	switch (k->ctype) {
	case CONFIG_C_STR:
		memcpy(&ptr, p, sizeof(ptr));
		if (n ? ptr != n->s : ptr != NULL)
			fail_msg("'%s': the field is not the tree's string", k->key);
		break;
	case CONFIG_C_INT:
		memcpy(&i, p, sizeof(i));
		assert_non_null(n);
		assert_int_equal(i, n->i);
		break;
	case CONFIG_C_INT_OR_NULL:
		memcpy(&ptr, p, sizeof(ptr));
		if (n ? ptr != &n->i : ptr != NULL)
			fail_msg("'%s': the field does not point to the tree's value", k->key);
		break;
	case CONFIG_C_FLOAT:
		memcpy(&f, p, sizeof(f));
		assert_non_null(n);
		assert_true(n->type == CNODE_FLOAT && f == n->f);
		break;
	case CONFIG_C_FLOAT_OR_NULL:
		memcpy(&ptr, p, sizeof(ptr));
		if (n ? n->type != CNODE_FLOAT || ptr != &n->f : ptr != NULL)
			fail_msg("'%s': the field does not point to the tree's value", k->key);
		break;
	case CONFIG_C_BOOL:
		memcpy(&b, p, sizeof(b));
		assert_non_null(n);
		assert_int_equal(b, n->b);
		break;
	case CONFIG_C_ENUM:
		memcpy(&b, p, sizeof(b));
		assert_non_null(n);
		assert_true(b >= 0 && (size_t)b < k->nr_values);
		assert_string_equal(k->values[b], n->s);
		break;
	case CONFIG_C_STRLIST:
		memcpy(&l, p, sizeof(l));
		if (!n) {
			assert_null(l.v);
			assert_int_equal(l.nr, 0);
			break;
		}
		assert_non_null(l.v);
		assert_int_equal(l.nr, n->nr);
		for (size_t j = 0; j < l.nr; j++)
			assert_ptr_equal(l.v[j], n->items[j]->s);
		assert_null(l.v[l.nr]);
		break;
	default:
		fail_msg("'%s': unexpected ctype %d", k->key, (int)k->ctype);
	}
}

static void check_all_fields(const struct config *cfg)
{
	const struct config_key *keys;
	size_t n;

	keys = config_schema(&n);
	for (size_t i = 0; i < n; i++)
		check_field(cfg, &keys[i]);
}

static void test_defaults(void **state)
{
	struct config *cfg = LOAD("model=tiny");
	const struct llmprof_config *c = config_typed(cfg);

	check_all_fields(cfg);
	/* the schema's defaults, and conf/'s where it sets one */
	assert_int_equal(c->run.mode, RUN_MODE_DEEP);
	assert_int_equal(c->run.top_n_kernels, 100);
	assert_true(c->run.coverage == 0.95);
	assert_true(c->run.timeout_s == 0);
	assert_int_equal(c->run.stage, RUN_STAGE_DECODE);
	assert_int_equal(c->run.echo, 0);
	assert_int_equal(c->pipeline.trace.enable, 1);
	assert_int_equal(c->pipeline.trace.backend, TRACE_BACKEND_AUTO);
	assert_null(c->pipeline.nsys.path);
	assert_null(c->pipeline.nsys.capture_range_end);
	assert_int_equal(c->pipeline.nsys.capture_range, NSYS_CAPTURE_RANGE_NONE);
	assert_int_equal(c->pipeline.nsys.cuda_graph_trace, NSYS_GRAPH_TRACE_NODE);
	assert_non_null(c->pipeline.nsys.extra_args.v); /* [] is not null */
	assert_int_equal(c->pipeline.nsys.extra_args.nr, 0);
	assert_null(c->pipeline.ncu.path);
	assert_null(c->pipeline.ncu.ncu_cli.nvtx.include.v); /* null: derived from run.stage */
	assert_null(c->pipeline.ncu.ncu_cli.launch_skip);
	assert_null(c->pipeline.ncu.ncu_cli.launch_count);
	assert_int_equal(c->pipeline.ncu.ncu_cli.replay_mode, NCU_REPLAY_KERNEL);
	assert_int_equal(c->pipeline.ncu.ncu_cli.kernel_name_base, NCU_NAME_BASE_DEMANGLED);
	assert_int_equal(c->pipeline.ncu.ncu_cli.clock_control, NCU_CLOCK_NONE);
	assert_int_equal(c->pipeline.ncu.ncu_cli.cache_control, NCU_CACHE_ALL);
	assert_int_equal(c->workload.kind, WORKLOAD_KIND_LLM);
	assert_string_equal(c->model.name, "tiny");
	assert_int_equal(c->model.arch, MODEL_ARCH_LLAMA);
	assert_int_equal(c->infer.prompt_len, 128);
	assert_int_equal(c->infer.max_new_tokens, 32);
	assert_int_equal(c->infer.batch_size, 1);
	assert_int_equal(c->infer.dtype, INFER_DTYPE_BF16);
	assert_int_equal(c->infer.cuda_graph, 0);
	assert_int_equal(c->stages.prefill.nr, 2);
	assert_string_equal(c->stages.prefill.v[0], "LLM@prefill");
	assert_null(c->hardware.peak_tflops);
	assert_null(c->hardware.measured_bandwidth_gbs);
	config_free(cfg);
}

static void test_overrides_and_null(void **state)
{
	struct config *cfg =
	    LOAD("model=tiny", "run.mode=light", "run.top_n_kernels=7", "run.coverage=1",
		 "run.stage=decode_step", "pipeline.nsys.path=/opt/nsys",
		 "pipeline.ncu.ncu_cli.launch_skip=5", "hardware.peak_tflops=100",
		 "pipeline.ncu.ncu_cli.set=null", "pipeline.ncu.ncu_cli.sections=null",
		 "pipeline.ncu.ncu_cli.nvtx.include=[a@LLM, 'b c']",
		 "pipeline.ncu.ncu_cli.nvtx.exclude=[]", "infer.dtype=fp32",
		 "workload.kind=command", "~stages.decode");
	const struct llmprof_config *c = config_typed(cfg);
	const struct config_ncu_cli *cli = &c->pipeline.ncu.ncu_cli;

	check_all_fields(cfg);
	assert_int_equal(c->run.mode, RUN_MODE_LIGHT);
	assert_int_equal(c->run.top_n_kernels, 7);
	assert_true(c->run.coverage == 1.0); /* an int given for a float */
	assert_int_equal(c->run.stage, RUN_STAGE_DECODE_STEP);
	assert_string_equal(run_stage_names[c->run.stage], "decode_step");
	assert_string_equal(c->pipeline.nsys.path, "/opt/nsys");
	assert_non_null(cli->launch_skip);
	assert_int_equal(*cli->launch_skip, 5);
	assert_null(cli->launch_count);
	assert_non_null(c->hardware.peak_tflops);
	assert_true(*c->hardware.peak_tflops == 100.0);
	assert_null(cli->set);
	assert_null(cli->sections.v);
	assert_int_equal(cli->sections.nr, 0);
	assert_int_equal(cli->nvtx.include.nr, 2);
	assert_string_equal(cli->nvtx.include.v[1], "b c");
	assert_non_null(cli->nvtx.exclude.v);
	assert_int_equal(cli->nvtx.exclude.nr, 0);
	assert_int_equal(c->infer.dtype, INFER_DTYPE_FP32);
	assert_int_equal(c->workload.kind, WORKLOAD_KIND_COMMAND);
	/* "~key" puts the schema default back */
	assert_int_equal(c->stages.decode.nr, 2);
	assert_string_equal(c->stages.decode.v[0], "LLM@decode_all");
	config_free(cfg);
}

/* Like redis' CONFIG sanity test: every key set to a value of its type,
 * then read back through the struct. */
static void set_value(const struct config_key *k, int variant, struct strbuf *ov)
{
	strbuf_reset(ov);
	strbuf_addf(ov, "%s=", k->key);
	if (variant == 1 && (k->flags & CONFIG_NULLABLE)) {
		strbuf_addstr(ov, "null");
		return;
	}
	switch (k->type) {
	case CONFIG_STR:
		strbuf_addstr(ov, variant ? "other" : "some-text");
		break;
	case CONFIG_INT:
		strbuf_addstr(ov, variant ? "2" : "3");
		break;
	case CONFIG_FLOAT:
		strbuf_addstr(ov, variant ? "1" : "0.5");
		break;
	case CONFIG_BOOL:
		strbuf_addstr(ov, variant ? "false" : "true");
		break;
	case CONFIG_ENUM:
		strbuf_addstr(ov, k->values[variant % k->nr_values]);
		break;
	case CONFIG_STRLIST:
		strbuf_addstr(ov, variant ? "[]" : "[x, 'y z']");
		break;
	case CONFIG_OPEN_MAP:
		strbuf_addstr(ov, "{}");
		break;
	}
}

static void test_every_key_round_trips(void **state)
{
	const struct config_key *keys;
	struct strbuf ov = STRBUF_INIT;
	size_t n;

	keys = config_schema(&n);
	for (size_t i = 0; i < n; i++) {
		size_t variants = keys[i].type == CONFIG_ENUM ? keys[i].nr_values : 2;

		for (size_t v = 0; v < variants; v++) {
			const char *one[] = {"model=tiny", NULL};
			struct config *cfg;

			set_value(&keys[i], (int)v, &ov);
			one[1] = ov.buf;
			cfg = load(2, one);
			check_field(cfg, &keys[i]);
			if (keys[i].type == CONFIG_ENUM) {
				int got;

				memcpy(&got, (const char *)config_typed(cfg) + keys[i].offset,
				       sizeof(got));
				assert_int_equal(got, (int)v);
			}
			config_free(cfg);
		}
	}
	strbuf_release(&ov);
}

/* --- binding another table (what no built-in key uses yet) --- */

struct little {
	const char *name;
	const struct cnode *extra;
	struct config_strlist tags;
	const int64_t *limit;
	int64_t count;
};

static void test_bind_other_table(void **state)
{
	static const struct config_key keys[] = {
	    {"name", CONFIG_STR, CONFIG_NULLABLE, "null", NULL, 0, 0, "a name",
	     offsetof(struct little, name), CONFIG_C_STR},
	    {"extra", CONFIG_OPEN_MAP, 0, "{}", NULL, 0, 0, "anything goes",
	     offsetof(struct little, extra), CONFIG_C_TREE},
	    {"tags", CONFIG_STRLIST, CONFIG_NULLABLE, "null", NULL, 0, 0, "some tags",
	     offsetof(struct little, tags), CONFIG_C_STRLIST},
	    {"limit", CONFIG_INT, CONFIG_NULLABLE, "null", NULL, 0, 0, "a limit",
	     offsetof(struct little, limit), CONFIG_C_INT_OR_NULL},
	    {"count", CONFIG_INT, 0, "4", NULL, 0, 0, "a count", offsetof(struct little, count),
	     CONFIG_C_INT},
	    {"unbound", CONFIG_INT, 0, "1", NULL, 0, 0, "fills nothing"},
	};
	const char *yaml = "extra: {x: [1], y: {z: w}}\ntags: [a, 2]\nlimit: 9\ncount: 5\n";
	struct strbuf err = STRBUF_INIT;
	struct cnode *t = NULL;
	struct little l;

	assert_int_equal(config_parse_yaml_buffer(yaml, strlen(yaml), "t.yaml", &t, &err), 0);
	config_schema_fill_defaults(t, keys, ARRAY_SIZE(keys));
	assert_int_equal(config_schema_validate(t, keys, ARRAY_SIZE(keys), &err), 0);
	memset(&l, 0xa5, sizeof(l));
	config_schema_bind(t, keys, ARRAY_SIZE(keys), &l);
	assert_null(l.name);
	assert_ptr_equal(l.extra, cnode_lookup(t, "extra"));
	assert_int_equal(l.extra->nr, 2);
	assert_int_equal(l.tags.nr, 2);
	assert_string_equal(l.tags.v[1], "2"); /* scalars in a list[str] are their text */
	assert_int_equal(*l.limit, 9);
	assert_int_equal(l.count, 5);
	config_schema_unbind(keys, ARRAY_SIZE(keys), &l);
	assert_null(l.tags.v);
	cnode_free(t);
	strbuf_release(&err);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_every_row_has_a_field_of_its_type),
	    cmocka_unit_test(test_rows_tile_the_struct),
	    cmocka_unit_test(test_enum_rows_name_every_value),
	    cmocka_unit_test(test_defaults),
	    cmocka_unit_test(test_overrides_and_null),
	    cmocka_unit_test(test_every_key_round_trips),
	    cmocka_unit_test(test_bind_other_table),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
