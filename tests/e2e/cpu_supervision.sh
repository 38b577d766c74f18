#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The cpu load under loadd: a bad [load cpu] key or value is refused with
# file:line; a run fills Loads, LCPU% and passes/s for the cpu phase; a ring
# frozen with SIGSTOP is flagged stalled and its phase marked invalid; and
# kill -9 of loadd leaves no process of a loader alive 2 s later.
source "$(dirname "$0")/lib.sh"

# Processes of group $1 that are alive (zombies are dead, waiting for init).
live_in_group() {
	local f rest
	for f in /proc/[0-9]*/stat; do
		rest=$(cat "$f" 2>/dev/null) || continue
		rest=${rest##*) }
		read -r state _ pgrp _ <<<"$rest"
		[[ $pgrp == "$1" && $state != Z ]] && echo "${f//[^0-9]/}"
	done
	return 0
}

# The pid in the newest "started cpu (pid N)" event of load $1.
load_pid() {
	sql "select message from events where load = '$1' and kind = 'start' order by t desc limit 1" |
		sed -n 's/.*(pid \([0-9]*\)).*/\1/p'
}

# --- refusals, with the line of the key at fault ---
bad=$(profile bad <<'EOF2'
[probe]
tree = depth=2 fanout=3 files=4
[phase cpu]
duration = 1s
loads = ring
[load ring]
type = cpu
procs = 4
prosc = 8
tokens = 4
mode = fiber
EOF2
)
status=0
run_loadd --check --profile "$bad" >/dev/null 2>"$T/bad.err" || status=$?
[[ $status == 2 ]] || fail "a bad [load cpu] exited $status, not 2: $(cat "$T/bad.err")"
grep -qF "$bad:9: unknown key 'prosc' in [load ring]; did you mean 'procs'?" "$T/bad.err" ||
	fail "no file:line for the unknown key: $(cat "$T/bad.err")"
grep -qF "$bad:11: mode: invalid value 'fiber': expected process or thread" "$T/bad.err" ||
	fail "no file:line for the bad mode: $(cat "$T/bad.err")"
grep -qF "$bad:7: unknown load type" "$T/bad.err" &&
	fail "the type was refused: $(cat "$T/bad.err")"
[[ ! -e $DB ]] || fail "a refused profile touched the database"

toomany=$(profile toomany <<'EOF2'
[phase cpu]
duration = 1s
loads = ring
[load ring]
type = cpu
procs = 4
tokens = 4
EOF2
)
status=0
run_loadd --check --profile "$toomany" >/dev/null 2>"$T/toomany.err" || status=$?
[[ $status == 2 ]] || fail "tokens = procs exited $status, not 2"
grep -qF "$toomany:7: tokens = 4 needs more members" "$T/toomany.err" ||
	fail "no file:line for tokens = procs: $(cat "$T/toomany.err")"

# --- a run fills the cpu phase's columns ---
good=$(profile good <<'EOF2'
[run]
settle = 1s
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 2s
[phase cpu]
duration = 3s
loads = ring
[load ring]
type = cpu
procs = 4
EOF2
)
run_loadd --profile "$good" >"$T/good.out" 2>"$T/good.err" || fail "loadd failed: $(cat "$T/good.err")"
[[ $(sql "select valid from phases where name = 'cpu'") == 1 ]] || fail "the cpu phase is not valid"
(( $(sql "select max(cycles) from loader_stats where load = 'ring'") > 0 )) ||
	fail "no trips recorded"
(( $(sql "select max(procs) from loader_stats where load = 'ring'") == 5 )) ||
	fail "not every process of the ring was seen (top and 4 members)"
"$LOADCTL" --db "$DB" report >"$T/report" || fail "loadctl report failed"
# Phase  Time  CPU%  Loads  LCPU%  Ratio ...
row=$(grep -E '^cpu ' "$T/report" | head -n 1 || true)
read -r _ _ _ loads lcpu _ <<<"$row"
[[ $loads =~ ^[0-9]+$ ]] && (( loads > 0 )) || fail "Loads is '$loads': $(cat "$T/report")"
[[ $lcpu =~ ^[0-9.]+$ ]] && awk -v v="$lcpu" 'BEGIN { exit !(v > 0) }' ||
	fail "LCPU% is '$lcpu': $(cat "$T/report")"
grep -qE '^cpu +ring ' "$T/report" || fail "no throughput line for the ring: $(cat "$T/report")"
[[ -z $(ls -A "$WORK" | grep '^load-') ]] || fail "a scratch dir was left: $(ls "$WORK")"

# --- a ring frozen before the probe window: stalled, and the phase invalid ---
rm -f "$DB"
frozen=$(profile frozen <<'EOF2'
[run]
settle = 4s
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase cpu]
duration = 3s
loads = ring
[load ring]
type = cpu
procs = 4
stall = 1s
EOF2
)
start_loadd --profile "$frozen"
wait_for_sql "select count(*) from events where load = 'ring' and kind = 'start'" 30
pgid=$(load_pid ring)
[[ -n $pgid ]] || fail "no pid in the start event"
kill -STOP -- "-$pgid"
status=0
wait "$LOADD_PID" || status=$?
[[ $status == 0 ]] || fail "loadd exited $status: $(cat "$T/loadd.err")"
[[ $(sql "select valid from phases where name = 'cpu'") == 0 ]] ||
	fail "a phase without any progress is valid"
sql "select invalid_reason from phases where name = 'cpu'" | grep -q "ring" ||
	fail "the reason does not name the load: $(sql "select invalid_reason from phases")"
(( $(sql "select count(*) from events where load = 'ring' and kind = 'stall'") >= 1 )) ||
	fail "no stall event"
"$LOADCTL" --db "$DB" report | grep -q "INVALID" || fail "the report does not say INVALID"
[[ -z $(live_in_group "$pgid") ]] || fail "the frozen ring outlived its phase"

# --- kill -9 of loadd: no loader process alive 2 s later ---
rm -f "$DB"
long=$(profile long <<'EOF2'
[run]
settle = 0s
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase cpu]
duration = 60s
loads = ring threads
[load ring]
type = cpu
procs = 16
[load threads]
type = cpu
procs = 16
mode = thread
EOF2
)
start_loadd --profile "$long"
wait_for_sql "select count(distinct load) = 2 from loader_stats where cycles > 0" 30
groups=("$(load_pid ring)" "$(load_pid threads)")
[[ -n ${groups[0]} && -n ${groups[1]} ]] || fail "no pids in the start events"
(( $(live_in_group "${groups[0]}" | wc -l) == 17 )) || fail "the ring is not 17 processes"
kill -KILL "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
left=""
for ((i = 0; i < 20; i++)); do
	left=$(live_in_group "${groups[0]}"; live_in_group "${groups[1]}")
	[[ -z $left ]] && break
	sleep 0.1
done
[[ -z $left ]] || fail "loader processes alive 2 s after kill -9 of loadd: $left"
echo "ok"
