#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# As root, the loads and the probe's job run as an unprivileged user, with no
# supplementary groups and no_new_privs; they cannot write a root-owned file,
# not even through a link planted in a load's own dir while it runs.
source "$(dirname "$0")/lib.sh"
need_root
id nobody >/dev/null 2>&1 || skip "no user nobody"
nobody_uid=$(id -u nobody)
nobody_gid=$(id -g nobody)

echo "root's" >"$T/target"
chmod 0644 "$T/target"

# Who the loads run as: [run] user, SUDO_USER, else loadd or nobody.
plan() { "$LOADD" --check --profile "$1" --db "$DB" | grep '^loads and job run as:'; }
prof=$(profile tiny <<'EOF2'
[probe]
tree = depth=1 fanout=2 files=2
[phase none]
duration = 1s
EOF2
)
want_default=nobody
id loadd >/dev/null 2>&1 && want_default=loadd
env -u SUDO_USER "$LOADD" --check --profile "$prof" --db "$DB" | grep -q "run as: $want_default " ||
	fail "default user: $(env -u SUDO_USER "$LOADD" --check --profile "$prof" --db "$DB" | grep 'run as')"
SUDO_USER=daemon plan "$prof" | grep -q "run as: daemon .*SUDO_USER" ||
	fail "SUDO_USER not used: $(SUDO_USER=daemon plan "$prof")"
named=$(profile named <<'EOF2'
[run]
user = daemon
[phase none]
duration = 1s
EOF2
)
plan "$named" | grep -q "run as: daemon (uid $(id -u daemon), \[run\] user)" ||
	fail "[run] user not used: $(plan "$named")"
bad=$(profile bad <<'EOF2'
[run]
user = no-such-user-here
[phase none]
duration = 1s
EOF2
)
rc=0
"$LOADD" --check --profile "$bad" --db "$DB" >/dev/null 2>"$T/err" || rc=$?
(( rc == 2 )) && grep -q "no such user" "$T/err" || fail "unknown user: exit $rc: $(cat "$T/err")"

# A run: a write load and a cpu ring, and a job that tries to write the
# root-owned target.
run=$(profile run <<EOF2
[run]
settle = 0s
user = nobody
[probe]
job = sh -c "echo pwned >> $T/target"
every = 200ms
tree = depth=1 fanout=2 files=2
[phase busy]
duration = 30s
loads = wr ring
[load wr]
type = write
size = 1M
[load ring]
type = cpu
procs = 2
EOF2
)
start_loadd --profile "$run"
for ((i = 0; i < 100; i++)); do
	[[ -f "$WORK/load-wr/write.dat" ]] && break
	sleep 0.1
done
[[ -f "$WORK/load-wr/write.dat" ]] || fail "the write load wrote nothing: $(cat "$T/loadd.err")"

# Every process below loadd: nobody's uid and gid, no groups, no_new_privs.
n=0
for pid in $(pgrep -g "$(pgrep -P "$LOADD_PID" | head -1)" ; pgrep -P "$LOADD_PID"); do
	status=/proc/$pid/status
	[[ -r $status ]] || continue
	uids=$(awk '/^Uid:/ {print $2, $3, $4, $5}' "$status")
	gids=$(awk '/^Gid:/ {print $2, $3, $4, $5}' "$status")
	groups=$(awk '/^Groups:/ {$1 = ""; print}' "$status" | tr -d ' ')
	nnp=$(awk '/^NoNewPrivs:/ {print $2}' "$status")
	[[ $uids == "$nobody_uid $nobody_uid $nobody_uid $nobody_uid" ]] ||
		fail "process $pid ($(cat /proc/$pid/comm)) runs with uids $uids"
	[[ $gids == "$nobody_gid $nobody_gid $nobody_gid $nobody_gid" ]] ||
		fail "process $pid runs with gids $gids"
	[[ -z $groups || $groups == "$nobody_gid" ]] || fail "process $pid keeps groups $groups"
	[[ $nnp == 1 ]] || fail "process $pid has no_new_privs $nnp"
	n=$((n + 1))
done
(( n >= 3 )) || fail "found only $n load processes"
[[ $(stat -c %u "$WORK/load-wr") == "$nobody_uid" ]] || fail "load-wr is not nobody's"
[[ $(stat -c %a "$WORK") == 711 ]] || fail "the work dir is $(stat -c %a "$WORK"), want 711"

# What the load's user could do: plant a link to the target in its own dir.
setpriv --reuid nobody --regid "$nobody_gid" --clear-groups \
	ln -sf "$T/target" "$WORK/load-wr/write.dat"
wait_for_sql "select count(*) from samples where failed = 1" 20
sleep 1.5
"$LOADCTL" stop --socket "$SOCK" >/dev/null || fail "loadctl stop failed"
wait "$LOADD_PID" 2>/dev/null || true
[[ $(cat "$T/target") == "root's" ]] || fail "the root-owned target was written: $(head -c 100 "$T/target")"
[[ $(stat -c %U "$T/target") == root ]] || fail "the target changed owner"
echo ok
