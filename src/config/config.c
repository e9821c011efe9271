/* config.c: composition (Hydra-style defaults list), overrides and
 * interpolation; bind.c reads the result. docs/configuration.md describes the
 * model; the order of config_load_at() below is the contract:
 *
 *   1. read conf/config.yaml and take out its defaults list
 *   2. apply group overrides (model=tiny, +g@pkg=o, ~g), whatever their order
 *   3. merge each entry's file at its package, _self_ where it is listed
 *   4. add schema defaults for keys nobody set
 *   5. apply key overrides in command-line order (then 4 again, so "~key"
 *      resets a schema key to its default)
 *   6. resolve ${...} interpolations, 7. validate against the schema,
 *   8. fill struct llmprof_config (bind.c) */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>

#include "config/config.h"
#include "config/internal.h"
#include "core/error.h"
#include "core/fsutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "core/banned.h"

static const char *pool_add(struct config *cfg, struct strbuf *sb)
{
	ALLOC_GROW(cfg->pool, cfg->pool_nr + 1, cfg->pool_alloc);
	cfg->pool[cfg->pool_nr] = strbuf_detach(sb, NULL);
	return cfg->pool[cfg->pool_nr++];
}

void config_free(struct config *cfg)
{
	const struct config_key *keys;
	size_t n;

	if (!cfg)
		return;
	keys = config_schema(&n);
	config_schema_unbind(keys, n, &cfg->typed);
	cnode_free(cfg->root);
	for (size_t i = 0; i < cfg->pool_nr; i++)
		free(cfg->pool[i]);
	free(cfg->pool);
	free(cfg);
}

/* --- where conf/ is --- */

static char *conf_candidate(const char *dir, const char *rel)
{
	struct strbuf sb = STRBUF_INIT;
	size_t base;

	path_join(&sb, dir, rel);
	base = sb.len;
	strbuf_addstr(&sb, "/config.yaml");
	if (path_exists(sb.buf)) {
		char *real;

		strbuf_setlen(&sb, base);
		real = realpath(sb.buf, NULL); /* positions read better without "../" */
		if (real) {
			strbuf_release(&sb);
			return real;
		}
		return strbuf_detach(&sb, NULL);
	}
	strbuf_release(&sb);
	return NULL;
}

char *config_find_conf_dir(void)
{
	const char *env = getenv("LLMPROF_CONF_DIR");
	char *exe, *found = NULL;

	if (env && *env)
		return xstrdup(env);
	exe = exe_dir();
	if (exe) {
		found = conf_candidate(exe, "../conf");
		if (!found)
			found = conf_candidate(exe, "../share/llmprof/conf");
		free(exe);
	}
	if (!found)
		found = conf_candidate(LLMPROF_SOURCE_DIR, "conf");
	if (!found)
		found = conf_candidate(".", "conf");
	return found;
}

/* --- the defaults list --- */

struct entry {
	char *group;   /* NULL for _self_ */
	char *package; /* explicit package, or NULL */
	char *option;  /* NULL: the entry is disabled (group=null) */
	struct cnode_pos pos;
};

struct defaults {
	struct entry *v;
	size_t nr, alloc;
};

static void defaults_release(struct defaults *d)
{
	for (size_t i = 0; i < d->nr; i++) {
		free(d->v[i].group);
		free(d->v[i].package);
		free(d->v[i].option);
	}
	free(d->v);
}

static int at_pos(struct strbuf *err, const struct cnode_pos *pos)
{
	strbuf_addstr(err, " (");
	cnode_pos_format(pos, err);
	strbuf_addch(err, ')');
	return -1;
}

/* Names of [A-Za-z0-9_-] joined by sep. */
static int valid_name(const char *s, size_t len, char sep)
{
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (c == sep && i > 0 && i + 1 < len && s[i - 1] != sep)
			continue;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-'))
			return 0;
	}
	return len > 0;
}

