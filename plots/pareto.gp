# pareto.gp: the DTR paper's Pareto grid (EXPERIMENTS.md): one panel per
# model, compute overhead vs memory ratio, one step curve per heuristic
# (random ones: mean over trials with a min-max band), markers at each
# curve's first and last point, a vertical line where a curve starts
# (dotted: OOM below it, dashed: thrash), black/grey impossible regions;
# with `sweep --fit`, ticks at the smallest passing ratios (grid.gp).
#
#   gnuplot -c plots/pareto.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: a folder written by `rematsim plot` (DIR/plot-data/pareto).
if (ARGC < 2) {
	print 'usage: gnuplot -c pareto.gp DATA_DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
ylabel_text = 'compute overhead (×)'
regions = 1
baseline = 1
fail_lines = 1
here = ARG0[1:strlen(ARG0) - strlen('pareto.gp')]
load here.'grid.gp'
