/* bundle_dir.h: writing only beneath a folder llmprof owns (a run bundle,
 * the folder `report` or `merge` writes into), whatever replaces its
 * subfolders meanwhile.
 *
 * The folder is opened once (O_DIRECTORY) and every file or folder made,
 * renamed or removed inside it is reached from that descriptor: the
 * relative name is resolved with openat2(RESOLVE_BENEATH |
 * RESOLVE_NO_SYMLINKS) where the kernel has it, else one component at a
 * time with openat(O_DIRECTORY | O_NOFOLLOW), and the last step is a *at()
 * call on the folder found. So no symlink below the root is ever followed
 * (one there is an error naming it), no ".." climbs out, and a subfolder
 * swapped for a symlink after it was checked cannot redirect a write: the
 * write fails, or lands in the folder that was checked. What is above the
 * root (the user's own path to it) is trusted as given.
 *
 * Every writer takes the bundle_dir explicitly, with a name relative to
 * its root; no writer finds it by looking a path up elsewhere. A NULL
 * bundle_dir means a path the user named and llmprof trusts as given
 * (`stats -o PREFIX`, a test's folder): the same calls then act on the
 * path itself, as the path-based writers of fsutil.h do. */
#ifndef LLMPROF_BUNDLE_DIR_H
#define LLMPROF_BUNDLE_DIR_H

#include <stddef.h>

#include "core/fsutil.h"
#include "core/strbuf.h"

struct bundle_dir {
	int fd;	    /* the root, O_PATH|O_DIRECTORY|O_CLOEXEC; -1 when closed */
	char *path; /* the root as named, no trailing '/'; owned */
};
#define BUNDLE_DIR_INIT                                                                            \
	{                                                                                          \
		-1, NULL                                                                           \
	}

/* bundle_dir_open() flags */
#define BUNDLE_DIR_NOFOLLOW 1 /* the root itself may not be a symlink */
#define BUNDLE_DIR_OWN 2      /* and must belong to us (our effective uid) */

/* Opens the folder path as the root. Without BUNDLE_DIR_NOFOLLOW a symlink
 * at path is followed (the user named it, e.g. <root>/latest). 0 or -1
 * with err ("'p' is a symlink; ...", "'p' is not a directory", "'p'
 * belongs to uid N, not to the user llmprof runs as"). */
int bundle_dir_open(struct bundle_dir *bd, const char *path, int flags, struct strbuf *err);
/* Opens the folder rel beneath bd (never through a symlink) as the root
 * of sub, its path "<bd's>/<rel>"; flags as above (BUNDLE_DIR_OWN checks
 * the owner). 0 or -1 with err. */
int bundle_dir_open_sub(struct bundle_dir *sub, const struct bundle_dir *bd, const char *rel,
			int flags, struct strbuf *err);
/* Closes; bd is BUNDLE_DIR_INIT again. */
void bundle_dir_close(struct bundle_dir *bd);

/* Relative names: no leading '/', no ".." component; "." and empty
 * components ("a//b") are skipped. Each returns -1 with err for a name that
 * breaks these rules ("'../x' is not a name inside 'b'") and for a symlink
 * or non-directory on the way ("'b/charts' is a symlink; llmprof writes
 * only into real directories"). */

/* Each writer below, given bd NULL, acts on rel as a path (AT_FDCWD), the
 * user's and trusted as named. */

/* Creates the folder rel (its parent must exist) or accepts it when it is
 * a real directory already (mkdir_real()). 0 or -1 with err. */
int bundle_dir_mkdir(const struct bundle_dir *bd, const char *rel, struct strbuf *err);
/* The same for rel and each missing folder above it (mkdir_p()). */
int bundle_dir_mkdirs(const struct bundle_dir *bd, const char *rel, struct strbuf *err);
/* write_file_atomic() of rel. */
int bundle_dir_write(const struct bundle_dir *bd, const char *rel, const void *data, size_t len,
		     struct strbuf *err);
/* atomic_file_open() of rel: af's temporary file is made in the folder
 * that holds rel, and atomic_file_commit() renames it there. */
int bundle_dir_atomic_open(const struct bundle_dir *bd, const char *rel, struct atomic_file *af,
			   struct strbuf *err);
/* open_new_file() of rel (a log): whatever is at rel is removed, never
 * written through. The descriptor (close-on-exec), or -1 with err. */
int bundle_dir_new_file(const struct bundle_dir *bd, const char *rel, struct strbuf *err);
/* create_temp_file() for rel: "<rel>.tmp.<random>" is appended to tmp
 * (relative to bd, like rel). The descriptor, or -1 with err. Rename it
 * with bundle_dir_rename(), remove it with bundle_dir_unlink(). */
int bundle_dir_temp_file(const struct bundle_dir *bd, const char *rel, struct strbuf *tmp,
			 struct strbuf *err);
/* rename(from, to), both relative to bd: a symlink at to is replaced
 * itself. 0 or -1 with err. */
int bundle_dir_rename(const struct bundle_dir *bd, const char *from, const char *to,
		      struct strbuf *err);
/* Removes the file rel (not an error when it is absent). 0 or -1 with err. */
int bundle_dir_unlink(const struct bundle_dir *bd, const char *rel, struct strbuf *err);
/* "<root>/<rel>" (rel itself for bd NULL) appended to sb: how messages
 * name rel, and the path a program that opens files by name (SQLite) is
 * given. */
void bundle_dir_path(const struct bundle_dir *bd, const char *rel, struct strbuf *sb);
/* The path a program that opens files by name and refuses every symlink
 * on the way (SQLite's SQLITE_OPEN_NOFOLLOW) is given for rel: the root's
 * real path (what the user's path to it resolves to, symlinks above or at
 * the root followed once here) joined with rel unchanged, so a symlink
 * inside the bundle is still refused by that program. For bd NULL the
 * folder holding rel is resolved and rel's last component kept. Appended
 * to sb; 0, or -1 with err (the folder is gone). */
int bundle_dir_real_path(const struct bundle_dir *bd, const char *rel, struct strbuf *sb,
			 struct strbuf *err);

/* Opens the folder holding rel: a new descriptor (O_PATH, close-on-exec),
 * reached without following a symlink; the last component of rel is set
 * into base (reset first). -1 with err; also when rel names the root. */
int bundle_dir_open_parent(const struct bundle_dir *bd, const char *rel, struct strbuf *base,
			   struct strbuf *err);
/* Opens the folder rel itself ("" is the root) the same way. */
int bundle_dir_open_dir(const struct bundle_dir *bd, const char *rel, struct strbuf *err);

#endif
