#!/bin/sh
# cli-calls.sh OBJDIR: the commands do not call each other (issue 39, item
# 6). OBJDIR holds the rematsim executable's objects (build/rematsim.p).
# A command's files are sim/cli/cmd_NAME.c and cmd_NAME_*.c (solve and
# solve_knapsack, bench and bench_scale); what several commands share lives
# in helper files (cmd_opts.c, cmd_json.c, archive.c), which any command may
# call. A command file that takes a symbol from another command's file
# fails here, naming both and the symbol.
set -u
dir=$1
command -v nm >/dev/null 2>&1 || { echo "1..0 # SKIP nm is missing"; exit 77; }
cd "$dir" || exit 1
# the command a cmd object belongs to: its first word after cmd_
group() { echo "$1" | sed -n 's/^sim_cli_cmd_\([a-z]*\).*/\1/p'; }
fail=0
n=0
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
# each object's defined and undefined global symbols, read once
for o in sim_cli_cmd_*.o; do
	nm -g --defined-only "$o" | awk '{print $NF}' | sort -u >"$tmp/$o.def"
	nm -u "$o" | awk '{print $NF}' | sort -u >"$tmp/$o.undef"
done
for o in sim_cli_cmd_*.o; do
	g=$(group "$o")
	case $g in opts | json) continue ;; esac
	n=$((n + 1))
	for p in sim_cli_cmd_*.o; do
		pg=$(group "$p")
		[ "$pg" = "$g" ] && continue
		case $pg in opts | json) continue ;; esac
		for s in $(comm -12 "$tmp/$p.def" "$tmp/$o.undef"); do
			echo "not ok - $o calls $s from $p (another command's file: move it to a helper)"
			fail=1
		done
	done
done
[ "$n" -gt 10 ] || { echo "not ok - only $n command objects in $dir"; exit 1; }
[ $fail -eq 0 ] && echo "ok - $n command files call no other command's code"
exit $fail
