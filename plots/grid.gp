# grid.gp: the panel grid shared by the experiment figures (pareto.gp,
# ablation.gp, banishing.gp, accesses.gp load it after setting their
# style). Not run directly.
#
# Reads DATA/figure.gp (written by `rematsim plot`: panel titles and
# descriptions, regions, y range, curve labels, colours and markers from the
# heuristics' registry rows, failure lines) and DATA/pP-cC*.tsv, one set per
# panel P and curve C (cmarked[C]: a static planner's plans, drawn as
# dashed marked points instead of steps). Expects from the caller: DATA, OUT, ylabel_text,
# regions (shade impossible memory), baseline (dashed line at y = 1),
# fail_lines (vertical lines where a curve starts), optionally subtitle
# (a sentence under the title: why a reader would care), SIZE (the third argument
# of the script): 'full' (7 in wide, the default) or 'column'
# (3.35 in) for PDF and SVG, with 8 pt text (9 pt titles) at that size; PNG
# is a large figure for screens. When the sweep ran with --fit, figure.gp
# also has fit.tsv's marks (fit_x, fit_to, fit_lane, any_fit), drawn on the
# x axis of every panel and explained in the legend. Planners (cmarked)
# are drawn as their Pareto frontier, the plans it dominates as faint
# markers (pP-cC-faint.tsv, any_faint); with heuristics_at_plan_peaks, the
# heuristics' points at plan peaks are ringed (pP-cC-peaks.tsv, any_peaks).
# pfloor (models.tsv's floor_ratio) is drawn as a hatched band beside the
# constants.

load DATA.'/figure.gp'

ext = OUT[strlen(OUT)-3:strlen(OUT)]
# (load resets ARGC: the calling script sets SIZE from its third argument)
if (!exists('SIZE')) { SIZE = 'full' }
if (SIZE ne 'full' && SIZE ne 'column') {
	print 'grid.gp: the size must be full or column: '.SIZE
	exit status 2
}
screen = (ext eq '.png')
# Units: pixels for PNG, points (1/72 in) for PDF and SVG.
if (screen) {
	maxcols = 4; fsz = 10; line = 16; dlines = desc_lines
	charw = 7.5; samp = 30; left = 26; right = 8
} else {
	maxcols = (SIZE eq 'column') ? 2 : 4; fsz = 8; line = 10; dlines = desc_lines_print
	charw = 6.0; samp = 18; left = 12
	right = (SIZE eq 'column') ? 10 : 4
}
ncols = (npanels < maxcols) ? npanels : maxcols
ncols = (ncols < 1) ? 1 : ncols
nrows = int((npanels + ncols - 1) / ncols)
nrows = (nrows < 1) ? 1 : nrows
if (screen) {
	W = 360.0 * ncols + left + right
	W = (W < 560) ? 560.0 : W  # (a float: pw_u / W below must not divide integers)
} else {
	W = (SIZE eq 'column') ? 241.0 : 504.0
}
pw_u = (W - left - right) / ncols
# a panel: its plot, about 3:4, under a title of 1 + dlines lines (margins
# in character heights, about one `line`)
tm = 1.9 + 1.15 * dlines
bm = 2.0
# (a character height is about 1.5 times the font size on the cairo terminals)
chh = 1.5 * fsz
ph_u = (screen ? 230 : pw_u * 0.72) + chh * (tm + bm)
# a title too long for the width breaks after its colon (its first line:
# lines after a line break of its own, as the gap figure's, stay)
tl1 = strstrt(figtitle, "\n") > 0 ? figtitle[1:strstrt(figtitle, "\n") - 1] : figtitle
if (strlen(tl1) * charw * 1.1 > W && strstrt(tl1, ': ') > 0) {
	i = strstrt(figtitle, ': ')
	figtitle = figtitle[1:i]."\n".figtitle[i+2:strlen(figtitle)]
}
title_lines = 1
tl1 = figtitle
while (strstrt(tl1, "\n") > 0) {
	title_lines = title_lines + 1
	tl1 = tl1[strstrt(tl1, "\n") + 1:strlen(tl1)]
}