static int defaults_add(struct defaults *d, const char *spec, const struct cnode *opt,
			struct cnode_pos pos, struct strbuf *err)
{
	const char *atsign = strchr(spec, '@');
	struct entry *e;

	if (opt->type != CNODE_STRING && opt->type != CNODE_NULL) {
		error_set(err, "defaults list: option of '%s' must be a name", spec);
		return at_pos(err, &opt->pos);
	}
	if (!valid_name(spec, atsign ? (size_t)(atsign - spec) : strlen(spec), '/') ||
	    (atsign && !valid_name(atsign + 1, strlen(atsign + 1), '.'))) {
		error_set(err, "defaults list: '%s' is not 'group' or 'group@package'", spec);
		return at_pos(err, &pos);
	}
	ALLOC_GROW(d->v, d->nr + 1, d->alloc);
	e = &d->v[d->nr++];
	e->group = atsign ? xstrndup(spec, (size_t)(atsign - spec)) : xstrdup(spec);
	e->package = atsign ? xstrdup(atsign + 1) : NULL;
	e->option = opt->type == CNODE_STRING ? xstrdup(opt->s) : NULL;
	e->pos = pos;
	return 0;
}

/* A group (with its package) listed twice: which entry would a command-line
 * 'group=option' replace? Hydra refuses it too ("Multiple values"). */
static int defaults_check_repeat(const struct defaults *d, struct strbuf *err)
{
	const struct entry *last = &d->v[d->nr - 1];

	for (size_t i = 0; i + 1 < d->nr; i++) {
		const struct entry *e = &d->v[i];

		if (!e->group || strcmp(e->group, last->group) ||
		    strcmp(e->package ? e->package : "", last->package ? last->package : ""))
			continue;
		error_set(err, "defaults list: '%s%s%s' is listed twice (first at ", last->group,
			  last->package ? "@" : "", last->package ? last->package : "");
		cnode_pos_format(&e->pos, err);
		strbuf_addstr(err, "); keep one entry and override it with 'group=option'");
		return at_pos(err, &last->pos);
	}
	return 0;
}

/* Takes the defaults list out of the primary config. */
static int defaults_take(struct cnode *primary, struct defaults *d, struct strbuf *err)
{
	struct cnode *list = cnode_map_get(primary, "defaults");
	int have_self = 0;

	if (!list)
		goto out;
	if (list->type != CNODE_LIST) {
		error_set(err, "'defaults' must be a list");
		return at_pos(err, &list->pos);
	}
	for (size_t i = 0; i < list->nr; i++) {
		const struct cnode *it = list->items[i];

		if (it->type == CNODE_STRING && !strcmp(it->s, "_self_")) {
			ALLOC_GROW(d->v, d->nr + 1, d->alloc);
			memset(&d->v[d->nr], 0, sizeof(d->v[0]));
			d->v[d->nr++].pos = it->pos;
			have_self = 1;
			continue;
		}
		if (it->type != CNODE_MAP || it->nr != 1) {
			error_set(err, "defaults list entries are 'group: option', "
				       "'group@package: option' or '_self_'");
			return at_pos(err, &it->pos);
		}
		if (defaults_add(d, it->items[0]->key, it->items[0], it->pos, err) ||
		    defaults_check_repeat(d, err))
			return -1;
	}
	cnode_map_remove(primary, "defaults");
out:
	if (!have_self) {
		/* Hydra's rule: the primary config comes last when unlisted. */
		ALLOC_GROW(d->v, d->nr + 1, d->alloc);
		memset(&d->v[d->nr], 0, sizeof(d->v[0]));
		d->nr++;
	}
	return 0;
}

/* "profiling/ncu" -> "profiling.ncu"; "_global_" -> "". */
static void package_of(const struct entry *e, struct strbuf *sb)
{
	const char *p = e->package ? e->package : e->group;

	if (!strcmp(p, "_global_"))
		return;
	for (; *p; p++)
		strbuf_addch(sb, *p == '/' ? '.' : *p);
}

