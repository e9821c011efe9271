/* write.c: see write.h. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "bundle/layout.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "bundle/write.h"
#include "core/banned.h"

#define CREATE_ATTEMPTS 64

void bundle_format_run_id(struct strbuf *sb, uint64_t wall_ns, unsigned rand16)
{
	time_t secs = (time_t)(wall_ns / 1000000000ull);
	struct tm tm;

	gmtime_r(&secs, &tm);
	strbuf_addf(sb, "%04d%02d%02d-%02d%02d%02d-%04x", tm.tm_year + 1900, tm.tm_mon + 1,
		    tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, rand16 & 0xffffu);
}

int bundle_run_id_valid(const char *s)
{
	static const char shape[] = "dddddddd-dddddd-xxxx";

	if (strlen(s) != RUN_ID_LEN)
		return 0;
	for (size_t i = 0; i < RUN_ID_LEN; i++) {
		char c = s[i];
		if (shape[i] == '-' && c != '-')
			return 0;
		if (shape[i] == 'd' && (c < '0' || c > '9'))
			return 0;
		if (shape[i] == 'x' && !((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f')))
			return 0;
	}
	return 1;
}

static unsigned random16(void)
{
	unsigned short v = 0;
	int fd;

	if (getrandom(&v, sizeof(v), 0) == (ssize_t)sizeof(v))
		return v;
	fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		ssize_t n = read(fd, &v, sizeof(v));
		close(fd);
		if (n == (ssize_t)sizeof(v))
			return v;
	}
	/* last resort: still unique enough with the EEXIST retry */
	return (unsigned)((clock() ^ getpid() ^ time(NULL)) & 0xffff);
}

void bundle_abspath(struct strbuf *sb, const char *root)
{
	char *cwd;

	if (root[0] == '/') {
		strbuf_addstr(sb, root);
		return;
	}
	cwd = getcwd(NULL, 0);
	if (!cwd) {
		strbuf_addstr(sb, root); /* cwd deleted: best effort */
		return;
	}
	path_join(sb, cwd, root);
	free(cwd);
	while (sb->len > 1 && sb->buf[sb->len - 1] == '/')
		strbuf_setlen(sb, sb->len - 1);
	/* "./x" and "x/." are left as they are: harmless, and realpath would
	 * resolve symlinks the user chose on purpose */
}

void bundle_choose(struct run_bundle *b, const char *root)
{
	struct strbuf abs = STRBUF_INIT, dir = STRBUF_INIT, id = STRBUF_INIT;

	bundle_abspath(&abs, root);
	for (int i = 0;; i++) {
		strbuf_reset(&id);
		strbuf_reset(&dir);
		bundle_format_run_id(&id, clock_wall_ns(), random16());
		path_join(&dir, abs.buf, id.buf);
		/* taken: draw again; after that many, bundle_make() says why */
		if (!path_exists(dir.buf) || i + 1 >= CREATE_ATTEMPTS)
			break;
	}
	bundle_release(b);
	memcpy(b->run_id, id.buf, RUN_ID_LEN + 1);
	b->root = strbuf_detach(&abs, NULL);
	b->dir = strbuf_detach(&dir, NULL);
	strbuf_release(&id);
}

void bundle_fix(struct run_bundle *b, const char *root, const char *name)
{
	struct strbuf abs = STRBUF_INIT, dir = STRBUF_INIT, id = STRBUF_INIT;

	bundle_abspath(&abs, root);
	path_join(&dir, abs.buf, name);
	bundle_format_run_id(&id, clock_wall_ns(), random16());
	bundle_release(b);
	memcpy(b->run_id, id.buf, RUN_ID_LEN + 1);
	b->root = strbuf_detach(&abs, NULL);
	b->dir = strbuf_detach(&dir, NULL);
	b->fixed = 1;
	strbuf_release(&id);
}

void bundle_stand_in(struct run_bundle *b, const char *root)
{
	struct strbuf abs = STRBUF_INIT, dir = STRBUF_INIT;

	bundle_abspath(&abs, root);
	/* not path_join(): the root as given, then the id, as --dry-run always showed */
	strbuf_addf(&dir, "%s/%s", abs.buf, BUNDLE_STAND_IN_ID);
	bundle_release(b);
	memcpy(b->run_id, BUNDLE_STAND_IN_ID, sizeof(BUNDLE_STAND_IN_ID));
	b->root = strbuf_detach(&abs, NULL);
	b->dir = strbuf_detach(&dir, NULL);
}

/* Makes the folder name (b->dir below b->root: "<run_id>" or
 * "ranks/<rank>") inside top with one mkdirat(), its parents without
 * following a symlink, and opens it into b->bd. 0, 1 when it exists, -1. */
static int make_run_dir(struct run_bundle *b, const struct bundle_dir *top, const char *name,
			struct strbuf *err)
{
	struct strbuf base = STRBUF_INIT, parent = STRBUF_INIT, why = STRBUF_INIT;
	const char *slash = strrchr(name, '/');
	int fd = -1, ret = -1;

