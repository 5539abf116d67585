#!/bin/sh
# cli-snapshot.sh REMATSIM: `rematsim snapshot` on the hand-made pickles of
# tests/data/snapshot (make.py writes them): the numbers of the tiny
# snapshot worked out by hand, pickles that would run a command refused
# with nothing run, bad input with its message and status, the what-if,
# --out; and, with ../shared, the three public snapshots replayed exactly.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
D=$(cd "$(dirname "$0")/data/snapshot" && pwd)
tmp=$(mktemp -d "${TMPDIR:-/tmp}/rematsim-snapshot.XXXXXX") || exit 1
trap 'rm -rf "$tmp"' EXIT
cd "$tmp" || exit 1

field() { # JSON FIELD: an integer field of a one-line JSON object
	printf '%s\n' "$1" | sed -n "s/.*\"$2\":\([0-9]*\).*/\1/p"
}

expect_status 0 "snapshot --help" "$R" snapshot --help
# tiny.pickle: a 20 MiB segment from before the trace holding a 4 MiB
# block; 3 MiB at +4 MiB (best fit), a new 2 MiB small segment for 1000
# bytes, the 3 MiB freed and 3 MiB + 100 (3146240 rounded) back at +4 MiB.
for f in tiny.pickle tiny-p2.pickle; do
	j=$("$R" snapshot "$D/$f" --json)
	for kv in allocs:3 addresses_matched:3 segment_allocs:1 segment_allocs_matched:1 \
		allocated_peak:7341568 reserved_peak:23068672 start_segments:1 start_blocks:1 \
		trace_allocated_peak:3146828 fragmentation_at_allocated_peak:15727104; do
		k=${kv%%:*} v=${kv#*:}
		[ "$(field "$j" "$k")" = "$v" ] && ok "$f: $k $v" || no "$f: $k is $(field "$j" "$k"), want $v: $j"
	done
done
out=$("$R" snapshot "$D/tiny.pickle" --top 2)
case "$out" in *"4194304        4194304        0x7f0000000000   before  model.py:7 forward"*"3146240        3145828        0x7f0000400000   5       train.py:13 step"*)
	ok "the largest live blocks at the peak, with their frames" ;; *) no "largest blocks: $out" ;; esac

# A trace recorded with expandable segments: its memory from the trace alone
# (reserved counted back from the dump's 40 MiB less the 20 MiB mapped),
# the model's agreement null.
j=$("$R" snapshot "$D/expandable.pickle" --json)
for kv in start_reserved:20971520 reserved_peak:41943040 allocated_peak:28311552 allocated_peak_entry:2 \
	trace_allocated_peak:24117248; do
	k=${kv%%:*} v=${kv#*:}
	[ "$(field "$j" "$k")" = "$v" ] && ok "expandable.pickle: $k $v" || no "expandable.pickle: $k: $j"
done
case "$j" in *'"modelled":false,"addresses_matched":null'*) ok "expandable.pickle: not modelled, said so" ;;
	*) no "expandable.pickle: $j" ;; esac

# Pickles that would run `touch PWNED`: refused, the opcode and its byte named, nothing run.
bad 65 "GLOBAL os.system + REDUCE" "byte 2: opcode GLOBAL" "$R" snapshot "$D/os-system.pickle"
bad 65 "STACK_GLOBAL" "byte 14: opcode STACK_GLOBAL" "$R" snapshot "$D/stack-global.pickle"
[ ! -e PWNED ] && ok "nothing was run" || no "a refused pickle ran its command"
bad 65 "a list inside itself" "inside itself" "$R" snapshot "$D/cycle.pickle"
bad 65 "truncated" "truncated" "$R" snapshot "$D/truncated.pickle"
bad 65 "not a snapshot" "not a PyTorch memory snapshot" "$R" snapshot "$D/not-snapshot.pickle"
bad 65 "a free of an unknown address" "device_traces[0][6]: free_completed of address 0x1234000" \
	"$R" snapshot "$D/unknown-free.pickle"
bad 65 "an allocation larger than any device" "device_traces[0][0]: alloc of 4611686018427387905 bytes: the model cannot place it" \
	"$R" snapshot "$D/huge.pickle"
