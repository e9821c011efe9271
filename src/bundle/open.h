/* open.h: a run bundle opened for reading, once. bundle_open() finds the
 * trace and reads the bundle's own record (config.yaml, status.json,
 * env.json, ncu/selection.json, ncu/measured.json, rank.json,
 * workload/analytic.json, metrics.json, the PyTorch startup module's log:
 * whichever the caller asks for) into
 * one struct bundle_in, so `report`, `diff`, `merge` and the pipeline's
 * join and reports steps read each file once and name none of them
 * (bundle/layout.h).
 *
 * What is missing is NULL or empty, never an error: a bundle whose trace
 * step failed still gets reports saying so. What is damaged decides by the
 * file: status.json, env.json, config.yaml and metrics.json are the run's
 * record (bundle_open() fails with err naming the file); selection,
 * measured, rank and analytic feed one part of a report (their error is
 * kept in *_err for the note that part shows).
 *
 * Ownership: struct bundle_in owns everything it points to except dir;
 * bundle_in_release(). */
#ifndef LLMPROF_BUNDLE_OPEN_H
#define LLMPROF_BUNDLE_OPEN_H

#include <jansson.h>

#include "bundle/layout.h"
#include "config/config.h"
#include "core/strbuf.h"

/* The trace backend that made a bundle's trace. */
enum bundle_backend {
	BUNDLE_BACKEND_NONE,	/* no trace */
	BUNDLE_BACKEND_BUILTIN, /* the builtin tracer: trace/trace.sqlite */
	BUNDLE_BACKEND_NSYS,	/* nsys: nsys/run.sqlite or its stats summary */
};
/* "builtin", "nsys"; NULL for BUNDLE_BACKEND_NONE. */
const char *bundle_backend_name(enum bundle_backend b);

/* What bundle_open() reads besides finding the trace. */
#define BUNDLE_READ_CONFIG 0x01	    /* config.yaml -> cfg */
#define BUNDLE_READ_STATUS 0x02	    /* status.json -> status */
#define BUNDLE_READ_ENV 0x04	    /* env.json -> env */
#define BUNDLE_READ_SELECTION 0x08  /* ncu/selection.json -> selection */
#define BUNDLE_READ_MEASURED 0x10   /* ncu/measured.json -> measured */
#define BUNDLE_READ_RANK 0x20	    /* rank.json -> rank */
#define BUNDLE_READ_ANALYTIC 0x40   /* workload/analytic.json -> analytic */
#define BUNDLE_READ_METRICS 0x80    /* metrics.json -> metrics */
#define BUNDLE_READ_REFERENCE 0x100 /* reference.json -> reference */
#define BUNDLE_READ_PYTORCH 0x200   /* logs/pytorch.log -> pytorch_log, pytorch_given */
/* What the report model is built from (analysis/model_build.h). */
#define BUNDLE_READ_REPORT                                                                         \
	(BUNDLE_READ_CONFIG | BUNDLE_READ_STATUS | BUNDLE_READ_ENV | BUNDLE_READ_SELECTION |       \
	 BUNDLE_READ_MEASURED | BUNDLE_READ_RANK | BUNDLE_READ_ANALYTIC | BUNDLE_READ_REFERENCE |  \
	 BUNDLE_READ_PYTORCH)

struct bundle_in {
	const char *dir;	     /* borrowed, as the caller named it */
	struct strbuf trace;	     /* <dir>/<the trace>, empty = none */
	enum bundle_art trace_art;   /* the trace's row; BA_NR = none */
	enum bundle_backend backend; /* status.json's record; else the trace's row */
	struct strbuf ncu_raw;	     /* <dir>/ncu/raw.csv when it exists, else empty */

	struct config *cfg; /* NULL: no config.yaml (or not asked) */
	json_t *status, *env, *metrics;
	json_t *selection, *measured, *rank; /* NULL when absent or damaged */
	struct strbuf selection_err, measured_err, rank_err;
	int has_selection;	     /* ncu/selection.json exists (parsed or not) */
	struct strbuf analytic;	     /* its bytes */
	struct strbuf analytic_path; /* <dir>/workload/analytic.json when read, else empty */
	struct strbuf analytic_err;
	json_t *reference; /* reference.json; NULL when absent or damaged */
	struct strbuf reference_err;
	/* the PyTorch startup module (docs/pytorch.md): whether the workload
	 * was given it (its logs/workload.env sets LLMPROF_PYTORCH), and its
	 * log's bytes (empty: no log) or why they could not be read */
	int pytorch_given;
	struct strbuf pytorch_log, pytorch_log_err;
};
#define BUNDLE_IN_INIT                                                                             \
	{                                                                                          \
		NULL, STRBUF_INIT, BA_NR, BUNDLE_BACKEND_NONE, STRBUF_INIT, NULL, NULL, NULL,      \
		    NULL, NULL, NULL, NULL, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT, 0, STRBUF_INIT, \
		    STRBUF_INIT, STRBUF_INIT, NULL, STRBUF_INIT, 0, STRBUF_INIT, STRBUF_INIT       \
	}

/* Opens the bundle dir: finds its trace and reads what `what` names
 * (BUNDLE_READ_*). 0, or -1 with err when a record file that exists cannot
 * be read or does not parse (b keeps what was read; release it). */
int bundle_open(struct bundle_in *b, const char *dir, unsigned what, struct strbuf *err);
void bundle_in_release(struct bundle_in *b);

/* The trace a bundle holds: trace/trace.sqlite, else nsys/run.sqlite, else
 * nsys/summary_cuda_gpu_kern_sum.csv. Appends the path to sb and returns
 * sb->buf, or NULL when there is none (sb unchanged); *art (may be NULL)
 * is its row, BA_NR for none. */
const char *bundle_trace(const char *dir, struct strbuf *sb, enum bundle_art *art);

/* Loads path into *out; *out = NULL and 0 when there is no such file, -1
 * with err when it is not a regular file, is over INPUT_CAP_TEXT or does
 * not parse ("PATH:LINE:COLUMN: what"). */
int bundle_load_json(const char *path, json_t **out, struct strbuf *err);

/* The status.json of a --rank-dir run's rank r beneath dir (the RUN of
 * `profile --rank-dir RUN`), or NULL when it is missing or damaged. The
 * caller owns it (json_decref()). */
json_t *bundle_rank_status(const char *dir, int r);

#endif
