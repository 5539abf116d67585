#!/bin/sh
# plot-figures.sh REMATSIM: `rematsim plot` and every gnuplot script of
# plots/ on sweeps of the test logs; exits 77 (skipped) without gnuplot.
# Checks that each figure is written as PNG, PDF and SVG, that the scripts
# run standalone on the data folders `rematsim plot` leaves, and what a
# reader sees, from the figures' data (figure.gp, pP-cC.tsv) and the SVG
# text: every plotted point inside the axes, one colour and marker per
# series in every figure (the registry's), distinct within a figure,
# failure styles in the legend, failure lines apart, print sizes and fonts,
# wrapped descriptions, the y range following the overhead limit, and the
# marks of `sweep --fit` (fit.tsv) at the ratios fit.tsv gives; planners as
# Pareto frontiers with their dominated plans faint, heuristics ringed at
# plan peaks, plans past the overhead limit failing, one point never
# switching the y axis to log, print figures of at most 9 in a page
# (gnuplot's own page sizes), the timeline's forward/backward marker; the
# figures of `rematsim measured --out`; and the gap figure of an experiment
# with `gap:`.
set -eu
rematsim=$1
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }
src=${REMATSIM_SOURCE:?}
data=${TEST_DATA_DIR:?}
plots=$src/plots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for e in pareto ablation banishing accesses offload; do
	sed "s|^manifest: .*|manifest: $data/manifest.json|; s|^ratios: .*|ratios: [0.2, 0.4, 0.6, 0.8, 1.0]|; s|^trials: 10|trials: 3|" \
		"$src/scripts/experiments/$e.yaml" > "$tmp/$e.yaml"
	"$rematsim" sweep -q "$tmp/$e.yaml" --out "$tmp/$e"
	"$rematsim" plot --format png,pdf,svg --plots "$plots" "$tmp/$e" > "$tmp/$e.list" 2> "$tmp/$e.err" ||
		{ cat "$tmp/$e.err" >&2; fail "rematsim plot $e"; }
	# gnuplot warnings (empty files, bad ranges) are bugs of the scripts
	[ ! -s "$tmp/$e.err" ] || { cat "$tmp/$e.err" >&2; fail "gnuplot said something for $e"; }
	while read -r f; do
		[ -s "$f" ] || fail "empty figure $f"
		case $f in
		*.png) head -c 8 "$f" | od -An -c | grep -q 'P   N   G' || fail "$f is not a PNG" ;;
		*.pdf) head -c 5 "$f" | grep -q '%PDF-' || fail "$f is not a PDF" ;;
		esac
	done < "$tmp/$e.list"
done
# The gap figure (gap.tsv: gap.gp over grid.gp), on the test logs: drawn
# by `rematsim plot` beside the Pareto figure, and checked below with the
# others.
sed "s|^manifest: .*|manifest: $data/manifest.json|; s|^ratios: .*|ratios: [0.2, 0.4, 0.6, 0.8, 1.0]|; s|^trials: 10|trials: 3|; s|^experiment: pareto|experiment: gap|" \
	"$src/scripts/experiments/pareto.yaml" > "$tmp/gap.yaml"
echo "gap: best" >> "$tmp/gap.yaml"
"$rematsim" sweep -q "$tmp/gap.yaml" --out "$tmp/gap"
"$rematsim" plot --format png,pdf,svg --plots "$plots" "$tmp/gap" > "$tmp/gap.list" 2> "$tmp/gap.err" ||
	{ cat "$tmp/gap.err" >&2; fail "rematsim plot gap"; }
[ ! -s "$tmp/gap.err" ] || { cat "$tmp/gap.err" >&2; fail "gnuplot said something for the gap figure"; }
for x in png pdf svg; do
	grep -qx "$tmp/gap/gap-gap.$x" "$tmp/gap.list" || fail "no gap-gap.$x"
done
# gaps span decades (issue 44): a log y axis from the smallest positive
# gap's decade, the floor said in the title; a model with no row to draw
# gets no panel and is named in the title
grep -qx 'ylog = 1' "$tmp/gap/plot-data/gap-gap/figure.gp" || fail "the gap figure's y axis is not log"
grep -q "log axis: a gap of .* or less (0 too) on its floor" "$tmp/gap/plot-data/gap-gap/figure.gp" ||
	fail "the gap figure's title does not say where a gap of 0 is"
