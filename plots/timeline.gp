# timeline.gp: memory in use over simulated time for one replay, from the
# TSV that `rematsim replay LOG ... --timeline FILE` writes (columns: clock
# memory event op storage budget; clock in ns, memory in bytes; event is
# compute, remat, evict, drop, or backward: the row where the backward pass
# begins). Evictions and rematerializations are marked, the budget is a
# dashed line, and a dotted vertical line parts the forward pass from the
# backward pass.
#
#   gnuplot -c plots/timeline.gp TIMELINE.tsv OUT.png|OUT.pdf|OUT.svg [TITLE]
if (ARGC < 2) {
	print 'usage: gnuplot -c timeline.gp TIMELINE.tsv OUT_FILE [TITLE]'
	exit status 2
}
DATA = ARG1
OUT = ARG2
TITLE = (ARGC >= 3) ? ARG3 : 'memory timeline'

ext = OUT[strlen(OUT)-3:strlen(OUT)]
if (ext eq '.png') {
	set terminal pngcairo size 1000, 450 enhanced font 'Sans,10'
} else {
	if (ext eq '.pdf') {
		# print size: 7 in wide, 8 pt text (pdfcairo's fontscale is 0.5 unless set)
		set terminal pdfcairo size 7, 3 enhanced font 'Sans,8' fontscale 1.0
	} else {
		if (ext eq '.svg') {
			set terminal svg size 504, 216 dynamic enhanced font 'Sans,8' fontscale 1.0
		} else {
			print 'timeline.gp: the output must end in .png, .pdf or .svg: '.OUT
			exit status 2
		}
	}
}
set output OUT

# Units from the data: MiB or GiB, microseconds or milliseconds.
stats DATA using 2 skip 1 nooutput
mem_max = STATS_max
stats DATA using 6 skip 1 nooutput
mem_max = (STATS_max > mem_max && STATS_max < 1e18) ? STATS_max : mem_max
stats DATA using 1 skip 1 nooutput
clk_max = STATS_max
mem_div = (mem_max >= 2**30) ? 2**30 : 2**20
mem_unit = (mem_max >= 2**30) ? 'GiB' : 'MiB'
clk_div = (clk_max >= 1e6) ? 1e6 : 1e3
clk_unit = (clk_max >= 1e6) ? 'ms' : 'µs'
is(e) = (strcol(3) eq e)
# Where the backward pass begins (the `backward` row; none when the replay
# stopped before it, or the log has no backward op): a dotted line.
stats DATA skip 1 using (is('backward') ? $1 : 1e300) nooutput
if (STATS_min < 1e300) {
	bx = STATS_min / clk_div
	set arrow 1 from first bx, graph 0 to first bx, graph 1 nohead dt 3 lc rgb '#404040' lw 1.5 back
	set label 1 'forward ' at first bx, graph 0.04 right tc rgb '#404040'
	set label 2 ' backward' at first bx, graph 0.04 left tc rgb '#404040'
}

set title TITLE noenhanced
set xlabel sprintf('simulated time (%s)', clk_unit)
set format x '%g'
set format y '%g'
set ylabel sprintf('memory in use (%s)', mem_unit)
set yrange [0:mem_max / mem_div * 1.08]
set grid back lc rgb '#e0e0e0'
set autoscale xfix
set key outside top center horizontal
plot DATA skip 1 using ($1 / clk_div):($2 / mem_div) with steps lc rgb '#1f77b4' lw 1.5 \
		title 'memory in use', \
	DATA skip 1 using ($1 / clk_div):(($6 < 1e18) ? $6 / mem_div : NaN) with lines \
		dt 2 lc rgb 'black' lw 1.5 title 'budget', \
	DATA skip 1 using ($1 / clk_div):(is('evict') ? $2 / mem_div : NaN) with points \
		pt 2 ps 0.6 lc rgb '#d62728' title 'eviction', \
	DATA skip 1 using ($1 / clk_div):(is('remat') ? $2 / mem_div : NaN) with points \
		pt 9 ps 0.8 lc rgb '#2ca02c' title 'rematerialization'
