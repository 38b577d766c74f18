#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Root makes its files only where nobody else can swap them: the socket,
# database, log and pid file are refused in a directory others can write, a
# log path that is a link is not followed, and the pid file is locked.
source "$(dirname "$0")/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "needs the user nobody"

prof=$(profile p <<'EOF2'
[probe]
tree = depth=1 fanout=2 files=2
every = 200ms
[run]
settle = 0s
[phase none]
duration = 1s
EOF2
)
open="$T/open"
mkdir -m 0777 "$open"
chmod 0777 "$open"
target="$T/target"
echo "root's own" >"$target"
chmod 0600 "$target"

# Another user swaps a link in at the socket's path as fast as it can; root
# must never chmod or chown through it. Bounded: a few attempts.
runuser -u nobody -- bash -c "for ((i = 0; i < 200000; i++)); do
	ln -sfn '$target' '$open/sock' 2>/dev/null; rm -f '$open/sock' 2>/dev/null; done" &
swapper=$!
STARTED_PIDS+=("$swapper")
for i in 1 2 3; do
	"$LOADD" --db "$DB" --workdir "$WORK" --socket "$open/sock" --profile "$prof" \
		>"$T/out" 2>"$T/err" && fail "loadd used a socket directory others can write"
	grep -q "directory $open is writable by other users" "$T/err" ||
		fail "no message about the open socket directory: $(cat "$T/err")"
done
kill "$swapper" 2>/dev/null || true
wait "$swapper" 2>/dev/null || true
[[ $(stat -c '%a %u' "$target") == "600 0" ]] || fail "the link's target changed: $(stat -c '%a %u' "$target")"

# The database's and the pid file's directories likewise.
expect 1 "database $open/x.db: directory $open is writable by other users" \
	"$LOADD" --db "$open/x.db" --workdir "$WORK" --socket "$SOCK" --profile "$prof"
expect 1 "pid file $open/pid: directory $open is writable by other users" \
	run_loadd --pidfile "$open/pid" --profile "$prof"

# A log path that is a symbolic link is not followed.
ln -s "$target" "$T/log"
expect 1 "cannot open log file $T/log: .*symbolic link" run_loadd --log "$T/log" --profile "$prof"
[[ $(cat "$target") == "root's own" ]] || fail "loadd wrote through the log link"

# The socket is born with its final mode: nothing chmods it afterwards.
long=$(profile long <<'EOF2'
[probe]
tree = depth=1 fanout=2 files=2
[phase none]
duration = 60s
EOF2
)
start_loadd --profile "$long" --pidfile "$T/loadd.pid"
wait_for_sql "select count(*) from runs where status = 'running'" 30
mode=$(stat -c '%a' "$SOCK")
[[ $mode == 600 || $mode == 660 ]] || fail "socket mode $mode"
# A second loadd with the same pid file finds it locked.
expect 1 "pid file $T/loadd.pid is locked by another loadd \(pid $LOADD_PID\)" \
	"$LOADD" --db "$T/other.db" --workdir "$T/other" --socket "$T/other.sock" \
	--pidfile "$T/loadd.pid" --profile "$prof"
[[ $(cat "$T/loadd.pid") == "$LOADD_PID" ]] || fail "the pid file was overwritten"
kill -TERM "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
echo PASS
