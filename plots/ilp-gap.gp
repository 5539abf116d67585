# ilp-gap.gp: the ILP's points with their gaps (scripts/ilp-gap-figure
# writes the TSV: model kind ratio overhead lower_bound), one panel per
# model: proven optima filled, time-limited points open with a bar down to
# the lower bound; DTR, DTREqClass, LRU and Belady (offline) as lines.
#
#   gnuplot -c plots/ilp-gap.gp DATA.tsv OUT.png N MODEL1 ... MODELN
DATA = ARG1
OUT = ARG2
N = int(ARG3)
set terminal pngcairo size 400*N, 380 enhanced font 'Sans,10'
set output OUT
set datafile separator "\t"
set multiplot layout 1, N title "the ILP with its gap (bar: down to its lower bound) against DTR"
set xlabel "memory ratio (peak / baseline)"
set ylabel "compute overhead (x)"
set xrange [0:1.05]
set yrange [0.98:1.5]
set key top right
set grid
do for [i = 1:N] {
	M = value(sprintf("ARG%d", i + 3))
	set title M noenhanced
	plot DATA using ((strcol(1) eq M && strcol(2) eq "DTR") ? $3 : NaN):4 with linespoints pt 3 lc rgb "#2ca02c" title "DTR", \
	     DATA using ((strcol(1) eq M && strcol(2) eq "DTREqClass") ? $3 : NaN):4 with linespoints pt 9 lc rgb "#4169e1" title "DTR eq", \
	     DATA using ((strcol(1) eq M && strcol(2) eq "LRU") ? $3 : NaN):4 with linespoints pt 8 lc rgb "#ffa500" title "LRU", \
	     DATA using ((strcol(1) eq M && strcol(2) eq "Belady") ? $3 : NaN):4 with linespoints pt 13 lc rgb "#000000" title "Belady (offline)", \
	     DATA using ((strcol(1) eq M && strcol(2) eq "optimal") ? $3 : NaN):4 with points pt 7 ps 1.4 lc rgb "#0000ff" title "ILP, proven optimal", \
	     DATA using ((strcol(1) eq M && strcol(2) eq "gap") ? $3 : NaN):4:5:4 with yerrorbars pt 6 ps 1.4 lc rgb "#0000ff" title "ILP at its time limit, bar to its bound"
}
unset multiplot
