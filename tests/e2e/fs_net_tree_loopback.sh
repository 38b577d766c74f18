#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The net load listens on 127.0.0.1 only (never 0.0.0.0 or ::), on the port
# it reports, and its clients ignore proxy settings in the environment. A
# server that cannot bind (a network namespace whose loopback is down; needs
# root and unshare) is told as an event and makes the phase invalid: never a
# light load.
source "$(dirname "$0")/lib.sh"

prof=$(profile net <<'EOF2'
[run]
settle = 0s
[probe]
every = 500ms
tree = depth=2 fanout=3 files=4
[phase net]
duration = 2m
loads = net
[load net]
type = net
clients = 2
file_size = 16K
EOF2
)

# A proxy that would swallow every request, were it used.
export http_proxy=http://192.0.2.1:9/ HTTP_PROXY=http://192.0.2.1:9/ all_proxy=http://192.0.2.1:9/
start_loadd --profile "$prof"
wait_for_sql "select max(cycles) >= 20 from loader_stats where load = 'net'" 60
pid=$(sql "select message from events where load = 'net' and kind = 'start'" | sed -n 's/.*(pid \([0-9]*\)).*/\1/p')
port=$(sql "select message from events where load = 'net' and kind = 'info'" | sed -n 's/^serving .* on 127\.0\.0\.1:\([0-9]*\) .*/\1/p')
[[ -n $pid && -n $port ]] || fail "no start or serving event: $(sql "select kind, message from events")"

# The loader's sockets, by inode, and which of them listen (state 0A).
inodes=" "
for fd in /proc/"$pid"/fd/*; do
	link=$(readlink "$fd" 2>/dev/null) || continue
	[[ $link =~ ^socket:\[([0-9]+)\]$ ]] && inodes+="${BASH_REMATCH[1]} "
done
listening=$(awk -v inodes="$inodes" 'FNR > 1 && $4 == "0A" && index(inodes, " " $10 " ") { print FILENAME, $2 }' \
	/proc/net/tcp /proc/net/tcp6)
[[ -n $listening ]] || fail "the net loader (pid $pid) listens on no TCP socket"
want=$(printf '/proc/net/tcp 0100007F:%04X' "$port")
[[ $listening == "$want" ]] || fail "the net loader listens on: $listening; want only $want (127.0.0.1:$port)"
if command -v ss >/dev/null; then
	ss -ltnpH | grep "pid=$pid," >"$T/ss" || true
	[[ $(awk '{ print $4 }' "$T/ss") == "127.0.0.1:$port" ]] || fail "ss -ltnp says: $(cat "$T/ss")"
fi
[[ $(sql "select max(errors) from loader_stats where load = 'net'") == 0 ]] ||
	fail "errors with a proxy in the environment: $(sql "select message from events where kind = 'error'")"
kill -TERM "$LOADD_PID"
wait "$LOADD_PID" || true
unset http_proxy HTTP_PROXY all_proxy

if [[ $(id -u) -ne 0 ]] || ! command -v unshare >/dev/null || ! unshare -n true 2>/dev/null; then
	echo "ok (the cannot-bind case needs root and unshare -n)"
	exit 0
fi

short=$(profile nonet <<'EOF2'
[run]
settle = 1s
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase net]
duration = 2s
loads = net
[load net]
type = net
clients = 1
EOF2
)

# Runs the short profile in a network namespace of its own, after the shell
# commands $1 (which may start a helper whose PID goes in $holder), then
# checks that the net phase is invalid, that no transfer was counted, and
# that an error event matches $2.
run_without_network() {
	local setup=$1 pattern=$2
	rm -f "$DB" "$DB"-*
	unshare -n bash -c '
		eval "$1"
		shift
		"$@"
		rc=$?
		[[ -z ${holder:-} ]] || kill "$holder"
		exit $rc' _ "$setup" "$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" \
		--profile "$short" >"$T/out" 2>"$T/err" || true
	[[ $(sql "select status from runs") == complete ]] || fail "run not complete: $(cat "$T/err")"
	[[ $(sql "select valid from phases where name = 'net'") == 0 ]] ||
		fail "a net phase without a network is valid ($setup)"
	sql "select invalid_reason from phases where name = 'net'" | grep -q "net" ||
		fail "the reason does not name the load: $(sql "select invalid_reason from phases")"
	sql "select message from events where load = 'net' and kind = 'error'" | grep -Eq "$pattern" ||
		fail "no error event matches '$pattern': $(sql "select kind, message from events")"
	[[ $(sql "select coalesce(max(cycles), 0) from loader_stats where load = 'net'") == 0 ]] ||
		fail "transfers counted without a network"
	grep -q "INVALID" "$T/out" "$T/err" || fail "neither the log nor the report says INVALID"
}

# Loopback down: the server binds, its clients cannot connect.
run_without_network "" "client 0: .*(Couldn't connect|Failed to connect)"

# Loopback up but both ports of the namespace's ephemeral range taken: the
# server cannot bind.
command -v python3 >/dev/null || { echo "ok (the cannot-bind case needs python3)"; exit 0; }
cat >"$T/hold.py" <<'PY'
import socket, sys, time
held = []
for port in (40000, 40001):
    s = socket.socket()
    s.bind(("127.0.0.1", port))
    s.listen()
    held.append(s)
open(sys.argv[1], "w").write("held\n")
time.sleep(120)
PY
run_without_network "
	ip link set lo up
	sysctl -qw net.ipv4.ip_local_port_range='40000 40001'
	python3 '$T/hold.py' '$T/held' &
	holder=\$!
	for i in \$(seq 100); do [[ -s '$T/held' ]] && break; sleep 0.1; done" \
	"server: cannot bind 127.0.0.1"
echo "ok"
