#!/bin/sh
# plot-install.sh BUILD_DIR: `meson install` into a temporary DESTDIR, then
# check that every gnuplot script the table of figures names (`rematsim
# plot --help`, from sim/exp/plot.c) and every script of plots/ is
# installed, and (with gnuplot) that the installed rematsim, with no
# REMATSIM_PLOTS, finds them and draws the asymptotic study and a Pareto
# sweep. Exits 77 (skipped) without meson.
set -eu
build=$1
command -v meson >/dev/null 2>&1 || { echo "no meson: skipped"; exit 77; }
src=${REMATSIM_SOURCE:?}
data=${TEST_DATA_DIR:?}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail() { echo "FAIL: $*" >&2; exit 1; }

meson install -C "$build" --no-rebuild --quiet --destdir "$tmp/root" > "$tmp/install.log" 2>&1 ||
	{ cat "$tmp/install.log" >&2; fail "meson install"; }
exe=$(find "$tmp/root" -path '*/bin/rematsim' -type f | head -n 1)
[ -n "$exe" ] && [ -x "$exe" ] || fail "no installed bin/rematsim"
plots=$(find "$tmp/root" -path '*/rematsim/plots' -type d | head -n 1)
[ -n "$plots" ] || fail "no installed share/rematsim/plots"

# every script a row of the table of figures names
unset REMATSIM_PLOTS
"$exe" plot --help > "$tmp/help.txt"
grep -o 'plots/[A-Za-z0-9_-]*\.gp' "$tmp/help.txt" | sort -u > "$tmp/named.txt"
[ "$(wc -l < "$tmp/named.txt")" -ge 5 ] || fail "plot --help names $(wc -l < "$tmp/named.txt") scripts"
while read -r s; do
	[ -f "$plots/${s#plots/}" ] || fail "the table of figures names $s, which meson install misses"
done < "$tmp/named.txt"
# and every script of the source tree (grid.gp, timeline.gp, profile.gp)
for s in "$src"/plots/*.gp; do
	[ -f "$plots/${s##*/}" ] || fail "plots/${s##*/} is not installed"
	cmp -s "$s" "$plots/${s##*/}" || fail "installed ${s##*/} differs from plots/${s##*/}"
done

command -v gnuplot >/dev/null 2>&1 || { echo "no gnuplot: the installed figures not drawn"; exit 0; }
printf '%s\n' "experiment: asym" "models:" "  - gen: linear" "    n: [8, 16, 32]" \
	'budgets: ["2*sqrt(n)", 16]' "heuristics: [DTR]" "overhead_limit: inf" > "$tmp/asym.yaml"
printf '%s\n' "experiment: small" "manifest: $data/manifest.json" "heuristics: [DTR, LRU]" \
	"ratios: [0.5, 1.0]" > "$tmp/small.yaml"
for e in asym small; do
	"$exe" sweep -q "$tmp/$e.yaml" --out "$tmp/$e"
	"$exe" plot --format png "$tmp/$e" > "$tmp/$e.list" 2> "$tmp/$e.err" ||
		{ cat "$tmp/$e.err" >&2; fail "the installed rematsim plot $e"; }
	grep -qx "$tmp/$e/$e.png" "$tmp/$e.list" || fail "the installed rematsim drew no $e.png"
done
echo ok
