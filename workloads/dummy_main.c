/* dummy_main.c: llmprof-dummy, the NVTX dummy model (docs/workloads.md). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "dummy.h"
#include "nvtx_shim.h"
#include "core/error.h"
#include "core/strbuf.h"
#include "core/util.h"
#include "core/banned.h"

#define PROG "llmprof-dummy"

static const char usage[] = "usage: " PROG " [--device auto|cpu|cuda[:N]] [--batch N] "
			    "[--channels N] [--size N] [--seed N] [--warmup N]\n";

static int parse(int argc, char **argv, struct dummy_shape *s, const char **device, int *warmup,
		 struct strbuf *err)
{
	for (int i = 1; i < argc; i++) {
		const char *f = argv[i];
		int64_t v;

		if (!strcmp(f, "-h") || !strcmp(f, "--help")) {
			fputs(usage, stdout);
			exit(0);
		}
		if (strncmp(f, "--", 2))
			return error_set(err, "unexpected argument '%s'", f);
		if (i + 1 >= argc)
			return error_set(err, "option '%s' needs a value", f);
		if (!strcmp(f, "--device")) {
			*device = argv[++i];
			continue;
		}
		if (strcmp(f, "--batch") && strcmp(f, "--channels") && strcmp(f, "--size") &&
		    strcmp(f, "--seed") && strcmp(f, "--warmup"))
			return error_set(err, "unknown option '%s' (see --help)", f);
		if (parse_i64(argv[++i], 0, 1 << 16, &v, err))
			return error_set(err, " (%s)", f);
		if (v < 1 && strcmp(f, "--seed") && strcmp(f, "--warmup"))
			return error_set(err, "%s must be >= 1", f);
		if (!strcmp(f, "--batch"))
			s->batch = (int)v;
		else if (!strcmp(f, "--channels"))
			s->channels = (int)v;
		else if (!strcmp(f, "--size"))
			s->size = (int)v;
		else if (!strcmp(f, "--seed"))
			s->seed = (uint64_t)v;
		else
			*warmup = (int)v;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct dummy_shape s = {4, 32, 16, 1234};
	struct strbuf err = STRBUF_INIT;
	const char *device = "auto";
	float logits[4096 * DUMMY_CLASSES];
	char e[256], devname[32];
	double ms = 0, sum = 0;
	int warmup = 1, dev = -1, n = dummy_cuda_device_count(), rc = EXIT_OK;
	int64_t idx = 0;

	if (parse(argc, argv, &s, &device, &warmup, &err)) {
		fprintf(stderr, PROG ": error: %s\n", err.buf);
		rc = EXIT_USAGE;
		goto out;
	}
	if (s.batch > 4096) {
		fprintf(stderr, PROG ": error: --batch must be <= 4096\n");
		rc = EXIT_USAGE;
		goto out;
	}
	if (!strcmp(device, "auto")) {
		dev = n > 0 ? 0 : -1;
	} else if (strcmp(device, "cpu")) {
		if (strncmp(device, "cuda", 4) || (device[4] && device[4] != ':') ||
		    (device[4] == ':' && parse_i64(device + 5, 0, 1023, &idx, &err))) {
			fprintf(stderr,
				PROG ": error: --device: '%s' is not auto, cpu, cuda or cuda:N\n",
				device);
			rc = EXIT_USAGE;
			goto out;
		}
		if (idx >= n) {
			fprintf(stderr,
				PROG ": error: --device %s: no usable CUDA device (%s); use "
				     "--device cpu or auto\n",
				device,
				n < 0 ? "built without CUDA"
				      : "no driver, no GPU or index too high");
			rc = EXIT_TOOL_MISSING;
			goto out;
		}
		dev = (int)idx;
	}
	nvtx_domain(NULL);
	if (dev < 0) {
		if (dummy_cpu_run(&s, warmup, logits, &ms)) {
			fprintf(stderr, PROG ": error: out of memory\n");
			rc = EXIT_INTERNAL;
			goto out;
		}
		snprintf(devname, sizeof(devname), "cpu");
	} else {
		if (dummy_cuda_run(&s, dev, warmup, logits, &ms, e, sizeof(e))) {
			fprintf(stderr, PROG ": error: %s\n", e);
			rc = EXIT_WORKLOAD_FAILED;
			goto out;
		}
		snprintf(devname, sizeof(devname), "cuda:%d", dev);
	}
	for (int i = 0; i < s.batch * DUMMY_CLASSES; i++)
		sum += logits[i];
	printf(PROG ": device=%s batch=%d channels=%d size=%d blocks=%d forward_ms=%.3f "
		    "checksum=%.6e classes=[",
	       devname, s.batch, s.channels, s.size, DUMMY_BLOCKS, ms, sum);
	for (int b = 0; b < s.batch; b++) {
		int best = 0;
		for (int k = 1; k < DUMMY_CLASSES; k++)
			if (logits[b * DUMMY_CLASSES + k] > logits[b * DUMMY_CLASSES + best])
				best = k;
		printf("%s%d", b ? "," : "", best);
	}
	printf("]\n");
out:
	strbuf_release(&err);
	return rc;
}
