/* nsys.h: driving NVIDIA Nsight Systems (nsys): argv builders for
 * `nsys profile`, `nsys export` and `nsys stats`, validation of the
 * pipeline.nsys.* values, NVTX stage name -> nsys `range@domain` translation,
 * finding nsys and checking that it can finish a report (the usability probe
 * behind `llmprof doctor` and pipeline.trace.backend=auto), and the export and
 * stats steps. docs/nsys.md explains every flag and failure mode.
 *
 * The builders are pure: they read a plain struct (no config dependency) and
 * append to a struct nsys_args. Flags were checked against `nsys <cmd> --help`
 * of nsys 2023.4.4 and the 2025.3 User Guide; every flag used exists in both.
 *
 * Ownership: struct nsys_args owns its strings (nsys_args_release()); all
 * const char * inputs are borrowed for the duration of the call. */
#ifndef LLMPROF_VENDOR_NSYS_H
#define LLMPROF_VENDOR_NSYS_H

#include <stddef.h>
#include <stdint.h>

#include "core/strbuf.h"

/* An owned, NULL-terminated argv vector. */
struct nsys_args {
	char **v; /* v[nr] == NULL once anything was pushed */
	size_t nr, alloc;
};
#define NSYS_ARGS_INIT                                                                             \
	{                                                                                          \
		NULL, 0, 0                                                                         \
	}
void nsys_args_push(struct nsys_args *a, const char *s);
void nsys_args_pushf(struct nsys_args *a, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));
void nsys_args_release(struct nsys_args *a);
/* Shell-quoted, space-separated, for cmd.txt and --dry-run (never executed). */
void nsys_args_join(const struct nsys_args *a, struct strbuf *out);

/* One NVTX range a program emits, as `llmprof nvtx` lists it. domain NULL or
 * "" = the default domain. */
struct nsys_nvtx_range {
	const char *domain;
	const char *name;
};

/* How several processes of one run name their reports (-o). */
enum nsys_output_split {
	NSYS_SPLIT_NONE = 0, /* one report: <base>.nsys-rep */
	NSYS_SPLIT_PID,	     /* <base>.%p: nsys substitutes the root process id */
	NSYS_SPLIT_RANK,     /* <base>.%q{<rank_env>}: one report per rank */
};

/* pipeline.nsys.* (SCHEMA.md) plus what the run supplies. NULL strings mean
 * "not set" (the schema's null); the builder applies the documented defaults. */
struct nsys_options {
	const char *nsys;	       /* the nsys executable (resolved path) */
	const char *trace;	       /* pipeline.nsys.trace ["cuda,nvtx,osrt"] */
	const char *sample;	       /* pipeline.nsys.sample ["none"] */
	const char *capture_range;     /* none|nvtx|cudaProfilerApi|hotkey ["none"] */
	const char *capture_range_end; /* none|stop|stop-shutdown|repeat[:N]|repeat-shutdown:N */
	const char *nvtx_capture;      /* stage or range name (llmprof syntax, see below) */
	int gating_nvtx;	       /* pipeline.nsys.gating_nvtx: 0 = capture everything */
	const char *cuda_graph_trace;  /* node|graph ["node"] */
	int export_blobs; /* this nsys's export takes --include-blobs (nsys_export_blobs) */
	const char *const *extra_args; /* pipeline.nsys.extra_args, appended verbatim */
	size_t n_extra;
	const char *output_base; /* e.g. "<run>/nsys/run" (no extension) */
	enum nsys_output_split split;
	const char *rank_env;			    /* for NSYS_SPLIT_RANK, e.g. "RANK" */
	const struct nsys_nvtx_range *known_ranges; /* from an nvtx pass; may be NULL */
	size_t n_known;
	const char *const *target_argv; /* the program and its arguments */
	size_t target_argc;
};

/* Checks every value (grammar, combinations) without building. 0 or -1 with
 * a one-line message naming the key: "pipeline.nsys.capture_range_end:
 * 'repeat:x' is not ...". */
int nsys_options_check(const struct nsys_options *o, struct strbuf *err);

/* The grammar nsys accepts for --capture-range-end:
 * none | stop | stop-shutdown | repeat | repeat:N | repeat-shutdown:N (N>=1). */
int nsys_capture_range_end_check(const char *v, struct strbuf *err);

/* Translates a stage/range name to nsys's --nvtx-capture syntax.
 * llmprof names a range "DOMAIN@RANGE" (like `LLM@decode_all`, the spelling
 * of stages.* and of ncu's --nvtx-include without the trailing '/') or a bare
 * "RANGE"; nsys wants "RANGE@DOMAIN", a bare "RANGE" for the default domain,
 * or "RANGE@*" for any domain, and takes the LAST unescaped '@' as the
 * separator ('@' inside a name is escaped as "\@").
 * With known ranges (n_known > 0) the name is resolved against them: an exact
 * default-domain range (even one containing '@') wins, then DOMAIN@RANGE,
 * then a bare RANGE found in exactly one domain; anything else is an error
 * that lists what the program does emit. Without known ranges the name is
 * translated syntactically. A name already ending in "@*" is kept.
 * Appends the expression to out; 0 or -1 with err. */
int nsys_nvtx_capture_expr(const char *name, const struct nsys_nvtx_range *known, size_t n_known,
			   struct strbuf *out, struct strbuf *err);

/* The effective gating: returns the --capture-range value that will be used
 * ("none" when gating is off or capture_range is none/unset). */
const char *nsys_effective_capture_range(const struct nsys_options *o);

