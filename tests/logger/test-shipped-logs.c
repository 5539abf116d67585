/*
 * test-shipped-logs.c MANIFEST: every log the manifest lists is well-formed,
 * has its START, and replays (independently of the logger's code) to the
 * peak_live_bytes of its meta file.
 */
#include <jansson.h>
#include <libgen.h>
#include <stdio.h>
#include <string.h>

#include "logcheck.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test-shipped-logs MANIFEST\n");
		return 2;
	}
	json_error_t jerr;
	json_t *man = json_load_file(argv[1], 0, &jerr);
	json_t *models = json_object_get(man, "models");
	if (!json_is_array(models) || json_array_size(models) == 0) {
		fprintf(stderr, "%s: no models (%s)\n", argv[1], jerr.text);
		return 1;
	}
	char dirbuf[4096];
	snprintf(dirbuf, sizeof dirbuf, "%s", argv[1]);
	const char *dir = dirname(dirbuf);
	int failed = 0;
	size_t i;
	json_t *m;
	json_array_foreach(models, i, m) {
		const char *log = json_string_value(json_object_get(m, "log"));
		const char *keys[] = {"name", "title", "desc", "log"};
		for (size_t k = 0; k < 4; k++)
			if (!json_is_string(json_object_get(m, keys[k]))) {
				fprintf(stderr, "model %zu: no %s\n", i, keys[k]);
				failed = 1;
			}
		if (!log || !json_is_true(json_object_get(m, "has_start"))) {
			fprintf(stderr, "model %zu: no log or has_start not true\n", i);
			failed = 1;
			continue;
		}
		char path[8192];
		snprintf(path, sizeof path, "%s/%s", dir, log);
		struct logcheck c;
		if (logcheck_file(path, &c)) {
			fprintf(stderr, "%s: %s\n", path, c.error);
			failed = 1;
			continue;
		}
		long long meta = logcheck_meta_peak(path);
		if (c.starts != 1 || meta < 0 || (unsigned long long)meta != c.peak_bytes) {
			fprintf(stderr, "%s: %ld STARTs, meta peak %lld, replayed peak %llu\n", path,
				c.starts, meta, (unsigned long long)c.peak_bytes);
			failed = 1;
			continue;
		}
		printf("ok %s: %ld records, %ld calls, %ld mutates, %ld views, %ld copies, peak %llu\n",
		       log, c.records, c.calls, c.mutates, c.views, c.copies,
		       (unsigned long long)c.peak_bytes);
	}
	json_decref(man);
	return failed;
}
