/* kname.h: the short name of a kernel for report.html and the charts.
 *
 * A demangled name such as "void at::native::vectorized_elementwise_kernel<
 * (int)4, ...>(int, T2, T3)" reads as its function base name
 * ("vectorized_elementwise_kernel"); a generic wrapper ("cutlass::Kernel2<
 * cutlass_80_simt_sgemm_...>") as the base name of its first template
 * argument. A name without a parameter list ("gemv<128, 4>", "fill & co")
 * is kept as is. The result is at most
 * max characters (ellipsized). */
#ifndef LLMPROF_REPORT_KNAME_H
#define LLMPROF_REPORT_KNAME_H

#include <stddef.h>

#include "core/strbuf.h"

void kernel_base_name(struct strbuf *out, const char *name, size_t max);

#endif
