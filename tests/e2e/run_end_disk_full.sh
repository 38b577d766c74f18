#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A disk that fills under the database mid-run: loadd ends the run, records
# it as failed with the reason, and leaves no socket or pid file. Needs root
# (a small tmpfs is mounted under the test's dir and unmounted after).
source "$(dirname "$0")/lib.sh"
need_root

mnt="$T/dbfs"
mkdir "$mnt"
mount -t tmpfs -o size=1m,mode=0755 loadd-test "$mnt" || skip "cannot mount a tmpfs"
trap 'umount "$mnt" 2>/dev/null || umount -l "$mnt"; cleanup' EXIT
DB="$mnt/loadd.db"

prof=$(profile fill <<'EOF2'
[run]
settle = 0s
[probe]
tree = depth=1 fanout=2 files=2
every = 10ms
[phase none]
duration = 120s
EOF2
)
start_loadd --profile "$prof" --pidfile "$T/loadd.pid"
status=0
for ((i = 0; i < 1200; i++)); do
	kill -0 "$LOADD_PID" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$LOADD_PID" 2>/dev/null && fail "loadd still runs with its database's disk full"
wait "$LOADD_PID" || status=$?
[[ $status == 1 ]] || fail "loadd exited $status, want 1: $(tail -5 "$T/loadd.err")"
grep -q "disk under the database is full" "$T/loadd.err" || fail "no message: $(tail -5 "$T/loadd.err")"
[[ $(sql "select status from runs") == failed ]] ||
	fail "the run is '$(sql "select status from runs")', not failed"
[[ -n $(sql "select ended_at from runs") ]] || fail "the run has no end time"
[[ $(sql "select count(*) from phases where ended_at is null") == 0 ]] || fail "a phase has no end time"
sql "select message from events" | grep -q "disk under the database is full" ||
	fail "no event gives the reason: $(sql "select kind, message from events")"
[[ ! -e "$SOCK" && ! -e "$T/loadd.pid" ]] || fail "the socket or pid file was left"
[[ ! -e "$DB.reserve" ]] || fail "the reserve file was left"
echo PASS