# about how many characters of text fit across the figure
chars = int((W - 8) / charw)
# A subtitle (the calling script's `subtitle`, plain text without line
# breaks): one sentence on why a reader would care, under the title in a
# font a point smaller, broken at spaces to the figure's width.
sub_lines = 0
if (exists('subtitle') && strlen(subtitle) > 0) {
	sub_chars = int(chars * 1.15)
	sub_rest = subtitle; sub_text = ''; sub_cur = ''
	while (strlen(sub_rest) > 0) {
		i = strstrt(sub_rest, ' ')
		sub_w = (i > 0) ? sub_rest[1:i - 1] : sub_rest
		sub_rest = (i > 0) ? sub_rest[i + 1:strlen(sub_rest)] : ''
		if (strlen(sub_cur) > 0 && strlen(sub_cur) + 1 + strlen(sub_w) > sub_chars) {
			sub_text = sub_text.(sub_lines ? "\n" : '').sub_cur
			sub_lines = sub_lines + 1
			sub_cur = sub_w
		} else {
			sub_cur = sub_cur.(strlen(sub_cur) ? ' ' : '').sub_w
		}
	}
	sub_text = sub_text.(sub_lines ? "\n" : '').sub_cur
	sub_lines = sub_lines + 1
}
# The legend: one entry per curve and per failure style shown, each a
# sample line (with the marker) and its text. Curves first, as wide as the
# longest label, then the failure styles on rows of their own.
key_line = line * 1.45
show_oom = fail_lines && any_oom
show_thrash = fail_lines && any_thrash
# fit.tsv's marks: a tick at the smallest passing ratio, a hatched bar
# where feasibility is not monotone
show_fit = exists('any_fit') ? any_fit : 0
show_fitr = exists('any_fit_range') ? any_fit_range : 0
# dominated plans (faint), heuristics at plan peaks (ringed)
show_faint = exists('any_faint') ? any_faint : 0
show_peaks = exists('any_peaks') ? any_peaks : 0
# (figures with planners or points at plan peaks draw those marks)
marks = exists('any_faint') || exists('any_peaks')
# a curve of several trials (the random heuristic) has a shaded min-max
# band: said in the legend, in its colour when it is the only one
show_band = 0
band_of = 0
if (exists('cband')) {
	do for [c = 1:ncurves] {
		if (cband[c] && !cmarked[c]) { show_band = show_band + 1; band_of = c }
	}
}
band_col = (show_band == 1) ? ccolor[band_of] : '#404040'
show_band = (show_band > 0)
nfail = show_oom + show_thrash + show_fit + show_fitr + show_faint + show_peaks + show_band
kcc = (key_chars > 6) ? key_chars : 6
key_wc = samp + 8 + kcc * charw
key_wf = samp + 8 + 21 * charw
per_row_c = int((W - 10) / key_wc)
per_row_c = (per_row_c < 1) ? 1 : per_row_c
per_row_f = int((W - 10) / key_wf)
per_row_f = (per_row_f < 1) ? 1 : per_row_f
rows_c = int((ncurves + per_row_c - 1) / per_row_c)
rows_f = int((nfail + per_row_f - 1) / per_row_f)
key_rows = rows_c + rows_f

