/*
 * cmd_plot.c: `rematsim plot DIR`: write the figures' data files (plot.h)
 * and render each figure as PNG and PDF with the gnuplot scripts of
 * plots/, found beside the executable (../plots, ../../plots), in
 * $REMATSIM_PLOTS, or given with --plots.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cmd.h"
#include "outfile.h"
#include "plot.h"
#include "results.h"
#include "util.h"

extern char **environ;


static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: rematsim plot DIR [--format png,pdf,svg] [--size full|column]\n"
		"                         [--yrange LO:HI] [--plots SCRIPTS_DIR]\n\n"
		"Render every figure that the sweep results in DIR support (DIR/NAME.png\n"
		"and DIR/NAME.pdf) with gnuplot, after writing their data files to\n"
		"DIR/plot-data/NAME/. Prints the paths of the figures. With DIR/fit.tsv\n"
		"(`rematsim sweep --fit`), the overhead figures mark each series' smallest\n"
		"passing ratio and where feasibility is not monotone.\n\n"
		"  --format F,...   any of png (large, for screens), pdf and svg (print size);\n"
		"                   default png,pdf\n"
		"  --size S         print size of PDF and SVG: full (7 in wide, 4 panels a\n"
		"                   row; the default) or column (3.35 in, 2 a row); text\n"
		"                   is 8-9 pt at that size\n"
		"  --yrange LO:HI   y axis of the overhead figures (default: the data and\n"
		"                   the overhead limit; the experiment's 'yrange' key)\n"
		"  --plots DIR      the gnuplot scripts (default: beside the executable,\n"
		"                   installed share/rematsim/plots, or $REMATSIM_PLOTS)\n\n"
		"Exit status: 0 done, 64 usage, 65 bad result files, 66 no results in DIR,\n"
		"69 gnuplot not found, 70 gnuplot failed, 73 cannot write.\n");
}

static bool is_file(const char *path)
{
	struct stat st;
	return !stat(path, &st) && S_ISREG(st.st_mode);
}

/* The folder of the figure scripts (gives), or NULL. */
static char *find_plots(const char *given)
{
	if (given)
		return xstrdup(given);
	const char *env = getenv("REMATSIM_PLOTS");
	if (env && *env)
		return xstrdup(env);
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	char *slash = strrchr(exe, '/');
	if (!slash)
		return NULL;
	*slash = 0;
	const char *rel[] = {"../plots", "../../plots", "../share/rematsim/plots"};
	for (size_t i = 0; i < sizeof rel / sizeof rel[0]; i++) {
		char *dir = path_join(exe, rel[i]);
		char *probe = path_join(dir, "pareto.gp");
		bool ok = is_file(probe);
		free(probe);
		if (ok)
			return dir;
		free(dir);
	}
	return NULL;
}

