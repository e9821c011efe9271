/* ncu_csv.h: Nsight Compute CSV exports (`ncu --import R --csv --page raw
 * [--print-units base]` and `--page details`), read into tables whose
 * numbers are converted on demand and scaled to ncu's base units.
 *
 * What the parser copes with (docs/ncu.md, "Import format", has examples):
 *   - row 2 of a raw page is a units row (its ID cell is empty);
 *   - units of any scale: nsecond/usecond/us/msecond/second, byte/Kbyte/
 *     Mbyte/Gbyte/Tbyte, hz/Khz/Mhz/Ghz, cycle/nsecond, byte/s, Kbyte/block,
 *     %/Kbyte, ... are scaled to nsecond, byte, hz, byte/second ...;
 *   - thousands separators of any locale (`4,096`, `4.096`, `4 096`,
 *     `4'096`, U+00A0, U+202F); the decimal mark is decided once per file;
 *   - `n/a`, empty cells, instance cells `158 (0: 158)` / `(1; 2; 3)`;
 *   - NVTX columns holding one quoted `domain:range:...` entry per level;
 *   - the ragged details page (metric rows are shorter than rule rows);
 *   - ncu_raw_parse() given the details page reads it as the raw page it
 *     stands for (ncu_details.h).
 *
 * Ownership: ncu_raw_parse() and ncu_details_parse() borrow buf, which must
 * outlive the table (cells point into it); every other string is owned by
 * the table and freed by its _release(). */
#ifndef LLMPROF_NCU_CSV_H
#define LLMPROF_NCU_CSV_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

#include "trace/ncu_units.h"

/* --- raw page ----------------------------------------------------------- */

struct ncu_column {
	char *name;	 /* header text */
	char *unit;	 /* units-row text, "" when none or no units row */
	char *base_unit; /* unit after scaling */
	double scale;	 /* value * scale = value in base_unit */
	int unit_known;	 /* the unit was recognised */
};

/* A cell as 8 bytes (the table is larger than the input otherwise): an
 * offset into the input, or into the table's arena when NCU_CELL_OWNED is
 * set in len. Inputs are limited to 4 GiB. */
struct ncu_cell {
	uint32_t off;
	uint32_t len;
};
#define NCU_CELL_OWNED 0x80000000u

struct ncu_raw {
	char *source;	     /* file name for messages */
	size_t ncols, nrows; /* data rows, units row excluded */
	struct ncu_column *cols;
	struct ncu_cell *cells; /* nrows * ncols; missing cells are empty */
	size_t *row_line;	/* 1-based source line of each data row */
	int has_units_row;
	char decimal;	     /* '.' or ',': decided once per file from the cells
			      * that show it ("5.280000", "1,234.5", "1.234.567");
			      * '.' when none does (ncu runs with LC_ALL=C) */
	const char *buf;     /* the borrowed input, or owned_buf */
	char *owned_buf;     /* a details page's raw page (ncu_details.h), or NULL */
	int from_details;    /* the input was ncu's details page */
	struct strbuf arena; /* unescaped cell texts */
	long *index;	     /* open-addressing hash of column names */
	size_t index_size;
	long nvtx_col[2]; /* push/pop and start/end NVTX columns, or -1 */
};
#define NCU_RAW_INIT                                                                               \
	{                                                                                          \
		0                                                                                  \
	}

/* Parses a raw-page export. 0, or -1 with "source:line:col: ..." in err. */
int ncu_raw_parse(const char *buf, size_t len, const char *source, struct ncu_raw *raw,
		  struct strbuf *err);
void ncu_raw_release(struct ncu_raw *raw);

/* Index of the column named name, or -1 (a hash lookup). */
long ncu_raw_col(const struct ncu_raw *raw, const char *name);
/* The cell text (borrowed). */
struct str ncu_raw_cell(const struct ncu_raw *raw, size_t row, size_t col);
/* The cell as a number in its column's base unit. */
enum ncu_num ncu_raw_number(const struct ncu_raw *raw, size_t row, size_t col, double *out);
/* Looks a metric up by name and converts it: NCU_NUM_EMPTY when the column
 * is absent. */
enum ncu_num ncu_raw_metric(const struct ncu_raw *raw, size_t row, const char *name, double *out);

/* The kernel duration (gpu__time_duration.sum) as every reader of it needs
 * it: when the units row gives it a unit, a time unit llmprof knows (an
 * unknown one would be read as nanoseconds), and no row below zero. 0, or
 * -1 with err ("n.csv: gpu__time_duration.sum is in 'furlong', not a time
 * unit llmprof knows"; "n.csv:7: gpu__time_duration.sum is -3 ns, below
 * zero"). A file without the column or without a units row passes. */
int ncu_raw_check_durations(const struct ncu_raw *raw, struct strbuf *err);

/* --- NVTX cells ----------------------------------------------------------- */

enum ncu_nvtx_style { NCU_NVTX_PUSHPOP = 0, NCU_NVTX_STARTEND = 1 };

struct ncu_nvtx_range {
	char *domain; /* NULL for the default domain ("<default domain>") */
	char *name;
	enum ncu_nvtx_style style;
};

struct ncu_nvtx_stack {
	long long thread;	       /* the cell's leading thread id, -1 if none */
	struct ncu_nvtx_range *ranges; /* outermost first */
	size_t nr, alloc;
};

/* Parses one NVTX cell, e.g. `829  "LLM:decode_all:none:none:none:none:ASCII:
 * decode_all"  "LLM:decode_step:..."`, appending to st. Range names may
 * contain ':' ("A::A1"). 0, or -1 with a message. */
int ncu_nvtx_parse_cell(const char *p, size_t len, enum ncu_nvtx_style style,
			struct ncu_nvtx_stack *st, struct strbuf *err);
void ncu_nvtx_stack_release(struct ncu_nvtx_stack *st);
/* The NVTX stacks of row: push/pop levels first, then start/end ranges.
 * On error st is released. */
int ncu_raw_nvtx(const struct ncu_raw *raw, size_t row, struct ncu_nvtx_stack *st,
		 struct strbuf *err);

/* --- details page ---------------------------------------------------------- */

struct ncu_detail {
	long long id; /* the result's ID */
	size_t row_line;
	struct str kernel, section, metric, unit, value; /* borrowed */
	struct str rule_name, rule_type, rule_text;	 /* empty on metric rows */
	double scale;					 /* unit -> base */
};

struct ncu_details {
	char *source;
	struct ncu_detail *rows;
	size_t nr, alloc;
	char decimal;
	char **owned;
	size_t nr_owned, alloc_owned;
};
#define NCU_DETAILS_INIT                                                                           \
	{                                                                                          \
		0                                                                                  \
	}

int ncu_details_parse(const char *buf, size_t len, const char *source, struct ncu_details *d,
		      struct strbuf *err);
void ncu_details_release(struct ncu_details *d);
/* The value of metric label (e.g. "Duration") of result id, scaled to base
 * units; NCU_NUM_EMPTY when absent. */
enum ncu_num ncu_details_metric(const struct ncu_details *d, long long id, const char *label,
				double *out);

#endif
