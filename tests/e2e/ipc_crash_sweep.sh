#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kill -9 of loadd in the middle of IPC samples (a System V queue, FIFOs, a
# System V semaphore set, a named POSIX semaphore):
# the next start removes what the probes had recorded making, and nothing
# else: a queue and a shared-memory name this test made itself survive.
source "$(dirname "$0")/lib.sh"
command -v ipcmk >/dev/null || skip "needs ipcmk (util-linux)"

foreign_q=$(ipcmk -Q | sed -n 's/^Message queue id: //p')
[[ -n $foreign_q ]] || fail "ipcmk made no queue"
foreign_shm=/dev/shm/loadd-e2e-foreign-$$
: >"$foreign_shm"
# Whether System V queue $1 exists (ipcs -i exits 0 for a missing id too).
queue_exists() {
	ipcs -q | awk -v id="$1" '$2 == id { found = 1 } END { exit !found }'
}
cleanup_foreign() {
	ipcrm -q "$foreign_q" 2>/dev/null || true
	rm -f "$foreign_shm"
	cleanup
}
trap cleanup_foreign EXIT

# Samples long enough that the kill lands inside one.
prof=$(profile crash <<'EOF2'
[run]
settle = 0s
[probe q]
type = ipclat
via = sysvmq
every = 30s
count = 1000000
[probe f]
type = ipclat
via = fifo
every = 30s
count = 1000000
[probe s]
type = sync
lock = sysv-sem
mode = process
threads = 2
count = 10000000
every = 30s
[probe n]
type = sync
lock = posix-named-sem
threads = 2
count = 10000000
every = 30s
[phase none]
duration = 60s
EOF2
)
start_loadd --profile "$prof"
for ((i = 0; i < 300; i++)); do
	grep -qs '^msg ' "$WORK/.loadd-ipc-q" && break
	sleep 0.1
done
for ((i = 0; i < 300; i++)); do
	grep -qs '^sem ' "$WORK/.loadd-ipc-s" && break
	sleep 0.1
done
grep -qs '^msg ' "$WORK/.loadd-ipc-q" || fail "no queue recorded: $(cat "$T/loadd.err")"
grep -qs '^sem ' "$WORK/.loadd-ipc-s" || fail "no semaphore set recorded: $(cat "$T/loadd.err")"
qid=$(awk '$1 == "msg" { print $2 }' "$WORK/.loadd-ipc-q" | tail -1)
semid=$(awk '$1 == "sem" { print $2 }' "$WORK/.loadd-ipc-s" | tail -1)
sem_exists() {
	awk -v id="$1" 'NR > 1 && $2 == id { found = 1 } END { exit !found }' /proc/sysvipc/sem
}
queue_exists "$qid" || fail "queue $qid is not there mid-sample"
kill -KILL "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
queue_exists "$qid" || fail "queue $qid did not outlive kill -9: nothing to sweep"

run_profile again <<'EOF2'
[run]
settle = 0s
[probe p]
type = ipclat
via = pipe
every = 200ms
count = 10
[phase none]
duration = 1s
EOF2
grep -q "removed System V queue $qid, left by an earlier run" "$T/again.err" ||
	fail "no word about sweeping queue $qid: $(cat "$T/again.err")"
! queue_exists "$qid" || fail "queue $qid is still there: $(ipcs -q)"
grep -q "removed System V semaphore set $semid, left by an earlier run" "$T/again.err" ||
	fail "no word about sweeping semaphore set $semid: $(cat "$T/again.err")"
! sem_exists "$semid" || fail "semaphore set $semid is still there: $(ipcs -s)"
queue_exists "$foreign_q" || fail "the test's own queue $foreign_q was removed"
[[ -e $foreign_shm ]] || fail "the test's own $foreign_shm was removed"
[[ -z $(find /dev/mqueue /dev/shm -maxdepth 1 \( -name "loadd-$LOADD_PID-*" -o -name "sem.loadd-$LOADD_PID-*" \) 2>/dev/null) ]] ||
	fail "POSIX names of the killed loadd left"
[[ -z $(find "$WORK" -name '.loadd-ipc-*' -o -type p 2>/dev/null) ]] ||
	fail "left in the work dir: $(find "$WORK" -name '.loadd-ipc-*' -o -type p)"
[[ -z $(own_processes) ]] || fail "processes left: $(own_processes)"
echo "ok: queue $qid and semaphore set $semid swept, foreign queue $foreign_q and $foreign_shm kept"
