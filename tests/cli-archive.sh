#!/bin/sh
# cli-archive.sh REMATSIM: info and check on the paper's artifact layout
# (../shared/dtr-logs/dev-logs.zip): the listing, a whole archive, a model
# by name, a missing model. Skipped (77) when ../shared is absent, so a
# run without the data says so instead of passing on less.
set -u
R=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
. "$(dirname "$0")/cli-lib.sh"
S=${REMATSIM_SHARED:-}
z="$S/dtr-logs/dev-logs.zip"
if [ -z "$S" ] || [ ! -f "$z" ]; then
	echo "no ../shared/dtr-logs/dev-logs.zip: skipped"
	exit 77
fi
out=$("$R" info "$z") && case "$out" in *"U-Net (6)"*"416x608"*) ok "archive listing" ;; *) no "listing: $out" ;; esac
expect_status 0 "check a whole archive" "$R" check "$z"
expect_status 0 "model by name" "$R" info "$z:Transformer (10)"
expect_status 66 "missing model" "$R" info "$z:No Such Net"
exit $fail
