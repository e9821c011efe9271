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
 * Two ways in: the relative calls below, and entering a bundle_dir, after
 * which the path-based writers of fsutil.h (write_file_atomic,
 * atomic_file_open, create_temp_file, open_new_file, mkdir_real, mkdir_p,
 * fs_rename, fs_unlink) reach every path that lies beneath its path (the
 * same spelling: "<path>/<rel>") through it, so code that builds paths from
 * the bundle's folder stays as it is. */
#ifndef LLMPROF_BUNDLE_DIR_H
#define LLMPROF_BUNDLE_DIR_H

#include <stddef.h>

#include "core/strbuf.h"

struct bundle_dir {
	int fd;			 /* the root, O_PATH|O_DIRECTORY|O_CLOEXEC; -1 when closed */
	char *path;		 /* the root as named, no trailing '/'; owned */
	struct bundle_dir *next; /* the entered ones */
};
#define BUNDLE_DIR_INIT                                                                            \
	{                                                                                          \
		-1, NULL, NULL                                                                     \
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
/* Leaves (if entered) and closes; bd is BUNDLE_DIR_INIT again. */
void bundle_dir_close(struct bundle_dir *bd);

/* From now on the path-based writers of fsutil.h reach paths beneath
 * bd->path through bd (the longest entered root that matches wins), until
 * bundle_dir_leave() or bundle_dir_close(). */
void bundle_dir_enter(struct bundle_dir *bd);
void bundle_dir_leave(struct bundle_dir *bd);
/* bundle_dir_open() and bundle_dir_enter(). */
int bundle_dir_open_enter(struct bundle_dir *bd, const char *path, int flags, struct strbuf *err);

/* Relative names: no leading '/', no ".." component; "." and empty
 * components ("a//b") are skipped. Each returns -1 with err for a name that
 * breaks these rules ("'../x' is not a name inside 'b'") and for a symlink
 * or non-directory on the way ("'b/charts' is a symlink; llmprof writes
 * only into real directories"). */

/* Creates the folder rel (its parent must exist) or accepts it when it is
 * a real directory already (mkdir_real()). 0 or -1 with err. */
int bundle_dir_mkdir(const struct bundle_dir *bd, const char *rel, struct strbuf *err);
/* The same for rel and each missing folder above it (mkdir_p()). */
int bundle_dir_mkdirs(const struct bundle_dir *bd, const char *rel, struct strbuf *err);
/* write_file_atomic() of rel. */
int bundle_dir_write(const struct bundle_dir *bd, const char *rel, const void *data, size_t len,
		     struct strbuf *err);
/* Removes the file rel (not an error when it is absent). 0 or -1 with err. */
int bundle_dir_unlink(const struct bundle_dir *bd, const char *rel, struct strbuf *err);

/* Opens the folder holding rel: a new descriptor (O_PATH, close-on-exec),
 * reached without following a symlink; the last component of rel is set
 * into base (reset first). -1 with err; also when rel names the root. */
int bundle_dir_open_parent(const struct bundle_dir *bd, const char *rel, struct strbuf *base,
			   struct strbuf *err);
/* Opens the folder rel itself ("" is the root) the same way. */
int bundle_dir_open_dir(const struct bundle_dir *bd, const char *rel, struct strbuf *err);

/* The entered bundle_dir that path lies beneath, with *rel pointing into
 * path at the part below its root ("" for the root itself); NULL when
 * none. */
const struct bundle_dir *bundle_dir_find(const char *path, const char **rel);

/* For the path-based writers of fsutil.h: when path lies beneath an
 * entered bundle_dir, opens the folder that holds it (*dirfd, owned) and
 * sets its last component into name; else *dirfd = AT_FDCWD and name gets
 * path. 0 or -1 with err. */
int bundle_dir_resolve(const char *path, int *dirfd, struct strbuf *name, struct strbuf *err);

#endif
