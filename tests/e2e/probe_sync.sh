#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The sync probe under every lock, in threads and in processes: each sample
# ends with the counter at threads × count and stores us per lock + unlock;
# lock = none (no lock, a yield inside each increment) loses updates, and
# every such sample is failed, never a figure. Nothing is left behind: no
# semaphore set made during the run, no POSIX name, no register, no process.
# config/ipc.conf passes loadd --check.
source "$(dirname "$0")/lib.sh"

locks=(mutex rwlock fcntl posix-sem posix-named-sem sysv-sem sysv-sem-undo)
t0=$(date +%s)
{
	printf '[run]\nsettle = 0s\n'
	for l in "${locks[@]}"; do
		for m in thread process; do
			printf '[probe %s-%s]\ntype = sync\nlock = %s\nmode = %s\nthreads = 3\n' "$l" "$m" "$l" "$m"
			printf 'count = 2000\nevery = 300ms\n'
		done
	done
	printf '[probe lossy]\ntype = sync\nlock = none\nthreads = 4\ncount = 20000\nevery = 300ms\n'
	printf '[phase none]\nduration = 2s\n'
} >"$T/sync.conf"
run_loadd --profile "$T/sync.conf" >"$T/out" 2>"$T/err" || fail "loadd failed: $(cat "$T/err")"

for l in "${locks[@]}"; do
	for m in thread process; do
		read -r ok bad < <(sql "select sum(not s.failed), sum(s.failed) from samples s
			join probes p on p.id = s.probe_id where p.name = '$l-$m'" | tr '|' ' ')
		(( ok >= 1 )) || fail "$l-$m: no good sample: $(grep "$l" "$T/err")"
		(( bad == 0 )) || fail "$l-$m: $bad failed samples: $(grep "$l" "$T/err")"
		(( $(sql "select count(*) from samples s join probes p on p.id = s.probe_id
			where p.name = '$l-$m' and not (s.value > 0)") == 0 )) || fail "$l-$m: a figure not above 0"
	done
done
read -r ok bad < <(sql "select coalesce(sum(not s.failed), 0), coalesce(sum(s.failed), 0) from samples s
	join probes p on p.id = s.probe_id where p.name = 'lossy'" | tr '|' ' ')
(( bad >= 1 && ok == 0 )) || fail "lock = none: $ok good and $bad failed samples; want only failed"
grep -q "probe lossy: the counter ended at [0-9]*, not at 80000" "$T/err" ||
	fail "no word on the lost updates: $(cat "$T/err")"

left=$(awk -v t0="$t0" 'NR > 1 && $10 >= t0 { print $2 }' /proc/sysvipc/sem)
[[ -z $left ]] || fail "semaphore sets made during the run are left: $left"
[[ -z $(find /dev/shm -maxdepth 1 -name 'sem.loadd-*' -newer "$T/sync.conf" 2>/dev/null) ]] ||
	fail "named semaphores left: $(ls /dev/shm)"
[[ -z $(find "$WORK" -name '.loadd-ipc-*' 2>/dev/null) ]] || fail "registers left in the work dir"
[[ -z $(own_processes) ]] || fail "processes left: $(own_processes)"
# The shipped IPC profile is valid.
run_loadd --check --profile "$SRC/config/ipc.conf" >/dev/null 2>"$T/ipc.err" ||
	fail "config/ipc.conf refused: $(cat "$T/ipc.err")"
echo "ok: ${#locks[@]} locks × 2 modes; lock = none failed $bad samples"
