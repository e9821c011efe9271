/* ncu_run.c: ncu output verdicts and raw-page merging; see ncu_run.h. */
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/xalloc.h"
#include "trace/csv.h"
#include "nsight/ncu_run.h"
#include "core/banned.h"

static const char *find(const char *text, size_t len, const char *needle)
{
	size_t n = strlen(needle);

	for (size_t i = 0; i + n <= len; i++)
		if (text[i] == needle[0] && !memcmp(text + i, needle, n))
			return text + i;
	return NULL;
}

enum ncu_verdict ncu_output_diagnose(const char *text, size_t len, struct strbuf *why)
{
	if (find(text, len, "ERR_NVGPUCTRPERM")) {
		strbuf_addstr(why, "ncu [ERR_NVGPUCTRPERM]: this user may not read the GPU "
				   "performance counters (fix: run llmprof as root, or load the "
				   "nvidia module with NVreg_RestrictProfilingToAdminUsers=0; "
				   "docs/ncu.md \"Permissions\")");
		return NCU_RUN_PERM;
	}
	if (find(text, len, "No kernels were profiled")) {
		strbuf_addstr(why, "ncu profiled no kernel: no launch passed the filter");
		return NCU_RUN_NO_KERNELS;
	}
	if (find(text, len, "No ranges were profiled")) {
		strbuf_addstr(why,
			      "ncu profiled no range: no NVTX range matched the include filter");
		return NCU_RUN_NO_RANGES;
	}
	return NCU_RUN_OK;
}

static char *field_dup(const struct csv_field *f)
{
	struct strbuf sb = STRBUF_INIT;

	csv_field_unescape(f, &sb);
	return strbuf_detach(&sb, NULL);
}

static size_t col_index(const struct ncu_raw_merge *m, const char *name)
{
	for (size_t i = 0; i < m->ncols; i++)
		if (!strcmp(m->cols[i], name))
			return i;
	return (size_t)-1;
}

int ncu_raw_merge_add(struct ncu_raw_merge *m, const char *text, size_t len, const char *name,
		      struct strbuf *err)
{
	struct csv_reader r;
	size_t *map = NULL, nhdr = 0, added = 0;
	char **hdr = NULL;
	int rc, ret = -1;

	csv_reader_init(&r, text, len, name);
	rc = csv_reader_next(&r, err);
	if (rc <= 0) {
		ret = rc; /* 0: an empty import, no results */
		goto out;
	}
	nhdr = r.nr;
	hdr = xcalloc(nhdr, sizeof(*hdr));
	for (size_t i = 0; i < nhdr; i++)
		hdr[i] = field_dup(&r.fields[i]);
	rc = csv_reader_next(&r, err);
	if (rc < 0)
		goto out;
	if (!rc || r.nr != nhdr) {
		error_set(err,
			  "%s: no units row after the header (was it imported with "
			  "--print-units base?)",
			  name);
		goto out;
	}
	map = xcalloc(nhdr, sizeof(*map));
	for (size_t i = 0; i < nhdr; i++) {
		struct strbuf u = STRBUF_INIT;
		size_t c = col_index(m, hdr[i]);

		csv_field_unescape(&r.fields[i], &u);
		if (c == (size_t)-1) {
			ALLOC_GROW(m->cols, m->ncols + 1, m->cols_alloc);
			m->units = xrealloc(m->units, m->cols_alloc * sizeof(*m->units));
			c = m->ncols++;
			m->cols[c] = xstrdup(hdr[i]);
			m->units[c] = strbuf_detach(&u, NULL);
		} else if (strcmp(m->units[c], u.buf)) {
			error_set(err,
				  "%s: column '%s' is in '%s' here but in '%s' in an earlier "
				  "ncu run; the runs must collect the same metrics",
				  name, hdr[i], u.buf, m->units[c]);
			strbuf_release(&u);
			goto out;
		} else {
			strbuf_release(&u);
		}
		map[i] = c;
	}
	while ((rc = csv_reader_next(&r, err)) > 0) {
		char **row;

		if (r.nr != nhdr) {
			error_set(err, "%s:%zu: %zu fields, the header has %zu", name,
				  r.record_line, r.nr, nhdr);
			goto out;
		}
		row = xcalloc(m->ncols, sizeof(*row));
		for (size_t i = 0; i < nhdr; i++)
			row[map[i]] = field_dup(&r.fields[i]);
		ALLOC_GROW(m->rows, m->nrows + 1, m->rows_alloc);
		ALLOC_GROW(m->row_ncols, m->nrows + 1, m->rows_ncols_alloc);
		m->row_ncols[m->nrows] = m->ncols;
		m->rows[m->nrows++] = row;
		added++;
	}
	if (rc < 0)
		goto out;
	m->inputs++;
	ret = (int)added;
out:
	for (size_t i = 0; i < nhdr; i++)
		free(hdr[i]);
	free(hdr);
	free(map);
	csv_reader_release(&r);
	return ret;
}

static void put(struct strbuf *out, const char *s, int first)
{
	if (!first)
		strbuf_addch(out, ',');
	strbuf_addch(out, '"');
	for (; s && *s; s++) {
		if (*s == '"')
			strbuf_addch(out, '"');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

void ncu_raw_merge_write(const struct ncu_raw_merge *m, struct strbuf *out)
{
	size_t id = col_index(m, "ID");

	if (!m->ncols)
		return;
	for (size_t c = 0; c < m->ncols; c++)
		put(out, m->cols[c], !c);
	strbuf_addch(out, '\n');
	for (size_t c = 0; c < m->ncols; c++)
		put(out, m->units[c], !c);
	strbuf_addch(out, '\n');
	for (size_t r = 0; r < m->nrows; r++) {
		for (size_t c = 0; c < m->ncols; c++) {
			const char *v = c < m->row_ncols[r] ? m->rows[r][c] : NULL;
			struct strbuf n = STRBUF_INIT;

			if (c == id) {
				strbuf_addf(&n, "%zu", r);
				v = n.buf;
			}
			put(out, v, !c);
			strbuf_release(&n);
		}
		strbuf_addch(out, '\n');
	}
}

void ncu_raw_merge_release(struct ncu_raw_merge *m)
{
	for (size_t c = 0; c < m->ncols; c++) {
		free(m->cols[c]);
		free(m->units[c]);
	}
	for (size_t r = 0; r < m->nrows; r++) {
		for (size_t c = 0; c < m->row_ncols[r]; c++)
			free(m->rows[r][c]);
		free(m->rows[r]);
	}
	free(m->cols);
	free(m->units);
	free(m->rows);
	free(m->row_ncols);
	memset(m, 0, sizeof(*m));
}