	strbuf_add(&parent, name, slash ? (size_t)(slash - name) : 0);
	if (parent.len && bundle_dir_mkdirs(top, parent.buf, err)) /* ranks/ */
		goto out;
	fd = bundle_dir_open_parent(top, name, &base, err);
	if (fd < 0)
		goto out;
	if (mkdirat(fd, base.buf, 0777)) {
		/* a fixed folder that exists is another process's (the same
		 * rank twice): never shared, and no other name to draw */
		if (b->fixed && errno == EEXIST)
			error_set(err,
				  "'%s' exists: another process wrote (or is writing) "
				  "this rank's bundle there; give a new folder or remove it",
				  b->dir);
		else
			error_errno(err, "cannot create run directory '%s'", b->dir);
		ret = !b->fixed && errno == EEXIST ? 1 : -1;
		goto out;
	}
	/* ours, just made: replaced meanwhile (a symlink, a folder of
	 * another owner) it is refused, never written into */
	if (bundle_dir_open_sub(&b->bd, top, name, BUNDLE_DIR_OWN, &why)) {
		error_set(err, "run directory replaced before llmprof opened it: %s", why.buf);
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0)
		close(fd);
	strbuf_release(&base);
	strbuf_release(&parent);
	strbuf_release(&why);
	return ret;
}

int bundle_make(struct run_bundle *b, struct strbuf *err)
{
	struct bundle_dir top = BUNDLE_DIR_INIT;
	const char *name = b->dir + strlen(b->root);
	int ret;

	while (*name == '/')
		name++;
	bundle_dir_close(&b->bd);
	/* the root is the user's: made and opened as named */
	if (mkdir_p(b->root, err) || bundle_dir_open(&top, b->root, 0, err))
		return -1;
	ret = make_run_dir(b, &top, name, err);
	bundle_dir_close(&top);
	if (ret)
		return ret;
	if (bundle_dir_mkdir(&b->bd, bundle_art(BA_LOGS_DIR), err)) {
		bundle_dir_close(&b->bd);
		return -1;
	}
	return 0;
}

int bundle_create(struct run_bundle *b, const char *root, struct strbuf *err)
{
	size_t at = err->len;
	int ret;

	if (!*root) /* the schema refuses it too: never the current folder */
		return error_set(err, "the artifacts root is empty");

	for (int i = 0;; i++) {
		bundle_choose(b, root);
		ret = bundle_make(b, err);
		if (ret <= 0 || i + 1 >= CREATE_ATTEMPTS)
			return ret ? -1 : 0;
		strbuf_setlen(err, at); /* another run took the id: draw again */
	}
}

void bundle_release(struct run_bundle *b)
{
	bundle_dir_close(&b->bd);
	FREE_AND_NULL(b->root);
	FREE_AND_NULL(b->dir);
	b->run_id[0] = '\0';
	b->fixed = 0;
}

void bundle_path(const struct run_bundle *b, const char *rel, struct strbuf *sb)
{
	path_join(sb, b->dir, rel);
}

int bundle_write(const struct run_bundle *b, const char *rel, const void *data, size_t len,
		 struct strbuf *err)
{
	struct strbuf path = STRBUF_INIT;
	int ret;

	if (b->bd.fd >= 0) /* made: through its descriptor */
		return bundle_dir_write(&b->bd, rel, data, len, err);
	bundle_path(b, rel, &path);
	ret = write_file_atomic(path.buf, data, len, err);
	strbuf_release(&path);
	return ret;
}

int bundle_check_dirs(const struct run_bundle *b, struct strbuf *err)
{
	struct strbuf p = STRBUF_INIT;
	struct stat st;
	size_t n;
	const struct bundle_art_row *rows = bundle_layout(&n);
	int ret = 0;

	if (lstat(b->dir, &st) || !S_ISDIR(st.st_mode)) {
		error_set(err,
			  "the run directory '%s' is no longer a real directory; nothing more "
			  "is written",
			  b->dir);
		return -2;
	}
	/* the folders llmprof writes into (bundle/layout.h), as bundle_make(),
	 * make_dirs() and the steps create them (charts/ by the reports, ncu/
	 * by select) */
	for (size_t i = 0; !ret && i < n; i++) {
		if (!(rows[i].flags & BUNDLE_ART_OURS))
			continue;
		strbuf_reset(&p);
		bundle_path(b, rows[i].path, &p);
		if (!lstat(p.buf, &st) && !S_ISDIR(st.st_mode))
			ret = error_set(err,
					"'%s' was replaced by %s; llmprof writes only into real "
					"directories",
					p.buf, S_ISLNK(st.st_mode) ? "a symlink" : "a file");
	}
	strbuf_release(&p);
	return ret;
}

int bundle_update_latest(const struct run_bundle *b, struct strbuf *err)
{
	struct strbuf tmp = STRBUF_INIT, link = STRBUF_INIT;
	struct stat st;
	int ret = -1;

	if (b->fixed) /* <root> holds the ranks' folders, not run ids */
		return 0;
	path_join(&link, b->root, "latest");
	if (!lstat(link.buf, &st) && !S_ISLNK(st.st_mode)) {
		/* the user's own file or folder: never replaced */
		error_set(err, "not replacing '%s': it is not a symlink", link.buf);
		goto out;
	}
	path_join(&tmp, b->root, ".latest.tmp.");
	strbuf_addf(&tmp, "%ld.%04x", (long)getpid(), random16());
	/* relative target: the tree stays valid when moved */
	if (symlink(b->run_id, tmp.buf)) {
		error_errno(err, "cannot create symlink '%s'", tmp.buf);
		goto out;
	}
	if (rename(tmp.buf, link.buf)) {
		error_errno(err, "cannot replace '%s'", link.buf);
		unlink(tmp.buf);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&tmp);
	strbuf_release(&link);
	return ret;
}
