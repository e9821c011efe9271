/* tracelog.h: the builtin tracer's binary log, shared by the tracer
 * (tracer/, which writes it) and llmprof (which reads it).
 *
 * The first part of this header is plain C99 with fixed-width types only, so
 * libllmprof_tracer.so can include it without llmprof's core library. The
 * reader API at the end (struct tlog_reader) is llmprof-side only and is
 * hidden from the tracer by TLOG_WRITER_ONLY.
 *
 * File layout (little endian, every size a multiple of 8):
 *
 *   struct tlog_file_header                     64 bytes, once
 *   { struct tlog_chunk_header; records... }    repeated
 *
 * A chunk is one thread's buffer, written with a single write(2) when it is
 * full, when the thread exits, or at process exit; records inside a chunk are
 * in that thread's program order. Chunks of different threads interleave, so
 * definitions (domains, registered strings, names) are written in their own
 * chunks at once, before any record can use them, and the reader never relies
 * on that anyway: it resolves definitions in a first pass. A process killed
 * mid-write leaves a prefix of whole chunks plus at most one partial chunk,
 * which the reader reports (with its offset) and skips.
 *
 * Every record starts with struct tlog_rec { type, size } where size is the
 * whole record in bytes including trailing string bytes and padding. Strings
 * follow the fixed part, are NUL-terminated, and their length field excludes
 * the NUL. Unknown record types are skipped by size, so new types may be added
 * without a version change; changing a fixed part needs TLOG_VERSION++. */
#ifndef LLMPROF_TRACELOG_H
#define LLMPROF_TRACELOG_H

#include <stddef.h>
#include <stdint.h>

#define TLOG_MAGIC "LLMPTLOG"
#define TLOG_VERSION 1u
#define TLOG_CHUNK_MAGIC 0x4b4e4843u /* "CHNK" */
/* Upper bound on one chunk's payload; larger chunk sizes are corruption. */
#define TLOG_MAX_CHUNK (64u << 20)

struct tlog_file_header {
	char magic[8];	      /* TLOG_MAGIC, no NUL */
	uint32_t version;     /* TLOG_VERSION */
	uint32_t header_size; /* sizeof(struct tlog_file_header) == 64 */
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_ns; /* tracer clock at load (CLOCK_REALTIME ns) */
	uint64_t start_mono_ns;
	uint32_t flags; /* TLOG_F_* */
	uint32_t reserved0;
	uint64_t reserved[2];
};

enum tlog_flags {
	TLOG_F_NVTX = 1u << 0,	 /* NVTX injection was requested */
	TLOG_F_CUDA = 1u << 1,	 /* CUDA injection was requested */
	TLOG_F_FORKED = 1u << 2, /* this file belongs to a fork()ed child */
	/* The tracer writes TLOG_END at exit: a log with this flag and no
	 * TLOG_END is one of a process that ended without exit() (a crash,
	 * _exit(), SIGKILL), whose last records were never flushed. Logs of
	 * older tracers lack the flag: nothing is known either way. */
	TLOG_F_END_RECORD = 1u << 3,
};

struct tlog_chunk_header {
	uint32_t magic; /* TLOG_CHUNK_MAGIC */
	uint32_t size;	/* payload bytes after this header */
	uint32_t tid;	/* OS thread id (gettid) that wrote it; 0 = tracer */
	uint32_t seq;	/* per-process chunk sequence number */
};

enum tlog_type {
	TLOG_PROCESS = 1,     /* struct tlog_process + command line */
	TLOG_DIAG = 2,	      /* struct tlog_diag + message */
	TLOG_THREAD_NAME = 3, /* struct tlog_thread_name + name */
	TLOG_CLOCK = 4,	      /* struct tlog_clock */
	TLOG_RANK = 5,	      /* struct tlog_rank + host name (added after version 1's first
				 release: older readers skip it, older logs lack it) */
	TLOG_END = 6,	      /* struct tlog_end: the at-exit flush is complete (added like
				 TLOG_RANK; see TLOG_F_END_RECORD) */
	TLOG_COST = 7,	      /* struct tlog_cost: what tracing cost the process (added like
				 TLOG_RANK; written at exit, before TLOG_END) */

