/* fuzz-report.c: libFuzzer target for the calibration and analytic-file
 * parsers and for every report writer fed names and reasons made of
 * arbitrary bytes.
 *
 *   clang-14 -g -O1 -fsanitize=fuzzer,address,undefined -Isrc -Ibuild/gen \
 *     -D_POSIX_C_SOURCE=200809L -D_DEFAULT_SOURCE \
 *     -DLLMPROF_SOURCE_DIR='"."' tests/fuzz/fuzz-report.c src/report/[a-z]*.c \
 *     src/analysis/calibration.c src/analysis/analytic.c src/analysis/findings.c \
 *     src/analysis/hw.c src/core/[a-z]*.c -ljansson -lm -o build/fuzz-report
 *   build/fuzz-report -max_len=2048 -timeout=5
 *
 * The parsers and the model (derive, findings) run on every input; under
 * libFuzzer one renderer per execution renders it (fuzz.h), replay renders
 * them all.
 *
 * Property checked besides memory safety: metrics.json always encodes,
 * whatever bytes the names hold. (Well-formedness of the HTML and SVG is
 * checked with xmllint in tests/cli/test-html.sh.) */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis/analytic.h"
#include "analysis/calibration.h"
#include "analysis/findings.h"
#include "analysis/hw.h"
#include "core/strbuf.h"
#include "core/xalloc.h"
#include "report/report.h"
#include "report/svg.h"
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct strbuf err = STRBUF_INIT, out = STRBUF_INIT;
	struct calibration cal;
	struct report_model m;
	struct report_kernel *k;
	struct report_stage *s;
	char *text = xstrndup((const char *)data, size);
	size_t half = strlen(text) / 2;
	/* the renderer(s) to run: the HTML report, the charts alone, each
	 * Markdown file, metrics.json (fuzz.h) */
	unsigned pick = fuzz_pick(data, size, 7);

	if (!calibration_parse((const char *)data, size, "fuzz", &cal, &err))
		calibration_release(&cal);
	report_model_init(&m);
	s = report_model_add_stage(&m, text + half, REPORT_ROLE_DECODE);
	s->gpu_ms = rnum_of(10);
	s->busy_ms = rnum_of(5);
	(void)analytic_load_buffer(&m, (const char *)data, size, "fuzz", &err);

	/* the input as every kind of name the writers print */
	report_set_str(&m.env.gpu_name, text);
	report_set_str(&m.llm.name, text + half);
	k = report_model_add_kernel(&m, text, text + half);
	report_set_str(&k->stage, text + half);
	k->calls = size + 1;
	k->total_ns = 1000 * (size + 1);
	report_kernel_counters(k)->profiled = 1;
	report_kernel_counters(k)->sm_sol_pct = rnum_of((double)(size % 101));
	report_kernel_counters(k)->dram_sol_pct = rnum_of(50);
	report_model_add_operator(&m, text, text + half)->gpu_ms = rnum_of(1);
	report_model_add_step(&m, "ncu", STEP_FAILED, text);
	report_lane_add(report_model_add_lane(&m, text, LANE_RANGE), 0, (int64_t)size, text);
	hw_peaks_resolve(&m, NULL, NULL, 0);
	report_model_derive(&m);
	findings_run(&m);

	if (fuzz_runs(pick, 0))
		report_render_html(&m, &out);
	if (fuzz_runs(pick, 1)) {
		svg_timeline(&out, &m, 800);
		svg_kernel_bars(&out, &m, 800, 5);
		svg_roofline(&out, &m, 800);
	}
	strbuf_reset(&out);
	if (fuzz_runs(pick, 2))
		report_render_kernels_md(&m, &out);
	if (fuzz_runs(pick, 3))
		report_render_operators_md(&m, &out);
	if (fuzz_runs(pick, 4))
		report_render_report_md(&m, &out);
	if (fuzz_runs(pick, 5))
		report_render_summary_md(&m, &out);
	strbuf_reset(&out);
	if (fuzz_runs(pick, 6) && report_render_metrics_json(&m, &out, &err))
		abort();
	report_model_release(&m);
	free(text);
	strbuf_release(&err);
	strbuf_release(&out);
	return 0;
}
