/* kname_inductor.c: the fused-op label of a kernel Inductor generated
 * (kname.h). Inductor names a Triton kernel "triton_" + the first three
 * letters of its kind + "_fused_" + the ATen ops of the nodes it fused,
 * joined by '_', + "_" + a number. The ops' own names contain '_' (a
 * private op begins with one: "_to_copy", "_unsafe_view"), so the joined
 * list is split back at the longest op name known below, else at each '_'. */
#include <string.h>

#include "core/util.h"
#include "trace/kname.h"
#include "core/banned.h"

static const struct {
	const char *prefix, *kind;
} kinds[] = {
    {"triton_poi_", "pointwise"},
    {"triton_red_", "reduction"},
    {"triton_per_", "persistent reduction"},
    {"triton_tem_", "template"},
    {"triton_for_", "foreach"},
    {"triton_spl_", "split scan"},
    {"triton_unk_", "unknown"},
};

/* ATen op names with '_' inside them, without a leading '_' (a private
 * op's is its own token); the longest that matches wins. */
static const char *const multi[] = {
    "scaled_dot_product_cudnn_attention",
    "scaled_dot_product_efficient_attention",
    "scaled_dot_product_flash_attention",
    "scaled_dot_product_attention",
    "embedding_dense_backward",
    "max_pool2d_with_indices",
    "native_group_norm",
    "native_layer_norm",
    "native_batch_norm",
    "repeat_interleave",
    "split_with_sizes",
    "softmax_backward_data",
    "constant_pad_nd",
    "view_as_complex",
    "fused_rms_norm",
    "slice_scatter",
    "select_scatter",
    "scatter_reduce",
    "index_select",
    "scalar_tensor",
    "view_as_real",
    "bitwise_and",
    "bitwise_not",
    "bitwise_xor",
    "logical_and",
    "logical_not",
    "logical_or",
    "bitwise_or",
    "unsafe_view",
    "log_softmax",
    "masked_fill",
    "scatter_add",
    "index_copy",
    "index_fill",
    "index_put",
    "index_add",
    "group_norm",
    "layer_norm",
    "zeros_like",
    "empty_like",
    "lift_fresh",
    "full_like",
    "ones_like",
    "new_empty",
    "new_zeros",
    "new_ones",
    "clamp_max",
    "clamp_min",
    "rms_norm",
    "var_mean",
    "to_copy",
};

/* The length of the op at p (len bytes left, p[0] != '_'): the longest
 * multi-word name that ends at a '_' or the end, else up to the next '_'. */
static size_t op_len(const char *p, size_t len)
{
	const char *us = memchr(p, '_', len);
	size_t one = us ? (size_t)(us - p) : len, best = one;

	for (size_t i = 0; i < ARRAY_SIZE(multi); i++) {
		size_t n = strlen(multi[i]);

		if (n > best && n <= len && !memcmp(p, multi[i], n) && (n == len || p[n] == '_'))
			best = n;
	}
	return best;
}

int kname_inductor(struct strbuf *out, const char *name)
{
	const char *kind = NULL, *p, *end;
	size_t nops = 0;

	if (!name)
		return 0;
	for (size_t i = 0; i < ARRAY_SIZE(kinds) && !kind; i++)
		if (starts_with(name, kinds[i].prefix))
			kind = kinds[i].kind;
	if (!kind)
		return 0;
	p = name + strlen("triton_xxx_");
	if (starts_with(p, "fused_"))
		p += strlen("fused_");
	/* the trailing "_N" (and a parameter list, where a tool kept one) */
	end = p + strcspn(p, "(");
	for (const char *q = end;; q--) {
		if (q == p) { /* "triton_poi_fused_0": no op named */
			end = p;
			break;
		}
		if (q[-1] < '0' || q[-1] > '9') {
			if (q < end && q[-1] == '_')
				end = q - 1;
			break;
		}
	}
	strbuf_addf(out, "%s", kind);
	while (p < end) {
		size_t lead = 0, n;

		while (p + lead < end && p[lead] == '_')
			lead++;
		if (p + lead >= end)
			break;
		/* one '_' joins two ops; a second one begins a private op */
		if (lead > 1 || (lead == 1 && !nops))
			lead--;
		p += lead;
		n = (*p == '_' ? 1 : 0);
		n += op_len(p + n, (size_t)(end - p) - n);
		strbuf_addf(out, "%s%.*s", nops++ ? ", " : ": ", (int)n, p);
		p += n;
	}
	return 1;
}
