# replay-device.gp: one replay's memory as the device holds it, from the
# TSV that `rematsim replay LOG ... --allocator pytorch[:CONF] --timeline
# FILE` writes (columns clock memory event op storage budget line bytes
# device_allocated reserved): the bytes the replay counts (its live
# storages, as the DTR paper counts them), the bytes of the caching
# allocator's blocks holding them (rounded) and the bytes of its segments
# (reserved), over simulated time, with the budget dashed. The gap between
# reserved and allocated is fragmentation (docs/allocator.md).
#
#   gnuplot -c plots/replay-device.gp TIMELINE.tsv OUT.png|OUT.pdf|OUT.svg [TITLE]
if (ARGC < 2) {
	print 'usage: gnuplot -c replay-device.gp TIMELINE.tsv OUT_FILE [TITLE]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
TITLE = (ARGC >= 3) ? ARG3 : 'memory as the device holds it'

ext = OUT[strlen(OUT)-3:strlen(OUT)]
if (ext eq '.png') {
	set terminal pngcairo size 1000, 450 enhanced font 'Sans,10'
} else {
	if (ext eq '.pdf') {
		set terminal pdfcairo size 7, 3 enhanced font 'Sans,8' fontscale 1.0
	} else {
		if (ext eq '.svg') {
			set terminal svg size 504, 216 dynamic enhanced font 'Sans,8' fontscale 1.0
		} else {
			print 'replay-device.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT
set datafile separator '\t'

# The device columns are there only with --allocator.
stats DATA using 10 skip 1 nooutput
mem_max = STATS_max
stats DATA using 1 skip 1 nooutput
clk_max = STATS_max
mem_div = (mem_max >= 2**30) ? 2**30 : 2**20
mem_unit = (mem_max >= 2**30) ? 'GiB' : 'MiB'
clk_div = (clk_max >= 1e6) ? 1e6 : 1e3
clk_unit = (clk_max >= 1e6) ? 'ms' : 'µs'

set title TITLE noenhanced
set xlabel sprintf('simulated time (%s)', clk_unit)
set format x '%g'
set format y '%g'
set ylabel sprintf('memory (%s)', mem_unit)
set yrange [0:mem_max / mem_div * 1.08]
set grid back lc rgb '#e0e0e0'
set autoscale xfix
set key outside top center horizontal
set style fill solid 0.3 noborder
plot DATA skip 1 using ($1 / clk_div):($10 / mem_div) with fillsteps lc rgb '#fdae6b' \
		title 'reserved (segments)', \
	DATA skip 1 using ($1 / clk_div):($10 / mem_div) with steps lc rgb '#e6550d' lw 1.5 notitle, \
	DATA skip 1 using ($1 / clk_div):($9 / mem_div) with steps lc rgb '#08519c' lw 1.5 \
		title 'allocated (blocks)', \
	DATA skip 1 using ($1 / clk_div):($2 / mem_div) with steps lc rgb '#74c476' lw 1 \
		title 'live bytes (the replay)', \
	DATA skip 1 using ($1 / clk_div):(($6 < 1e18) ? $6 / mem_div : NaN) with lines \
		dt 2 lc rgb 'black' lw 1.5 title 'budget'
