/* findings.c: threshold rules -> findings with numbers (see findings.h). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/findings.h"
#include "analysis/findings_priv.h"
#include "bundle/layout.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "model/format.h"
#include "trace/kname.h"
#include "core/md.h"
#include "core/banned.h"

static struct rnum idle_share(const struct report_stage *s)
{
	if (!s->idle_ms.available || !s->gpu_ms.available || s->gpu_ms.v <= 0)
		return RNUM_NONE;
	return rnum_of(s->idle_ms.v / s->gpu_ms.v);
}

/* GPU idle of a stage as a saving: the idle time per token (decode) or
 * request, an upper bound of what removing launch gaps gives. */
static void idle_saving(struct report_model *m, const struct report_stage *s)
{
	const char *unit;
	double n = findings_stage_units(s, &unit);

	if (n > 0 && s->idle_ms.available)
		findings_set_saving(m, s->idle_ms.v / n, unit, s->idle_ms.v);
}

static void rule_failed_steps(struct report_model *m)
{
	struct strbuf name = STRBUF_INIT, why = STRBUF_INIT;

	for (size_t i = 0; i < m->run.nr_steps; i++) {
		const struct report_step *s = &m->run.steps[i];
		const char *missing;

		if (s->status != STEP_FAILED)
			continue;
		if (!strcmp(s->name, "ncu") || !strcmp(s->name, "join"))
			missing = "kernel counters (SOL %, occupancy, FLOPs, bytes, roofline) are "
				  "missing";
		else if (!strcmp(s->name, "trace") || !strcmp(s->name, "analyze"))
			missing = "timings, kernels and everything after them are missing";
		else if (!strcmp(s->name, "select"))
			missing = "no kernels were chosen for counters";
		else
			missing = "later steps did not run";
		md_escape_inline(&name, s->name);
		md_escape_inline(&why, s->reason ? s->reason : "no reason recorded");
		report_model_add_finding(
		    m, FINDING_CRITICAL, "step-failed",
		    "Fix the cause above and rerun `llmprof profile`; "
		    "`llmprof report RUN_DIR` redoes the reports from what exists.",
		    "Step '%s' failed (%s), so %s.", name.buf, why.buf, missing);
		strbuf_reset(&name);
		strbuf_reset(&why);
	}
	strbuf_release(&name);
	strbuf_release(&why);
}

/* An interrupted step: the reports hold what it had done, and say what
 * the interrupt left out (the ncu step: the kernels it did not measure). */
static void rule_interrupted_step(struct report_model *m)
{
	const struct report_step *s = report_model_interrupted_step(m);
	struct strbuf name = STRBUF_INIT, why = STRBUF_INIT;

	if (!s || report_model_failed_step(m))
		return; /* a failed step's finding already says what is missing */
	md_escape_inline(&name, s->name);
	md_escape_inline(&why, s->reason ? s->reason : "interrupted");
	report_model_add_finding(m, FINDING_WARNING, "step-interrupted",
				 "Rerun `llmprof profile` and let it finish for the rest; "
				 "`llmprof report RUN_DIR` redoes the reports from what exists.",
				 "Incomplete: step '%s' was %s, so %s.", name.buf, why.buf,
				 !strcmp(s->name, "ncu")
				     ? "the kernels it did not measure have no counters (n/a)"
				     : "the steps after it did not run");
	strbuf_release(&name);
	strbuf_release(&why);
}

/* A skipped trace or analyze step (no timeline backend, or tracing turned
 * off) leaves the reports without timings: said as loudly as a failure. */
static void rule_skipped_steps(struct report_model *m)
{
	const struct report_step *s = report_model_gap_step(m);
	struct strbuf name = STRBUF_INIT, why = STRBUF_INIT;

	if (!s || report_model_failed_step(m))
		return; /* a failed step's finding already says what is missing */
	md_escape_inline(&name, s->name);
	md_escape_inline(&why, s->reason ? s->reason : "no reason recorded");
	report_model_add_finding(
	    m, FINDING_CRITICAL, "step-skipped",
	    "Fix the cause above and rerun `llmprof profile`; `llmprof doctor` says which "
	    "timeline backend can run here (the builtin tracer is built where the CUDA "
	    "toolkit is installed).",
	    "Incomplete: %s skipped because %s, so timings, kernels and everything after them "
	    "are missing.",
	    name.buf, why.buf);
	strbuf_release(&name);
	strbuf_release(&why);
}

