/* cmd-diff.c: `llmprof diff A B`: what changed between two runs, whether it
 * is larger than the noise, and a gate for CI. A and B are run bundles,
 * bare traces (.sqlite), or comma lists of repeated runs; each run is
 * analysed as `llmprof report` does (analysis/model_build.h), the models
 * are compared (analysis/diff.h) and written as diff.md, diff.json and
 * diff.html (report/diff.h). */
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "bundle/open.h"
#include "cmd/cmd.h"
#include "cmd/trace_input.h"
#include "config/config.h"
#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "analysis/diff.h"
#include "analysis/model_build.h"
#include "report/diff.h"
#include "trace/sqlite_open.h"
#include "core/banned.h"

#define MAX_RUNS 64

static const char *opt_out;
static const char *opt_fail_above;
static const char *opt_metric;
static const char *opt_conf_dir;
static int64_t opt_top = 10;
static int opt_allow_hw;

static const struct opt opts[] = {
    {"output", 'o', OPT_STRING, &opt_out, "DIR",
     "where to write diff.md, diff.json and diff.html (default: only print the summary)", 0, 0},
    {"fail-above", 0, OPT_STRING, &opt_fail_above, "PCT",
     "exit 9 when --metric got worse by more than PCT percent, significantly; 10 when it "
     "cannot tell",
     0, 0},
    {"metric", 0, OPT_STRING, &opt_metric, "NAME",
     "the gate's metric: tpot (default), ttft, tokens_per_s, stage:decode, stage:prefill", 0, 0},
    {"top", 0, OPT_INT, &opt_top, "N", "kernels named in each waterfall (the rest summed)", 1,
     1000},
    {"allow-hardware-change", 0, OPT_BOOL, &opt_allow_hw, NULL,
     "let the gate judge runs made on different GPUs (else it cannot tell)", 0, 0},
    {"conf-dir", 0, OPT_STRING, &opt_conf_dir, "DIR",
     "a trace's configuration, which the KEY=VALUE overrides apply to, from DIR (default: "
     "$LLMPROF_CONF_DIR, else llmprof's conf/)",
     0, 0},
    OPT_END_MARK,
};

/* One run of a side, and where it came from. */
struct run_in {
	struct report_model m;
	const char *backend;
};

/* The configuration of one input with the KEY=VALUE overrides: for a
 * bundle with overrides, its config.yaml read again with them applied (as
 * `report` does); without, NULL (the bundle's own, bundle_open() read it);
 * for a trace with no bundle, conf/ with them. 0, or the exit code after
 * the error was printed. */
static int input_config(const struct trace_args *ta, const char *bundle, struct config **cfg)
{
	*cfg = NULL;
	if (!bundle)
		return trace_args_loose_config(ta, cfg);
	if (ta->nov)
		return trace_args_bundle_config(ta, bundle, cfg);
	return 0;
}

/* Builds the model of one input: a bundle directory, a .sqlite trace or an
 * nsys report (exported first). EXIT_OK, or an exit code with err (empty
 * when the error was printed). */
static int load_run(const struct trace_args *ta, const char *path, struct run_in *r,
		    struct strbuf *err)
{
	struct report_build_opts o;
	struct report_build_result res;
	struct bundle_in b = BUNDLE_IN_INIT;
	struct config *cfg = NULL;
	char *sqlite = NULL, *tmpdir = NULL;
	int code = EXIT_OK;

	memset(&o, 0, sizeof(o));
	report_build_result_init(&res);
	if (path_check_exists(path, err)) {
		code = EXIT_BAD_INPUT;
		goto out;
	}
	if (path_is_dir(path)) {
		/* a damaged metrics.json is a bad input too */
		if (bundle_open(&b, path, BUNDLE_READ_REPORT | BUNDLE_READ_METRICS, err)) {
			code = EXIT_BAD_INPUT;
			goto out;
		}
		if (!b.trace.len || !export_is_sqlite(b.trace.buf)) {
			error_set(err, "'%s' is not a run bundle (no %s or %s)", path,
				  bundle_art(BA_TRACE_SQLITE), bundle_art(BA_NSYS_SQLITE));
			code = EXIT_BAD_INPUT;
			goto out;
		}
		o.bundle = &b;
		o.cfg = b.cfg;
		/* the bundle's own record of its backend (bundle/open.h) */
		r->backend = bundle_backend_name(b.backend);
	} else if (trace_input_is_report(path)) {
		if ((code = trace_input_export("diff", path, &sqlite, &tmpdir)))
			goto out;
		o.trace_path = sqlite;
		r->backend = "trace file";
	} else if (!export_is_sqlite(path)) {
		error_set(err,
			  "'%s' is neither a run bundle nor a trace (.sqlite, or an nsys report: "
			  ".nsys-rep, .qdrep)",
			  path);
		code = EXIT_BAD_INPUT;
		goto out;
	} else {
		o.trace_path = path;
		r->backend = "trace file";
	}
	if ((code = input_config(ta, o.bundle ? path : NULL, &cfg)))
		goto out;
	if (cfg)
		o.cfg = cfg;
	report_build_model(&o, &r->m, &res);
	if (res.analyze_state != STEP_OK) {
		error_set(err, "%s: %s", path, res.analyze_msg.buf);
		code = EXIT_BAD_INPUT;
	}
out:
	trace_input_export_done(&sqlite, &tmpdir);
	if (cfg)
		config_free(cfg);
	bundle_in_release(&b);
	report_build_result_release(&res);
	return code;
}

