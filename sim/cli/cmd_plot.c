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
#include "cmd_opts.h"
#include "outfile.h"
#include "plot.h"
#include "results.h"
#include "util.h"

extern char **environ;


/* text from column `indent` (where the line is now) to `width`, wrapped at
 * spaces with the same indent. */
static void put_wrapped_help(FILE *f, const char *text, int indent, int width)
{
	int col = indent;
	while (*text) {
		size_t w = strcspn(text, " ");
		if (col > indent && col + 1 + (int)w > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (col > indent) {
			fputc(' ', f);
			col++;
		}
		fwrite(text, 1, w, f);
		col += (int)w;
		text += w;
		while (*text == ' ')
			text++;
	}
	fputc('\n', f);
}

static void plot_usage(FILE *f)
{
	fprintf(f,
		"usage: rematsim plot DIR [--format png,pdf,svg] [--size full|column]\n"
		"                         [--yrange LO:HI] [--plots SCRIPTS_DIR]\n\n"
		"Render every figure that the sweep results in DIR support (DIR/NAME.png\n"
		"and DIR/NAME.pdf) with gnuplot, after writing their data files to\n"
		"DIR/plot-data/NAME/. Prints the paths of the figures; a print-size SVG\n"
		"taller than a page comes as NAME.svg, NAME-2.svg ..., named on stderr in\n"
		"one line a figure. With DIR/fit.tsv (`rematsim sweep --fit`), the\n"
		"overhead figures mark each series' smallest passing ratio and where\n"
		"feasibility is not monotone.\n\n"
		"  --format F,...   any of png (large, for screens), pdf and svg (print size);\n"
		"                   default png,pdf\n"
		"  --size S         print size of PDF and SVG: full (7 in wide, 4 panels a\n"
		"                   row; the default) or column (3.35 in, 2 a row); text\n"
		"                   is 8-9 pt at that size\n"
		"  --yrange LO:HI   y axis of the overhead figures (default: the data and\n"
		"                   the overhead limit; the experiment's 'yrange' key)\n"
		"  --plots DIR      the gnuplot scripts (default: beside the executable,\n"
		"                   installed share/rematsim/plots, or $REMATSIM_PLOTS)\n\n"
		"Exit status: 0 done (a sweep with points missing is drawn, its figures\n"
		"titled partial, the missing points named on stderr), 64 usage, 65 bad\n"
		"result files, 66 no results in DIR, 69 gnuplot not found, 70 gnuplot\n"
		"failed, 73 cannot write (a symbolic link in DIR/plot-data is refused).\n");
	/* the table of figures (plot.c), in the order its rows are asked */
	size_t n;
	const struct plot_figure_row *rows = plot_figure_rows(&n);
	fprintf(f, "\nFigures: the rows of the table of figures, asked in this order (EXP:\n"
		   "the experiment's name; data in DIR/plot-data/NAME/):\n");
	for (size_t i = 0; i < n; i++) {
		char text[1024];
		snprintf(text, sizeof text, "%s. plots/%s.gp; %s", rows[i].applies, rows[i].script,
			 rows[i].writes);
		fprintf(f, "  %-13s", rows[i].name);
		put_wrapped_help(f, text, 15, 78);
	}
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
	int rc = outfile_spawnp(&pid, "gnuplot", argv); /* a signal ends it with us */
	if (rc == ENOENT)
		return -1;
	if (rc) {
		fprintf(stderr, "rematsim plot: cannot run gnuplot: %s\n", strerror(rc));
		return 127;
	}
	int st;
	if (outfile_wait(pid, &st))
		return 127;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128;
}

/* Claim a temporary output name exclusively (a planted file or link of
 * that name is removed, never followed): gnuplot then writes into a file
 * of ours. 0, or EXIT_CANTCREAT after a message. */
static int claim(const char *path)
{
	/* created and tracked with the fatal signals waiting in between: one
	 * between the two left the file behind (plot-signals, once in CI) */
	if (outfile_tmp_claim(path)) {
		fprintf(stderr, "rematsim plot: cannot create %s: %s\n", path, strerror(errno));
		return EXIT_CANTCREAT;
	}
	return 0;
}

/* DIR/NAME[-PAGE].EXT, or the temporary name of it (gives). */
static char *out_path(const char *dir, const char *name, size_t page, const char *ext, bool tmp)
{
	char file[600], pg[32] = "";
	if (page > 1)
		snprintf(pg, sizeof pg, "-%zu", page);
	if (tmp)
		snprintf(file, sizeof file, "%s.tmp-%ld%s.%s", name, (long)getpid(), pg, ext);
	else
		snprintf(file, sizeof file, "%s%s.%s", name, pg, ext);
	return path_join(dir, file);
}

/* One line on stderr for a figure that came as several files (a print
 * size with more rows of panels than a page holds): which files, so that
 * a reader looking for NAME.svg finds the rest (issue 44). */
static void split_note(const struct plot_figure *fig, const char *dir, const char *ext,
		       const char *size, size_t files)
{
	fprintf(stderr, "rematsim plot: %s.%s at --size %s is taller than a page: written as %zu files,",
		fig->name, ext, size, files);
	for (size_t k = 1; k <= files; k++) {
		char *out = out_path(dir, fig->name, k, ext, false);
		fprintf(stderr, "%s %s", k > 1 ? "," : "", out);
		free(out);
	}
	fputc('\n', stderr);
}

/*
 * Render one figure in one format: gnuplot writes under a temporary name
 * (with the same extension: it picks the terminal) that is renamed only
 * once the figure is complete. An SVG at print size with more rows than a
 * page holds comes as several files (grid.gp): DIR/NAME.svg, then
 * DIR/NAME-2.svg ...; their temporary names are claimed beforehand too,
 * up to one a panel, and those gnuplot leaves empty removed. Prints each
 * figure's path, and for a figure in several files a line on stderr that
 * names them (split_note); 0 or an exit status after a message.
 */
static int render(const char *script, const struct plot_figure *fig, const char *dir,
		  const char *ext, const char *size)
{
	size_t pages = !strcmp(ext, "svg") && fig->panels > 1 ? fig->panels : 1;
	char *tmp = out_path(dir, fig->name, 1, ext, true);
	int status = 0;
	size_t claimed = 0;
	/* a figure's name that is a link or not a regular file is refused:
	 * renaming would replace it (outfile.h) */
	for (size_t k = 1; k <= pages && !status; k++) {
		char *out = out_path(dir, fig->name, k, ext, false);
		struct rs_error err;
		if (outfile_check(out, false, &err) < 0) {
			rs_error_print(&err);
			status = err.status;
		}
		free(out);
	}
	for (size_t k = 1; k <= pages && !status; k++) {
		char *t = out_path(dir, fig->name, k, ext, true);
		status = claim(t);
		free(t);
		claimed += !status;
	}
	int rc = status ? 0 : run_gnuplot(script, fig->data_dir, tmp, size);
	size_t moved = 0; /* files of this figure in place, pages 1 to moved */
	for (size_t k = 1; k <= claimed; k++) {
		char *t = out_path(dir, fig->name, k, ext, true), *out = out_path(dir, fig->name, k, ext, false);
		struct stat st;
		bool used = k == 1 || (!lstat(t, &st) && st.st_size > 0);
		if (rc == 0 && !status && used) {
			if (rename(t, out)) {
				fprintf(stderr, "rematsim plot: cannot move %s into place: %s\n", out,
					strerror(errno));
				status = EXIT_CANTCREAT;
				unlink(t);
			} else {
				printf("%s\n", out);
				moved += moved == k - 1;
			}
			outfile_tmp_done(t);
		} else {
			unlink(t);
			outfile_tmp_done(t);
			/* a page of an earlier, longer figure would be mistaken for this one's */
			if (rc == 0 && !status && !used && !lstat(out, &st) && S_ISREG(st.st_mode))
				unlink(out);
		}
		free(t);
		free(out);
	}
	if (moved > 1 && !status) /* a figure split into files says so, and names them */
		split_note(fig, dir, ext, size, moved);
	if (rc == -1) {
		fprintf(stderr, "rematsim plot: gnuplot is not on PATH: install it "
				"(Debian: apt-get install gnuplot-nox); the figure data "
				"is in %s/plot-data\n", dir);
		status = EXIT_UNAVAILABLE;
	} else if (rc) {
		char *out = out_path(dir, fig->name, 1, ext, false);
		fprintf(stderr, "rematsim plot: gnuplot -c %s %s %s failed (status %d)\n", script,
			fig->data_dir, out, rc);
		free(out);
		status = EXIT_SOFTWARE;
	}
	free(tmp);
	return status;
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
	/* an option with a value given twice is refused (cmd_opts.h) */
	if (opt_refuse_repeats("plot", argc, argv, "f:p:s:y:h", opts, NULL))
		return EXIT_USAGE;
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
		for (size_t e = 0; e < n_exts && !status; e++)
			status = render(script, &figs[i], dir, exts[e], size);
		free(script);
	}
	plot_figures_free(figs, n_figs);
	free(plots);
	return status;
}