/* The built-in workload ran on the CPU: said once, as information, instead
 * of the GPU rules (which have no GPU numbers to judge). */
static void rule_cpu_path(struct report_model *m)
{
	if (m->env.device == REPORT_DEVICE_GPU)
		return;
	report_model_add_finding(
	    m, FINDING_INFO, "cpu-path",
	    m->env.device == REPORT_DEVICE_CPU_NO_GPU
		? "To profile GPU kernels, run on a machine with an NVIDIA GPU and driver "
		  "(`llmprof doctor` checks them)."
		: "To profile GPU kernels, run with device=cuda:0.",
	    "The built-in workload ran on the %s on purpose: stage and operator times are "
	    "CPU times, and no GPU kernels, counters, MFU or MBU were measured.",
	    report_device_label(m->env.device));
}

static int have_counters(const struct report_model *m)
{
	for (size_t i = 0; i < m->nr_kernels; i++)
		if (m->kernels[i].c->profiled)
			return 1;
	return 0;
}

static void rule_no_gpu_work(struct report_model *m)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t total = 0;
	double copy_ms = 0;

	for (size_t i = 0; i < m->nr_kernels; i++)
		total += m->kernels[i].total_ns;
	if (total || m->env.device != REPORT_DEVICE_GPU)
		return; /* on the CPU path no GPU work is what was asked for */
	for (size_t i = 0; i < m->run.nr_steps; i++)
		if ((!strcmp(m->run.steps[i].name, "trace") ||
		     !strcmp(m->run.steps[i].name, "analyze")) &&
		    m->run.steps[i].status != STEP_OK)
			return; /* the failed/skipped trace step explains it */
	/* copies and memsets are GPU work too: "0 ms of GPU time" beside
	 * 20 ms of copies contradicted the stage table */
	for (size_t i = 0; i < m->nr_stages; i++)
		if (m->stages[i].copy_ms.available)
			copy_ms += m->stages[i].copy_ms.v;
	if (m->agg.gpu_busy_ms.available && m->agg.gpu_busy_ms.v > copy_ms)
		copy_ms = m->agg.gpu_busy_ms.v;
	if (copy_ms > 0) {
		fmt_ms(&sb, rnum_of(copy_ms));
		report_model_add_finding(
		    m, FINDING_CRITICAL, "no-gpu-work",
		    "Check that the program ran its compute on the GPU (device=cuda:0, "
		    "`llmprof doctor`) and that its kernels run inside the profiled region.",
		    "The trace holds no GPU kernels (%zu kernel records): the GPU's only work "
		    "was %s ms of copies and memsets, so there is no kernel time, MFU or MBU.",
		    m->nr_kernels, sb.buf);
	} else {
		report_model_add_finding(
		    m, FINDING_CRITICAL, "no-gpu-work",
		    "Check that the program ran on the GPU (device=cuda:0, "
		    "`llmprof doctor`) and that its GPU work happens inside the "
		    "profiled region.",
		    "The trace holds no GPU kernels and no copies (%zu kernel records, 0 ms of "
		    "GPU time).",
		    m->nr_kernels);
	}
	strbuf_release(&sb);
}

static void rule_missing_counters(struct report_model *m)
{
	struct strbuf rec = STRBUF_INIT;

	if (!m->sel.available || !m->sel.nr_selected || have_counters(m) ||
	    report_model_failed_step(m))
		return;
	report_model_add_finding(m, FINDING_WARNING, "counters-missing",
				 findings_rec(&rec,
					      "Check %s and %s/ncu.*: the kernel filter may match "
					      "no launch (see `llmprof nvtx`).",
					      bundle_art(BA_NCU_RAW), bundle_art(BA_LOGS_DIR)),
				 "%llu kernels were selected for counters but none has counter "
				 "data.",
				 (unsigned long long)m->sel.nr_selected);
	strbuf_release(&rec);
}

/* Up to FINDINGS_MAX_KERNELS_NAMED kernels of stage with counters, ordered by
 * time, "name (DRAM SOL 41.0%, 23.5% of decode)". Returns how many. */
