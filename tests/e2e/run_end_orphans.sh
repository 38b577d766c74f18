#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing of loadd outlives it or is kept from its starter: the probe's job
# dies when loadd is killed with SIGKILL, and --daemon closes what it
# inherited (a pipe its starter waits on).
source "$(dirname "$0")/lib.sh"

prof=$(profile long <<'EOF2'
[run]
settle = 0s
[probe]
job = sleep 37
timeout = 60s
tree = depth=1 fanout=2 files=2
[phase none]
duration = 60s
EOF2
)
start_loadd --profile "$prof"
job=""
for ((i = 0; i < 300; i++)); do
	job=$(ps -o pid=,comm= --ppid "$LOADD_PID" | awk '$2 == "sleep" { print $1 }' || true)
	[[ -n $job ]] && break
	sleep 0.1
done
[[ -n $job ]] || fail "the job never started"
STARTED_PIDS+=("$job")
kill -KILL "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
for ((i = 0; i < 50; i++)); do
	kill -0 "$job" 2>/dev/null || break
	sleep 0.1
done
! kill -0 "$job" 2>/dev/null || fail "the probe's job $job outlived loadd"

# A pipe inherited on fd 7: the reader sees its end as soon as loadd has
# detached, not when the run ends a minute later.
rm -f "$SOCK"
status=0
timeout 30 bash -c '("$1" --db "$2" --workdir "$3" --socket "$4" --daemon --pidfile "$5" \
	--profile "$6" 7>&1 >/dev/null 2>"$7") | cat >/dev/null' _ \
	"$LOADD" "$DB" "$WORK" "$SOCK" "$T/loadd.pid" "$prof" "$T/daemon.err" || status=$?
[[ -s "$T/loadd.pid" ]] && STARTED_PIDS+=("$(cat "$T/loadd.pid")")
[[ $status == 0 ]] || fail "the starter's pipe stayed open in the daemon (status $status): $(cat "$T/daemon.err")"
pid=$(cat "$T/loadd.pid")
"$LOADCTL" --socket "$SOCK" stop >/dev/null 2>&1 || kill -TERM "$pid"
for ((i = 0; i < 100; i++)); do
	kill -0 "$pid" 2>/dev/null || break
	sleep 0.1
done
echo PASS
