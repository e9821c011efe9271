/* ncu_details.c: ncu's details page as its raw page; see ncu_details.h. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "core/error.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "trace/csv.h"
#include "trace/ncu_csv.h"
#include "trace/ncu_details.h"
#include "trace/ncu_units.h"
#include "core/banned.h"

/* The details page's label of each metric the kernel records read
 * (analysis/ncu_kernel.c), by section, as ncu 2022.4 to 2025.3 print
 * them; the metric is the one ncu's SpeedOfLight, LaunchStats and
 * Occupancy sections show under that label. */
static const struct {
	const char *section, *label, *metric;
} details_map[] = {
    {"GPU Speed Of Light Throughput", "Duration", "gpu__time_duration.sum"},
    {"GPU Speed Of Light Throughput", "Compute (SM) Throughput",
     "sm__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "Memory Throughput",
     "gpu__compute_memory_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "DRAM Throughput",
     "gpu__dram_throughput.avg.pct_of_peak_sustained_elapsed"},
    {"GPU Speed Of Light Throughput", "L2 Cache Throughput",
     "lts__throughput.avg.pct_of_peak_sustained_elapsed"},
    {"Launch Statistics", "Registers Per Thread", "launch__registers_per_thread"},
    {"Launch Statistics", "Static Shared Memory Per Block", "launch__shared_mem_per_block_static"},
    {"Launch Statistics", "Dynamic Shared Memory Per Block",
     "launch__shared_mem_per_block_dynamic"},
    {"Occupancy", "Achieved Occupancy", "sm__warps_active.avg.pct_of_peak_sustained_active"},
    {"Occupancy", "Theoretical Occupancy", "sm__maximum_warps_per_active_cycle_pct"},
};
#define NMAP ARRAY_SIZE(details_map)

/* The details page's own columns; every other one identifies the result. */
static const char *const details_cols[] = {
    "Section Name",	 "Metric Name", "Metric Unit",	    "Metric Value",
    "Rule Name",	 "Rule Type",	"Rule Description", "Estimated Speedup Type",
    "Estimated Speedup",
};

struct result {
	char **ident;	   /* the identity cells of its first row */
	char *value[NMAP]; /* as printed, NULL when absent */
	char *unit[NMAP];  /* the unit it was printed in */
	size_t line;
};

struct conv {
	const char *source;
	long col_section, col_metric, col_unit, col_value, col_rule, col_id, col_pid;
	long *ident_col; /* the header indices of the identity columns */
	size_t nident;
	struct strbuf *header; /* the identity columns' names */
	struct result *r;
	size_t nr, alloc;
	char decimal;
};

static int is_log_line(const struct csv_reader *r)
{
	return r->nr >= 1 && r->fields[0].len >= 2 && !r->fields[0].quoted &&
	       r->fields[0].p[0] == '=' && r->fields[0].p[1] == '=';
}

/* The next record that is no ncu log line: 1, 0 at the end, -1. */
static int next_record(struct csv_reader *r, struct strbuf *err)
{
	int rc;

	while ((rc = csv_reader_next(r, err)) == 1 && is_log_line(r))
		;
	return rc;
}

static long find_field(const struct csv_reader *r, const char *name)
{
	for (size_t i = 0; i < r->nr; i++)
		if (csv_field_eq(&r->fields[i], name))
			return (long)i;
	return -1;
}

int ncu_csv_is_details(const char *buf, size_t len)
{
	struct csv_reader r;
	struct strbuf err = STRBUF_INIT;
	int yes;

	csv_reader_init(&r, buf, len, "ncu csv");
	yes = next_record(&r, &err) == 1 && find_field(&r, "Metric Name") >= 0 &&
	      find_field(&r, "Metric Value") >= 0;
	csv_reader_release(&r);
	strbuf_release(&err);
	return yes;
}

static char *field_dup(const struct csv_reader *r, long col)
{
	struct strbuf sb = STRBUF_INIT;

	if (col >= 0 && (size_t)col < r->nr)
		csv_field_unescape(&r->fields[col], &sb);
	return strbuf_detach(&sb, NULL);
}

static int field_is(const struct csv_reader *r, long col, const char *s)
{
	return col >= 0 && (size_t)col < r->nr && csv_field_eq(&r->fields[col], s);
}

