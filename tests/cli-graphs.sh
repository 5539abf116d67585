#!/bin/sh
# cli-graphs.sh REMATSIM: node-link graphs as every LOG-taking command
# reads them (docs/graphs.md). Without ../shared: a hand-made graph under
# a file name with spaces, commas and brackets, bad graphs (status 65, the
# node named), and a sweep's gap.tsv (written, merged, drawn). With ../shared/graphs/moccasin: each of the 18 graphs'
# replay runs exactly the commands the reference simulator's
# from_dfgraph makes of it (tests/graph-sequence.py, Python's own sets),
# and every command reads a shipped file name as it is.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
HERE=$(cd "$(dirname "$0")" && pwd)
. "$HERE/cli-lib.sh"
T=$(mktemp -d)
trap 'rm -rf "$T"' EXIT

# A diamond 0 -> {1, 2} -> 3 (Checkmate's kind), under an awkward name.
G="$T/a graph, [v1] (test).json"
cat > "$G" <<'JSON'
{"directed": true, "multigraph": false, "graph": {"name": "diamond"},
 "nodes": [{"id": 0, "name": "in", "backward": false, "cost_cpu": 1, "cost_ram": 10},
  {"id": 1, "name": "left", "backward": false, "cost_cpu": 2, "cost_ram": 20},
  {"id": 2, "name": "right", "backward": false, "cost_cpu": 3, "cost_ram": 30},
  {"id": 3, "name": "join", "backward": true, "cost_cpu": 4, "cost_ram": 40}],
 "links": [{"source": 0, "target": 1}, {"source": 0, "target": 2},
  {"source": 1, "target": 3}, {"source": 2, "target": 3}]}
JSON
out=$("$R" info "$G")
case "$out" in *"graph          4 nodes, 4 links (Checkmate's kind; ops in simrd's depth-first order)"*"baseline       memory 90 bytes"*)
	ok "info on a graph" ;; *) no "info: $out" ;; esac
expect_status 0 "check" "$R" check "$G"
expect_status 0 "info --json" "$R" info --json "$G"
expect_status 0 "replay" "$R" replay "$G" --heuristic DTR --ratio 0.8,1 --json
expect_status 0 "peak" "$R" peak "$G" --heuristic LRU --ratio 1
expect_status 0 "fit" "$R" fit "$G" --heuristic DTR --resolution 0.05
expect_status 0 "profile" "$R" profile "$G"
expect_status 0 "solve" "$R" solve "$G" --planner sqrtn --replay
out=$("$R" peak "$G" --json)
case "$out" in *'"peak_memory":90,'*'"op":"join"'*) ok "peak 90, at join" ;; *) no "peak: $out" ;; esac

# Bad graphs: 65, the node or link named, no crash.
printf '%s' '{"directed": true, "nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1},
 {"id": 1, "name": "b", "cost_cpu": 1, "cost_ram": 1}],
 "links": [{"source": 0, "target": 1}, {"source": 1, "target": 0}]}' > "$T/cycle.json"
for cmd in info check "replay --heuristic DTR --ratio 0.5" "solve --planner none"; do
	# shellcheck disable=SC2086
	msg=$("$R" $cmd "$T/cycle.json" 2>&1); st=$?
	case "$st $msg" in "65 "*"cycle.json: the graph has a cycle: node 1 (\"b\") leads back to node 0"*)
		ok "$cmd: a cycle (65)" ;; *) no "$cmd on a cycle: $st $msg" ;; esac
done
printf '{"nodes": [{"id": 0, "name": "x", "cost_cpu": -2, "cost_ram": 1}], "links": []}' > "$T/neg.json"
msg=$("$R" info "$T/neg.json" 2>&1)
case "$msg" in *'neg.json: node 0 ("x"): "cost_cpu" is negative (-2)'*) ok "negative cost" ;; *) no "negative: $msg" ;; esac
printf '{"nodes": [{"id": 0, "cost_cpu": 1, "cost_ram": 1}], "links": [{"source": 0, "target": 7}]}' > "$T/dangling.json"
msg=$("$R" check "$T/dangling.json" 2>&1)
case "$msg" in *"links[0] names node 7 as its target, and no node has that id"*) ok "dangling link" ;; *) no "dangling: $msg" ;; esac
printf '{"directed": true, "nodes": [' > "$T/cut.json"
msg=$("$R" info "$T/cut.json" 2>&1); st=$?
case "$st $msg" in "65 "*"cut.json:1: invalid JSON at column"*) ok "cut short (65)" ;; *) no "cut short: $st $msg" ;; esac

# gap.tsv: a sweep with `gap:` writes it, a merge of its shards writes the
# same, a sweep without the key leaves none, a bad optimum is refused.
cat > "$T/g.yaml" <<YAML
experiment: gaptest
models:
  - {name: diamond, log: "$G"}
heuristics: [DTR, LRU, RandomStorage]
ratios: [0.6, 0.8, 1.0]
trials: 3
planners:
  dp: {k: [1, 2]}
  sqrtn: {}
