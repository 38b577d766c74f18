# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced by every end-to-end test: a private temp dir with its own database,
# work dir and socket; every process a test starts is stopped by PID at exit.
set -euo pipefail

: "${LOADD:?set LOADD to the loadd binary}"
: "${LOADCTL:?set LOADCTL to the loadctl binary}"
: "${SRC:?set SRC to the source tree}"

T=$(mktemp -d "${TMPDIR:-/tmp}/loadd-e2e.XXXXXX")
# The loads and the job run unprivileged (as nobody under root): they must
# reach their files in here.
chmod 0755 "$T"
DB="$T/loadd.db"
WORK="$T/work"
SOCK="$T/loadd.sock"
STARTED_PIDS=()
# Every process this test starts inherits this mark, so a test can tell its
# own processes from those of tests running beside it.
export LOADD_E2E_MARK="$T"

# Prints the PIDs of live processes that carry this test's mark.
own_processes() {
	local pid
	for pid in /proc/[0-9]*; do
		[[ $pid == "/proc/$BASHPID" ]] && continue
		tr '\0' '\n' <"$pid/environ" 2>/dev/null | grep -qxF "LOADD_E2E_MARK=$T" &&
			echo "${pid#/proc/}"
	done
	return 0
}

cleanup() {
	local pid
	for pid in "${STARTED_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
	done
	rm -rf "$T"
}
trap cleanup EXIT

fail() {
	echo "FAIL: $*" >&2
	exit 1
}

# The ids of the System V message queues there now, one a line.
sysv_queue_ids() {
	ipcs -q | awk '$1 ~ /^0x/ { print $2 }' | sort
}

# Prints the System V queues there now that were not in $1 (sysv_queue_ids'
# earlier output) and are still there a second later: other tests on the
# machine make and remove queues of their own meanwhile, a left one stays.
sysv_queues_left() {
	local new
	new=$(comm -13 <(echo "$1") <(sysv_queue_ids))
	[[ -z $new ]] && return 0
	sleep 1
	comm -12 <(echo "$new") <(sysv_queue_ids)
}

skip() {
	echo "SKIP: $*" >&2
	exit 77
}

# Writes a profile to $T/NAME.conf (content on stdin) and prints its path.
profile() {
	cat >"$T/$1.conf"
	echo "$T/$1.conf"
}

# The smallest run with a load, for the tests of what reads runs (report,
# compare, check): phases none and cpu of 1 s each, three rounds, the job
# every 100 ms over a small tree. Writes $T/tiny.conf and prints its path.
tiny_profile() {
	profile tiny <<'EOF'
[run]
settle = 0s
rounds = 3
[probe]
every = 100ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
[phase cpu]
duration = 1s
loads = cpu
[load cpu]
type = cpu
procs = 2
expect = none         ; a small ring on purpose: not to be flagged weak
EOF
}

# Writes the profile on stdin to $T/NAME.conf and runs loadd on it in the
# foreground (options after NAME go to loadd); its report goes to $T/NAME.out
# and its stderr to $T/NAME.err, which the failure shows when loadd fails.
run_profile() { # NAME [LOADD-OPTION...]
	local name=$1
	shift
	profile "$name" >/dev/null
	run_loadd --profile "$T/$name.conf" "$@" >"$T/$name.out" 2>"$T/$name.err" ||
		fail "loadd failed on profile $name: $(cat "$T/$name.err")"
}

# Runs loadctl; its status in RC, stdout in $T/out, stderr in $T/err.
ctl() {
	set +e
	"$LOADCTL" "$@" >"$T/out" 2>"$T/err"
	RC=$?
	set -e
}

# After ctl: fails unless loadctl exited STATUS with TEXT (a fixed string; empty:
# anything) in its stderr. WHAT names the case in the failure.
ctl_expect() { # STATUS TEXT WHAT...
	local want=$1 text=$2
	shift 2
	[[ $RC -eq $want ]] || fail "$*: exit $RC, want $want; stdout: $(cat "$T/out"); stderr: $(cat "$T/err")"
	[[ -z "$text" ]] || grep -qF -- "$text" "$T/err" ||
		fail "$*: stderr lacks '$text': $(cat "$T/err")"
}

# Runs COMMAND; fails unless it exits STATUS with stderr matching the extended
# regular expression PATTERN. Its stdout is in $T/out, its stderr in $T/err.
expect() { # STATUS PATTERN COMMAND...
	local want=$1 pattern=$2 got=0
	shift 2
	"$@" >"$T/out" 2>"$T/err" || got=$?
	[[ $got == "$want" ]] || fail "'$*' exited $got, want $want: $(cat "$T/err")"
	grep -Eq -- "$pattern" "$T/err" || fail "'$*': message does not match '$pattern': $(cat "$T/err")"
}

# Runs loadd in the foreground with the test's database, work dir and socket.
run_loadd() {
	"$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" "$@"
}

# Starts loadd in the background; its PID is in LOADD_PID, its stderr in $T/loadd.err.
start_loadd() {
	"$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" "$@" 2>"$T/loadd.err" &
	LOADD_PID=$!
	STARTED_PIDS+=("$LOADD_PID")
}

sql() {
	sqlite3 -batch -noheader "$DB" "$1"
}

# Waits up to $2 seconds (default 30) for the SQL query $1 to print a non-zero first field.
wait_for_sql() {
	local query=$1 limit=${2:-30} i
	for ((i = 0; i < limit * 10; i++)); do
		local v
		v=$(sql "$query" 2>/dev/null || true)
		if [[ -n "$v" && "$v" != 0 ]]; then
			return 0
		fi
		sleep 0.1
	done
	fail "timed out waiting for: $query"
}

need_root() {
	[[ $(id -u) -eq 0 ]] || skip "needs root"
}
