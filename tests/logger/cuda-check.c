/*
 * cuda-check.c: the CUDA backend against the CPU one, with no test library
 * (so that gpu-record.sh can build it where only zlib and CUDA exist).
 * For every demo model at its tiny sizes and one seed: the loss and every
 * gradient element on the device must match the CPU's. Exit 0 when they
 * do, 1 when not, 77 (skipped) without a CUDA build or device.
 */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "models.h"

static float *grads_of(const struct backend *be, const struct backend_info *info,
		       const struct model_desc *d, size_t *total, float *loss)
{
	struct rt *rt = rt_new(be, info, NULL, false);
	struct model *m = model_new(d, rt, &d->tiny, 5);
	*loss = model_iteration(m, MODEL_GRADS);
	size_t n = 0;
	for (size_t p = 0; p < m->nparams; p++)
		n += (size_t)m->grads[p]->numel;
	float *g = malloc(n * sizeof *g), *at = g;
	for (size_t p = 0; p < m->nparams; p++) {
		rt_read(m->grads[p], at);
		at += m->grads[p]->numel;
	}
	model_free(m);
	rt_free(rt);
	*total = n;
	return g;
}

int main(void)
{
	const struct backend *cuda = backend_cuda_get();
	if (!cuda) {
		printf("built without CUDA: skipped\n");
		return 77;
	}
	struct backend_info cuda_info = {0}, cpu_info = {0};
	char msg[512];
	if (cuda->init(&cuda_info, msg, sizeof msg)) {
		printf("no CUDA device (%s): skipped\n", msg);
		return 77;
	}
	backend_cpu.init(&cpu_info, msg, sizeof msg);
	printf("device: %s, %s, %s\n", cuda_info.device, cuda_info.driver, cuda_info.runtime);
	int failed = 0;
	for (size_t i = 0; model_registry[i]; i++) {
		const struct model_desc *d = model_registry[i];
		size_t n1, n2;
		float l1, l2;
		float *a = grads_of(&backend_cpu, &cpu_info, d, &n1, &l1);
		float *b = grads_of(cuda, &cuda_info, d, &n2, &l2);
		double worst = 0;
		size_t bad = 0;
		for (size_t j = 0; j < n1 && n1 == n2; j++) {
			double err = fabs((double)a[j] - b[j]);
			if (err > 1e-4 + 1e-3 * fabs(a[j]))
				bad++;
			if (err > worst)
				worst = err;
		}
		bool ok = n1 == n2 && bad == 0 && fabsf(l1 - l2) <= 1e-5f + 1e-5f * fabsf(l1);
		printf("%-4s %-12s loss cpu %.7f cuda %.7f, %zu gradient elements, largest "
		       "difference %.3g, %zu beyond tolerance\n",
		       ok ? "ok" : "FAIL", d->name, l1, l2, n1, worst, bad);
		failed |= !ok;
		free(a);
		free(b);
	}
	cuda->shutdown();
	return failed;
}
