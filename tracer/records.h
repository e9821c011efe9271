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

#endif