static int name_stage_kernels(struct strbuf *sb, const struct report_model *m,
			      const struct report_stage *st, enum kernel_bound want)
{
	uint64_t st_ns = findings_stage_kernel_ns(m, st);
	size_t nk, *idx = findings_stage_kernels_by_time(m, st, &nk);
	int n = 0;

	for (size_t j = 0; j < nk && n < FINDINGS_MAX_KERNELS_NAMED; j++) {
		const struct report_kernel *k = &m->kernels[idx[j]];

		if (k->c->bound != want || !k->c->dram_sol_pct.available || !st_ns)
			continue;
		strbuf_addstr(sb, n ? ", " : "");
		findings_kernel_name(sb, m, k);
		strbuf_addstr(sb, " (DRAM SOL ");
		fmt_pct(sb, k->c->dram_sol_pct);
		strbuf_addstr(sb, "%, ");
		fmt_frac_pct(sb, rnum_of((double)findings_kernel_stage_ns(k, st) / (double)st_ns));
		strbuf_addstr(sb, " of ");
		md_escape_inline(sb, st->name);
		strbuf_addstr(sb, " kernel time)");
		n++;
	}
	free(idx);
	return n;
}

static void rule_decode(struct report_model *m)
{
	const struct report_stage *d = report_model_stage_by_role(m, REPORT_ROLE_DECODE);
	struct strbuf rec = STRBUF_INIT, names = STRBUF_INIT, mbu = STRBUF_INIT;
	struct rnum idle;

	if (!d || !d->mbu_datasheet.available || d->mbu_datasheet.v >= FINDINGS_DECODE_MBU_LOW)
		goto out;
	fmt_frac_pct(&mbu, d->mbu_datasheet);
	strbuf_addstr(&mbu, " MBU (");
	fmt_gbs(&mbu, d->achieved_gbs);
	strbuf_addstr(&mbu, " GB/s of ");
	fmt_gbs(&mbu, m->peaks.datasheet_gbs);
	strbuf_addstr(&mbu, m->peaks.gbs_estimated ? " GB/s ESTIMATED peak (no datasheet figure)"
						   : " GB/s datasheet");
	if (d->mbu_measured.available) {
		strbuf_addstr(&mbu, "; ");
		fmt_frac_pct(&mbu, d->mbu_measured);
		strbuf_addstr(&mbu, " of the measured ceiling");
	}
	strbuf_addstr(&mbu, ")");
	idle = idle_share(d);
	if (idle.available && idle.v >= FINDINGS_IDLE_SHARE_HIGH) {
		struct strbuf t = STRBUF_INIT;

		if (findings_stage_graphs(m, d))
			findings_graph_rec(&rec, d);
		else
			strbuf_addstr(&rec,
				      "Capture the decode step in a CUDA graph (built-in "
				      "model: infer.cuda_graph=true), fuse small kernels, or raise "
				      "the batch size to amortise launches");
		if (d->launches_per_s.available) {
			strbuf_addstr(&rec, " (now ");
			fmt_fixed(&rec, d->launches_per_s, 0);
			strbuf_addstr(&rec, " launches/s)");
		}
		strbuf_addch(&rec, '.');
		fmt_frac_pct(&t, idle);
		strbuf_addstr(&t, " of decode (");
		fmt_ms(&t, d->idle_ms);
		strbuf_addstr(&t, " ms of ");
		fmt_ms(&t, d->gpu_ms);
		strbuf_addstr(&t, " ms): launch and CPU overhead, not DRAM bandwidth, limits the "
				  "step.");
		findings_cpu_split(&t, d);
		report_model_add_finding(m, FINDING_WARNING, "decode-launch-bound", rec.buf,
					 "Decode reaches %s while the GPU is idle %s", mbu.buf,
					 t.buf);
		idle_saving(m, d);
		strbuf_release(&t);
		goto out;
	}
	if (!idle.available)
		goto out; /* cannot tell launch overhead from slow kernels */
	if (name_stage_kernels(&names, m, d, BOUND_MEMORY)) {
		strbuf_addf(&rec,
			    "Optimise the memory-bound decode kernels %s: fused or "
			    "vectorised GEMV, weight/KV quantisation, fewer passes over memory.",
			    names.buf);
		report_model_add_finding(m, FINDING_WARNING, "decode-kernels-inefficient", rec.buf,
					 "Decode reaches %s with the GPU busy (idle only %.1f%% of "
					 "decode): the kernels themselves move data below peak.",
					 mbu.buf, idle.v * 100);
	} else {
		report_model_add_finding(m, FINDING_WARNING, "decode-kernels-inefficient",
					 have_counters(m)
					     ? NULL
					     : "Run with counters (run.mode=deep) to see "
					       "which decode kernels fall short of DRAM "
					       "bandwidth.",
					 "Decode reaches %s with the GPU busy (idle only %.1f%% of "
					 "decode): the kernels themselves move data below peak.",
					 mbu.buf, idle.v * 100);
	}
out:
	strbuf_release(&rec);
	strbuf_release(&names);
	strbuf_release(&mbu);
}

