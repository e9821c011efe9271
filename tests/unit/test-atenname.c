/* test-atenname.c: trace/atenname.h on PyTorch's operator range messages as
 * torch 2.x spells them (torch/csrc/profiler/util.cpp, getNvtxStr(): NAME,
 * then ", seq = N" when the op has a sequence number, ", op_id = N" (torch
 * 2.x, every call), ", sizes = [[...], ...]" and ", input_op_ids = [...]"
 * with record_shapes), and torch 1.x's (no op_id), against messages that
 * only look like them. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <cmocka.h>

#include "core/strbuf.h"
#include "trace/atenname.h"

/* The key of msg, or "(own)" when the message is its own operator. */
static void check(const char *msg, const char *want)
{
	struct strbuf key = STRBUF_INIT;

	strbuf_addstr(&key, "(own)");
	if (!aten_op_key(msg, &key))
		assert_string_equal(key.buf, "(own)");
	assert_string_equal(key.buf, want);
	strbuf_release(&key);
}

static void test_torch2(void **state)
{
	(void)state;
	check("aten::mm, seq = 12, op_id = 40", "aten::mm");
	check("aten::empty, op_id = 41", "aten::empty");
	check("aten::add_, seq = 0, op_id = 1", "aten::add_");
	check("aten::linear, seq = 1234567, op_id = 9876543", "aten::linear");
	check("aten::_scaled_dot_product_flash_attention, seq = 7, op_id = 99",
	      "aten::_scaled_dot_product_flash_attention");
	/* record_shapes: the row is the op and its input shapes; the op ids of
	 * the inputs differ per call and go */
	check("aten::mm, seq = 3, op_id = 7, sizes = [[1, 2048], [2048, 2048]], "
	      "input_op_ids = [(5,0),(6,0)]",
	      "aten::mm, sizes = [[1, 2048], [2048, 2048]]");
	check("aten::view, op_id = 8, sizes = [[1, 16, 64], []]",
	      "aten::view, sizes = [[1, 16, 64], []]");
	check(
	    "aten::cat, seq = 2, op_id = 3, sizes = [[[1, 4], [1, 4]], []], input_op_ids = [(1,0)]",
	    "aten::cat, sizes = [[[1, 4], [1, 4]], []]");
	check("aten::zeros, op_id = 5, sizes = [[], [], [], [], []]",
	      "aten::zeros, sizes = [[], [], [], [], []]");
}

static void test_other_spellings(void **state)
{
	(void)state;
	/* torch 1.x: no op_id */
	check("aten::mm, seq = 12", "aten::mm");
	check("aten::mm, seq = 12, sizes = [[2, 3], [3, 4]]", "aten::mm, sizes = [[2, 3], [3, 4]]");
	/* ROCm writes sequence numbers below -1 */
	check("aten::mm, seq = -5, op_id = 2", "aten::mm");
	/* any record_function name, as emit_nvtx names it */
	check("autograd::engine::evaluate_function: MmBackward0, seq = 3, op_id = 10",
	      "autograd::engine::evaluate_function: MmBackward0");
}

static void test_not_torch(void **state)
{
	(void)state;
	check("aten::mm", "(own)"); /* a name alone is already the op */
	check("decode_step", "(own)");
	check("model.layers.3.self_attn", "(own)");
	check("", "(own)");
	check(", seq = 1", "(own)");		   /* no name */
	check("a, seq = ", "(own)");		   /* no number */
	check("a, seq = 1x", "(own)");		   /* more after it */
	check("a, seq = 1, and more", "(own)");	   /* a field torch never writes */
	check("a, op_id = 2, seq = 1", "(own)");   /* out of order */
	check("a, sizes = [[1, 2]", "(own)");	   /* unbalanced */
	check("a, sizes = 3", "(own)");		   /* not a list */
	check("step 4, seq = 12 tokens", "(own)"); /* prose */
	check("layer, op_id = 3, input_op_ids = ", "(own)");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
	    cmocka_unit_test(test_torch2),
	    cmocka_unit_test(test_other_spellings),
	    cmocka_unit_test(test_not_torch),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
