/* ncu_csv.c: Nsight Compute raw and details CSV pages; see ncu_csv.h. */
#include <ctype.h>
#include <math.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/csv.h"
#include "trace/ncu_csv.h"
#include "trace/ncu_details.h"
#include "core/banned.h"

static int is_digit(int c)
{
	return c >= '0' && c <= '9';
}

/* The decimal mark a cell proves: '.', ',' or 0 when it is not a number or
 * reads as one either way ("4,096"). */
static char decimal_vote(const char *p, size_t len)
{
	double v;
	int dot = ncu_parse_number(p, len, '.', &v) == NCU_NUM_OK;
	int comma = ncu_parse_number(p, len, ',', &v) == NCU_NUM_OK;

	if (dot && !comma)
		return '.';
	if (comma && !dot)
		return ',';
	return 0;
}

/* -------------------------------------------------------------- raw page */

static char *owned_text(char ***owned, size_t *nr, size_t *alloc, const struct csv_field *f,
			struct str *out)
{
	struct strbuf sb = STRBUF_INIT;
	char *s;

	csv_field_unescape(f, &sb);
	out->len = sb.len;
	s = strbuf_detach(&sb, NULL);
	out->p = s;
	ALLOC_GROW(*owned, *nr + 1, *alloc);
	(*owned)[(*nr)++] = s;
	return s;
}

static int is_log_line(const struct csv_reader *r)
{
	/* Console output mixes "==PROF==" / "==WARNING==" lines with the CSV. */
	return r->nr >= 1 && r->fields[0].len >= 2 && !r->fields[0].quoted &&
	       r->fields[0].p[0] == '=' && r->fields[0].p[1] == '=';
}

static int log_line_says(const struct csv_reader *r, const char *what)
{
	for (size_t i = 0; i < r->nr; i++) {
		const struct csv_field *f = &r->fields[i];
		size_t n = strlen(what);

		for (size_t k = 0; k + n <= f->len; k++)
			if (!memcmp(f->p + k, what, n))
				return 1;
	}
	return 0;
}

/* Reads records up to the header, skipping tool log lines. 1 with the header
 * in r->fields, or -1 with a message that says what the log said. */
static int read_header(struct csv_reader *r, const char *source, struct strbuf *err)
{
	int rc, no_kernels = 0, no_ranges = 0;

	while ((rc = csv_reader_next(r, err)) == 1) {
		if (is_log_line(r)) {
			no_kernels |= log_line_says(r, "No kernels were profiled");
			no_ranges |= log_line_says(r, "No ranges were profiled");
			continue;
		}
		/* a file cut inside its header, at a field boundary, reads as
		 * a shorter header and no rows: "ncu profiled nothing" */
		if (r->pos >= r->len && r->len && r->buf[r->len - 1] != '\n')
			return error_set(err,
					 "%s:%zu: the header has %zu fields and no line end "
					 "(truncated file?)",
					 source, r->record_line, r->nr);
		return 1;
	}
	if (rc < 0)
		return -1;
	if (no_kernels)
		return error_set(err,
				 "%s: ncu profiled no kernels ('No kernels were profiled'): "
				 "the kernel or NVTX filter matched nothing",
				 source);
	if (no_ranges)
		return error_set(err,
				 "%s: ncu profiled no ranges ('No ranges were profiled'): "
				 "the NVTX filter matched no range",
				 source);
	return error_set(err, "%s: empty file, no CSV header", source);
}

static long find_field(const struct csv_reader *r, const char *name)
{
	for (size_t i = 0; i < r->nr; i++)
		if (csv_field_eq(&r->fields[i], name))
			return (long)i;
	return -1;
}

static void build_index(struct ncu_raw *raw);

/* ncu's details page, read as the raw page it stands for (ncu_details.h):
 * raw then owns that text. */
static int parse_details(const char *buf, size_t len, const char *source, struct ncu_raw *raw,
			 struct strbuf *err)
{
	struct strbuf conv = STRBUF_INIT;

