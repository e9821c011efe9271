/* bundle_dir.c: see bundle_dir.h. */
#define _GNU_SOURCE /* O_PATH */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <fcntl.h>
#include <linux/openat2.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "core/bundle_dir.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "core/banned.h"

#define DIR_FLAGS (O_PATH | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC)

int bundle_dir_open(struct bundle_dir *bd, const char *path, int flags, struct strbuf *err)
{
	int nofollow = flags & (BUNDLE_DIR_NOFOLLOW | BUNDLE_DIR_OWN);
	size_t len = strlen(path);
	struct stat st;
	int fd;

	fd = open(path, O_PATH | O_DIRECTORY | O_CLOEXEC | (nofollow ? O_NOFOLLOW : 0));
	if (fd < 0) {
		if (nofollow && !lstat(path, &st) && S_ISLNK(st.st_mode))
			return error_set(
			    err, "'%s' is a symlink; llmprof writes only into real directories",
			    path);
		if (errno == ENOTDIR)
			return error_set(err, "'%s' is not a directory", path);
		return error_errno(err, "cannot open directory '%s'", path);
	}
	if (fstat(fd, &st) || !S_ISDIR(st.st_mode)) {
		close(fd);
		return error_set(err, "'%s' is not a directory", path);
	}
	if ((flags & BUNDLE_DIR_OWN) && st.st_uid != geteuid()) {
		close(fd);
		return error_set(err, "'%s' belongs to uid %lu, not to the user llmprof runs as",
				 path, (unsigned long)st.st_uid);
	}
	bundle_dir_close(bd);
	while (len > 1 && path[len - 1] == '/')
		len--;
	bd->fd = fd;
	bd->path = xstrndup(path, len);
	return 0;
}

void bundle_dir_close(struct bundle_dir *bd)
{
	if (bd->fd >= 0)
		close(bd->fd);
	bd->fd = -1;
	FREE_AND_NULL(bd->path);
}

/* rel as components joined by one '/', without "." and empty ones, into
 * out (reset first). -1 with err for an absolute name or "..". */
static int normalize(const struct bundle_dir *bd, const char *rel, struct strbuf *out,
		     struct strbuf *err)
{
	const char *p = rel;

	strbuf_reset(out);
	if (*rel == '/')
		return error_set(err, "'%s' is not a name inside '%s'", rel, bd->path);
	while (*p) {
		size_t n = strcspn(p, "/");

		if (n == 2 && !strncmp(p, "..", 2))
			return error_set(err, "'%s' is not a name inside '%s'", rel, bd->path);
		if (n && !(n == 1 && *p == '.')) {
			if (out->len)
				strbuf_addch(out, '/');
			strbuf_add(out, p, n);
		}
		p += n;
		while (*p == '/')
			p++;
	}
	return 0;
}

/* openat2() where the kernel has it: 1 until it says ENOSYS (or a
 * container's filter says EPERM), then the walk alone. */
static int have_openat2 = 1;

static int open_beneath2(int root, const char *rel)
{
	struct open_how how;
	long fd;

	if (!have_openat2)
		return -1;
	memset(&how, 0, sizeof(how));
	how.flags = O_PATH | O_DIRECTORY | O_CLOEXEC;
	how.resolve = RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS | RESOLVE_NO_MAGICLINKS;
	fd = syscall(SYS_openat2, root, rel, &how, sizeof(how));
	if (fd < 0 && (errno == ENOSYS || errno == EPERM || errno == E2BIG || errno == EINVAL))
		have_openat2 = 0;
	return (int)fd;
}

/* Why the component name in the folder dfd cannot be walked into: one
 * line naming shown (the path up to it). Returns -1. */
static int walk_error(int dfd, const char *name, const char *shown, struct strbuf *err)
{
	int saved = errno;
	struct stat st;

	if (!fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW)) {
		if (S_ISLNK(st.st_mode))
			return error_set(
			    err, "'%s' is a symlink; llmprof writes only into real directories",
			    shown);
		if (!S_ISDIR(st.st_mode))
			return error_set(err, "'%s' exists and is not a directory", shown);
	}
	errno = saved;
	return error_errno(err, "cannot open directory '%s'", shown);
}

/* The folder norm (normalized; "" = the root) beneath bd, one component
 * at a time, each opened O_NOFOLLOW from the one before; with create, a
 * missing component is made first. A new descriptor or -1 with err. */
