#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Who may stop a run is decided by the peer's credentials (SO_PEERCRED), not
# only by the socket's mode: another user who can reach the socket may read
# the status but not stop the run; the user who started it (SUDO_UID under
# sudo) and root may.
source "$(dirname "$0")/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "no user nobody"
as_nobody() { setpriv --reuid nobody --regid "$(id -g nobody)" --clear-groups "$@"; }
as_nobody "$LOADCTL" --version >/dev/null 2>&1 || skip "nobody cannot run $LOADCTL"

prof=$(profile long <<'EOF2'
[run]
settle = 0s
[probe]
every = 200ms
tree = depth=1 fanout=2 files=2
[phase none]
duration = 60s
EOF2
)

wait_socket() {
	for ((i = 0; i < 100; i++)); do
		[[ -S "$SOCK" ]] && return 0
		sleep 0.1
	done
	fail "no socket: $(cat "$T/loadd.err")"
}

# Started by root: nobody, let in by the socket's mode, reads but cannot stop.
env -u SUDO_UID -u SUDO_USER bash -c 'exec "$@"' _ "$LOADD" --db "$DB" --workdir "$WORK" \
	--socket "$SOCK" --profile "$prof" 2>"$T/loadd.err" &
LOADD_PID=$!
STARTED_PIDS+=("$LOADD_PID")
wait_socket
wait_for_sql "select count(*) from runs where status = 'running'" 30
chmod 0666 "$SOCK"
as_nobody "$LOADCTL" status --socket "$SOCK" >"$T/out" 2>"$T/err" ||
	fail "nobody cannot read the status: $(cat "$T/err")"
rc=0
as_nobody "$LOADCTL" stop --socket "$SOCK" >"$T/out" 2>"$T/err" || rc=$?
(( rc == 1 )) || fail "nobody's stop: exit $rc, want 1: $(cat "$T/out" "$T/err")"
grep -q "only root or the user who started the run (uid 0) may stop it; you are uid $(id -u nobody)" \
	"$T/err" || fail "nobody's stop: $(cat "$T/err")"
sleep 1.2 # past the API's stop fallback: the run must still be running
kill -0 "$LOADD_PID" 2>/dev/null || fail "loadd stopped after a refused stop"
[[ $(sql "select status from runs order by id desc limit 1") == running ]] ||
	fail "the run ended after a refused stop"
"$LOADCTL" stop --socket "$SOCK" >/dev/null || fail "root cannot stop the run"
wait "$LOADD_PID" 2>/dev/null || true

# Started through sudo by nobody (SUDO_UID): nobody may stop it.
SUDO_UID=$(id -u nobody) SUDO_USER=nobody "$LOADD" --db "$DB" --workdir "$WORK" \
	--socket "$SOCK" --profile "$prof" 2>"$T/loadd.err" &
LOADD_PID=$!
STARTED_PIDS+=("$LOADD_PID")
wait_socket
wait_for_sql "select count(*) from runs where status = 'running'" 30
chmod 0666 "$SOCK"
as_nobody "$LOADCTL" stop --socket "$SOCK" >"$T/out" 2>"$T/err" ||
	fail "the starter cannot stop its run: $(cat "$T/err")"
wait "$LOADD_PID" 2>/dev/null || true
[[ $(sql "select status from runs order by id desc limit 1") != running ]] ||
	fail "the starter's stop did not end the run"
echo ok