	if (ncu_details_to_raw(buf, len, source ? source : "<ncu csv>", &conv, err) ||
	    ncu_raw_parse(conv.buf, conv.len, source, raw, err)) {
		strbuf_release(&conv);
		return -1;
	}
	raw->owned_buf = strbuf_detach(&conv, NULL);
	raw->from_details = 1;
	return 0;
}

int ncu_raw_parse(const char *buf, size_t len, const char *source, struct ncu_raw *raw,
		  struct strbuf *err)
{
	struct csv_reader r;
	size_t alloc_cells = 0, alloc_lines = 0;
	int rc, ret = -1;
	char vote = 0;

	memset(raw, 0, sizeof(*raw));
	raw->source = xstrdup(source ? source : "<ncu csv>");
	raw->decimal = '.';
	raw->buf = buf;
	strbuf_init(&raw->arena, 0);
	csv_reader_init(&r, buf, len, raw->source);
	if (len >= 0xFFFFFFFFu) {
		error_set(err, "%s: larger than 4 GiB; split the export", raw->source);
		goto out;
	}
	if (read_header(&r, raw->source, err) < 0)
		goto out;
	if (find_field(&r, "Metric Name") >= 0 && find_field(&r, "Metric Value") >= 0) {
		csv_reader_release(&r);
		ncu_raw_release(raw);
		return parse_details(buf, len, source, raw, err);
	}
	if (find_field(&r, "ID") != 0) {
		error_set(err, "%s:%zu: not an ncu raw-page CSV (the first column is not 'ID')",
			  raw->source, r.record_line);
		goto out;
	}
	raw->ncols = r.nr;
	raw->cols = xcalloc(raw->ncols, sizeof(*raw->cols));
	for (size_t c = 0; c < raw->ncols; c++) {
		struct strbuf sb = STRBUF_INIT;

		csv_field_unescape(&r.fields[c], &sb);
		raw->cols[c].name = strbuf_detach(&sb, NULL);
		raw->cols[c].unit = xstrdup("");
		raw->cols[c].base_unit = xstrdup("");
		raw->cols[c].scale = 1;
		raw->cols[c].unit_known = 1;
	}
	build_index(raw);
	{
		/* Reserve the cell table once: newlines bound the row count,
		 * and regrowing a table larger than the input costs more than
		 * tokenizing it. */
		size_t lines = 1;

		for (const char *q = memchr(buf + r.pos, '\n', len - r.pos); q;
		     q = memchr(q + 1, '\n', (size_t)(buf + len - q - 1)))
			lines++;
		ALLOC_GROW(raw->cells, st_mult(lines, raw->ncols), alloc_cells);
		ALLOC_GROW(raw->row_line, lines, alloc_lines);
	}
	while ((rc = csv_reader_next(&r, err)) == 1) {
		size_t row;

		if (is_log_line(&r))
			continue;
		/* The raw page is rectangular: a row of another length is a
		 * damaged file wherever it is, never empty cells. A short last
		 * row without a line end is a file cut short. */
		if (r.nr < raw->ncols && r.pos >= len && len && buf[len - 1] != '\n') {
			error_set(err,
				  "%s:%zu: the last row has %zu of %zu fields and no line end "
				  "(truncated file?)",
				  raw->source, r.record_line, r.nr, raw->ncols);
			goto out;
		}
		if (r.nr != raw->ncols) {
			error_set(err, "%s:%zu: row has %zu fields, the header %zu", raw->source,
				  r.record_line, r.nr, raw->ncols);
			goto out;
		}
		if (!raw->nrows && !raw->has_units_row && r.fields[0].len == 0) {
			/* Row 2 is the units row: its ID cell is empty. */
			raw->has_units_row = 1;
			for (size_t c = 0; c < r.nr; c++) {
				struct strbuf sb = STRBUF_INIT, base = STRBUF_INIT;
				struct ncu_column *col = &raw->cols[c];

				csv_field_unescape(&r.fields[c], &sb);
				free(col->unit);
				free(col->base_unit);
				col->unit_known =
				    !ncu_unit_scale(sb.buf, sb.len, &col->scale, &base);
				col->unit = strbuf_detach(&sb, NULL);
				col->base_unit = strbuf_detach(&base, NULL);
			}
			continue;
		}
		row = raw->nrows++;
		ALLOC_GROW(raw->cells, raw->nrows * raw->ncols, alloc_cells);
		ALLOC_GROW(raw->row_line, raw->nrows, alloc_lines);
		raw->row_line[row] = r.record_line;
		{
			struct ncu_cell *cells = &raw->cells[row * raw->ncols];
			const struct csv_field *f = r.fields;

			for (size_t c = 0; c < r.nr; c++) {
				if (f[c].escaped) {
					size_t at = raw->arena.len;

					csv_field_unescape(&f[c], &raw->arena);
					if (raw->arena.len >= NCU_CELL_OWNED) {
						error_set(err, "%s: more than 2 GiB of quoted text",
							  raw->source);
						goto out;
					}
					cells[c].off = (uint32_t)at;
					cells[c].len =
					    (uint32_t)(raw->arena.len - at) | NCU_CELL_OWNED;
				} else {
					cells[c].off = (uint32_t)(f[c].p - buf);
					cells[c].len = (uint32_t)f[c].len;
				}
			}
		}
		/* Files decide the decimal mark in their first row (durations,
		 * percentages); looking further than 1000 rows only costs time. */
		for (size_t c = 1; !vote && row < 1000 && c < raw->ncols; c++) {
			struct str t = ncu_raw_cell(raw, row, c);

			vote = decimal_vote(t.p, t.len);
		}
	}
	if (rc < 0)
		goto out;
	if (vote)
		raw->decimal = vote;
	ret = 0;
out:
	csv_reader_release(&r);
	if (ret)
		ncu_raw_release(raw);
	return ret;
}

