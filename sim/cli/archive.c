/*
 * archive.c: what `info` and `replay` say about a bare archive (a zip of
 * logs with a manifest, docs/log-format.md): whether a log argument names
 * one, and the list of its models. Shared by both commands here, so that
 * neither calls the other (tests/cli-calls.sh).
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "cmd.h"
#include "source.h"
#include "util.h"

bool log_is_archive(const char *spec)
{
	return source_is_bare_zip(spec);
}

/* List the models of a bare archive (cmd.h). */
int list_archive(const char *path, bool json, FILE *out)
{
	struct manifest *m;
	struct rs_error err;
	if (manifest_read(path, &m, &err) < 0) {
		rs_error_print(&err);
		return err.status;
	}
	if (!json)
		fprintf(out, "%s: %zu model%s (replay one as '%s:NAME')\n", path, m->n_models,
		       m->n_models == 1 ? "" : "s", path);
	/* columns as wide as their longest entry (at least 24 and 12), so
	 * that a long description (the DTR paper's LSTM) keeps them aligned */
	int wname = 24, wdesc = 12;
	for (size_t i = 0; i < m->n_models; i++) {
		int ln = (int)strlen(m->models[i].name), ld = (int)strlen(m->models[i].desc);
		wname = ln > wname ? ln : wname;
		wdesc = ld > wdesc ? ld : wdesc;
	}
	for (size_t i = 0; i < m->n_models; i++) {
		const struct manifest_model *mm = &m->models[i];
		if (json) {
			json_t *o = json_object();
			json_object_set_new(o, "archive", cmd_json_str(path));
			json_object_set_new(o, "name", json_string(mm->name));
			json_object_set_new(o, "title", json_string(mm->title));
			json_object_set_new(o, "desc", json_string(mm->desc));
			json_object_set_new(o, "log", json_string(mm->log));
			json_object_set_new(o, "has_start", json_boolean(mm->has_start));
			char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
			fprintf(out, "%s\n", text);
			free(text);
			json_decref(o);
		} else {
			/* a description over several lines stays on the model's line */
			char *desc = xstrdup(mm->desc);
			for (char *q = desc; *q; q++)
				if (*q == '\n' || *q == '\r' || *q == '\t')
					*q = ' ';
			fprintf(out, "  %-*s %-*s %s%s\n", wname, rs_text_safe(mm->name), wdesc, rs_text_safe(desc), rs_text_safe(mm->log),
			       mm->has_start ? "" : " (no START)");
			free(desc);
		}
	}
	manifest_free(m);
	return 0;
}
