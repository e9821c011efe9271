/* records.h: pure CUPTI activity record -> log record conversions. The
 * caller owns both structs; nothing is allocated. */
#ifndef LLMPROF_TRACER_RECORDS_H
#define LLMPROF_TRACER_RECORDS_H

#include <cupti_activity.h>

#define TLOG_WRITER_ONLY
#include "trace/tracelog.h"

#define RECORDS_HIDDEN __attribute__((visibility("hidden")))

RECORDS_HIDDEN void rec_from_kernel(struct tlog_kernel *k, const CUpti_ActivityKernel10 *a,
				    uint32_t name_id);
RECORDS_HIDDEN void rec_from_memcpy(struct tlog_memcpy *m, const CUpti_ActivityMemcpy6 *a);
RECORDS_HIDDEN void rec_from_memcpy2(struct tlog_memcpy *m, const CUpti_ActivityMemcpyPtoP4 *a);
RECORDS_HIDDEN void rec_from_memset(struct tlog_memset *m, const CUpti_ActivityMemset4 *a);
/* Fixed part only; h.size and the name are set by the caller. */
RECORDS_HIDDEN void rec_from_device(struct tlog_device *d, const CUpti_ActivityDevice5 *a);
/* A CUPTI RUNTIME (driver=0) or DRIVER (driver=1) activity record as a
 * TLOG_API_ACT record (CUPTI's timestamps and thread id, which the tracer
 * sets to gettid()). */
RECORDS_HIDDEN void rec_from_api(struct tlog_api *r, const CUpti_ActivityAPI *a, int driver);
/* Whether a runtime (driver=0) or driver (driver=1) API, by CUPTI name, is
 * one the tracer records: with all, every call; else kernel and graph
 * launches, and with memops also memcpy and memset (trace/apiname.h). */
RECORDS_HIDDEN int rec_api_selected(int driver, const char *name, int memops, int all);

/* Kernel name -> id, keyed by the address of CUPTI's name string: CUPTI
 * shares one string among all records of a kernel (cupti_activity.h,
 * CUpti_ActivityKernel*.name), so a hit costs no hashing of the name (for a
 * long template name, hundreds of dependent multiplies per record). A hit
 * is also checked against the name kept with the id, so a string CUPTI
 * freed and reused for another kernel misses. Direct-mapped; the caller
 * owns the struct (zeroed: empty) and the kept names, which must outlive
 * it. */
#define REC_NAME_CACHE 512 /* a power of 2 */
struct rec_name_cache {
	const char *ptr[REC_NAME_CACHE];  /* CUPTI's string */
	const char *kept[REC_NAME_CACHE]; /* the caller's copy of it */
	uint32_t id[REC_NAME_CACHE];
};
/* The id cached for name (CUPTI's pointer), or 0. */
RECORDS_HIDDEN uint32_t rec_name_cache_get(const struct rec_name_cache *c, const char *name);
/* Caches id for name; kept: the caller's copy of its text. */
RECORDS_HIDDEN void rec_name_cache_put(struct rec_name_cache *c, const char *name, const char *kept,
				       uint32_t id);

#endif
