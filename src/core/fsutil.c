/* fsutil.c: see fsutil.h. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <stdint.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "core/error.h"
#include "core/fsutil.h"
#include "core/xalloc.h"
#include "core/banned.h"

int mkdir_real_at(int dirfd, const char *name, const char *shown, struct strbuf *err)
{
	struct stat st;

	if (mkdirat(dirfd, name, 0777) && errno != EEXIST)
		return error_errno(err, "cannot create directory '%s'", shown);
	if (fstatat(dirfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return error_errno(err, "cannot create directory '%s'", shown);
	if (S_ISLNK(st.st_mode))
		return error_set(
		    err, "'%s' is a symlink; llmprof writes only into real directories", shown);
	if (!S_ISDIR(st.st_mode))
		return path_not_dir_error(shown, err);
	return 0;
}

int mkdir_real(const char *dir, struct strbuf *err)
{
	return mkdir_real_at(AT_FDCWD, dir, dir, err);
}

int mkdir_p(const char *dir, struct strbuf *err)
{
	struct strbuf sb = STRBUF_INIT;
	int ret = -1;

	strbuf_addstr(&sb, dir);
	for (size_t i = 1; i <= sb.len; i++) {
		if (i < sb.len && sb.buf[i] != '/')
			continue;
		sb.buf[i] = '\0';
		if (mkdir(sb.buf, 0777) && errno != EEXIST) {
			error_errno(err, "cannot create directory '%s'", sb.buf);
			goto out;
		}
		if (i < sb.len)
			sb.buf[i] = '/';
	}
	if (!path_is_dir(dir)) {
		path_not_dir_error(dir, err);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	return ret;
}

/* A name nobody can guess, so nothing can be planted there beforehand. */
static void add_random_suffix(struct strbuf *sb)
{
	static const char digits[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	unsigned char r[8];
	size_t got = 0;

	while (got < sizeof(r)) {
		ssize_t n = getrandom(r + got, sizeof(r) - got, 0);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	if (got < sizeof(r)) { /* no getrandom(): still unpredictable enough with O_EXCL */
		uint64_t v = (uint64_t)clock() ^ ((uint64_t)getpid() << 32) ^ (uint64_t)time(NULL) ^
			     (uint64_t)(uintptr_t)sb;
		memcpy(r, &v, sizeof(r));
	}
	for (size_t i = 0; i < sizeof(r); i++)
		strbuf_addch(sb, digits[r[i] % (sizeof(digits) - 1)]);
}

int open_new_file_at(int dirfd, const char *name, const char *shown, struct strbuf *err)
{
	int fd;

	/* replace whatever is there (a symlink, another file's hard link) by
	 * a new file of our own instead of writing through it */
	if (unlinkat(dirfd, name, 0) && errno != ENOENT) {
		error_errno(err, "cannot write '%s'", shown);
		return -1;
	}
	fd = openat(dirfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
	if (fd < 0)
		error_errno(err, "cannot write '%s'", shown);
	return fd;
}

int open_new_file(const char *path, struct strbuf *err)
{
	return open_new_file_at(AT_FDCWD, path, path, err);
}

int create_temp_file_at(int dirfd, const char *name, const char *shown, struct strbuf *tmp,
			struct strbuf *err)
{
	size_t at = tmp->len;
	int fd = -1;

	for (int i = 0; i < 100 && fd < 0; i++) {
		strbuf_setlen(tmp, at);
		strbuf_addf(tmp, "%s.tmp.", name);
		add_random_suffix(tmp);
		fd = openat(dirfd, tmp->buf + at,
			    O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0666);
		if (fd < 0 && errno != EEXIST)
			break;
	}
	if (fd < 0) {
		error_errno(err, "cannot write '%s'", shown);
		strbuf_setlen(tmp, at);
	}
	return fd;
}

int create_temp_file(const char *path, struct strbuf *tmp, struct strbuf *err)
{
	return create_temp_file_at(AT_FDCWD, path, path, tmp, err);
}

int fs_unlink(const char *path)
{
	return unlink(path);
}

int fs_rename(const char *from, const char *to, struct strbuf *err)
{
	if (!rename(from, to))
		return 0;
	return error_errno(err, "cannot rename '%s' to '%s'", from, to);
}

/* atomic_files open now, and the code atomic_exit() was asked for (-1 =
 * none): a signal handler reads them, only the main flow changes the count. */
static volatile sig_atomic_t atomic_open_nr;
static volatile sig_atomic_t atomic_exit_code = -1;

void atomic_exit(int code)
{
	atomic_exit_code = code;
	if (!atomic_open_nr)
		_exit(code);
}

/* One atomic_file fewer: the exit a handler asked for meanwhile happens
 * now, with the file renamed or removed. */
static void atomic_closed(void)
{
	if (atomic_open_nr > 0)
		atomic_open_nr--;
	if (!atomic_open_nr && atomic_exit_code >= 0)
		_exit(atomic_exit_code);
}

/* The folder of an atomic_file: its own descriptor, or the current one. */
static int af_dirfd(const struct atomic_file *af)
{
	return af->dirfd >= 0 ? af->dirfd : AT_FDCWD;
}

int atomic_file_open_at(struct atomic_file *af, int dirfd, const char *name, const char *shown,
			struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT;
	int fd;

	atomic_open_nr++; /* before the file exists: an exit waits for it */
	af->dirfd = dirfd == AT_FDCWD ? -1 : fcntl(dirfd, F_DUPFD_CLOEXEC, 0);
	if (dirfd != AT_FDCWD && af->dirfd < 0) {
		error_errno(err, "cannot write '%s'", shown);
		atomic_closed();
		return -1;
	}
	fd = create_temp_file_at(af_dirfd(af), name, shown, &tmp, err);
	if (fd < 0)
		goto fail;
	af->fp = fdopen(fd, "w");
	if (!af->fp) {
		error_errno(err, "cannot write '%s'", shown);
		close(fd);
		unlinkat(af_dirfd(af), tmp.buf, 0);
		goto fail;
	}
	af->path = xstrdup(shown);
	af->name = xstrdup(name);
	af->tmp_name = strbuf_detach(&tmp, NULL);
	return 0;
fail:
	strbuf_release(&tmp);
	if (af->dirfd >= 0)
		close(af->dirfd);
	af->dirfd = -1;
	atomic_closed();
	return -1;
}

int atomic_file_open(struct atomic_file *af, const char *path, struct strbuf *err)
{
	return atomic_file_open_at(af, AT_FDCWD, path, path, err);
}

static void atomic_file_release(struct atomic_file *af)
{
	int was_open = af->tmp_name != NULL;

	FREE_AND_NULL(af->path);
	FREE_AND_NULL(af->name);
	FREE_AND_NULL(af->tmp_name);
	if (af->dirfd >= 0)
		close(af->dirfd);
	af->dirfd = -1;
	af->fp = NULL;
	if (was_open)
		atomic_closed();
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->fp)
		fclose(af->fp);
	if (af->tmp_name)
		unlinkat(af_dirfd(af), af->tmp_name, 0);
	atomic_file_release(af);
}

int atomic_file_commit(struct atomic_file *af, struct strbuf *err)
{
	int ret = -1;

	if (fflush(af->fp) || ferror(af->fp)) {
		error_errno(err, "cannot write '%s'", af->path);
		goto fail;
	}
	if (fsync(fileno(af->fp)) && errno != EINVAL) {
		error_errno(err, "cannot write '%s'", af->path);
		goto fail;
	}
	if (fclose(af->fp)) {
		af->fp = NULL;
		error_errno(err, "cannot write '%s'", af->path);
		goto fail;
	}
	af->fp = NULL;
	/* in the folder the temporary file was made in, whatever now has
	 * its name: renameat() replaces a symlink at name itself */
	if (renameat(af_dirfd(af), af->tmp_name, af_dirfd(af), af->name)) {
		error_errno(err, "cannot rename into '%s'", af->path);
		goto fail;
	}
	ret = 0;
	atomic_file_release(af);
	return ret;
fail:
	atomic_file_abort(af);
	return ret;
}

static int write_atomic(struct atomic_file *af, const char *shown, const void *data, size_t len,
			struct strbuf *err)
{
	if (len && fwrite(data, 1, len, af->fp) != len) {
		error_errno(err, "cannot write '%s'", shown);
		atomic_file_abort(af);
		return -1;
	}
	return atomic_file_commit(af, err);
}

int write_file_atomic_at(int dirfd, const char *name, const char *shown, const void *data,
			 size_t len, struct strbuf *err)
{
	struct atomic_file af = ATOMIC_FILE_INIT;

	if (atomic_file_open_at(&af, dirfd, name, shown, err))
		return -1;
	return write_atomic(&af, shown, data, len, err);
}

int write_file_atomic(const char *path, const void *data, size_t len, struct strbuf *err)
{
	struct atomic_file af = ATOMIC_FILE_INIT;

	if (atomic_file_open(&af, path, err))
		return -1;
	return write_atomic(&af, path, data, len, err);
}

void path_join(struct strbuf *sb, const char *a, const char *b)
{
	strbuf_addstr(sb, a);
	if (sb->len && sb->buf[sb->len - 1] != '/')
		strbuf_addch(sb, '/');
	strbuf_addstr(sb, b);
}

int path_exists(const char *path)
{
	struct stat st;
	return !stat(path, &st);
}

int path_is_dir(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISDIR(st.st_mode);
}

/* A symlink that stat() cannot follow: -1 with err, else 0 (errno kept). */
static int broken_link(const char *path, struct strbuf *err)
{
	struct stat st;
	char to[PATH_MAX];
	ssize_t n;
	int saved = errno;

	if (saved != ENOENT && saved != ELOOP)
		return 0;
	if (lstat(path, &st) || !S_ISLNK(st.st_mode)) {
		errno = saved;
		return 0;
	}
	if (saved == ELOOP)
		return error_set(err, "'%s' is a symlink loop", path);
	n = readlink(path, to, sizeof(to) - 1);
	to[n > 0 ? n : 0] = '\0';
	return error_set(err, "'%s' is a dangling symlink (to '%s')", path, to);
}

int path_broken_link(const char *path, struct strbuf *err)
{
	struct stat st;

	return stat(path, &st) ? broken_link(path, err) : 0;
}

int path_check_exists(const char *path, struct strbuf *err)
{
	struct stat st;

	if (!stat(path, &st))
		return 0;
	if (broken_link(path, err))
		return -1;
	return error_errno(err, "cannot read '%s'", path);
}

int path_not_dir_error(const char *path, struct strbuf *err)
{
	struct stat st;

	if (stat(path, &st) && broken_link(path, err))
		return -1;
	return error_set(err, "'%s' exists and is not a directory", path);
}

int path_is_executable_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

char *find_in_path(const char *name)
{
	const char *path = getenv("PATH");
	struct strbuf sb = STRBUF_INIT;

	if (!*name)
		return NULL;
	if (strchr(name, '/'))
		return path_is_executable_file(name) ? xstrdup(name) : NULL;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin";
	while (*path) {
		const char *colon = strchr(path, ':');
		size_t len = colon ? (size_t)(colon - path) : strlen(path);

		strbuf_reset(&sb);
		if (len)
			strbuf_add(&sb, path, len);
		else
			strbuf_addch(&sb, '.');
		strbuf_addch(&sb, '/');
		strbuf_addstr(&sb, name);
		if (path_is_executable_file(sb.buf))
			return strbuf_detach(&sb, NULL);
		path += len + (colon ? 1 : 0);
	}
	strbuf_release(&sb);
	return NULL;
}

char *exe_dir(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0)
		return xstrdup(".");
	buf[n] = '\0';
	slash = strrchr(buf, '/');
	if (slash)
		*slash = '\0';
	return xstrdup(buf);
}

static const char *file_kind(mode_t mode)
{
	if (S_ISDIR(mode))
		return "a directory";
	if (S_ISFIFO(mode))
		return "a FIFO";
	if (S_ISCHR(mode))
		return "a character device";
	if (S_ISBLK(mode))
		return "a block device";
	if (S_ISSOCK(mode))
		return "a socket";
	return "a special file";
}

static int open_regular(const char *path, size_t cap, size_t *size, const char *verb,
			struct strbuf *err)
{
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_CLOEXEC);
	struct stat st;
	int flags;

	if (fd < 0)
		return error_errno(err, "cannot %s '%s'", verb, path);
	if (fstat(fd, &st)) {
		error_errno(err, "cannot read '%s'", path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return error_set(err, "'%s' is %s, not a regular file", path,
				 file_kind(st.st_mode));
	}
	if ((unsigned long long)st.st_size > (unsigned long long)cap) {
		close(fd);
		return error_set(err, "'%s' is too large (%lld bytes; at most %zu)", path,
				 (long long)st.st_size, cap);
	}
	flags = fcntl(fd, F_GETFL);
	if (flags >= 0)
		fcntl(fd, F_SETFL, flags & ~O_NONBLOCK);
	if (size)
		*size = (size_t)st.st_size;
	return fd;
}

int open_regular_file(const char *path, size_t cap, size_t *size, struct strbuf *err)
{
	return open_regular(path, cap, size, "open", err);
}

int read_regular_file(const char *path, size_t cap, struct strbuf *sb, struct strbuf *err)
{
	size_t size, start = sb->len;
	int fd = open_regular(path, cap, &size, "read", err);

	if (fd < 0)
		return -1;
	strbuf_grow(sb, size + 1);
	for (;;) {
		ssize_t n;

		/* the file may grow after the fstat: still at most cap bytes */
		if (sb->len - start > cap) {
			close(fd);
			strbuf_setlen(sb, start);
			return error_set(err, "'%s' is too large (more than %zu bytes)", path, cap);
		}
		strbuf_grow(sb, 8192);
		n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			error_errno(err, "cannot read '%s'", path);
			close(fd);
			strbuf_setlen(sb, start);
			return -1;
		}
		if (n == 0)
			break;
		sb->len += (size_t)n;
		sb->buf[sb->len] = '\0';
	}
	close(fd);
	return 0;
}
