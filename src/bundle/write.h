/* write.h: the run bundle, <artifacts.root>/<run_id>/ (docs/run-bundle.md).
 *
 * run_id is YYYYMMDD-HHMMSS-<4 hex>, the time in UTC (so ids sort the same
 * on every machine and do not jump at DST changes) and 16 random bits from
 * getrandom(). The run directory itself is made with one mkdir() that fails
 * on EEXIST, so two runs started in the same second never share a bundle:
 * the loser draws new random bits and tries again. <root>/latest is a
 * symlink to the newest run_id, replaced atomically (symlink + rename). */
#ifndef LLMPROF_BUNDLE_WRITE_H
#define LLMPROF_BUNDLE_WRITE_H

#include <stddef.h>
#include <stdint.h>

#include "core/bundle_dir.h"
#include "core/strbuf.h"

#define RUN_ID_LEN 20 /* "20261121-151102-a3f9" */

struct run_bundle {
	char run_id[RUN_ID_LEN + 1];
	char *root; /* absolute artifacts root, owned */
	char *dir;  /* absolute <root>/<run_id>, owned */
	int fixed;  /* dir was named by the caller (bundle_fix()), not by run_id */
	/* dir, opened by bundle_make(): every write beneath it is handed
	 * this descriptor (core/bundle_dir.h) */
	struct bundle_dir bd;
};
#define RUN_BUNDLE_INIT                                                                            \
	{                                                                                          \
		{0}, NULL, NULL, 0, BUNDLE_DIR_INIT                                                \
	}

/* Formats a run id from a wall-clock time (ns since the epoch, UTC) and 16
 * random bits into sb. Pure. */
void bundle_format_run_id(struct strbuf *sb, uint64_t wall_ns, unsigned rand16);
/* 1 when s has exactly the run id shape. */
int bundle_run_id_valid(const char *s);

/* Makes root absolute against the current directory, appending to sb. */
void bundle_abspath(struct strbuf *sb, const char *root);

/* Draws a run id that names no folder under root yet and fills b with it
 * (root made absolute); creates nothing, so the plan can be made for b->dir
 * before anything exists. Release with bundle_release(). */
void bundle_choose(struct run_bundle *b, const char *root);
/* Fills b with the folder <root>/<name> the caller chose (--rank-dir:
 * <DIR>/ranks/<rank>) and a fresh run id for status.json; creates nothing.
 * bundle_make() then refuses the folder when it exists (never two writers
 * in one bundle) and bundle_update_latest() makes no <root>/latest. */
void bundle_fix(struct run_bundle *b, const char *root, const char *name);
/* Fills b with the stand-in <root>/<run_id> that --dry-run shows; never
 * made. */
#define BUNDLE_STAND_IN_ID "<run_id>"
void bundle_stand_in(struct run_bundle *b, const char *root);
/* Creates b->root (and parents; an existing one is fine, so ranks starting
 * at once all succeed) and b->dir with logs/ inside. b->root, the user's,
 * is trusted as named; below it the folders are made and opened without
 * following a symlink (ranks/ of a fixed bundle included), and b->dir,
 * made by one mkdir(), is opened O_NOFOLLOW, checked to be ours and
 * kept as b->bd: nothing written beneath it follows a symlink. 0; 1
 * when b->dir exists by now (another run drew the same id since
 * bundle_choose(): choose again); -1 with err (also when a fixed b->dir
 * exists, or b->dir was replaced before it could be opened). err is set in
 * both cases. */
int bundle_make(struct run_bundle *b, struct strbuf *err);
/* bundle_choose() and bundle_make() until the folder is this run's.
 * 0, or -1 with err. */
int bundle_create(struct run_bundle *b, const char *root, struct strbuf *err);
void bundle_release(struct run_bundle *b);

/* Appends <dir>/<rel> to sb. */
void bundle_path(const struct run_bundle *b, const char *rel, struct strbuf *sb);
/* Writes <dir>/<rel> atomically (temp + rename), through b->bd once the
 * bundle is made. */
int bundle_write(const struct run_bundle *b, const char *rel, const void *data, size_t len,
		 struct strbuf *err);
/* Checks that the run directory and the folders llmprof writes into inside
 * it are still real directories (the profiled program may have replaced
 * one by a symlink), so that the run says so early: writes could not go
 * through one anyway (b->bd). 0; -1 with err when a folder was replaced; -2 with err
 * when the run directory itself was: then nothing may be written at all. */
int bundle_check_dirs(const struct run_bundle *b, struct strbuf *err);

/* Points <root>/latest at this run, atomically; nothing for a fixed
 * bundle. */
int bundle_update_latest(const struct run_bundle *b, struct strbuf *err);

#endif