	TLOG_NVTX_DOMAIN = 10,	  /* struct tlog_nvtx_def: domain create */
	TLOG_NVTX_STRING = 11,	  /* struct tlog_nvtx_def: registered string */
	TLOG_NVTX_CATEGORY = 12,  /* struct tlog_nvtx_def: category name */
	TLOG_NVTX_PUSH = 13,	  /* struct tlog_nvtx_event */
	TLOG_NVTX_POP = 14,	  /* struct tlog_nvtx_end */
	TLOG_NVTX_START = 15,	  /* struct tlog_nvtx_event, id = range id */
	TLOG_NVTX_END = 16,	  /* struct tlog_nvtx_end, id = range id */
	TLOG_NVTX_MARK = 17,	  /* struct tlog_nvtx_event */
	TLOG_NVTX_PL_SCHEMA = 18, /* struct tlog_nvtx_pl_schema: payload schema or enum */
	TLOG_NVTX_PAYLOAD = 19,	  /* struct tlog_nvtx_payload: an open push's payloads */

	TLOG_API = 20,	      /* struct tlog_api */
	TLOG_API_NAME = 21,   /* struct tlog_api_name + name */
	TLOG_CORR_ALIAS = 22, /* struct tlog_corr_alias */
	TLOG_API_ACT = 23,    /* struct tlog_api from CUPTI's RUNTIME/DRIVER activity */

	TLOG_KERNEL = 30,      /* struct tlog_kernel */
	TLOG_KERNEL_NAME = 31, /* struct tlog_kernel_name + mangled + demangled */
	TLOG_MEMCPY = 32,      /* struct tlog_memcpy */
	TLOG_MEMSET = 33,      /* struct tlog_memset */
	TLOG_DEVICE = 34,      /* struct tlog_device + name */
	TLOG_DROPPED = 35,     /* struct tlog_dropped */

	TLOG_GRAPH_NODE = 40, /* struct tlog_graph_node: a CUDA graph node made or cloned */

	TLOG_CPU_SAMPLING = 41, /* struct tlog_cpu_sampling: the CPU sampler's settings */
	TLOG_CPU_SAMPLE = 42,	/* struct tlog_cpu_sample + return addresses */
	TLOG_MODULE = 43,	/* struct tlog_module + path: a loaded object */
};

struct tlog_rec {
	uint16_t type;
	uint16_t size; /* whole record, multiple of 8 */
	uint32_t aux;  /* type-specific small value, see each record */
};

struct tlog_process {
	struct tlog_rec h;
	uint64_t ts;
	uint32_t pid;
	uint32_t ppid;
	uint32_t len; /* command line: argv joined by spaces */
	uint32_t pad;
};

/* The last record of a process that ran its exit handlers: every buffer
 * was written before it. */
struct tlog_end {
	struct tlog_rec h;
	uint64_t ts; /* tracer clock */
};

/* What tracing cost the process, timed by the tracer itself (docs/tracer.md
 * "What tracing costs"): the time inside its hooks on the program's threads
 * (CUDA API callbacks, NVTX hooks) and on its own (CUPTI's buffer
 * completion, the periodic flush), with how many times each ran, beside
 * the process's CPU time and wall time since the tracer started. CUPTI's
 * and the driver's own work around the hooks is not in it: a lower bound. */
struct tlog_cost {
	struct tlog_rec h;
	uint64_t ts;			  /* tracer clock */
	uint64_t wall_ns;		  /* since the tracer started in this process */
	uint64_t cpu_ns;		  /* the process's user + system CPU time (getrusage) */
	uint64_t api_ns, api_n;		  /* CUDA runtime/driver API callbacks */
	uint64_t resource_ns, resource_n; /* resource callbacks (contexts, graph nodes) */
	uint64_t nvtx_ns, nvtx_n;	  /* NVTX hooks that record an event */
	uint64_t buffer_ns, buffer_n;	  /* CUPTI buffer completion (CUPTI's thread) */
	uint64_t flush_ns, flush_n;	  /* periodic and final flushes of the log */
};

/* Who the process is in a multi-process job (src/trace/rankid.h): written
 * once after TLOG_PROCESS, from the environment at tracer start. -1 = not
 * set; rank -1 means the pid identifies the process. */
struct tlog_rank {
	struct tlog_rec h;
	int32_t rank;
	int32_t local_rank;
	int32_t world_size;
	uint32_t launcher; /* enum rank_launcher */
	uint32_t source;   /* enum rank_source: the variable the rank came from */
	uint32_t len;	   /* host name (gethostname), then NUL */
};

