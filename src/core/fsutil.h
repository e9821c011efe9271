/* fsutil.h: paths and files: mkdir -p, atomic writes (temp + rename), so a
 * reader never sees half a file. */
#ifndef LLMPROF_FSUTIL_H
#define LLMPROF_FSUTIL_H

#include <stddef.h>
#include <stdio.h>

#include "core/strbuf.h"

/* The path-based writers here (mkdir_p, mkdir_real, create_temp_file,
 * open_new_file, write_file_atomic, atomic_file_open, fs_rename,
 * fs_unlink) act on the path as given, symlinks in it followed: for paths
 * the user named. What llmprof writes into a folder it owns (a run bundle,
 * report's or merge's output) goes through core/bundle_dir.h, which builds
 * on the *_at forms: they act on the entry name in the folder dirfd
 * (AT_FDCWD: name is a path as given); shown names it in messages. */

/* Creates dir and its parents (mode 0777 & ~umask). 0 or -1 with err. */
int mkdir_p(const char *dir, struct strbuf *err);

/* Creates dir (its parent must exist) or accepts it when it is already a
 * real directory: never a symlink, so that files written into it stay where
 * they were meant to be (inside a run bundle). 0 or -1 with err. */
int mkdir_real(const char *dir, struct strbuf *err);
int mkdir_real_at(int dirfd, const char *name, const char *shown, struct strbuf *err);

/* Creates a new file "<path>.tmp.<random>" with O_EXCL|O_NOFOLLOW, so a
 * symlink or file planted beforehand is never written through; its name is
 * appended to tmp (create_temp_file_at: name's). Returns the fd
 * (close-on-exec) or -1 with err. Rename or remove it with fs_rename() and
 * fs_unlink(), which reach it the same way. */
int create_temp_file(const char *path, struct strbuf *tmp, struct strbuf *err);
int create_temp_file_at(int dirfd, const char *name, const char *shown, struct strbuf *tmp,
			struct strbuf *err);

/* Opens path as a new, empty file of our own: whatever was there (a symlink,
 * a hard link to another file) is removed first, never written through. */
int open_new_file(const char *path, struct strbuf *err);
int open_new_file_at(int dirfd, const char *name, const char *shown, struct strbuf *err);

/* rename(from, to): a symlink at to is replaced itself. 0 or -1 with err
 * ("cannot rename 'a' to 'b': ..."). */
int fs_rename(const char *from, const char *to, struct strbuf *err);
/* unlink(path): 0 or -1 with errno. */
int fs_unlink(const char *path);

/* Writes len bytes to path atomically: a temporary file from
 * create_temp_file(), fsync, rename in the folder the temporary file was
 * made in. The rename replaces a symlink at path itself, never its target.
 * On failure the old file (if any) is intact and the temp file removed. */
int write_file_atomic(const char *path, const void *data, size_t len, struct strbuf *err);
int write_file_atomic_at(int dirfd, const char *name, const char *shown, const void *data,
			 size_t len, struct strbuf *err);

/* An atomic FILE* writer: open, write with stdio, then commit or abort. */
struct atomic_file {
	FILE *fp;
	char *path;	/* final path as shown in messages, owned */
	char *name;	/* final name in dirfd (a path without one), owned */
	char *tmp_name; /* the temporary file's, owned */
	int dirfd;	/* the folder's descriptor (owned), or -1 */
};
#define ATOMIC_FILE_INIT                                                                           \
	{                                                                                          \
		NULL, NULL, NULL, NULL, -1                                                         \
	}
int atomic_file_open(struct atomic_file *af, const char *path, struct strbuf *err);
/* The same for name in the folder dirfd (duplicated: the caller keeps
 * dirfd). */
int atomic_file_open_at(struct atomic_file *af, int dirfd, const char *name, const char *shown,
			struct strbuf *err);
/* Flushes, checks for write errors (ENOSPC), fsyncs and renames. Always
 * releases af. */
int atomic_file_commit(struct atomic_file *af, struct strbuf *err);
/* Removes the temp file and releases af. */
void atomic_file_abort(struct atomic_file *af);
/* Ends the process with _exit(code), at once when no atomic_file is open,
 * else as soon as the last open one is committed or aborted: every file
 * stays whole and no temporary file is left (write_file_atomic() and the
 * JSON writers go through atomic_file; create_temp_file() alone does not
 * count). Async-signal-safe: for a signal handler (proc.h's second
 * interrupt). */
void atomic_exit(int code);

/* Joins a and b with one '/' into sb (appending). */
void path_join(struct strbuf *sb, const char *a, const char *b);
int path_exists(const char *path);
int path_is_dir(const char *path);
/* 0 when path names something (stat() follows links), else -1 with err
 * saying why in one line: "cannot read 'x': No such file or directory",
 * "'x' is a symlink loop", "'x' is a dangling symlink (to 'y')". */
int path_check_exists(const char *path, struct strbuf *err);
/* -1 with err ("'x' is a symlink loop", "'x' is a dangling symlink (to
 * 'y')") when path is a symlink stat() cannot follow, else 0. */
int path_broken_link(const char *path, struct strbuf *err);
/* Why path, which exists, is not a directory we can use: "'x' is a symlink
 * loop", "'x' is a dangling symlink (to 'y')", else "'x' exists and is not
 * a directory". Returns -1. */
int path_not_dir_error(const char *path, struct strbuf *err);
int path_is_executable_file(const char *path);

/* Finds an executable by name on PATH (or checks it when it has a '/').
 * Returns an owned absolute-or-given path, or NULL. */
char *find_in_path(const char *name);

/* The directory holding the running executable (owned), from /proc/self/exe. */
char *exe_dir(void);

/* Input files: every file llmprof reads is opened once with
 * O_NONBLOCK|O_CLOEXEC (a FIFO cannot block the open), checked with fstat
 * to be a regular file (no FIFO, device, /dev/zero or directory) and read
 * whole only when it holds at most cap bytes. Caps (docs/exit-codes.md): */
#define INPUT_CAP_TEXT ((size_t)16 << 20) /* YAML config, a bundle's JSON */
#define INPUT_CAP_DATA ((size_t)2 << 30)  /* a CSV, analytic.json */

/* Opens path for reading and checks that it is a regular file. Returns the
 * descriptor (O_NONBLOCK cleared) or -1 with err ("cannot open 'p': ...",
 * "'p' is a FIFO, not a regular file"). *size gets its size if non-NULL. */
int open_regular_file(const char *path, size_t cap, size_t *size, struct strbuf *err);
/* open_regular_file, then the whole file into sb (appended). 0 or -1 with
 * err ("cannot read 'p': ..." when it cannot be opened). */
int read_regular_file(const char *path, size_t cap, struct strbuf *sb, struct strbuf *err);

#endif
