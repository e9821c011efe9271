/* kernels_tsv.c: kernels.tsv; see kernels_tsv.h. */
#include <inttypes.h>
#include <stdio.h>

#include "bundle/layout.h"
#include "core/bundle_dir.h"
#include "core/fsutil.h"
#include "report/kernels_tsv.h"
#include "core/banned.h"

/* A text field: tab, newline, carriage return and backslash as \t, \n, \r
 * and \\ (the "linear TSV" convention), so that a line is a kernel and a
 * tab a column whatever the names hold; NULL is an empty field. */
static void put_text(FILE *fp, const char *s)
{
	for (; s && *s; s++) {
		switch (*s) {
		case '\t':
			fputs("\\t", fp);
			break;
		case '\n':
			fputs("\\n", fp);
			break;
		case '\r':
			fputs("\\r", fp);
			break;
		case '\\':
			fputs("\\\\", fp);
			break;
		default:
			putc(*s, fp);
		}
	}
}

/* A number that may be unknown: empty when it is. */
static void put_num(FILE *fp, struct rnum v)
{
	if (v.available)
		fprintf(fp, "%.10g", v.v);
}

static const char header[] =
    "index\tname\tdevice\tcalls\ttotal_ns\tmean_ns\tpct_gpu_time\tstage\tprefill_calls\t"
    "decode_calls\texposed_ns\tcompute_sol_pct\tmemory_sol_pct\tdram_sol_pct\t"
    "achieved_occupancy_pct\tarithmetic_intensity\tbound\toperator\toperators\tfull_name\n";

static void kernel_line(FILE *fp, size_t pos, const struct report_kernel *k)
{
	fprintf(fp, "%zu\t", pos);
	put_text(fp, k->short_name);
	putc('\t', fp);
	put_text(fp, k->device);
	fprintf(fp, "\t%" PRIu64 "\t%" PRIu64 "\t", k->calls, k->total_ns);
	put_num(fp, k->calls ? rnum_of((double)k->total_ns / (double)k->calls) : RNUM_NONE);
	putc('\t', fp);
	put_num(fp, k->pct_gpu);
	putc('\t', fp);
	put_text(fp, k->stage);
	fprintf(fp, "\t%" PRIu64 "\t%" PRIu64 "\t%" PRIu64 "\t",
		k->stage_calls[REPORT_ROLE_PREFILL], k->stage_calls[REPORT_ROLE_DECODE],
		k->exposed_ns);
	put_num(fp, k->c->profiled ? k->c->sm_sol_pct : RNUM_NONE);
	putc('\t', fp);
	put_num(fp, k->c->profiled ? k->c->mem_sol_pct : RNUM_NONE);
	putc('\t', fp);
	put_num(fp, k->c->profiled ? k->c->dram_sol_pct : RNUM_NONE);
	putc('\t', fp);
	put_num(fp, k->c->profiled ? k->c->occupancy_pct : RNUM_NONE);
	putc('\t', fp);
	put_num(fp, k->c->profiled ? k->c->ai : RNUM_NONE);
	putc('\t', fp);
	if (k->c->profiled)
		put_text(fp, kernel_bound_name(k->c->bound));
	putc('\t', fp);
	put_text(fp, k->op);
	fprintf(fp, "\t%zu\t", k->nr_ops);
	put_text(fp, k->full_name ? k->full_name : k->short_name);
	putc('\n', fp);
}

void kernels_tsv_emit(const struct report_model *m, FILE *fp)
{
	fputs(header, fp);
	for (size_t i = 0; i < m->nr_kernels; i++)
		kernel_line(fp, i + 1, &m->kernels[i]);
}

int kernels_tsv_write(const struct report_model *m, const struct bundle_dir *bd, struct strbuf *err)
{
	struct atomic_file af = ATOMIC_FILE_INIT;

	if (bundle_dir_atomic_open(bd, bundle_art(BA_KERNELS_TSV), &af, err) < 0)
		return -1;
	kernels_tsv_emit(m, af.fp);
	return atomic_file_commit(&af, err);
}
