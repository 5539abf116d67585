# asymptotics.gp: the DTR paper's asymptotic study. Extra compute (remat
# compute) of a linear chain of n unit ops against n, log-log, one panel
# per budget formula, one curve per heuristic; points where a run ran out
# of memory (or thrashed) are crosses at the foot of the panel, not joined.
# References: sqrt(n) checkpointing (Chen et al.: extra compute n, y = n)
# and TREEVERSE (Griewank, log2(n) memory: treeverse(n) - n).
#
#   gnuplot -c plots/asymptotics.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg
# DATA_DIR: DIR/plot-data/NAME, written by `rematsim plot DIR`.
if (ARGC < 2) {
	print 'usage: gnuplot -c asymptotics.gp DATA_DIR OUT_FILE'
	exit status 2
}
DATA = ARG1
OUT = ARG2
load DATA.'/figure.gp'

ext = OUT[strlen(OUT)-3:strlen(OUT)]
W = 420 * ncols + 40
H = 360 * nrows + 110
if (ext eq '.png') {
	set terminal pngcairo size W, H enhanced font 'Sans,10'
} else {
	if (ext eq '.pdf') {
		set terminal pdfcairo size W / 110.0, H / 110.0 enhanced font 'Sans,7'
	} else {
		if (ext eq '.svg') {
			set terminal svg size W, H dynamic enhanced font 'Sans,10'
		} else {
			print 'asymptotics.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT

array colors[8] = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', \
	'#e377c2', '#17becf']
array ptypes[8] = [7, 4, 9, 10, 13, 6, 5, 8]
colof(c) = colors[(c - 1) % 8 + 1]
ptof(c) = ptypes[(c - 1) % 8 + 1]
# Later curves drawn thinner and smaller, so that equal curves (DTR and
# DTREqClass often coincide) still show both colours.
lwof(c) = 4.0 - 2.8 * (c - 1) / (ncurves > 1 ? ncurves - 1 : 1)
psof(c) = 1.7 - 1.1 * (c - 1) / (ncurves > 1 ? ncurves - 1 : 1)
curve(p, c, kind) = sprintf('%s/p%d-c%d%s.tsv', DATA, p, c, kind)

# Whole decades around the data; failures sit on the foot row (ylo).
ylo = 0.5
yhi = 10 ** ceil(log10(ymax * 1.5))
xlo = 2 ** floor(log(xmin) / log(2))
xhi = 2 ** ceil(log(xmax) / log(2) + 0.01)

title_h = 30.0 / H
legend_h = 50.0 / H
pw = 1.0 / ncols
ph = (1.0 - title_h - legend_h) / nrows
set multiplot
set label 999 figtitle at screen 0.5, screen 1 - 15.0 / H center font ',13'
set logscale x 2
set logscale y 10
set xrange [xlo:xhi]
set yrange [ylo:yhi]
set format x '2^{%L}'
set format y '10^{%T}'
set xtics 4
set xlabel 'chain length n'
set ylabel 'extra compute (remat ops)'
set grid back lc rgb '#e0e0e0'

do for [p = 1:npanels] {
	set origin ((p - 1) % ncols) * pw, legend_h + (nrows - 1 - (p - 1) / ncols) * ph
	set size pw, ph
	set title ptitle[p]
	unset key
	plot DATA.'/chen.tsv' using 1:2 with lines dt 2 lw 1.5 lc rgb 'black' notitle, \
	     DATA.'/treeverse.tsv' using 1:2 with lines dt 4 lw 1.5 lc rgb '#555555' notitle, \
	     for [c = 1:ncurves] curve(p, c, '') using 1:2 with linespoints lw lwof(c) pt ptof(c) \
		ps psof(c) lc rgb colof(c) notitle, \
	     for [c = 1:ncurves] curve(p, c, '-fail') using 1:(ylo * 1.25) with points pt 2 \
		ps 1.2 lw 1.5 lc rgb colof(c) notitle
}

# The legend: an empty full-width plot along the bottom.
set origin 0, 0
set size 1, legend_h
unset title
unset xlabel
unset ylabel
unset tics
unset border
unset grid
unset logscale
set xrange [0:1]
set yrange [0:1]
set key at screen 0.5, screen legend_h - 4.0 / H center top horizontal maxrows 3 \
	samplen 2.5 spacing 1.1 font ',9'
plot NaN with lines dt 2 lw 1.5 lc rgb 'black' title 'sqrt(n) checkpointing (y = n)', \
     NaN with lines dt 4 lw 1.5 lc rgb '#555555' title 'TREEVERSE (log_2 n memory)', \
     for [c = 1:ncurves] NaN with linespoints lw lwof(c) pt ptof(c) ps psof(c) lc rgb colof(c) \
	title clabel[c], \
     NaN with points pt 2 lc rgb 'black' title 'out of memory'
unset multiplot