# The caption: what the lines, regions and lone markers mean.
sep = (chars < 80) ? "\n" : '; '
caption = ''
ncap = 0
if (fail_lines && (any_oom || any_thrash)) {
	caption = 'vertical line: where a curve starts passing'; ncap = 1
}
if (regions) {
	caption = caption.(ncap ? sep : '').'black: constants; grey: plus the largest op'
	ncap = ncap + 1
}
# The floor (models.tsv's floor_ratio): what a replay holds pinned at the
# end, constants and the outputs still held; no budget below it passes.
# A hatched band from the constants (0 without regions) up to it, in the
# panels where it is above them.
show_floor = 0
if (exists('pfloor')) {
	do for [p = 1:npanels] {
		if (pfloor[p] > (regions ? pconst[p] : 0) * 1.0001) { show_floor = 1 }
	}
}
if (show_floor) {
	caption = caption.(ncap ? sep : '').'hatched: pinned at the end (the floor)'
	ncap = ncap + 1
}
if (any_lone) {
	caption = caption.(ncap ? sep : '').'lone marker: passes at that ratio only'
	ncap = ncap + 1
}
cap_lines = (ncap == 0) ? 0 : ((chars < 80) ? ncap : 1 + (strlen(caption) > chars))
if (chars >= 80 && strlen(caption) > chars) {
	# too long for one line: break after the first part
	i = strstrt(caption, '; ')
	caption = caption[1:i-1]."\n".caption[i+2:strlen(caption)]
}

title_h = line * (0.8 + 1.2 * title_lines) + (sub_lines ? line * (0.3 + 1.05 * sub_lines) : 0)
legend_h = key_line * key_rows + line * 0.8
xlab_h = line * 1.4
cap_h = line * cap_lines + (cap_lines ? line * 0.4 : 0)
# Print sizes fit a page: at most 9 in (648 pt) tall. More rows of panels
# go on further pages of the PDF, or further SVG files (OUT less its .svg,
# then -2.svg, -3.svg ...), each with the title, legend and labels.
rows_pp = nrows
if (!screen) {
	rows_pp = int((648 - title_h - legend_h - xlab_h - cap_h) / ph_u)
	rows_pp = (rows_pp < 1) ? 1 : (rows_pp > nrows) ? nrows : rows_pp
}
pages = int((nrows + rows_pp - 1) / rows_pp)
H = title_h + legend_h + rows_pp * ph_u + xlab_h + cap_h

