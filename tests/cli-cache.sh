#!/bin/sh
# cli-cache.sh REMATSIM: sweep --cache DIR (docs/experiments.md, "A cache
# of replays"): a second sweep takes every replay from the cache and writes
# the same rows, wall_ms included; one heuristic's replay serves another
# name of the same computation (DTR and AbESizeStale) and never a random
# heuristic's other trials; an entry that does not read back whole, or one
# written by another program, is a miss; a cache that cannot be written is
# said once and the sweep goes on; a cache that is not a folder is refused.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
cd "$(dirname "$0")/data" || exit 1
tmp=$(mktemp -d)
trap 'chmod -R u+w "$tmp" 2>/dev/null; rm -rf "$tmp"' EXIT
D=$PWD

rows() { grep -v '^#' "$1/points.tsv"; }
rows_but_time() { grep -v '^#' "$1/points.tsv" | cut -f1-16,18-; }
said() { sed -n 's/.* \([0-9]*\) replays taken from the cache .*, \([0-9]*\) stored there$/\1 \2/p' "$1"; }

printf 'experiment: a\nmodels:\n  - {name: c8, log: %s/chain8.log}\n  - {name: c12, log: %s/chain12.log}\nheuristics: [DTR, LRU, RandomStorage]\ntrials: 3\nruntime: V2EagerOptimized\nratios: [0.3, 0.5, 1]\n' \
	"$D" "$D" > "$tmp/a.yaml"
"$R" sweep "$tmp/a.yaml" --out "$tmp/plain" --jobs 2 --quiet || no "sweep without a cache"
"$R" sweep "$tmp/a.yaml" --out "$tmp/one" --cache "$tmp/c" --jobs 2 2>"$tmp/e1" || no "first sweep with a cache"
[ "$(said "$tmp/e1")" = "0 30" ] && ok "first sweep: 30 replays stored" || no "first sweep said: $(cat "$tmp/e1")"
[ "$(ls "$tmp/c" | grep -c '\.replay$')" = 30 ] && ok "30 entries" || no "entries: $(ls "$tmp/c" | wc -l)"
[ "$(rows_but_time "$tmp/plain")" = "$(rows_but_time "$tmp/one")" ] && ok "with a cache, the rows of a sweep without" ||
	no "a cache changed the rows"
"$R" sweep "$tmp/a.yaml" --out "$tmp/two" --cache "$tmp/c" --jobs 1 2>"$tmp/e2" || no "second sweep"
[ "$(said "$tmp/e2")" = "30 0" ] && ok "second sweep: every replay from the cache" || no "second sweep said: $(cat "$tmp/e2")"
[ "$(rows "$tmp/one")" = "$(rows "$tmp/two")" ] && ok "the same rows, wall_ms included" || no "cached rows differ"

# Entries that do not read back whole are misses, and are written again.
for f in "$tmp"/c/*.replay; do head -c 100 "$f" > "$f.cut" && mv "$f.cut" "$f"; break; done
for f in "$tmp"/c/*.replay; do :; done
sed 's/^remats .*/remats x/' "$f" > "$f.bad" && mv "$f.bad" "$f"
"$R" sweep "$tmp/a.yaml" --out "$tmp/three" --cache "$tmp/c" --jobs 2 2>"$tmp/e4" || no "sweep over damaged entries"
[ "$(said "$tmp/e4")" = "28 2" ] && ok "two damaged entries: run again and stored" || no "damaged said: $(cat "$tmp/e4")"
[ "$(rows_but_time "$tmp/three")" = "$(rows_but_time "$tmp/plain")" ] && ok "damaged entries: the right rows" ||
	no "damaged entries changed the rows"

# Another experiment, on a copy of chain8.log (the key is the log's
# content): AbESizeStale computes what DTR does (one replay); RandomStorage's
# trials 0-2 have the seeds they had (model c8 again), 3 and 4 are new; so
# is LargestStorage.
cp chain8.log "$tmp/copy.log"
printf 'experiment: b\nmodels:\n  - {name: c8, log: %s/copy.log}\nheuristics: [AbESizeStale, RandomStorage, LargestStorage]\ntrials: 5\nruntime: V2EagerOptimized\nratios: [0.3, 0.5, 1]\n' \
	"$tmp" > "$tmp/b.yaml"
"$R" sweep "$tmp/b.yaml" --out "$tmp/b" --cache "$tmp/c" --jobs 2 2>"$tmp/e3" || no "sweep b"
[ "$(said "$tmp/e3")" = "12 9" ] && ok "b: DTR's 3 and RandomStorage's first 3 trials x 3 from the cache, 9 new" ||
	no "b said: $(cat "$tmp/e3")"
"$R" sweep "$tmp/b.yaml" --out "$tmp/b-plain" --jobs 2 --quiet || no "sweep b without a cache"
[ "$(rows_but_time "$tmp/b")" = "$(rows_but_time "$tmp/b-plain")" ] && ok "b: the rows of a sweep without a cache" ||
	no "b: the cache changed the rows"
dtr=$(rows "$tmp/one" | awk -F'\t' '$1 == "c8" && $2 == "DTR"' | cut -f6-16)
abe=$(rows "$tmp/b" | awk -F'\t' '$2 == "AbESizeStale"' | cut -f6-16)
[ -n "$dtr" ] && [ "$dtr" = "$abe" ] && ok "AbESizeStale took DTR's replays" || no "AbESizeStale: $abe, DTR: $dtr"

# Another program (the same with a byte more) finds nothing of this one's.
cp "$R" "$tmp/rematsim2" && printf x >> "$tmp/rematsim2"
"$tmp/rematsim2" sweep "$tmp/a.yaml" --out "$tmp/four" --cache "$tmp/c" --jobs 2 2>"$tmp/e5" || no "another program"
[ "$(said "$tmp/e5")" = "0 30" ] && ok "another program: no replay from this one's" || no "another program said: $(cat "$tmp/e5")"

# A cache it cannot write: said once, the sweep goes on. As root a folder
# without write permission is still writable: /proc/self then, a folder
# where no file can be made.
mkdir "$tmp/ro" && chmod a-w "$tmp/ro"
ro="$tmp/ro"
[ -w "$ro" ] && ro=/proc/self
if [ -w "$ro" ] || [ ! -d "$ro" ]; then
	ok "read-only cache # skip: no folder here is read only"
else
	"$R" sweep "$tmp/a.yaml" --out "$tmp/five" --cache "$ro" --jobs 2 2>"$tmp/e6"
	st=$?
	[ "$st" = 0 ] && ok "read-only cache: the sweep goes on" || no "read-only cache: status $st"
	[ "$(grep -c 'the cache is read only from now on' "$tmp/e6")" = 1 ] && ok "read-only cache: said once" ||
		no "read-only cache said: $(cat "$tmp/e6")"
	[ "$(rows_but_time "$tmp/five")" = "$(rows_but_time "$tmp/plain")" ] && ok "read-only cache: the right rows" ||
		no "read-only cache changed the rows"
fi
: > "$tmp/file"
bad 73 "a cache that is a file" "the cache is not a folder" "$R" sweep "$tmp/a.yaml" --out "$tmp/six" --cache "$tmp/file"
bad 64 "an empty cache name" "--cache: an empty name is no folder" "$R" sweep "$tmp/a.yaml" --cache ""
exit $fail