enum tlog_diag_level { TLOG_DIAG_INFO = 0, TLOG_DIAG_WARNING = 1, TLOG_DIAG_ERROR = 2 };
/* Codes that llmprof turns into specific messages. */
enum tlog_diag_code {
	TLOG_DIAG_GENERIC = 0,
	TLOG_DIAG_CUPTI_BUSY = 1,	 /* another CUPTI subscriber (nsys, ncu, Kineto) */
	TLOG_DIAG_CUPTI_UNSUPPORTED = 2, /* driver/CUPTI mismatch, no device, ... */
	TLOG_DIAG_CUPTI_CALL = 3,	 /* a CUPTI call failed */
	TLOG_DIAG_OUT_OF_MEMORY = 4,	 /* a buffer could not be allocated: events lost */
	TLOG_DIAG_IO = 5,		 /* writing the log failed */
	TLOG_DIAG_NVTX_MISUSE = 6,	 /* pop without push, unknown handle, ... */
};

struct tlog_diag {
	struct tlog_rec h; /* aux = enum tlog_diag_level */
	uint64_t ts;
	uint32_t code; /* enum tlog_diag_code */
	uint32_t len;
};

struct tlog_thread_name {
	struct tlog_rec h; /* aux = 0: named through NVTX, 1: the OS name (comm) */
	uint32_t tid;	   /* the named OS thread */
	uint32_t len;
};

/* Tracer clock and CUPTI clock read back to back: lets llmprof check that
 * CPU and GPU records share one time base. */
struct tlog_clock {
	struct tlog_rec h;
	uint64_t tracer_ns;
	uint64_t cupti_ns;
};

/* Domain create (id = domain id, ref unused), registered string (id = string
 * id, ref = domain id), category name (id = category, ref = domain id).
 * Domain ids are per process; 0 is NVTX's default domain. */
struct tlog_nvtx_def {
	struct tlog_rec h;
	uint64_t ts;
	uint64_t id;
	uint64_t ref;
	uint32_t len;
	uint32_t pad;
};

enum tlog_msg_type { TLOG_MSG_NONE = 0, TLOG_MSG_TEXT = 1, TLOG_MSG_REGISTERED = 2 };
enum tlog_payload_type {
	TLOG_PAYLOAD_NONE = 0,
	TLOG_PAYLOAD_U64 = 1,
	TLOG_PAYLOAD_I64 = 2,
	TLOG_PAYLOAD_DOUBLE = 3,
	TLOG_PAYLOAD_U32 = 4,
	TLOG_PAYLOAD_I32 = 5,
	TLOG_PAYLOAD_FLOAT = 6,
};

/* Push, start and mark. Text messages (ASCII, or Unicode converted to
 * UTF-8) follow inline; registered messages carry the string id. */
struct tlog_nvtx_event {
	struct tlog_rec h; /* aux = enum tlog_msg_type */
	uint64_t ts;
	uint64_t id; /* range id for START, else 0 */
	uint64_t domain;
	uint64_t string_id; /* TLOG_MSG_REGISTERED */
	uint64_t payload;   /* raw bits, see payload_type */
	uint32_t category;
	uint32_t color; /* ARGB */
	uint8_t has_color;
	uint8_t payload_type;
	uint16_t pad;
	uint32_t len; /* TLOG_MSG_TEXT: bytes of inline text */
};

/* Pop (id unused) and end (id = range id from START). */
struct tlog_nvtx_end {
	struct tlog_rec h;
	uint64_t ts;
	uint64_t id;
	uint64_t domain;
};

/* NVTX payload extension (docs/tracer.md "NVTX payloads"). A schema
 * (aux = TLOG_PL_SCHEMA) or enum (aux = TLOG_PL_ENUM) registered in a
 * domain: id = its schema id, size = the static payload size or the enum's
 * size in bytes, then n struct tlog_nvtx_pl_entry, then n names, each
 * NUL-terminated (empty for an unnamed entry). For an enum, an entry's type
 * is the value and offset is 1 for a flag. */
enum { TLOG_PL_SCHEMA = 0, TLOG_PL_ENUM = 1 };
struct tlog_nvtx_pl_schema {
	struct tlog_rec h;
	uint64_t ts;
	uint64_t domain;
	uint64_t id;
	uint64_t type, flags; /* nvtxPayloadSchemaAttr_t's (0 for an enum) */
	uint64_t size;
	uint32_t n;
	uint32_t pad;
};
struct tlog_nvtx_pl_entry {
	uint64_t type, offset;
};

/* The payloads of the innermost open push of domain on the writing thread
 * (written after the push for nvtxDomainRangePushEx, before the pop for
 * nvtxRangePopPayload); aux = count. Each payload: struct
 * tlog_nvtx_pl_data, then kept bytes, padded to 8. */