if (ext eq '.png') {
	set terminal pngcairo size W, H enhanced font 'Sans,10' fontscale 1.0
} else {
	if (ext eq '.pdf') {
		set terminal pdfcairo size W / 72.0, H / 72.0 enhanced font 'Sans,8' fontscale 1.0
	} else {
		if (ext eq '.svg') {
			set terminal svg size W, H dynamic enhanced font 'Sans,8' fontscale 1.0
		} else {
			print 'grid.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT

# The failure lines' styles, one pattern on every terminal (the
# terminals' own dash types differ): dotted for OOM, dashed for thrash.
set dashtype 11 (2, 5)
set dashtype 12 (14, 8)
colof(c) = ccolor[c]
ptof(c) = cmarker[c]
# the colour, mostly transparent: a dominated plan
faintof(c) = '#A0'.ccolor[c][2:7]
# (an empty list still evaluates the body of 'for [i = 1:0]' once)
cof(p, i) = (word(pcurves[p], i) eq '' ? 1 : word(pcurves[p], i) + 0)
curve(p, c, kind) = sprintf('%s/p%d-c%d%s.tsv', DATA, p, c, kind)
ps_end = screen ? 1.2 : 0.6
ps_ring = screen ? 1.9 : 1.0
lw_curve = screen ? 2 : 1.2
# a lane of fit marks: 14 px or 7 pt of the plot's height, in graph units
lane_h = screen ? 14.0 / 230 : 7.0 / (pw_u * 0.72)
lw_tick = screen ? 3 : 2.5

do for [pg = 1:pages] {
if (pg > 1 && ext eq '.svg') {
	set output OUT[1:strlen(OUT) - 4].sprintf('-%d.svg', pg)
}
# this page's panels and rows
pfirst = (pg - 1) * rows_pp * ncols + 1
plast = pg * rows_pp * ncols
plast = (plast > npanels) ? npanels : plast
prows = int((plast - pfirst + ncols) / ncols)
# Panels are placed by hand (not `layout`) so that the legend runs under the
# figure title and the axis labels are shared by all panels.
set multiplot
set label 999 figtitle at screen 0.5, screen 1 - (line * 0.9) / H center font sprintf(',%d', fsz + 1)
if (sub_lines > 0) {
	set label 993 sub_text at screen 0.5, screen 1 - (line * (0.9 + 1.2 * title_lines)) / H \
		center noenhanced font sprintf(',%d', fsz - 1) tc rgb '#404040'
}
if (pages > 1) {
	# which page, in the top right corner
	set label 994 sprintf('%d/%d', pg, pages) at screen (W - 3) / W, screen 1 - (line * 0.9) / H \
		right font sprintf(',%d', fsz - 1)
}
set label 997 ylabel_text at screen (left * 0.45) / W, \
	screen (xlab_h + cap_h + (rows_pp - prows / 2.0) * ph_u) / H center rotate by 90
set label 996 xlabel_text at screen (left + (W - left - right) / 2) / W, \
	screen (cap_h + xlab_h * 0.45) / H center
if (cap_lines > 0) {
	set label 995 caption at screen 0.5, screen (cap_h - line * 0.5) / H center font sprintf(',%d', fsz - (screen ? 1 : 0))
}
set xrange [0:xrange_hi]
xtic_step = (xrange_hi > 2.2 || pw_u < 150) ? 0.5 : 0.2
set xtics 0, xtic_step
set mxtics 2
unset xlabel
unset ylabel
set grid back lc rgb '#e0e0e0'
set lmargin (screen ? 7 : 5.5)
set rmargin 1
set bmargin bm
set tmargin tm
if (ylog) {
	set logscale y
	set format y '10^{%T}'
} else {
	unset logscale y
	set format y '%g'
}
set yrange [yrange_lo:yrange_hi]
set style fill transparent solid 0.2 noborder

do for [p = pfirst:plast] {
	col = (p - 1) % ncols
	row = (p - pfirst) / ncols
	set origin (left + col * pw_u) / W, (xlab_h + cap_h + (rows_pp - 1 - row) * ph_u) / H
	set size pw_u / W, ph_u / H
	# (print: 7 pt panel titles, so that four panels a row keep their
	# titles apart on a 7 in page)
	set title sprintf("{/:Bold %s}\n%s", ptitle[p], screen ? pdesc[p] : pdescn[p]) \
		font (screen ? '' : ',7')
	unset key
	unset object
	unset arrow
	if (regions) {
		set object 1 rect from first 0, graph 0 to first pconst[p], graph 1 \
			back fc rgb 'black' fs solid 1.0 noborder
		set object 2 rect from first pconst[p], graph 0 to first pbottle[p], graph 1 \
			back fc rgb '#b8b8b8' fs solid 1.0 noborder
	}
	if (show_floor) {
		fl0 = regions ? pconst[p] : 0
		if (pfloor[p] > fl0 * 1.0001) {
			set object 3 rect from first fl0, graph 0 to first pfloor[p], graph 1 \
				back fc rgb '#8b1a1a' fs transparent pattern 4 border lc rgb '#8b1a1a' lw 1
		}
	}
	if (baseline) {
		set arrow 100 from graph 0, first 1 to graph 1, first 1 nohead dt 2 lc rgb 'black' lw 1 back
	}
	if (fail_lines) {
		do for [c = 1:ncurves] {
			k = (p - 1) * ncurves + c
			if (fail_kind[k] > 0) {
				dash = (fail_kind[k] == 1 ? 11 : 12)
				x = fail_x[k] + fail_shift[k]
				set arrow c from first x, graph 0 to first x, graph 1 \
					nohead lc rgb colof(c) lw (screen ? 1.5 : 1) dt dash front
			}
		}
	}
	if (show_fit) {
		do for [c = 1:ncurves] {
			k = (p - 1) * ncurves + c
			if (fit_x[k] > 0) {
				y0 = fit_lane[k] * lane_h
				if (fit_to[k] > 0) {
					set object 300 + c rect from first fit_x[k], graph y0 + 0.15 * lane_h \
						to first fit_to[k], graph y0 + 0.85 * lane_h front \
						fc rgb colof(c) fs transparent pattern 5 border lc rgb colof(c) lw 1
				}
				set arrow 300 + c from first fit_x[k], graph y0 to first fit_x[k], \
					graph y0 + lane_h nohead lc rgb colof(c) lw lw_tick front
			}
		}
	}
	n = words(pcurves[p])
	if (n > 0 && !marks) {
		plot NaN notitle, \
			for [i = 1:n] curve(p, cof(p, i), '-band') using 1:2:3 \
				with filledcurves fc rgb colof(cof(p, i)) notitle, \
			for [i = 1:n] curve(p, cof(p, i), '') using 1:(cmarked[cof(p, i)] ? NaN : $2) \
				with steps lc rgb colof(cof(p, i)) lw lw_curve notitle, \
			for [i = 1:n] curve(p, cof(p, i), '-ends') using 1:(cmarked[cof(p, i)] ? NaN : $2) \
				with points lc rgb colof(cof(p, i)) pt ptof(cof(p, i)) ps ps_end notitle, \
			for [i = 1:n] curve(p, cof(p, i), '') using 1:(cmarked[cof(p, i)] ? $2 : NaN) \
				with linespoints lc rgb colof(cof(p, i)) lw lw_curve dt 12 \
				pt ptof(cof(p, i)) ps ps_end notitle
	}
	if (n > 0 && marks) {
		# the same, and the dominated plans (faint) and the points at plan peaks (ringed)
		plot NaN notitle, \
			for [i = 1:n] curve(p, cof(p, i), '-band') using 1:2:3 \
				with filledcurves fc rgb colof(cof(p, i)) notitle, \
			for [i = 1:n] curve(p, cof(p, i), '') using 1:(cmarked[cof(p, i)] ? NaN : $2) \
				with steps lc rgb colof(cof(p, i)) lw lw_curve notitle, \
			for [i = 1:n] curve(p, cof(p, i), '-ends') using 1:(cmarked[cof(p, i)] ? NaN : $2) \
				with points lc rgb colof(cof(p, i)) pt ptof(cof(p, i)) ps ps_end notitle, \
			for [i = 1:n] curve(p, cof(p, i), '') using 1:(cmarked[cof(p, i)] ? $2 : NaN) \
				with linespoints lc rgb colof(cof(p, i)) lw lw_curve dt 12 \
				pt ptof(cof(p, i)) ps ps_end notitle, \
			for [i = 1:n] curve(p, cof(p, i), cmarked[cof(p, i)] ? '-faint' : '-ends') \
				using 1:(cmarked[cof(p, i)] ? $2 : NaN) \
				with points lc rgb faintof(cof(p, i)) pt ptof(cof(p, i)) ps ps_end notitle, \
			for [i = 1:n] curve(p, cof(p, i), show_peaks && !cmarked[cof(p, i)] ? '-peaks' : '-ends') \
				using 1:(show_peaks && !cmarked[cof(p, i)] ? $2 : NaN) \
				with points lc rgb colof(cof(p, i)) pt 6 ps ps_ring notitle
	}
	if (n == 0) {
		# No curve passed anywhere in this panel: draw the frame alone.
		set label 998 'no ratio passed' at graph 0.5, graph 0.5 center
		plot NaN notitle
		unset label 998
	}
	unset label 999
	unset label 993
	unset label 994
	unset label 997
	unset label 996
	unset label 995
}

# The legend, drawn by hand (gnuplot's key packs entries by its own
# estimate of their width): a row of entries under the figure title.
set origin 0, 0
set size 1, 1
set lmargin 0
set rmargin 0
set tmargin 0
set bmargin 0
unset object
unset arrow
unset title
unset tics
unset grid
set border 0
unset logscale y
set xrange [0:1]
set yrange [0:1]
lim_text = (overhead_limit > 0) ? sprintf('thrash (> %g×) below', overhead_limit) : 'thrash below'
nc_row = (ncurves < per_row_c) ? ncurves : per_row_c
nf_row = (nfail < per_row_f) ? nfail : per_row_f
do for [e = 1:ncurves + nfail] {
	if (e <= ncurves) {
		kx = (W - nc_row * key_wc) / 2 + ((e - 1) % per_row_c) * key_wc
		krow = (e - 1) / per_row_c
	} else {
		kx = (W - nf_row * key_wf) / 2 + ((e - ncurves - 1) % per_row_f) * key_wf
		krow = rows_c + (e - ncurves - 1) / per_row_f
	}
	ky = H - title_h - key_line * (krow + 0.5)
	ta = 200 + e
	which = 0
	tb = 400 + e
	if (e <= ncurves) {
		kdt = cmarked[e] ? 12 : 1
		set arrow ta from screen kx / W, screen ky / H to screen (kx + samp) / W, \
			screen ky / H nohead lc rgb colof(e) lw lw_curve dt kdt
		set label ta '' at screen (kx + samp / 2) / W, screen ky / H \
			point pt ptof(e) lc rgb colof(e) ps ps_end
		set label tb clabel[e] at screen (kx + samp + 4) / W, screen ky / H left
	} else {
		# which: 1 out of memory, 2 thrash, 3 fit tick, 4 fit bar, 5 a
		# dominated plan, 6 at a plan's peak, 7 the trials' band (those shown)
		j = e - ncurves
		which = 0
		cnt = 0
		do for [q = 1:7] {
			shown = (q == 1) ? show_oom : (q == 2) ? show_thrash : (q == 3) ? show_fit : \
				(q == 4) ? show_fitr : (q == 5) ? show_faint : (q == 6) ? show_peaks : show_band
			cnt = cnt + shown
			if (which == 0 && shown && cnt == j) { which = q }
		}
	}
	if (e > ncurves && which == 7) {
		set object ta rect from screen (kx + 2) / W, screen (ky - line * 0.35) / H \
			to screen (kx + samp - 2) / W, screen (ky + line * 0.35) / H \
			fc rgb band_col fs transparent solid 0.2 noborder
		set label tb 'min–max over trials' at screen (kx + samp + 4) / W, screen ky / H left
	}
	if (e > ncurves && which >= 5 && which <= 6) {
		if (which == 5) {
			set label ta '' at screen (kx + samp / 2) / W, screen ky / H \
				point pt 7 lc rgb '#A0404040' ps ps_end
			set label tb 'dominated plan' at screen (kx + samp + 4) / W, screen ky / H left
		} else {
			set label ta '' at screen (kx + samp / 2) / W, screen ky / H \
				point pt 6 lc rgb '#404040' ps ps_ring
			set label tb "at a plan's peak" at screen (kx + samp + 4) / W, screen ky / H left
		}
	}
	if (e > ncurves && which >= 3 && which <= 4) {
		if (which == 3) {
			set arrow ta from screen (kx + samp / 2) / W, screen (ky - line * 0.45) / H \
				to screen (kx + samp / 2) / W, screen (ky + line * 0.45) / H \
				nohead lc rgb '#404040' lw lw_tick
			set label tb 'smallest pass (fit)' at screen (kx + samp + 4) / W, screen ky / H left
		} else {
			set object ta rect from screen (kx + 2) / W, screen (ky - line * 0.3) / H \
				to screen (kx + samp - 2) / W, screen (ky + line * 0.3) / H \
				fc rgb '#404040' fs transparent pattern 5 border lc rgb '#404040' lw 1
			set label tb 'fails again (fit)' at screen (kx + samp + 4) / W, screen ky / H left
		}
	}
	if (e > ncurves && which >= 1 && which <= 2) {
		oom = (which == 1)
		kdash = oom ? 11 : 12
		# (two colours: the svg terminal would draw both samples as one
		# path, with the first one's dashes)
		set arrow ta from screen kx / W, screen ky / H to screen (kx + samp) / W, \
			screen ky / H nohead lc rgb (oom ? '#505050' : '#404040') lw lw_curve dt kdash
		ktext = oom ? 'out of memory below' : lim_text
		set label tb ktext at screen (kx + samp + 4) / W, screen ky / H left
	}
}
plot NaN notitle
unset multiplot
}