j=$("$R" snapshot "$D/overlap.pickle" --json)
case "$j" in *'"addresses_matched":0'*'"first_disagreement":{"entry":1,'*) ok "a disagreement is reported, not a failure" ;;
	*) no "overlap.pickle: $j" ;; esac
bad 66 "a missing file" "no-such.pickle" "$R" snapshot no-such.pickle
printf 'not a pickle at all\n' > text.pickle
bad 65 "text" "unknown opcode" "$R" snapshot text.pickle
bad 64 "an unknown setting" "unknown setting 'max_split_sise_mb' (did you mean 'max_split_size_mb'?)" \
	"$R" snapshot "$D/tiny.pickle" --allocator-conf max_split_sise_mb:100
bad 64 "a setting out of range" "at least 20" "$R" snapshot "$D/tiny.pickle" --allocator-conf max_split_size_mb:4
bad 64 "--device-memory alone" "give both" "$R" snapshot "$D/tiny.pickle" --device-memory 1GiB
bad 64 "no file" "exactly one" "$R" snapshot

# What-ifs: expandable segments need only the pages they touch.
j=$("$R" snapshot "$D/tiny.pickle" --json --allocator-conf expandable_segments:True)
case "$j" in *'"whatif":{"conf":"expandable_segments:True","settings":"expandable_segments:True"'*'"recorded":{'*'"with_conf":{'*) ok "what-if in JSON" ;;
	*) no "what-if JSON: $j" ;; esac
# a device of 21 MiB holds the 20 MiB segment but not the 2 MiB one after it:
# that allocation is out of memory (the cache has nothing wholly free to give back)
j=$("$R" snapshot "$D/tiny.pickle" --json --allocator-conf expandable_segments:True --device-memory 21MiB)
case "$j" in *'"recorded":{"allocated_peak":7340544,"reserved_peak":20971520,'*'"ooms":1}'*) ok "what-if on a small device" ;;
	*) no "what-if on a small device: $j" ;; esac
j=$("$R" snapshot "$D/tiny.pickle" --json --allocator-conf expandable_segments:True --device-memory 30MiB)
case "$j" in *'"with_conf":{"allocated_peak":'*'"ooms":0}'*) ok "what-if with room" ;; *) no "what-if: $j" ;; esac

# --out: the memory over the trace, one row per entry, written whole.
expect_status 0 "--out" "$R" snapshot "$D/tiny.pickle" --out fig
rows=$(grep -cv '^#' fig/memory.tsv)
[ "$rows" = 7 ] && ok "memory.tsv: a header and 6 rows" || no "memory.tsv has $rows rows"
ls fig | grep -q tmp && no "a temporary file left in fig" || ok "no temporary file left"
if command -v gnuplot >/dev/null 2>&1; then
	expect_status 0 "rematsim plot of a snapshot's folder" "$R" plot fig --format png,svg
	[ -s fig/memory.png ] && [ -s fig/memory.svg ] && ok "the figure of allocated and reserved memory" ||
		no "no fig/memory.png or .svg"
else
	echo "# no gnuplot: the figure is not drawn"
fi
bad 73 "--out where no folder can be made" "" "$R" snapshot "$D/tiny.pickle" --out /dev/null/fig

# replay --allocator: the same replay, each budget's row gains the device's
# numbers; without --allocator nothing changes.
L=$(cd "$D/.." && pwd)/chain8.log
plain=$("$R" replay "$L" --heuristic DTR --ratio 0.5,1 --json | sed 's/,"wall_ms":[^,]*//')
with=$("$R" replay "$L" --heuristic DTR --ratio 0.5,1 --json --allocator pytorch |
	sed 's/,"allocator":.*"device_frees":[0-9]*//; s/,"wall_ms":[^,]*//')
[ -n "$plain" ] && [ "$plain" = "$with" ] && ok "--allocator adds fields and changes none" ||
	no "--allocator changed the replay: $plain / $with"
