# ablation.gp: one grid of the DTR paper's ablation: the four heuristics of one
# cost family (e*, eq-class, local, no cost) crossed with size and staleness,
# drawn as pareto.gp draws heuristics.
#
#   gnuplot -c plots/ablation.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: DIR/plot-data/ablation-estar (-eq, -local, -nocost).
if (ARGC < 2) {
	print 'usage: gnuplot -c ablation.gp DATA_DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
ylabel_text = 'compute overhead (×)'
regions = 1
baseline = 1
fail_lines = 1
here = ARG0[1:strlen(ARG0) - strlen('ablation.gp')]
load here.'grid.gp'
