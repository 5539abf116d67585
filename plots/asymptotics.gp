# asymptotics.gp: the DTR paper's asymptotic study. Extra compute (remat
# compute) of a linear chain of n unit ops against n, log-log, one panel
# per budget formula, one curve per heuristic; points where a run ran out
# of memory (or thrashed) are crosses at the foot of the panel, not joined.
# References: sqrt(n) checkpointing (Chen et al.: extra compute n, y = n)
# and TREEVERSE (Griewank, log2(n) memory: treeverse(n) - n).
#
#   gnuplot -c plots/asymptotics.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: DIR/plot-data/NAME, written by `rematsim plot DIR`. PNG is for
# screens; PDF and SVG are at paper size (7 in full width, or 3.35 in for
# one column, two panels a row), 8 pt text, as the other figures. Each
# heuristic's colour and marker come from its registry row (figure.gp).
if (ARGC < 2) {
	print 'usage: gnuplot -c asymptotics.gp DATA_DIR OUT_FILE'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
load DATA.'/figure.gp'

ext = OUT[strlen(OUT)-3:strlen(OUT)]
paper = (ext ne '.png')
if (paper && SIZE eq 'column' && ncols > 2) {
	ncols = 2
	nrows = (npanels + 1) / 2
}
# Sizes in pixels (PNG) or points (PDF, SVG); title and legend strips.
W = paper ? ((SIZE eq 'column') ? 241.0 : 504.0) : 420.0 * ncols + 40
panel_h = paper ? 0.85 * W / ncols : 360.0
top = paper ? 20.0 : 30.0
bottom = paper ? 46.0 : 50.0
H = panel_h * nrows + top + bottom
# Markers and lines scaled to the size of the page.
sk = paper ? 0.55 : 1.0
if (ext eq '.png') {
	set terminal pngcairo size W, H enhanced font 'Sans,10'
} else {
	if (ext eq '.pdf') {
		set terminal pdfcairo size W / 72.0, H / 72.0 enhanced font 'Sans,8' fontscale 1.0
	} else {
		if (ext eq '.svg') {
			set terminal svg size W, H dynamic enhanced font 'Sans,8' fontscale 1.0
		} else {
			print 'asymptotics.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT

colof(c) = ccolor[c]
ptof(c) = cmarker[c]
# Later curves drawn thinner and smaller, so that equal curves (DTR and
# DTREqClass often coincide) still show both colours.
lwof(c) = sk * (4.0 - 2.8 * (c - 1) / (ncurves > 1 ? ncurves - 1 : 1))
psof(c) = sk * (1.7 - 1.1 * (c - 1) / (ncurves > 1 ? ncurves - 1 : 1))
curve(p, c, kind) = sprintf('%s/p%d-c%d%s.tsv', DATA, p, c, kind)

# Whole decades around the data; failures sit on the foot row (ylo).
ylo = 0.5
yhi = 10 ** ceil(log10(ymax * 1.5))
xlo = 2 ** floor(log(xmin) / log(2))
xhi = 2 ** ceil(log(xmax) / log(2) + 0.01)

title_h = top / H
legend_h = bottom / H
pw = 1.0 / ncols
ph = (1.0 - title_h - legend_h) / nrows
set multiplot
keyfont = paper ? ',8' : ',9'
titlefont = paper ? ',9' : ',13'
set label 999 figtitle at screen 0.5, screen 1 - top / 2 / H center font titlefont
set logscale x 2
set logscale y 10
set xrange [xlo:xhi]
set yrange [ylo:yhi]
set format x '2^{%L}'
set format y '10^{%T}'
set xtics 4
if (paper) { set ytics 100 }
set xlabel (paper ? 'n' : 'chain length n')
set grid back lc rgb '#e0e0e0'

do for [p = 1:npanels] {
	set origin ((p - 1) % ncols) * pw, legend_h + (nrows - 1 - (p - 1) / ncols) * ph
	set size pw, ph
	set title ptitle[p]
	# the y label once a row on paper (panels are narrow there)
	set ylabel (!paper ? 'extra compute (remat ops)' : (p - 1) % ncols == 0 ? 'remat ops' : '')
	unset key
	plot DATA.'/chen.tsv' using 1:2 with lines dt 2 lw 1.5 * sk lc rgb 'black' notitle, \
	     DATA.'/treeverse.tsv' using 1:2 with lines dt 4 lw 1.5 * sk lc rgb '#555555' notitle, \
	     for [c = 1:ncurves] curve(p, c, '') using 1:2 with linespoints lw lwof(c) pt ptof(c) \
		ps psof(c) lc rgb colof(c) notitle, \
	     for [c = 1:ncurves] curve(p, c, '-fail') using 1:(ylo * 1.25) with points pt 2 \
		ps 1.2 * sk lw 1.5 * sk lc rgb colof(c) notitle
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
	samplen 2.5 spacing 1.1 font keyfont
plot NaN with lines dt 2 lw 1.5 * sk lc rgb 'black' title (paper ? '√n checkpointing' : 'sqrt(n) checkpointing (y = n)'), \
     NaN with lines dt 4 lw 1.5 * sk lc rgb '#555555' title (paper ? 'TREEVERSE' : 'TREEVERSE (log_2 n memory)'), \
     for [c = 1:ncurves] NaN with linespoints lw lwof(c) pt ptof(c) ps psof(c) lc rgb colof(c) \
	title clabel[c], \
     NaN with points pt 2 lc rgb 'black' title 'out of memory'
unset multiplot