j=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --json --allocator pytorch)
for kv in reserved_peak:2097152 segments_peak:1 device_allocs:1; do
	k=${kv%%:*} v=${kv#*:}
	[ "$(field "$j" "$k")" = "$v" ] && ok "replay --allocator: $k $v" || no "replay --allocator: $k: $j"
done
case "$j" in *'"device_outcome":"pass"'*) ok "device_outcome pass" ;; *) no "device_outcome: $j" ;; esac
j=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --json --allocator pytorch --device-memory 1MiB)
case "$j" in *'"outcome":"oom"'*'"device_outcome":"oom","device_oom_cmd":0,"device_oom_bytes":4096'*) ok "a device too small fails the run" ;;
	*) no "device too small: $j" ;; esac
out=$("$R" replay "$L" --heuristic DTR --ratio 0.5 --allocator pytorch:expandable_segments:True)
case "$out" in *"device (pytorch:expandable_segments:True): reserved peak 2097152"*) ok "replay --allocator text" ;;
	*) no "replay --allocator text: $out" ;; esac
# --timeline with --allocator: two more columns (the device's allocated and
# reserved bytes after each event); without it, the columns are unchanged.
"$R" replay "$L" --heuristic DTR --ratio 0.5 --timeline tl.tsv >/dev/null
"$R" replay "$L" --heuristic DTR --ratio 0.5 --allocator pytorch --timeline tld.tsv >/dev/null
[ "$(head -1 tl.tsv)" = "$(printf 'clock\tmemory\tevent\top\tstorage\tbudget\tline\tbytes')" ] &&
	ok "timeline columns without --allocator" || no "timeline header: $(head -1 tl.tsv)"
awk -F'\t' 'NR == 1 { if ($9 != "device_allocated" || $10 != "reserved") exit 1; next }
	NF != 10 || $9 + 0 > $10 + 0 { exit 1 }
	$3 == "evict" && $9 + 0 < $2 + 0 { exit 1 }' tld.tsv &&
	ok "timeline with --allocator: device_allocated at least the replay's bytes, at most reserved" ||
	no "timeline with --allocator: $(head -3 tld.tsv)"
cut -f1-8 tld.tsv | tail -n +2 > a.tsv; tail -n +2 tl.tsv > b.tsv
cmp -s a.tsv b.tsv && ok "the timeline's own columns unchanged by --allocator" || no "timeline columns differ"
if command -v gnuplot >/dev/null 2>&1; then
	gnuplot -c "$REMATSIM_SOURCE/plots/replay-device.gp" tld.tsv rd.png 'chain8' 2>/dev/null && [ -s rd.png ] &&
		ok "plots/replay-device.gp draws it" || no "plots/replay-device.gp"
fi
bad 64 "--allocator of another name" "the allocator modelled is pytorch" "$R" replay "$L" --heuristic DTR --ratio 0.5 --allocator tcmalloc
bad 64 "--allocator with an unknown setting" "unknown setting 'foo'" "$R" replay "$L" --heuristic DTR --ratio 0.5 --allocator pytorch:foo:1
bad 64 "--device-memory without --allocator" "needs --allocator" "$R" replay "$L" --heuristic DTR --ratio 0.5 --device-memory 1GiB

# The three public snapshots (../shared/snapshots): every allocation at its
# recorded address, every segment_alloc matched.
S=${REMATSIM_SHARED:-}/snapshots
if [ -n "${REMATSIM_SHARED:-}" ] && [ -d "$S" ]; then
	for f in magma27-assignment2 cranberrii-ftcourse kkaitlyn111-ctx128-fullstep; do
		j=$("$R" snapshot "$S/$f.pickle" --json)
		a=$(field "$j" allocs) m=$(field "$j" addresses_matched)
		s=$(field "$j" segment_allocs) sm=$(field "$j" segment_allocs_matched)
		[ -n "$a" ] && [ "$a" = "$m" ] && [ "$s" = "$sm" ] && ok "$f: $m of $a addresses, $sm of $s segment_allocs" ||
			no "$f: $m of $a addresses, $sm of $s segment_allocs"
	done
else
	echo "# no ../shared/snapshots: the public snapshots are skipped"
fi
exit $fail