struct tlog_nvtx_payload {
	struct tlog_rec h;
	uint64_t ts;
	uint64_t domain;
};
struct tlog_nvtx_pl_data {
	uint64_t schema_id;
	uint32_t kept; /* bytes that follow */
	uint32_t pad;
};

enum tlog_api_domain { TLOG_API_RUNTIME = 0, TLOG_API_DRIVER = 1 };

/* A launch-type API call. TLOG_API: written by the calling thread from a
 * CUPTI callback, tracer clock, tid 0 (the chunk's thread is the caller).
 * TLOG_API_ACT: converted from a CUPTI activity record in the GPU buffer,
 * CUPTI clock, tid = the calling thread (gettid); a driver call nested in a
 * runtime call is also recorded and the reader folds it into its parent. */
struct tlog_api {
	struct tlog_rec h; /* aux = enum tlog_api_domain */
	uint64_t start;
	uint64_t end;
	uint32_t corr;
	uint32_t cbid;
	int32_t ret;
	uint32_t tid;
};

struct tlog_api_name {
	struct tlog_rec h; /* aux = enum tlog_api_domain */
	uint32_t cbid;
	uint32_t len;
};

/* A driver call nested in a runtime call got its own correlation id: GPU
 * work carrying `from` belongs to the runtime call `to`. */
struct tlog_corr_alias {
	struct tlog_rec h;
	uint32_t from;
	uint32_t to;
};

struct tlog_kernel {
	struct tlog_rec h;
	uint64_t start;
	uint64_t end;
	int64_t grid_id;
	uint64_t graph_node_id;
	uint32_t device;
	uint32_t context;
	uint32_t stream;
	uint32_t corr;
	int32_t grid[3];
	int32_t block[3];
	int32_t static_smem;
	int32_t dynamic_smem;
	uint32_t local_per_thread;
	uint32_t local_total;
	uint32_t smem_executed;
	uint32_t graph_id;
	uint32_t name_id; /* TLOG_KERNEL_NAME id, per process */
	uint16_t registers;
	uint8_t launch_type;
	uint8_t cache_config; /* executed (CUPTI's config.executed) */
	uint8_t smem_limit_config;
	uint8_t is_device_launched;
	uint8_t pad[6];
};

struct tlog_kernel_name {
	struct tlog_rec h;
	uint32_t id;
	uint32_t mangled_len;	/* then the mangled name, NUL */
	uint32_t demangled_len; /* then the demangled name, NUL */
	uint32_t pad;
};

struct tlog_memcpy {
	struct tlog_rec h;
	uint64_t start;
	uint64_t end;
	uint64_t bytes;
	uint64_t graph_node_id;
	uint32_t device;
	uint32_t context;
	uint32_t stream;
	uint32_t corr;
	uint32_t src_device;
	uint32_t src_context;
	uint32_t dst_device;
	uint32_t dst_context;
	uint8_t copy_kind; /* CUpti_ActivityMemcpyKind == ENUM_CUDA_MEMCPY_OPER */
	uint8_t src_kind;  /* CUpti_ActivityMemoryKind */
	uint8_t dst_kind;
	uint8_t pad[5];
};

struct tlog_memset {
	struct tlog_rec h;
	uint64_t start;
	uint64_t end;
	uint64_t bytes;
	uint64_t graph_node_id;
	uint32_t device;
	uint32_t context;
	uint32_t stream;
	uint32_t corr;
	uint32_t value;
	uint8_t mem_kind;
	uint8_t pad[3];
};

struct tlog_device {
	struct tlog_rec h;
	uint64_t global_memory_bandwidth_kbs; /* CUPTI: KB/s */
	uint64_t global_memory_size;
	uint32_t id;
	uint32_t sm_count;
	uint32_t core_clock_khz;
	uint32_t l2_cache_size;
	uint32_t max_threads_per_block;
	uint32_t max_block_dim[3];
	uint32_t max_grid_dim[3];
	uint32_t max_regs_per_block;
	uint32_t max_shmem_per_block;
	uint32_t max_shmem_per_block_optin;
	uint32_t max_shmem_per_sm;
	uint32_t max_regs_per_sm;
	uint32_t max_warps_per_sm;
	uint32_t max_blocks_per_sm;
	uint32_t cc_major;
	uint32_t cc_minor;
	uint32_t threads_per_warp;
	uint32_t memcpy_engines;
	uint32_t constant_memory;
	uint8_t uuid[16];
	uint32_t len; /* then the device name */
};