m1=$(awk -F'\t' '!/^#/ && $1 != "model" { print $1; exit }' "$tmp/gap/gap.tsv")
cp -r "$tmp/gap" "$tmp/gap2"
rm -rf "$tmp/gap2/plot-data" "$tmp/gap2"/*.png "$tmp/gap2"/*.pdf "$tmp/gap2"/*.svg
awk -F'\t' -v m="$m1" 'BEGIN { OFS = "\t" } $1 == m && NF > 10 { $6 = "pass"; $7 = "-"; $13 = "-" } { print }' \
	"$tmp/gap/gap.tsv" > "$tmp/gap2/gap.tsv"
"$rematsim" plot --plots "$plots" "$tmp/gap2" > /dev/null 2> "$tmp/gap2.err" ||
	{ cat "$tmp/gap2.err" >&2; fail "rematsim plot gap2"; }
grep -qF "no result to draw for: " "$tmp/gap2/plot-data/gap-gap/figure.gp" ||
	fail "the model without a result is not named: $(grep figtitle "$tmp/gap2/plot-data/gap-gap/figure.gp")"
n1=$(grep -c '^ptitle\[' "$tmp/gap/plot-data/gap-gap/figure.gp")
n2=$(grep -c '^ptitle\[' "$tmp/gap2/plot-data/gap-gap/figure.gp")
[ "$n2" -eq $((n1 - 1)) ] || fail "panels: $n1, then $n2 with a model without a result"
gnuplot -c "$plots/gap.gp" "$tmp/gap/plot-data/gap-gap" "$tmp/g.svg" 2> "$tmp/gsvg.err"
grep -q '<svg' "$tmp/g.svg" || fail "gap.gp wrote no SVG"
[ ! -s "$tmp/gsvg.err" ] || { cat "$tmp/gsvg.err" >&2; fail "gap.gp standalone"; }

# the random heuristic's shaded band (its trials' min to max) is in the
# legend (issue 44); the ablation figures, without it, say nothing of it
grep -q 'min–max over trials' "$tmp/pareto/pareto.svg" || fail "pareto.svg: no legend entry for the band"
grep -q 'min–max over trials' "$tmp/banishing/banishing.svg" &&
	fail "banishing.svg: a band in the legend, and no curve of several trials"
grep -qx "$tmp/pareto/pareto.png" "$tmp/pareto.list" || fail "no pareto.png"
grep -qx "$tmp/pareto/pareto-accesses.pdf" "$tmp/pareto.list" || fail "no pareto-accesses.pdf"
for fam in estar eq local nocost; do
	grep -qx "$tmp/ablation/ablation-$fam.png" "$tmp/ablation.list" || fail "no ablation-$fam"
done
grep -qx "$tmp/banishing/banishing.png" "$tmp/banishing.list" || fail "no banishing.png"
grep -qx "$tmp/accesses/accesses.png" "$tmp/accesses.list" || fail "no accesses.png"
grep -qx "$tmp/offload/offload.png" "$tmp/offload.list" || fail "no offload.png"
# the accesses figures say why a reader would care (issue 44), under the
# title; the overhead figures do not
for f in "$tmp/accesses/accesses.svg" "$tmp/pareto/pareto-accesses.svg"; do
	grep -q "Why it matters: the cost of the eviction policy" "$f" || fail "$f: no subtitle"
done
! grep -q "Why it matters" "$tmp/pareto/pareto.svg" || fail "pareto.svg: the accesses subtitle"
[ "$(sed "s/\.[a-z]*$//" "$tmp/offload.list" | sort -u)" = "$tmp/offload/offload" ] || fail "offload: figures other than its own: $(cat "$tmp/offload.list")"

# Each script standalone, SVG too (terminal by extension).
gnuplot -c "$plots/pareto.gp" "$tmp/pareto/plot-data/pareto" "$tmp/p.svg" 2> "$tmp/svg.err"
grep -q '<svg' "$tmp/p.svg" || fail "pareto.gp wrote no SVG"
[ ! -s "$tmp/svg.err" ] || { cat "$tmp/svg.err" >&2; fail "pareto.gp to SVG"; }
if gnuplot -c "$plots/pareto.gp" "$tmp/pareto/plot-data/pareto" "$tmp/p.gif" 2>/dev/null; then
	fail "an unknown extension was accepted"
fi

# The timeline script on a replay's timeline.
"$rematsim" replay "$data/chain12.log" --heuristic DTR --ratio 0.5 --timeline "$tmp/tl.tsv" > /dev/null
gnuplot -c "$plots/timeline.gp" "$tmp/tl.tsv" "$tmp/tl.png" "chain12, DTR, 0.5" 2> "$tmp/tl.err" ||
	{ cat "$tmp/tl.err" >&2; fail "timeline.gp"; }
[ -s "$tmp/tl.png" ] || fail "no timeline.png"
[ ! -s "$tmp/tl.err" ] || { cat "$tmp/tl.err" >&2; fail "timeline.gp said something"; }
# the forward/backward boundary: a dotted line at the `backward` row's clock
gnuplot -c "$plots/timeline.gp" "$tmp/tl.tsv" "$tmp/tl.svg" "chain12" 2> "$tmp/tl.err" &&
	grep -q '>forward <\|> backward<' "$tmp/tl.svg" || fail "timeline.gp: no forward/backward marker"
# and none for a replay stopped before the backward pass (no row to mark)
"$rematsim" replay "$data/chain12.log" --heuristic DTR --ratio 0.1 --timeline "$tmp/tl0.tsv" > /dev/null
! grep -q '	backward	' "$tmp/tl0.tsv" || fail "a backward row in a replay that stopped before it"
gnuplot -c "$plots/timeline.gp" "$tmp/tl0.tsv" "$tmp/tl0.svg" 2> "$tmp/tl.err" ||
	{ cat "$tmp/tl.err" >&2; fail "timeline.gp without a backward row"; }
! grep -q '> backward<' "$tmp/tl0.svg" || fail "a backward marker without a backward row"

# ... and on one with copies to the host and back (offload: their rows)
"$rematsim" replay "$data/chain12.log" --heuristic DTR --ratio 0.5 --offload-bandwidth 1e6 \
	--offload-policy swap --timeline "$tmp/tlo.tsv" > /dev/null
grep -q '	offload	' "$tmp/tlo.tsv" || fail "no offload rows in the chain's timeline"
gnuplot -c "$plots/timeline.gp" "$tmp/tlo.tsv" "$tmp/tlo.png" "chain12, offload" 2> "$tmp/tl.err" ||
	{ cat "$tmp/tl.err" >&2; fail "timeline.gp with offload rows"; }
[ ! -s "$tmp/tl.err" ] || { cat "$tmp/tl.err" >&2; fail "timeline.gp said something on offload rows"; }

# The profile script on a profile, with split points, and without.
"$rematsim" profile "$data/solvers-chain.log" > "$tmp/prof.tsv"
gnuplot -c "$plots/profile.gp" "$tmp/prof.tsv" "$tmp/prof.png" "chain" "3" 2> "$tmp/prof.err" ||
	{ cat "$tmp/prof.err" >&2; fail "profile.gp"; }
[ -s "$tmp/prof.png" ] || fail "no profile.png"
[ ! -s "$tmp/prof.err" ] || { cat "$tmp/prof.err" >&2; fail "profile.gp said something"; }
gnuplot -c "$plots/profile.gp" "$tmp/prof.tsv" "$tmp/prof.svg" 2> "$tmp/prof.err" &&
	grep -q '<svg' "$tmp/prof.svg" || fail "profile.gp without splits"

# ---- What a reader sees, from the figures' data.
# A model with a long description and a high overhead limit, as the paper's
# LSTM and the issue's `overhead_limit: 10` were.
# The shipped MLP log: LRU passes at 0.6 with an overhead near 8 there.
sed 's|"desc": "16 layers"|"desc": "sixteen layers of a deep chain, recorded with a description long enough to overflow any panel"|; s|"log": "|"log": "'"$data"'/|; s|^]}$|, {"name": "mlp", "title": "MLP", "desc": "CPU", "log": "'"$src"'/logs/mlp-cpu.log.gz", "has_start": true}]}|' \
	"$data/manifest.json" > "$tmp/long-manifest.json"
printf '%s\n' "experiment: limit" "manifest: $tmp/long-manifest.json" \
	"heuristics: [DTR, LRU, LargestStorage, RandomStorage]" \
	"ratios: [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]" \
	"overhead_limit: 10" "trials: 2" > "$tmp/limit.yaml"
"$rematsim" sweep -q "$tmp/limit.yaml" --out "$tmp/limit"
"$rematsim" plot --format pdf,svg --plots "$plots" "$tmp/limit" > /dev/null 2> "$tmp/limit.err" ||
	{ cat "$tmp/limit.err" >&2; fail "rematsim plot limit"; }
[ ! -s "$tmp/limit.err" ] || { cat "$tmp/limit.err" >&2; fail "gnuplot said something for limit"; }

# A sweep with --fit: chain12 and chain16 under LRU are not monotone (a
# failing budget above the smallest pass), so both kinds of mark are drawn.
printf '%s\n' "experiment: fitexp" "manifest: $data/manifest.json" \
	"heuristics: [DTR, LRU, RandomStorage]" \
	"ratios: [0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0]" "trials: 2" > "$tmp/fitexp.yaml"
"$rematsim" sweep -q "$tmp/fitexp.yaml" --out "$tmp/fitexp" --fit 0.01
"$rematsim" plot --format png,pdf,svg --plots "$plots" "$tmp/fitexp" > /dev/null 2> "$tmp/fitexp.err" ||
	{ cat "$tmp/fitexp.err" >&2; fail "rematsim plot fitexp"; }
[ ! -s "$tmp/fitexp.err" ] || { cat "$tmp/fitexp.err" >&2; fail "gnuplot said something for fitexp"; }

# One panel alone: a PNG at the least width (integer sizes once made gnuplot
# refuse the panel's size).
printf '%s\n' "experiment: one" "models:" \
	"  - {name: chain8, log: $data/chain8.log, title: Chain, desc: '8 layers', has_start: true}" \
	"heuristics: [DTR]" "ratios: [0.5, 1.0]" > "$tmp/one.yaml"
"$rematsim" sweep -q "$tmp/one.yaml" --out "$tmp/one" --fit 0.05
"$rematsim" plot --format png --plots "$plots" "$tmp/one" > /dev/null 2> "$tmp/one.err" ||
	{ cat "$tmp/one.err" >&2; fail "rematsim plot of one panel"; }

# The value of `NAME = V` (or `NAME[I] = V`) in a figure.gp, quotes and
# comments dropped.
gpval() { # FILE NAME
	awk -v k="$2" '{
		n = split($0, a, /; /)
		for (i = 1; i <= n; i++) {
			split(a[i], kv, / = /)
			if (kv[1] == k) {
				v = kv[2]; sub(/ #.*/, "", v); gsub(/^["\047]|["\047]$/, "", v)
				print v; exit
			}
		}
	}' "$1"
}
styles=$tmp/styles.txt
: > "$styles"
for fig in "$tmp"/*/plot-data/*/figure.gp; do
	fd=${fig%/figure.gp}
	name=${fd##*/}
	out=${fd%/plot-data/*}
	lo=$(gpval "$fig" yrange_lo); hi=$(gpval "$fig" yrange_hi); xhi=$(gpval "$fig" xrange_hi)
	[ -n "$lo" ] && [ -n "$hi" ] && [ -n "$xhi" ] || fail "$name: no axis ranges in figure.gp"
	# every plotted point (mean, min, max) inside the axes: the curves',
	# the faint plans' and the rings' (a NaN row: a file with none)
	for t in "$fd"/p*-c*.tsv; do
		case $t in *-band.tsv | *-ends.tsv) continue ;; esac
		awk -v lo="$lo" -v hi="$hi" -v xhi="$xhi" -v f="$name/${t##*/}" '
			/^#/ || $1 == "NaN" { next }
			{
				if ($1 < 0 || $1 > xhi + 0) { print f ": ratio " $1 " outside [0, " xhi "]"; bad = 1 }
				for (i = 2; i <= 4; i++)
					if ($i < lo + 0 || $i > hi + 0) { print f ": y " $i " outside [" lo ", " hi "]"; bad = 1 }
			}
			END { exit bad }' "$t" >&2 || fail "$name: a point outside the axes"
	done
	# styles: one per series in every figure, distinct within one
	n=$(gpval "$fig" ncurves)
	c=1
	while [ "$c" -le "$n" ]; do
		printf '%s\t%s\t%s\t%s\n' "$(gpval "$fig" "cseries[$c]")" "$(gpval "$fig" "ccolor[$c]")" \
			"$(gpval "$fig" "cmarker[$c]")" "$out/$name" >> "$styles"
		c=$((c + 1))
	done
	dup=$(awk -F '\t' -v f="$out/$name" '$4 == f { print $2 }' "$styles" | sort | uniq -d)
	[ -z "$dup" ] || fail "$name: two curves share colour $dup"
	# failure lines: no two drawn at one place in a panel
	awk -v nc="$n" '/^fail_x\[/ {
		split($0, a, /; /)
		split(a[1], x, / = /); split(a[2], s, / = /); split(a[3], k, / = /)
		id = x[1]; gsub(/[^0-9]/, "", id)
		if (k[2] > 0) {
			key = int((id - 1) / nc) ":" (x[2] + s[2])
			if (key in seen) { print "two failure lines at " key; bad = 1 }
			seen[key] = 1
		}
	} END { exit bad }' "$fig" >&2 || fail "$name: failure lines drawn over each other"
	# descriptions wrapped for print: no line past 30 characters
	# (single-quoted pieces joined by newlines, "\012": gptext.h)
	grep -o 'pdescn\[[0-9]*\] = .*' "$fig" | sed "s/^[^=]*= '//; s/'\$//; s/'\\.\"\\\\012\"\\.'/\\n/g" |
		awk 'length($0) > 30 { print "description line too long: " $0; bad = 1 } END { exit bad }' >&2 ||
		fail "$name: a description overflows its panel"
	# the legend explains the failure styles drawn (the SVG's text)
	svg=$out/$name.svg
	[ -f "$svg" ] || continue
	if [ "$(gpval "$fig" any_oom)" = 1 ]; then
		grep -q 'out of memory below' "$svg" || fail "$name: dotted OOM lines unexplained"
	fi
	if [ "$(gpval "$fig" any_thrash)" = 1 ]; then
		grep -q 'thrash (&gt; [0-9.]*×) below\|thrash (> [0-9.]*×) below' "$svg" ||
			fail "$name: dashed thrash lines unexplained"
	fi
	if grep -q 'lone\[[0-9]*\] = 1' "$fig"; then
		grep -q 'lone marker' "$svg" || fail "$name: lone markers unexplained"
	fi
	# print size: 7 in (504 pt) wide, 8 pt text, nothing under 6 pt
	# (sub- and superscripts are 0.8 of the text)
	grep -q 'viewBox="0 0 504 ' "$svg" || fail "$name.svg is not 7 in wide"
	grep -q 'font-size="8.00"' "$svg" || fail "$name.svg: no 8 pt text"
	small=$(grep -o 'font-size="[0-9.]*"' "$svg" | tr -dc '0-9.\n' | awk '$1 < 6')
	[ -z "$small" ] || fail "$name.svg: text at $small pt"
