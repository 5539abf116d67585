# cli-lib.sh: helpers sourced by the CLI tests (cli-*.sh): TAP-style
# ok/not ok lines, a failure flag, and status checks (with the message).
fail=0
ok() { echo "ok - $1"; }
no() { echo "not ok - $1"; fail=1; }

expect_status() { # WANT DESC CMD...
	want=$1 desc=$2; shift 2
	"$@" >/dev/null 2>&1; got=$?
	[ "$got" -eq "$want" ] && ok "$desc ($got)" || no "$desc: status $got, wanted $want"
}

bad() { # STATUS DESC NEEDLE CMD...: the status, and NEEDLE in what it says
	want=$1 desc=$2 needle=$3; shift 3
	m=$("$@" 2>&1 >/dev/null); got=$?
	[ "$got" -eq "$want" ] && ok "$desc ($got)" || no "$desc: status $got, wanted $want"
	case "$m" in *"$needle"*) ok "$desc says '$needle'" ;; *) no "$desc: message '$m'" ;; esac
}