static int is_group(const char *conf_dir, const char *key)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	path_join(&sb, conf_dir, key);
	ret = path_is_dir(sb.buf);
	strbuf_release(&sb);
	return ret;
}

static int valid_option(const char *o)
{
	if (!*o || *o == '.')
		return 0;
	for (; *o; o++)
		if (!((*o >= 'a' && *o <= 'z') || (*o >= 'A' && *o <= 'Z') ||
		      (*o >= '0' && *o <= '9') || *o == '_' || *o == '-' || *o == '.'))
			return 0;
	return 1;
}

/* Whether conf/<group>/<name>.yaml is an option compose() would load: a
 * valid name and a regular file (a symlink to one is fine). The list in
 * "has no option" errors offers only these, so it never names one that is
 * then refused. */
static int option_usable(const char *dir, const char *name)
{
	struct strbuf path = STRBUF_INIT;
	struct stat st;
	int ok;

	if (!valid_option(name))
		return 0;
	strbuf_addf(&path, "%s/%s.yaml", dir, name);
	ok = !stat(path.buf, &st) && S_ISREG(st.st_mode);
	strbuf_release(&path);
	return ok;
}

/* Appends the option names of a group, sorted, to list, and the one closest
 * to near (if any is close) to suggest. */
static void group_options(const char *conf_dir, const char *group, struct strbuf *list,
			  const char *near, struct strbuf *suggest)
{
	struct strbuf dir = STRBUF_INIT;
	char **names = NULL;
	size_t nr = 0, alloc = 0, best = (size_t)-1;
	struct dirent *de;
	DIR *dp;

	path_join(&dir, conf_dir, group);
	dp = opendir(dir.buf);
	while (dp && (de = readdir(dp))) {
		char *name;

		if (de->d_name[0] == '.' || !ends_with(de->d_name, ".yaml"))
			continue;
		name = xstrndup(de->d_name, strlen(de->d_name) - 5);
		if (!option_usable(dir.buf, name)) {
			free(name);
			continue;
		}
		ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = name;
	}
	if (dp)
		closedir(dp);
	for (size_t i = 1; i < nr; i++)
		for (size_t j = i; j > 0 && strcmp(names[j - 1], names[j]) > 0; j--) {
			char *t = names[j];
			names[j] = names[j - 1];
			names[j - 1] = t;
		}
	for (size_t i = 0; i < nr; i++) {
		size_t dist = edit_distance(near, names[i]);

		strbuf_addf(list, "%s%s", i ? ", " : "", names[i]);
		if (dist < best && dist <= 3) {
			best = dist;
			strbuf_reset(suggest);
			strbuf_addstr(suggest, names[i]);
		}
		free(names[i]);
	}
	free(names);
	strbuf_release(&dir);
}

static int option_missing(const char *conf_dir, const char *group, const char *option,
			  const struct cnode_pos *pos, struct strbuf *err)
{
	struct strbuf list = STRBUF_INIT, near = STRBUF_INIT;

	group_options(conf_dir, group, &list, option, &near);
	error_set(err, "config group '%s' has no option '%s'", group, option);
	if (near.len)
		strbuf_addf(err, "; did you mean '%s'?", near.buf);
	strbuf_addf(err, " (options: %s)", list.len ? list.buf : "none");
	strbuf_release(&list);
	strbuf_release(&near);
	return at_pos(err, pos);
}

static struct entry *defaults_match(struct defaults *d, const struct config_override *o)
{
	struct entry *only = NULL;
	size_t n = 0;

	for (size_t i = 0; i < d->nr; i++) {
		struct entry *e = &d->v[i];

		if (!e->group || strcmp(e->group, o->key))
			continue;
		if (o->package) {
			if (e->package && !strcmp(e->package, o->package))
				return e;
			continue;
		}
		if (!e->package)
			return e;
		only = e;
		n++;
	}
	/* "profiling/ncu=ncu.high" finds the one mounted entry of its group. */
	return !o->package && n == 1 ? only : NULL;
}

