/* dummy_nocuda.c: the GPU entry points of a build without nvcc. */
#include <stdio.h>

#include "dummy.h"
#include "core/banned.h"

int dummy_cuda_device_count(void)
{
	return -1;
}

int dummy_cuda_run(const struct dummy_shape *s, int dev, int warmup, float *logits, double *ms,
		   char *err, size_t errlen)
{
	snprintf(err, errlen, "built without CUDA");
	return -1;
}
