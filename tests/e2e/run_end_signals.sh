#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every stop signal, from start-up on, ends loadd cleanly: SIGHUP and SIGQUIT
# during a run record it as aborted with exit 128 + N; SIGTERM and SIGHUP
# while the probe's tree is being built stop the build. Either way no
# socket, pid file or incomplete tree is left behind.
source "$(dirname "$0")/lib.sh"

short=$(profile short <<'EOF2'
[run]
settle = 0s
[probe]
tree = depth=1 fanout=2 files=2
every = 100ms
[phase none]
duration = 60s
EOF2
)

# A run stopped by SIGHUP or SIGQUIT, signalled once it is recorded.
for sig in HUP QUIT; do
	rm -f "$DB"
	start_loadd --profile "$short" --pidfile "$T/loadd.pid"
	wait_for_sql "select count(*) from samples" 30
	kill -"$sig" "$LOADD_PID"
	status=0
	wait "$LOADD_PID" || status=$?
	want=$((128 + $(kill -l "$sig")))
	[[ $status == "$want" ]] || fail "SIG$sig: loadd exited $status, want $want: $(cat "$T/loadd.err")"
	[[ $(sql "select status from runs") == aborted ]] ||
		fail "SIG$sig: the run is $(sql "select status from runs"), not aborted"
	[[ -n $(sql "select ended_at from runs") ]] || fail "SIG$sig: no end time"
	[[ ! -e "$SOCK" && ! -e "$T/loadd.pid" ]] || fail "SIG$sig: the socket or pid file was left"
done

# A tree that takes a while to build, signalled mid-build.
big=$(profile big <<'EOF2'
[probe]
tree = depth=5 fanout=8 files=4
[phase none]
duration = 5s
EOF2
)
trees_before=$(ls -d "$WORK"/tree-* | wc -l)
for sig in TERM HUP; do
	rm -f "$DB"
	start_loadd --profile "$big" --pidfile "$T/loadd.pid"
	for ((i = 0; i < 300; i++)); do
		grep -q "building the tree" "$T/loadd.err" 2>/dev/null && break
		sleep 0.1
	done
	grep -q "building the tree" "$T/loadd.err" || fail "the tree build never started"
	sleep 0.5
	kill -"$sig" "$LOADD_PID"
	status=0
	wait "$LOADD_PID" || status=$?
	want=$((128 + $(kill -l "$sig")))
	[[ $status == "$want" ]] ||
		fail "SIG$sig during the tree build: exited $status, want $want: $(cat "$T/loadd.err")"
	grep -q "while building the probe's tree" "$T/loadd.err" ||
		fail "SIG$sig during the build: no message: $(cat "$T/loadd.err")"
	[[ $(sql "select count(*) from runs where status = 'running'") == 0 ]] ||
		fail "SIG$sig during the build left a running run"
	[[ ! -e "$SOCK" && ! -e "$T/loadd.pid" ]] || fail "SIG$sig during the build left the socket or pid file"
	[[ $(ls -d "$WORK"/tree-* | wc -l) == "$trees_before" ]] || fail "SIG$sig left an incomplete tree"
done
echo PASS