static int apply_group_override(struct defaults *d, const struct config_override *o,
				struct cnode_pos pos, struct strbuf *err)
{
	struct entry *e = defaults_match(d, o);
	const struct cnode *v = o->value;
	struct strbuf spec = STRBUF_INIT;
	int ret = -1;

	strbuf_addstr(&spec, o->key);
	if (o->package)
		strbuf_addf(&spec, "@%s", o->package);
	if (v && v->type != CNODE_STRING && v->type != CNODE_NULL) {
		error_set(err, "%s: a config group takes an option name", pos.file);
		goto out;
	}
	if (v && v->type == CNODE_STRING && !valid_option(v->s)) {
		error_set(err, "%s: '%s' is not a valid option name", pos.file, v->s);
		goto out;
	}
	switch (o->op) {
	case CONFIG_OVERRIDE_SET:
	case CONFIG_OVERRIDE_FORCE:
		if (e) {
			free(e->option);
			e->option = v->type == CNODE_STRING ? xstrdup(v->s) : NULL;
			e->pos = pos;
			break;
		}
		if (o->op == CONFIG_OVERRIDE_SET) {
			error_set(err,
				  "%s: the defaults list has no '%s' entry to override; "
				  "use '+%s=...' to add one",
				  pos.file, spec.buf, spec.buf);
			goto out;
		}
		/* fall through */
	case CONFIG_OVERRIDE_ADD:
		if (e && o->op == CONFIG_OVERRIDE_ADD) {
			error_set(err, "%s: the defaults list already has '%s'; use '%s=...'",
				  pos.file, spec.buf, spec.buf);
			goto out;
		}
		if (defaults_add(d, spec.buf, v, pos, err))
			goto out;
		break;
	case CONFIG_OVERRIDE_DELETE:
		if (!e) {
			error_set(err, "%s: the defaults list has no '%s' entry", pos.file,
				  spec.buf);
			goto out;
		}
		if (v && (v->type == CNODE_NULL ? e->option != NULL
						: !e->option || strcmp(e->option, v->s))) {
			error_set(err, "%s: '%s' is '%s', not '%s'", pos.file, spec.buf,
				  e->option ? e->option : "null",
				  v->type == CNODE_NULL ? "null" : v->s);
			goto out;
		}
		free(e->option);
		e->option = NULL;
		break;
	}
	ret = 0;
out:
	strbuf_release(&spec);
	return ret;
}

static int read_yaml(struct config *cfg, const char *path, struct cnode **out, struct strbuf *err)
{
	struct strbuf buf = STRBUF_INIT, name = STRBUF_INIT;
	const char *file;
	int ret;

	strbuf_addstr(&name, path);
	file = pool_add(cfg, &name);
	if (read_regular_file(path, INPUT_CAP_TEXT, &buf, err)) {
		strbuf_release(&buf);
		return -1;
	}
	ret = config_parse_yaml_buffer(buf.buf, buf.len, file, out, err);
	strbuf_release(&buf);
	return ret;
}

/* Wraps tree under the dotted package path (consumes tree). */
static struct cnode *mount(struct cnode *tree, const char *package)
{
	const char *end = package + strlen(package);

	while (end > package) {
		const char *start = end;
		struct cnode *map;

		while (start > package && start[-1] != '.')
			start--;
		map = cnode_new(CNODE_MAP, NULL, tree->pos);
		free(tree->key);
		tree->key = xstrndup(start, (size_t)(end - start));
		cnode_append(map, tree);
		tree = map;
		end = start > package ? start - 1 : start;
	}
	return tree;
}

