#!/bin/sh
# cli-gen.sh REMATSIM: `rematsim gen` as a user meets it (exit statuses,
# messages, atomic and reproducible files), and generated models with
# budget formulas in an experiment (points.tsv's n and budget_formula
# columns, the asymptotics figure when gnuplot is there).
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

expect_status 0 "linear" "$R" gen linear --n 16 --out "$T/c.log"
expect_status 0 "linear, gzip" "$R" gen linear --n 16 --out "$T/c.log.gz"
expect_status 0 "heterogeneous chain" "$R" gen linear --n 50 --time-dist lognormal:2:0.5 \
	--size-dist uniform:100:200 --seed 3 --out "$T/h.log"
expect_status 0 "residual" "$R" gen residual --blocks 4 --out "$T/r.log"
expect_status 64 "no suffixes in distributions" "$R" gen unet --depth 3 --size-dist const:1KiB --out "$T/u.log"
expect_status 0 "unet" "$R" gen unet --depth 3 --out "$T/u.log"
expect_status 0 "transformer" "$R" gen transformer --layers 2 --width 64 --heads 4 --seq 16 \
	--vocab 50 --dtype fp32 --flops 1e12 --out "$T/t.log"
expect_status 0 "gen --help" "$R" gen --help
for f in c.log c.log.gz h.log r.log u.log t.log; do
	expect_status 0 "check $f" "$R" check "$T/$f"
done
case "$(head -c2 "$T/c.log.gz" | od -An -tx1 | tr -d ' ')" in
1f8b) ok "gzip by the .gz name" ;; *) no "c.log.gz is not gzip" ;;
esac
i=$("$R" info "$T/c.log")
case "$i" in *"ops            32 (forward 16, backward 16, constant 0)"*"total compute  32 ns"*"baseline       memory 16 bytes"*"compute 32 ns"*)
	ok "info: 2n ops, compute 2n, memory n" ;; *) no "info on the chain: $i" ;; esac

"$R" gen linear --n 50 --time-dist lognormal:2:0.5 --size-dist uniform:100:200 --seed 3 --out "$T/h2.log"
cmp -s "$T/h.log" "$T/h2.log" && ok "same seed, same bytes" || no "same seed, different bytes"
"$R" gen linear --n 50 --time-dist lognormal:2:0.5 --size-dist uniform:100:200 --seed 4 --out "$T/h3.log"
cmp -s "$T/h.log" "$T/h3.log" && no "another seed, same bytes" || ok "another seed, other bytes"
"$R" gen linear --n 16 --out "$T/c2.log.gz"
cmp -s "$T/c.log.gz" "$T/c2.log.gz" && ok "gzip output reproducible" || no "gzip output differs between runs"

expect_status 64 "no shape" "$R" gen --n 5 --out "$T/x.log"
expect_status 64 "unknown shape" "$R" gen ring --n 5 --out "$T/x.log"
expect_status 64 "two shapes" "$R" gen linear unet --n 5 --out "$T/x.log"
expect_status 64 "unknown option" "$R" gen linear --n 5 --width 3 --out "$T/x.log"
expect_status 64 "unknown option" "$R" gen linear --n 5 --bogus --out "$T/x.log"
expect_status 64 "no --out" "$R" gen linear --n 5
expect_status 64 "no --n" "$R" gen linear --out "$T/x.log"
expect_status 64 "n = 0" "$R" gen linear --n 0 --out "$T/x.log"
expect_status 64 "n < 0" "$R" gen linear --n -4 --out "$T/x.log"
expect_status 64 "n not whole" "$R" gen linear --n 2.5 --out "$T/x.log"
expect_status 64 "n too large" "$R" gen linear --n 99999999999999999999999 --out "$T/x.log"
expect_status 64 "--n twice" "$R" gen linear --n 4 --n 5 --out "$T/x.log"
expect_status 64 "blocks 0" "$R" gen residual --blocks 0 --out "$T/x.log"
expect_status 64 "depth missing" "$R" gen unet --out "$T/x.log"
for d in const:0 const:-2 uniform:3:1 uniform:0:4 lognormal:1:0 lognormal:1:-1 gauss:1:1 \
	const uniform:1 const:abc const:1e400 const:nan; do
	expect_status 64 "bad distribution $d" "$R" gen linear --n 5 --size-dist "$d" --out "$T/x.log"
