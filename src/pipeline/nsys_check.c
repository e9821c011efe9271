/* nsys_check.c: what a finished nsys step means (nsys_check.h). */
#include <dirent.h>
#include <string.h>

#include "bundle/layout.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "nsight/nsys.h"
#include "pipeline/nsys_check.h"
#include "core/banned.h"

static size_t count_qdstrm(const char *dir)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	size_t n = 0;

	if (!d)
		return 0;
	while ((e = readdir(d)))
		n += starts_with(e->d_name, "run") && ends_with(e->d_name, ".qdstrm");
	closedir(d);
	return n;
}

void nsys_outcome_from_result(struct nsys_profile_outcome *o, const struct proc_result *res,
			      const char *const *argv)
{
	o->argv = argv;
	o->exited = res->outcome == PROC_EXITED || res->outcome == PROC_TIMEOUT;
	o->exit_code = res->exit_status;
	o->signaled = res->signal != 0;
	o->term_signal = res->signal;
}

void nsys_check_profile(const struct run_bundle *b, const struct plan_step *s,
			const struct proc_result *res, enum step_state *state, int *tool_fault,
			struct strbuf *d)
{
	struct strbuf dir = STRBUF_INIT, out = STRBUF_INIT, err = STRBUF_INIT;
	struct nsys_args reps = NSYS_ARGS_INIT;
	struct nsys_diag dg = NSYS_DIAG_INIT;
	struct nsys_profile_outcome o;
	size_t n;

	memset(&o, 0, sizeof(o));
	bundle_path(b, "nsys", &dir);
	n = nsys_list_reports(dir.buf, "run", &reps);
	bundle_path(b, s->out_log, &out);
	bundle_path(b, s->err_log, &err);
	{
		struct strbuf ob = STRBUF_INIT, eb = STRBUF_INIT;

		strbuf_read_file(&ob, out.buf);
		strbuf_read_file(&eb, err.buf);
		nsys_outcome_from_result(&o, res, (const char *const *)s->argv);
		o.out = ob.buf;
		o.out_len = ob.len;
		o.err = eb.buf;
		o.err_len = eb.len;
		o.n_reports = n;
		o.n_qdstrm = count_qdstrm(dir.buf);
		nsys_diag_profile(&o, &dg);
		strbuf_release(&ob);
		strbuf_release(&eb);
	}
	if (!n && *state == STEP_OK) {
		/* the program was fine; nsys is to blame */
		*state = STEP_FAILED;
		*tool_fault = 1;
		strbuf_reset(d);
		if (!dg.nr)
			strbuf_addstr(d, "nsys wrote no report");
	}
	for (size_t i = 0; i < dg.nr && i < 2; i++)
		strbuf_addf(d, "%snsys [%s]: %s (fix: %s)", d->len ? "; " : "",
			    nsys_diag_code_name(dg.items[i].code), dg.items[i].explain.buf,
			    dg.items[i].fix.buf);
	nsys_diag_release(&dg);
	nsys_args_release(&reps);
	strbuf_release(&dir);
	strbuf_release(&out);
	strbuf_release(&err);
}

void nsys_check_step(const struct run_bundle *b, const struct plan_step *s, enum step_state state,
		     int stats, struct strbuf *d)
{
	struct strbuf p = STRBUF_INIT, text = STRBUF_INIT;
	struct nsys_diag dg = NSYS_DIAG_INIT;

	if (state != STEP_OK) {
		bundle_path(b, s->out_log, &p);
		strbuf_read_file(&text, p.buf);
		strbuf_reset(&p);
		bundle_path(b, s->err_log, &p);
		strbuf_read_file(&text, p.buf);
		nsys_diag_export_text(text.buf, text.len, &dg);
		for (size_t i = 0; i < dg.nr && i < 2; i++)
			strbuf_addf(d, "; nsys [%s]: %s (fix: %s)",
				    nsys_diag_code_name(dg.items[i].code), dg.items[i].explain.buf,
				    dg.items[i].fix.buf);
	} else if (stats) {
		bundle_path(b, bundle_art(BA_NSYS_SUMMARY), &p);
		if (!path_exists(p.buf))
			strbuf_addf(d, "; but nsys wrote no %s", bundle_art_base(BA_NSYS_SUMMARY));
		else if (!strbuf_read_file(&text, p.buf) && !text.len)
			strbuf_addstr(d, "; the trace has no CUDA kernel data (nsys skipped "
					 "cuda_gpu_kern_sum: the CSV is empty)");
	}
	nsys_diag_release(&dg);
	strbuf_release(&p);
	strbuf_release(&text);
}
