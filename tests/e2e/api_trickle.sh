#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Sixty clients that trickle one byte a second, on the socket and over
# --listen TCP, with loadd allowed only 64 fds: each is cut within the
# whole-request deadline (5 s from accept), those past the connection cap at
# once, and the probe keeps running its job without a failure.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/api_helpers.sh"

prof=$(profile trickle <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=1 fanout=2 files=2
[phase none]
duration = 120s
EOF2
)
(ulimit -n 64 && exec "$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" --profile "$prof" \
	--listen 127.0.0.1:0) 2>"$T/loadd.err" &
LOADD_PID=$!
STARTED_PIDS+=("$LOADD_PID")
wait_for_sql "select count(*) from samples" 30
port=$(sed -n 's|.*metrics on http://127.0.0.1:\([0-9]*\)/metrics.*|\1|p' "$T/loadd.err" | head -1)
[[ -n $port ]] || fail "no TCP port in the log: $(cat "$T/loadd.err")"
before=$(sql "select count(*) from samples where failed = 0")

"$PYTHON" - "$SOCK" "$port" <<'PY' || fail "a trickling client held on: $(tail -5 "$T/loadd.err")"
import socket, sys, time

path, port = sys.argv[1], int(sys.argv[2])
TRICKLE = b"GET /v1/status HTTP/1.1\r\nX-Slow: " + b"a" * 1000

def connect(i):
    if i % 2:
        s, target = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM), path
    else:
        s, target = socket.socket(socket.AF_INET, socket.SOCK_STREAM), ("127.0.0.1", port)
    s.setblocking(False)
    try:
        s.connect(target)
    except (BlockingIOError, InterruptedError):
        pass
    except OSError:
        s.close()
        return None
    return [s, time.monotonic(), 0]

def ended(c):
    try:
        return c[0].recv(4096, socket.MSG_DONTWAIT) is not None
    except (BlockingIOError, InterruptedError):
        return False
    except OSError:
        return True

clients = [connect(i) for i in range(60)]
longest, cuts, end = 0.0, 0, time.monotonic() + 14
while time.monotonic() < end:
    for i, c in enumerate(clients):
        if c is None:
            clients[i] = connect(i)
            continue
        gone = ended(c)
        if not gone:
            try:
                c[0].send(TRICKLE[c[2] : c[2] + 1])
                c[2] += 1
            except (BlockingIOError, InterruptedError):
                pass
            except OSError:
                gone = True
        if gone:
            longest = max(longest, time.monotonic() - c[1])
            cuts += 1
            c[0].close()
            clients[i] = connect(i)
    time.sleep(1)
held = [time.monotonic() - c[1] for c in clients if c is not None]
longest = max([longest] + held)
print("connections cut: %d; longest held: %.1f s" % (cuts, longest))
# 5 s deadline, plus this loop's 1 s tick and a busy machine's slack.
assert longest < 9.5, "a client held on for %.1f s" % longest
PY
after=$(sql "select count(*) from samples where failed = 0")
failed=$(sql "select count(*) from samples where failed = 1")
(( after > before + 20 )) || fail "the probe stalled: $before -> $after samples"
[[ $failed == 0 ]] || fail "$failed probe jobs failed: $(sql "select count(*) from events") events; $(tail -3 "$T/loadd.err")"
! grep -q "Too many open files" "$T/loadd.err" || fail "loadd ran out of fds: $(grep -m1 "Too many" "$T/loadd.err")"
kill -TERM "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
echo PASS