gap: best
YAML
"$R" sweep -q "$T/g.yaml" --out "$T/gap" >/dev/null 2>&1
if [ -f "$T/gap/gap.tsv" ] && grep -q "^diamond	1	90	DTR	heuristic	pass	" "$T/gap/gap.tsv"; then
	ok "sweep writes gap.tsv"
else
	no "gap.tsv: $(cat "$T/gap/gap.tsv" 2>&1 | head -5)"
fi
"$R" sweep -q "$T/g.yaml" --shard 1/2 --out "$T/s1" >/dev/null 2>&1
"$R" sweep -q "$T/g.yaml" --shard 2/2 --out "$T/s2" >/dev/null 2>&1
"$R" merge "$T/s1" "$T/s2" --out "$T/merged" >/dev/null 2>&1
cmp -s "$T/gap/gap.tsv" "$T/merged/gap.tsv" && ok "merge writes the same gap.tsv" || no "merged gap.tsv differs"
sed '/^gap:/d' "$T/g.yaml" > "$T/nogap.yaml"
"$R" sweep -q "$T/nogap.yaml" --out "$T/gap" >/dev/null 2>&1
[ ! -e "$T/gap/gap.tsv" ] && ok "no gap key, no gap.tsv (an old one removed)" || no "gap.tsv left without the key"
sed 's/^gap: best/gap: optimal/' "$T/g.yaml" > "$T/bad.yaml"
msg=$("$R" sweep --dry-run "$T/bad.yaml" 2>&1); st=$?
case "$st $msg" in "65 "*"'gap' names the optimum: 'best'"*"not 'optimal'"*) ok "a bad optimum (65)" ;; *) no "bad optimum: $st $msg" ;; esac
if command -v gnuplot >/dev/null 2>&1; then
	"$R" sweep -q "$T/g.yaml" --out "$T/gap" >/dev/null 2>&1
	"$R" plot "$T/gap" --format png >/dev/null 2>&1
	[ -s "$T/gap/gaptest-gap.png" ] && [ -f "$T/gap/plot-data/gaptest-gap/figure.gp" ] &&
		ok "plot draws the gap figure" || no "no gap figure: $(ls "$T/gap")"
fi

S=${REMATSIM_SHARED:-}
D="$S/graphs/moccasin"
if [ -z "$S" ] || [ ! -d "$D" ]; then
	echo "no ../shared/graphs/moccasin: the shipped graphs are skipped"
	exit $fail
fi
if command -v python3 >/dev/null 2>&1; then
	n=0
	for f in "$D"/*.json; do
		python3 "$HERE/graph-sequence.py" "$f" > "$T/want" || { no "graph-sequence.py on $f"; continue; }
		"$R" replay "$f" --heuristic DTR --runtime V2EagerOptimized --ratio 10 --timeline "$T/tl.tsv" >/dev/null
		# (the timeline's own rows, such as where the backward pass begins, left out)
		tail -n +2 "$T/tl.tsv" | awk -F'\t' '$3 == "compute" || $3 == "evict" {print $3 " " $5}' > "$T/got"
		if cmp -s "$T/want" "$T/got"; then n=$((n + 1)); else no "$(basename "$f"): not from_dfgraph's commands"; fi
	done
	[ "$n" -eq 18 ] && ok "18 graphs run from_dfgraph's commands in its order" || no "$n of 18 graphs as from_dfgraph"
else
	echo "no python3: from_dfgraph's order not compared"
fi
F="$D/ResNet50 (MLSys)_256_(224, 224, 3)_train_nx.json"
for cmd in info check "replay --heuristic DTR --ratio 0.9" "peak" "fit --heuristic DTREqClass" "profile" "solve --planner dp -k 4 --replay"; do
	# shellcheck disable=SC2086
	expect_status 0 "$cmd on a shipped name" "$R" $cmd "$F"
done
# The gap experiment on the 18 graphs (scripts/experiments/optimal.yaml):
# the file as shipped is valid; run without its ILP points (a minute of
# solving each: a benchmark, docs/graphs.md; cli-ilp tests them on small
# logs), measured from the best method.
sed "s|\.\./\.\./\.\./shared|$S|" "$HERE/../scripts/experiments/optimal.yaml" > "$T/optimal-full.yaml"
expect_status 0 "optimal.yaml as shipped (--dry-run)" "$R" sweep --dry-run "$T/optimal-full.yaml"
sed -e '/^  ilp:/d' -e 's/^gap: ilp/gap: best/' "$T/optimal-full.yaml" > "$T/optimal.yaml"
if "$R" sweep -q "$T/optimal.yaml" --out "$T/optimal" >/dev/null 2>&1; then
	m=$(awk -F'\t' 'NR > 3 { print $1 }' "$T/optimal/gap.tsv" | sort -u | wc -l)
	[ "$m" -eq 18 ] && ok "optimal: gap.tsv for the 18 graphs" || no "optimal: $m graphs in gap.tsv"
	grep -q "^MobileNet-train	0.8	27760844800	DTR	heuristic	pass	" "$T/optimal/gap.tsv" &&
		ok "optimal: DTR passes MobileNet train at 80 %" || no "optimal: no DTR row at 80 % on MobileNet train"
else
	no "sweep optimal.yaml"
fi
exit $fail
