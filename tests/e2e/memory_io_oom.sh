#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The OOM killer takes the memory loader: loadd runs inside a memory cgroup
# of 200 MiB with a 400 MiB memory load. The kill must be recorded as an
# oom-kill event, the loader restarted after a back-off (never in a tight
# loop), and loadd and the probe must go on to the end of the run.
source "$(dirname "$0")/lib.sh"

need_root
MEMCG=/sys/fs/cgroup/memory
[[ -w $MEMCG/cgroup.procs && -e $MEMCG/memory.limit_in_bytes ]] ||
	skip "no writable cgroup v1 memory controller at $MEMCG"
CGD="$MEMCG/loadd-e2e-$$"
mkdir "$CGD" 2>"$T/cg.err" || skip "cannot create a memory cgroup: $(cat "$T/cg.err")"

leave_cgroup() {
	local pid
	for pid in "${STARTED_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	if [[ -d $CGD ]]; then
		# Whatever is still inside goes back to the root group first.
		for pid in $(cat "$CGD/cgroup.procs" 2>/dev/null); do
			echo "$pid" >"$MEMCG/cgroup.procs" 2>/dev/null || true
		done
		rmdir "$CGD" 2>/dev/null || true
	fi
	cleanup
}
trap leave_cgroup EXIT

echo 200M >"$CGD/memory.limit_in_bytes" 2>"$T/cg.err" ||
	skip "the memory cgroup refuses a limit: $(cat "$T/cg.err")"

prof=$(profile oom <<'EOF2'
[run]
settle = 0s
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase memory]
duration = 8s
loads = mem
[load mem]
type = memory
size = 400M
EOF2
)
(echo "$BASHPID" >"$CGD/cgroup.procs" &&
	exec "$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" --profile "$prof") >"$T/out" 2>"$T/loadd.err" &
LOADD_PID=$!
STARTED_PIDS+=("$LOADD_PID")
status=0
wait "$LOADD_PID" || status=$?
[[ $status == 0 ]] || fail "loadd exited $status: $(cat "$T/loadd.err")"
[[ $(sql "select status from runs") == complete ]] || fail "run not complete"

events() {
	sql "select printf('%.3f', t) || ' ' || kind || ': ' || message from events where load = 'mem' order by t"
}
# The loader saw the cgroup's limit and said what would come.
sql "select message from events where load = 'mem' and kind = 'info'" |
	grep -q "cgroup's limit is 200 MiB.*expect the OOM killer" ||
	fail "the loader did not compare its size with the cgroup's limit: $(events)"
kills=$(sql "select count(*) from events where load = 'mem' and kind = 'oom-kill'")
(( kills >= 1 )) || fail "no oom-kill event: $(events)"
sql "select message from events where load = 'mem' and kind = 'oom-kill'" | grep -q "OOM killer" ||
	fail "the kill is not named as the OOM killer's: $(events)"
(( $(sql "select count(*) from events where load = 'mem' and kind = 'restart'") >= 1 )) ||
	fail "the loader was not restarted: $(events)"
# Back-off: each restart comes at least a second after the death before it
# (1 s, 2 s, 4 s ...), so 8 s hold at most a handful of kills.
(( kills <= 5 )) || fail "$kills OOM kills in 8 s: restarts in a tight loop: $(events)"
[[ $(sql "select count(*) from events r where r.load = 'mem' and r.kind = 'restart' and
	  (select max(t) from events d where d.load = 'mem' and d.kind = 'oom-kill' and d.t < r.t) > r.t - 0.9") == 0 ]] ||
	fail "a restart came less than a second after its death: $(events)"
# The probe went on after the first kill.
first=$(sql "select min(t) from events where load = 'mem' and kind = 'oom-kill'")
(( $(sql "select count(*) from samples where started_at > $first and failed = 0") >= 4 )) ||
	fail "the probe stopped after the OOM kill"
leftover=$(ls -A "$WORK" | grep -v -e '^tree-' -e '^\.lock$' -e '^\.loadd-' || true)
[[ -z "$leftover" ]] || fail "left in the work dir: $leftover"
echo "ok: $kills OOM kill(s), $(sql "select count(*) from events where load = 'mem' and kind = 'restart'") restart(s)"
