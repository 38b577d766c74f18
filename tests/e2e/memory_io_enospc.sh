#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A disk that fills up under the write loader: the work dir is a 16 MiB
# tmpfs, the loader writes 12 MiB files, and the test fills the rest with a
# file of its own, as another process might. The loader must record an
# enospc event, remove its file, go on with smaller files once there is room
# again, and never die; loadd must finish the run.
source "$(dirname "$0")/lib.sh"

need_root
mkdir -p "$WORK"
mount -t tmpfs -o size=16m,mode=0700 loadd-e2e "$WORK" 2>"$T/mount.err" ||
	skip "cannot mount a tmpfs on $WORK: $(cat "$T/mount.err")"

unmount_and_clean() {
	local pid
	for pid in "${STARTED_PIDS[@]}"; do
		kill -KILL "$pid" 2>/dev/null || true
		wait "$pid" 2>/dev/null || true
	done
	umount "$WORK" 2>/dev/null || umount -l "$WORK" 2>/dev/null || true
	cleanup
}
trap unmount_and_clean EXIT

prof=$(profile enospc <<'EOF2'
[run]
settle = 0s
[probe]
every = 250ms
tree = depth=1 fanout=2 files=2
[phase write]
duration = 30s
loads = w
[load w]
type = write
size = 12M
block = 256K
reserve = 0
EOF2
)
start_loadd --profile "$prof"
wait_for_sql "select max(bytes) from loader_stats where load = 'w'" 20

# Take every free byte, again whenever the loader's next file frees some,
# until the loader runs into a full disk.
for ((i = 0; i < 200; i++)); do
	dd if=/dev/zero of="$WORK/filler" bs=256K oflag=append conv=notrunc status=none 2>/dev/null || true
	[[ $(sql "select count(*) from events where load = 'w' and kind = 'enospc'") != 0 ]] && break
	sleep 0.1
done
[[ $(sql "select count(*) from events where load = 'w' and kind = 'enospc'") != 0 ]] ||
	fail "no enospc event with the disk full: $(sql "select kind, message from events")"
sql "select message from events where load = 'w' and kind = 'enospc'" | grep -q "no space left" ||
	fail "enospc event does not say what happened: $(sql "select message from events where kind = 'enospc'")"

# Room again: the loader goes on, with smaller files.
rm -f "$WORK/filler"
cycles=$(sql "select max(cycles) from loader_stats where load = 'w'")
wait_for_sql "select max(cycles) > $cycles from loader_stats where load = 'w'" 10
kill -0 "$LOADD_PID" 2>/dev/null || fail "loadd died: $(cat "$T/loadd.err")"

kill -TERM "$LOADD_PID"
status=0
wait "$LOADD_PID" || status=$?
[[ $status == 143 ]] || fail "loadd exited $status after SIGTERM, want 143: $(cat "$T/loadd.err")"
[[ $(sql "select status from runs") == aborted ]] || fail "run not marked aborted"
[[ $(sql "select count(*) from events where load = 'w' and kind in ('exit', 'signal', 'oom-kill', 'restart')") == 0 ]] ||
	fail "the loader died: $(sql "select kind, message from events where load = 'w'")"
(( $(sql "select max(errors) from loader_stats where load = 'w'") > 0 )) ||
	fail "ENOSPC not counted as an error"
leftover=$(ls -A "$WORK" | grep -v -e '^tree-' -e '^\.lock$' -e '^\.loadd-' || true)
[[ -z "$leftover" ]] || fail "left in the work dir: $leftover"
echo "ok: $(sql "select message from events where kind = 'enospc' limit 1")"
