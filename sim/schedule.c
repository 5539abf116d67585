/* schedule.c: placeholder while the reader is written (see schedule.h). */
#include "schedule.h"
#include <stdlib.h>
int schedule_read(const char *spec, const struct read_options *opt,
		  struct schedule **out, struct rs_error *err)
{
	(void)opt; *out = NULL;
	return rs_error_set(err, EXIT_SOFTWARE, spec, 0, "reader not written yet");
}
void schedule_free(struct schedule *s) { (void)s; }
