/* step_ncu_names.c: which trace launch each ncu result measured (ncu.h).
 * After a capture's raw import, its report is imported once more for the
 * names alone (ncu --import --print-kernel-base B, one metric): in the
 * selection's base to map each result to the launch it measured (the one
 * pass: select_pass_map; a kernel's own run: its selected launch), and
 * mangled for the join, merged into ncu/mangled.csv. The demangled names of
 * ncu/raw.csv differ between demanglers (`1, 0` against `(int)1, (bool)0`),
 * the mangled ones do not. A failure here is a warning: the join then
 * matches on names alone. Prints nothing (progress.h). */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "bundle/layout.h"
#include "analysis/ncu_kernel.h"
#include "core/fsutil.h"
#include "core/jsonutil.h"
#include "core/util.h"
#include "core/xalloc.h"
#include "pipeline/ncu.h"
#include "trace/ncu_csv.h"
#include "core/banned.h"

/* Imports capture c's report names as base into ncu/k<i>.<base>.csv; 0
 * with the text in csv, or -1 after a warning. */
static int import_names(struct ncu_job *j, const struct ncu_capture *c, const char *base,
			struct strbuf *csv)
{
	const struct run_bundle *b = &j->rc->bundle;
	struct ncu_cmd cmd = NCU_CMD_INIT;
	struct strbuf name = STRBUF_INIT, rel = STRBUF_INIT, path = STRBUF_INIT;
	struct strbuf text = STRBUF_INIT, err = STRBUF_INIT;
	struct proc_result res;
	int ret = -1;

	strbuf_addf(&name, "%zu", c->i); /* the capture's number, then its step name */
	bundle_art_fill(&rel, BA_NCU_CAPTURE_NAMES, name.buf, base);
	strbuf_reset(&name);
	strbuf_addf(&name, "ncu-names-k%zu-%s", c->i, base);
	bundle_path(b, rel.buf, &path);
	ncu_import_names_argv(j->ncu, c->rep.buf, base, &cmd);
	ncu_cmd_format(&cmd, &j->cmdtxt);
	strbuf_addch(&j->cmdtxt, '\n');
	if (ncu_child(j, name.buf, &cmd, NULL, rel.buf, 0, &res, &text, &err) ||
	    res.outcome != PROC_EXITED || res.exit_status || strbuf_read_file(csv, path.buf) < 0) {
		struct strbuf log = STRBUF_INIT;

		bundle_art_fill(&log, BA_LOG_ERR, name.buf);
		run_warning(j->rc,
			    "%s names not imported (%s)%s%s: the join matches this "
			    "capture's results on their demangled names",
			    rel.buf, log.buf, err.len ? ": " : "", err.buf);
		strbuf_release(&log);
	} else {
		ret = 0;
	}
	ncu_cmd_release(&cmd);
	strbuf_release(&name);
	strbuf_release(&rel);
	strbuf_release(&path);
	strbuf_release(&text);
	strbuf_release(&err);
	return ret;
}

/* The results' keys (name in base, grid, block) and process ids from a
 * names page; owned arrays, names borrowed from raw. */
static size_t result_keys(const struct ncu_raw *raw, struct select_result_key **keys,
			  long long **pids)
{
	long cn = ncu_raw_col(raw, "Kernel Name"), cg = ncu_raw_col(raw, "Grid Size");
	long cb = ncu_raw_col(raw, "Block Size"), cp = ncu_raw_col(raw, "Process ID");

	*keys = xcalloc(raw->nrows + 1, sizeof(**keys));
	*pids = xcalloc(raw->nrows + 1, sizeof(**pids));
	for (size_t r = 0; r < raw->nrows; r++) {
		struct select_result_key *k = &(*keys)[r];
		struct str s;
		double v;

		(*pids)[r] = -1;
		if (cp >= 0 && ncu_raw_number(raw, r, (size_t)cp, &v) == NCU_NUM_OK)
			(*pids)[r] = (long long)v;
		if (cn < 0 || cg < 0 || cb < 0)
			continue;
		s = ncu_raw_cell(raw, r, (size_t)cg);
		if (ncu_parse_dim3(s.p, s.len, k->grid))
			continue;
		s = ncu_raw_cell(raw, r, (size_t)cb);
		if (ncu_parse_dim3(s.p, s.len, k->block))
			continue;
		s = ncu_raw_cell(raw, r, (size_t)cn);
		k->name = xstrndup(s.p, s.len);
	}
	return raw->nrows;
}

