/* test-config.c: YAML reading and typing, the writer's round trip, the
 * override grammar, composition and merging, interpolation, and the schema's
 * errors, suggestions and defaults. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <cmocka.h>

#include "config/config.h"
#include "config/internal.h"
#include "core/fsutil.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "core/xalloc.h"

#define CONF LLMPROF_SOURCE_DIR "/conf"

static struct cnode *parse(const char *yaml)
{
	struct strbuf err = STRBUF_INIT;
	struct cnode *n = NULL;

	if (config_parse_yaml_buffer(yaml, strlen(yaml), "t.yaml", &n, &err))
		fail_msg("parse failed: %s\n--\n%s", err.buf, yaml);
	strbuf_release(&err);
	return n;
}

/* The error message for yaml, which must not parse. Caller frees. */
static char *parse_err(const char *yaml, size_t len)
{
	struct strbuf err = STRBUF_INIT;
	struct cnode *n = NULL;

	if (!config_parse_yaml_buffer(yaml, len, "t.yaml", &n, &err))
		fail_msg("parsed but should not: %s", yaml);
	assert_null(n);
	return strbuf_detach(&err, NULL);
}

static void assert_contains(const char *s, const char *needle)
{
	if (!strstr(s, needle))
		fail_msg("'%s' does not contain '%s'", s, needle);
}

static struct config *load(const char *dir, size_t n, const char *const *ov)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;

	if (config_load_at(&cfg, dir, n, ov, 0, &err))
		fail_msg("load failed: %s", err.buf);
	strbuf_release(&err);
	return cfg;
}

static char *load_err(const char *dir, size_t n, const char *const *ov)
{
	struct strbuf err = STRBUF_INIT;
	struct config *cfg = NULL;

	if (!config_load_at(&cfg, dir, n, ov, 0, &err))
		fail_msg("load succeeded but should not (first override '%s')", n ? ov[0] : "");
	assert_null(cfg);
	assert_null(strchr(err.buf, '\n'));
	return strbuf_detach(&err, NULL);
}

#define LOAD(...) load(CONF, ARRAY_N(__VA_ARGS__), (const char *const[]){__VA_ARGS__})
#define LOAD_ERR(...) load_err(CONF, ARRAY_N(__VA_ARGS__), (const char *const[]){__VA_ARGS__})
#define ARRAY_N(...) (sizeof((const char *const[]){__VA_ARGS__}) / sizeof(const char *))

/* --- reading YAML --- */

static void test_yaml_core_schema_typing(void **state)
{
	struct cnode *t = parse("n1: null\nn2: ~\nn3:\nn4: Null\n"
				"b1: true\nb2: False\nb3: yes\n"
				"i1: 42\ni2: -7\ni3: 0x1F\ni4: 0o17\ni5: 012\ni6: +3\n"
				"i7: 9223372036854775807\ni8: -9223372036854775808\n"
				"f1: 1.5\nf2: 1e5\nf3: .inf\nf4: -.Inf\nf5: .nan\nf6: 1.\nf7: .5\n"
				"f8: 1e-5\n"
				"s1: 'true'\ns2: \"123\"\ns3: !!str 7\ns4: 0x\ns5: 1e\ns6: 0o8\n"
				"s7: cuda:0\ns8: .\ns9: 1_000\n");
	const char *nulls[] = {"n1", "n2", "n3", "n4"};
	const char *strs[] = {"s1", "s2", "s3", "s4", "s5", "s6", "s7", "s8", "s9", "b3"};

	for (size_t i = 0; i < 4; i++)
		assert_int_equal(cnode_lookup(t, nulls[i])->type, CNODE_NULL);
	for (size_t i = 0; i < 10; i++)
		assert_int_equal(cnode_lookup(t, strs[i])->type, CNODE_STRING);
	assert_string_equal(cnode_lookup(t, "s3")->s, "7");
	assert_true(cnode_lookup(t, "b1")->b);
	assert_int_equal(cnode_lookup(t, "b2")->type, CNODE_BOOL);
	assert_false(cnode_lookup(t, "b2")->b);
	assert_int_equal(cnode_lookup(t, "i1")->i, 42);
	assert_int_equal(cnode_lookup(t, "i2")->i, -7);
	assert_int_equal(cnode_lookup(t, "i3")->i, 31);
	assert_int_equal(cnode_lookup(t, "i4")->i, 15);
	assert_int_equal(cnode_lookup(t, "i5")->i, 12); /* YAML 1.2: not octal */
	assert_int_equal(cnode_lookup(t, "i6")->i, 3);
	assert_true(cnode_lookup(t, "i7")->i == INT64_MAX);
	assert_true(cnode_lookup(t, "i8")->i == INT64_MIN);
	assert_true(cnode_lookup(t, "f1")->f == 1.5);
	assert_true(cnode_lookup(t, "f2")->f == 1e5);
	assert_true(isinf(cnode_lookup(t, "f3")->f) && cnode_lookup(t, "f3")->f > 0);
	assert_true(isinf(cnode_lookup(t, "f4")->f) && cnode_lookup(t, "f4")->f < 0);
	assert_true(isnan(cnode_lookup(t, "f5")->f));
	assert_true(cnode_lookup(t, "f6")->f == 1.0);
	assert_true(cnode_lookup(t, "f7")->f == 0.5);
	assert_true(cnode_lookup(t, "f8")->f == 1e-5);
	assert_int_equal(cnode_lookup(t, "f8")->type, CNODE_FLOAT);
	/* positions */
	assert_int_equal(cnode_lookup(t, "b1")->pos.line, 5);
	assert_int_equal(cnode_lookup(t, "b1")->pos.col, 5);
	cnode_free(t);
}

static void test_yaml_structure_and_empty(void **state)
{
	struct cnode *t =
	    parse("a:\n  b:\n    - 1\n    - [x, y]\n    - {k: v}\n  c: {}\n  d: []\n");
	struct cnode *b = cnode_lookup(t, "a.b");

	assert_int_equal(b->type, CNODE_LIST);
	assert_int_equal(b->nr, 3);
	assert_int_equal(b->items[1]->type, CNODE_LIST);
	assert_string_equal(cnode_lookup(b->items[2], "k")->s, "v");
	assert_int_equal(cnode_lookup(t, "a.c")->nr, 0);
	assert_null(cnode_lookup(t, "a.b.k"));
	assert_null(cnode_lookup(t, "a.x"));
	cnode_free(t);
	t = parse("");
	assert_int_equal(t->type, CNODE_MAP);
	assert_int_equal(t->nr, 0);
	cnode_free(t);
	t = parse("# only a comment\n---\n");
	assert_int_equal(t->type, CNODE_MAP);
	cnode_free(t);
}

