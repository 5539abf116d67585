#!/bin/sh
# cli-failed.sh REMATSIM: a run that did not pass carries no overhead
# (issue 44, item 3): `-` in points.tsv/csv and the replay's text, null in
# JSON, and the clock where it stopped in its own field, stopped_clock;
# ILP rows without a schedule are unsolved or untried, not oom; files
# written before (a number in a failed row's overhead, no stopped_clock)
# are read back in today's form.
#
# On logs/cnn-cpu.log.gz (baseline compute 194591298 ns) under DTR, ratio
# 0.2 runs out of memory at clock 2051700 (1 + model compute 2051699, no
# remat): its old overhead was 2051700 / 194591298 = 0.010543636951329653;
# ratio 0.8 passes at 1.0440860412987225. LRU at 0.6 with overhead limit
# 1.5 thrashes at clock 297975170 = 1 + 194575086 + 103400083.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
L=$(cd "$(dirname "$0")/../logs" && pwd)/cnn-cpu.log.gz
T=$(mktemp -d "${TMPDIR:-/tmp}/cli-failed.XXXXXX") || exit 1
trap 'rm -rf "$T"' EXIT

has() { # DESC TEXT NEEDLE...
	desc=$1 text=$2; shift 2
	for n in "$@"; do
		case "$text" in *"$n"*) ok "$desc has $n" ;; *) no "$desc lacks $n: $text" ;; esac
	done
}
lacks() { # DESC TEXT NEEDLE
	case "$2" in *"$3"*) no "$1 has $3: $2" ;; *) ok "$1 lacks $3" ;; esac
}

j=$("$R" replay "$L" --heuristic DTR --ratio 0.2,0.8 --json)
oom=$(printf '%s\n' "$j" | head -1) pass=$(printf '%s\n' "$j" | tail -1)
has "oom JSON" "$oom" '"outcome":"oom","overhead":null' '"stopped_clock":2051700'
has "pass JSON" "$pass" '"outcome":"pass","overhead":1.0440860412987225' '"stopped_clock":null'
j=$("$R" replay "$L" --heuristic LRU --ratio 0.6 --overhead-limit 1.5 --json)
has "thrash JSON" "$j" '"outcome":"thrash","overhead":null' '"stopped_clock":297975170'
t=$("$R" replay "$L" --heuristic DTR --ratio 0.2,0.8)
row=$(printf '%s\n' "$t" | grep '^0.2 ')
set -- $row
[ "$3 $4" = "oom -" ] && ok "oom text: overhead -" || no "oom text: $row"
has "oom text" "$t" "stopped at clock 2051700 ns"
lacks "oom text" "$t" "0.0105"

# fit's probes: an oom probe has no overhead either
j=$("$R" fit "$L" --heuristic DTR --json)
has "fit JSON" "$j" '{"budget":25165824,"outcome":"oom","overhead":null,"grid":true}'
t=$("$R" fit "$L" --heuristic DTR --probes)
has "fit text" "$t" "$(printf '        25165824   0.534047 oom                       - grid')"

# A sweep: points.tsv and points.csv
printf 'experiment: e\nmodels:\n  - {name: c, log: %s}\nheuristics: [DTR]\nratios: [0.2, 0.8]\n' \
	"$L" > "$T/e.yaml"
"$R" sweep -q "$T/e.yaml" --out "$T/o" --format tsv,csv || no "sweep"
p=$(grep -v '^#' "$T/o/points.tsv")
has "points.tsv" "$p" "$(printf '\tseries\tpoint\tstopped_clock\n')" \
	"$(printf '\t0.2\t9424579\toom\t-\t8021288\t2051699\t0\t')" "$(printf '\tDTR\t0\t2051700\n')" \
	"$(printf '\t0.8\t37698316\tpass\t1.0440860412987225\t')" "$(printf '\tDTR\t1\t-')"
has "points.csv" "$(cat "$T/o/points.csv")" ",oom,-,8021288," ",DTR,0,2051700"
# A folder written before stopped_clock (a failed row's overhead a
# number): merged and read in today's form.
mkdir "$T/old"
cp "$T/o/models.tsv" "$T/old/"
sed -e 's/\tstopped_clock$//' -e 's/\t[-0-9]*$//' \
	-e 's/\toom\t-\t/\toom\t0.010543636951329653\t/' "$T/o/points.tsv" > "$T/old/points.tsv"
grep -q 'oom	0.0105' "$T/old/points.tsv" && ok "an old-form file made" || no "old form: $(cat "$T/old/points.tsv")"
"$R" merge "$T/old" --out "$T/m" 2>/dev/null || no "merge of an old folder"
[ "$(grep -v '^# command' "$T/m/points.tsv" | cut -f1-17,19-)" = \
  "$(grep -v '^# command' "$T/o/points.tsv" | cut -f1-17,19-)" ] &&
	ok "an old folder merges to today's form" || no "old folder merged: $(cat "$T/m/points.tsv")"
# an overhead `-` on a passing row is damage
sed 's/\tpass\t1.0440860412987225\t/\tpass\t-\t/' "$T/o/points.tsv" > "$T/old/points.tsv"
expect_status 65 "a pass without an overhead" "$R" merge "$T/old" --out "$T/m2"
exit $fail
