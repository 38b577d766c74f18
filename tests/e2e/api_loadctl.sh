#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loadctl drives a running loadd: status (table and --json), stop (the run
# kept as aborted, its samples too). With no daemon, status and stop say so
# in one line and exit 1, while runs, report and export still read the
# database. A second loadd on the same socket refuses before it touches its
# database; a stale socket file is replaced.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/api_helpers.sh"

# A stale socket, as a crashed loadd leaves it: bound, nobody listening.
"$PYTHON" -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$SOCK"
[[ -S $SOCK ]] || fail "could not make a stale socket"

start_loadd --profile "$(api_profile)"
wait_for_api
grep -q "replaced the stale control socket $SOCK" "$T/loadd.err" ||
	fail "no word about the stale socket: $(cat "$T/loadd.err")"

"$LOADCTL" status --socket "$SOCK" >"$T/status" || fail "loadctl status failed"
grep -q "^run 1: profile api, running" "$T/status" || fail "status: $(cat "$T/status")"
grep -Eq "phase 2 of 2: cpu .*probing" "$T/status" || fail "status has no phase: $(cat "$T/status")"
grep -Eq "^  cpu +cpu +[0-9]+ +0 +[0-9]+ " "$T/status" || fail "status has no load row: $(cat "$T/status")"
grep -q "latest jobs of phase cpu" "$T/status" || fail "status has no jobs: $(cat "$T/status")"
"$LOADCTL" status --json --socket "$SOCK" >"$T/status.json" || fail "loadctl status --json failed"
"$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d["run"]["id"] == 1' "$T/status.json" ||
	fail "status --json: $(cat "$T/status.json")"

# A second loadd on the same socket refuses, before it makes its database.
status=0
"$LOADD" --db "$T/second.db" --workdir "$T/work2" --socket "$SOCK" --profile "$(api_profile)" \
	>/dev/null 2>"$T/second.err" || status=$?
[[ $status == 1 ]] || fail "second loadd exited $status, want 1: $(cat "$T/second.err")"
grep -q "another loadd is running (socket $SOCK answers)" "$T/second.err" ||
	fail "second loadd: $(cat "$T/second.err")"
[[ $(wc -l <"$T/second.err") == 1 ]] || fail "more than one line: $(cat "$T/second.err")"
[[ ! -e $T/second.db ]] || fail "the refused loadd made its database"
kill -0 "$LOADD_PID" || fail "the first loadd died"
[[ -S $SOCK ]] || fail "the refused loadd removed the live socket"

# loadctl stop: returns once the run has ended, kept as aborted with its samples.
before=$(sql "select count(*) from samples")
"$LOADCTL" stop --socket "$SOCK" >"$T/stop" || fail "loadctl stop failed: $(cat "$T/stop")"
grep -q "run 1 stopped" "$T/stop" || fail "stop said: $(cat "$T/stop")"
[[ $(sql "select status from runs where id = 1") == aborted ]] || fail "run not aborted after loadctl stop returned"
after=$(sql "select count(*) from samples")
(( after >= before && before > 0 )) || fail "samples lost: $before before the stop, $after after"
[[ $(sql "select count(*) from phases where ended_at is null or ended_at = 0") == 0 ]] ||
	fail "a phase was left open"
wait_for_exit
[[ $LOADD_STATUS == 0 ]] || fail "loadd exited $LOADD_STATUS after loadctl stop"
[[ ! -e $SOCK ]] || fail "socket left behind"

# No daemon: one clear line, exit 1.
for cmd in status stop; do
	status=0
	"$LOADCTL" "$cmd" --socket "$SOCK" >"$T/out" 2>"$T/err" || status=$?
	[[ $status == 1 ]] || fail "loadctl $cmd without loadd exited $status"
	[[ $(cat "$T/err") == "loadctl: error: no loadd running (no answer on $SOCK)" ]] ||
		fail "loadctl $cmd without loadd said: $(cat "$T/err")"
	[[ ! -s $T/out ]] || fail "loadctl $cmd printed: $(cat "$T/out")"
done
# The stale socket again: nobody answers there either.
"$PYTHON" -c 'import socket, sys; s = socket.socket(socket.AF_UNIX); s.bind(sys.argv[1]); s.close()' "$SOCK"
status=0
"$LOADCTL" status --socket "$SOCK" 2>"$T/err" || status=$?
[[ $status == 1 ]] && grep -q "no loadd running" "$T/err" || fail "stale socket: $status $(cat "$T/err")"

# The database commands need no daemon.
"$LOADCTL" --db "$DB" runs | grep -Eq "^ *1 +aborted +api" || fail "loadctl runs: $("$LOADCTL" --db "$DB" runs)"
"$LOADCTL" --db "$DB" report 1 >"$T/report" || fail "loadctl report failed"
"$LOADCTL" --db "$DB" export --run 1 "$T/samples.csv" || fail "loadctl export failed"
[[ $(($(wc -l <"$T/samples.csv") - 1)) == "$after" ]] || fail "export does not hold every sample"
echo "ok: loadctl status and stop; $after samples kept"
