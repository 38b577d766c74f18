#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# --daemon: loadd returns once its run has started and goes on detached (its
# own session, stdin from /dev/null, stderr into --log, cwd /), with a pid
# file; loadctl stop ends it and both the pid file and the socket go. A
# start-up error still reaches the terminal, with exit status 1.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/api_helpers.sh"

prof=$(api_profile)
daemon() {
	"$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" --daemon --pidfile "$T/loadd.pid" \
		--log "$T/loadd.log" --profile "$prof" "$@"
}

# Errors after the fork still come back: message on stderr, exit 1, nothing left.
status=0
daemon --listen nonsense >"$T/out" 2>"$T/err" || status=$?
[[ $status == 1 ]] || fail "--daemon with a bad --listen exited $status"
grep -q "listen nonsense: expected ADDRESS:PORT" "$T/err" || fail "no error on the terminal: $(cat "$T/err")"
[[ ! -e $SOCK && ! -e $T/loadd.pid ]] || fail "a failed start left its socket or pid file"

status=0
daemon >"$T/out" 2>"$T/err" || status=$?
[[ $status == 0 ]] || fail "loadd --daemon exited $status: $(cat "$T/err")"
grep -q "running in the background as pid" "$T/err" || fail "no word of the background: $(cat "$T/err")"
LOADD_PID=$(cat "$T/loadd.pid")
STARTED_PIDS+=("$LOADD_PID")
kill -0 "$LOADD_PID" || fail "the daemon is not running"
[[ $(ps -o sid= -p "$LOADD_PID" | tr -d ' ') != $(ps -o sid= -p $$ | tr -d ' ') ]] ||
	fail "the daemon shares the test's session"
[[ $(readlink "/proc/$LOADD_PID/fd/0") == /dev/null ]] || fail "stdin is not /dev/null"
[[ $(readlink "/proc/$LOADD_PID/fd/1") == /dev/null ]] || fail "stdout is not /dev/null"
[[ $(readlink "/proc/$LOADD_PID/fd/2") == "$T/loadd.log" ]] || fail "stderr is not the log"
[[ $(readlink "/proc/$LOADD_PID/cwd") == / ]] || fail "cwd is not /"

wait_for_api
for ((i = 0; i < 100; i++)); do
	grep -q "phase none: n=" "$T/loadd.log" && break
	sleep 0.1
done
grep -Eq '^[0-9-]+ [0-9:]+ loadd: round 1/1 phase none: n=' "$T/loadd.log" ||
	fail "the log has no timestamped phase line: $(cat "$T/loadd.log")"

"$LOADCTL" stop --socket "$SOCK" >/dev/null || fail "loadctl stop failed"
for ((i = 0; i < 600; i++)); do
	kill -0 "$LOADD_PID" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$LOADD_PID" 2>/dev/null && fail "the daemon did not exit"
[[ ! -e $T/loadd.pid ]] || fail "pid file left behind"
[[ ! -e $SOCK ]] || fail "socket left behind"
[[ $(sql "select status from runs") == aborted ]] || fail "run not aborted"
grep -q "stop requested through the control API" "$T/loadd.log" || fail "the stop is not in the log"

# A daemon's run that completes puts its report in the log.
short=$(profile short <<'EOF2'
[run]
settle = 0s
[probe]
every = 200ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
EOF2
)
prof=$short
daemon >/dev/null 2>"$T/err" || fail "second daemon: $(cat "$T/err")"
LOADD_PID=$(cat "$T/loadd.pid")
STARTED_PIDS+=("$LOADD_PID")
for ((i = 0; i < 300; i++)); do
	kill -0 "$LOADD_PID" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$LOADD_PID" 2>/dev/null && fail "the short daemon run did not end"
grep -q "^Run       2 (complete)" "$T/loadd.log" || fail "no report in the log: $(tail -20 "$T/loadd.log")"
echo "ok: detached, logged, stopped; a complete run's report in the log"
