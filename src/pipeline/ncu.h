/* ncu.h: the ncu step, in the order it goes (internal to pipeline/):
 *   step_select.c      select   the kernels worth counters -> ncu/selection.json
 *   step_ncu_plan.c    plan     the ncu to run, the options, what it offers
 *   step_ncu_run.c     run      one ncu run for every selected kernel
 *                               (analysis/select.h, the one-pass plan), or
 *                               one per kernel when ncu cannot
 *   step_ncu_import.c  import   each report as the raw page, merged into
 *                               ncu/raw.csv; ncu/measured.json
 *   step_ncu_names.c   names    which launch each result measured, and the
 *                               mangled names -> ncu/mangled.csv
 *   step_join.c        join     trace kernels x ncu/raw.csv (the report
 *                               model, handed to the reports step)
 *   step_ncu_child.c            one ncu child, for any of the above
 * struct ncu_job is the ncu step's state from plan to import. The files
 * call one way: run -> plan, import -> names, and each -> child; none calls
 * back into run. */
#ifndef LLMPROF_PIPELINE_NCU_H
#define LLMPROF_PIPELINE_NCU_H

#include <jansson.h>

#include "analysis/select_pass.h"
#include "config/config.h"
#include "core/proc.h"
#include "core/strbuf.h"
#include "nsight/ncu_argv.h"
#include "nsight/ncu_config.h"
#include "nsight/ncu_progress.h"
#include "nsight/ncu_run.h"
#include "pipeline/run_ctx.h"

/* Seconds ncu has, after an interrupt went to the program it profiles
 * (proc.h's interrupt_descendants_s), to see it end and write its report
 * of the launches it finished, before ncu itself gets the interrupt (and
 * SIGKILL PROC_GRACE_S later). ncu writes its report at the end: one
 * ended at once would lose everything it measured. */
#define NCU_INTERRUPT_WAIT_S 10.0

/* What ncu spent its time on, from its console: the results it printed
 * ("==PROF== Profiling ... - N passes") and, when the console was followed
 * live, when the first result started and the last one ended. */
struct ncu_time {
	long long results, passes; /* results finished; their replay passes in all */
	int passes_min, passes_max;
	int timed;	    /* captures followed live: the seconds below are theirs */
	double before_s;    /* start to the first result: the program up to it */
	double profiling_s; /* first result's start to the last one's end */
	double after_s;	    /* then to ncu's exit: the program's end, the report */
	int ended;	    /* captures whose program was ended after the last result */
	double wall_s;	    /* all of it, the untimed captures too */
};

struct ncu_job {
	struct run_ctx *rc;
	enum run_mode mode;  /* run.mode */
	double timeout_s;    /* run.timeout_s: each ncu child's limit */
	int stop_after_last; /* pipeline.ncu.stop_after_last */
	struct ncu_options base;
	int explicit_run;	   /* the user's own filters: one run, no selection */
	char *ncu;		   /* owned: the ncu found, NULL before */
	char **includes;	   /* owned: the checked --nvtx-include expressions */
	const char **kept_metrics; /* owned array: the metrics this GPU offers */
	size_t nruns, measured;
	double ncu_s;		    /* seconds of ncu in all */
	struct ncu_time time;	    /* what they went to, over the captures */
	uint64_t first_ns, last_ns; /* the capture running: its first result's
				       start, last result's end (0: not yet) */
	uint64_t start_ns;	    /* the step's start, monotonic */
	size_t expected;	    /* results all captures are to give, 0 unknown */
	/* the capture running: once ncu has finished this many results in one
	 * process, its program is ended (pipeline.ncu.stop_after_last; 0:
	 * never); end_program is proc.h's end_descendants, set from ncu's
	 * console */
	size_t stop_at;
	volatile int end_program;
	/* ncu/measured.json's result_times: each result's seconds from the
	 * end of the one before (the first: from its own start), as ncu's
	 * console finished them, all captures in order; and the slowest */
	json_t *result_times;
	double slowest_s;
	char slowest_name[160];
	struct ncu_progress progress[2]; /* ncu's stdout, stderr */
	struct ncu_raw_merge merge;
	const struct select_pass *pass; /* the one pass (rc->pass), or NULL */
	struct ncu_raw_merge names;	/* mangled names -> ncu/mangled.csv */
	int names_broken;		/* a capture lacks them: no mangled.csv */
	json_t *results;		/* ncu/measured.json's results */
	size_t mapped, unexpected;	/* results mapped to launches; pass results
					   the plan did not expect */
	struct strbuf cmdtxt;		/* ncu/cmd.txt */
	struct strbuf sreport;		/* ncu/sections_report.txt */
	struct strbuf first_fail;	/* why the first unmeasured capture was not */
	json_t *runs;			/* ncu/measured.json's runs */
};

