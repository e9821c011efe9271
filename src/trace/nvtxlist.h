/* nvtxlist.h: the NVTX ranges a trace holds, each with the exact filter
 * expressions that select it in nsys and ncu (the logic of `llmprof nvtx`).
 * Works on llmprof traces and on nsys exports alike (NVTX_EVENTS table).
 *
 * Filter syntax (reference/anchors-field.md A1, B1):
 *   nsys --nvtx-capture   range@domain, or bare range for the default domain;
 *                         '@' inside a name is escaped as '\@'.
 *   ncu --nvtx-include    push/pop: domain@range/ (default domain: range/);
 *                         start/end: domain@range (no trailing '/');
 *                         '\', '@', ',', '[', ']', '/', '*', '+' escaped with '\'. */
#ifndef LLMPROF_NVTXLIST_H
#define LLMPROF_NVTXLIST_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

enum nvtx_style { NVTX_STYLE_PUSHPOP = 0, NVTX_STYLE_STARTEND = 1 };

struct nvtx_range_info {
	char *domain; /* owned; "" = default domain */
	char *name;   /* owned */
	enum nvtx_style style;
	uint64_t count;
	int min_depth, max_depth; /* push/pop nesting level on its thread, 0 = outermost */
	char *parent;	     /* owned; enclosing push/pop range of the first instance, "" = none */
	char *nsys;	     /* owned: --nvtx-capture expression */
	char *ncu;	     /* owned: --nvtx-include expression */
	int64_t first_start; /* for ordering: ranges listed by first appearance */
};

struct nvtx_list {
	struct nvtx_range_info *v; /* owned */
	size_t n, alloc;
	uint64_t marks; /* NVTX marks seen (not ranges, not filterable) */
};

void nvtx_list_init(struct nvtx_list *l);
void nvtx_list_release(struct nvtx_list *l);
/* Reads NVTX_EVENTS of trace (read-only). 0, or -1 with err set. A trace
 * without NVTX_EVENTS gives an empty list. */
int nvtx_list_load(struct nvtx_list *l, const char *sqlite_path, struct strbuf *err);
/* A text table, one range per line, header first; control bytes in names
 * (a terminal escape, a newline) shown as \xHH (utf8_printable()). */
void nvtx_list_format(const struct nvtx_list *l, struct strbuf *out);

/* Pure: the filter expressions for one range (appended to out). */
void nvtx_filter_nsys(struct strbuf *out, const char *domain, const char *name);
void nvtx_filter_ncu(struct strbuf *out, const char *domain, const char *name,
		     enum nvtx_style style);

#endif
