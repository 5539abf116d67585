# checkmate.gp: the DTR paper's Figure 2 in the artifact's style
# (scripts/checkmate-figure writes the TSV: model series x overhead
# lower_bound, and the panels' settings N, M, TITLE, LO, HI, UNIT, HOW as
# gnuplot arrays): one panel per model, compute overhead against the
# budget in GB (activations + parameters and gradients, as the artifact)
# or as a ratio where the model's parameters are not known; each series a
# step line (the least overhead at or below each budget), the ILP's points
# marked (filled: proven optimal; open with a bar down to the lower bound:
# stopped at its time limit), checkpoint-all at the unbounded peak.
#
#   gnuplot -c plots/checkmate.gp DATA.tsv OUT.png PANELS.gp
DATA = ARG1
OUT = ARG2
load ARG3
set terminal pngcairo size 470*N + 330, 430 enhanced font 'Sans,10'
set output OUT
set datafile separator "\t"
W = (470.0*N / (470*N + 330)) / N
set multiplot title "DTR against Checkmate's ILP and baselines (x: each schedule's peak; GB = activations + parameters and gradients at 4 B, 10^9 B, as the DTR artifact)" font 'Sans,11'
set ylabel "compute overhead (x)"
set yrange [0.95:1.5]
set grid
unset key
s(m, name) = (strcol(1) eq m && strcol(2) eq name)
do for [i = 1:N] {
	m = M[i]
	set origin (i - 1)*W, 0
	set size W, 0.93
	set title TITLE[i] noenhanced font 'Sans,12'
	set xlabel (UNIT[i] eq "GB" ? "budget (GB)" : "budget (ratio: peak / baseline)")
	set xrange [LO[i]:HI[i]]
	set label 1 HOW[i] at graph 0.02, graph 0.96 left font 'Sans,8' noenhanced
	plot DATA using (s(m, "DTR") ? $3 : NaN):4 with steps lw 2 lc rgb "#2ca02c", \
	     DATA using (s(m, "DTREqClass") ? $3 : NaN):4 with steps lw 2 lc rgb "#4169e1", \
	     DATA using (s(m, "LRU") ? $3 : NaN):4 with steps lw 2 lc rgb "#ffa500", \
	     DATA using (s(m, "Belady") ? $3 : NaN):4 with steps lw 1 dt 2 lc rgb "#000000", \
	     DATA using (s(m, "chen-sqrtn") ? $3 : NaN):4 with steps lw 1.5 lc rgb "#d62728", \
	     DATA using (s(m, "chen-sqrtn-noap") ? $3 : NaN):4 with steps lw 1.5 dt 3 lc rgb "#d62728", \
	     DATA using (s(m, "chen-greedy") ? $3 : NaN):4 with steps lw 1.5 lc rgb "#9467bd", \
	     DATA using (s(m, "chen-greedy-noap") ? $3 : NaN):4 with steps lw 1.5 dt 3 lc rgb "#9467bd", \
	     DATA using (s(m, "griewank-logn") ? $3 : NaN):4 with steps lw 1.5 lc rgb "#8c564b", \
	     DATA using (s(m, "ideal") ? $3 : NaN):4 with lines lw 1 lc rgb "#7f7f7f", \
	     DATA using (s(m, "checkpoint-all") ? $3 : NaN):4 with points pt 5 ps 1.2 lc rgb "#7f7f7f", \
	     DATA using (s(m, "optimal") ? $3 : NaN):4 with points pt 7 ps 1.3 lc rgb "#0000ff", \
	     DATA using (s(m, "gap") ? $3 : NaN):4:5:4 with yerrorbars pt 6 ps 1.3 lc rgb "#0000ff"
}
# the legend, in a panel of its own
unset label 1
unset title
unset xlabel
unset ylabel
unset border
unset tics
unset grid
set origin N*W, 0
set size 1 - N*W, 0.93
set xrange [0:1]
set yrange [0:1]
set key center center left reverse Left font 'Sans,9' spacing 1.2
plot NaN with lines lw 2 lc rgb "#2ca02c" title "DTR", \
     NaN with lines lw 2 lc rgb "#4169e1" title "DTR EqClass", \
     NaN with lines lw 2 lc rgb "#ffa500" title "LRU", \
     NaN with lines lw 1 dt 2 lc rgb "#000000" title "Belady (offline bound)", \
     NaN with lines lw 1.5 lc rgb "#d62728" title "Chen √n (AP)", \
     NaN with lines lw 1.5 dt 3 lc rgb "#d62728" title "Chen √n (no AP)", \
     NaN with lines lw 1.5 lc rgb "#9467bd" title "Chen greedy (AP)", \
     NaN with lines lw 1.5 dt 3 lc rgb "#9467bd" title "Chen greedy (no AP)", \
     NaN with lines lw 1.5 lc rgb "#8c564b" title "Griewank log n (AP)", \
     NaN with points pt 5 ps 1.2 lc rgb "#7f7f7f" title "Checkpoint all (ideal)", \
     NaN with points pt 7 ps 1.3 lc rgb "#0000ff" title "ILP, proven optimal", \
     NaN with points pt 6 ps 1.3 lc rgb "#0000ff" title "ILP at its limit (bar: to bound)"
unset multiplot