done
[ -s "$styles" ] || fail "no curves found in the figures' data"
# one colour and marker per series in every figure
bad=$(cut -f1-3 "$styles" | sort -u | cut -f1 | uniq -d)
[ -z "$bad" ] || fail "series drawn in two styles: $bad"
# the registry's styles, the DTR paper's
grep -q "^DTR	#008000	3	" "$styles" || fail "DTR is not the paper's green star"
grep -q "^LRU	#ffa500	9	" "$styles" || fail "LRU is not the paper's orange triangle"
# the y range follows the data past 2, not 0.9 to 2.0 nor the far limit
lf=$tmp/limit/plot-data/limit/figure.gp
[ "$(gpval "$lf" ylog)" = 0 ] || fail "limit: a log axis"
awk -v hi="$(gpval "$lf" yrange_hi)" 'BEGIN { exit !(hi >= 5 && hi < 10) }' ||
	fail "limit: y range up to $(gpval "$lf" yrange_hi), not to the data's 8 or so"
grep -q '"\\012"' "$lf" || fail "limit: the long description is not wrapped"
# a PDF at paper size: full width by default, one column on request
grep -aq 'MediaBox \[ 0 0 504 ' "$tmp/limit/limit.pdf" || fail "limit.pdf is not 7 in wide"
"$rematsim" plot --format pdf --size column --plots "$plots" "$tmp/limit" > /dev/null
grep -aq 'MediaBox \[ 0 0 241 ' "$tmp/limit/limit.pdf" || fail "--size column is not 3.35 in wide"
# --yrange overrides, and is checked
"$rematsim" plot --format svg --yrange 0.5:3 --plots "$plots" "$tmp/limit" > /dev/null
[ "$(gpval "$lf" yrange_hi)" = 3 ] || fail "--yrange ignored"
st=0
"$rematsim" plot --yrange 3:1 --plots "$plots" "$tmp/limit" > /dev/null 2>&1 || st=$?
[ "$st" -eq 64 ] || fail "--yrange 3:1: status $st, not 64"

