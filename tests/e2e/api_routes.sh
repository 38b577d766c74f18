#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every route of the control API over the Unix socket: status codes, JSON
# bodies, /metrics read by a real Prometheus parser, the socket's mode, the
# TCP listener serving /metrics and nothing else, and a stop through the API
# ending the run as aborted with loadd exiting 0.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/api_helpers.sh"

start_loadd --profile "$(api_profile)" --listen 127.0.0.1:0
wait_for_api

# The socket is private, or shared with group loadd when root has one.
mode=$(stat -c %a "$SOCK")
if [[ $(id -u) -eq 0 ]] && getent group loadd >/dev/null; then
	[[ $mode == 660 && $(stat -c %G "$SOCK") == loadd ]] || fail "socket mode $mode, want 660 group loadd"
else
	[[ $mode == 600 ]] || fail "socket mode $mode, want 600"
fi

expect_json 200 GET /v1/status
"$PYTHON" - "$T/body" <<'PY' || fail "status document: $(cat "$T/body")"
import json, sys
d = json.load(open(sys.argv[1]))
assert d["api"] == 1
r = d["run"]
assert r["id"] == 1 and r["profile"] == "api" and r["status"] == "running", r
assert r["round"] == 1 and r["rounds"] == 1 and r["planned_s"] == 121 and r["elapsed_s"] > 0, r
p = d["phase"]
assert p["name"] == "cpu" and p["index"] == 1 and p["count"] == 2 and p["loads"] == ["cpu"], p
assert p["state"] == "probing" and p["jobs"] >= 2, p
(l,) = d["loads"]
assert l["name"] == "cpu" and l["type"] == "cpu" and l["procs"] >= 1 and l["cycles"] > 0, l
assert 1 <= len(d["samples"]) <= 10 and all(s["wall_ms"] > 0 for s in d["samples"]), d["samples"]
seqs = [s["seq"] for s in d["samples"]]
assert seqs == sorted(seqs), seqs
assert d["metrics_listen"].startswith("127.0.0.1:"), d["metrics_listen"]
PY
port=$("$PYTHON" -c 'import json, sys; print(json.load(open(sys.argv[1]))["metrics_listen"].split(":")[1])' "$T/body")

[[ $(http HEAD /v1/status -I) == 200 ]] || fail "HEAD /v1/status"

expect_json 200 GET /v1/runs
"$PYTHON" - "$T/body" <<'PY' || fail "runs document: $(cat "$T/body")"
import json, sys
runs = json.load(open(sys.argv[1]))["runs"]
assert [(r["id"], r["status"], r["profile"]) for r in runs] == [(1, "running", "api")], runs
assert runs[0]["ended_at"] is None and runs[0]["samples"] >= 2, runs
PY
expect_json 200 GET '/v1/runs?limit=1'
expect_json 400 GET '/v1/runs?limit=zero'
expect_json 400 GET '/v1/runs?bogus=1'
expect_json 400 GET '/v1/status?x=%zz'

[[ $(http GET /metrics) == 200 ]] || fail "GET /metrics: $(cat "$T/body")"
grep -qi '^content-type: text/plain; version=0.0.4' "$T/headers" || fail "metrics content type: $(cat "$T/headers")"
check_metrics "$T/body"

# Wrong routes and methods: 404 and 405 (with Allow), each with a JSON error.
expect_json 404 GET /v2/status
expect_json 404 GET /
expect_json 404 GET /v1/status/extra
expect_json 405 POST /v1/status
grep -qi '^allow: GET, HEAD' "$T/headers" || fail "405 without Allow: $(cat "$T/headers")"
expect_json 405 DELETE /v1/runs
expect_json 405 PUT /metrics
expect_json 405 GET /v1/stop
grep -qi '^allow: POST' "$T/headers" || fail "405 without Allow: POST: $(cat "$T/headers")"
"$PYTHON" -c 'import json, sys; assert json.load(open(sys.argv[1]))["error"]' "$T/body" ||
	fail "error body without an error: $(cat "$T/body")"

# The TCP listener: /metrics, and nothing else.
tcp() {
	curl -sS --max-time 10 -o "$T/body" -D "$T/headers" -w '%{http_code}' "$@"
}
[[ $(tcp "http://127.0.0.1:$port/metrics") == 200 ]] || fail "TCP /metrics"
check_metrics "$T/body"
[[ $(tcp -I "http://127.0.0.1:$port/metrics") == 200 ]] || fail "TCP HEAD /metrics"
for target in /v1/status /v1/runs /v1/stop /; do
	[[ $(tcp "http://127.0.0.1:$port$target") == 404 ]] || fail "TCP GET $target: not 404"
	"$PYTHON" -m json.tool "$T/body" >/dev/null || fail "TCP 404 body is not JSON"
done
[[ $(tcp -X POST "http://127.0.0.1:$port/v1/stop") == 404 ]] || fail "TCP POST /v1/stop: not 404"
[[ $(tcp -X POST "http://127.0.0.1:$port/metrics") == 405 ]] || fail "TCP POST /metrics: not 405"
kill -0 "$LOADD_PID" || fail "loadd stopped by a request on the TCP listener"

# POST /v1/stop: 202, then the run ends as aborted and loadd exits 0.
expect_json 202 POST /v1/stop
"$PYTHON" -c 'import json, sys; d = json.load(open(sys.argv[1])); assert d == {"run_id": 1, "status": "stopping"}, d' "$T/body" ||
	fail "stop reply: $(cat "$T/body")"
wait_for_exit
[[ $LOADD_STATUS == 0 ]] || fail "loadd exited $LOADD_STATUS after a stop through the API, want 0"
[[ $(sql "select status from runs where id = 1") == aborted ]] || fail "run not recorded as aborted"
[[ ! -e $SOCK ]] || fail "socket left behind"
curl -s --max-time 2 "http://127.0.0.1:$port/metrics" >/dev/null && fail "TCP listener still open"
echo "ok: every route answered"