void ncu_raw_release(struct ncu_raw *raw)
{
	for (size_t c = 0; c < raw->ncols && raw->cols; c++) {
		free(raw->cols[c].name);
		free(raw->cols[c].unit);
		free(raw->cols[c].base_unit);
	}
	strbuf_release(&raw->arena);
	free(raw->cols);
	free(raw->cells);
	free(raw->row_line);
	free(raw->index);
	free(raw->source);
	free(raw->owned_buf);
	memset(raw, 0, sizeof(*raw));
}

static size_t name_hash(const char *s)
{
	size_t h = 5381;

	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

/* Column lookups happen dozens of times per row over 1000+ columns. */
static void build_index(struct ncu_raw *raw)
{
	size_t size = 16;

	while (size < 2 * raw->ncols)
		size *= 2;
	raw->index_size = size;
	raw->index = xmalloc(st_mult(size, sizeof(*raw->index)));
	for (size_t i = 0; i < size; i++)
		raw->index[i] = -1;
	/* Insert last to first so that the first of duplicate names wins. */
	for (size_t c = raw->ncols; c > 0; c--) {
		size_t h = name_hash(raw->cols[c - 1].name) & (size - 1);

		while (raw->index[h] >= 0 &&
		       strcmp(raw->cols[raw->index[h]].name, raw->cols[c - 1].name))
			h = (h + 1) & (size - 1);
		raw->index[h] = (long)(c - 1);
	}
	raw->nvtx_col[0] = raw->nvtx_col[1] = -1;
	for (size_t c = 0; c < raw->ncols; c++) {
		if (raw->nvtx_col[0] < 0 &&
		    starts_with(raw->cols[c].name, "thread Domain:Push/Pop_Range"))
			raw->nvtx_col[0] = (long)c;
		if (raw->nvtx_col[1] < 0 &&
		    starts_with(raw->cols[c].name, "Id:Domain:Start/Stop_Range"))
			raw->nvtx_col[1] = (long)c;
	}
}

long ncu_raw_col(const struct ncu_raw *raw, const char *name)
{
	size_t h;

	if (!raw->index_size)
		return -1;
	h = name_hash(name) & (raw->index_size - 1);
	while (raw->index[h] >= 0) {
		if (!strcmp(raw->cols[raw->index[h]].name, name))
			return raw->index[h];
		h = (h + 1) & (raw->index_size - 1);
	}
	return -1;
}

struct str ncu_raw_cell(const struct ncu_raw *raw, size_t row, size_t col)
{
	struct ncu_cell c = raw->cells[row * raw->ncols + col];
	struct str s;

	if (c.len & NCU_CELL_OWNED) {
		s.p = raw->arena.buf + c.off;
		s.len = c.len & ~NCU_CELL_OWNED;
	} else {
		s.p = raw->buf + c.off;
		s.len = c.len;
	}
	return s;
}

enum ncu_num ncu_raw_number(const struct ncu_raw *raw, size_t row, size_t col, double *out)
{
	struct str s = ncu_raw_cell(raw, row, col);
	enum ncu_num rc = ncu_parse_number(s.p, s.len, raw->decimal, out);

	if (rc == NCU_NUM_OK)
		*out *= raw->cols[col].scale;
	return rc;
}

enum ncu_num ncu_raw_metric(const struct ncu_raw *raw, size_t row, const char *name, double *out)
{
	long c = ncu_raw_col(raw, name);

	if (c < 0)
		return NCU_NUM_EMPTY;
	return ncu_raw_number(raw, row, (size_t)c, out);
}

int ncu_raw_check_durations(const struct ncu_raw *raw, struct strbuf *err)
{
	static const char name[] = "gpu__time_duration.sum";
	long c = ncu_raw_col(raw, name);
	const struct ncu_column *col;
	double v;

	if (c < 0)
		return 0;
	col = &raw->cols[c];
	if (raw->has_units_row && col->unit && *col->unit &&
	    (!col->unit_known || !col->base_unit || strcmp(col->base_unit, "nsecond")))
		return error_set(err, "%s: %s is in '%s', not a time unit llmprof knows",
				 raw->source, name, col->unit);
	for (size_t row = 0; row < raw->nrows; row++)
		if (ncu_raw_number(raw, row, (size_t)c, &v) == NCU_NUM_OK && v < 0)
			return error_set(err, "%s:%zu: %s is %g ns, below zero", raw->source,
					 raw->row_line[row], name, v);
	return 0;
}

/* ------------------------------------------------------------------ NVTX */

/* Range name of a push/pop entry's tail "RANGE:PL_Type:PL_Value:CLR_Type:
 * Color:Msg_Type:Msg". RANGE may hold ':' ("A::A1"); with a message type the
 * message repeats the range name, which pins its length down; without one
 * the six attribute fields (which hold no ':') are cut from the right. */
static struct str nvtx_range_of(const char *s, size_t n)
{
	struct str out = {s, n};
	size_t colons = 0, k;

	for (k = 0; k < n; k++) {
		size_t mid_colons = 0;

		if (s[k] != ':' || 2 * k + 1 >= n)
			continue;
		if (s[n - k - 1] != ':' || memcmp(s + n - k, s, k))
			continue;
		for (size_t j = k; j < n - k - 1; j++)
			mid_colons += s[j] == ':';
		if (mid_colons == 5) {
			out.len = k;
			return out;
		}
	}
	for (k = n; k > 0; k--)
		if (s[k - 1] == ':' && ++colons == 6) {
			out.len = k - 1;
			return out;
		}
	return out;
}

static int nvtx_push_entry(const char *p, size_t n, enum ncu_nvtx_style style,
			   struct ncu_nvtx_stack *st, struct strbuf *err)
{
	const char *colon;
	struct ncu_nvtx_range *rg;
	struct str range;

	/* Start/end entries begin with the range id. */
	if (style == NCU_NVTX_STARTEND) {
		size_t i = 0;

		while (i < n && is_digit(p[i]))
			i++;
		if (i && i < n && p[i] == ':') {
			p += i + 1;
			n -= i + 1;
		}
	}
	colon = memchr(p, ':', n);
	if (!colon)
		return error_set(err, "NVTX entry '%.*s' has no 'domain:range'", (int)n, p);
	range = nvtx_range_of(colon + 1, n - (size_t)(colon - p) - 1);
	ALLOC_GROW(st->ranges, st->nr + 1, st->alloc);
	rg = &st->ranges[st->nr++];
	rg->style = style;
	if ((size_t)(colon - p) == strlen("<default domain>") &&
	    !memcmp(p, "<default domain>", (size_t)(colon - p)))
		rg->domain = NULL;
	else
		rg->domain = xstrndup(p, (size_t)(colon - p));
	rg->name = xstrndup(range.p, range.len);
	return 0;
}

int ncu_nvtx_parse_cell(const char *p, size_t len, enum ncu_nvtx_style style,
			struct ncu_nvtx_stack *st, struct strbuf *err)
{
	size_t i = 0;

	st->thread = -1;
	while (i < len && p[i] == ' ')
		i++;
	if (i < len && is_digit(p[i])) {
		long long t = 0;

		while (i < len && is_digit(p[i]) && t <= (LLONG_MAX - 9) / 10)
			t = t * 10 + (p[i++] - '0');
		st->thread = t;
	}
	for (;;) {
		const char *q;

		while (i < len && p[i] == ' ')
			i++;
		if (i >= len)
			return 0;
		if (p[i] != '"')
			return error_set(err, "unexpected '%c' in NVTX cell at byte %zu", p[i],
					 i + 1);
		q = memchr(p + i + 1, '"', len - i - 1);
		if (!q)
			return error_set(err, "unterminated NVTX entry in cell at byte %zu", i + 1);
		if (nvtx_push_entry(p + i + 1, (size_t)(q - p) - i - 1, style, st, err))
			return -1;
		i = (size_t)(q - p) + 1;
	}
}

void ncu_nvtx_stack_release(struct ncu_nvtx_stack *st)
{
	for (size_t i = 0; i < st->nr; i++) {
		free(st->ranges[i].domain);
		free(st->ranges[i].name);
	}
	free(st->ranges);
	st->ranges = NULL;
	st->nr = st->alloc = 0;
}

int ncu_raw_nvtx(const struct ncu_raw *raw, size_t row, struct ncu_nvtx_stack *st,
		 struct strbuf *err)
{
	st->thread = -1;
	for (int k = 0; k < 2; k++) {
		struct ncu_nvtx_stack one = {0};
		long c = raw->nvtx_col[k];
		struct str cell;

		if (c < 0)
			continue;
		cell = ncu_raw_cell(raw, row, (size_t)c);
		if (ncu_nvtx_parse_cell(cell.p, cell.len, k ? NCU_NVTX_STARTEND : NCU_NVTX_PUSHPOP,
					&one, err)) {
			ncu_nvtx_stack_release(&one);
			ncu_nvtx_stack_release(st);
			return error_set(err, " (%s:%zu, column '%s')", raw->source,
					 raw->row_line[row], raw->cols[c].name);
		}
		if (st->thread < 0)
			st->thread = one.thread;
		for (size_t i = 0; i < one.nr; i++) {
			ALLOC_GROW(st->ranges, st->nr + 1, st->alloc);
			st->ranges[st->nr++] = one.ranges[i];
		}
		free(one.ranges);
	}
	return 0;
}

/* ----------------------------------------------------------- details page */

int ncu_details_parse(const char *buf, size_t len, const char *source, struct ncu_details *d,
		      struct strbuf *err)
{
	struct csv_reader r;
	long c_id, c_kernel, c_section, c_metric, c_unit, c_value, c_rname, c_rtype, c_rtext;
	size_t ncols;
	int rc, ret = -1;
	char vote = 0;

	memset(d, 0, sizeof(*d));
	d->source = xstrdup(source ? source : "<ncu csv>");
	d->decimal = '.';
	csv_reader_init(&r, buf, len, d->source);
	if (read_header(&r, d->source, err) < 0)
		goto out;
	ncols = r.nr;
	c_id = find_field(&r, "ID");
	c_kernel = find_field(&r, "Kernel Name");
	c_section = find_field(&r, "Section Name");
	c_metric = find_field(&r, "Metric Name");
	c_unit = find_field(&r, "Metric Unit");
	c_value = find_field(&r, "Metric Value");
	c_rname = find_field(&r, "Rule Name");
	c_rtype = find_field(&r, "Rule Type");
	c_rtext = find_field(&r, "Rule Description");
	if (c_id < 0 || c_section < 0 || c_metric < 0 || c_unit < 0 || c_value < 0) {
		error_set(err,
			  "%s:%zu: not an ncu details-page CSV (needs ID, Section Name, "
			  "Metric Name, Metric Unit, Metric Value)",
			  d->source, r.record_line);
		goto out;
	}
	while ((rc = csv_reader_next(&r, err)) == 1) {
		struct ncu_detail *e;
		struct str id = {"", 0};
		double v;

#define CELL(col, dst)                                                                             \
	do {                                                                                       \
		(dst).p = "";                                                                      \
		(dst).len = 0;                                                                     \
		if ((col) >= 0 && (size_t)(col) < r.nr) {                                          \
			if (r.fields[col].escaped)                                                 \
				owned_text(&d->owned, &d->nr_owned, &d->alloc_owned,               \
					   &r.fields[col], &(dst));                                \
			else {                                                                     \
				(dst).p = r.fields[col].p;                                         \
				(dst).len = r.fields[col].len;                                     \
			}                                                                          \
		}                                                                                  \
	} while (0)
		if (is_log_line(&r))
			continue;
		/* ragged by design (metric rows are shorter), never longer */
		if (r.nr > ncols) {
			error_set(err, "%s:%zu: row has %zu fields, the header %zu", d->source,
				  r.record_line, r.nr, ncols);
			goto out;
		}
		ALLOC_GROW(d->rows, d->nr + 1, d->alloc);
		e = &d->rows[d->nr++];
		memset(e, 0, sizeof(*e));
		e->row_line = r.record_line;
		CELL(c_id, id);
		if (ncu_parse_number(id.p, id.len, '.', &v) != NCU_NUM_OK || v < 0 || v > 1e15) {
			error_set(err, "%s:%zu: ID '%.*s' is not a result number", d->source,
				  r.record_line, (int)id.len, id.p);
			goto out;
		}
		e->id = (long long)v;
		CELL(c_kernel, e->kernel);
		CELL(c_section, e->section);
		CELL(c_metric, e->metric);
		CELL(c_unit, e->unit);
		CELL(c_value, e->value);
		CELL(c_rname, e->rule_name);
		CELL(c_rtype, e->rule_type);
		CELL(c_rtext, e->rule_text);
#undef CELL
		{
			struct strbuf u = STRBUF_INIT;

			strbuf_add(&u, e->unit.p, e->unit.len);
			ncu_unit_scale(u.buf, u.len, &e->scale, NULL);
			strbuf_release(&u);
		}
		if (!vote)
			vote = decimal_vote(e->value.p, e->value.len);
	}
	if (rc < 0)
		goto out;
	if (vote)
		d->decimal = vote;
	ret = 0;
out:
	csv_reader_release(&r);
	if (ret)
		ncu_details_release(d);
	return ret;
}

void ncu_details_release(struct ncu_details *d)
{
	for (size_t i = 0; i < d->nr_owned; i++)
		free(d->owned[i]);
	free(d->owned);
	free(d->rows);
	free(d->source);
	memset(d, 0, sizeof(*d));
}

enum ncu_num ncu_details_metric(const struct ncu_details *d, long long id, const char *label,
				double *out)
{
	size_t n = strlen(label);

	for (size_t i = 0; i < d->nr; i++) {
		const struct ncu_detail *e = &d->rows[i];
		enum ncu_num rc;

		if (e->id != id || e->metric.len != n || memcmp(e->metric.p, label, n))
			continue;
		rc = ncu_parse_number(e->value.p, e->value.len, d->decimal, out);
		if (rc == NCU_NUM_OK)
			*out *= e->scale;
		return rc;
	}
	return NCU_NUM_EMPTY;
}