# The fit marks: for panel P (models.tsv's row P) and curve C (series
# cseries[C]), fit_x is fit.tsv's smallest_pass / baseline_memory and fit_to
# its all_pass_from / baseline_memory where monotone is "no" (else 0), each
# inside the x axis; marks in one lane of a panel do not overlap; a curve's
# first plotted ratio is not below its smallest pass (on these logs no
# budget below it passes); the legend explains both marks.
fd=$tmp/fitexp/plot-data/fitexp
ff=$fd/figure.gp
[ "$(gpval "$ff" any_fit)" = 1 ] && [ "$(gpval "$ff" any_fit_range)" = 1 ] ||
	fail "fitexp: no fit marks, or no non-monotone range, in figure.gp"
n=$(gpval "$ff" ncurves)
np=$(gpval "$ff" npanels)
[ "$np" = 3 ] && [ "$n" = 3 ] || fail "fitexp: $np panels and $n curves, not 3 and 3"
xhi=$(gpval "$ff" xrange_hi)
lanes=$tmp/lanes.txt
: > "$lanes"
p=1
while [ "$p" -le "$np" ]; do
	model=$(awk -F '\t' -v p="$p" 'NR == p + 1 { print $1 }' "$tmp/fitexp/models.tsv")
	c=1
	while [ "$c" -le "$n" ]; do
		k=$(((p - 1) * n + c))
		series=$(gpval "$ff" "cseries[$c]")
		x=$(gpval "$ff" "fit_x[$k]"); to=$(gpval "$ff" "fit_to[$k]"); lane=$(gpval "$ff" "fit_lane[$k]")
		first=$(awk '!/^#/ { print $1; exit }' "$fd/p$p-c$c.tsv")
		awk -F '\t' -v m="$model" -v s="$series" -v x="$x" -v to="$to" -v xhi="$xhi" \
			-v first="$first" -v w="$model/$series" '
			NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next }
			$col["model"] == m && $col["series"] == s {
				found = 1
				b = $col["baseline_memory"]
				ex = $col["smallest_pass"] / b
				et = $col["monotone"] == "no" ? $col["all_pass_from"] / b : 0
				if (x - ex > 1e-12 || ex - x > 1e-12) { print w ": tick at " x ", fit.tsv says " ex; bad = 1 }
				if (to - et > 1e-12 || et - to > 1e-12) { print w ": range to " to ", fit.tsv says " et; bad = 1 }
				if (!(x > 0 && x <= xhi + 0 && to <= xhi + 0)) { print w ": mark outside [0, " xhi "]"; bad = 1 }
				if (first != "" && first + 0 < x - 1e-12) { print w ": curve starts at " first ", below the smallest pass " x; bad = 1 }
			}
			END { if (!found) { print w ": no row in fit.tsv"; bad = 1 }; exit bad }' \
			"$tmp/fitexp/fit.tsv" >&2 || fail "fitexp: a fit mark at the wrong ratio"
		printf '%s %s %s %s\n' "$p" "$lane" "$x" "$to" >> "$lanes"
		c=$((c + 1))
	done
	p=$((p + 1))
