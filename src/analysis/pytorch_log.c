/* pytorch_log.c: the PyTorch startup module's log read into the report
 * model (see pytorch_log.h). Each line is "pid N: LEVEL: MESSAGE", written
 * whole by one process (pytorch/_llmprof_pytorch.py, log()); the messages
 * read here are that file's, spelled alike in both places; those of an
 * older llmprof's module are still read (a run reported again). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/pytorch_log.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

static void set_once(char **field, const char *s, size_t len)
{
	if (!*field)
		*field = xstrndup(s, len);
}

/* A cost line (written at exit): this llmprof's, with the estimate, or an
 * older one's, with the hooks' time and CPU share only; any other: nothing. */
static void cost_line(struct report_pytorch *p, const char *msg)
{
	unsigned long long calls, ranges;
	double hook_ms, path_us, est_ms, wall_ms, slower, cpu_share, cpu_ms;

	if (sscanf(msg,
		   "cost: %llu module calls, %lf ms in the hooks, %lf us a call of PyTorch's "
		   "hooked call path (calibrated): %lf ms estimated of %lf ms wall time since the "
		   "first call, %lf %% slower; %llu ranges pushed",
		   &calls, &hook_ms, &path_us, &est_ms, &wall_ms, &slower, &ranges) == 7) {
		p->path_ms += (double)calls * path_us / 1e3;
		p->est_ms += est_ms;
		p->wall_ms += wall_ms;
	} else if (sscanf(msg,
			  "cost: %llu module calls, %lf ms in the hooks, %lf %% of %lf ms process "
			  "CPU time since the first call; %llu ranges pushed",
			  &calls, &hook_ms, &cpu_share, &cpu_ms, &ranges) == 5) {
		p->costed_old++;
	} else {
		return;
	}
	p->costed++;
	p->calls += calls;
	p->ranges += ranges;
	p->hook_ms += hook_ms;
}

/* One message at its level. */
static void one(struct report_pytorch *p, const char *level, const char *msg, size_t len)
{
	static const char on[] = "module ranges on: torch ";
	double budget;

	if (!strcmp(level, "error")) {
		p->failed++;
		set_once(&p->failure, msg, len);
		return;
	}
	if (starts_with(msg, on)) {
		const char *v = msg + sizeof(on) - 1, *end = strchr(v, ',');

		p->processes++;
		if (end)
			set_once(&p->torch, v, (size_t)(end - v));
	} else if (starts_with(msg, "operator ranges on ")) {
		p->ops++;
	} else if (sscanf(msg, "auto: module ranges on while they make the program at most %lf",
			  &budget) == 1 ||
		   sscanf(msg, "auto: module ranges on while the hooks take at most %lf",
			  &budget) == 1) { /* the second: an older llmprof's */
		p->auto_procs++;
		p->budget_pct = budget;
	} else if (starts_with(msg, "auto: module ranges off: ")) {
		p->auto_off++;
	} else if (starts_with(msg, "auto: module ranges kept: ")) {
		p->auto_kept++;
	} else {
		cost_line(p, msg);
	}
}

void pytorch_log_fill(struct report_model *m, int given, const char *log, size_t len,
		      const char *err)
{
	struct report_pytorch *p = &m->pytorch;
	struct strbuf line = STRBUF_INIT;
	const char *s = log, *end = log ? log + len : NULL;

	p->given = given || log || err;
	p->have_log = log != NULL;
	if (err)
		set_once(&p->log_err, err, strlen(err));
	while (s && s < end) {
		const char *nl = memchr(s, '\n', (size_t)(end - s)), *e = nl ? nl : end;
		char level[16];
		int at = 0;

		strbuf_reset(&line);
		strbuf_add(&line, s, (size_t)(e - s));
		s = e + 1;
		if (!nl) /* a line cut short: its process died writing it */
			break;
		if (sscanf(line.buf, "pid %*d: %15[a-z]: %n", level, &at) == 1 && at > 0)
			one(p, level, line.buf + at, line.len - (size_t)at);
	}
	strbuf_release(&line);
}
