#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Another local user's requests to the net load's server on 127.0.0.1 are
# not the load's: they get no body, and are neither counted as the load's
# errors nor written into the run's events.
source "$(dirname "$0")/lib.sh"
command -v curl >/dev/null || skip "needs curl"
as_other() {
	if [[ $(id -u) -eq 0 ]] && id nobody >/dev/null 2>&1; then
		runuser -u nobody -- "$@"
	else
		"$@"
	fi
}

prof=$(profile net <<'EOF2'
[run]
settle = 0s
[probe]
every = 500ms
tree = depth=1 fanout=2 files=2
[phase net]
duration = 60s
loads = net
[load net]
type = net
clients = 1
file_size = 64K
EOF2
)
start_loadd --profile "$prof"
wait_for_sql "select count(*) from events where message like 'serving % on 127.0.0.1:%'" 30
port=$(sql "select message from events where message like 'serving % on 127.0.0.1:%'" |
	sed -n 's/.* on 127\.0\.0\.1:\([0-9]*\) .*/\1/p')
[[ -n $port ]] || fail "no port in the events: $(sql "select message from events")"

for i in 1 2 3 4 5; do
	code=$(as_other curl -s -o /dev/null -w '%{http_code}' "http://127.0.0.1:$port/" || true)
	[[ $code != 200 ]] || fail "a foreign request for / got the load's body"
	as_other curl -s -o /dev/null "http://127.0.0.1:$port/foreign-text-$i" || true
done
# The load's counters reach the database once a second.
sleep 2.5
wait_for_sql "select count(*) from loader_stats where cycles > 0" 30
errors=$(sql "select coalesce(max(errors), 0) from loader_stats")
[[ $errors == 0 ]] || fail "foreign requests counted as $errors errors of the load"
! sql "select message from events" | grep -q "foreign-text" ||
	fail "a foreign request's text reached the events: $(sql "select message from events")"
kill -TERM "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
echo PASS