static int compose(struct config *cfg, const char *conf_dir, struct defaults *d,
		   const struct cnode *primary, struct strbuf *err)
{
	for (size_t i = 0; i < d->nr; i++) {
		const struct entry *e = &d->v[i];
		struct strbuf path = STRBUF_INIT, pkg = STRBUF_INIT;
		struct cnode *tree = NULL;
		struct stat st;
		int ret = -1;

		if (!e->group) {
			cnode_merge(cfg->root, primary);
			continue;
		}
		if (!e->option)
			continue;
		if (!valid_option(e->option)) {
			error_set(err, "'%s' is not a valid option name", e->option);
			return at_pos(err, &e->pos);
		}
		path_join(&path, conf_dir, e->group);
		strbuf_addf(&path, "/%s.yaml", e->option);
		if (lstat(path.buf, &st)) {
			option_missing(conf_dir, e->group, e->option, &e->pos, err);
			goto next;
		}
		if (path_check_exists(path.buf, err)) {
			at_pos(err, &e->pos);
			goto next;
		}
		if (read_yaml(cfg, path.buf, &tree, err))
			goto next;
		if (cnode_map_get(tree, "defaults")) {
			error_set(err, "defaults lists are only read from config.yaml");
			at_pos(err, &cnode_map_get(tree, "defaults")->pos);
			goto next;
		}
		package_of(e, &pkg);
		tree = mount(tree, pkg.buf);
		cnode_merge(cfg->root, tree);
		ret = 0;
	next:
		cnode_free(tree);
		strbuf_release(&path);
		strbuf_release(&pkg);
		if (ret)
			return -1;
	}
	return 0;
}

/* --- key overrides --- */

static int unknown_key(const struct cnode *root, const char *key, const char *origin,
		       struct strbuf *err)
{
	const struct config_key *keys;
	size_t n;

	keys = config_schema(&n);
	error_set(err, "unknown config key '%s'", key);
	config_suggest_key(key, root, keys, n, err);
	strbuf_addf(err, " (%s)", origin);
	return -1;
}

/* The map that holds key's last segment, creating maps on the way when
 * create is set. NULL with err when a step is not a map. */
static struct cnode *parent_of(struct cnode *root, const char *key, int create,
			       struct cnode_pos pos, const char **last, struct strbuf *err)
{
	struct cnode *map = root;
	const char *p = key;
	const char *dot;

	while ((dot = strchr(p, '.'))) {
		char *seg = xstrndup(p, (size_t)(dot - p));
		struct cnode *child = cnode_map_get(map, seg);

		if (!child && create) {
			child = cnode_new(CNODE_MAP, seg, pos);
			cnode_append(map, child);
		}
		free(seg);
		if (!child)
			return NULL;
		if (child->type != CNODE_MAP) {
			error_set(err, "%s: '%.*s' is not a mapping", pos.file, (int)(dot - key),
				  key);
			return NULL;
		}
		map = child;
		p = dot + 1;
	}
	*last = p;
	return map;
}

static int apply_key_override(struct cnode *root, const struct config_override *o,
			      struct cnode_pos pos, struct strbuf *err)
{
	struct cnode *node = cnode_lookup(root, o->key);
	struct cnode *parent, *c;
	const char *last;

	switch (o->op) {
	case CONFIG_OVERRIDE_SET:
		if (!node)
			return unknown_key(root, o->key, pos.file, err);
		cnode_assign(node, o->value);
		return 0;
	case CONFIG_OVERRIDE_FORCE:
		if (node) {
			cnode_assign(node, o->value);
			return 0;
		}
		/* fall through */
	case CONFIG_OVERRIDE_ADD:
		if (node)
			return error_set(err,
					 "%s: config key '%s' already exists; use '%s=...' "
					 "to change it",
					 pos.file, o->key, o->key);
		parent = parent_of(root, o->key, 1, pos, &last, err);
		if (!parent)
			return -1;
		c = cnode_clone(o->value);
		c->key = xstrdup(last);
		cnode_append(parent, c);
		return 0;
	case CONFIG_OVERRIDE_DELETE:
		if (!node)
			return unknown_key(root, o->key, pos.file, err);
		if (o->value) {
			char *k = o->value->key;
			int same;

			o->value->key = node->key;
			same = cnode_equal(node, o->value);
			o->value->key = k;
			if (!same) {
				struct strbuf v = STRBUF_INIT;

				cnode_scalar_render(node, &v);
				error_set(err, "%s: not removing '%s': its value is '%s'", pos.file,
					  o->key, v.buf);
				strbuf_release(&v);
				return -1;
			}
		}
		parent = parent_of(root, o->key, 0, pos, &last, err);
		if (!parent)
			return -1;
		cnode_map_remove(parent, last);
		return 0;
	}
	return 0;
}