static void rule_prefill(struct report_model *m)
{
	const struct report_stage *p = report_model_stage_by_role(m, REPORT_ROLE_PREFILL);
	struct strbuf rec = STRBUF_INIT, mfu = STRBUF_INIT;
	const struct report_kernel *top = NULL;
	uint64_t st_ns;

	if (!p || !p->mfu_datasheet.available || p->mfu_datasheet.v >= FINDINGS_PREFILL_MFU_LOW)
		goto out;
	fmt_frac_pct(&mfu, p->mfu_datasheet);
	strbuf_addstr(&mfu, " MFU (");
	fmt_tflops(&mfu, p->achieved_tflops);
	strbuf_addstr(&mfu, " TFLOP/s of ");
	fmt_tflops(&mfu, m->peaks.datasheet_tflops);
	strbuf_addstr(&mfu, m->peaks.tflops_estimated
				? " TFLOP/s ESTIMATED (no datasheet figure) dense "
				: " TFLOP/s datasheet dense ");
	strbuf_addstr(&mfu, m->peaks.precision ? m->peaks.precision : "bf16");
	if (p->mfu_measured.available) {
		strbuf_addstr(&mfu, "; ");
		fmt_frac_pct(&mfu, p->mfu_measured);
		strbuf_addstr(&mfu, " of the measured GEMM ceiling");
	}
	strbuf_addstr(&mfu, ")");
	st_ns = findings_stage_kernel_ns(m, p);
	{
		size_t nk, *idx = findings_stage_kernels_by_time(m, p, &nk);

		if (nk)
			top = &m->kernels[idx[0]];
		free(idx);
	}
	strbuf_addstr(&rec, "Check GEMM efficiency (tensor-core use, tile shapes, dtype) and use a "
			    "fused attention kernel");
	if (top && st_ns) {
		strbuf_addstr(&rec, "; start with ");
		findings_kernel_name(&rec, m, top);
		strbuf_addstr(&rec, ", ");
		fmt_frac_pct(&rec,
			     rnum_of((double)findings_kernel_stage_ns(top, p) / (double)st_ns));
		strbuf_addstr(&rec, " of prefill kernel time");
		if (top->c->sm_sol_pct.available) {
			strbuf_addstr(&rec, " at ");
			fmt_pct(&rec, top->c->sm_sol_pct);
			strbuf_addstr(&rec, "% compute SOL");
		}
	}
	strbuf_addch(&rec, '.');
	report_model_add_finding(m, FINDING_WARNING, "prefill-mfu-low", rec.buf,
				 "Prefill reaches %s.", mfu.buf);
out:
	strbuf_release(&rec);
	strbuf_release(&mfu);
}

static const char *bound_advice(enum kernel_bound b)
{
	switch (b) {
	case BOUND_MEMORY:
		return "it is memory-bound: cut the bytes it moves (fusion, lower-precision "
		       "weights "
		       "or KV cache)";
	case BOUND_COMPUTE:
		return "it is compute-bound: check it uses tensor cores at the model's dtype";
	case BOUND_LATENCY:
		return "neither compute nor memory is near peak: raise parallelism (more CTAs, "
		       "higher occupancy) or fuse it with its neighbours";
	case BOUND_UNKNOWN:
		break;
	}
	return NULL;
}