done
# chain12 under LRU: the range found in fit.tsv by tests/cli-questions.sh
grep -q "^2 [0-9]* 0.3617021276595745 0.409574468085106[0-9]*$" "$lanes" ||
	fail "fitexp: chain12 LRU not marked from 34816 / 96256 to 39424 / 96256"
awk '{ hi = ($4 > 0 ? $4 : $3); key = $1 " " $2
	for (i = 1; i <= cnt[key]; i++)
		if ($3 < his[key, i] && los[key, i] < hi) { print "panel " $1 " lane " $2 ": marks overlap at " $3; bad = 1 }
	cnt[key]++; los[key, cnt[key]] = $3; his[key, cnt[key]] = hi
} END { exit bad }' "$lanes" >&2 || fail "fitexp: fit marks drawn over each other"
grep -q 'smallest pass (fit)' "$tmp/fitexp/fitexp.svg" || fail "fitexp: fit ticks unexplained"
grep -q 'fails again (fit)' "$tmp/fitexp/fitexp.svg" || fail "fitexp: fit ranges unexplained"
# only the overhead figures are marked; figures of sweeps without --fit
# have no mark and keep their data: without fit.tsv the figure's data is
# the marked one less the marks
! grep -q 'fit_x' "$fd-accesses/figure.gp" || fail "fitexp-accesses: fit marks"
! grep -q 'fit_x\|any_fit' "$tmp/pareto/plot-data/pareto/figure.gp" || fail "pareto without --fit: fit marks"
cp "$ff" "$tmp/fit-marked.gp"
mv "$tmp/fitexp/fit.tsv" "$tmp/fit.tsv"
"$rematsim" plot --format svg --plots "$plots" "$tmp/fitexp" > /dev/null
grep -q 'fit_x\|any_fit' "$ff" && fail "fitexp without fit.tsv: fit marks"
grep -v '^array fit_\|^fit_x\[\|^any_fit\|^# fit marks\|^# passing ratio found\|^# feasibility is not\|^# (a hatched bar\|^# up from the axis' "$tmp/fit-marked.gp" |
	cmp -s - "$ff" || fail "fitexp: without fit.tsv the figure data differs by more than the marks"
grep -q 'smallest pass (fit)' "$tmp/fitexp/fitexp.svg" && fail "fitexp without fit.tsv: the legend explains marks"
# a fit.tsv of another sweep, or a broken one: status 65, named
sed '2s/^chain8\tDTR/chain8\tNoSuch/' "$tmp/fit.tsv" > "$tmp/fitexp/fit.tsv"
st=0
"$rematsim" plot --format svg --plots "$plots" "$tmp/fitexp" > /dev/null 2> "$tmp/fit.err" || st=$?
[ "$st" -eq 65 ] && grep -q "fit.tsv:2: .*series 'NoSuch'" "$tmp/fit.err" ||
	fail "a fit.tsv of another sweep: status $st, $(cat "$tmp/fit.err")"
cut -f1-5 "$tmp/fit.tsv" > "$tmp/fitexp/fit.tsv"
st=0
"$rematsim" plot --format svg --plots "$plots" "$tmp/fitexp" > /dev/null 2> "$tmp/fit.err" || st=$?
[ "$st" -eq 65 ] && grep -q "fit.tsv:1: no column 'smallest_pass_ratio'" "$tmp/fit.err" ||
	fail "a fit.tsv without its columns: status $st, $(cat "$tmp/fit.err")"

