/*
 * reference.c: reading simrd's reference numbers and comparing replays with
 * them (the rule is in reference.h). Start at reference_point_matches.
 */
#include <dirent.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "reference.h"

static const char *str_field(json_t *o, const char *key)
{
	const char *s = json_string_value(json_object_get(o, key));
	return s ? s : "";
}

static uint64_t u64_field(json_t *o, const char *key)
{
	return (uint64_t)json_integer_value(json_object_get(o, key));
}

int reference_read(const char *path, struct ref_file **out, struct rs_error *err)
{
	*out = NULL;
	json_error_t jerr;
	json_t *root = json_load_file(path, 0, &jerr);
	if (!root)
		return rs_error_set(err, jerr.line > 0 ? EXIT_DATAERR : EXIT_NOINPUT, path,
				    jerr.line > 0 ? jerr.line : 0, "%s", jerr.text);
	json_t *runs = json_object_get(root, "runs");
	if (!json_is_array(runs)) {
		json_decref(root);
		return 1;
	}
	struct ref_file *f = xcalloc(1, sizeof *f);
	f->json = root;
	f->log = str_field(root, "log");
	f->baseline.memory = u64_field(root, "baseline_memory");
	f->baseline.compute = (int64_t)u64_field(root, "baseline_compute");
	f->baseline.const_memory = u64_field(root, "const_memory");
	f->baseline.bottleneck_memory = u64_field(root, "bottleneck_memory");
	f->n_runs = json_array_size(runs);
	f->runs = xcalloc(f->n_runs ? f->n_runs : 1, sizeof *f->runs);
	for (size_t i = 0; i < f->n_runs; i++) {
		json_t *r = json_array_get(runs, i);
		struct ref_run *run = &f->runs[i];
		run->heuristic_name = str_field(r, "heuristic");
		run->runtime_name = str_field(r, "runtime");
		run->heuristic = heuristic_find(run->heuristic_name);
		run->runtime_known = runtime_kind_parse(run->runtime_name, &run->runtime) == 0;
		run->overhead_limit = json_number_value(json_object_get(r, "overhead_limit"));
		run->reference_seconds = json_number_value(json_object_get(r, "reference_seconds"));
		json_t *pts = json_object_get(r, "points");
		run->n_points = json_array_size(pts);
		run->points = xcalloc(run->n_points ? run->n_points : 1, sizeof *run->points);
		for (size_t j = 0; j < run->n_points; j++) {
			json_t *p = json_array_get(pts, j);
			struct ref_point *rp = &run->points[j];
			rp->ratio = json_number_value(json_object_get(p, "ratio"));
			rp->budget = u64_field(p, "budget");
			rp->outcome = str_field(p, "outcome");
			rp->overhead = json_number_value(json_object_get(p, "overhead"));
			rp->remat_compute = (int64_t)u64_field(p, "remat_compute");
			rp->heuristic_evals = u64_field(p, "heuristic_evals");
			rp->heuristic_accesses = u64_field(p, "heuristic_accesses");
		}
	}
	*out = f;
	return 0;
}

void reference_free(struct ref_file *f)
{
	if (!f)
		return;
	for (size_t i = 0; i < f->n_runs; i++)
		free(f->runs[i].points);
	free(f->runs);
	json_decref(f->json);
	free(f);
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

int reference_list(const char *dir, char **paths, int cap)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)) && n < cap) {
		size_t len = strlen(e->d_name);
		if (len > 5 && !strcmp(e->d_name + len - 5, ".json")) {
			paths[n] = xmalloc(strlen(dir) + len + 2);
			sprintf(paths[n++], "%s/%s", dir, e->d_name);
		}
	}
	closedir(d);
	qsort(paths, (size_t)n, sizeof paths[0], cmp_str);
	return n;
}

bool reference_baseline_matches(const struct ref_file *f, const struct baseline *b,
				char *why, size_t why_len)
{
	const struct baseline *r = &f->baseline;
	const char *field = b->memory != r->memory ? "baseline memory"
		: b->compute != r->compute ? "baseline compute"
		: b->const_memory != r->const_memory ? "constant memory"
		: b->bottleneck_memory != r->bottleneck_memory ? "bottleneck memory" : NULL;
	if (field)
		snprintf(why, why_len, "%s: %s differs", f->log, field);
	return !field;
}

bool reference_point_matches(const struct ref_run *run, const struct ref_point *p,
			     const struct point_result *pr, bool *accesses_differ,
			     char *why, size_t why_len)
{
	const struct runtime_result *r = &pr->run;
	*accesses_differ = false;
#define DIFFER(...) (snprintf(why, why_len, "%s %s ratio %g: " ,			\
			      run->heuristic_name, run->runtime_name, p->ratio),	\
		     snprintf(why + strlen(why), why_len - strlen(why), __VA_ARGS__), false)
	if (pr->budget != p->budget)
		return DIFFER("budget %llu, reference %llu", (unsigned long long)pr->budget,
			      (unsigned long long)p->budget);
	if (strcmp(outcome_name(r->outcome), p->outcome))
		return DIFFER("outcome %s, reference %s", outcome_name(r->outcome), p->outcome);
	if (!(fabs(pr->overhead - p->overhead) <= 1e-9 * fabs(p->overhead)))
		return DIFFER("overhead %.17g, reference %.17g", pr->overhead, p->overhead);
	if (r->remat_compute != p->remat_compute)
		return DIFFER("remat compute %lld, reference %lld", (long long)r->remat_compute,
			      (long long)p->remat_compute);
	if (r->heuristic_evals != p->heuristic_evals)
		return DIFFER("evaluations %llu, reference %llu",
			      (unsigned long long)r->heuristic_evals,
			      (unsigned long long)p->heuristic_evals);
	if (r->heuristic_accesses != p->heuristic_accesses) {
		double ours = (double)r->heuristic_accesses, ref = (double)p->heuristic_accesses;
		bool eqclass = run->heuristic && (run->heuristic->needs & NEEDS_EQCLASS);
		if (!eqclass || fabs(ours - ref) > 0.01 * ref)
			return DIFFER("accesses %llu, reference %llu%s",
				      (unsigned long long)r->heuristic_accesses,
				      (unsigned long long)p->heuristic_accesses,
				      eqclass ? " (over the 1% EqClass tolerance)" : "");
		*accesses_differ = true;
	}
#undef DIFFER
	return true;
}