static int walk(const struct bundle_dir *bd, const char *norm, int create, struct strbuf *err)
{
	struct strbuf shown = STRBUF_INIT, name = STRBUF_INIT;
	const char *p = norm;
	int cur = fcntl(bd->fd, F_DUPFD_CLOEXEC, 0);

	if (cur < 0) {
		error_errno(err, "cannot open directory '%s'", bd->path);
		goto out;
	}
	strbuf_addstr(&shown, bd->path);
	while (*p) {
		size_t n = strcspn(p, "/");
		int next;

		strbuf_reset(&name);
		strbuf_add(&name, p, n);
		path_join(&shown, "", name.buf);
		if (create && mkdirat(cur, name.buf, 0777) && errno != EEXIST) {
			error_errno(err, "cannot create directory '%s'", shown.buf);
			next = -1;
		} else {
			next = openat(cur, name.buf, DIR_FLAGS);
			if (next < 0)
				walk_error(cur, name.buf, shown.buf, err);
		}
		close(cur);
		cur = next;
		if (cur < 0)
			break;
		p += n + (p[n] == '/');
	}
out:
	strbuf_release(&shown);
	strbuf_release(&name);
	return cur;
}

/* The folder norm beneath bd: openat2() in one call, the walk when the
 * kernel has none or it fails (the walk then says why, or finds the folder
 * if it appeared meanwhile: as safe). */
static int open_norm(const struct bundle_dir *bd, const char *norm, int create, struct strbuf *err)
{
	int fd;

	if (bd->fd < 0)
		return error_set(err, "'%s' is closed", bd->path ? bd->path : "(bundle)");
	if (!create && *norm && (fd = open_beneath2(bd->fd, norm)) >= 0)
		return fd;
	return walk(bd, norm, create, err);
}

int bundle_dir_open_dir(const struct bundle_dir *bd, const char *rel, struct strbuf *err)
{
	struct strbuf norm = STRBUF_INIT;
	int fd = normalize(bd, rel, &norm, err) ? -1 : open_norm(bd, norm.buf, 0, err);

	strbuf_release(&norm);
	return fd;
}

/* "<root>/<rel>" for messages. */
static void shown_path(const struct bundle_dir *bd, const char *rel, struct strbuf *sb)
{
	strbuf_reset(sb);
	path_join(sb, bd->path ? bd->path : "", rel);
}

/* The parent folder of norm (opened, made first with create) and the last
 * component into base. */
static int open_parent(const struct bundle_dir *bd, const char *rel, int create,
		       struct strbuf *base, struct strbuf *err)
{
	struct strbuf norm = STRBUF_INIT;
	char *slash;
	int fd = -1;

	strbuf_reset(base);
	if (normalize(bd, rel, &norm, err))
		goto out;
	if (!norm.len) {
		error_set(err, "'%s' is a folder, not a file name inside it", bd->path);
		goto out;
	}
	slash = strrchr(norm.buf, '/');
	strbuf_addstr(base, slash ? slash + 1 : norm.buf);
	strbuf_setlen(&norm, slash ? (size_t)(slash - norm.buf) : 0);
	fd = open_norm(bd, norm.buf, create, err);
out:
	strbuf_release(&norm);
	return fd;
}

int bundle_dir_open_sub(struct bundle_dir *sub, const struct bundle_dir *bd, const char *rel,
			int flags, struct strbuf *err)
{
	struct strbuf norm = STRBUF_INIT, shown = STRBUF_INIT;
	struct stat st;
	int fd = -1, ret = -1;

	if (normalize(bd, rel, &norm, err) || (fd = open_norm(bd, norm.buf, 0, err)) < 0)
		goto out;
	shown_path(bd, norm.buf, &shown);
	if (fstat(fd, &st)) {
		error_errno(err, "cannot open directory '%s'", shown.buf);
		goto out;
	}
	if ((flags & BUNDLE_DIR_OWN) && st.st_uid != geteuid()) {
		error_set(err, "'%s' belongs to uid %lu, not to the user llmprof runs as",
			  shown.buf, (unsigned long)st.st_uid);
		goto out;
	}
	bundle_dir_close(sub);
	sub->fd = fd;
	sub->path = strbuf_detach(&shown, NULL);
	fd = -1;
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&norm);
	strbuf_release(&shown);
	return ret;
}

