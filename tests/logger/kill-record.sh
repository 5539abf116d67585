#!/bin/sh
# kill-record.sh RECORD: a recording killed half-way leaves no log under
# the name asked for (the logger writes NAME.tmp.PID and renames it only
# when the log is complete), and a finished one leaves exactly the log and
# its meta file.
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
