# offload.gp: recompute, offload or both (docs/offload.md): DTR dropping
# its victims (recompute only), offloading every victim over a host link
# (offload only: swap) and choosing per victim by the cost rule (both), at
# each link bandwidth of the experiment, one panel per model, drawn as
# pareto.gp draws heuristics.
#
#   gnuplot -c plots/offload.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: DIR/plot-data/offload.
if (ARGC < 2) {
	print 'usage: gnuplot -c offload.gp DATA_DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
ylabel_text = 'compute overhead with stalls (×)'
regions = 1
baseline = 1
fail_lines = 1
here = ARG0[1:strlen(ARG0) - strlen('offload.gp')]
load here.'grid.gp'