/* `nsys profile ...` argv, in this order:
 *   nsys profile --trace=T [--sample=S] [--capture-range=C
 *   [--capture-range-end=E] [--nvtx-capture=X
 *   --env-var=NSYS_NVTX_PROFILER_REGISTER_ONLY=0]] [--cuda-graph-trace=G]
 *   [extra...] -o BASE --force-overwrite true PROGRAM ARGS...
 * --cuda-graph-trace is emitted only when cuda is traced (nsys ignores it
 * otherwise). With gating on and capture_range_end unset, "stop" is used so
 * the program runs to its end (nsys's default stop-shutdown kills it with
 * SIGTERM: exit status 143). No "--" before the program: nsys 2023.4
 * rejects it ("option is ambiguous"). 0 or -1 with err (invalid options). */
int nsys_build_profile(const struct nsys_options *o, struct nsys_args *out, struct strbuf *err);

/* nsys export --type sqlite [--include-blobs true] --force-overwrite true
 * --quiet true -o SQLITE REP. With blobs, NVTX extended payloads (NCCL's
 * message sizes, docs/collectives.md) are exported as NVTX_EVENTS.binaryData;
 * without, those rows say nothing of them. */
void nsys_build_export(const char *nsys, const char *rep, const char *sqlite, int blobs,
		       struct nsys_args *out);

/* 1 when `NSYS export --help` lists --include-blobs (nsys 2024.x on; older
 * ones reject the option, so it is asked once rather than assumed), else 0,
 * also when nsys cannot be run (10 s limit). */
int nsys_export_blobs(const char *nsys);

/* nsys stats -r cuda_gpu_kern_sum -f csv --force-overwrite true -o BASE INPUT
 * -> BASE_cuda_gpu_kern_sum.csv. INPUT is the exported .sqlite, so nsys does
 * not export again. */
void nsys_build_stats(const char *nsys, const char *input, const char *out_base,
		      struct nsys_args *out);

/* Parses "NVIDIA Nsight Systems version 2023.4.4.54-234433681190v0" (the
 * whole --version output). Writes "2023.4.4.54-234433681190v0" to out and the
 * year/minor to *major and *minor. 0, or -1 when no version is found. */
int nsys_version_parse(const char *text, size_t len, struct strbuf *out, int *major, int *minor);

/* Where nsys looks for its QdstrmImporter, relative to the directory of the
 * nsys executable, in nsys's own order (seen with strace on 2023.4.4):
 * ../host-linux-x64, ../linux-desktop-glibc_2_11_3-x64, ., host-linux-x64,
 * linux-desktop-glibc_2_11_3-x64, target-linux-x64. Returns the first that
 * exists (owned), or NULL. */
char *nsys_find_importer(const char *nsys_path);

/* Classifies an importer's --version/--help output: the missing library of a
 * loader failure is appended to lib (e.g. "libdw.so.1"); returns 1 when the
 * output shows a loader failure, else 0. Pure; used by the probe and tests. */
int nsys_importer_loader_failure(const char *text, size_t len, struct strbuf *lib);
/* The libraries the dynamic loader lists as "NAME => not found" in text
 * (what a program prints with LD_TRACE_LOADED_OBJECTS=1, as ldd does),
 * appended to libs as "libdw.so.1, libelf.so.1". How many. Pure. */
size_t nsys_loader_not_found(const char *text, size_t len, struct strbuf *libs);

/* Reports in dir whose name starts with base_name and ends in ".nsys-rep"
 * (run.nsys-rep, run.1.nsys-rep with repeat:N, run.<pid>.nsys-rep with %p),
 * sorted by name. Appends owned paths to out; returns the count (0 if none
 * or dir unreadable). */
size_t nsys_list_reports(const char *dir, const char *base_name, struct nsys_args *out);

/* One export or stats step: the argv that ran, how it ended, and the
 * verdict. Owned by the caller; nsys_step_release(). */
struct nsys_step {
	struct nsys_args argv;
	int ok;
	struct strbuf out, err; /* captured child output */
	struct strbuf message;	/* one line when !ok (or a note when ok) */
};
#define NSYS_STEP_INIT                                                                             \
	{                                                                                          \
		NSYS_ARGS_INIT, 0, STRBUF_INIT, STRBUF_INIT, STRBUF_INIT                           \
	}
void nsys_step_release(struct nsys_step *s);

/* Runs `nsys export` REP -> SQLITE and checks that SQLITE exists and is a
 * SQLite database. 0 when it ran (see s->ok), -1 with err when nsys could not
 * be started. */
int nsys_step_export(const char *nsys, const char *rep, const char *sqlite, uint64_t timeout_ms,
		     struct nsys_step *s, struct strbuf *err);

/* Runs `nsys stats -r cuda_gpu_kern_sum -f csv` on SQLITE with output base
 * BASE and checks BASE_cuda_gpu_kern_sum.csv: present and starting with the
 * expected header, or empty with nsys's "SKIPPED: ... does not contain CUDA
 * kernel data." (then s->ok = 1 and s->message says so). */
int nsys_step_stats(const char *nsys, const char *sqlite, const char *base, uint64_t timeout_ms,
		    struct nsys_step *s, struct strbuf *err);

/* The header nsys stats -f csv writes for cuda_gpu_kern_sum (2023.4 - 2025.3). */
#define NSYS_KERN_SUM_HEADER                                                                       \
	"Time (%),Total Time (ns),Instances,Avg (ns),Med (ns),Min (ns),Max (ns),StdDev (ns),Name"

#endif