/* Records lost: CUPTI's count for a context/stream (source 0), or the
 * tracer's own losses (source 1: log buffer/memory exhausted). */
struct tlog_dropped {
	struct tlog_rec h; /* aux = source */
	uint64_t ts;
	uint64_t count;
	uint32_t context;
	uint32_t stream;
};

/* A CUDA graph node was created (stream capture, cudaGraphAdd*Node) or
 * cloned (cudaGraphInstantiate clones every node of the graph it
 * instantiates; replayed kernels carry the clone's id). Written on the
 * thread that made it, so the NVTX ranges open on that thread at ts say
 * which operator the node belongs to: replays run no NVTX. */
struct tlog_graph_node {
	struct tlog_rec h;    /* aux = CUgraphNodeType */
	uint64_t ts;	      /* tracer clock */
	uint64_t node_id;     /* cuptiGetGraphNodeId */
	uint64_t original_id; /* a clone: the node it was cloned from; else 0 */
	uint32_t graph_id;    /* cuptiGetGraphId of its graph; 0 unknown */
	uint32_t pad;
};

/* How CPU samples were unwound (tlog_cpu_sampling.h.aux, tlog_cpu_sample.h.aux). */
enum tlog_unwind {
	TLOG_UNWIND_LIBUNWIND = 1, /* libunwind's unw_backtrace: the whole stack */
	TLOG_UNWIND_LEAF = 2,	   /* the interrupted instruction only */
};

/* The CPU sampler is on in this process (written once at tracer start, and
 * again with the counts at exit, aux = 1 there): every thread that makes
 * traced calls gets a CPU-time timer of period_ns (CLOCK_THREAD_CPUTIME_ID)
 * delivering signal signo. */
struct tlog_cpu_sampling {
	struct tlog_rec h; /* aux = 0 start, 1 totals at exit */
	uint64_t ts;
	uint64_t period_ns;
	uint32_t signo;
	uint32_t method;  /* enum tlog_unwind */
	uint64_t samples; /* at exit: samples written */
	uint64_t dropped; /* at exit: signals that arrived inside the tracer */
	uint32_t threads; /* at exit: threads sampled */
	uint32_t pad;
	/* at exit: time spent inside the sampler's signal handler
	 * (CLOCK_MONOTONIC read at its entry and exit) and its calls; absent
	 * from records written before these fields existed */
	uint64_t handler_ns;
	uint64_t handler_calls;
};
/* The size of a tlog_cpu_sampling record without handler_ns and handler_calls. */
#define TLOG_CPU_SAMPLING_MIN_SIZE 56

/* One CPU sample of the thread of its chunk: the CPU time of that thread
 * reached another period at ts. Then nframes uint64_t addresses, the
 * interrupted instruction first, then return addresses outwards. */
struct tlog_cpu_sample {
	struct tlog_rec h; /* aux = enum tlog_unwind */
	uint64_t ts;	   /* tracer clock */
	uint32_t nframes;
	uint32_t overrun; /* more periods that elapsed while the signal was pending:
			     the sample stands for 1 + overrun periods */
};

/* A loaded object (dl_iterate_phdr), written when the sampler first flushes
 * and again whenever objects were loaded since: an address a in [lo, hi)
 * is at a - base in the file's virtual addresses. */
struct tlog_module {
	struct tlog_rec h;
	uint64_t base; /* load bias */
	uint64_t lo;   /* lowest address of its PT_LOAD segments */
	uint64_t hi;   /* end of its highest PT_LOAD segment */
	uint32_t len;  /* then the path (the program's own: /proc/self/exe's target) */
	uint32_t pad;
};

#define TLOG_ALIGN8(n) (((n) + 7u) & ~(uint32_t)7u)