static void rule_dominant_kernels(struct report_model *m)
{
	for (size_t s = 0; s < m->nr_stages; s++) {
		const struct report_stage *st = &m->stages[s];
		uint64_t st_ns = findings_stage_kernel_ns(m, st);
		size_t nk, *idx = findings_stage_kernels_by_time(m, st, &nk);
		int n = 0;

		for (size_t j = 0; st_ns && j < nk && n < FINDINGS_MAX_KERNELS_NAMED; j++) {
			const struct report_kernel *k = &m->kernels[idx[j]];
			struct strbuf t = STRBUF_INIT, rec = STRBUF_INIT;
			double share;
			const char *adv;

			share = (double)findings_kernel_stage_ns(k, st) / (double)st_ns;
			if (share <= FINDINGS_KERNEL_DOMINANT_SHARE)
				break; /* by time inside the stage: the rest are smaller */
			n++;
			findings_kernel_name(&t, m, k);
			strbuf_addstr(&t, " takes ");
			fmt_frac_pct(&t, rnum_of(share));
			strbuf_addstr(&t, " of ");
			md_escape_inline(&t, st->name);
			strbuf_addstr(&t, " kernel time (");
			fmt_ns_as_ms(&t, (double)findings_kernel_stage_ns(k, st));
			strbuf_addf(&t, " ms in %llu calls)",
				    (unsigned long long)findings_kernel_stage_calls(k, st));
			if (k->c->bound != BOUND_UNKNOWN) {
				strbuf_addf(&t, "; %s-bound at ", kernel_bound_name(k->c->bound));
				fmt_pct(&t, k->c->sm_sol_pct);
				strbuf_addstr(&t, "% compute SOL, ");
				fmt_pct(&t, k->c->dram_sol_pct);
				strbuf_addstr(&t, "% DRAM SOL");
			}
			adv = bound_advice(k->c->bound);
			if (adv)
				strbuf_addf(&rec, "Optimise this kernel first: %s.", adv);
			report_model_add_finding(m, FINDING_INFO, "kernel-dominant",
						 rec.len ? rec.buf : NULL, "%s.", t.buf);
			strbuf_release(&t);
			strbuf_release(&rec);
		}
		free(idx);
	}
}

/* A stage that spends its time on the CPU with the GPU nearly unused: the
 * first use of its shapes (CUDA module loading, library handles, autotuning,
 * allocator growth), not GPU work. Launch overhead shows differently: many
 * kernels with small gaps (decode-launch-bound). */
static void rule_setup_stage(struct report_model *m)
{
	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];
		struct strbuf t = STRBUF_INIT;
		double share;
		int split;

		if (!s->cpu_ms.available || !s->busy_ms.available ||
		    s->cpu_ms.v < FINDINGS_SETUP_CPU_MS)
			continue;
		share = s->busy_ms.v / s->cpu_ms.v;
		if (share >= FINDINGS_SETUP_BUSY_SHARE ||
		    (double)s->kernels / s->cpu_ms.v >= FINDINGS_SETUP_LAUNCH_RATE)
			continue;
		fmt_ms(&t, s->cpu_ms);
		strbuf_addstr(&t, " ms of CPU time for ");
		fmt_ms(&t, s->busy_ms);
		strbuf_addf(&t, " ms of GPU work (%" PRIu64 " kernel%s, the GPU busy ", s->kernels,
			    s->kernels == 1 ? "" : "s");
		fmt_frac_pct(&t, rnum_of(share));
		strbuf_addstr(&t,
			      " of it): first-call setup (CUDA module loading, cuBLAS/cuDNN "
			      "handles, autotuning, memory allocation) or host work, not the GPU, "
			      "sets its time.");
		split = findings_cpu_split(&t, s);
		report_model_add_finding(
		    m, FINDING_WARNING, "stage-setup-bound",
		    split ? "Run the same shapes once before the measured range (a warm-up "
			    "outside it), so the stage times GPU work; if it is every call, look "
			    "at the CPU side (`nsys profile --sample=cpu`, Python profiler)."
			  : "Run the same shapes once before the measured range (a warm-up "
			    "outside it), so the stage times GPU work; if it is every call, look "
			    "at the CPU side (`nsys profile --sample=cpu`, Python "
			    "profiler). " FINDINGS_API_HINT,
		    "%s spent %s", s->name ? s->name : "a stage", t.buf);
		strbuf_release(&t);
	}
}

static void rule_outside_stages(struct report_model *m)
{
	uint64_t total = 0, outside = 0;
	size_t n = 0;
	struct strbuf t = STRBUF_INIT;

	if (!m->nr_stages)
		return;
	for (size_t i = 0; i < m->nr_kernels; i++) {
		total += m->kernels[i].total_ns;
		if (!m->kernels[i].stage) {
			outside += m->kernels[i].total_ns;
			n++;
		}
	}
	if (!total || (double)outside / (double)total <= FINDINGS_OUTSIDE_SHARE)
		return;
	fmt_frac_pct(&t, rnum_of((double)outside / (double)total));
	strbuf_addstr(&t, " of GPU kernel time (");
	fmt_ns_as_ms(&t, (double)outside);
	report_model_add_finding(m, FINDING_INFO, "kernels-outside-stages",
				 "If that work belongs to prefill or decode, make stages.prefill / "
				 "stages.decode match the program's NVTX ranges (`llmprof nvtx` "
				 "lists them).",
				 "%s ms in %zu distinct kernel%s) ran outside every stage.", t.buf,
				 n, n == 1 ? "" : "s");
	strbuf_release(&t);
}

