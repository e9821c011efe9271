/* llm_nocuda.c: the GPU entry points of a build without nvcc. */
#include <stdio.h>

#include "llm.h"
#include "core/banned.h"

int llm_cuda_device_count(void)
{
	return -1;
}

int llm_cuda_run(const struct llm_config *c, const struct llm_run_opts *opt, int dev,
		 struct llm_result *res, char *err, size_t errlen)
{
	snprintf(err, errlen, "built without CUDA");
	return -1;
}

int llm_cuda_check_ops(int dev, enum llm_dtype dt)
{
	return -1;
}