static void read_header(struct conv *c, const struct csv_reader *r)
{
	const struct {
		long *at;
		const char *name;
	} cols[] = {
	    {&c->col_id, "ID"},
	    {&c->col_pid, "Process ID"},
	    {&c->col_section, "Section Name"},
	    {&c->col_metric, "Metric Name"},
	    {&c->col_unit, "Metric Unit"},
	    {&c->col_value, "Metric Value"},
	    {&c->col_rule, "Rule Name"},
	};

	for (size_t i = 0; i < ARRAY_SIZE(cols); i++)
		*cols[i].at = find_field(r, cols[i].name);
	c->ident_col = xcalloc(r->nr, sizeof(*c->ident_col));
	c->header = xcalloc(r->nr, sizeof(*c->header));
	for (size_t i = 0; i < r->nr; i++) {
		int own = 0;

		for (size_t k = 0; k < ARRAY_SIZE(details_cols); k++)
			own |= csv_field_eq(&r->fields[i], details_cols[k]);
		if (own)
			continue;
		strbuf_init(&c->header[c->nident], 0);
		csv_field_unescape(&r->fields[i], &c->header[c->nident]);
		c->ident_col[c->nident++] = (long)i;
	}
}

/* The result row r belongs to: the last one while ID and process are the
 * same (a result's rows are consecutive), else a new one. */
static struct result *result_of(struct conv *c, const struct csv_reader *r)
{
	struct result *cur = c->nr ? &c->r[c->nr - 1] : NULL;

	if (cur) {
		long id_at = -1, pid_at = -1;

		for (size_t i = 0; i < c->nident; i++) {
			if (c->ident_col[i] == c->col_id)
				id_at = (long)i;
			if (c->ident_col[i] == c->col_pid)
				pid_at = (long)i;
		}
		if ((id_at < 0 || field_is(r, c->col_id, cur->ident[id_at])) &&
		    (pid_at < 0 || field_is(r, c->col_pid, cur->ident[pid_at])))
			return cur;
	}
	ALLOC_GROW(c->r, c->nr + 1, c->alloc);
	cur = &c->r[c->nr++];
	memset(cur, 0, sizeof(*cur));
	cur->line = r->record_line;
	cur->ident = xcalloc(c->nident, sizeof(*cur->ident));
	for (size_t i = 0; i < c->nident; i++)
		cur->ident[i] = field_dup(r, c->ident_col[i]);
	return cur;
}

/* A metric row of a mapped label: its value and unit kept. */
static void take_metric(struct conv *c, const struct csv_reader *r, struct result *res)
{
	if (!field_is(r, c->col_rule, "") && c->col_rule >= 0 && (size_t)c->col_rule < r->nr)
		return; /* a rule's row, not a metric's */
	for (size_t k = 0; k < NMAP; k++) {
		if (!field_is(r, c->col_section, details_map[k].section) ||
		    !field_is(r, c->col_metric, details_map[k].label))
			continue;
		free(res->value[k]);
		free(res->unit[k]);
		res->value[k] = field_dup(r, c->col_value);
		res->unit[k] = field_dup(r, c->col_unit);
		if (!c->decimal) {
			double v;
			const char *p = res->value[k];
			int dot = ncu_parse_number(p, strlen(p), '.', &v) == NCU_NUM_OK;
			int comma = ncu_parse_number(p, strlen(p), ',', &v) == NCU_NUM_OK;

			c->decimal = dot && !comma ? '.' : comma && !dot ? ',' : 0;
		}
		return;
	}
}