/* --- interpolation --- */

#define MAX_EXPANSION 1000000 /* nodes and KiB an interpolation may create */

struct resolver {
	struct cnode *root;
	time_t now;
	const struct cnode **stack; /* string nodes being resolved */
	char **names;
	size_t nr, alloc, names_alloc;
	size_t budget;
	struct strbuf *err;
};

static int resolve_node(struct resolver *r, struct cnode *n, struct strbuf *path);

static size_t tree_size(const struct cnode *n)
{
	size_t s = 1 + (n->s ? strlen(n->s) / 1024 : 0);

	for (size_t i = 0; i < n->nr; i++)
		s += tree_size(n->items[i]);
	return s;
}

static int valid_ref(const char *s, size_t len)
{
	if (!len || s[0] == '.' || s[len - 1] == '.')
		return 0;
	for (size_t i = 0; i < len; i++) {
		char c = s[i];

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      c == '_' || c == '-' || (c == '.' && s[i - 1] != '.')))
			return 0;
	}
	return 1;
}

static int cycle_error(struct resolver *r, const struct cnode *n, const char *ref)
{
	error_set(r->err, "interpolation cycle: ");
	for (size_t i = 0; i < r->nr; i++)
		strbuf_addf(r->err, "%s -> ", r->names[i]);
	strbuf_addstr(r->err, ref);
	return at_pos(r->err, &n->pos);
}

static int push(struct resolver *r, const struct cnode *n, const char *name,
		const struct cnode *from)
{
	for (size_t i = 0; i < r->nr; i++)
		if (r->stack[i] == n)
			return cycle_error(r, from, name);
	if (r->nr >= CONFIG_MAX_DEPTH) {
		error_set(r->err, "interpolations nested more than %d deep", CONFIG_MAX_DEPTH);
		return at_pos(r->err, &from->pos);
	}
	ALLOC_GROW(r->stack, r->nr + 1, r->alloc);
	ALLOC_GROW(r->names, r->nr + 1, r->names_alloc);
	r->stack[r->nr] = n;
	r->names[r->nr++] = xstrdup(name);
	return 0;
}

/* The resolved node a reference points to (borrowed). */
static const struct cnode *deref(struct resolver *r, const struct cnode *from, const char *ref,
				 size_t len)
{
	struct strbuf key = STRBUF_INIT;
	struct cnode *t;
	const struct config_key *keys;
	size_t n;

	strbuf_add(&key, ref, len);
	t = cnode_lookup(r->root, key.buf);
	if (!t) {
		keys = config_schema(&n);
		error_set(r->err, "interpolation '${%s}' refers to an unknown key", key.buf);
		config_suggest_key(key.buf, r->root, keys, n, r->err);
		at_pos(r->err, &from->pos);
		goto fail;
	}
	if (t->type == CNODE_STRING) {
		if (resolve_node(r, t, &key))
			goto fail;
	} else {
		int ret;

		/* On the stack while its children resolve: a child that refers
		 * back to it is a cycle. */
		if (push(r, t, key.buf, from))
			goto fail;
		ret = resolve_node(r, t, &key);
		free(r->names[--r->nr]);
		if (ret)
			goto fail;
	}
	strbuf_release(&key);
	return t;
fail:
	strbuf_release(&key);
	return NULL;
}

