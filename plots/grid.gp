# grid.gp: the panel grid shared by the experiment figures (pareto.gp,
# ablation.gp, banishing.gp, accesses.gp load it after setting their
# style). Not run directly.
#
# Reads DATA/figure.gp (written by `rematsim plot`: panel titles, regions,
# curve labels, failure lines) and DATA/pP-cC*.tsv, one set per panel P and
# curve C (cmarked[C]: a static planner's plans, drawn as dashed marked
# points instead of steps). Expects from the caller: DATA, OUT, ylo, yhi,
# ylog, ylabel_text,
# regions (shade impossible memory), baseline (dashed line at y = 1),
# fail_lines (vertical lines where a curve starts). figure.gp gives
# yrange_lo and yrange_hi for log scales (the data's positive range).

load DATA.'/figure.gp'

ext = OUT[strlen(OUT)-3:strlen(OUT)]
W = 360 * ncols + 40
W = (W < 560) ? 560 : W
# The legend: about 150 px per entry, as many rows as that takes.
key_per_row = int((W - 40) / 150)
key_per_row = (key_per_row < 1) ? 1 : key_per_row
key_rows = int((ncurves + key_per_row - 1) / key_per_row)
H = 330 * nrows + 80 + 17 * key_rows
if (ext eq '.png') {
	set terminal pngcairo size W, H enhanced font 'Sans,10'
} else {
	if (ext eq '.pdf') {
		set terminal pdfcairo size W / 110.0, H / 110.0 enhanced font 'Sans,7'
	} else {
		if (ext eq '.svg') {
			set terminal svg size W, H dynamic enhanced font 'Sans,10'
		} else {
			print 'grid.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT

array colors[16] = ['#1f77b4', '#d62728', '#2ca02c', '#9467bd', '#ff7f0e', '#8c564b', \
	'#e377c2', '#17becf', '#7f7f7f', '#bcbd22', '#393b79', '#637939', '#8c6d31', \
	'#843c39', '#7b4173', '#3182bd']
array ptypes[16] = [7, 5, 9, 11, 13, 15, 4, 6, 8, 10, 12, 14, 1, 2, 3, 7]
colof(c) = colors[(c - 1) % 16 + 1]
ptof(c) = ptypes[(c - 1) % 16 + 1]
# (an empty list still evaluates the body of 'for [i = 1:0]' once)
cof(p, i) = (word(pcurves[p], i) eq '' ? 1 : word(pcurves[p], i) + 0)
curve(p, c, kind) = sprintf('%s/p%d-c%d%s.tsv', DATA, p, c, kind)

# Panels are placed by hand (not `layout`) so that a last, full-width
# plot can carry the legend, one row under the figure title.
title_h = 28.0 / H
legend_h = (14.0 + 17 * key_rows) / H
pw = 1.0 / ncols
ph = (1.0 - title_h - legend_h) / nrows
set multiplot
set label 999 figtitle at screen 0.5, screen 1 - 14.0 / H center font ',13'
set xrange [0:1.1]
set xtics 0.2
set mxtics 2
set xlabel 'memory ratio (budget / baseline peak)'
set ylabel ylabel_text
set grid back lc rgb '#e0e0e0'
if (ylog) {
	set logscale y
	set format y '10^{%T}'
	set yrange [yrange_lo:yrange_hi]
} else {
	unset logscale y
	set yrange [ylo:yhi]
}
set style fill transparent solid 0.2 noborder

do for [p = 1:npanels] {
	set origin ((p - 1) % ncols) * pw, (nrows - 1 - (p - 1) / ncols) * ph
	set size pw, ph
	set title sprintf("%s\n{/*0.85 %s}", ptitle[p], pdesc[p])
	unset key
	unset object
	unset arrow
	if (regions) {
		set object 1 rect from first 0, graph 0 to first pconst[p], graph 1 \
			back fc rgb 'black' fs solid 1.0 noborder
		set object 2 rect from first pconst[p], graph 0 to first pbottle[p], graph 1 \
			back fc rgb '#b8b8b8' fs solid 1.0 noborder
	}
	if (baseline) {
		set arrow 100 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black' lw 1 back
	}
	if (fail_lines) {
		do for [c = 1:ncurves] {
			k = (p - 1) * ncurves + c
			if (fail_kind[k] > 0) {
				dash = (fail_kind[k] == 1 ? 3 : 2)
				set arrow c from first fail_x[k], graph 0 to first fail_x[k], graph 1 \
					nohead lc rgb colof(c) lw 1.5 dt dash front
			}
		}
	}
	n = words(pcurves[p])
	if (n > 0) {
		plot NaN notitle, \
			for [i = 1:n] curve(p, cof(p, i), '-band') using 1:2:3 \
				with filledcurves fc rgb colof(cof(p, i)) notitle, \
			for [i = 1:n] curve(p, cof(p, i), '') using 1:(cmarked[cof(p, i)] ? NaN : $2) \
				with steps lc rgb colof(cof(p, i)) lw 2 notitle, \
			for [i = 1:n] curve(p, cof(p, i), '-ends') using 1:(cmarked[cof(p, i)] ? NaN : $2) \
				with points lc rgb colof(cof(p, i)) pt ptof(cof(p, i)) ps 1.2 notitle, \
			for [i = 1:n] curve(p, cof(p, i), '') using 1:(cmarked[cof(p, i)] ? $2 : NaN) \
				with linespoints lc rgb colof(cof(p, i)) lw 1.5 dt 2 \
				pt ptof(cof(p, i)) ps 1.1 notitle
	} else {
		# No curve passed anywhere in this panel: draw the frame and legend.
		set label 998 'no ratio passed' at graph 0.5, graph 0.5 center
		plot NaN notitle
		unset label 998
	}
	unset label 999
}

# The legend: an empty full-width plot whose key lists every curve.
set origin 0, 1 - title_h - legend_h
set size 1, legend_h
unset object
unset arrow
unset title
unset xlabel
unset ylabel
unset tics
unset grid
set border 0
unset logscale y
set xrange [0:1]
set yrange [0:1]
set key center center horizontal maxcols key_per_row samplen 2.5 width 2 font ',10'
dtof(c) = cmarked[c] ? 2 : 1
lwof(c) = cmarked[c] ? 1.5 : 2
plot for [c = 1:ncurves] NaN with linespoints lc rgb colof(c) pt ptof(c) \
	lw lwof(c) dt dtof(c) title clabel[c]
unset multiplot
