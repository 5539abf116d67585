# banishing.gp: the DTR paper's banishing comparison: DTR-Full on the V1
# (banishing) runtime, DTR with eager eviction, and DTR with no deallocations,
# drawn as pareto.gp draws heuristics.
#
#   gnuplot -c plots/banishing.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: DIR/plot-data/banishing.
if (ARGC < 2) {
	print 'usage: gnuplot -c banishing.gp DATA_DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
ylabel_text = 'compute overhead (×)'
regions = 1
baseline = 1
fail_lines = 1
here = ARG0[1:strlen(ARG0) - strlen('banishing.gp')]
load here.'grid.gp'