/* One capture of the ncu step: the one pass (pass; capture 0), a selected
 * kernel's own run (k), or the configured filters (neither). */
struct ncu_capture {
	size_t i;
	int pass; /* the one pass over every selected kernel */
	const struct selected_kernel *k;
	struct ncu_options o;
	struct strbuf name;	/* ncu-k<i>: the log base name */
	struct strbuf out_base; /* <run>/ncu/k<i> */
	struct strbuf rel;	/* ncu/k<i>; after the import, its raw page ncu/k<i>.raw.csv */
	struct strbuf rep;	/* <run>/ncu/k<i>.ncu-rep */
	struct strbuf text;	/* ncu's console text */
	struct strbuf why;	/* not measured: why */
	struct proc_result res;
	enum ncu_verdict v;
	int ok, rows;
	int ended; /* its program was ended after its last result (stop_at) */
	double secs;
	struct ncu_time time; /* its share of ncu_job's */
};

/* The ncu to run, as tool_find finds it (pipeline.ncu.path, PATH, known
 * locations; 2023.1 or newer); owned, or NULL with msg "why; fix". */
char *ncu_find(const struct config *cfg, struct strbuf *msg);

/* "24 results x 38 replay passes (912 in all): 6.1 s before the first,
 * 52.0 s profiling (2.17 s a result), 5.2 s after the last", then " (the
 * program ended there)" when llmprof ended it (struct ncu_job stop_at) */
void ncu_time_say(const struct ncu_time *t, struct strbuf *out);
/* The same as ncu/measured.json's "ncu_time" object (new reference). */
json_t *ncu_time_json(const struct ncu_time *t);

void ncu_job_init(struct ncu_job *j, struct run_ctx *rc);
void ncu_job_release(struct ncu_job *j);

/* Plan: whether there is anything to measure, the ncu, the options (light
 * mode, NVTX includes checked against the trace, what this GPU offers).
 * STEP_RUNNING to go on, else the step's state with msg and *code. */
enum step_state ncu_job_plan(struct ncu_job *j, struct strbuf *msg, int *code);
/* Run: every capture, each imported. 0 when all ran; 1 when an interrupt
 * stopped them (the captures that finished, the interrupted one's report
 * included, are imported: finish the job with what it has); or -1 with
 * msg and *code when the step stops (a config or I/O error, a permanent
 * ncu failure, a second interrupt). */
int ncu_job_run(struct ncu_job *j, struct strbuf *msg, int *code);

/* Import: capture c's report as the raw page merged into j->merge, and
 * its section tables. 0 (c->ok says whether it was measured), or -1 with
 * msg and *code when nothing after can be valid. */
int ncu_import_capture(struct ncu_job *j, struct ncu_capture *c, struct strbuf *msg, int *code);
/* After capture c's raw import (its first result numbered first_id): which
 * launch each result measured (j->results) and the mangled names (j->names).
 * Problems are warnings. */
void ncu_names_capture(struct ncu_job *j, struct ncu_capture *c, size_t first_id);
/* After the captures: ncu/raw.csv, ncu/sections_report.txt, ncu/regions/
 * and the step's message. 0 with *state, or -1 with msg and *code. */
int ncu_job_finish(struct ncu_job *j, struct strbuf *msg, int *code, enum step_state *state);
/* ncu/cmd.txt and ncu/measured.json as the step ended with state. */
void ncu_job_write_measured(struct ncu_job *j, enum step_state state);

/* Runs one ncu child (step_ncu_child.c) with its logs under
 * logs/<name>.{out,err} (stdout to out_rel, a name in the bundle, instead
 * when given); its console text (stdout then stderr) is appended to text.
 * wl_env: the workload's environment additions, the tracer's left out;
 * live: ncu's progress is reported. 0 with *res, or -1 with err when it
 * could not run. */
int ncu_child(struct ncu_job *j, const char *name, const struct ncu_cmd *cmd, char *const *wl_env,
	      const char *out_rel, int live, struct proc_result *res, struct strbuf *text,
	      struct strbuf *err);

/* Makes <run>/ncu. 0, or -1 with err. */
int ncu_make_dir(const struct run_bundle *b, struct strbuf *err);

#endif
