/* pytorch_log.h: the PyTorch startup module's log (logs/pytorch.log,
 * docs/pytorch.md "The log") read into the report model: which mode ran in
 * how many processes, torch's version, what failed, what auto chose and at
 * what measured cost. The trust section shows it (analysis/trust.c). */
#ifndef LLMPROF_ANALYSIS_PYTORCH_LOG_H
#define LLMPROF_ANALYSIS_PYTORCH_LOG_H

#include <stddef.h>

#include "model/model.h"

/* Fills m->pytorch from the log's bytes (log, len; NULL: no log) and
 * whether the workload was given the module; err: why the log could not be
 * read, or NULL. Lines of another form are skipped: the log is the
 * module's, but a process may have been cut short mid-line. */
void pytorch_log_fill(struct report_model *m, int given, const char *log, size_t len,
		      const char *err);

#endif
