# snapshot.gp: allocated and reserved memory over a PyTorch memory
# snapshot's trace, as PyTorch's memory viz draws them: the bytes of live
# blocks (those allocated before the trace included) and of the segments
# the caching allocator holds, after each trace entry; the gap between
# them is fragmentation. Reads DIR/memory.tsv from
# `rematsim snapshot FILE.pickle --out DIR` (columns entry, time_us,
# allocated, reserved, between `#` lines).
#
#   rematsim snapshot FILE.pickle --out DIR && rematsim plot DIR
#   gnuplot -c plots/snapshot.gp DIR OUT.png|OUT.pdf|OUT.svg [full|column]
if (ARGC < 2) {
	print 'usage: gnuplot -c snapshot.gp DIR OUT_FILE [full|column]'
	exit status 2
}
DATA = ARG1.'/memory.tsv'
OUT = ARG2
SIZE = (ARGC >= 3) ? ARG3 : 'full'
if (SIZE ne 'full' && SIZE ne 'column') {
	print 'snapshot.gp: the size must be full or column: '.SIZE
	exit status 2
}
W = (SIZE eq 'column') ? 3.35 : 7

ext = OUT[strlen(OUT)-3:strlen(OUT)]
if (ext eq '.png') {
	set terminal pngcairo size 900, 450 enhanced font 'Sans,10'
} else {
	if (ext eq '.pdf') {
		set terminal pdfcairo size W, W * 0.46 enhanced font 'Sans,8' fontscale 1.0
	} else {
		if (ext eq '.svg') {
			set terminal svg size W * 72, W * 72 * 0.46 dynamic enhanced font 'Sans,8' fontscale 1.0
		} else {
			print 'snapshot.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT
set datafile separator '\t'
set datafile commentschars '#'

# Units from the data: KiB, MiB or GiB.
stats DATA using 4 nooutput
top = STATS_max
div = (top >= 2**30) ? 2**30 : (top >= 2**20) ? 2**20 : 2**10
unit = (div == 2**30) ? 'GiB' : (div == 2**20) ? 'MiB' : 'KiB'

set title 'allocated and reserved memory over the trace'
set xlabel 'trace entry'
set ylabel sprintf('memory (%s)', unit)
set grid back lc rgb '#e0e0e0'
set key top left reverse Left opaque
set yrange [0:*]
set style fill solid 0.35 noborder
plot DATA every ::1 using 1:($4 / div) with filledcurves x1 lc rgb '#fdae6b' title 'reserved (segments)', \
	'' every ::1 using 1:($3 / div) with filledcurves x1 lc rgb '#6baed6' title 'allocated (live blocks)', \
	'' every ::1 using 1:($4 / div) with steps lc rgb '#e6550d' lw 1.5 notitle, \
	'' every ::1 using 1:($3 / div) with steps lc rgb '#08519c' lw 1.5 notitle
