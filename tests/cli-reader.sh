#!/bin/sh
# cli-reader.sh REMATSIM: the info/check commands as a user meets them:
# exit statuses, the FILE:LINE messages of tests/data/bad/*.log (golden
# files *.expect beside each), --help and --version. The paper's archive
# is cli-archive.sh's (skipped without ../shared).
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
cd "$(dirname "$0")/data" || exit 1

expect_status 0 "info on a good log" "$R" info tiny.log
expect_status 0 "check on a good log" "$R" check tiny.log
expect_status 0 "info --json" "$R" info --json tiny.log
expect_status 66 "missing file" "$R" info no-such.log
expect_status 66 "check on a missing file" "$R" check no-such.log
expect_status 64 "no log" "$R" info
expect_status 64 "unknown option" "$R" info --frobnicate tiny.log
expect_status 64 "unknown command" "$R" frobnicate
expect_status 0 "--help" "$R" --help
expect_status 0 "info --help" "$R" info --help
expect_status 0 "check --help" "$R" check --help

v=$("$R" --version) && case "$v" in "rematsim "[0-9]*) ok "--version: $v" ;; *) no "--version: $v" ;; esac

# docs/log-format.md's example is a good log, as the page says
doc="${REMATSIM_SOURCE:-$(dirname "$0")/..}/docs/log-format.md"
ex=${TMPDIR:-/tmp}/rematsim-doc-example.$$.log
sed -n '/^    {"INSTRUCTION":"ANNOTATE","ANNOTATION":"START"}/,/^    {"INSTRUCTION":"RELEASE","NAME":"x"}/p' "$doc" |
	sed 's/^    //' > "$ex"
[ "$(wc -l < "$ex")" -ge 20 ] && "$R" check "$ex" > /dev/null &&
	"$R" replay "$ex" --heuristic DTR --ratio 1 --json | grep -q '"outcome":"pass"' &&
	ok "the log-format example checks and replays" || no "docs/log-format.md's example"
rm -f "$ex"

# an archive's listing: one line a model, a description over two lines too
out=$("$R" info chains.zip)
[ "$(printf '%s\n' "$out" | wc -l)" -eq 4 ] && case "$out" in *"16 layers of one chain logs/chain16.log"*) true ;; *) false ;; esac &&
	ok "archive listing, multi-line description" || no "archive listing: $out"
# ... and its columns aligned past a long description (chain16's, as the
# paper's LSTM): every log path starts at the same column.
cols=$(printf '%s\n' "$out" | awk 'NR > 1 { print index($0, "logs/") }' | sort -u | wc -l)
[ "$cols" -eq 1 ] && ok "the listing's columns are aligned" || no "log paths at $cols columns: $out"

# options anywhere: after the log too
j=$("$R" info tiny.log --json) && case "$j" in '{"log":"tiny.log"'*) ok "info LOG --json" ;; *) no "info LOG --json: $j" ;; esac
j=$("$R" check tiny.log --json) && case "$j" in *'"ok":true'*) ok "check LOG --json" ;; *) no "check LOG --json: $j" ;; esac
j=$("$R" check bad/out-of-order.log --json); st=$?
[ "$st" -eq 65 ] && case "$j" in *'"ok":false'*'"line":4'*) true ;; *) false ;; esac &&
	ok "check --json lists problems" || no "check --json on a bad log: $st $j"

j=$("$R" info --json tiny.log)
for key in '"log":"tiny.log"' '"CALL":5' '"MUTATE":1' '"ops":8' '"forward_ops":3' '"backward_ops":3' \
	'"constants":2' '"tensors":8' '"storages":7' '"total_compute":2660' '"const_memory":80' \
	'"max_output_size":64' '"baseline_memory":' '"baseline_compute":2660' '"bottleneck_memory":' \
	'"floor_memory":144'; do
	case "$j" in *"$key"*) ok "json has $key" ;; *) no "json lacks $key: $j" ;; esac
done

# the floor: the constants a and w (80 bytes, pinned for good), and w's
# new version, which w2 holds at the end
out=$("$R" info tiny.log)
case "$out" in *"floor          144 bytes (0.0 MiB, "*"no budget below it passes"*) ok "info shows the floor" ;;
*) no "info's floor: $out" ;; esac

for f in bad/*.log; do
	want=$(cat "${f%.log}.expect")
	msg=$("$R" info "$f" 2>&1 >/dev/null); st=$?
	[ "$st" -eq 65 ] || no "$f: info status $st, wanted 65"
	case "$msg" in "rematsim: $want"*) ok "$f: $want" ;; *) no "$f: got '$msg', wanted '$want'" ;; esac
	out=$("$R" check "$f" 2>&1); st=$?
	[ "$st" -eq 65 ] && case "$out" in *"$want"*) true ;; *) false ;; esac && ok "check $f" ||
		no "check $f: status $st, output '$out'"
done

# check reports every problem of a log, not only the first
all=$(cat bad/undefined-arg.log bad/negative-size.log bad/unknown-instruction.log)
tmp=$(mktemp)
printf '%s\n' "$all" > "$tmp"
n=$("$R" check "$tmp" 2>&1 | grep -c ":[0-9][0-9]*: ")
[ "$n" -ge 3 ] && ok "check lists $n problems" || no "check listed $n problems, wanted 3 or more"
rm -f "$tmp"


# A log past the 8 MiB read whole streams from a file; from a pipe (read
# once only) it is read whole: the same schedule either way, gzip or not.
big=${TMPDIR:-/tmp}/rematsim-big.$$
"$R" gen linear --n 20000 --out "$big.log" > /dev/null && "$R" gen linear --n 20000 --out "$big.log.gz" > /dev/null &&
	[ "$(wc -c < "$big.log")" -gt 9000000 ] || no "gen for the pipe test"
want=$("$R" info --json "$big.log" | sed 's/^{"log":"[^"]*"//')
for got in "$("$R" info --json "$big.log.gz")" "$(cat "$big.log" | "$R" info --json /dev/stdin)" \
	"$("$R" info --json /dev/stdin < "$big.log")" "$(gzip -dc "$big.log.gz" | "$R" info --json /dev/stdin)"; do
	[ -n "$want" ] && [ "$(printf '%s' "$got" | sed 's/^{"log":"[^"]*"//')" = "$want" ] &&
		ok "a log over 8 MiB: file, gzip and pipe agree" || no "a log over 8 MiB: $got"
done
rm -f "$big.log" "$big.log.gz"

exit $fail