static int resolve_string(struct resolver *r, struct cnode *n, struct strbuf *path)
{
	struct strbuf out = STRBUF_INIT;
	const char *s = n->s, *p;
	const struct cnode *whole = NULL;
	int ret = -1;

	if (push(r, n, path->buf, n))
		return -1;
	while ((p = strstr(s, "${"))) {
		const char *body = p + 2, *end = strchr(body, '}');
		const char *colon, *inner;
		size_t len;

		strbuf_add(&out, s, (size_t)(p - s));
		if (!end) {
			error_set(r->err, "unterminated interpolation '%s'", p);
			at_pos(r->err, &n->pos);
			goto out;
		}
		len = (size_t)(end - body);
		inner = strstr(body, "${");
		if (inner && inner < end) {
			error_set(r->err, "nested interpolations are not supported: '%s'", n->s);
			at_pos(r->err, &n->pos);
			goto out;
		}
		colon = memchr(body, ':', len);
		if (colon && colon - body == 3 && !memcmp(body, "now", 3)) {
			if (config_format_now(colon + 1, (size_t)(end - colon - 1), r->now, &out,
					      r->err)) {
				at_pos(r->err, &n->pos);
				goto out;
			}
		} else if (colon) {
			error_set(r->err, "unknown resolver '%.*s' in '%s' (only ${now:FORMAT})",
				  (int)(colon - body), body, n->s);
			at_pos(r->err, &n->pos);
			goto out;
		} else if (!valid_ref(body, len)) {
			error_set(r->err,
				  "bad interpolation '${%.*s}' (expected ${a.b} with "
				  "absolute keys)",
				  (int)len, body);
			at_pos(r->err, &n->pos);
			goto out;
		} else {
			const struct cnode *t = deref(r, n, body, len);

			if (!t)
				goto out;
			if (p == n->s && !end[1]) {
				whole = t;
			} else if (t->type == CNODE_LIST || t->type == CNODE_MAP) {
				error_set(
				    r->err, "'${%.*s}' is a %s; it can only be the whole value",
				    (int)len, body, t->type == CNODE_LIST ? "list" : "mapping");
				at_pos(r->err, &n->pos);
				goto out;
			} else {
				cnode_scalar_render(t, &out);
			}
		}
		s = end + 1;
		if (out.len / 1024 > r->budget) {
			error_set(r->err, "interpolation result is too large");
			at_pos(r->err, &n->pos);
			goto out;
		}
	}
	if (whole) {
		struct cnode_pos pos = n->pos;
		size_t size = tree_size(whole);

		if (size > r->budget) {
			error_set(r->err, "interpolations expand to too many values");
			at_pos(r->err, &n->pos);
			goto out;
		}
		r->budget -= size;
		cnode_assign(n, whole);
		n->pos = pos;
	} else {
		strbuf_addstr(&out, s);
		r->budget -= out.len / 1024 < r->budget ? out.len / 1024 : r->budget;
		free(n->s);
		n->s = strbuf_detach(&out, NULL);
	}
	ret = 0;
out:
	strbuf_release(&out);
	free(r->names[--r->nr]);
	return ret;
}

static int resolve_node(struct resolver *r, struct cnode *n, struct strbuf *path)
{
	if (n->type == CNODE_STRING)
		return strstr(n->s, "${") ? resolve_string(r, n, path) : 0;
	for (size_t i = 0; i < n->nr; i++) {
		size_t len = path->len;
		int ret;

		if (n->type == CNODE_MAP)
			strbuf_addf(path, "%s%s", len ? "." : "", n->items[i]->key);
		else
			strbuf_addf(path, "[%zu]", i);
		ret = resolve_node(r, n->items[i], path);
		strbuf_setlen(path, len);
		if (ret)
			return -1;
	}
	return 0;
}

int config_resolve(struct cnode *root, time_t now, struct strbuf *err)
{
	struct resolver r = {root, now, NULL, NULL, 0, 0, 0, MAX_EXPANSION, err};
	struct strbuf path = STRBUF_INIT;
	int ret = resolve_node(&r, root, &path);

	free(r.stack);
	free(r.names);
	strbuf_release(&path);
	return ret;
}

/* --- loading --- */

