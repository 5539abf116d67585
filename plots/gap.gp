# gap.gp: the gap to the optimum (gap.tsv, docs/graphs.md): one panel per
# model, each method's compute overhead minus the optimum's (the ILP's, or
# the best method's at that budget) against the memory ratio; heuristics as
# step curves (random ones: mean over trials), static planners as marked
# points (their best plan that fits each budget), a vertical line where a
# curve starts (dotted: out of memory below it, dashed: thrash), black/grey
# impossible regions (grid.gp).
#
#   gnuplot -c plots/gap.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: a folder written by `rematsim plot` (DIR/plot-data/EXPERIMENT-gap).
if (ARGC < 2) {
	print 'usage: gnuplot -c gap.gp DATA_DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
ylabel_text = 'overhead − optimum (× baseline compute)'
regions = 1
baseline = 0
fail_lines = 1
here = ARG0[1:strlen(ARG0) - strlen('gap.gp')]
load here.'grid.gp'