done
expect_status 64 "heads not dividing width" "$R" gen transformer --heads 5 --width 64 --out "$T/x.log"
expect_status 64 "bad dtype" "$R" gen transformer --dtype int8 --out "$T/x.log"
expect_status 64 "zero flops" "$R" gen transformer --flops 0 --out "$T/x.log"
expect_status 64 "sizes that overflow" "$R" gen linear --n 1000 --size-dist const:1e17 --out "$T/x.log"
expect_status 64 "a tensor past 2^62" "$R" gen transformer --seq 1000000000 --out "$T/x.log"
expect_status 73 "folder missing" "$R" gen linear --n 5 --out "$T/no/such/x.log"
[ ! -e "$T/x.log" ] && ok "no file after a refusal" || no "x.log was written"
left=$(ls "$T" | grep -c tmp)
[ "$left" -eq 0 ] && ok "no temporary files left" || no "temporary files left: $(ls "$T")"

m=$("$R" gen linear --n 5 --size-dist uniform:3:1 --out "$T/x.log" 2>&1)
case "$m" in *"size-dist"*"uniform:3:1"*"0 < A <= B"*) ok "says what is wrong: $m" ;;
*) no "unclear message: $m" ;; esac
m=$("$R" gen linear --n 5 --blocks 3 --out "$T/x.log" 2>&1)
case "$m" in *"linear"*"blocks"*) ok "says which shape refuses: $m" ;; *) no "unclear message: $m" ;; esac
m=$("$R" gen linear --n 1000 --size-dist const:1e17 --out "$T/x.log" 2>&1)
case "$m" in *"2^60"*) ok "says the bound: $m" ;; *) no "unclear message: $m" ;; esac

# --- generated models and budget formulas in an experiment ---
cat > "$T/a.yaml" <<'Y'
experiment: asym
models:
  - {gen: linear, n: [8, 16, 32]}
budgets: ["2*sqrt(n)", "log2(n)", 5]
heuristics: [DTR, LRU]
overhead_limit: inf
Y
expect_status 0 "sweep with generated models" "$R" sweep "$T/a.yaml" --out "$T/out" --quiet
grep -q "	series	point	n	budget_formula	stopped_clock$" "$T/out/points.tsv" && ok "points.tsv has n and budget_formula" \
	|| no "no n/budget_formula columns"
row=$(grep -P "^linear n=16\tDTR\t" "$T/out/points.tsv" | grep -P "\tlog2\(n\)\t[-0-9]*$")
case "$row" in *"	4	"*"	16	log2(n)	"*) ok "log2(16) = 4 bytes, n = 16" ;; *) no "row: $row" ;; esac
n_rows=$(grep -c "^linear" "$T/out/points.tsv")
[ "$n_rows" -eq 18 ] && ok "18 points" || no "$n_rows points"
# Resume and shards keep working on the extra columns
expect_status 0 "resume" "$R" sweep "$T/a.yaml" --out "$T/out" --quiet
expect_status 0 "shard 1/2" "$R" sweep "$T/a.yaml" --out "$T/s1" --shard 1/2 --quiet
expect_status 0 "shard 2/2" "$R" sweep "$T/a.yaml" --out "$T/s2" --shard 2/2 --quiet
expect_status 0 "merge" "$R" merge "$T/s1" "$T/s2" --out "$T/m"
cut -f1-16,18- "$T/out/points.tsv" | grep -v '^#' > "$T/p1"
cut -f1-16,18- "$T/m/points.tsv" | grep -v '^#' > "$T/p2"
cmp -s "$T/p1" "$T/p2" && ok "merged shards = one sweep" || no "merged shards differ"

cat > "$T/bad.yaml" <<'Y'
experiment: bad
models:
  - {gen: linear, n: [8, 16]}
budgets: ["2*sqrt(m)"]
heuristics: [DTR]
Y
expect_status 65 "unknown name in a formula" "$R" sweep "$T/bad.yaml" --out "$T/bad" --quiet
m=$("$R" sweep "$T/bad.yaml" --out "$T/bad" --quiet 2>&1)
case "$m" in *"bad.yaml:4:"*"2*sqrt(m)"*) ok "formula error names file and line: $m" ;;
*) no "unclear: $m" ;; esac
sed -i 's/2\*sqrt(m)/n-100/' "$T/bad.yaml"
expect_status 65 "negative budget formula" "$R" sweep "$T/bad.yaml" --out "$T/bad" --quiet
cat > "$T/bad2.yaml" <<'Y'
experiment: bad2
models:
  - {gen: linear, n: [8, 0]}
heuristics: [DTR]
Y
expect_status 65 "n = 0 in a generated model" "$R" sweep "$T/bad2.yaml" --out "$T/bad" --quiet
sed -i 's/n: \[8, 0\]/blocks: 3/' "$T/bad2.yaml"
expect_status 65 "a parameter of another shape" "$R" sweep "$T/bad2.yaml" --out "$T/bad" --quiet