/* The trace lacks some decode steps' GPU work (analytic.c fitted the work
 * to what it holds, or could not). */
static void rule_decode_steps(struct report_model *m)
{
	const struct report_stage *d = report_model_stage_by_role(m, REPORT_ROLE_DECODE);

	if (!d || !d->steps_expected)
		return;
	if (d->steps_recorded > 0) {
		report_model_add_finding(
		    m, FINDING_WARNING, "decode-steps-missing",
		    "Synchronize the device before the gating range ends (or gate on a wider "
		    "range, or trace without gating) to record every step.",
		    "The trace holds the GPU work of %.1f of the %llu decode steps the workload "
		    "ran (%llu steps have no kernels and %llu only some): a gated nsys capture "
		    "stops when its range ends on the CPU, while the GPU may still be running "
		    "the last steps. Decode time, MFU and MBU describe the recorded work only "
		    "(TPOT and "
		    "tokens/s: recorded GPU time per recorded step); the step distribution "
		    "includes the partly recorded steps.",
		    d->steps_recorded, (unsigned long long)d->steps_expected,
		    (unsigned long long)d->steps_empty, (unsigned long long)d->steps_partial);
		return;
	}
	report_model_add_finding(
	    m, FINDING_WARNING, "decode-steps-mismatch",
	    "Check that the stage names match one generation loop of the workload.",
	    "The trace holds %llu decode steps in %llu decode range(s) (%llu without kernels, "
	    "%llu with only some), but the workload ran %llu per generation: the model's work "
	    "cannot be matched to the trace, so decode MFU and MBU are not computed.",
	    (unsigned long long)d->nr_step_kernels, (unsigned long long)d->instances,
	    (unsigned long long)d->steps_empty, (unsigned long long)d->steps_partial,
	    (unsigned long long)d->steps_expected);
}

/* Counter FLOPs of a stage against the analytic model's: more than 1.5x
 * is information (padding explains it); off by more than 2x either way
 * is a warning: counters that miss most of a stage's work (results that
 * did not join, a selection that left kernels out) read as a fact
 * otherwise. */
static void rule_counter_flops(struct report_model *m)
{
	for (size_t i = 0; i < m->nr_stages; i++) {
		const struct report_stage *s = &m->stages[i];
		struct strbuf cf = STRBUF_INIT, mf = STRBUF_INIT, share = STRBUF_INIT;
		struct strbuf rec = STRBUF_INIT;
		double ratio;

		if (!s->counter_flops.available || !s->flops.available || s->flops.v <= 0)
			continue;
		ratio = s->counter_flops.v / s->flops.v;
		if (ratio <= FINDINGS_COUNTER_FLOPS_FAR &&
		    ratio >= 1 / FINDINGS_COUNTER_FLOPS_FAR &&
		    ratio < FINDINGS_COUNTER_FLOPS_EXCESS)
			goto next;
		fmt_si(&cf, s->counter_flops, "FLOP");
		fmt_si(&mf, s->flops, "FLOP");
		if (s->counter_time_share.available) {
			strbuf_addstr(&share, ", ");
			fmt_frac_pct(&share, s->counter_time_share);
			strbuf_addstr(&share, " of its kernel time");
		}
		if (ratio < 1 / FINDINGS_COUNTER_FLOPS_FAR)
			report_model_add_finding(
			    m, FINDING_WARNING, "counter-flops-vs-model",
			    findings_rec(&rec,
					 "Check \"Counter results not joined\" in %s and the "
					 "selection's coverage: the stage's heavy kernels need "
					 "joined counter results.",
					 bundle_art(BA_KERNELS_MD)),
			    "Nsight Compute counted %s in %s's profiled kernels%s: %.3gx the "
			    "analytic model's %s for the whole stage, off by more than %.0fx. The "
			    "counters miss most of the stage's work (results that did not join, or "
			    "kernels left out), so its counter FLOPs and the findings on them do "
			    "not describe the stage.",
			    cf.buf, s->name, share.buf, ratio, mf.buf, FINDINGS_COUNTER_FLOPS_FAR);
		else
			report_model_add_finding(
			    m, ratio > FINDINGS_COUNTER_FLOPS_FAR ? FINDING_WARNING : FINDING_INFO,
			    ratio > FINDINGS_COUNTER_FLOPS_FAR ? "counter-flops-vs-model"
							       : "counter-flops-above-model",
			    findings_rec(&rec,
					 "Compare each kernel's FLOPs per launch (%s) with its "
					 "GEMM shape; at small batch a GEMV kernel, or a larger "
					 "batch, avoids padded tensor-core work.",
					 bundle_art(BA_METRICS_JSON)),
			    "Nsight Compute counted %s in %s's profiled kernels%s: %.1fx the "
			    "model's %s for the whole stage. The GPU executes work the model does "
			    "not need: at batch 1, a tensor-core GEMM can pad the single row to "
			    "its "
			    "MMA tile (8 rows: 8x the FLOPs); recomputation or a model that does "
			    "not match the program show the same way.",
			    cf.buf, s->name, share.buf, ratio, mf.buf);
	next:
		strbuf_release(&cf);
		strbuf_release(&mf);
		strbuf_release(&share);
		strbuf_release(&rec);
	}
}