/* measured.json's "results": each result's merged ID, process and the trace
 * launch it measured (null: not known). */
static void record_results(struct ncu_job *j, const struct ncu_capture *c, size_t first_id,
			   const long long *pids, const size_t *launch, size_t nr)
{
	for (size_t r = 0; r < nr; r++) {
		json_t *o = json_object();

		json_object_set_new(o, "id", json_integer((json_int_t)(first_id + r)));
		json_object_set_new(o, "pid",
				    pids[r] >= 0 ? json_integer((json_int_t)pids[r]) : json_null());
		json_object_set_new(o, "capture", json_integer((json_int_t)c->i));
		json_object_set_new(o, "launch_index",
				    launch[r] != SIZE_MAX ? json_integer((json_int_t)launch[r])
							  : json_null());
		json_array_append_new(j->results, o);
		if (launch[r] != SIZE_MAX)
			j->mapped++;
		else if (c->pass)
			j->unexpected++;
	}
}

void ncu_names_capture(struct ncu_job *j, struct ncu_capture *c, size_t first_id)
{
	const char *base = j->rc->ncu_base ? j->rc->ncu_base : "demangled";
	struct strbuf csv = STRBUF_INIT, mcsv = STRBUF_INIT, err = STRBUF_INIT;
	struct ncu_raw raw = NCU_RAW_INIT;
	struct select_result_key *keys = NULL;
	long long *pids = NULL;
	size_t *launch = NULL, nr = 0;

	/* the configured filters' run maps nothing: its names only for the join */
	if ((c->pass || c->k) && !import_names(j, c, base, &csv)) {
		if (ncu_raw_parse(csv.buf, csv.len, "ncu names", &raw, &err)) {
			run_warning(j->rc, "capture %zu's names: %s", c->i, err.buf);
		} else if (raw.nrows != (size_t)c->rows) {
			run_warning(j->rc,
				    "capture %zu's names page has %zu results, its raw page %d: "
				    "results not mapped to launches",
				    c->i, raw.nrows, c->rows);
		} else {
			nr = result_keys(&raw, &keys, &pids);
			launch = xcalloc(nr + 1, sizeof(*launch));
			for (size_t r = 0; r < nr; r++)
				launch[r] = SIZE_MAX;
			if (c->pass)
				select_pass_map(j->pass, keys, nr, launch);
			else if (c->k && nr)
				launch[0] = c->k->launch_index;
			record_results(j, c, first_id, pids, launch, nr);
		}
	}
	/* the join's mangled names (the same page when the base is mangled),
	 * merged with the raw pages' numbering: a capture without them would
	 * shift every later ID, so then there is no ncu/mangled.csv at all */
	if (!strcmp(base, "mangled") && csv.len)
		strbuf_add(&mcsv, csv.buf, csv.len);
	else if (import_names(j, c, "mangled", &mcsv))
		strbuf_reset(&mcsv);
	strbuf_reset(&err);
	if (!mcsv.len || j->names_broken ||
	    ncu_raw_merge_add(&j->names, mcsv.buf, mcsv.len, "ncu mangled names", &err) !=
		c->rows) {
		if (!j->names_broken && err.len)
			run_warning(j->rc, "no %s: %s", bundle_art(BA_NCU_MANGLED), err.buf);
		j->names_broken = 1;
	}
	for (size_t r = 0; keys && r < nr; r++)
		free((char *)keys[r].name);
	free(keys);
	free(pids);
	free(launch);
	ncu_raw_release(&raw);
	strbuf_release(&csv);
	strbuf_release(&mcsv);
	strbuf_release(&err);
}
