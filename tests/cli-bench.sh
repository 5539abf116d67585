#!/bin/sh
# cli-bench.sh: `rematsim bench` says when its numbers differ from the
# reference's, and exits 70 then (a bug of ours), 0 when they match, 64 for
# a selection that names nothing. Skipped (77) without ../shared.
R=$1
. "$(dirname "$0")/cli-lib.sh"
S=${REMATSIM_SHARED:-}
[ -f "$S/reference/unet-6-8000000000.0-2020-10-1-10-57-18-default.json" ] || {
	echo "no shared data: skipped"; exit 77; }
t=$(mktemp -d) || exit 1
trap 'rm -rf "$t"' EXIT
mkdir "$t/reference"
ln -s "$S/dtr-logs" "$t/dtr-logs"
cp "$S/reference/unet-6-8000000000.0-2020-10-1-10-57-18-default.json" "$t/reference/"

expect_status 0 "bench on the reference's own numbers" \
	"$R" bench --shared "$t" --heuristic LRU
expect_status 64 "bench --heuristic Nope" "$R" bench --shared "$t" --heuristic Nope
expect_status 64 "bench --log naming no reference log" "$R" bench --shared "$t" --log nolog

# One remat compute changed by one: the row says DIFFERENT, the status is 70.
python3 - "$t/reference/unet-6-8000000000.0-2020-10-1-10-57-18-default.json" <<'PY'
import json, sys
p = sys.argv[1]
d = json.load(open(p))
for run in d["runs"]:
    if run["heuristic"] == "LRU":
        run["points"][-1]["remat_compute"] += 1
json.dump(d, open(p, "w"))
PY
out=$("$R" bench --shared "$t" --heuristic LRU 2>&1); st=$?
[ "$st" -eq 70 ] && ok "a changed reference number exits 70" || no "changed number: status $st"
case "$out" in *DIFFERENT*"remat compute"*|*"remat compute"*DIFFERENT*) ok "the row and the message name the difference" ;;
	*) no "no DIFFERENT row or reason: $out" ;; esac
exit $fail
