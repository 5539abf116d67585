#!/bin/sh
# run.sh SCRIPT [ARGS]: run a test script of the torch recorder with a
# Python that has torch (REMATSIM_PYTHON, else python3, else Debian's
# /usr/bin/python3), the recorder (recorders/torch) on its path. Exits 77
# (skipped) when no Python here has torch: `scripts/setup` installs
# python3-torch and python3-torchvision.
set -u
for py in "${REMATSIM_PYTHON:-}" python3 /usr/bin/python3; do
	[ -n "$py" ] || continue
	if "$py" -c 'import torch' >/dev/null 2>&1; then
		PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$REMATSIM_SOURCE/recorders/torch${PYTHONPATH:+:$PYTHONPATH}" \
			exec "$py" "$@"
	fi
done
echo "skipped: no python3 with torch here (Debian: python3-torch)"
exit 77