/* Run gnuplot -c SCRIPT DATA OUT; returns its exit status, or -1 if absent. */
static int run_gnuplot(const char *script, const char *data, const char *out, const char *size)
{
	pid_t pid;
	char *argv[] = {"gnuplot", "-c", (char *)script, (char *)data, (char *)out, (char *)size,
			NULL};
	int rc = posix_spawnp(&pid, "gnuplot", NULL, NULL, argv, environ);
	if (rc == ENOENT)
		return -1;
	if (rc) {
		fprintf(stderr, "rematsim plot: cannot run gnuplot: %s\n", strerror(rc));
		return 127;
	}
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

int cmd_plot(int argc, char **argv)
{
	static const struct option opts[] = {
		{"format", required_argument, NULL, 'f'},
		{"plots", required_argument, NULL, 'p'},
		{"size", required_argument, NULL, 's'},
		{"yrange", required_argument, NULL, 'y'},
		{"help", no_argument, NULL, 'h'},
		{0},
	};
	const char *formats = "png,pdf", *plots_given = NULL, *size = "full";
	struct plot_options popt = {0};
	int c;
	optind = 1;
	while ((c = getopt_long(argc, argv, "f:p:s:y:h", opts, NULL)) != -1) {
		switch (c) {
		case 'f':
			formats = optarg;
			break;
		case 'p':
			plots_given = optarg;
			break;
		case 's':
			if (strcmp(optarg, "full") && strcmp(optarg, "column")) {
				fprintf(stderr, "rematsim plot: --size: 'full' or 'column', not '%s'\n",
					optarg);
				return EXIT_USAGE;
			}
			size = optarg;
			break;
		case 'y':
			if (plot_parse_yrange(optarg, &popt.ylo, &popt.yhi)) {
				fprintf(stderr, "rematsim plot: --yrange wants LO:HI with LO < HI, "
						"e.g. 0.9:3, not '%s'\n", optarg);
				return EXIT_USAGE;
			}
			popt.has_yrange = true;
			break;
		case 'h':
			plot_usage(stdout);
			return 0;
		default:
			plot_usage(stderr);
			return EXIT_USAGE;
		}
	}
	if (optind != argc - 1) {
		plot_usage(stderr);
		return EXIT_USAGE;
	}
	const char *dir = argv[optind];
	char fmt_copy[256];
	snprintf(fmt_copy, sizeof fmt_copy, "%s", formats);
	const char *exts[8];
	size_t n_exts = 0;
	for (char *t = strtok(fmt_copy, ","); t && n_exts < 8; t = strtok(NULL, ",")) {
		if (strcmp(t, "png") && strcmp(t, "pdf") && strcmp(t, "svg")) {
			fprintf(stderr, "rematsim plot: --format: '%s': png, pdf or svg expected\n", t);
			return EXIT_USAGE;
		}
		exts[n_exts++] = t;
	}

	char *plots = find_plots(plots_given);
	char *probe = plots ? path_join(plots, "pareto.gp") : NULL;
	if (!probe || !is_file(probe)) {
		fprintf(stderr, "rematsim plot: cannot find the figure scripts (plots/pareto.gp); "
				"give --plots DIR or set REMATSIM_PLOTS\n");
		free(probe);
		free(plots);
		return EXIT_NOINPUT;
	}
	free(probe);

	struct rs_error err = {0};
	struct plot_figure *figs;
	size_t n_figs;
	if (plot_prepare(dir, &popt, &figs, &n_figs, &err)) {
		rs_error_print(&err);
		free(plots);
		return err.status ? err.status : EXIT_DATAERR;
	}
	int status = 0;
	for (size_t i = 0; i < n_figs && !status; i++) {
		char script_name[256];
		snprintf(script_name, sizeof script_name, "%s.gp", figs[i].script);
		char *script = path_join(plots, script_name);
		for (size_t e = 0; e < n_exts && !status; e++) {
			char out_name[512];
			snprintf(out_name, sizeof out_name, "%s.%s", figs[i].name, exts[e]);
			char *out = path_join(dir, out_name);
			/* gnuplot writes under a temporary name of ours (ending in the
			 * extension: it picks the terminal), claimed exclusively (a
			 * planted file or link is never followed), renamed over the
			 * figure only once complete; a figure name that is a link or
			 * not a regular file is refused (outfile.h). */
			char suffix[16];
			snprintf(suffix, sizeof suffix, ".%s", exts[e]);
			char *tmp;
			if (outfile_claim(out, suffix, &tmp, &err)) {
				rs_error_print(&err);
				free(out);
				status = err.status;
				break;
			}
			int rc = run_gnuplot(script, figs[i].data_dir, tmp, size);
			if (outfile_place(tmp, out, rc == 0, &err)) {
				rs_error_print(&err);
				status = err.status;
			}
			if (rc == -1) {
				fprintf(stderr, "rematsim plot: gnuplot is not on PATH: install it "
						"(Debian: apt-get install gnuplot-nox); the figure data "
						"is in %s/plot-data\n", dir);
				status = EXIT_UNAVAILABLE;
			} else if (rc) {
				fprintf(stderr, "rematsim plot: gnuplot -c %s %s %s failed (status %d)\n",
					script, figs[i].data_dir, out, rc);
				status = EXIT_SOFTWARE;
			} else if (!status) {
				printf("%s\n", out);
			}
			free(out);
		}
		free(script);
	}
	plot_figures_free(figs, n_figs);
	free(plots);
	return status;
}
