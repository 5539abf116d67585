# measured-budget.gp: remat overhead against the memory budget, one panel
# per model, the DTR prototype's measured runs in black and each heuristic's
# replays in its registry colour and marker (a random heuristic: the median
# of its seeds, a bar from their min to their max). Runs that failed
# (measured "error", or a replay out of memory or thrashing) are left out.
#
#   gnuplot -c plots/measured-budget.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: DIR/plot-data/measured-budget, written by `rematsim plot DIR`
# from DIR/measured.tsv (`rematsim measured --out DIR`). PNG for screens;
# PDF and SVG at paper size (7 in full width, 3.35 in for one column).
if (ARGC < 2) {
	print 'usage: gnuplot -c measured-budget.gp DATA_DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
if (SIZE ne 'full' && SIZE ne 'column') {
	print 'measured-budget.gp: the size must be full or column: '.SIZE
	exit status 2
}
load DATA.'/figure.gp'

ext = OUT[strlen(OUT)-3:strlen(OUT)]
paper = (ext ne '.png')
maxcols = (paper && SIZE eq 'column') ? 2 : 4
ncols = (npanels < maxcols) ? npanels : maxcols
nrows = (npanels + ncols - 1) / ncols
W = paper ? ((SIZE eq 'column') ? 241.0 : 504.0) : 360.0 * ncols + 40
panel_h = paper ? 1.15 * W / ncols : 330.0
# a title too long for a column breaks after its colon
narrow = paper && SIZE eq 'column'
if (narrow && strstrt(figtitle, ': ') > 0) {
	i = strstrt(figtitle, ': ')
	figtitle = figtitle[1:i]."\n".figtitle[i+2:strlen(figtitle)]
}
top = paper ? (narrow ? 30.0 : 20.0) : 30.0
# the legend: rows of up to kcols entries
kcols = paper ? ((SIZE eq 'column') ? 1 : 2) : ncurves
krows = (ncurves + kcols - 1) / kcols
bottom = (paper ? 8.0 : 40.0) + krows * (paper ? 13.0 : 18.0)
H = panel_h * nrows + top + bottom
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
			print 'measured-budget.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT

colof(c) = ccolor[c]
ptof(c) = cmarker[c]
curve(p, c) = sprintf('%s/p%d-c%d.tsv', DATA, p, c)
# the measured curve drawn thickest, under the others
lwof(c) = sk * ((c == 1) ? 2.6 : 1.4)
step = (vmax > 40) ? 10 : (vmax > 16) ? 5 : (vmax > 6) ? 2 : 1
yhi = step * ceil(vmax * 1.06 / step)
pad = (xhi > xlo) ? 0.06 * (xhi - xlo) : 0.5

title_h = top / H
legend_h = bottom / H
pw = 1.0 / ncols
ph = (1.0 - title_h - legend_h) / nrows
set multiplot
keyfont = paper ? ',8' : ',9'
titlefont = paper ? ',9' : ',13'
set label 999 figtitle at screen 0.5, screen 1 - top / 2 / H center font titlefont
set xrange [xlo - pad:xhi + pad]
set yrange [0:yhi]
set grid back lc rgb '#e0e0e0'
set xlabel (paper ? 'budget (GB)' : 'memory budget (GB, 10^9 bytes)')
xstep = paper ? 4 : 2
ystep = paper ? ((vmax > 30) ? 20 : (vmax > 12) ? 10 : 2) : ((vmax > 30) ? 10 : (vmax > 12) ? 5 : 1)
set xtics xstep
set ytics 0, ystep
# the same margins in every panel, and the y label once along the left edge
set lmargin (paper ? 5 : 8)
set rmargin (paper ? 1 : 2)
set label 998 (paper ? 'remat (%)' : 'remat overhead (% of compute)') \
	at screen (paper ? 7.0 : 12.0) / W, screen legend_h + (1 - title_h - legend_h) / 2 center rotate by 90
do for [p = 1:npanels] {
	set origin ((p - 1) % ncols) * pw, legend_h + (nrows - 1 - (p - 1) / ncols) * ph
	set size pw, ph
	set title ptitle[p]
	unset key
	# the heuristics first, the measured runs on top (open markers)
	plot for [c = 2:ncurves] curve(p, c) using 1:2 with linespoints lw lwof(c) pt ptof(c) \
		ps 1.1 * sk lc rgb colof(c) notitle, \
	     for [c = 2:ncurves] curve(p, c) using 1:2:3:4 with yerrorbars pt ptof(c) ps 1.1 * sk \
		lw 1.0 * sk lc rgb colof(c) notitle, \
	     curve(p, 1) using 1:2 with linespoints lw lwof(1) pt ptof(1) ps 1.6 * sk \
		lc rgb colof(1) notitle
	unset label 999
	unset label 998
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
set xrange [0:1]
set yrange [0:1]
set key at screen 0.5, screen legend_h - 4.0 / H center top horizontal maxrows krows \
	samplen 2.5 spacing 1.1 font keyfont
plot for [c = 1:ncurves] NaN with linespoints lw lwof(c) pt ptof(c) ps 1.1 * sk lc rgb colof(c) \
	title clabel[c]
unset multiplot