# The floor band: each panel's pfloor is models.tsv's floor_ratio, which is
# info's floor_memory / baseline_memory; tiny.log ends with a weight's new
# version held (floor 144 bytes, above its 80 of constants), so the band is
# drawn and the caption explains it; the chains' floors are their constants
# and draw none. A models.tsv written before the floor columns still plots.
printf '%s\n' "experiment: floorexp" "models:" \
	"  - {name: tiny, log: $data/tiny.log, title: Tiny, desc: 'tiny', has_start: true}" \
	"  - {name: chain8, log: $data/chain8.log, title: Chain, desc: '8 layers', has_start: true}" \
	"heuristics: [LRU]" "ratios: [0.5, 1.0]" > "$tmp/floorexp.yaml"
"$rematsim" sweep -q "$tmp/floorexp.yaml" --out "$tmp/floorexp"
"$rematsim" plot --format svg --plots "$plots" "$tmp/floorexp" > /dev/null 2> "$tmp/floorexp.err" ||
	{ cat "$tmp/floorexp.err" >&2; fail "rematsim plot floorexp"; }
fe=$tmp/floorexp/plot-data/floorexp/figure.gp
for p in 1 2; do
	log=$(awk -F '\t' -v p="$p" 'NR == p + 1 { print $4 }' "$tmp/floorexp/models.tsv")
	info=$("$rematsim" info --json "$log")
	want=$(printf '%s\n' "$info" | awk '{ match($0, /"floor_memory":[0-9]+/); f = substr($0, RSTART + 15, RLENGTH - 15)
		match($0, /"baseline_memory":[0-9]+/); b = substr($0, RSTART + 18, RLENGTH - 18); printf "%.12g", f / b }')
	got=$(gpval "$fe" "pfloor[$p]")
	tsv=$(awk -F '\t' -v p="$p" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i } NR == p + 1 { printf "%.12g", $col["floor_ratio"] }' \
		"$tmp/floorexp/models.tsv")
	[ "$(printf '%.12g' "$got")" = "$want" ] && [ "$tsv" = "$want" ] ||
		fail "floorexp panel $p: pfloor $got, models.tsv $tsv, info $want"
done
[ "$(printf '%.12g' "$(gpval "$fe" 'pfloor[1]')")" = "$(awk 'BEGIN { printf "%.12g", 144 / 208 }')" ] ||
	fail "tiny.log's floor is not 144 / 208 of its baseline: $(gpval "$fe" 'pfloor[1]')"
grep -q 'hatched: pinned at the end (the floor)' "$tmp/floorexp/floorexp.svg" ||
	fail "floorexp: the floor band is not explained"
grep -q 'hatched: pinned at the end' "$tmp/one/one.svg" 2>/dev/null &&
	fail "one: a floor band explained where the floor is the constants"
cut -f1-13 "$tmp/floorexp/models.tsv" > "$tmp/models13.tsv" && mv "$tmp/models13.tsv" "$tmp/floorexp/models.tsv"
"$rematsim" plot --format svg --plots "$plots" "$tmp/floorexp" > /dev/null 2> "$tmp/floorexp.err" ||
	{ cat "$tmp/floorexp.err" >&2; fail "rematsim plot of a models.tsv without the floor columns"; }
[ "$(gpval "$fe" 'pfloor[1]')" = 0 ] || fail "no floor column, yet pfloor[1] = $(gpval "$fe" 'pfloor[1]')"
grep -q 'hatched: pinned at the end' "$tmp/floorexp/floorexp.svg" && fail "no floor column, yet a band is explained"

# ---- Planners and heuristics at their peaks (the pareto sweep above: its
# file has planners and heuristics_at_plan_peaks).
pf=$tmp/pareto/plot-data/pareto/figure.gp
[ "$(gpval "$pf" any_peaks)" = 1 ] || fail "pareto: no points at plan peaks marked"
grep -q "at a plan's peak" "$tmp/pareto/pareto.svg" || fail "pareto: the rings are unexplained"
n=$(gpval "$pf" ncurves)
np=$(gpval "$pf" npanels)
p=1
while [ "$p" -le "$np" ]; do
	c=1
	planx=$tmp/planx.txt
	: > "$planx"
	while [ "$c" -le "$n" ]; do
		if [ "$(gpval "$pf" "cmarked[$c]")" = 1 ]; then
			# a planner's curve is its Pareto frontier: x rising, y falling; every
			# faint point is dominated by one of the frontier (no larger x and y)
			awk '!/^#/ { if (NR > 2 && !($1 > x && $2 < y)) { print "not a frontier: " $0; bad = 1 } x = $1; y = $2 }
				END { exit bad }' "$(dirname "$pf")/p$p-c$c.tsv" >&2 || fail "pareto: panel $p curve $c"
			awk 'NR == FNR { if (!/^#/) { fx[++n] = $1; fy[n] = $2 } next }
				!/^#/ && $1 != "NaN" { d = 0; for (i = 1; i <= n; i++) if (fx[i] <= $1 && fy[i] <= $2) d = 1
					if (!d) { print "faint but not dominated: " $0; bad = 1 } }
				END { exit bad }' "$(dirname "$pf")/p$p-c$c.tsv" "$(dirname "$pf")/p$p-c$c-faint.tsv" >&2 ||
				fail "pareto: panel $p curve $c's faint plans"
			cat "$(dirname "$pf")/p$p-c$c.tsv" "$(dirname "$pf")/p$p-c$c-faint.tsv" | awk '!/^#/ && $1 != "NaN" { print $1 }' >> "$planx"
		fi
		c=$((c + 1))
	done
	# the heuristics' ringed points are at plans' peaks (passing plans, or failing ones)
	model=$(awk -F '\t' -v p="$p" 'NR == p + 1 { print $1 }' "$tmp/pareto/models.tsv")
	awk -F '\t' -v m="$model" '!/^#/ && $1 == m && $2 ~ /:|^sqrtn$/ { print $6 }' "$tmp/pareto/points.tsv" > "$planx"
	c=1
	while [ "$c" -le "$n" ]; do
		if [ "$(gpval "$pf" "cmarked[$c]")" = 0 ]; then
			awk 'NR == FNR { x[$1 + 0] = 1; next } !/^#/ && $1 != "NaN" && !(($1 + 0) in x) { print "ring off a plan peak: " $0; bad = 1 }
				END { exit bad }' "$planx" "$(dirname "$pf")/p$p-c$c-peaks.tsv" >&2 || fail "pareto: panel $p curve $c's rings"
		fi
		c=$((c + 1))
	done
	p=$((p + 1))