/* Counter results the join could not give to a kernel (analysis/join.c):
 * their counters are nowhere in the reports. */
static void rule_unjoined(struct report_model *m)
{
	const struct report_counter_join *cj = &m->run.cjoin;
	struct strbuf first = STRBUF_INIT, name = STRBUF_INIT, rec = STRBUF_INIT;

	if (!cj->nr_unjoined)
		return;
	fmt_ellipsize(&name, cj->unjoined[0].name, 80);
	md_code_plain(&first, name.buf);
	strbuf_addstr(&first, ": ");
	md_escape_inline(&first, cj->unjoined[0].reason);
	report_model_add_finding(
	    m, FINDING_WARNING, "counters-unmatched",
	    findings_rec(&rec,
			 "Read \"Counter results not joined\" in %s for each reason; with %s "
			 "beside %s (ncu --import R --csv --page raw --print-kernel-base mangled) "
			 "the join uses mangled names, which every tool spells alike.",
			 bundle_art(BA_KERNELS_MD), bundle_art(BA_NCU_MANGLED),
			 bundle_art(BA_NCU_RAW)),
	    "Incomplete: %zu of %zu Nsight Compute results matched no kernel of the trace "
	    "(first: %s), so the kernels they measured show n/a for counters and Bound.",
	    cj->nr_unjoined, cj->results, first.buf);
	strbuf_release(&first);
	strbuf_release(&name);
	strbuf_release(&rec);
}

/* GPU time of k in the stages the counters were taken in; its total when
 * the model has no per-stage times. */
static uint64_t counter_stage_ns(const struct report_kernel *k, unsigned roles, int staged)
{
	uint64_t t = 0;

	if (!staged)
		return k->total_ns;
	for (int r = 0; r < REPORT_ROLE_OTHER; r++)
		if (roles & (1u << r))
			t += k->stage_ns[r];
	return t;
}

/* A kernel among the FINDINGS_TOP_BOUND longest (in the counters' stage)
 * without a Bound, although counters were taken: n/a (no result joined)
 * or unknown (no SOL metrics). A warning when one of them was selected for
 * counters (or nothing says which were); information when the selection
 * left them all out, or when no result has SOL metrics at all: then the
 * collection did not ask for them (ncu.fast's one replay pass), and
 * nothing went missing. */