src=${REMATSIM_SOURCE:-$(dirname "$0")/..}
d=$("$R" sweep "$src/scripts/experiments/asymptotics.yaml" --dry-run 2>&1)
[ "$d" = 810 ] && ok "asymptotics.yaml: 27 n x 6 heuristics x 5 budgets" || no "asymptotics.yaml: $d"

if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 "plot the asymptotics figure" "$R" plot "$T/out"
	"$R" plot "$T/out" >/dev/null 2>"$T/plot.err"
	[ ! -s "$T/plot.err" ] && ok "gnuplot says nothing" || no "gnuplot: $(cat "$T/plot.err")"
	[ -s "$T/out/asym.png" ] && [ -s "$T/out/asym.pdf" ] && ok "asym.png and .pdf" || no "no figure"
	[ -s "$T/out/plot-data/asym/p1-c1.tsv" ] && [ -s "$T/out/plot-data/asym/treeverse.tsv" ] \
		&& ok "figure data kept" || no "no figure data"
	grep -q "^8	20$" "$T/out/plot-data/asym/treeverse.tsv" && ok "treeverse(8) - 8 = 20" \
		|| no "treeverse: $(cat "$T/out/plot-data/asym/treeverse.tsv")"
else
	echo "ok - # SKIP gnuplot not installed"
fi
# The transformer's defaults (GPT-2 small's dimensions at 1024 tokens):
# activations, not the weights and their pinned gradients, make the peak,
# as in the DTR paper's logs, so a budget below the baseline can pass (with
# GPT-3's block as defaults nothing passed below 1.0).
"$R" gen transformer --layers 2 --out "$T/tf-default.log.gz"
kinds=$("$R" peak "$T/tf-default.log.gz" --json | tr '{' '\n' | sed -n 's/^"kind":"\([a-z]*\)","bytes":\([0-9]*\).*/\1=\2/p' | tr '\n' ' ')
fwd=$(printf '%s' "$kinds" | sed -n 's/.*forward=\([0-9]*\).*/\1/p')
cst=$(printf '%s' "$kinds" | sed -n 's/.*constant=\([0-9]*\).*/\1/p')
[ -n "$fwd" ] && [ -n "$cst" ] && [ "$fwd" -gt "$cst" ] && ok "gen transformer's defaults: activations dominate the peak ($kinds)" ||
	no "gen transformer's defaults: the peak's kinds are $kinds"
r=$("$R" fit "$T/tf-default.log.gz" --heuristic DTR --resolution 0.05 --json | sed -n 's/.*"smallest_pass_ratio":\([0-9.]*\).*/\1/p')
awk -v r="$r" 'BEGIN { exit !(r > 0 && r < 0.9) }' && ok "gen transformer's defaults: DTR fits at $r of the baseline" ||
	no "gen transformer's defaults: the smallest passing ratio is '$r'"

# bench --scale replays the generator's logs: its counts are those of a
# replay of `rematsim gen`'s file (the chain at n = 16, the 8-layer
# transformer at batch 32), and its bad options exit 64.
"$R" gen linear --n 16 --out "$T/bs-chain.log"
"$R" gen transformer --layers 8 --batch 32 --width 12288 --heads 96 --seq 2048 --out "$T/bs-tfm.log"
want=$("$R" replay "$T/bs-chain.log" --budget 8 --heuristic LRU --runtime V2EagerOptimized \
	--overhead-limit inf | awk 'NR == 2 { print $7, $8 }')
got=$("$R" bench --scale --shape chain --min-log2 4 --max-log2 4 --budget 2sqrt --heuristic LRU \
	| awk '$1 == "chain-16" { print $13, $14 }')
[ -n "$want" ] && [ "$want" = "$got" ] && ok "bench --scale chain-16: evaluations and accesses of a replay of gen linear" \
	|| no "bench --scale chain-16: '$got', replay: '$want'"
want=$("$R" replay "$T/bs-tfm.log" --ratio 0.9 --heuristic LRU --runtime V2EagerOptimized \
	--overhead-limit inf | awk 'NR == 2 { print $2, $7, $8 }')
got=$("$R" bench --scale --shape transformer --ratio 0.9 --heuristic LRU \
	| awk '$1 == "transformer-8" { print $4, $13, $14 }')
[ -n "$want" ] && [ "$want" = "$got" ] && ok "bench --scale transformer-8: budget, evaluations, accesses of a replay of gen transformer" \
	|| no "bench --scale transformer-8: '$got', replay: '$want'"
expect_status 64 "bench --scale --shape ring" "$R" bench --scale --shape ring
expect_status 64 "bench --scale --ratio 1.5" "$R" bench --scale --ratio 1.5
expect_status 64 "bench --scale --max-log10 7" "$R" bench --scale --max-log10 7

exit $fail
