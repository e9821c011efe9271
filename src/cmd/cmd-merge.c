/* cmd-merge.c: `llmprof merge RUN`: the cross-rank reports of a run folder
 * that `llmprof profile --rank-dir RUN` filled, one rank at a time, from
 * each rank's summaries (analysis/merge.h), into RUN/merged/ (or -o DIR).
 * Missing or failed ranks do not stop it: they are listed and the exit
 * code says the merge is incomplete. */
#include <stdio.h>
#include <string.h>

#include "bundle/layout.h"
#include "analysis/merge.h"
#include "cmd/cmd.h"
#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "report/merged.h"
#include "core/banned.h"

static const char *opt_out;

static const struct opt opts[] = {
    {"output", 'o', OPT_STRING, &opt_out, "DIR",
     "write merged.md and merged.json into DIR "
     "instead of RUN/merged/"},
    OPT_END_MARK,
};

/* "ranks 2, 3 missing; rank 1 failed (...)" into sb. */
static void incomplete_text(const struct merge_result *r, struct strbuf *sb)
{
	if (r->nmissing) {
		strbuf_addf(sb, "rank%s", r->nmissing > 1 ? "s" : "");
		for (size_t i = 0; i < r->nmissing; i++)
			strbuf_addf(sb, "%s %d", i ? "," : "", r->missing[i]);
		strbuf_addstr(sb, " missing");
	}
	for (size_t i = 0; i < r->nranks; i++)
		if (r->ranks[i].failed)
			strbuf_addf(sb, "%srank %d failed (%s)", sb->len ? "; " : "",
				    r->ranks[i].rank, r->ranks[i].why);
}

/* merged.md and merged.json into the folder rel beneath root (RUN and
 * "merged", or the -o DIR itself and ""): root is the user's, as named;
 * below it nothing is written through a symlink. 0 or -1 with err. */
static int write_merged(const struct merge_result *r, const char *root, const char *rel,
			struct strbuf *err)
{
	struct bundle_dir bd = BUNDLE_DIR_INIT;
	int ret = -1;

	if ((*rel || !mkdir_real(root, err)) && !bundle_dir_open(&bd, root, 0, err) &&
	    !bundle_dir_mkdir(&bd, rel, err))
		ret = merged_write(r, &bd, rel, err);
	bundle_dir_close(&bd);
	return ret;
}

/* "incomplete: ranks 2, 3 missing; rank 1 failed" on stderr. */
static void print_incomplete(const struct merge_result *r)
{
	struct strbuf sb = STRBUF_INIT;

	incomplete_text(r, &sb);
	note_print("merge: incomplete: %s", sb.buf);
	strbuf_release(&sb);
}

void merge_after_rank(const char *run_dir, int world_size, int quiet)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT, sb = STRBUF_INIT;
	struct merge_result r;

	if (!merge_all_ended(run_dir, world_size))
		return;
	if (merge_run(run_dir, &r, &err)) {
		warning_print("merge: every rank has ended, but: %s; run 'llmprof merge %s'",
			      err.buf, run_dir);
		goto out;
	}
	path_join(&out, run_dir, bundle_art(BA_MERGED_DIR));
	if (write_merged(&r, run_dir, bundle_art(BA_MERGED_DIR), &err))
		warning_print("merge: every rank has ended, but: %s", err.buf);
	else if (!quiet) {
		if (r.slowest_rank >= 0)
			strbuf_addf(&sb, "; slowest: rank %d by %s", r.slowest_rank, r.slowest_by);
		if (r.nmissing || r.nfailed) {
			strbuf_addstr(&sb, "; incomplete: ");
			incomplete_text(&r, &sb);
		}
		fprintf(stderr, "llmprof: every rank has ended: merged into %s%s\n", out.buf,
			sb.buf);
	}
	merge_result_release(&r);
out:
	strbuf_release(&err);
	strbuf_release(&out);
	strbuf_release(&sb);
}

static int cmd_merge_exec(struct cmd_ctx *ctx)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct merge_result r;
	int code = EXIT_OK;

	if (ctx->argc != 1 || (opt_out && !*opt_out)) {
		error_print(ctx->argc != 1 ? "merge: expected one RUN folder (see 'llmprof merge "
					     "--help')"
					   : "merge: option '--output' needs a directory");
		return EXIT_USAGE;
	}
	if (!path_is_dir(ctx->argv[0])) {
		if (!path_broken_link(ctx->argv[0], &err))
			error_set(&err, "'%s' is not a directory", ctx->argv[0]);
		error_print("merge: %s", err.buf);
		strbuf_release(&err);
		return EXIT_BAD_INPUT;
	}
	if (merge_run(ctx->argv[0], &r, &err)) {
		error_print("merge: %s", err.buf);
		strbuf_release(&err);
		return EXIT_BAD_INPUT;
	}
	if (opt_out)
		strbuf_addstr(&out, opt_out);
	else
		path_join(&out, ctx->argv[0], bundle_art(BA_MERGED_DIR));
	if (write_merged(&r, opt_out ? opt_out : ctx->argv[0],
			 opt_out ? "" : bundle_art(BA_MERGED_DIR), &err)) {
		error_print("merge: %s", err.buf);
		code = EXIT_IO;
		goto out;
	}
	if (r.nmissing || r.nfailed) {
		print_incomplete(&r);
		code = EXIT_INCOMPLETE;
	}
	if (r.slowest_rank >= 0)
		printf("slowest: rank %d by %s\n", r.slowest_rank, r.slowest_by);
	printf("merged: %s\n", out.buf);
out:
	merge_result_release(&r);
	strbuf_release(&err);
	strbuf_release(&out);
	return code;
}

const struct cmd_entry cmd_merge_entry = {
    .name = "merge",
    .usage = "[-o DIR] RUN",
    .summary = "merge the ranks of 'profile --rank-dir RUN' into cross-rank reports",
    .description = "Reads RUN/ranks/<rank>/ (rank.json, status.json, metrics.json and,\n"
		   "where the rank ran NCCL kernels, collectives.tsv), one rank at a time,\n"
		   "never a trace, and writes RUN/merged/merged.md and merged.json: each\n"
		   "stage's min/median/max over ranks and the slowest rank, one row per\n"
		   "rank, and the NCCL collectives matched across ranks (wait, transfer,\n"
		   "stragglers, clocks aligned across hosts). The last rank of 'profile\n"
		   "--rank-dir' to end runs it on its own when the world size is known;\n"
		   "run it by hand after a job whose ranks did not all end, or to merge\n"
		   "again.\n"
		   "Exit codes: 0 ok, 2 usage, 5 RUN is not such a folder or a rank's file\n"
		   "is damaged, 7 cannot write, 8 incomplete: ranks missing or failed (the\n"
		   "others are merged; stderr says which) (docs/exit-codes.md).",
    .opts = opts,
    .exec = cmd_merge_exec,
};
