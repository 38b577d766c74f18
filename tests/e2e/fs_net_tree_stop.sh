#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing of the fs, net and tree loads is left behind: no process of their
# groups (dbench's clients and tar included) and no file after loadd stops
# them, none of their processes 2 s after a kill -9 of loadd, and their
# files swept at the next start. Needs dbench (package dbench).
source "$(dirname "$0")/lib.sh"

command -v dbench >/dev/null || skip "needs dbench (package dbench)"

prof=$(profile all <<'EOF2'
[run]
settle = 0s
[probe]
every = 500ms
tree = depth=2 fanout=3 files=4
[phase all]
duration = 2m
loads = fs net tree
[load fs]
type = fs
clients = 2
runtime = 60s
[load net]
type = net
clients = 2
file_size = 64K
[load tree]
type = tree
tree = depth=2 fanout=4 files=8 size=4K
EOF2
)

# Waits until every load of run $1 has counted something; prints the
# process group of each (from its start event) as "name pgid" lines.
wait_running() {
	wait_for_sql "select count(*) = 3 from (select load from loader_stats s join phases p
		      on p.id = s.phase_id where p.run_id = $1 group by load
		      having max(s.ops) > 0 or max(s.cycles) > 0)" 60
	sql "select load, message from events where kind = 'start' and run_id = $1" |
		sed -n 's/^\([a-z]*\)|.*(pid \([0-9]*\)).*/\1 \2/p'
}

# Processes of group $1 that still run, as "pid state name" lines. A zombie
# is not running: orphans go to init, which may reap them later.
group_live() {
	local stat rest pid state pgrp
	for stat in /proc/[0-9]*/stat; do
		rest=$(cat "$stat" 2>/dev/null) || continue
		pid=${rest%% *}
		rest=${rest##*) }
		read -r state _ pgrp _ <<<"$rest"
		if [[ $pgrp == "$1" && $state != Z ]]; then
			echo "$pid $state $(cat "/proc/$pid/comm" 2>/dev/null)"
		fi
	done
}

leftover_files() {
	ls -A "$WORK" | grep -v -e '^tree-' -e '^tar-trees$' -e '^\.lock$' -e '^\.loadd-' || true
}

# 1. loadd stopped with SIGTERM stops its loads, and they leave nothing.
start_loadd --profile "$prof"
groups=$(wait_running 1)
[[ $(wc -l <<<"$groups") == 3 ]] || fail "want 3 start events, got: $groups"
fs_pgid=$(awk '$1 == "fs" { print $2 }' <<<"$groups")
pgrep -g "$fs_pgid" -x dbench >/dev/null || fail "no dbench in the fs load's group"
(( $(pgrep -g "$fs_pgid" -x dbench | wc -l) >= 3 )) || fail "dbench runs without its 2 clients"
kill -TERM "$LOADD_PID"
status=0
wait "$LOADD_PID" || status=$?
[[ $status == 143 ]] || fail "loadd exited $status after SIGTERM, want 143: $(cat "$T/loadd.err")"
while read -r name pgid; do
	left=$(group_live "$pgid")
	[[ -z $left ]] || fail "$name: left running after the stop: $left"
done <<<"$groups"
[[ -z $(leftover_files) ]] || fail "left in the work dir after the stop: $(leftover_files)"
[[ -d "$WORK/tar-trees" ]] || fail "the tar tree was not kept for the next run"

# 2. kill -9 of loadd: the parent-death signal takes every load down.
start_loadd --profile "$prof"
groups=$(wait_running 2)
[[ $(wc -l <<<"$groups") == 3 ]] || fail "want 3 start events in run 2, got: $groups"
kill -KILL "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
sleep 2
while read -r name pgid; do
	left=$(group_live "$pgid")
	[[ -z $left ]] || fail "$name: left running 2 s after kill -9: $left"
done <<<"$groups"

# 3. The next start sweeps what the killed loads left.
short=$(profile short <<'EOF2'
[probe]
every = 100ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
EOF2
)
run_loadd --profile "$short" >/dev/null 2>"$T/err3" || fail "the next loadd failed: $(cat "$T/err3")"
[[ -z $(leftover_files) ]] || fail "not swept at the next start: $(leftover_files)"
[[ $(sql "select status from runs where id = 2") == crashed ]] || fail "run 2 not marked crashed"
echo "ok"
