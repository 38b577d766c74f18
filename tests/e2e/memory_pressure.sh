#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The memory load's pressure mode, bounded: loadd runs inside a memory cgroup
# of 1 GiB (cgroup v1 here, v2 where it has the memory controller) with a
# pressure-mode load, floor 128M. The load must fill quickly, then step up
# and hold at the floor (or the PSI target) within the settle, in a cgroup of
# its own below loadd's; nothing may be OOM-killed (not loadd, not the probe,
# not the load), the probe's jobs all succeed, and the load's cgroup is gone
# at the end.
source "$(dirname "$0")/lib.sh"

need_root
if [[ -e /sys/fs/cgroup/cgroup.controllers ]] && grep -qw memory /sys/fs/cgroup/cgroup.controllers; then
	CGROOT=/sys/fs/cgroup LIMIT=memory.max OOMS=memory.events
else
	CGROOT=/sys/fs/cgroup/memory LIMIT=memory.limit_in_bytes OOMS=memory.oom_control
fi
[[ -w $CGROOT/cgroup.procs && -e $CGROOT/$LIMIT ]] || skip "no writable memory cgroup at $CGROOT"
CGD="$CGROOT/loadd-e2e-pressure-$$"
mkdir "$CGD" 2>"$T/cg.err" || skip "cannot create a memory cgroup: $(cat "$T/cg.err")"
[[ $CGROOT == /sys/fs/cgroup ]] && echo +memory >"$CGROOT/cgroup.subtree_control" 2>/dev/null

leave_cgroup() {
	local pid d
	for pid in "${STARTED_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	for d in "$CGD"/loadd-memory-* "$CGD"; do
		[[ -d $d ]] || continue
		for pid in $(cat "$d/cgroup.procs" 2>/dev/null); do
			echo "$pid" >"$CGROOT/cgroup.procs" 2>/dev/null || true
		done
		rmdir "$d" 2>/dev/null || true
	done
	cleanup
}
trap leave_cgroup EXIT

echo 1G >"$CGD/$LIMIT" 2>"$T/cg.err" || skip "the memory cgroup refuses a limit: $(cat "$T/cg.err")"

# The memory phase's fixed settle is shorter than the fill: the settle waits
# for the load to hold. The hurried phase gives it no time at all (settle_max
# 0s): its probe starts while the load still fills, and the phase is weak.
prof=$(profile pressure <<'EOF2'
[run]
settle = 1s
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase memory]
duration = 6s
settle_max = 60s
loads = mem
[phase hurried]
duration = 2s
settle = 0s
settle_max = 0s
loads = mem
[load mem]
type = memory
pressure = 10%
floor = 128M
step = 16M
EOF2
)
# The plan says how long the settle may wait.
"$LOADD" --check --profile "$prof" | grep -q "^  1 .*(the settle waits for mem to hold, up to 1m00s)" ||
	fail "the plan does not say the settle waits: $("$LOADD" --check --profile "$prof")"
(echo "$BASHPID" >"$CGD/cgroup.procs" &&
	exec timeout 120 "$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" --profile "$prof") \
	>"$T/out" 2>"$T/loadd.err" &
LOADD_PID=$!
STARTED_PIDS+=("$LOADD_PID")
status=0
wait "$LOADD_PID" || status=$?
[[ $status == 0 ]] || fail "loadd exited $status: $(cat "$T/loadd.err")"
[[ $(sql "select status from runs") == complete ]] || fail "run not complete"

events() {
	sql "select printf('%.3f', t) || ' ' || kind || ': ' || message from events where load = 'mem' order by t"
}
info() { sql "select message from events where load = 'mem' and kind = 'info'"; }

info | grep -q "^pressure: in cgroup v[12] $CGD/loadd-memory-" ||
	fail "the load did not run in a cgroup of its own below loadd's: $(events)"
info | grep -q "^pressure: fill to" || fail "no quick fill: $(events)"
# At the floor (a hold, or a give-back there) or the target before the probe
# window opened.
held=$(sql "select min(t) from events where load = 'mem' and kind = 'info' and (message like 'pressure: hold%' or message like 'pressure: shrink%')")
[[ -n $held ]] || fail "never reached the floor or the target: $(events)"
start=$(sql "select probe_start from phases where name = 'memory'")
awk -v h="$held" -v s="$start" 'BEGIN { exit !(h <= s) }' ||
	fail "held only after the probe window opened at $start: $(events)"
sql "select message from events where kind = 'settle'" | grep -q "^settle: waiting for mem " ||
	fail "the settle did not wait for the load: $(events)"
sql "select message from events where kind = 'settle'" | grep -q "^settle: the loads reached their targets" ||
	fail "the settle did not end when the load held: $(events)"
# (PSI and MemAvailable are the whole machine's: the memory phase may be
# weak by its expectation, but not for a load still filling.)
sql "select weak from phases where name = 'memory'" | grep -q "still ramping" &&
	fail "the memory phase was timed before the load held: $(sql "select weak from phases")"
sql "select weak from phases where name = 'hurried'" | grep -q "mem: still ramping up to its target when settle_max" ||
	fail "the hurried phase is not weak for a load still filling: $(sql "select weak from phases")"
(( $(sql "select count(*) from events where kind in ('oom-kill', 'restart', 'exit')") == 0 )) ||
	fail "a kill or restart: $(events)"
if [[ $OOMS == memory.oom_control ]]; then
	grep -q "^oom_kill 0" "$CGD/$OOMS" || fail "OOM kills in the test's cgroup: $(cat "$CGD/$OOMS")"
else
	grep -q "^oom_kill 0" "$CGD/$OOMS" || fail "OOM kills in the test's cgroup: $(cat "$CGD/$OOMS")"
fi
(( $(sql "select count(*) from samples where failed != 0") == 0 )) || fail "a probe job failed"
(( $(sql "select count(*) from samples") >= 10 )) || fail "too few probe jobs"
ls -d "$CGD"/loadd-memory-* 2>/dev/null && fail "the load's cgroup was left behind"
echo "ok: $(info | tr '\n' ';')"
