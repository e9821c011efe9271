/* test-workloads-dummy.c: the dummy model's convolution against a direct
 * identity check, and determinism of the whole forward. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "dummy.h"

/* A kernel with 1 at the centre tap for ci == co copies the input. */
static void test_conv_identity_plus_bias(void **state)
{
	enum { B = 2, S = 5, C = 3 };
	float in[B * S * S * C], out[B * S * S * C], w[C * C * 9] = {0}, bias[C] = {0.5f, -1, 2};

	for (int i = 0; i < B * S * S * C; i++)
		in[i] = dummy_value(1, 1, (uint64_t)i, 1);
	for (int c = 0; c < C; c++)
		w[(c * C + c) * 9 + 4] = 1;
	dummy_cpu_conv3x3(NULL, out, in, w, bias, B, S, C, C, 0);
	for (int i = 0; i < B * S * S * C; i++)
		assert_float_equal(out[i], in[i] + bias[i % C], 1e-6);
	/* ReLU clamps */
	dummy_cpu_conv3x3(NULL, out, in, w, bias, B, S, C, C, 1);
	for (int i = 0; i < B * S * S * C; i++)
		assert_true(out[i] >= 0);
}

/* A corner pixel sees only 4 of the 9 taps (zero padding). */
static void test_conv_padding(void **state)
{
	enum { S = 3 };
	float in[S * S], out[S * S], w[9], bias[1] = {0};

	for (int i = 0; i < 9; i++)
		in[i] = 1, w[i] = 1;
	dummy_cpu_conv3x3(NULL, out, in, w, bias, 1, S, 1, 1, 0);
	assert_float_equal(out[0], 4, 0);
	assert_float_equal(out[1], 6, 0);
	assert_float_equal(out[4], 9, 0);
}

static void test_forward_deterministic(void **state)
{
	struct dummy_shape s = {2, 8, 8, 42};
	float a[2 * DUMMY_CLASSES], b[2 * DUMMY_CLASSES];
	double ms;

	assert_int_equal(dummy_cpu_run(&s, 1, a, &ms), 0);
	assert_int_equal(dummy_cpu_run(&s, 0, b, &ms), 0);
	assert_memory_equal(a, b, sizeof(a));
	s.seed = 43;
	assert_int_equal(dummy_cpu_run(&s, 0, b, &ms), 0);
	assert_memory_not_equal(a, b, sizeof(a));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_conv_identity_plus_bias),
	    cmocka_unit_test(test_conv_padding),
	    cmocka_unit_test(test_forward_deterministic),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
