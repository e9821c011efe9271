/* build.c: see build.h. Nothing is computed here: the model comes whole from
 * src/analysis/, the files from report_write_all(). */
#include "report/build.h"
#include "report/report.h"
#include "core/banned.h"

int report_build(const struct report_build_opts *o, struct report_build_result *res,
		 struct strbuf *err)
{
	struct report_model m;
	int ret;

	report_model_init(&m);
	ret = report_build_model(o, &m, res, err);
	if (!ret)
		ret = report_write_all(&m, o->out_dir, err);
	report_model_release(&m);
	return ret;
}
