#!/bin/sh
# plot-figures.sh REMATSIM: `rematsim plot` and every gnuplot script of
# plots/ on sweeps of the test logs; exits 77 (skipped) without gnuplot.
# Checks that each figure is written as PNG, PDF and SVG and that the
# scripts run standalone on the data folders `rematsim plot` leaves.
set -eu
rematsim=$1
command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: skipped"; exit 77; }
src=${REMATSIM_SOURCE:?}
data=${TEST_DATA_DIR:?}
plots=$src/plots
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

for e in pareto ablation banishing accesses; do
	sed "s|^manifest: .*|manifest: $data/manifest.json|; s|^ratios: .*|ratios: [0.2, 0.4, 0.6, 0.8, 1.0]|; s|^trials: 10|trials: 3|" \
		"$src/scripts/experiments/$e.yaml" > "$tmp/$e.yaml"
	"$rematsim" sweep -q "$tmp/$e.yaml" --out "$tmp/$e"
	"$rematsim" plot --plots "$plots" "$tmp/$e" > "$tmp/$e.list" 2> "$tmp/$e.err" ||
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
grep -qx "$tmp/pareto/pareto.png" "$tmp/pareto.list" || fail "no pareto.png"
grep -qx "$tmp/pareto/pareto-accesses.pdf" "$tmp/pareto.list" || fail "no pareto-accesses.pdf"
for fam in estar eq local nocost; do
	grep -qx "$tmp/ablation/ablation-$fam.png" "$tmp/ablation.list" || fail "no ablation-$fam"
done
grep -qx "$tmp/banishing/banishing.png" "$tmp/banishing.list" || fail "no banishing.png"
grep -qx "$tmp/accesses/accesses.png" "$tmp/accesses.list" || fail "no accesses.png"

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

# The profile script on a profile, with split points, and without.
"$rematsim" profile "$data/solvers-chain.log" > "$tmp/prof.tsv"
gnuplot -c "$plots/profile.gp" "$tmp/prof.tsv" "$tmp/prof.png" "chain" "3" 2> "$tmp/prof.err" ||
	{ cat "$tmp/prof.err" >&2; fail "profile.gp"; }
[ -s "$tmp/prof.png" ] || fail "no profile.png"
[ ! -s "$tmp/prof.err" ] || { cat "$tmp/prof.err" >&2; fail "profile.gp said something"; }
gnuplot -c "$plots/profile.gp" "$tmp/prof.tsv" "$tmp/prof.svg" 2> "$tmp/prof.err" &&
	grep -q '<svg' "$tmp/prof.svg" || fail "profile.gp without splits"

# Without gnuplot: a clear message and status 69.
mkdir "$tmp/empty-path"
st=0
PATH="$tmp/empty-path" "$rematsim" plot --plots "$plots" "$tmp/banishing" > /dev/null 2> "$tmp/nognu.err" || st=$?
[ "$st" -eq 69 ] || fail "without gnuplot: status $st, not 69"
grep -q 'gnuplot is not on PATH' "$tmp/nognu.err" || fail "without gnuplot: no clear message"
echo ok
