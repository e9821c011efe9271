/* test-pytorch-launch.c: which programs are Python (trace/pytorch_launch.h):
 * interpreter names, env, "#!" lines (direct, through env, pip's
 * /bin/sh launcher for long paths, CRLF), PATH lookup; what auto means;
 * the environment built for the startup module. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include <sys/stat.h>
#include <unistd.h>

#include "core/strbuf.h"
#include "trace/pytorch_launch.h"

static char dir[] = "/tmp/llmprof-pytorch-launch-XXXXXX";

/* Writes dir/name with text, mode 0755 (0644 when !exec). */
static void script(const char *name, const char *text, int exec)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "wb");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
	assert_int_equal(chmod(path, exec ? 0755 : 0644), 0);
}

static int is_py(const char *a0, const char *a1, const char *a2)
{
	const char *argv[] = {a0, a1, a2, "x.py", NULL};

	return pytorch_is_python(argv, dir, NULL);
}

static void test_interpreter_names(void **state)
{
	struct strbuf why = STRBUF_INIT;
	const char *argv[] = {"python3", "-m", "torch.distributed.run", NULL};

	assert_true(pytorch_is_python(argv, "", &why));
	assert_string_equal(why.buf, "python3 is a Python interpreter");
	assert_true(is_py("python", NULL, NULL));
	assert_true(is_py("/usr/bin/python3.11", NULL, NULL));
	assert_true(is_py("/opt/conda/bin/python3.13t", NULL, NULL));
	assert_true(is_py("python3.12d", NULL, NULL));
	assert_false(is_py("python3-config", NULL, NULL));
	assert_false(is_py("python3.11-gdb", NULL, NULL));
	assert_false(is_py("mypython", NULL, NULL));
	assert_false(is_py("/usr/bin/python3/other", NULL, NULL));
	assert_false(is_py("pyth", NULL, NULL));
	assert_false(is_py("", NULL, NULL));
	/* env: options and assignments, then the command decides */
	assert_true(is_py("env", "CUDA_VISIBLE_DEVICES=0", "python3"));
	assert_true(is_py("/usr/bin/env", "-i", "python3"));
	{
		const char *u[] = {"env", "-u", "PYTHONHOME", "python3", "x.py", NULL};
		assert_true(pytorch_is_python(u, "", NULL));
	}
	assert_false(is_py("env", "A=1", "./a.out"));
	{
		const char *bare[] = {"env", "A=1", NULL};
		assert_false(pytorch_is_python(bare, dir, NULL));
	}
	assert_false(pytorch_is_python(NULL, dir, NULL));
	strbuf_release(&why);
}

static void test_shebangs(void **state)
{
	struct strbuf why = STRBUF_INIT;
	const char *argv[] = {"torchrun", "--nproc-per-node", "2", "x.py", NULL};
	char path[256];

	assert_non_null(mkdtemp(dir));
	script("torchrun", "#!/usr/bin/python3\n# -*- coding: utf-8 -*-\nimport re\n", 1);
	script("accelerate", "#!/usr/bin/env python3.11\nimport sys\n", 1);
	script("vllm", "#! /opt/venv/bin/python3 -s\n", 1);
	script("envs", "#!/usr/bin/env -S python3 -u\n", 1);
	script("crlf", "#!/usr/bin/python3\r\nimport os\r\n", 1);
	script("pip-long",
	       "#!/bin/sh\n'''exec' \"/very/long/path/to/a/venv/bin/python3.12\" \"$0\" \"$@\"\n' "
	       "'''\nimport sys\n",
	       1);
	script("pip-bare", "#!/bin/sh\n'''exec' /venv/bin/python \"$0\" \"$@\"\n", 1);
	script("shell", "#!/bin/bash\nexec python3 \"$@\"\n", 1);
	script("sh-other", "#!/bin/sh\necho hi\n", 1);
	script("perl", "#!/usr/bin/env perl\n", 1);
	script("noexec", "#!/usr/bin/python3\n", 0);
	script("binary", "\177ELF\2\1\1\0\0\0", 1);
	script("empty", "", 1);
	script("nonl", "#!/usr/bin/python3", 1);

	assert_true(pytorch_is_python(argv, dir, &why));
	assert_string_equal(why.buf, "torchrun runs /usr/bin/python3");
	assert_true(is_py("accelerate", "launch", NULL));
	assert_true(is_py("vllm", "serve", NULL));
	assert_true(is_py("envs", NULL, NULL));
	assert_true(is_py("crlf", NULL, NULL));
	assert_true(is_py("pip-long", NULL, NULL));
	assert_true(is_py("pip-bare", NULL, NULL));
	assert_true(is_py("nonl", NULL, NULL));
	assert_false(is_py("shell", NULL, NULL));
	assert_false(is_py("sh-other", NULL, NULL));
	assert_false(is_py("perl", NULL, NULL));
	assert_false(is_py("noexec", NULL, NULL)); /* PATH runs executables only */
	assert_false(is_py("binary", NULL, NULL));
	assert_false(is_py("empty", NULL, NULL));
	assert_false(is_py("not-there", NULL, NULL));
	/* a path with a '/' is not looked up on PATH */
	snprintf(path, sizeof(path), "%s/torchrun", dir);
	assert_true(is_py(path, NULL, NULL));
	/* through env, found on PATH */
	assert_true(is_py("env", "A=1", "torchrun"));
	/* not on this PATH */
	{
		const char *a[] = {"torchrun", NULL};
		assert_false(pytorch_is_python(a, "/nonexistent", NULL));
	}
	strbuf_release(&why);
}