int bundle_dir_open_parent(const struct bundle_dir *bd, const char *rel, struct strbuf *base,
			   struct strbuf *err)
{
	return open_parent(bd, rel, 0, base, err);
}

static int mkdir_in(const struct bundle_dir *bd, const char *rel, int parents, struct strbuf *err)
{
	struct strbuf base = STRBUF_INIT, shown = STRBUF_INIT, norm = STRBUF_INIT;
	int fd, ret = -1;

	if (!bd)
		return parents ? mkdir_p(rel, err) : mkdir_real(rel, err);
	if (normalize(bd, rel, &norm, err))
		goto out;
	if (!norm.len) { /* the root: open, so a real directory */
		ret = bd->fd >= 0 ? 0 : error_set(err, "'%s' is closed", bd->path);
		goto out;
	}
	fd = open_parent(bd, norm.buf, parents, &base, err);
	if (fd < 0)
		goto out;
	shown_path(bd, norm.buf, &shown);
	ret = mkdir_real_at(fd, base.buf, shown.buf, err);
	close(fd);
out:
	strbuf_release(&base);
	strbuf_release(&shown);
	strbuf_release(&norm);
	return ret;
}

int bundle_dir_mkdir(const struct bundle_dir *bd, const char *rel, struct strbuf *err)
{
	return mkdir_in(bd, rel, 0, err);
}

int bundle_dir_mkdirs(const struct bundle_dir *bd, const char *rel, struct strbuf *err)
{
	return mkdir_in(bd, rel, 1, err);
}

int bundle_dir_write(const struct bundle_dir *bd, const char *rel, const void *data, size_t len,
		     struct strbuf *err)
{
	struct strbuf base = STRBUF_INIT, shown = STRBUF_INIT;
	int fd, ret = -1;

	if (!bd)
		return write_file_atomic(rel, data, len, err);
	fd = open_parent(bd, rel, 0, &base, err);
	if (fd >= 0) {
		shown_path(bd, rel, &shown);
		ret = write_file_atomic_at(fd, base.buf, shown.buf, data, len, err);
		close(fd);
	}
	strbuf_release(&base);
	strbuf_release(&shown);
	return ret;
}

int bundle_dir_unlink(const struct bundle_dir *bd, const char *rel, struct strbuf *err)
{
	struct strbuf base = STRBUF_INIT;
	int fd, ret = -1;

	if (!bd) {
		if (unlink(rel) && errno != ENOENT)
			return error_errno(err, "cannot remove '%s'", rel);
		return 0;
	}
	fd = open_parent(bd, rel, 0, &base, err);
	if (fd >= 0) {
		ret = 0;
		if (unlinkat(fd, base.buf, 0) && errno != ENOENT) {
			struct strbuf shown = STRBUF_INIT;

			shown_path(bd, rel, &shown);
			ret = error_errno(err, "cannot remove '%s'", shown.buf);
			strbuf_release(&shown);
		}
		close(fd);
	}
	strbuf_release(&base);
	return ret;
}

/* The folder holding rel, opened (*fd, owned by the caller; AT_FDCWD for
 * bd NULL), its last component into base and rel as messages show it into
 * shown. 0 or -1 with err. */
static int locate(const struct bundle_dir *bd, const char *rel, int *fd, struct strbuf *base,
		  struct strbuf *shown, struct strbuf *err)
{
	strbuf_reset(base);
	strbuf_reset(shown);
	if (!bd) {
		*fd = AT_FDCWD;
		strbuf_addstr(base, rel);
		strbuf_addstr(shown, rel);
		return 0;
	}
	*fd = open_parent(bd, rel, 0, base, err);
	if (*fd < 0)
		return -1;
	shown_path(bd, rel, shown);
	return 0;
}

static void unlocate(int fd)
{
	if (fd >= 0)
		close(fd);
}

int bundle_dir_atomic_open(const struct bundle_dir *bd, const char *rel, struct atomic_file *af,
			   struct strbuf *err)
{
	struct strbuf base = STRBUF_INIT, shown = STRBUF_INIT;
	int fd, ret = -1;

	if (!locate(bd, rel, &fd, &base, &shown, err)) {
		ret = atomic_file_open_at(af, fd, base.buf, shown.buf, err);
		unlocate(fd);
	}
	strbuf_release(&base);
	strbuf_release(&shown);
	return ret;
}

