#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The chat probe with both servers: every sample stores a positive
# messages/s, every message reached every other member of its room (the
# deliveries are a multiple of users - 1, within what the rate allows), the
# latencies are positive and the report, its JSON and the export show them.
# A stop in the middle of a sample leaves no thread, socket or process.
source "$(dirname "$0")/lib.sh"

prof=$(profile chat <<'EOF2'
[run]
settle = 0s

[probe ev]
type = chat
rooms = 2
users = 4
every = 500ms
duration = 300ms

[probe th]
type = chat
server = threads
rooms = 3
users = 3
rate = 100
every = 500ms
duration = 300ms

[phase none]
duration = 2s
EOF2
)
run_loadd --profile "$prof" >"$T/out" 2>"$T/err" || fail "loadd failed: $(cat "$T/err")"
[[ $(sql "select status from runs") == complete ]] || fail "run not complete"

for p in ev:4 th:3; do
	name=${p%:*} users=${p#*:}
	id=$(sql "select id from probes where name = '$name' and type = 'chat'")
	[[ $(sql "select units from probes where id = $id") == msg/s ]] || fail "$name: units not msg/s"
	n=$(sql "select count(*) from samples where probe_id = $id and failed = 0 and value > 0")
	(( n >= 2 )) || fail "$name: $n good samples: $(cat "$T/err")"
	bad=$(sql "select count(*) from samples where probe_id = $id and (failed != 0 or not value > 0)")
	[[ $bad == 0 ]] || fail "$name: $bad failed samples: $(cat "$T/err")"
	# one histogram per sample, each delivery timed, none lost or doubled
	[[ $(sql "select count(*) from histograms where probe_id = $id") == "$n" ]] ||
		fail "$name: not one histogram per sample"
	odd=$(sql "select count(*) from histograms where probe_id = $id and
		   (count = 0 or count % ($users - 1) != 0 or sum_ns < count or max_ns = 0)")
	[[ $odd == 0 ]] || fail "$name: $odd histograms are not whole deliveries to $((users - 1)) others"
done
# th: 9 users at 100 messages/s for 300 ms send at most 31 each, to 2 others
most=$(sql "select max(h.count) from histograms h join probes p on p.id = h.probe_id where p.name = 'th'")
(( most <= 9 * 31 * 2 )) || fail "th: $most deliveries in a sample, more than its rate allows"

grep -Eq '(^| )ev +chat +msg/s +[0-9]+ ' "$T/out" || fail "no chat row in the report: $(cat "$T/out")"
grep -A4 '^Latencies' "$T/out" | grep -Eq '(^| )th +chat +[0-9]+ +[0-9.]+ ' ||
	fail "no latency row in the report: $(cat "$T/out")"
grep -A4 '^Chat: messages delivered per second' "$T/out" | grep -Eq '^ +threads .*[0-9]' ||
	fail "no chat study table in the report: $(cat "$T/out")"
"$LOADCTL" --db "$DB" report --json >"$T/json" || fail "report --json failed"
python3 - "$T/json" <<'EOF2' || fail "the JSON report lacks chat's latencies"
import json, sys
rep = json.load(open(sys.argv[1]))
probes = [p for ph in rep["phases"] for p in ph["probes"] if p["type"] == "chat"]
assert len(probes) == 2 and all(p["latency"]["count"] > 0 and p["latency"]["p50_ms"] > 0
                                and p["time_ms"]["median"] > 0 for p in probes), probes
EOF2
"$LOADCTL" --db "$DB" export --probe ev - >"$T/csv" || fail "export failed"
(( $(wc -l <"$T/csv") >= 3 )) || fail "export has no samples: $(cat "$T/csv")"
[[ -z $(own_processes) ]] || fail "processes left: $(own_processes)"

# A stop in the middle of a sample: loadd ends promptly and cleanly.
prof=$(profile stop <<'EOF2'
[probe th]
type = chat
server = threads
rooms = 4
users = 16
every = 5s
duration = 4s
[phase none]
duration = 60s
EOF2
)
start_loadd --profile "$prof"
wait_for_sql "select count(*) from phases" 30 || fail "no phase started: $(cat "$T/loadd.err")"
sleep 1
kill -TERM "$LOADD_PID"
for _ in $(seq 100); do
	kill -0 "$LOADD_PID" 2>/dev/null || break
	sleep 0.1
done
kill -0 "$LOADD_PID" 2>/dev/null && fail "loadd still running 10s after SIGTERM"
wait "$LOADD_PID" || true
[[ -z $(own_processes) ]] || fail "processes left after a stop: $(own_processes)"
echo "ok: $(sql "select group_concat(p.name || ' ' || round(s.value), ', ') from samples s
	join probes p on p.id = s.probe_id where s.seq = 0") msg/s"