static void test_yaml_errors_have_positions(void **state)
{
	struct {
		const char *yaml;
		const char *want;
	} cases[] = {
	    {"a: 1\nb: [1, 2\n", "t.yaml:3:1: "},
	    {"a: 1\n  b: 2\n", "t.yaml:2:4: mapping values are not allowed"},
	    /* the first key's own position, not its value's */
	    {"a: 1\nb: 2\na: 3\n", "t.yaml:3:1: duplicate key 'a' (first at t.yaml:1:1)"},
	    {"x: 0\nrun:\n  mode: deep\nrun:\n  y: 1\n",
	     "t.yaml:4:1: duplicate key 'run' (first at t.yaml:2:1)"},
	    {"x:\n  a: &anc 1\n", "t.yaml:2:6: anchors and aliases are not supported"},
	    {"a: 1\nb: *x\n", "t.yaml:2:4: "},
	    {"a: 1\n---\nb: 2\n", "more than one YAML document"},
	    {"- a\n- b\n", "t.yaml:1:1: the top level must be a mapping"},
	    {"a: !!int 3\n", "t.yaml:1:4: tag 'tag:yaml.org,2002:int' is not supported"},
	    {"a: \"x\\0y\"\n", "t.yaml:1:4: NUL character in a string"},
	    {"? [a]\n: 1\n", "t.yaml:1:3: keys must be scalars"},
	    {"a: 99999999999999999999\n", "t.yaml:1:4: integer '99999999999999999999' does "
					  "not fit in 64 bits"},
	    {"a: 1\nb: \"ok\"\nc: \xff\n", "t.yaml:3:4: invalid"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = parse_err(cases[i].yaml, strlen(cases[i].yaml));

		assert_contains(e, cases[i].want);
		free(e);
	}
}

static void test_yaml_nesting_limit(void **state)
{
	struct strbuf sb = STRBUF_INIT;
	char *e;

	strbuf_addstr(&sb, "a: ");
	for (int i = 0; i < 200; i++)
		strbuf_addch(&sb, '[');
	for (int i = 0; i < 200; i++)
		strbuf_addch(&sb, ']');
	e = parse_err(sb.buf, sb.len);
	assert_contains(e, "nesting deeper than 64 levels");
	free(e);
	strbuf_release(&sb);
}

/* --- writing YAML --- */

static struct cnode *str_node(const char *key, const char *s)
{
	struct cnode_pos pos = {"test", 0, 0};
	struct cnode *n = cnode_new(CNODE_STRING, key, pos);

	n->s = xstrdup(s);
	return n;
}

static void roundtrip(const struct cnode *t)
{
	struct strbuf y = STRBUF_INIT, y2 = STRBUF_INIT;
	struct cnode *back;

	cnode_to_yaml(t, &y);
	back = parse(y.buf);
	if (!cnode_equal(t, back))
		fail_msg("round trip changed the tree:\n%s", y.buf);
	cnode_to_yaml(back, &y2);
	assert_string_equal(y.buf, y2.buf); /* deterministic */
	cnode_free(back);
	strbuf_release(&y);
	strbuf_release(&y2);
}

static void test_yaml_roundtrip_nasty_strings(void **state)
{
	static const char *const nasty[] = {
	    "",
	    " lead",
	    "trail ",
	    "true",
	    "False",
	    "123",
	    "-4",
	    "0x1F",
	    "0o7",
	    "1e5",
	    "1.",
	    ".5",
	    ".inf",
	    "-.inf",
	    ".NaN",
	    "null",
	    "~",
	    "Null",
	    "a: b",
	    "a:",
	    ":a",
	    "#c",
	    "x #y",
	    "x# y",
	    "- x",
	    "-x",
	    "-",
	    "?",
	    "? x",
	    "[a]",
	    "{a}",
	    "a,b",
	    "*a",
	    "&a",
	    "!a",
	    "%a",
	    "@a",
	    "`a",
	    "|",
	    ">",
	    "'",
	    "\"",
	    "'q'",
	    "\"q\"",
	    "line\nbreak",
	    "\ttab",
	    "cr\r",
	    "\x01\x02\x1b\x7f",
	    "back\\slash",
	    "uni é ü 日本 😀",
	    "\xc2\x85nel",
	    "\xc2\x9f"
	    "c1",
	    "\xef\xbb\xbf"
	    "bom",
	    "\xe2\x80\xa8ls",
	    "\xe2\x80\xa9ps",
	    "a\xc2\xa0",
	    "...",
	    "---",
	    "... x",
	    "--- x",
	    "a\"b'c",
	    "${x}",
	    "=",
	    "a=b",
	    "\xef\xbf\xbe",
	    "key: {x}",
	    "  ",
	    "a  b",
	    "cuda:0",
	    "regex:.*gemm.*",
	    "decode*",
	    "LLM@prefill",
	};
	struct cnode_pos pos = {"test", 0, 0};
	struct cnode *root = cnode_new(CNODE_MAP, NULL, pos);
	struct cnode *list = cnode_new(CNODE_LIST, "list", pos);
	struct strbuf longkey = STRBUF_INIT;

	for (size_t i = 0; i < sizeof(nasty) / sizeof(nasty[0]); i++) {
		char key[32];

		snprintf(key, sizeof(key), "k%zu", i);
		cnode_append(root, str_node(key, nasty[i]));
		cnode_append(list, str_node(NULL, nasty[i]));
		/* every nasty string as a key too */
		cnode_append(root, str_node(nasty[i], "v"));
	}
	cnode_append(root, list);
	for (int i = 0; i < 1500; i++)
		strbuf_addch(&longkey, 'k');
	cnode_append(root, str_node(longkey.buf, "long key"));
	roundtrip(root);
	cnode_free(root);
	strbuf_release(&longkey);
}

static void test_yaml_roundtrip_numbers_and_shapes(void **state)
{
	struct cnode *t = parse("i: [0, -1, 9223372036854775807, -9223372036854775808]\n"
				"f: [0.1, -0.0, 0.0, 1e300, 5e-324, .inf, -.inf, .nan, 500000.0, "
				"1e-5, 123456789.125, 2.5e-7, 1.0]\n"
				"b: [true, false, null]\n"
				"nested: [[], {}, [[a]], {x: [1, {y: z}]}, [{p: 1, q: [2]}]]\n"
				"m: {a: {b: {c: {}}}, e: []}\n");
	struct strbuf y = STRBUF_INIT;

	roundtrip(t);
	cnode_to_yaml(t, &y);
	/* floats stay floats, readable where it is exact */
	assert_contains(y.buf, "- 500000.0\n");
	assert_contains(y.buf, "- 1.0\n");
	assert_contains(y.buf, "- -0.0\n");
	assert_contains(y.buf, "- .nan\n");
	strbuf_release(&y);
	cnode_free(t);
}

static void test_yaml_writer_non_utf8(void **state)
{
	struct cnode_pos pos = {"test", 0, 0};
	struct cnode *root = cnode_new(CNODE_MAP, NULL, pos);
	struct strbuf y = STRBUF_INIT;
	struct cnode *back;

	cnode_append(root, str_node("bad", "a\xff\xfe"
					   "b\xc3"));
	cnode_to_yaml(root, &y);
	assert_string_equal(y.buf, "bad: \"a\\xff\\xfeb\\xc3\"\n");
	back = parse(y.buf); /* still valid YAML; bytes come back as U+00xx */
	assert_string_equal(cnode_lookup(back, "bad")->s, "a\xc3\xbf\xc3\xbe"
							  "b\xc3\x83");
	cnode_free(back);
	cnode_free(root);
	strbuf_release(&y);
}

/* --- overrides --- */

static struct config_override parse_ov(const char *text)
{
	struct config_override o = CONFIG_OVERRIDE_INIT;
	struct strbuf err = STRBUF_INIT;

	if (config_override_parse(text, "ov", &o, &err))
		fail_msg("override '%s' failed: %s", text, err.buf);
	strbuf_release(&err);
	return o;
}

static void test_override_forms(void **state)
{
	struct config_override o = parse_ov("a.b=1");

	assert_int_equal(o.op, CONFIG_OVERRIDE_SET);
	assert_string_equal(o.key, "a.b");
	assert_null(o.package);
	assert_int_equal(o.value->type, CNODE_INT);
	config_override_release(&o);
	o = parse_ov("+a.c=x");
	assert_int_equal(o.op, CONFIG_OVERRIDE_ADD);
	assert_string_equal(o.value->s, "x");
	config_override_release(&o);
	o = parse_ov("++a.c=null");
	assert_int_equal(o.op, CONFIG_OVERRIDE_FORCE);
	assert_int_equal(o.value->type, CNODE_NULL);
	config_override_release(&o);
	o = parse_ov("~a.d");
	assert_int_equal(o.op, CONFIG_OVERRIDE_DELETE);
	assert_null(o.value);
	config_override_release(&o);
	o = parse_ov("~a.d=3");
	assert_int_equal(o.op, CONFIG_OVERRIDE_DELETE);
	assert_int_equal(o.value->i, 3);
	config_override_release(&o);
	o = parse_ov("profiling/ncu@pipeline.ncu=ncu.high");
	assert_string_equal(o.key, "profiling/ncu");
	assert_string_equal(o.package, "pipeline.ncu");
	assert_string_equal(o.value->s, "ncu.high");
	config_override_release(&o);
}

static void test_override_values(void **state)
{
	struct config_override o = parse_ov("k=[a, b ,\"c,d\", 'e''f', 1, 2.5, true, null, "
					    "[x], {p: q}, \"\\t\\u00e9\\x41\"]");
	struct cnode *v = o.value;

	assert_int_equal(v->type, CNODE_LIST);
	assert_int_equal(v->nr, 11);
	assert_string_equal(v->items[0]->s, "a");
	assert_string_equal(v->items[1]->s, "b");
	assert_string_equal(v->items[2]->s, "c,d");
	assert_string_equal(v->items[3]->s, "e'f");
	assert_int_equal(v->items[4]->type, CNODE_INT);
	assert_int_equal(v->items[5]->type, CNODE_FLOAT);
	assert_int_equal(v->items[6]->type, CNODE_BOOL);
	assert_int_equal(v->items[7]->type, CNODE_NULL);
	assert_int_equal(v->items[8]->type, CNODE_LIST);
	assert_string_equal(cnode_map_get(v->items[9], "p")->s, "q");
	assert_string_equal(v->items[10]->s, "\t\xc3\xa9"
					     "A");
	config_override_release(&o);

	o = parse_ov("k=");
	assert_int_equal(o.value->type, CNODE_STRING); /* Hydra: empty string */
	assert_string_equal(o.value->s, "");
	config_override_release(&o);
	o = parse_ov("k=  spaced out  ");
	assert_string_equal(o.value->s, "spaced out");
	config_override_release(&o);
	o = parse_ov("k='123'");
	assert_int_equal(o.value->type, CNODE_STRING);
	config_override_release(&o);
	o = parse_ov("k=a=b");
	assert_string_equal(o.value->s, "a=b");
	config_override_release(&o);
	o = parse_ov("k=*gemm*");
	assert_string_equal(o.value->s, "*gemm*");
	config_override_release(&o);
	o = parse_ov("k=[]");
	assert_int_equal(o.value->nr, 0);
	config_override_release(&o);
	o = parse_ov("k=-.inf");
	assert_true(isinf(o.value->f));
	config_override_release(&o);
}

static void test_override_errors(void **state)
{
	struct {
		const char *text, *want;
	} cases[] = {
	    {"a.b", "expected KEY=VALUE"},
	    {"=1", "is not a valid key"},
	    {"a..b=1", "is not a valid key"},
	    {"a b=1", "is not a valid key"},
	    {"a@=1", "not a valid package"},
	    {"k=[a, b", "expected ',' or ']' at column 8"},
	    {"k=[a,,b]", "expected a value at column 6"},
	    {"k='abc", "unterminated quoted string"},
	    {"k=\"a\\q\"", "unknown escape"},
	    {"k=\"\\x0\"", "bad hex escape"},
	    {"k=\"\\u0000\"", "escape is not a character"},
	    {"k='a' b", "unexpected text after the value"},
	    {"k=[a] x", "unexpected text after the value"},
	    {"k={a 1}", "expected ':' after a map key"},
	    {"k={a: 1, a: 2}", "duplicate key 'a' at column 10 (first at column 4)"},
	    {"k={a: {b: 1},  a: 2}", "duplicate key 'a' at column 16 (first at column 4)"},
	    {"k=\xff", "not valid UTF-8 at byte 3"},
	    {"k=99999999999999999999", "does not fit in 64 bits"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct config_override o = CONFIG_OVERRIDE_INIT;
		struct strbuf err = STRBUF_INIT;

		if (!config_override_parse(cases[i].text, "ov", &o, &err))
			fail_msg("'%s' parsed", cases[i].text);
		assert_contains(err.buf, cases[i].want);
		assert_true(starts_with(err.buf, "ov"));
		strbuf_release(&err);
	}
}

/* --- composition and overrides on the real conf/ --- */

static void test_load_defaults_match_schema(void **state)
{
	struct config *cfg = LOAD("model=auto");
	const struct config_key *keys;
	size_t n;

	keys = config_schema(&n);
	assert_true(n > 60);
	for (size_t i = 0; i < n; i++) {
		const struct config_key *k = &keys[i];
		const struct cnode *got = config_get(cfg, k->key);
		struct config_override o = CONFIG_OVERRIDE_INIT;
		struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;

		if (!got)
			fail_msg("schema key '%s' missing from the loaded config", k->key);
		/* conf/ must ship exactly the schema's defaults (model comes from
		 * its preset; the ncu description is preset text). */
		if (!k->def || starts_with(k->key, "model.") ||
		    !strcmp(k->key, "pipeline.ncu.description"))
			continue;
		if (!cnode_lookup(config_root(cfg), k->key))
			fail_msg("'%s' missing", k->key);
		strbuf_addf(&text, "x=%s", k->def);
		assert_int_equal(config_override_parse(text.buf, "def", &o, &err), 0);
		if (k->type == CONFIG_STR && o.value->type != CNODE_NULL) {
			assert_string_equal(got->s, k->def);
		} else {
			if (k->type == CONFIG_FLOAT && o.value->type == CNODE_INT) {
				o.value->f = (double)o.value->i;
				o.value->type = CNODE_FLOAT;
			}
			o.value->key = xstrdup(got->key);
			if (!cnode_equal(got, o.value))
				fail_msg("'%s': conf/ and the schema default '%s' differ", k->key,
					 k->def);
		}
		/* ...and no default is in a conf file only by accident */
		if (got->pos.line == 0)
			fail_msg("'%s' is not set in any conf/ file", k->key);
		config_override_release(&o);
		strbuf_release(&text);
		strbuf_release(&err);
	}
	config_free(cfg);
}

static void test_load_getters(void **state)
{
	struct config *cfg =
	    LOAD("model=tiny", "run.coverage=1", "pipeline.ncu.ncu_cli.launch_skip=5");

	assert_string_equal(config_get_string(cfg, "device"), "cuda:0");
	assert_null(config_get_string(cfg, "pipeline.nsys.path"));
	assert_int_equal(config_get_int(cfg, "model.hidden_size", -1), 128);
	assert_int_equal(config_get_int(cfg, "model.intermediate_size", -1), 352);
	assert_int_equal(config_get_int(cfg, "pipeline.ncu.ncu_cli.launch_skip", -1), 5);
	assert_int_equal(config_get_int(cfg, "pipeline.ncu.ncu_cli.launch_count", -1), -1);
	assert_true(config_get_double(cfg, "run.coverage", 0) == 1.0);
	assert_int_equal(config_get(cfg, "run.coverage")->type, CNODE_FLOAT); /* int -> float */
	assert_true(config_get_double(cfg, "model.rms_norm_eps", 0) == 1e-5);
	assert_true(config_get_double(cfg, "model.rope_theta", 0) == 10000.0);
	assert_int_equal(config_get_bool(cfg, "run.echo", -1), 0);
	assert_int_equal(config_get_bool(cfg, "nope.nope", 7), 7);
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.sections"), 3);
	assert_string_equal(config_list_item(cfg, "pipeline.ncu.ncu_cli.sections", 2),
			    "LaunchStats");
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.nvtx.include"), 0);
	assert_string_equal(config_get_string(cfg, "model.name"), "tiny");
	config_free(cfg);
}

static void test_load_mounted_group_and_key_order(void **state)
{
	/* The key override is listed first, but group overrides apply first. */
	struct config *cfg =
	    LOAD("pipeline.ncu.ncu_cli.replay_mode=range", "profiling/ncu@pipeline.ncu=ncu.high");

	assert_string_equal(config_get_string(cfg, "pipeline.ncu.ncu_cli.replay_mode"), "range");
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.sections"), 9);
	assert_string_equal(config_list_item(cfg, "pipeline.ncu.ncu_cli.sections", 8),
			    "InstructionStats");
	assert_contains(config_get_string(cfg, "pipeline.ncu.description"), "High-coverage");
	config_free(cfg);
	/* group without its package finds the one mounted entry */
	cfg = LOAD("profiling/ncu=ncu.memory");
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.metrics"), 0);
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.sections"), 7);
	config_free(cfg);
	/* ncu.fast: what one replay pass holds (bench/ncu-passes.sh on an
	 * H200): LaunchStats, the duration, DRAM bytes and the bf16 tensor
	 * counter; a SOL percentage, a SASS counter or the fp16 tensor
	 * counter would each bring a second pass and ncu's memory restore */
	cfg = LOAD("profiling/ncu=ncu.fast");
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.sections"), 1);
	assert_string_equal(config_list_item(cfg, "pipeline.ncu.ncu_cli.sections", 0),
			    "LaunchStats");
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.metrics"), 4);
	for (size_t i = 0; i < 4; i++) {
		const char *mt = config_list_item(cfg, "pipeline.ncu.ncu_cli.metrics", i);

		assert_null(strstr(mt, "pct_of_peak"));
		assert_null(strstr(mt, "sm__sass_"));
		assert_null(strstr(mt, "tensor_src_fp16"));
	}
	assert_null(config_get_string(cfg, "pipeline.ncu.ncu_cli.set"));
	config_free(cfg);
	/* later key overrides win */
	cfg = LOAD("run.top_n_kernels=5", "run.top_n_kernels=7", "workload=dummy");
	assert_int_equal(config_get_int(cfg, "run.top_n_kernels", 0), 7);
	assert_string_equal(config_get_string(cfg, "workload.kind"), "dummy");
	config_free(cfg);
}

static void test_load_lists_replace(void **state)
{
	struct config *cfg = LOAD("stages.prefill=[x]", "workload.args=[a, \"b c\", 3, 0x10]",
				  "pipeline.ncu.ncu_cli.nvtx.include=[decode*]", "model.name=0x10");

	assert_int_equal(config_list_len(cfg, "stages.prefill"), 1);
	assert_string_equal(config_list_item(cfg, "stages.prefill", 0), "x");
	assert_int_equal(config_list_len(cfg, "workload.args"), 4);
	assert_string_equal(config_list_item(cfg, "workload.args", 1), "b c");
	assert_string_equal(config_list_item(cfg, "workload.args", 2), "3");
	assert_string_equal(config_list_item(cfg, "workload.args", 3), "0x10"); /* as written */
	assert_string_equal(config_list_item(cfg, "pipeline.ncu.ncu_cli.nvtx.include", 0),
			    "decode*");
	assert_string_equal(config_get_string(cfg, "model.name"), "0x10");
	config_free(cfg);
}

static void test_load_add_force_remove(void **state)
{
	struct config *cfg;
	char *e;

	/* ~ on a schema key resets it to its default */
	cfg = LOAD("run.echo=true", "~run.echo");
	assert_int_equal(config_get_bool(cfg, "run.echo", -1), 0);
	config_free(cfg);
	cfg = LOAD("run.top_n_kernels=9", "~run.top_n_kernels=9", "++run.top_n_kernels=11");
	assert_int_equal(config_get_int(cfg, "run.top_n_kernels", 0), 11);
	config_free(cfg);
	cfg = LOAD("~run.echo", "+run.echo=true");
	assert_int_equal(config_get_bool(cfg, "run.echo", -1), 1);
	config_free(cfg);
	e = LOAD_ERR("~run.top_n_kernels=31");
	assert_string_equal(e, "override '~run.top_n_kernels=31': not removing "
			       "'run.top_n_kernels': its value is '100'");
	free(e);
	e = LOAD_ERR("+run.echo=true");
	assert_contains(e, "config key 'run.echo' already exists");
	free(e);
	e = LOAD_ERR("+run.extra=1");
	assert_string_equal(e, "unknown config key 'run.extra' (see 'llmprof config keys') "
			       "(override '+run.extra=1')");
	free(e);
	e = LOAD_ERR("++run.mode.x=1");
	assert_contains(e, "'run.mode' is not a mapping");
	free(e);
	e = LOAD_ERR("~run.nothing");
	assert_contains(e, "unknown config key 'run.nothing'");
	free(e);
	/* removing a key that has no default leaves it missing */
	e = LOAD_ERR("~model.name");
	assert_contains(e, "config key 'model.name' is required");
	free(e);
}

static void test_load_group_force_and_null(void **state)
{
	struct config *cfg = LOAD("++workload=command", "++profiling/ncu@pipeline.ncu=ncu.compute");
	char *e;

	assert_string_equal(config_get_string(cfg, "workload.kind"), "command");
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.sections"), 7);
	config_free(cfg);
	/* dropping the nsys preset leaves its keys at the schema defaults */
	cfg = LOAD("profiling/nsys=null", "~profiling/ncu=ncu.default");
	assert_string_equal(config_get_string(cfg, "pipeline.nsys.trace"), "cuda,nvtx,osrt");
	assert_int_equal(config_get(cfg, "pipeline.nsys.trace")->pos.line, 0);
	assert_null(config_get_string(cfg, "pipeline.ncu.description"));
	config_free(cfg);
	/* every workload key has a default, so no workload file is fine */
	cfg = LOAD("workload=null");
	assert_string_equal(config_get_string(cfg, "workload.kind"), "llm");
	config_free(cfg);
	e = LOAD_ERR("model=null");
	assert_contains(e, "config key 'model.name' is required");
	free(e);
}

static void test_load_group_errors(void **state)
{
	char *e;

	e = LOAD_ERR("model=tny");
	assert_string_equal(e, "config group 'model' has no option 'tny'; did you mean 'tiny'? "
			       "(options: auto, llama-3.1-8b, llama-3.2-1b, mistral-7b, "
			       "qwen2.5-7b, tiny) (override 'model=tny')");
	free(e);
	e = LOAD_ERR("profiling/ncu@pipeline.nsys=ncu.high");
	assert_contains(e, "the defaults list has no 'profiling/ncu@pipeline.nsys' entry");
	free(e);
	e = LOAD_ERR("+workload=dummy");
	assert_contains(e, "the defaults list already has 'workload'");
	free(e);
	e = LOAD_ERR("model=[a]");
	assert_contains(e, "a config group takes an option name");
	free(e);
	e = LOAD_ERR("model=../config");
	assert_contains(e, "'../config' is not a valid option name");
	free(e);
	e = LOAD_ERR("nogroup/x=1");
	assert_contains(e, "no config group 'nogroup/x'");
	free(e);
	e = LOAD_ERR("~workload=dummy");
	assert_contains(e, "'workload' is 'llm', not 'dummy'");
	free(e);
	/* removing the model entry leaves the required model keys unset */
	e = LOAD_ERR("~model");
	assert_contains(e, "config key 'model.name' is required");
	free(e);
	/* a second mount of a group lands where the schema has no keys */
	e = LOAD_ERR("+profiling/ncu@extra=ncu.high");
	assert_contains(e, "unknown config key 'extra'");
	assert_contains(e, "ncu.high.yaml:4:1)");
	free(e);
}

static void test_load_schema_errors(void **state)
{
	struct {
		const char *ov, *want;
	} cases[] = {
	    {"pipeline.ncu.ncu_cli.replay_mod=range",
	     "unknown config key 'pipeline.ncu.ncu_cli.replay_mod'; did you mean "
	     "'pipeline.ncu.ncu_cli.replay_mode'? (override "
	     "'pipeline.ncu.ncu_cli.replay_mod=range')"},
	    {"run.top_n_kernels=abc", "config key 'run.top_n_kernels' expects an integer, got "
				      "'abc' (override 'run.top_n_kernels=abc')"},
	    {"run.top_n_kernels=0", "config key 'run.top_n_kernels' must be in [1, 100000], "
				    "got '0' (override 'run.top_n_kernels=0')"},
	    {"run.top_n_kernels=2.0", "expects an integer, got '2.0'"},
	    {"run.coverage=0", "config key 'run.coverage' must be in (0, 1], got '0'"},
	    {"run.coverage=.nan", "must be in (0, 1], got '.nan'"},
	    {"run.timeout_s=-1", "must be in [0, 10000000], got '-1'"},
	    {"run.timeout_s=1e300", "must be in [0, 10000000], got '1e300'"},
	    {"run.timeout_s=.inf", "must be in [0, 10000000], got '.inf'"},
	    {"run.mode=fast", "config key 'run.mode' expects one of deep|light, got 'fast'"},
	    /* checked at load, not when the select step runs: a range name of
	     * stages.* was never a stage kernels can be attributed to */
	    {"run.stage=bogus", "config key 'run.stage' expects one of "
				"prefill|decode|decode_step|all, got 'bogus' (override "
				"'run.stage=bogus')"},
	    {"run.stage=decode_all", "expects one of prefill|decode|decode_step|all, got "
				     "'decode_all'"},
	    {"run.echo=yes", "config key 'run.echo' expects true or false, got 'yes'"},
	    {"run.echo=null", "expects true or false (it cannot be null), got 'null'"},
	    {"stages.prefill=prefill", "expects a list of strings, e.g. [a, b], got 'prefill'"},
	    {"stages.prefill=[a, [b]]", "expects a list of strings; an item, got '[b]'"},
	    {"device=[a]", "config key 'device' expects a string, got '[a]'"},
	    {"run=3", "config key 'run' is a section (a mapping of keys), got '3'"},
	    {"pipeline.ncu.ncu_cli.launch_count=0", "must be in >= 1, got '0'"},
	    {"run.echo=1", "expects true or false, got '1'"},
	    {"model.rope_theta=x", "config key 'model.rope_theta' expects a number, got 'x'"},
	    {"pipeline.ncu.ncu_cli.nvtx.includ=[a]",
	     "did you mean 'pipeline.ncu.ncu_cli.nvtx.include'?"},
	    {"pipeline.ncu.replay_mode=range", "did you mean 'pipeline.ncu.ncu_cli.replay_mode'?"},
	    {"run.top_n_kernel=3", "did you mean 'run.top_n_kernels'?"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = LOAD_ERR(cases[i].ov);

		assert_contains(e, cases[i].want);
		free(e);
	}
}

static void test_load_errors_stay_on_one_line(void **state)
{
	char *e = LOAD_ERR("run.mode=\"a\\nb\"");

	assert_string_equal(e, "config key 'run.mode' expects one of deep|light, got 'a\\nb' "
			       "(override 'run.mode=\"a\\nb\"')");
	free(e);
	e = LOAD_ERR("run.mode=\x01");
	assert_contains(e, "got '\\x01' (override 'run.mode=\\x01')");
	free(e);
}

static void test_load_ints_accepted_as_floats(void **state)
{
	struct config *cfg = LOAD("hardware.peak_tflops=989", "run.timeout_s=2.5");

	assert_true(config_get_double(cfg, "hardware.peak_tflops", 0) == 989.0);
	assert_int_equal(config_get(cfg, "hardware.peak_tflops")->type, CNODE_FLOAT);
	assert_true(config_get_double(cfg, "run.timeout_s", 0) == 2.5);
	config_free(cfg);
}

/* --- composition on a private conf dir --- */

static char tmpdir[] = "/tmp/llmprof-test-config-XXXXXX";

static void write_conf(const char *rel, const char *text)
{
	struct strbuf path = STRBUF_INIT, err = STRBUF_INIT;
	char *slash;

	path_join(&path, tmpdir, rel);
	slash = strrchr(path.buf, '/');
	*slash = '\0';
	assert_int_equal(mkdir_p(path.buf, &err), 0);
	*slash = '/';
	assert_int_equal(write_file_atomic(path.buf, text, strlen(text), &err), 0);
	strbuf_release(&path);
	strbuf_release(&err);
}

#define MODEL_KEYS                                                                                 \
	"arch: llama\nhidden_size: 8\nintermediate_size: 8\nnum_layers: 1\nnum_heads: 1\n"         \
	"num_kv_heads: 1\nhead_dim: 8\nvocab_size: 8\nmax_position: 8\nrope_theta: 1.0\n"          \
	"rms_norm_eps: 0.1\n"

static int setup_tmp_conf(void **state)
{
	if (!mkdtemp(tmpdir))
		return -1;
	write_conf("model/m1.yaml", "name: m1\n" MODEL_KEYS);
	write_conf("model/m2.yaml", "name: m2\n" MODEL_KEYS "seed: 7\n");
	write_conf("profiling/ncu/p1.yaml", "enable: false\nncu_cli:\n  replay_mode: kernel\n"
					    "  sections: [A, B, C]\n  set: full\n");
	write_conf("profiling/ncu/p2.yaml", "ncu_cli:\n  sections: [Z]\n");
	write_conf("profiling/ncu/bad.yaml", "ncu_cli:\n  sections: [Z\n");
	write_conf("profiling/ncu/nested.yaml", "defaults:\n  - x: y\n");
	write_conf("extra/p2.yaml", "ncu_cli:\n  sections: [Z]\n");
	return 0;
}

static int teardown_tmp_conf(void **state)
{
	struct strbuf cmd = STRBUF_INIT;
	int rc;

	strbuf_addf(&cmd, "rm -rf '%s'", tmpdir);
	rc = system(cmd.buf);
	strbuf_release(&cmd);
	return rc;
}

static void test_compose_merge_and_self(void **state)
{
	struct config *cfg;
	char *e;

	/* _self_ last: the primary's keys win over the preset's; maps merge,
	 * lists replace */
	write_conf("config.yaml", "defaults:\n  - profiling/ncu@pipeline.ncu: p1\n  - model: m1\n"
				  "  - _self_\n"
				  "pipeline:\n  ncu:\n    ncu_cli:\n      replay_mode: range\n"
				  "      sections: [S]\nrun:\n  top_n_kernels: 3\n");
	cfg = load(tmpdir, 0, NULL);
	assert_string_equal(config_get_string(cfg, "pipeline.ncu.ncu_cli.replay_mode"), "range");
	assert_string_equal(config_get_string(cfg, "pipeline.ncu.ncu_cli.set"), "full");
	assert_int_equal(config_get_bool(cfg, "pipeline.ncu.enable", -1), 0);
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.sections"), 1);
	assert_int_equal(config_get_int(cfg, "run.top_n_kernels", 0), 3);
	/* keys no file sets come from the schema */
	assert_int_equal(config_get_int(cfg, "infer.prompt_len", 0), 128);
	assert_int_equal(config_get(cfg, "infer.prompt_len")->pos.line, 0);
	config_free(cfg);

	/* _self_ first: the presets win */
	write_conf("config.yaml", "defaults:\n  - _self_\n  - profiling/ncu@pipeline.ncu: p1\n"
				  "  - model: m1\n"
				  "pipeline:\n  ncu:\n    ncu_cli:\n      replay_mode: range\n"
				  "      sections: [S]\n");
	cfg = load(tmpdir, 0, NULL);
	assert_string_equal(config_get_string(cfg, "pipeline.ncu.ncu_cli.replay_mode"), "kernel");
	assert_int_equal(config_list_len(cfg, "pipeline.ncu.ncu_cli.sections"), 3);
	config_free(cfg);

	/* a second mount added on the command line comes after everything */
	cfg = load(tmpdir, 2, (const char *const[]){"+extra@pipeline.ncu=p2", "model=m2"});
	assert_string_equal(config_list_item(cfg, "pipeline.ncu.ncu_cli.sections", 0), "Z");
	assert_string_equal(config_get_string(cfg, "pipeline.ncu.ncu_cli.set"), "full");
	assert_int_equal(config_get_int(cfg, "model.seed", 0), 7);
	config_free(cfg);

	/* no _self_: the primary comes last */
	write_conf("config.yaml", "defaults:\n  - profiling/ncu@pipeline.ncu: p1\n  - model: m1\n"
				  "pipeline:\n  ncu:\n    ncu_cli:\n      set: mine\n");
	cfg = load(tmpdir, 0, NULL);
	assert_string_equal(config_get_string(cfg, "pipeline.ncu.ncu_cli.set"), "mine");
	config_free(cfg);

	/* errors in group files carry the file's position */
	e = load_err(tmpdir, 1, (const char *const[]){"profiling/ncu=bad"});
	assert_contains(e, "profiling/ncu/bad.yaml:3:1: did not find expected ',' or ']'");
	free(e);
	e = load_err(tmpdir, 1, (const char *const[]){"profiling/ncu=nested"});
	assert_contains(e, "defaults lists are only read from config.yaml (");
	assert_contains(e, "nested.yaml:2:3)");
	free(e);
	write_conf("config.yaml", "defaults:\n  - model: m1\n  - [x]\n");
	e = load_err(tmpdir, 0, NULL);
	assert_contains(e, "defaults list entries are 'group: option'");
	assert_contains(e, "config.yaml:3:5)");
	free(e);
	write_conf("config.yaml", "defaults:\n  - model: m1\n  - ../model@x..y: m1\n");
	e = load_err(tmpdir, 0, NULL);
	assert_contains(e, "defaults list: '../model@x..y' is not 'group' or 'group@package' (");
	assert_contains(e, "config.yaml:3:5)");
	free(e);
	/* a group listed twice would swallow a command-line 'model=' (the
	 * override replaced the first entry, the second won): an error
	 * naming both positions, with or without an override */
	write_conf("config.yaml", "defaults:\n  - model: m1\n  - _self_\n  - model: m2\n");
	for (int ov = 0; ov < 2; ov++) {
		e = load_err(tmpdir, ov, (const char *const[]){"model=m1"});
		assert_contains(e, "defaults list: 'model' is listed twice (first at ");
		assert_contains(e, "config.yaml:2:5); keep one entry and override it with "
				   "'group=option' (");
		assert_contains(e, "config.yaml:4:5)");
		free(e);
	}
	/* the same group at two packages is two entries: composed (and the
	 * second then fails the schema, not the defaults list) */
	write_conf("config.yaml", "defaults:\n  - model: m1\n  - profiling/ncu@pipeline.ncu: p1\n"
				  "  - profiling/ncu@pipeline.nsys: p1\n");
	e = load_err(tmpdir, 0, NULL);
	assert_contains(e, "unknown config key 'pipeline.nsys.ncu_cli'");
	free(e);
	write_conf("config.yaml", "defaults:\n  - model: m1\n  - profiling/ncu@a.b.c: p2\n");
	e = load_err(tmpdir, 0, NULL);
	assert_contains(e, "unknown config key 'a'");
	free(e);
	write_conf("config.yaml", "defaults:\n  - model: m9\n");
	e = load_err(tmpdir, 0, NULL);
	assert_contains(e, "config group 'model' has no option 'm9'; did you mean 'm1'? "
			   "(options: m1, m2) (");
	assert_contains(e, "config.yaml:2:5)");
	free(e);
	write_conf("config.yaml", "defaults:\n  - model: m1\nrun:\n  top_n_kernels: lots\n");
	e = load_err(tmpdir, 0, NULL);
	assert_contains(e, "config key 'run.top_n_kernels' expects an integer, got 'lots' (");
	assert_contains(e, "/config.yaml:4:18)");
	free(e);
}

/* --- interpolation --- */

static void resolve_ok(struct cnode *t)
{
	struct strbuf err = STRBUF_INIT;

	if (config_resolve(t, 1700000000, &err))
		fail_msg("resolve failed: %s", err.buf);
	strbuf_release(&err);
}

static char *resolve_err(const char *yaml)
{
	struct cnode *t = parse(yaml);
	struct strbuf err = STRBUF_INIT;

	if (!config_resolve(t, 0, &err))
		fail_msg("resolved but should not: %s", yaml);
	cnode_free(t);
	return strbuf_detach(&err, NULL);
}

static void test_interpolation(void **state)
{
	struct cnode *t = parse("a: {n: 3, f: 1.5, l: [x, y], m: {k: v}, s: hi, z: null}\n"
				"whole_n: ${a.n}\nwhole_l: ${a.l}\nwhole_m: ${a.m}\n"
				"inner: \"n=${a.n} f=${a.f} s=${a.s} z=${a.z} b=${b}\"\n"
				"b: ${c}\nc: ${a.s}-c\n"
				"t: run-${now:%Y%m%d-%H%M%S}\n"
				"list: [\"${a.n}\", \"x${a.s}\"]\n");

	resolve_ok(t);
	assert_int_equal(cnode_lookup(t, "whole_n")->type, CNODE_INT);
	assert_int_equal(cnode_lookup(t, "whole_n")->i, 3);
	assert_int_equal(cnode_lookup(t, "whole_n")->pos.line, 2);
	assert_int_equal(cnode_lookup(t, "whole_l")->type, CNODE_LIST);
	assert_string_equal(cnode_lookup(t, "whole_m.k")->s, "v");
	assert_string_equal(cnode_lookup(t, "inner")->s, "n=3 f=1.5 s=hi z=null b=hi-c");
	assert_string_equal(cnode_lookup(t, "b")->s, "hi-c");
	/* 1700000000 = 2023-11-14 22:13:20 UTC */
	assert_string_equal(cnode_lookup(t, "t")->s, "run-20231114-221320");
	assert_int_equal(cnode_lookup(t, "list")->items[0]->i, 3);
	assert_string_equal(cnode_lookup(t, "list")->items[1]->s, "xhi");
	cnode_free(t);
}

#define R10(s) s s s s s s s s s s
#define R20(s) R10(s) R10(s)

static void test_interpolation_errors(void **state)
{
	struct {
		const char *yaml, *want;
	} cases[] = {
	    {"a: ${a}\n", "interpolation cycle: a -> a (t.yaml:1:4)"},
	    {"a: ${b}\nb: x${c}\nc: ${a}\n", "interpolation cycle: a -> b -> c -> a"},
	    {"a:\n  b: ${a}\n", "interpolation cycle: a.b -> a"},
	    {"a: ${nope.key}\n", "interpolation '${nope.key}' refers to an unknown key"},
	    {"run:\n  mode: x\na: ${run.mod}\n", "did you mean 'run.mode'?"},
	    {"a: ${b\nb: 1\n", "unterminated interpolation '${b'"},
	    {"a: ${env:HOME}\n", "unknown resolver 'env'"},
	    {"a: ${x.${y}}\n", "nested interpolations are not supported"},
	    {"a: ${.b}\n", "bad interpolation '${.b}'"},
	    {"a: x${b}\nb: [1]\n", "'${b}' is a list; it can only be the whole value"},
	    {"a: \"${now:}\"\n",
	     "${now:} needs a strftime format, e.g. ${now:%Y%m%d} (t.yaml:1:4)"},
	    /* 2,000 %c: each reason said, never a bare "bad format" */
	    {"a: \"${now:" R20(R10("%c%c%c%c%c%c%c%c%c%c")) "}\"\n",
	     "${now:FORMAT}: the format is 4000 bytes long, at most 255 (t.yaml:1:4)"},
	    {"a: \"${now:" R10("%c%c%c%c%c%c%c%c%c%c") "}\"\n",
	     "${now:FORMAT}: the result is longer than 511 bytes (t.yaml:1:4)"},
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *e = resolve_err(cases[i].yaml);

		assert_contains(e, cases[i].want);
		free(e);
	}
}

static void test_interpolation_expansion_is_bounded(void **state)
{
	struct strbuf y = STRBUF_INIT;
	char *e;

	/* each level doubles: 2^40 values if nothing stopped it */
	strbuf_addstr(&y, "l0: [x, x]\n");
	for (int i = 1; i <= 40; i++)
		strbuf_addf(&y, "l%d: [\"${l%d}\", \"${l%d}\"]\n", i, i - 1, i - 1);
	e = resolve_err(y.buf);
	assert_contains(e, "interpolations expand to too many values");
	free(e);
	strbuf_release(&y);
}

static void test_load_interpolation_and_now(void **state)
{
	struct config *cfg = LOAD("artifacts.root=out/${model.name}-${now:%Y}",
				  "run.top_n_kernels=${infer.batch_size}");

	assert_string_equal(config_get_string(cfg, "artifacts.root"), "out/auto-1970");
	assert_int_equal(config_get_int(cfg, "run.top_n_kernels", 0), 1);
	config_free(cfg);
}

/* --- schema --- */

static void test_schema_table_is_sane(void **state)
{
	const struct config_key *keys;
	size_t n;

	keys = config_schema(&n);
	for (size_t i = 0; i < n; i++) {
		assert_non_null(keys[i].help);
		assert_true(strlen(keys[i].help) > 5);
		assert_true(keys[i].def || (keys[i].flags & CONFIG_REQUIRED));
		assert_true((keys[i].type == CONFIG_ENUM) == (keys[i].values != NULL));
		for (size_t j = 0; j < i; j++)
			if (!strcmp(keys[i].key, keys[j].key))
				fail_msg("duplicate schema key '%s'", keys[i].key);
	}
}

static void test_schema_open_map(void **state)
{
	static const struct config_key keys[] = {
	    {"a.b", CONFIG_INT, 0, "1", NULL, 0, 0, "an int"},
	    {"extra", CONFIG_OPEN_MAP, 0, "{}", NULL, 0, 0, "anything goes"},
	};
	struct cnode *t = parse("a: {b: 2}\nextra: {x: [1], y: {z: w}}\n");
	struct strbuf err = STRBUF_INIT;

	assert_int_equal(config_schema_validate(t, keys, 2, &err), 0);
	cnode_free(t);
	t = parse("a: {b: 2, c: 1}\n");
	assert_int_equal(config_schema_validate(t, keys, 2, &err), -1);
	assert_string_equal(err.buf, "unknown config key 'a.c'; did you mean 'a.b'? (t.yaml:1:14)");
	cnode_free(t);
	strbuf_release(&err);
	t = parse("x: 1\n");
	config_schema_fill_defaults(t, keys, 2);
	assert_int_equal(cnode_lookup(t, "a.b")->i, 1);
	assert_int_equal(cnode_lookup(t, "extra")->type, CNODE_MAP);
	cnode_free(t);
}

static void test_find_conf_dir(void **state)
{
	char *dir;

	setenv("LLMPROF_CONF_DIR", "/some/where", 1);
	dir = config_find_conf_dir();
	assert_string_equal(dir, "/some/where");
	free(dir);
	unsetenv("LLMPROF_CONF_DIR");
	dir = config_find_conf_dir();
	assert_non_null(dir);
	assert_true(ends_with(dir, "/conf"));
	free(dir);
}

static void test_show_output_roundtrips(void **state)
{
	struct config *cfg =
	    LOAD("profiling/ncu@pipeline.ncu=ncu.high", "pipeline.nsys.sample= odd: value ",
		 "workload.args=['', 'true', '#x']");
	struct strbuf y = STRBUF_INIT;
	struct cnode *back;

	config_to_yaml(cfg, &y);
	back = parse(y.buf);
	assert_true(cnode_equal(config_root(cfg), back));
	assert_true(starts_with(y.buf, "device: cuda:0\nartifacts:\n  root: tmp/stage2\nrun:\n"));
	assert_contains(y.buf, "    sample: \"odd: value\"\n");
	assert_contains(y.buf, "  args:\n    - \"\"\n    - \"true\"\n    - \"#x\"\n");
	cnode_free(back);
	strbuf_release(&y);
	config_free(cfg);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_yaml_core_schema_typing),
	    cmocka_unit_test(test_yaml_structure_and_empty),
	    cmocka_unit_test(test_yaml_errors_have_positions),
	    cmocka_unit_test(test_yaml_nesting_limit),
	    cmocka_unit_test(test_yaml_roundtrip_nasty_strings),
	    cmocka_unit_test(test_yaml_roundtrip_numbers_and_shapes),
	    cmocka_unit_test(test_yaml_writer_non_utf8),
	    cmocka_unit_test(test_override_forms),
	    cmocka_unit_test(test_override_values),
	    cmocka_unit_test(test_override_errors),
	    cmocka_unit_test(test_load_defaults_match_schema),
	    cmocka_unit_test(test_load_getters),
	    cmocka_unit_test(test_load_mounted_group_and_key_order),
	    cmocka_unit_test(test_load_lists_replace),
	    cmocka_unit_test(test_load_add_force_remove),
	    cmocka_unit_test(test_load_group_force_and_null),
	    cmocka_unit_test(test_load_group_errors),
	    cmocka_unit_test(test_load_schema_errors),
	    cmocka_unit_test(test_load_errors_stay_on_one_line),
	    cmocka_unit_test(test_load_ints_accepted_as_floats),
	    cmocka_unit_test_setup_teardown(test_compose_merge_and_self, setup_tmp_conf,
					    teardown_tmp_conf),
	    cmocka_unit_test(test_interpolation),
	    cmocka_unit_test(test_interpolation_errors),
	    cmocka_unit_test(test_interpolation_expansion_is_bounded),
	    cmocka_unit_test(test_load_interpolation_and_now),
	    cmocka_unit_test(test_schema_table_is_sane),
	    cmocka_unit_test(test_schema_open_map),
	    cmocka_unit_test(test_find_conf_dir),
	    cmocka_unit_test(test_show_output_roundtrips),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