/* Fixed parts are whole multiples of 8 so records stay aligned. */
#define TLOG_CHECK_SIZE(t) _Static_assert(sizeof(struct t) % 8 == 0, #t " size")
TLOG_CHECK_SIZE(tlog_file_header);
TLOG_CHECK_SIZE(tlog_chunk_header);
TLOG_CHECK_SIZE(tlog_process);
TLOG_CHECK_SIZE(tlog_rank);
TLOG_CHECK_SIZE(tlog_end);
TLOG_CHECK_SIZE(tlog_diag);
TLOG_CHECK_SIZE(tlog_thread_name);
TLOG_CHECK_SIZE(tlog_clock);
TLOG_CHECK_SIZE(tlog_nvtx_def);
TLOG_CHECK_SIZE(tlog_nvtx_event);
TLOG_CHECK_SIZE(tlog_nvtx_end);
TLOG_CHECK_SIZE(tlog_nvtx_pl_schema);
TLOG_CHECK_SIZE(tlog_nvtx_pl_entry);
TLOG_CHECK_SIZE(tlog_nvtx_payload);
TLOG_CHECK_SIZE(tlog_nvtx_pl_data);
TLOG_CHECK_SIZE(tlog_api);
TLOG_CHECK_SIZE(tlog_api_name);
TLOG_CHECK_SIZE(tlog_corr_alias);
TLOG_CHECK_SIZE(tlog_kernel);
TLOG_CHECK_SIZE(tlog_kernel_name);
TLOG_CHECK_SIZE(tlog_memcpy);
TLOG_CHECK_SIZE(tlog_memset);
TLOG_CHECK_SIZE(tlog_device);
TLOG_CHECK_SIZE(tlog_dropped);
TLOG_CHECK_SIZE(tlog_cpu_sampling);
_Static_assert(offsetof(struct tlog_cpu_sampling, handler_ns) == TLOG_CPU_SAMPLING_MIN_SIZE,
	       "tlog_cpu_sampling min size");
TLOG_CHECK_SIZE(tlog_cpu_sample);
TLOG_CHECK_SIZE(tlog_module);

#ifndef TLOG_WRITER_ONLY
/* ---- llmprof-side reader ---------------------------------------------- */
#include <stddef.h>
#include "core/strbuf.h"

/* One record handed out by tlog_next(): rec points into the reader's
 * buffer or window (borrowed, valid until the next tlog_next(),
 * tlog_rewind() or tlog_reader_release(): copy what must outlive it), size
 * has been checked against the record type's fixed part; tid is the OS
 * thread of the enclosing chunk. */
struct tlog_item {
	const struct tlog_rec *rec;
	uint32_t tid;
	uint64_t offset; /* file offset of the record, for messages */
};

/* Bytes of a file reader's window: a record is at most 64 KiB, a read
 * brings the next TLOG_WINDOW bytes, so memory does not follow the log. */
#define TLOG_WINDOW (4u << 20)

struct tlog_reader {
	const unsigned char *buf; /* memory reader: borrowed from the caller */
	size_t len;		  /* bytes of the log (a file's size when opened) */
	const char *name;	  /* for messages */
	struct tlog_file_header hdr;
	size_t pos; /* next chunk header */
	size_t chunk_end;
	uint32_t chunk_tid;
	int done;
	/* Problems met so far (truncated tail, bad chunk): one line each. */
	struct strbuf problems;
	uint64_t n_problems;
	/* File reader: the log and the window onto it, owned; fd -1 otherwise. */
	int fd;
	unsigned char *win;
	size_t win_off, win_len;
};

/* Validates the file header of buf[0..len); returns 0 or -1 with err set
 * ("NAME: not a llmprof trace log", version mismatch, truncated header). */
int tlog_reader_init(struct tlog_reader *r, const void *buf, size_t len, const char *name,
		     struct strbuf *err);
/* The same for the file at path, read through a window of TLOG_WINDOW
 * bytes (never whole): its size when opened is the log's. A read error
 * later ends the log there, with a problem line. 0, or -1 with err set
 * (the file cannot be opened or is not a regular file; the header
 * errors above). Release the reader either way. */
int tlog_reader_open(struct tlog_reader *r, const char *path, const char *name, struct strbuf *err);
/* Returns 1 with *it filled, 0 at the end of the readable data. Corruption
 * never fails: the bad chunk is skipped or reading stops, and a line naming
 * the offset is appended to r->problems. */
int tlog_next(struct tlog_reader *r, struct tlog_item *it);
/* Restarts from the first chunk (problems are kept, not duplicated). */
void tlog_rewind(struct tlog_reader *r);
/* Frees what the reader owns (a file reader's window, closes its file). */
void tlog_reader_release(struct tlog_reader *r);

/* Borrowed string following the fixed part of a record (NULL-safe: returns
 * an empty slice when the declared length does not fit the record). */
struct str tlog_rec_string(const struct tlog_rec *rec, size_t fixed, uint32_t len);
/* Smallest valid size for a record type (0 for unknown types). */
size_t tlog_min_size(uint16_t type);
#endif

#endif
