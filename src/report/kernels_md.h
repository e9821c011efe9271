/* kernels_md.h: kernels.md and kernels.json from an ncu kernel table.
 *
 * kernels.md is a Markdown table sorted by total GPU time with the columns
 * Kernel, Launch, Calls, Total (ms), Mean (ms), % of GPU time, then the
 * counter columns the export allows (Compute SOL %, Memory SOL %, Achieved
 * occupancy %, AI (FLOP/byte), Bound), followed by a numbered list of the
 * full kernel names. When rows are capped, a last row sums the rest, so the
 * Calls and Total (ms) columns always add up to the export's totals. */
#ifndef LLMPROF_KERNELS_MD_H
#define LLMPROF_KERNELS_MD_H

#include <stddef.h>

#include "core/strbuf.h"
#include "analysis/ncu_kernel.h"

struct kernels_md_opts {
	size_t max_rows;   /* 0 = every group gets a row */
	const char *title; /* NULL = "Kernels" */
};
#define KERNELS_MD_OPTS_INIT                                                                       \
	{                                                                                          \
		0, NULL                                                                            \
	}

/* Appends the Markdown to out. */
void kernels_md_render(const struct ncu_kernel_table *t, const struct kernels_md_opts *opts,
		       struct strbuf *out);
/* Appends kernels.json's text to out. */
void kernels_json_render(const struct ncu_kernel_table *t, struct strbuf *out);

/* Writes dir/kernels.md and dir/kernels.json atomically (creating dir). 0,
 * or -1 with err. */
int kernels_md_write(const struct ncu_kernel_table *t, const struct kernels_md_opts *opts,
		     const char *dir, struct strbuf *err);

#endif
