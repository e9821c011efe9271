/* nvtxdomain.h: which NVTX domain-create event names a range's domain.
 *
 * The one rule for every reader of NVTX_EVENTS (trace.c for the
 * nsys-compatible reports, perfetto.c for trace.json, nvtxlist.c for
 * `llmprof nvtx`): the create event (eventType 75) with the range's
 * domainId in the range's process, compared on the PID bits of globalTid
 * as nsys's own reports join them (TRACE_PID_BITS); when a process created
 * the domain more than once, the earliest, and of equal starts the first
 * read. A range whose domain has no create event has no domain name.
 *
 * struct nvtx_domains owns its array; the names are ids into a strtab the
 * caller owns. */
#ifndef LLMPROF_NVTXDOMAIN_H
#define LLMPROF_NVTXDOMAIN_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"
#include "trace/strtab.h"

struct nsysdb;

#define NVTX_DOMAIN_CREATE 75 /* NVTX_EVENTS.eventType of a domain-create event */

struct nvtx_domain {
	int64_t id;	 /* domainId */
	int64_t proc;	 /* globalTid & TRACE_PID_BITS */
	int64_t start;	 /* clamped to +-TRACE_TIME_MAX, as trace.c reads times */
	size_t seq;	 /* order added: the tie-break */
	int32_t name;	 /* the event's text, -1 for NULL */
	int32_t regname; /* its registered string (textId), else name */
};

struct nvtx_domains {
	struct nvtx_domain *v;
	size_t n, alloc;
	int sorted;
};
#define NVTX_DOMAINS_INIT                                                                          \
	{                                                                                          \
		NULL, 0, 0, 1                                                                      \
	}

/* Records one create event, in the order the table is read. */
void nvtx_domains_add(struct nvtx_domains *ds, int64_t id, int64_t gtid, int64_t start,
		      int32_t name, int32_t regname);
/* The create event that names the domain of a range with this domainId on
 * thread gtid, or NULL. */
const struct nvtx_domain *nvtx_domains_find(struct nvtx_domains *ds, int64_t id, int64_t gtid);
/* Adds every create event of the export's NVTX_EVENTS (nsysdb.h's
 * NSYSDB_NVTX_DOMAINS; none without the table), its text interned into
 * names (regname = name: only trace.c reads StringIds). 0, or -1 with err
 * when the table cannot be read. */
int nvtx_domains_read(struct nvtx_domains *ds, struct nsysdb *x, struct strtab *names,
		      struct strbuf *err);
void nvtx_domains_release(struct nvtx_domains *ds);

#endif
