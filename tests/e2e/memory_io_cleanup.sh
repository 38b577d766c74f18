#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Nothing the memory, write and read loaders make outlives them: after a
# stop (SIGTERM to loadd in the middle of a phase) the work dir holds only
# the probe's tree and the lock; after kill -9 of loadd the loaders die with
# it, and the next loadd sweeps their files before it starts anything.
source "$(dirname "$0")/lib.sh"

prof=$(profile files <<'EOF2'
[run]
settle = 0s
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase all]
duration = 60s
loads = mem wr rd
[load mem]
type = memory
size = 32M
[load wr]
type = write
size = 64M
block = 64K
reserve = 0
[load rd]
type = read
size = 16M
reserve = 0
EOF2
)
only_tree_left() {
	ls -A "$WORK" | grep -v -e '^tree-' -e '^\.lock$' -e '^\.loadd-' || true
}
# Processes of this test still running the binary under test (loaders are
# forks of loadd); other tests' loadd processes are not counted.
survivors() {
	local exe pid
	exe=$(readlink -f "$LOADD")
	for pid in $(own_processes); do
		[[ $(readlink "/proc/$pid/exe" 2>/dev/null) == "$exe" ]] && echo "$pid"
	done
	return 0
}
# Waits until all three loads of run $1 have counted bytes and made their files.
wait_busy() {
	wait_for_sql "select count(distinct load) = 3 from loader_stats where run_id = $1 and bytes > 0" 30
	[[ -f $WORK/cache-rd/read.dat && -f $WORK/load-wr/write.dat ]] ||
		fail "files not where expected: $(find "$WORK" -maxdepth 2 ! -path '*/tree-*') $(cat "$T/loadd.err")"
}

# 1. A stop in the middle of the phase.
start_loadd --profile "$prof"
wait_busy 1
kill -TERM "$LOADD_PID"
wait "$LOADD_PID" || true
left=$(only_tree_left)
[[ -z "$left" ]] || fail "left after a stop: $left"
[[ -z "$(survivors)" ]] || fail "processes left after a stop: $(ps -o pid,ppid,pgid,stat,etime,args -p "$(survivors | paste -sd,)")"

# 2. kill -9 of loadd: the loaders go with it, their files stay behind ...
start_loadd --profile "$prof"
wait_busy 2
kill -KILL "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
for ((i = 0; i < 20; i++)); do
	[[ -z "$(survivors)" ]] && break
	sleep 0.1
done
[[ -z "$(survivors)" ]] || fail "processes left 2 s after kill -9 of loadd: $(survivors)"
left=$(only_tree_left)
[[ -n "$left" ]] || fail "kill -9 left no files: the sweep below would prove nothing"

# ... until the next start sweeps them, before its first phase.
idle=$(profile idle <<'EOF2'
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 30s
EOF2
)
start_loadd --profile "$idle"
wait_for_sql "select count(*) from samples s join phases p on p.id = s.phase_id where p.run_id = 3" 30
left=$(only_tree_left)
[[ -z "$left" ]] || fail "left after the next start: $left"
grep -q "left by an earlier run" "$T/loadd.err" || fail "the sweep said nothing: $(cat "$T/loadd.err")"
kill -TERM "$LOADD_PID"
wait "$LOADD_PID" || true
echo "ok"