done

# ---- Plans obey the overhead limit, and one point does not change the y
# axis's scale. A plan row edited to pass at 17x (as the paper's logs gave):
# drawn as failing under the limit of 2, the axis linear and not up to it.
cp -r "$tmp/pareto" "$tmp/over"
awk -F '\t' 'BEGIN { OFS = "\t" } !/^#/ && !done && $2 ~ /^dp:/ && $8 == "pass" { $9 = 17; done = 1 } { print }' \
	"$tmp/pareto/points.tsv" > "$tmp/over/points.tsv"
grep -q '	17	' "$tmp/over/points.tsv" || fail "over: no plan row edited"
"$rematsim" plot --format svg --plots "$plots" "$tmp/over" > /dev/null 2> "$tmp/over.err" ||
	{ cat "$tmp/over.err" >&2; fail "plot of a plan past the limit"; }
of=$tmp/over/plot-data/pareto/figure.gp
[ "$(gpval "$of" ylog)" = 0 ] || fail "a plan at 17x past the limit of 2 made the y axis log"
awk -v hi="$(gpval "$of" yrange_hi)" 'BEGIN { exit !(hi < 3) }' || fail "a plan past the limit stretched the y axis to $(gpval "$of" yrange_hi)"
! grep -h '	17	' "$tmp"/over/plot-data/pareto/p*-c*.tsv | grep -q . || fail "the plan at 17x is drawn"
# With no limit, the one point at 50x is drawn, on a linear axis; two such
# points make the axis log.
sed 's/^# overhead_limit: .*/# overhead_limit: inf/; s/	17	/	50	/' "$tmp/over/points.tsv" > "$tmp/over/p2" && mv "$tmp/over/p2" "$tmp/over/points.tsv"
"$rematsim" plot --format svg --plots "$plots" "$tmp/over" > /dev/null 2> "$tmp/over.err" ||
	{ cat "$tmp/over.err" >&2; fail "plot without a limit"; }
[ "$(gpval "$of" ylog)" = 0 ] || fail "one point at 50x made the y axis log"
awk -v hi="$(gpval "$of" yrange_hi)" 'BEGIN { exit !(hi >= 50) }' || fail "the point at 50x outside the axis"
awk -F '\t' 'BEGIN { OFS = "\t" } !/^#/ && !done && $2 == "DTR" && $8 == "pass" && $9 != 50 { $9 = 50; done = 1 } { print }' \
	"$tmp/over/points.tsv" > "$tmp/over/p2" && mv "$tmp/over/p2" "$tmp/over/points.tsv"
"$rematsim" plot --format svg --plots "$plots" "$tmp/over" > /dev/null 2> "$tmp/over.err" ||
	{ cat "$tmp/over.err" >&2; fail "plot with two points at 50x"; }
[ "$(gpval "$of" ylog)" = 1 ] || fail "two points at 50x kept a linear axis"
# A sweep marks a plan past its limit thrash (the runtime's rule: remat
# compute past (limit - 1) x the baseline compute).
printf '%s\n' "experiment: tight" "manifest: $data/manifest.json" "heuristics: [DTR]" \
	"ratios: [0.5, 1.0]" "overhead_limit: 1.05" "planners:" "  dp: {k: [1, 2, 4]}" "  sqrtn: {}" > "$tmp/tight.yaml"
"$rematsim" sweep -q "$tmp/tight.yaml" --out "$tmp/tight"
awk -F '\t' '!/^#/ && ($2 ~ /:/ || $2 == "sqrtn") { n++; if ($8 == "pass" && $9 > 1.05 + 1e-9) { print "a plan passes at " $9; bad = 1 } if ($8 == "thrash") t++ }
	END { if (!t) { print "no plan past the limit: the test needs one"; bad = 1 } exit bad }' "$tmp/tight/points.tsv" >&2 ||
	fail "a sweep's plans past the overhead limit"

# ---- A print figure fits a page: at most 9 in (648 pt) tall; more rows of
# panels go on further PDF pages and SVG files. Ten panels at column size
# (2 a row: 5 rows) and at full size (4 a row).
awk 'BEGIN { printf "{\"models\": [" }
	{ for (i = 1; i <= 10; i++) printf "%s{\"name\": \"m%d\", \"title\": \"Chain %d\", \"desc\": \"layers\", \"log\": \"%s/chain%d.log\", \"has_start\": true}", (i > 1 ? ", " : ""), i, i, $0, (i % 3 == 0 ? 8 : i % 3 == 1 ? 12 : 16) }
	END { print "]}" }' <<DIR > "$tmp/ten.json"
