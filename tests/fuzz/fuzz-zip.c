/*
 * fuzz-zip.c: zip archives a user downloads (member names of any length,
 * manifests, bombs, encryption, corruption) must give a log or a message,
 * never a crash, hang or leak. The input is written to a file NAME.zip
 * (minizip reads paths); then its manifest is read, every model and
 * member it names is loaded, and so is a member named by a long path;
 * each both with the whole decode of deflated members (libdeflate) and
 * through minizip alone, which must give the same bytes or refusal.
 * libFuzzer entry point LLVMFuzzerTestOneInput; FUZZ_STANDALONE adds the
 * mutation driver of fuzz-main.h (what `meson test` runs).
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "schedule.h"
#include "source.h"

static char zip_path[64];

/* Every refusal is a data error or a missing input, with a message; err
 * is not zeroed before a call, so that a status read before it is set
 * shows. */
static struct rs_error err;

static struct rs_error *fresh(void)
{
	memset(&err, 0x5a, sizeof err);
	return &err;
}

static bool refused(int rc)
{
	if (rc && ((err.status != 65 && err.status != 66) || !err.msg[0]))
		abort();
	return rc != 0;
}

/* spec loaded with the whole decode of zip members (libdeflate) and
 * through minizip alone: the same bytes, or the same refusal. */
static void load_both(const char *spec)
{
	char *d1 = NULL, *d2 = NULL;
	size_t n1 = 0, n2 = 0;
	int rc1 = source_load(spec, &d1, &n1, fresh());
	refused(rc1);
	struct rs_error e1 = err;
	source_test_no_whole = true;
	int rc2 = source_load(spec, &d2, &n2, fresh());
	source_test_no_whole = false;
	refused(rc2);
	if (rc1 != rc2 || (rc1 && (e1.status != err.status || strcmp(e1.msg, err.msg))) ||
	    (!rc1 && (n1 != n2 || memcmp(d1, d2, n1))))
		abort();
	free(d1);
	free(d2);
}

/* The same for the schedule read from spec: the same refusal, or as many
 * ops and commands. */
static void read_both(const char *spec)
{
	struct schedule *s1 = NULL, *s2 = NULL;
	struct read_options opt = {0};
	int rc1 = schedule_read(spec, &opt, &s1, fresh());
	refused(rc1);
	struct rs_error e1 = err;
	source_test_no_whole = true;
	int rc2 = schedule_read(spec, &opt, &s2, fresh());
	source_test_no_whole = false;
	refused(rc2);
	if (rc1 != rc2 || (rc1 && (e1.status != err.status || strcmp(e1.msg, err.msg))) ||
	    (!rc1 && (s1->n_ops != s2->n_ops || s1->n_cmds != s2->n_cmds)))
		abort();
	schedule_free(s1);
	schedule_free(s2);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!zip_path[0]) {
		snprintf(zip_path, sizeof zip_path, "/tmp/fuzz-zip-%ld.zip", (long)getpid());
		setenv("REMATSIM_MAX_INPUT", "1MiB", 1); /* a bomb stops early */
	}
	FILE *f = fopen(zip_path, "wb");
	if (!f)
		abort();
	fwrite(data, 1, size, f);
	fclose(f);
	struct manifest *m;
	if (!refused(manifest_read(zip_path, &m, fresh()))) {
		for (size_t i = 0; i < m->n_models && i < 8; i++) {
			char spec[4200];
			snprintf(spec, sizeof spec, "%s:%s", zip_path, m->models[i].name);
			read_both(spec);
			load_both(m->models[i].spec);
		}
		manifest_free(m);
	}
	static const char *const members[] = {"logs/manifest.json", "a.log", "logs/x.log.gz", ""};
	for (size_t i = 0; i < sizeof members / sizeof *members; i++) {
		char spec[256];
		snprintf(spec, sizeof spec, "%s:%s", zip_path, members[i]);
		load_both(spec);
	}
	return 0;
}

#ifdef FUZZ_STANDALONE
#define FUZZ_DICT "PK\x03\x04\x01\x02\x05\x06/.:{}[]\"ab\xff\x00"
#include "fuzz-main.h"
#endif