static void test_resolve(void **state)
{
	assert_int_equal(pytorch_resolve(TRACE_PYTORCH_AUTO, 1), TRACE_PYTORCH_AUTO);
	assert_int_equal(pytorch_resolve(TRACE_PYTORCH_AUTO, 0), TRACE_PYTORCH_NONE);
	assert_int_equal(pytorch_resolve(TRACE_PYTORCH_OPS, 0), TRACE_PYTORCH_OPS);
	assert_int_equal(pytorch_resolve(TRACE_PYTORCH_MODULES, 0), TRACE_PYTORCH_MODULES);
	assert_int_equal(pytorch_resolve(TRACE_PYTORCH_NONE, 1), TRACE_PYTORCH_NONE);
}

static void test_env(void **state)
{
	char *env[PYTORCH_ENV_MAX];
	struct pytorch_env_opts o = {.mode = TRACE_PYTORCH_MODULES,
				     .dir = "/p/lib/llmprof/pytorch",
				     .lib = "/p/lib/llmprof/pytorch/libllmprof_nvtx.so",
				     .log = "/r/logs/pytorch.log",
				     .depth = 8,
				     .user_pythonpath = "/home/u/src:/opt/x"};

	pytorch_env_build(env, &o);
	assert_string_equal(env[0], "PYTHONPATH=/p/lib/llmprof/pytorch:/home/u/src:/opt/x");
	assert_string_equal(env[1], "LLMPROF_PYTORCH=modules");
	assert_string_equal(env[2], "LLMPROF_PYTORCH_DEPTH=8");
	assert_string_equal(env[3],
			    "LLMPROF_PYTORCH_NVTX_LIB=/p/lib/llmprof/pytorch/libllmprof_nvtx.so");
	assert_string_equal(env[4], "LLMPROF_PYTORCH_LOG=/r/logs/pytorch.log");
	assert_null(env[5]);
	pytorch_env_free(env);

	/* ops: shapes said either way; no user PYTHONPATH, no library */
	o.mode = TRACE_PYTORCH_OPS;
	o.user_pythonpath = "";
	o.lib = NULL;
	o.shapes = 1;
	o.depth = 3;
	pytorch_env_build(env, &o);
	assert_string_equal(env[0], "PYTHONPATH=/p/lib/llmprof/pytorch");
	assert_string_equal(env[1], "LLMPROF_PYTORCH=ops");
	assert_string_equal(env[2], "LLMPROF_PYTORCH_DEPTH=3");
	assert_string_equal(env[3], "LLMPROF_PYTORCH_SHAPES=1");
	assert_string_equal(env[4], "LLMPROF_PYTORCH_LOG=/r/logs/pytorch.log");
	assert_null(env[5]);
	pytorch_env_free(env);

	/* nothing to give */
	o.mode = TRACE_PYTORCH_NONE;
	pytorch_env_build(env, &o);
	for (int i = 0; i < PYTORCH_ENV_MAX; i++)
		assert_null(env[i]);
	/* auto: the module measures its hooks and keeps them within the budget */
	o.mode = TRACE_PYTORCH_AUTO;
	o.shapes = 1;
	o.budget_pct = 2.5;
	pytorch_env_build(env, &o);
	assert_string_equal(env[1], "LLMPROF_PYTORCH=auto");
	assert_string_equal(env[2], "LLMPROF_PYTORCH_DEPTH=3");
	assert_string_equal(env[3], "LLMPROF_PYTORCH_BUDGET=2.5");
	assert_string_equal(env[4], "LLMPROF_PYTORCH_LOG=/r/logs/pytorch.log");
	assert_null(env[5]);
	pytorch_env_free(env);
}

static int teardown(void **state)
{
	const char *names[] = {"torchrun", "accelerate", "vllm",  "envs",     "crlf",
			       "pip-long", "pip-bare",	 "shell", "sh-other", "perl",
			       "noexec",   "binary",	 "empty", "nonl"};
	char path[256];

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		unlink(path);
	}
	rmdir(dir);
	return 0;
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_interpreter_names),
	    cmocka_unit_test_teardown(test_shebangs, teardown),
	    cmocka_unit_test(test_resolve),
	    cmocka_unit_test(test_env),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
