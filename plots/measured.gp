# measured.gp: simulated against measured remat overhead (the DTR paper's
# Figure 4), one panel per heuristic, a point per measured run of the DTR
# prototype in its model's colour and marker, with the line y = x and a
# grey band of +-1 percentage point around it; a random heuristic's seeds
# span a vertical bar (min to max), its point the median.
#
#   gnuplot -c plots/measured.gp DATA_DIR OUT.png|OUT.pdf|OUT.svg [full|column]
# DATA_DIR: DIR/plot-data/measured, written by `rematsim plot DIR` from
# DIR/measured.tsv (`rematsim measured --out DIR`). PNG is for screens; PDF
# and SVG are at paper size (7 in full width, 3.35 in for one column),
# 8 pt text, as the other figures.
if (ARGC < 2) {
	print 'usage: gnuplot -c measured.gp DATA_DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
if (SIZE ne 'full' && SIZE ne 'column') {
	print 'measured.gp: the size must be full or column: '.SIZE
	exit status 2
}
load DATA.'/figure.gp'

ext = OUT[strlen(OUT)-3:strlen(OUT)]
paper = (ext ne '.png')
maxcols = (paper && SIZE eq 'column') ? 2 : 3
ncols = (npanels < maxcols) ? npanels : maxcols
nrows = (npanels + ncols - 1) / ncols
W = paper ? ((SIZE eq 'column') ? 241.0 : 504.0) : 400.0 * ncols + 40
panel_h = paper ? 1.1 * W / ncols : 400.0
# a title too long for a column breaks after its colon
narrow = paper && SIZE eq 'column'
if (narrow && strstrt(figtitle, ': ') > 0) {
	i = strstrt(figtitle, ': ')
	figtitle = figtitle[1:i]."\n".figtitle[i+2:strlen(figtitle)]
}
top = paper ? (narrow ? 30.0 : 20.0) : 30.0
# the legend: the band and the models, in rows of up to kcols entries
nkey = ncurves + 1
kcols = paper ? ((SIZE eq 'column') ? 1 : 3) : nkey
krows = (nkey + kcols - 1) / kcols
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
			print 'measured.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT

colof(c) = ccolor[c]
ptof(c) = cmarker[c]
curve(p, c) = sprintf('%s/p%d-c%d.tsv', DATA, p, c)
# both axes from 0 to a round value above the largest overhead
step = (vmax > 40) ? 10 : (vmax > 16) ? 5 : (vmax > 6) ? 2 : 1
vhi = step * ceil(vmax * 1.06 / step)

title_h = top / H
legend_h = bottom / H
pw = 1.0 / ncols
ph = (1.0 - title_h - legend_h) / nrows
set multiplot
keyfont = paper ? ',8' : ',9'
titlefont = paper ? ',9' : ',13'
set label 999 figtitle at screen 0.5, screen 1 - top / 2 / H center font titlefont
set xrange [0:vhi]
set yrange [0:vhi]
set size ratio -1
tstep = paper ? ((vhi > 30) ? 20 : (vhi > 12) ? 10 : (vhi > 5) ? 2 : 1) \
	       : ((vhi > 30) ? 10 : (vhi > 12) ? 5 : (vhi > 5) ? 2 : 1)
set xtics 0, tstep
set ytics 0, tstep
set grid back lc rgb '#e0e0e0'
set style fill solid 1.0 noborder
set xlabel (narrow ? 'measured (%)' : paper ? 'measured remat (%)' : 'measured remat overhead (% of compute)')
# the same margins in every panel (so that the squares line up), and the
# y label once, along the left edge
set lmargin (paper ? 6 : 8)
set rmargin (paper ? 1 : 2)
set label 998 (narrow ? 'simulated (%)' : paper ? 'simulated remat (%)' : 'simulated remat overhead (% of compute)') \
	at screen (paper ? 7.0 : 12.0) / W, screen legend_h + (1 - title_h - legend_h) / 2 center rotate by 90
do for [p = 1:npanels] {
	set origin ((p - 1) % ncols) * pw, legend_h + (nrows - 1 - (p - 1) / ncols) * ph
	set size pw, ph
	set title ptitle[p]
	unset key
	plot '+' using 1:($1 - 1):($1 + 1) with filledcurves lc rgb '#dddddd' notitle, \
	     x with lines dt 2 lw 1.5 * sk lc rgb 'black' notitle, \
	     for [c = 1:ncurves] curve(p, c) using 1:2:3:4 with yerrorbars pt ptof(c) ps 1.2 * sk \
		lw 1.2 * sk lc rgb colof(c) notitle
	unset label 999
	unset label 998
}

# The legend: an empty full-width plot along the bottom.
set origin 0, 0
set size 1, legend_h
set size noratio
unset title
unset xlabel
unset ylabel
unset tics
unset border
unset grid
set xrange [0:1]
set yrange [0:1]
set key at screen 0.5, screen legend_h - 4.0 / H center top horizontal maxrows krows \
	samplen 1.5 spacing 1.1 font keyfont
plot NaN with filledcurves lc rgb '#dddddd' title 'y = x ± 1 point', \
     for [c = 1:ncurves] NaN with points pt ptof(c) ps 1.2 * sk lw 1.2 * sk lc rgb colof(c) \
	title clabel[c]
unset multiplot