struct side {
	const char *label;
	struct run_in *runs;
	const struct report_model **models;
	const char **backends;
	size_t nr;
};

/* Splits a comma list and loads every run. A path that exists as named
 * is one run, commas and all ('run,1.sqlite'). */
static int load_side(const struct trace_args *ta, const char *arg, struct side *s,
		     struct strbuf *err)
{
	char *copy = xstrdup(arg), *save = NULL;
	const char *seps = path_exists(arg) ? "" : ",";
	int code = EXIT_OK;

	s->label = arg;
	s->runs = xcalloc(MAX_RUNS, sizeof(*s->runs));
	s->models = xcalloc(MAX_RUNS, sizeof(*s->models));
	s->backends = xcalloc(MAX_RUNS, sizeof(*s->backends));
	for (char *p = strtok_r(copy, seps, &save); p; p = strtok_r(NULL, seps, &save)) {
		if (s->nr == MAX_RUNS) {
			error_set(err, "more than %d runs in '%s'", MAX_RUNS, arg);
			code = EXIT_USAGE;
			break;
		}
		report_model_init(&s->runs[s->nr].m);
		code = load_run(ta, p, &s->runs[s->nr], err);
		s->models[s->nr] = &s->runs[s->nr].m;
		s->backends[s->nr] = s->runs[s->nr].backend;
		s->nr++;
		if (code)
			break;
	}
	if (!code && !s->nr) {
		error_set(err, "'%s' names no run", arg);
		code = EXIT_USAGE;
	}
	free(copy);
	return code;
}

static void side_free(struct side *s)
{
	for (size_t i = 0; i < s->nr; i++)
		report_model_release(&s->runs[i].m);
	free(s->runs);
	free(s->models);
	free(s->backends);
}

/* The summary on stdout: what differs between the sides (hardware,
 * backend), the headline metrics, the top movers and the gate. */
static void print_summary(const struct diff *d)
{
	for (size_t i = 0; i < d->nr_notes; i++) { /* a GPU name from the trace */
		fputs("note: ", stdout);
		fputs_printable(d->notes[i], stdout, NULL);
		fputc('\n', stdout);
	}
	for (size_t i = 0; i < d->nr_metrics; i++) {
		const struct diff_metric *m = &d->metrics[i];

		if (strcmp(m->key, "tpot_ms") && strcmp(m->key, "ttft_ms") &&
		    strcmp(m->key, "tokens_per_s") && strcmp(m->key, "decode.gpu_ms") &&
		    strcmp(m->key, "prefill.gpu_ms"))
			continue;
		if (!m->pct.available) {
			printf("%-18s n/a\n", m->label);
			continue;
		}
		printf("%-18s %+.2f %%", m->label, m->pct.v);
		if (m->lo_pct.available)
			printf("  [%+.2f, %+.2f]  %s\n", m->lo_pct.v, m->hi_pct.v,
			       m->significant ? "significant" : "no significant change");
		else
			printf("  (no interval)\n");
	}
	/* the top movers by their exposed time inside the stages; what ran
	 * outside every stage on a line of its own */
	for (size_t i = 0; i < d->nr_kernels && i < 3; i++) {
		const struct diff_kernel *k = &d->kernels[i];

		if (k->delta_ns == 0)
			continue;
		double a_ns = 0;

		for (int r = 0; r < REPORT_ROLE_OTHER; r++)
			a_ns += k->exp_ns_a[r];
		/* names from the trace: never a terminal escape as is */
		printf("kernel %+.3f ms", k->delta_ns / 1e6);
		if (a_ns > 0)
			printf(" (%+.1f %%)", 100 * k->delta_ns / a_ns);
		fputs("  ", stdout);
		fputs_printable(k->name_b ? k->name_b : k->name_a, stdout, NULL);
		printf(" (%s", diff_match_name(k->match));
		if (k->name_a && k->name_b && strcmp(k->name_a, k->name_b)) {
			fputs("; A: ", stdout);
			fputs_printable(k->name_a, stdout, NULL);
		}
		printf(")\n");
	}
	if (d->out_ns_a != 0 || d->out_ns_b != 0)
		printf("outside stages: kernels %+.3f ms (%.3f -> %.3f ms; warm-up, graph capture, "
		       "any launch in no stage)\n",
		       (d->out_ns_b - d->out_ns_a) / 1e6, d->out_ns_a / 1e6, d->out_ns_b / 1e6);
	if (d->gate_text)
		printf("%s\n", d->gate_text);
}

