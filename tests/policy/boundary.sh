#!/bin/sh
# boundary.sh PROBE.c INCLUDE_DIR... -- CC...: the policy boundary holds.
# Compiles each variant of PROBE.c (-fsyntax-only) as a heuristic file:
# variant 0 reads the replay through policy.h's queries and must compile
# (else the probe is broken and so is this test); variants 1-5 read the
# runtime's state (a part, a shared field, through a cast, through
# policy.h's casts) and must fail, for that reason: the compiler's message
# names the opaque struct policy or a poisoned name.
set -u
. "$(dirname "$0")/../cli-lib.sh"
probe=$1
shift
inc=""
while [ $# -gt 0 ] && [ "$1" != "--" ]; do
	inc="$inc -I$1"
	shift
done
[ $# -gt 1 ] || { echo "usage: boundary.sh PROBE.c INCLUDE_DIR... -- CC..." >&2; exit 64; }
shift
cc="$*" # the compiler's words (meson's cmd_array: no spaces within one)
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
export LC_ALL=C

compile() { # VARIANT: its status; the messages in $tmp/err
	# shellcheck disable=SC2086
	$cc -std=c11 -D_GNU_SOURCE -fsyntax-only $inc -DPROBE="$1" "$probe" >"$tmp/err" 2>&1
}

if compile 0; then
	ok "a heuristic reading the queries of policy.h compiles"
else
	no "the probe's control (queries only) does not compile"
	sed 's/^/# /' "$tmp/err"
fi

refused() { # VARIANT WHAT PATTERN: must fail, with a message matching PATTERN
	if compile "$1"; then
		no "variant $1 ($2) compiled: the boundary leaks"
	elif grep -Eq "$3" "$tmp/err"; then
		ok "variant $1 ($2) is refused"
	else
		no "variant $1 ($2) failed, but not at the boundary"
		sed 's/^/# /' "$tmp/err"
	fi
}

# GCC: "invalid use of undefined type 'struct policy'"; clang: "incomplete
# definition of type 'struct policy'". Poisoned names: "attempt to use
# poisoned" (GCC), "attempt to use a poisoned identifier" (clang).
opaque="(undefined|incomplete definition of) type .struct policy."
poisoned="attempt to use (a )?poisoned"
refused 1 "a part of the state: rt->pool" "$opaque"
refused 2 "a shared field: rt->clock" "$opaque"
refused 3 "a cast to struct runtime_state" "$poisoned"
refused 4 "policy.h's cast pol_state" "$poisoned"
refused 5 "policy.h's cast pol_state_mut" "$poisoned"
exit $fail
