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
/* Whether a runtime (driver=0) or driver (driver=1) API, by CUPTI name, is
 * one the tracer records: kernel and graph launches, memcpy, memset. */
RECORDS_HIDDEN int rec_api_selected(int driver, const char *name);

#endif
