/*
 * backend_nocuda.c: the CUDA entry point of a build without nvcc.
 */
#include "backend.h"

const struct backend *backend_cuda_get(void)
{
	return 0;
}
