# profile.gp: the cumulative forward activations of a log, as the layer
# memory tracker's figure draws them: the running sum of each forward op's
# activations (bars: each op's own), from what `rematsim profile LOG`
# prints (TSV: index op line bytes cumulative, between `#` lines). With a
# split list, dashed lines mark a plan's split points.
#
#   rematsim profile LOG > profile.tsv
#   gnuplot -c plots/profile.gp profile.tsv OUT.png|OUT.pdf|OUT.svg [TITLE] ["SPLITS"]
# SPLITS: forward-op indices separated by blanks, e.g. the split_points of
# `rematsim solve LOG --planner dp -k 4`.
if (ARGC < 2) {
	print 'usage: gnuplot -c profile.gp PROFILE.tsv OUT_FILE [TITLE] ["SPLITS"]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
TITLE = (ARGC >= 3 && ARG3 ne '') ? ARG3 : 'cumulative forward activations'
SPLITS = (ARGC >= 4) ? ARG4 : ''

ext = OUT[strlen(OUT)-3:strlen(OUT)]
if (ext eq '.png') {
	set terminal pngcairo size 900, 450 enhanced font 'Sans,10'
} else {
	if (ext eq '.pdf') {
		set terminal pdfcairo size 7, 3.2 enhanced font 'Sans,8' fontscale 1.0
	} else {
		if (ext eq '.svg') {
			set terminal svg size 504, 230 dynamic enhanced font 'Sans,8' fontscale 1.0
		} else {
			print 'profile.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT
set datafile separator '\t'
set datafile commentschars '#'

# Units from the data: KiB, MiB or GiB.
stats DATA using 5 nooutput
top = STATS_max
n_ops = STATS_records
div = (top >= 2**30) ? 2**30 : (top >= 2**20) ? 2**20 : 2**10
unit = (div == 2**30) ? 'GiB' : (div == 2**20) ? 'MiB' : 'KiB'

set title TITLE
set xlabel 'forward op (index, log order)'
set ylabel sprintf('activations (%s)', unit)
set grid back lc rgb '#e0e0e0'
set key top left
set xrange [-0.5:n_ops - 0.5]
set yrange [0:*]
set style fill solid 0.6 noborder
set boxwidth 0.8 relative
do for [i = 1:words(SPLITS)] {
	x = word(SPLITS, i) - 0.5
	set arrow i from first x, graph 0 to first x, graph 1 nohead dt 2 lc rgb '#d62728' lw 1.2 back
}
plot DATA using 1:($4 / div) with boxes lc rgb '#9ecae1' title 'this op', \
	'' using 1:($5 / div) with histeps lc rgb '#1f77b4' lw 2 title 'running sum', \
	(words(SPLITS) > 0 ? NaN : NaN) with lines dt 2 lc rgb '#d62728' \
	title (words(SPLITS) > 0 ? 'split points' : '')
