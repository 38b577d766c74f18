#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# No request, however malformed, large or half-sent, crashes loadd or holds
# up its loop: after each, loadd still answers, and while a half-sent request
# hangs on, the probe's samples keep being recorded and other requests are
# served. More connections than loadd has fds for make it pause accepting,
# not spin, and it answers again once they are gone.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/api_helpers.sh"

start_loadd --profile "$(api_profile)"
wait_for_api

"$PYTHON" - "$SOCK" "$DB" <<'PY' || fail "loadd mishandled a bad request; its log: $(cat "$T/loadd.err")"
import socket, sqlite3, sys, time

path, db = sys.argv[1], sys.argv[2]

def connect():
    # A full backlog says "try again" to a client with a timeout.
    for _ in range(100):
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.settimeout(30)
        try:
            s.connect(path)
            return s
        except BlockingIOError:
            s.close()
            time.sleep(0.05)
    raise AssertionError("cannot connect: the backlog stays full")

def read_all(s):
    out = b""
    try:
        while True:
            b = s.recv(65536)
            if not b:
                break
            out += b
    except ConnectionResetError:
        pass
    return out

def exchange(data):
    s = connect()
    try:
        s.sendall(data)
        s.shutdown(socket.SHUT_WR)
    except (BrokenPipeError, ConnectionResetError):
        pass
    out = read_all(s)
    s.close()
    return out

def code(reply):
    line = reply.split(b"\r\n", 1)[0].split()
    return int(line[1]) if len(line) > 1 and line[0].startswith(b"HTTP/1.") else None

def status_ok():
    reply = exchange(b"GET /v1/status HTTP/1.0\r\n\r\n")
    assert code(reply) == 200, reply[:200]
    assert b'"status": "running"' in reply, reply[:400]

def samples():
    con = sqlite3.connect("file:%s?mode=ro" % db, uri=True, timeout=10)
    try:
        return con.execute("select count(*) from samples").fetchone()[0]
    finally:
        con.close()

# Malformed or oversized: a 4xx, or the connection closed; never a crash.
bad = {
    "binary garbage": b"\x00\xff\xfe garbage \x01\x02\r\n\r\n",
    "not http": b"hello there\r\n\r\n",
    "no target": b"GET\r\n\r\n",
    "unknown version": b"GET /v1/status HTTP/7.3\r\n\r\n",
    "huge header": b"GET /v1/status HTTP/1.1\r\nHost: x\r\nX-Big: " + b"a" * 100000 + b"\r\n\r\n",
    "many headers": b"GET /v1/status HTTP/1.1\r\n" + b"X-A: b\r\n" * 5000 + b"\r\n",
    "huge target": b"GET /" + b"a" * 100000 + b" HTTP/1.1\r\n\r\n",
    "negative length": b"POST /v1/runs HTTP/1.1\r\nContent-Length: -5\r\n\r\n",
    "bad chunk": b"POST /v1/runs HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nxx\r\n",
    "huge body to stop": b"POST /v1/stop HTTP/1.1\r\nContent-Length: 100000000\r\n\r\n"
                         + b"x" * 200000,
    "huge chunked body to stop": b"POST /v1/stop HTTP/1.1\r\nTransfer-Encoding: chunked\r\n\r\n"
                                 + b"10000\r\n" + b"y" * 0x10000 + b"\r\n",
}
for name, data in bad.items():
    reply = exchange(data)
    c = code(reply)
    assert c is None and reply == b"" or c is not None and 400 <= c < 500, (name, reply[:300])
    status_ok()
    print("%-26s -> %s" % (name, c if c is not None else "closed"))

# Half-sent requests: one with part of its headers, one with nothing at all,
# and fifty more at once. While they hang on, loadd serves others and the
# probe's samples keep landing in the database.
half = connect()
half.sendall(b"GET /v1/status HTTP/1.1\r\nHost: loadd\r\nX-Slow: ")
silent = connect()
crowd = [connect() for _ in range(50)]
for s in crowd:
    s.sendall(b"GET /v1/runs HTTP/1.1\r\n")
before = samples()
deadline = time.monotonic() + 30
while samples() < before + 3:
    assert time.monotonic() < deadline, "no new samples while a request was half-sent"
    status_ok()
    time.sleep(0.2)
print("samples went on: %d -> %d" % (before, samples()))

# loadd gives up on them (evhttp's timeout): it closes, or answers 4xx.
for s in [half, silent] + crowd:
    reply = read_all(s)
    assert reply == b"" or 400 <= code(reply) < 500, reply[:200]
    s.close()
print("half-sent requests closed by loadd")
status_ok()
PY
kill -0 "$LOADD_PID" || fail "loadd died: $(cat "$T/loadd.err")"
[[ $(sql "select status from runs where id = 1") == running ]] || fail "the run did not survive"
expect_json 202 POST /v1/stop
wait_for_exit
[[ $LOADD_STATUS == 0 ]] || fail "loadd exited $LOADD_STATUS: $(cat "$T/loadd.err")"
[[ $(sql "select status from runs where id = 1") == aborted ]] || fail "run not aborted"

# Out of fds: a loadd allowed 64 of them, and 200 clients that send nothing:
# past the cap they are closed at once, and the probe keeps its fds.
rm -f "$DB"*
(ulimit -n 64 && exec "$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" --profile "$(api_profile)") \
	2>"$T/loadd.err" &
LOADD_PID=$!
STARTED_PIDS+=("$LOADD_PID")
wait_for_api
"$PYTHON" - "$SOCK" <<'PY' || fail "loadd out of fds: $(tail -5 "$T/loadd.err")"
import resource, socket, sys, time
path = sys.argv[1]
soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
resource.setrlimit(resource.RLIMIT_NOFILE, (min(hard, 4096), hard))
conns = []
for _ in range(200):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.setblocking(False)
    try:
        s.connect(path)
        conns.append(s)
    except BlockingIOError:  # the backlog is full too
        s.close()
time.sleep(2)
for s in conns:
    s.close()
# The closed ones wait in the backlog until loadd accepts them again.
deadline = time.monotonic() + 30
while True:
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(30)
    try:
        s.connect(path)
        break
    except BlockingIOError:
        s.close()
        assert time.monotonic() < deadline, "the backlog never drained"
        time.sleep(0.1)
s.sendall(b"GET /v1/status HTTP/1.0\r\n\r\n")
reply = b""
while True:
    b = s.recv(65536)
    if not b:
        break
    reply += b
assert reply.split(b"\r\n", 1)[0].split()[1] == b"200", reply[:200]
print("answered again after %d connections" % len(conns))
PY
kill -0 "$LOADD_PID" || fail "loadd died out of fds: $(tail -5 "$T/loadd.err")"
# The connection cap keeps fds in reserve: accept() never runs out of them.
pauses=$(grep -c "cannot accept a connection: Too many open files; pausing" "$T/loadd.err" || true)
(( pauses == 0 )) || fail "accept ran out of fds $pauses times: $(tail -5 "$T/loadd.err")"
grep -q "clients connected, the most allowed; closing new connections" "$T/loadd.err" ||
	fail "no message about the connection cap: $(tail -5 "$T/loadd.err")"
expect_json 202 POST /v1/stop
wait_for_exit
[[ $LOADD_STATUS == 0 ]] || fail "loadd exited $LOADD_STATUS: $(tail -5 "$T/loadd.err")"
echo "ok: loadd survived every bad request, and running out of fds"