static int cmd_diff_exec(struct cmd_ctx *ctx)
{
	struct side a = {0}, b = {0};
	struct trace_args ta;
	struct diff d;
	struct strbuf err = STRBUF_INIT;
	struct bundle_dir bd = BUNDLE_DIR_INIT;
	double pct = 0;
	int code = EXIT_OK, computed = 0;

	trace_args_split(&ta, "diff", opt_conf_dir, ctx);
	if (ta.ninputs != 2) {
		error_print("diff: expected two inputs, A and B, and KEY=VALUE overrides (%zu "
			    "input%s given; see 'llmprof diff --help')",
			    ta.ninputs, ta.ninputs == 1 ? "" : "s");
		code = EXIT_USAGE;
		goto out;
	}
	if (opt_out && !*opt_out) {
		error_print("diff: option '--output' needs a directory");
		code = EXIT_USAGE;
		goto out;
	}
	if (opt_fail_above && (parse_double(opt_fail_above, &pct, &err) || pct < 0)) {
		error_print("diff: --fail-above '%s': a percentage >= 0 is expected",
			    opt_fail_above);
		code = EXIT_USAGE;
		goto out;
	}
	if (opt_metric && !diff_gate_key(opt_metric)) {
		error_print("diff: unknown --metric '%s' (tpot, ttft, tokens_per_s, stage:decode, "
			    "stage:prefill)",
			    opt_metric);
		code = EXIT_USAGE;
		goto out;
	}
	if ((code = load_side(&ta, ta.inputs[0], &a, &err)) ||
	    (code = load_side(&ta, ta.inputs[1], &b, &err))) {
		if (err.len)
			error_print("diff: %s", err.buf);
		goto out;
	}
	{
		struct diff_input ia = {a.label, a.models, a.backends, a.nr};
		struct diff_input ib = {b.label, b.models, b.backends, b.nr};

		diff_compute(&ia, &ib, (size_t)opt_top, &d);
		computed = 1;
	}
	if (opt_fail_above)
		diff_gate(&d, opt_metric ? opt_metric : "tpot", pct, opt_allow_hw, &err);
	if (opt_out && (mkdir_p(opt_out, &err) || bundle_dir_open(&bd, opt_out, 0, &err) ||
			diff_write_all(&d, &bd, &err))) {
		error_print("diff: %s", err.buf);
		code = EXIT_IO;
		goto out;
	}
	print_summary(&d);
	if (opt_out)
		printf("diff: %s\n", opt_out);
	if (opt_fail_above && d.gate == DIFF_GATE_FAIL)
		code = EXIT_REGRESSION;
	else if (opt_fail_above && d.gate == DIFF_GATE_CANNOT_TELL)
		code = EXIT_CANNOT_TELL;
out:
	bundle_dir_close(&bd);
	if (computed)
		diff_release(&d);
	side_free(&a);
	side_free(&b);
	trace_args_release(&ta);
	strbuf_release(&err);
	return code;
}

const struct cmd_entry cmd_diff_entry = {
    .name = "diff",
    .usage = "A B [KEY=VALUE ...] [-o DIR] [--fail-above PCT] [--metric NAME] "
	     "[--allow-hardware-change]",
    .summary = "what changed between two runs, whether it is real, and a gate for CI",
    .description = "A and B are run bundles, traces (.sqlite, or an nsys report .nsys-rep or\n"
		   ".qdrep exported first with nsys; analysed as `report --trace` does), or\n"
		   "comma lists of repeated runs (A1,A2,A3; a path that exists is one run,\n"
		   "commas and all). KEY=VALUE overrides (stages.*, model=, infer.*,\n"
		   "hardware.*) apply to every input, as `report` applies them (a bundle's\n"
		   "config.yaml, or conf/ for a trace: --conf-dir).\n"
		   "Compares TTFT, TPOT, tokens/s,\n"
		   "GPU busy/idle and each stage's GPU time and MFU/MBU, with a 95 % interval of\n"
		   "each change (over runs when both sides have 2+, else over the per-step decode\n"
		   "times); kernels matched by mangled name, name, family and operator and\n"
		   "ranked by the change of their exposed time inside the stages (what no\n"
		   "earlier kernel covers), launches outside every stage apart; a waterfall\n"
		   "per stage whose terms sum to the stage's change; operators, counters of\n"
		   "the top movers and ranks. With -o DIR writes diff.md, diff.json and\n"
		   "diff.html. Exit codes: 0 ok (the gate passed), 2 usage, 3 a wrong override,\n"
		   "4 no nsys to export a report, 5 unreadable input, 6 the export failed,\n"
		   "7 cannot write, 9 --fail-above exceeded on --metric with significance,\n"
		   "10 the gate cannot tell (the metric missing on a side, no interval, an\n"
		   "interval too wide, or other GPUs without --allow-hardware-change).",
    .opts = opts,
    .exec = cmd_diff_exec,
};
