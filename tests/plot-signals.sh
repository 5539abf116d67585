#!/bin/sh
# plot-signals.sh REMATSIM: a signal that ends `rematsim plot` while
# gnuplot draws ends gnuplot too, and leaves no temporary figure (issue 40,
# H5). Before: gnuplot went on as an orphan and wrote NAME.tmp-PID.png
# after rematsim had removed it. Exits 77 (skipped) without gnuplot or
# pgrep.
set -u
R=$1
. "$(dirname "$0")/cli-lib.sh"
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }
command -v pgrep >/dev/null 2>&1 || { echo "no pgrep: skipped"; exit 77; }
T="${TMPDIR:-/tmp}/plot-signals.$$"
mkdir -p "$T"
trap 'rm -rf "$T"' EXIT
{
	echo "experiment: many"
	echo "models:"
	echo "  - {name: a, gen: linear, n: 40}"
	echo "  - {name: b, gen: residual, blocks: 5}"
	echo "  - {name: c, gen: unet, depth: 3}"
	echo "heuristics: [DTR, DTREqClass, MSPS, LRU, LargestStorage]"
	echo "ratios: [0.2, 0.4, 0.6, 0.8, 1.0]"
	echo "trials: 2"
} > "$T/e.yaml"
"$R" sweep "$T/e.yaml" --out "$T/res" --quiet >/dev/null 2>&1 || no "sweep"
# A gnuplot that waits half a second before it draws: the real one may
# draw a figure between two of the polls below (each figure a fraction
# of a second), and on a loaded CI machine all of them once did ("plot
# never ran gnuplot"). plot finds it on PATH (posix_spawnp); its process
# is named gnuplot (a script's name), and plot's SIGKILL ends it.
real_gnuplot=$(command -v gnuplot)
mkdir -p "$T/bin"
printf '#!/bin/sh\nsleep 0.5\nexec "%s" "$@"\n' "$real_gnuplot" > "$T/bin/gnuplot"
chmod +x "$T/bin/gnuplot"
for sig in TERM INT HUP; do
	rm -rf "$T/p"
	cp -r "$T/res" "$T/p"
	PATH="$T/bin:$PATH" env --default-signal=INT,HUP "$R" plot "$T/p" >/dev/null 2>&1 &
	p=$!
	# (SIGINT and SIGHUP at their defaults: a background job ignores the
	# first, and a run under nohup the second, which plot then keeps)
	# wait (up to 20 s) for a gnuplot of its own, then signal rematsim alone
	g=
	i=0
	while [ -z "$g" ] && [ $i -lt 400 ] && kill -0 $p 2>/dev/null; do
		g=$(pgrep -P $p gnuplot | head -n 1)
		[ -n "$g" ] || sleep 0.05
		i=$((i + 1))
	done
	[ -n "$g" ] || { no "SIG$sig: plot never ran gnuplot"; wait $p; continue; }
	kill -$sig $p
	wait $p
	st=$?
	sleep 1
	left=$(find "$T/p" -maxdepth 1 -name '*tmp*')
	if kill -0 "$g" 2>/dev/null; then
		no "SIG$sig: gnuplot $g outlives plot"
		kill -KILL "$g" 2>/dev/null
	else
		ok "SIG$sig: gnuplot ends with plot"
	fi
	case $sig in TERM) want=143 ;; INT) want=130 ;; HUP) want=129 ;; esac
	[ "$st" = $want ] && ok "SIG$sig: plot ends by it ($st)" || no "SIG$sig: status $st, wanted $want"
	[ -z "$left" ] && ok "SIG$sig: no temporary figure" || no "SIG$sig: left $left"
done
exit $fail
