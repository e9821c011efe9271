/* fuzz-sqlite.c: libFuzzer target for the trace reader (nsys and llmprof
 * SQLite exports) and everything computed from a loaded trace: every
 * `llmprof stats` report in every format, and the timeline analysis of
 * `llmprof report` (stages, operators, kernel summaries).
 *
 * Inputs are whole database files; the seed corpus (corpus/sqlite/, made
 * by make-corpus.sh) holds small nsys-schema exports cut from the real
 * fixtures and synthetic ones, so mutations land in real page layouts.
 * Under libFuzzer an execution opens the file and runs one of the reports
 * (in every format) or the timeline analysis, as fuzz.h picks; replay runs
 * them all, the reports on one handle and the analysis on a fresh one.
 *
 *   scripts/fuzz.sh 60 sqlite
 *
 * Properties besides memory safety and termination: a failure always says
 * why (err is not empty), and SQLite's own corruption errors come back as
 * errors, never as a crash. */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <sqlite3.h>

#include "analysis/nsysstats.h"
#include "analysis/timeline.h"
#include "core/strbuf.h"
#include "model/table.h"
#include "trace/trace.h"
#include "fuzz.h"
#include "core/banned.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static char db_path[64];

static void remove_db(void)
{
	unlink(db_path);
}

/* The input as the database file. Written over the last one and cut to
 * size, not unlinked and created again: on tmpfs that frees and allocates
 * every page for each input. */
static void write_db(const uint8_t *data, size_t size)
{
	int fd;
	size_t off = 0;

	if (!db_path[0]) {
		/* /dev/shm: the file is written and read once per input */
		snprintf(db_path, sizeof(db_path), "%s/fuzz-sqlite-%d.sqlite",
			 access("/dev/shm", W_OK) ? "/tmp" : "/dev/shm", (int)getpid());
		atexit(remove_db);
	}
	fd = open(db_path, O_WRONLY | O_CREAT, 0600);
	if (fd < 0)
		abort();
	while (off < size) {
		ssize_t n = pwrite(fd, data + off, size - off, (off_t)off);
		if (n <= 0)
			abort();
		off += (size_t)n;
	}
	if (ftruncate(fd, (off_t)size))
		abort();
	close(fd);
}

/* Opens path; a failure must say why. */
static int open_trace(struct trace *t, const char *path, struct strbuf *err)
{
	strbuf_reset(err);
	if (!trace_open(t, path, err))
		return 0;
	if (!err->len)
		abort();
	trace_close(t);
	return -1;
}

/* The reports pick selects (all of them for FUZZ_ALL), in every format. */
static void run_reports(struct trace *t, unsigned pick)
{
	static const struct table_column_opts grouped = {",", "\3"};
	static unsigned turn; /* both spellings of range names, by turns */
	struct strbuf err = STRBUF_INIT, msg = STRBUF_INIT, out = STRBUF_INIT;

	for (size_t i = 0; nsysstats_reports[i]; i++) {
		struct nsysstats_opts o = {turn++ % 2 ? NSYS_SPELL_2024 : NSYS_SPELL_2023};
		struct table tbl;
		int rc;

		if (!fuzz_runs(pick, (unsigned)i))
			continue;
		strbuf_reset(&err);
		strbuf_reset(&msg);
		rc = nsysstats_build(t, nsysstats_reports[i], &o, &tbl, &msg, &err);
		if (rc < 0 && !err.len)
			abort();
		if (rc > 0 && !msg.len)
			abort();
		if (rc)
			continue;
		strbuf_reset(&out);
		table_write_csv(&tbl, &out);
		table_write_md(&tbl, &out);
		table_write_json(&tbl, &out);
		table_write_column(&tbl, NULL, &out);
		table_write_column(&tbl, &grouped, &out);
		table_release(&tbl);
	}
	strbuf_release(&err);
	strbuf_release(&msg);
	strbuf_release(&out);
}

/* The timeline analysis from a fresh handle: it loads the parts itself. */
static void run_timeline(struct trace *t)
{
	struct strbuf err = STRBUF_INIT;
	struct timeline tl;
	struct stage_config cfg;

	stage_config_default(&cfg);
	memset(&tl, 0, sizeof(tl));
	if (timeline_build(&tl, t, &cfg, &err)) {
		if (!err.len)
			abort();
	}
	timeline_release(&tl);
	strbuf_release(&err);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static unsigned nreports;
	struct strbuf err = STRBUF_INIT;
	struct trace t;
	unsigned pick;

	if (!nreports)
		while (nsysstats_reports[nreports])
			nreports++;
	/* one of the reports, or the timeline (op nreports) */
	pick = fuzz_pick(data, size, nreports + 1);
	write_db(data, size);
	if (pick == FUZZ_ALL || pick < nreports) {
		if (open_trace(&t, db_path, &err))
			goto out;
		run_reports(&t, pick);
		trace_close(&t);
	}
	if (fuzz_runs(pick, nreports) && !open_trace(&t, db_path, &err)) {
		run_timeline(&t);
		trace_close(&t);
	}
out:
	strbuf_release(&err);
	return 0;
}