static void add_cell(struct strbuf *out, const char *s, int first)
{
	if (!first)
		strbuf_addch(out, ',');
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"')
			strbuf_addch(out, '"');
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

/* value printed in unit, in the base unit with the decimal point moved:
 * the digits ncu printed, no more (or the text as it is when it is no
 * number: n/a, empty). */
static void add_value(struct strbuf *out, const char *value, const char *unit, char decimal)
{
	struct strbuf base = STRBUF_INIT, num = STRBUF_INIT;
	const char *mark = strchr(value, decimal);
	double v, scale = 1;
	int decimals = 0, exp10;

	ncu_unit_scale(unit, strlen(unit), &scale, &base);
	if (ncu_parse_number(value, strlen(value), decimal, &v) != NCU_NUM_OK) {
		add_cell(out, value, 0);
		goto out;
	}
	if (mark)
		while (mark[1 + decimals] >= '0' && mark[1 + decimals] <= '9')
			decimals++;
	exp10 = (int)lround(log10(scale));
	if (scale > 0 && fabs(scale - pow(10, exp10)) <= 1e-9 * scale)
		strbuf_addf(&num, "%.*f", decimals > exp10 ? decimals - exp10 : 0, v * scale);
	else
		strbuf_addf(&num, "%.17g", v * scale);
	add_cell(out, num.buf, 0);
out:
	strbuf_release(&base);
	strbuf_release(&num);
}

/* The base unit of the column: that of its first value. */
static void column_unit(const struct conv *c, size_t k, struct strbuf *base)
{
	for (size_t i = 0; i < c->nr; i++) {
		double scale;

		if (!c->r[i].value[k])
			continue;
		ncu_unit_scale(c->r[i].unit[k], strlen(c->r[i].unit[k]), &scale, base);
		return;
	}
}

static void write_raw(const struct conv *c, struct strbuf *out)
{
	int have[NMAP] = {0};
	struct strbuf u = STRBUF_INIT;

	for (size_t i = 0; i < c->nr; i++)
		for (size_t k = 0; k < NMAP; k++)
			have[k] |= c->r[i].value[k] != NULL;
	for (size_t i = 0; i < c->nident; i++)
		add_cell(out, c->header[i].buf, i == 0);
	for (size_t k = 0; k < NMAP; k++)
		if (have[k])
			add_cell(out, details_map[k].metric, 0);
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < c->nident; i++)
		add_cell(out, "", i == 0);
	for (size_t k = 0; k < NMAP; k++) {
		if (!have[k])
			continue;
		strbuf_reset(&u);
		column_unit(c, k, &u);
		add_cell(out, u.buf, 0);
	}
	strbuf_addch(out, '\n');
	for (size_t i = 0; i < c->nr; i++) {
		const struct result *res = &c->r[i];

		for (size_t j = 0; j < c->nident; j++)
			add_cell(out, res->ident[j], j == 0);
		for (size_t k = 0; k < NMAP; k++)
			if (have[k])
				add_value(out, res->value[k] ? res->value[k] : "",
					  res->unit[k] ? res->unit[k] : "", c->decimal);
		strbuf_addch(out, '\n');
	}
	strbuf_release(&u);
}

static void conv_release(struct conv *c)
{
	for (size_t i = 0; i < c->nr; i++) {
		for (size_t j = 0; j < c->nident; j++)
			free(c->r[i].ident[j]);
		free(c->r[i].ident);
		for (size_t k = 0; k < NMAP; k++) {
			free(c->r[i].value[k]);
			free(c->r[i].unit[k]);
		}
	}
	for (size_t i = 0; i < c->nident; i++)
		strbuf_release(&c->header[i]);
	free(c->header);
	free(c->ident_col);
	free(c->r);
}

int ncu_details_to_raw(const char *buf, size_t len, const char *source, struct strbuf *out,
		       struct strbuf *err)
{
	struct csv_reader r;
	struct conv c;
	int rc, ret = -1;

	memset(&c, 0, sizeof(c));
	c.source = source;
	csv_reader_init(&r, buf, len, source);
	if ((rc = next_record(&r, err)) <= 0) {
		if (!rc)
			error_set(err, "%s: empty ncu CSV", source);
		goto out;
	}
	read_header(&c, &r);
	if (c.col_id < 0 || c.col_section < 0 || c.col_metric < 0 || c.col_unit < 0 ||
	    c.col_value < 0 || !c.nident) {
		error_set(err,
			  "%s:%zu: not an ncu details-page CSV (needs ID, Section Name, Metric "
			  "Name, Metric Unit, Metric Value)",
			  source, r.record_line);
		goto out;
	}
	while ((rc = next_record(&r, err)) == 1) {
		if (!r.nr || (r.nr == 1 && !r.fields[0].len))
			continue;
		take_metric(&c, &r, result_of(&c, &r));
	}
	if (rc < 0)
		goto out;
	if (!c.decimal)
		c.decimal = '.';
	write_raw(&c, out);
	ret = 0;
out:
	csv_reader_release(&r);
	conv_release(&c);
	return ret;
}
