# accesses.gp: metadata accesses (storages and tensors visited by the
# heuristic and its bookkeeping) vs memory ratio, one panel per model, log y.
#
#   gnuplot -c plots/accesses.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: DIR/plot-data/NAME-accesses.
if (ARGC < 2) {
	print 'usage: gnuplot -c accesses.gp DATA_DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
ylabel_text = 'metadata accesses'
subtitle = "Why it matters: the cost of the eviction policy's bookkeeping (metadata read to choose each victim), which DTR's equivalence classes and banishing reduce"
regions = 0
baseline = 0
fail_lines = 1
here = ARG0[1:strlen(ARG0) - strlen('accesses.gp')]
load here.'grid.gp'