/* Errors quote user text; keep the message on one printable line. */
static void escape_controls(struct strbuf *err, size_t from)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = from; i < err->len; i++) {
		unsigned char c = (unsigned char)err->buf[i];

		if (c == '\n')
			strbuf_addstr(&sb, "\\n");
		else if (c == '\t')
			strbuf_addstr(&sb, "\\t");
		else if (c < 0x20 || c == 0x7f)
			strbuf_addf(&sb, "\\x%02x", c);
		else
			strbuf_addch(&sb, (int)c);
	}
	strbuf_setlen(err, from);
	strbuf_add(err, sb.buf, sb.len);
	strbuf_release(&sb);
}

int config_load_at(struct config **out, const char *conf_dir, size_t n_overrides,
		   const char *const *overrides, time_t now, struct strbuf *err)
{
	struct config *cfg = xcalloc(1, sizeof(*cfg));
	struct config_override *ov = xcalloc(n_overrides ? n_overrides : 1, sizeof(*ov));
	const char **origin = xcalloc(n_overrides ? n_overrides : 1, sizeof(*origin));
	char *group = xcalloc(n_overrides ? n_overrides : 1, 1);
	struct defaults d = {NULL, 0, 0};
	struct cnode *primary = NULL;
	struct strbuf path = STRBUF_INIT;
	struct cnode_pos top = {"config", 0, 0};
	const struct config_key *keys;
	size_t n_keys, parsed = 0, err_start = err ? err->len : 0;
	int ret = -1;

	*out = NULL;
	keys = config_schema(&n_keys);
	cfg->root = cnode_new(CNODE_MAP, NULL, top);
	for (size_t i = 0; i < n_overrides; i++) {
		struct strbuf o = STRBUF_INIT;

		strbuf_addf(&o, "override '%s'", overrides[i]);
		origin[i] = pool_add(cfg, &o);
		if (config_override_parse(overrides[i], origin[i], &ov[i], err))
			goto out;
		parsed++;
		group[i] = ov[i].package || strchr(ov[i].key, '/') || is_group(conf_dir, ov[i].key);
		if (group[i] && !is_group(conf_dir, ov[i].key)) {
			error_set(err, "%s: no config group '%s' in '%s'", origin[i], ov[i].key,
				  conf_dir);
			goto out;
		}
	}
	path_join(&path, conf_dir, "config.yaml");
	if (read_yaml(cfg, path.buf, &primary, err) || defaults_take(primary, &d, err))
		goto out;
	for (size_t i = 0; i < n_overrides; i++) {
		struct cnode_pos pos = {origin[i], 0, 0};

		if (group[i] && apply_group_override(&d, &ov[i], pos, err))
			goto out;
	}
	if (compose(cfg, conf_dir, &d, primary, err))
		goto out;
	config_schema_fill_defaults(cfg->root, keys, n_keys);
	for (size_t i = 0; i < n_overrides; i++) {
		struct cnode_pos pos = {origin[i], 0, 0};

		if (!group[i] && apply_key_override(cfg->root, &ov[i], pos, err))
			goto out;
	}
	config_schema_fill_defaults(cfg->root, keys, n_keys);
	if (config_resolve(cfg->root, now, err) ||
	    config_schema_validate(cfg->root, keys, n_keys, err))
		goto out;
	config_schema_sort(cfg->root, keys, n_keys);
	config_schema_bind(cfg->root, keys, n_keys, &cfg->typed);
	*out = cfg;
	cfg = NULL;
	ret = 0;
out:
	if (ret && err)
		escape_controls(err, err_start);
	for (size_t i = 0; i < parsed; i++)
		config_override_release(&ov[i]);
	free(ov);
	free(origin);
	free(group);
	defaults_release(&d);
	cnode_free(primary);
	strbuf_release(&path);
	config_free(cfg);
	return ret;
}

int config_load(struct config **out, const char *conf_dir, size_t n_overrides,
		const char *const *overrides, struct strbuf *err)
{
	return config_load_at(out, conf_dir, n_overrides, overrides, time(NULL), err);
}

void config_to_yaml(const struct config *cfg, struct strbuf *out)
{
	cnode_to_yaml(cfg->root, out);
}
