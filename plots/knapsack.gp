# knapsack.gp: PyTorch's memory-budget knapsack, the physical peak against
# the budget asked (scripts/knapsack-figure writes the TSV: log fraction
# asked_ratio method peak_ratio overhead outcome), one panel per log, for
# the knapsack's plan, the DP's and DTR at the same budget in bytes.
#
#   gnuplot -c plots/knapsack.gp DATA.tsv OUT.png N LOG1 ... LOGN
DATA = ARG1
OUT = ARG2
N = int(ARG3)
set terminal pngcairo size 420*N, 400 enhanced font 'Sans,10'
set output OUT
set datafile separator "\t"
set multiplot layout 1, N title "physical peak vs budget asked: the knapsack ignores the backward pass"
set xlabel "budget asked / unbounded peak"
set ylabel "replayed peak / unbounded peak"
set xrange [0:1.05]
set yrange [0:1.1]
set key bottom right
set grid
do for [i = 1:N] {
	L = value(sprintf("ARG%d", i + 3))
	set title L noenhanced
	plot x title "peak = budget" lc rgb "#999999" dt 2, \
	     DATA using ((strcol(1) eq L && strcol(4) eq "knapsack") ? $3 : NaN):5 with linespoints pt 7 lc rgb "#d62728" title "knapsack (torch)", \
	     DATA using ((strcol(1) eq L && strcol(4) eq "dp") ? $3 : NaN):5 with linespoints pt 5 lc rgb "#1f77b4" title "DP (fewest splits that fit)", \
	     DATA using ((strcol(1) eq L && strcol(4) eq "DTR") ? $3 : NaN):5 with linespoints pt 9 lc rgb "#2ca02c" title "DTR"
}
unset multiplot
