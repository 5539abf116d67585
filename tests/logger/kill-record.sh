#!/bin/sh
# kill-record.sh RECORD: a recording killed half-way leaves no log under
# the name asked for (the logger writes a unique NAME.tmp.XXXXXXXX and
# renames it only when the log is complete, after its meta file), a kill
# between the two renames leaves no log without its meta file, and a
# finished one leaves exactly the log and its meta file. --out is checked
# before any work and never replaces a special file or a symbolic link;
# SIGINT, SIGTERM and SIGHUP leave no temporary file; --seed is >= 0.
set -u
record=$1
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
"$record" --model mlp --batch 256 --width 1024 --depth 8 --out "$dir/k.log.gz" 2>/dev/null &
pid=$!
# Wait for the temporary file, then kill at once (the recording takes seconds).
i=0
while [ -z "$(ls "$dir" | grep '^k\.log\.gz\.tmp\.')" ] && [ $i -lt 500 ]; do
	sleep 0.01
	i=$((i + 1))
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
if [ -e "$dir/k.log.gz" ] || [ -e "$dir/k.meta.json" ]; then
	echo "FAIL a killed recording left $(ls "$dir")"
	exit 1
fi
echo "ok killed recording left no log (only: $(ls "$dir" | tr '\n' ' '))"
"$record" --model mlp --batch 8 --width 32 --depth 2 --out "$dir/done.log.gz" 2>/dev/null ||
	{ echo "FAIL small recording"; exit 1; }
left=$(ls "$dir" | grep '^done' | tr '\n' ' ')
if [ "$left" != "done.log.gz done.meta.json " ]; then
	echo "FAIL a finished recording left: $left"
	exit 1
fi
echo "ok finished recording left exactly: $left"
OPLOG_TEST_KILL_BETWEEN_RENAMES=1 "$record" --model mlp --batch 8 --width 32 --depth 2 \
	--out "$dir/between.log.gz" 2>/dev/null
if [ -e "$dir/between.log.gz" ] && [ ! -e "$dir/between.meta.json" ]; then
	echo "FAIL a kill between the renames left a log without its meta file"
	exit 1
fi
echo "ok a kill between the renames left: $(ls "$dir" | grep '^between' | tr '\n' ' ')"
"$record" --model mlp --out /dev/full 2>"$dir/err"; st=$?
if [ $st -ne 73 ] || ! grep -q "not a regular file" "$dir/err" || [ ! -c /dev/full ]; then
	echo "FAIL --out /dev/full: status $st, $(cat "$dir/err")"
	exit 1
fi
echo "ok --out /dev/full refused (73) before recording"
# SIGINT and SIGTERM mid-recording: no log, and no temporary left either
# (issue 27, D17).
for sig in INT TERM HUP; do
	# (a shell starts background commands with SIGINT ignored: env restores it)
	env --default-signal=$sig "$record" --model mlp --batch 256 --width 1024 --depth 8 \
		--out "$dir/$sig.log.gz" 2>/dev/null &
	pid=$!
	i=0
	while [ -z "$(ls "$dir" | grep "^$sig\.log\.gz\.tmp\.")" ] && [ $i -lt 500 ]; do
		sleep 0.01
		i=$((i + 1))
	done
	kill -s $sig $pid 2>/dev/null
	wait $pid 2>/dev/null
	left=$(ls "$dir" | grep "^$sig\." | tr '\n' ' ')
	if [ -n "$left" ]; then
		echo "FAIL SIG$sig mid-recording left: $left"
		exit 1
	fi
	echo "ok SIG$sig mid-recording left nothing of $sig.log.gz"
done
# A symbolic link is refused before recording: renaming would replace it.
: > "$dir/target.log"
ln -s target.log "$dir/link.log"
"$record" --model mlp --out "$dir/link.log" 2>"$dir/err"; st=$?
if [ $st -ne 73 ] || ! grep -q "symbolic link" "$dir/err" || [ ! -L "$dir/link.log" ] || [ -s "$dir/target.log" ]; then
	echo "FAIL --out a symbolic link: status $st, $(cat "$dir/err")"
	exit 1
fi
echo "ok --out a symbolic link refused (73) before recording"
"$record" --model mlp --seed -1 --out "$dir/s.log" 2>/dev/null; st=$?
[ $st -eq 64 ] || { echo "FAIL --seed -1: status $st"; exit 1; }
echo "ok --seed -1 refused (64)"
"$record" --model mlp --measure-link --out "$dir/l.log" 2>/dev/null; st=$?
[ $st -eq 64 ] && [ ! -e "$dir/l.log" ] || { echo "FAIL --measure-link on the CPU: status $st"; exit 1; }
echo "ok --measure-link on the CPU refused (64)"
