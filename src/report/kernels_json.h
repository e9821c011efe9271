/* kernels_json.h: kernels.json of an Nsight Compute export read alone
 * (`report --ncu-csv RAW.csv -o DIR`): every (name, launch configuration)
 * group with its counters, then every launch ncu measured. kernels.md comes
 * from the model (report_render_kernels_md(), the one kernels.md writer);
 * kernels.json also lists the single launches, which the model does not
 * hold. */
#ifndef LLMPROF_REPORT_KERNELS_JSON_H
#define LLMPROF_REPORT_KERNELS_JSON_H

#include "analysis/ncu_kernel.h"
#include "core/strbuf.h"
#include "model/model.h"

/* Appends kernels.json's text to out. */
void kernels_json_render(const struct ncu_kernel_table *t, struct strbuf *out);

/* Writes kernels.md (from m, report_model_from_ncu()) and kernels.json
 * (from t) into bd atomically. 0, or -1 with err. */
struct bundle_dir;
int kernels_files_write(const struct report_model *m, const struct ncu_kernel_table *t,
			const struct bundle_dir *bd, struct strbuf *err);

#endif