$data
DIR
printf '%s\n' "experiment: ten" "manifest: $tmp/ten.json" "heuristics: [DTR, LRU]" "ratios: [0.5, 1.0]" > "$tmp/ten.yaml"
"$rematsim" sweep -q "$tmp/ten.yaml" --out "$tmp/ten"
for size in column full; do
	rm -f "$tmp"/ten/ten*.pdf "$tmp"/ten/ten*.svg
	"$rematsim" plot --format pdf,svg --size "$size" --plots "$plots" "$tmp/ten" > "$tmp/ten.list" 2> "$tmp/ten.err" ||
		{ cat "$tmp/ten.err" >&2; fail "plot --size $size of ten panels"; }
	# at column size, one line a split figure naming its files (issue 44);
	# otherwise nothing (gnuplot warnings are bugs of the scripts)
	if [ "$size" = column ]; then
		for f in ten ten-accesses; do
			n=$(grep -c "/$f-[0-9]*\.svg\$" "$tmp/ten.list")
			files=$(grep -x "$tmp/ten/$f\(-[0-9]*\)\{0,1\}\.svg" "$tmp/ten.list" | sed ':a;N;$!ba;s/\n/, /g')
			echo "rematsim plot: $f.svg at --size column is taller than a page: written as $((n + 1)) files, $files"
		done > "$tmp/ten.want"
		cmp -s "$tmp/ten.err" "$tmp/ten.want" ||
			{ diff "$tmp/ten.want" "$tmp/ten.err" >&2; fail "plot --size column: the split files on stderr"; }
	else
		[ ! -s "$tmp/ten.err" ] || { cat "$tmp/ten.err" >&2; fail "gnuplot said something for ten ($size)"; }
	fi
	w=$([ "$size" = column ] && echo 241 || echo 504)
	# gnuplot's own page sizes
	grep -ao 'MediaBox \[ 0 0 [0-9.]* [0-9.]* \]' "$tmp/ten/ten.pdf" | awk -v w="$w" -v s="$size" '
		{ n++; if ($5 != w || $6 > 648) { print s ": a page of " $5 " x " $6 " pt"; bad = 1 } }
		END { if (s == "column" && n < 2) { print s ": " n " page"; bad = 1 } exit bad }' >&2 ||
		fail "ten.pdf at $size does not fit its pages"
	svgs=$(grep -c '\.svg$' "$tmp/ten.list")
	for f in $(grep '\.svg$' "$tmp/ten.list"); do
		grep -o 'viewBox="0 0 [0-9.]* [0-9.]*"' "$f" | head -n 1 | tr -d '"' |
			awk -v w="$w" -v f="$f" '{ if ($3 != w || $4 > 648) { print f ": " $3 " x " $4; exit 1 } }' >&2 ||
			fail "$f does not fit a page"
	done
	# every panel once, over the files
	titles=$(cat $(grep '\.svg$' "$tmp/ten.list") | grep -o 'Chain [0-9]*<' | sort -u | wc -l)
	[ "$titles" = 10 ] || fail "ten at $size: $titles panels over $svgs SVG files"
	if [ "$size" = column ]; then
		[ "$svgs" -ge 2 ] && grep -qx "$tmp/ten/ten-2.svg" "$tmp/ten.list" || fail "ten at column: no second SVG file"
	fi
done

# `rematsim measured --out`: its two figures, in every format, at print
# size, standalone, without gnuplot warnings, every point inside the axes.
"$rematsim" measured "$data/measured/runs.json" --manifest "$data/measured/manifest.json" \
	--out "$tmp/meas" > /dev/null || fail "rematsim measured --out"
"$rematsim" plot --format png,pdf,svg --plots "$plots" "$tmp/meas" > "$tmp/meas.list" 2> "$tmp/meas.err" ||
	{ cat "$tmp/meas.err" >&2; fail "rematsim plot (measured)"; }
[ ! -s "$tmp/meas.err" ] || { cat "$tmp/meas.err" >&2; fail "gnuplot said something for measured"; }
for f in measured measured-budget; do
	grep -qx "$tmp/meas/$f.png" "$tmp/meas.list" || fail "no $f.png"
	grep -aq 'MediaBox \[ 0 0 504 ' "$tmp/meas/$f.pdf" || fail "$f.pdf is not 7 in wide"
	grep -q 'viewBox="0 0 504 ' "$tmp/meas/$f.svg" || fail "$f.svg is not 7 in wide"
	gnuplot -c "$plots/$f.gp" "$tmp/meas/plot-data/$f" "$tmp/meas/alone-$f.pdf" column 2> "$tmp/meas.err" &&
		[ ! -s "$tmp/meas.err" ] || { cat "$tmp/meas.err" >&2; fail "$f.gp alone, column"; }
	grep -aq 'MediaBox \[ 0 0 241 ' "$tmp/meas/alone-$f.pdf" || fail "$f.gp column is not 3.35 in wide"
done
# every point inside the square axes [0, vhi] of the measured figure
vmax=$(sed -n 's/^vmax = //p' "$tmp/meas/plot-data/measured/figure.gp")
cat "$tmp/meas/plot-data/measured"/p*-c*.tsv | awk -v v="$vmax" '!/^#/ && $1 != "NaN" &&
	($1 < 0 || $2 < 0 || $1 > v || $4 > v) { bad = 1 } END { exit bad }' ||
	fail "a measured point outside [0, vmax = $vmax]"

# Without gnuplot: a clear message and status 69.
mkdir "$tmp/empty-path"
st=0
PATH="$tmp/empty-path" "$rematsim" plot --plots "$plots" "$tmp/banishing" > /dev/null 2> "$tmp/nognu.err" || st=$?
[ "$st" -eq 69 ] || fail "without gnuplot: status $st, not 69"
grep -q 'gnuplot is not on PATH' "$tmp/nognu.err" || fail "without gnuplot: no clear message"
echo ok