static void rule_top_bound(struct report_model *m)
{
	unsigned roles = report_counter_roles(m->run.counters_stage);
	size_t *top, ntop = 0;
	struct strbuf list = STRBUF_INIT, name = STRBUF_INIT, rec = STRBUF_INIT;
	int staged = 0, selected_miss = 0, n = 0, sol = 0, uncollected = 0;

	if (!m->run.cjoin.ran)
		return;
	for (size_t i = 0; i < m->nr_kernels; i++) {
		staged |= counter_stage_ns(&m->kernels[i], roles, 1) > 0;
		sol |= m->kernels[i].c->profiled && m->kernels[i].c->sm_sol_pct.available;
	}
	top = xmalloc((m->nr_kernels + 1) * sizeof(*top));
	for (size_t i = 0; i < m->nr_kernels; i++) { /* insertion sort: stable */
		uint64_t t = counter_stage_ns(&m->kernels[i], roles, staged);
		size_t j = ntop;

		if (!t)
			continue;
		ntop++;
		for (; j > 0 && counter_stage_ns(&m->kernels[top[j - 1]], roles, staged) < t; j--)
			top[j] = top[j - 1];
		top[j] = i;
	}
	if (ntop > FINDINGS_TOP_BOUND)
		ntop = FINDINGS_TOP_BOUND;
	for (size_t j = 0; j < ntop; j++) {
		const struct report_kernel *k = &m->kernels[top[j]];

		if (k->c->profiled && k->c->bound != BOUND_UNKNOWN)
			continue;
		if (k->c->profiled && !sol)
			uncollected++;
		else
			selected_miss |= k->selected || !m->sel.available;
		strbuf_addstr(&list, n++ ? "; " : "");
		findings_kernel_name(&list, m, k);
		strbuf_addf(&list, " (#%zu by GPU time: %s)", j + 1,
			    k->c->profiled && !sol ? "Bound unknown, no SOL metrics collected"
			    : k->c->profiled	   ? "Bound unknown, its SOL metrics are missing"
			    : k->selected ? "Bound n/a, selected but no counter result joined it"
					  : "Bound n/a, not selected for counters");
	}
	if (n)
		report_model_add_finding(
		    m, selected_miss ? FINDING_WARNING : FINDING_INFO, "top-kernel-no-bound",
		    selected_miss
			? findings_rec(&rec,
				       "Read \"Counter results not joined\" in %s and the "
				       "ncu step's logs for why its counters are missing.",
				       bundle_art(BA_KERNELS_MD))
		    : uncollected == n
			? "The Nsight Compute collection has no SpeedOfLight throughput metrics "
			  "(profiling/ncu=ncu.fast: one replay pass a kernel); select "
			  "profiling/ncu=ncu.default to see what limits each kernel."
			: "Raise run.coverage or run.top_n_kernels to measure it.",
		    "%d of the %zu longest kernels %s no Bound: %s.", n, ntop,
		    n == 1 ? "has" : "have", list.buf);
	free(top);
	strbuf_release(&list);
	strbuf_release(&name);
	strbuf_release(&rec);
}

/* The NCCL collectives' findings (analysis/ranks_coll.c keeps them with
 * the ranks, worded by collectives_findings.c). */
static void rule_collectives(struct report_model *m)
{
	for (size_t i = 0; i < m->ranks.coll.nr_findings; i++) {
		const struct report_finding *f = &m->ranks.coll.findings[i];

		report_model_add_finding(m, f->severity, f->code, f->recommendation, "%s", f->text);
	}
}

void findings_run(struct report_model *m)
{
	for (size_t i = 0; i < m->nr_findings; i++) {
		free(m->findings[i].code);
		free(m->findings[i].text);
		free(m->findings[i].recommendation);
	}
	m->nr_findings = 0;
	rule_failed_steps(m);
	rule_interrupted_step(m);
	rule_skipped_steps(m);
	rule_cpu_path(m);
	rule_decode_steps(m);
	rule_no_gpu_work(m);
	rule_missing_counters(m);
	rule_decode(m);
	rule_prefill(m);
	rule_setup_stage(m);
	rule_launch_bound(m);
	rule_memory_ceiling(m);
	rule_tensor_ceiling(m);
	rule_decode_host_copies(m);
	rule_dominant_kernels(m);
	rule_kernel_family(m);
	rule_unjoined(m);
	rule_top_bound(m);
	rule_counter_flops(m);
	rule_outside_stages(m);
	rule_collectives(m);
	findings_rank(m);
}

/* Does finding a go after b: a lower severity, or the same with a smaller
 * estimated saving over the run (none counts as the smallest)? */
static int ranks_after(const struct report_finding *a, const struct report_finding *b)
{
	double sa = a->saving_run_ms.available ? a->saving_run_ms.v : -1;
	double sb = b->saving_run_ms.available ? b->saving_run_ms.v : -1;

	if (a->severity != b->severity)
		return a->severity < b->severity;
	return sa < sb;
}

void findings_rank(struct report_model *m)
{
	/* insertion sort keeps rule order among equals (qsort is not stable) */
	for (size_t i = 1; i < m->nr_findings; i++) {
		struct report_finding f = m->findings[i];
		size_t j = i;

		while (j > 0 && ranks_after(&m->findings[j - 1], &f)) {
			m->findings[j] = m->findings[j - 1];
			j--;
		}
		m->findings[j] = f;
	}
}