int bundle_dir_new_file(const struct bundle_dir *bd, const char *rel, struct strbuf *err)
{
	struct strbuf base = STRBUF_INIT, shown = STRBUF_INIT;
	int dfd, fd = -1;

	if (!locate(bd, rel, &dfd, &base, &shown, err)) {
		fd = open_new_file_at(dfd, base.buf, shown.buf, err);
		unlocate(dfd);
	}
	strbuf_release(&base);
	strbuf_release(&shown);
	return fd;
}

int bundle_dir_temp_file(const struct bundle_dir *bd, const char *rel, struct strbuf *tmp,
			 struct strbuf *err)
{
	struct strbuf base = STRBUF_INIT, shown = STRBUF_INIT, made = STRBUF_INIT;
	int dfd, fd = -1;

	if (!locate(bd, rel, &dfd, &base, &shown, err)) {
		fd = create_temp_file_at(dfd, base.buf, shown.buf, &made, err);
		if (fd >= 0) /* the same suffix on rel as given */
			strbuf_addf(tmp, "%s%s", rel, made.buf + base.len);
		unlocate(dfd);
	}
	strbuf_release(&base);
	strbuf_release(&shown);
	strbuf_release(&made);
	return fd;
}

int bundle_dir_rename(const struct bundle_dir *bd, const char *from, const char *to,
		      struct strbuf *err)
{
	struct strbuf a = STRBUF_INIT, b = STRBUF_INIT, sa = STRBUF_INIT, sb = STRBUF_INIT;
	int dfa = -1, dfb = -1, ret = -1;

	if (!locate(bd, from, &dfa, &a, &sa, err) && !locate(bd, to, &dfb, &b, &sb, err)) {
		ret = renameat(dfa, a.buf, dfb, b.buf);
		if (ret)
			error_errno(err, "cannot rename '%s' to '%s'", sa.buf, sb.buf);
	}
	unlocate(dfa);
	unlocate(dfb);
	strbuf_release(&a);
	strbuf_release(&b);
	strbuf_release(&sa);
	strbuf_release(&sb);
	return ret;
}

void bundle_dir_path(const struct bundle_dir *bd, const char *rel, struct strbuf *sb)
{
	if (bd)
		path_join(sb, bd->path ? bd->path : "", rel);
	else
		strbuf_addstr(sb, rel);
}

/* The real path of the folder open as fd, named path: what /proc says fd
 * is (the very folder opened, whatever renamed the path since), else
 * realpath(path). Malloc'd, or NULL with errno. */
static char *real_dir(int fd, const char *path)
{
	char link[64], buf[PATH_MAX];
	ssize_t n = -1;

	if (fd >= 0) {
		snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
		n = readlink(link, buf, sizeof(buf) - 1);
	}
	if (n > 0 && buf[0] == '/' && (size_t)n < sizeof(buf) - 1) {
		buf[n] = '\0';
		if (!strstr(buf, " (deleted)"))
			return xstrdup(buf);
	}
	return realpath(path, NULL);
}

int bundle_dir_real_path(const struct bundle_dir *bd, const char *rel, struct strbuf *sb,
			 struct strbuf *err)
{
	struct strbuf norm = STRBUF_INIT, dir = STRBUF_INIT;
	const char *slash;
	char *real;
	int ret = -1;

	if (bd) {
		if (normalize(bd, rel, &norm, err))
			goto out;
		real = real_dir(bd->fd, bd->path ? bd->path : ".");
		if (!real) {
			error_errno(err, "cannot resolve '%s'", bd->path ? bd->path : ".");
			goto out;
		}
		path_join(sb, real, norm.buf);
	} else {
		slash = strrchr(rel, '/');
		if (slash)
			strbuf_add(&dir, rel, (size_t)(slash - rel) + (slash == rel));
		real = realpath(dir.len ? dir.buf : ".", NULL);
		if (!real) {
			error_errno(err, "cannot resolve '%s'", dir.len ? dir.buf : ".");
			goto out;
		}
		path_join(sb, real, slash ? slash + 1 : rel);
	}
	free(real);
	ret = 0;
out:
	strbuf_release(&norm);
	strbuf_release(&dir);
	return ret;
}
