#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The primitive probes (spawn, ctxswitch, switchcost) run in a tiny profile,
# store a figure for every sample, and the figures are ordered as physics
# demands: a fork costs more than a thread, a fork + exec more than a fork,
# a strictly alternating count more per increment than one thread counting
# alone, and a ring's switch costs something. Pinned rings say so, and the
# spawn probe's fork server ends with loadd even when loadd is killed.
source "$(dirname "$0")/lib.sh"

prof=$(profile prims <<'EOF2'
[run]
settle = 0s
[probe]
every = 1s
tree = depth=1 fanout=2 files=2
[probe thread]
type = spawn
mode = thread
count = 20
every = 250ms
[probe fork]
type = spawn
mode = fork
count = 5
every = 250ms
[probe exec]
type = spawn
mode = exec
count = 5
every = 250ms
[probe daemonfork]
type = spawn
mode = fork
from = daemon
count = 5
every = 250ms
[probe ring]
type = ctxswitch
members = 3
passes = 50
every = 250ms
[probe threadring]
type = ctxswitch
mode = thread
members = 3
size = 16K
passes = 50
every = 250ms
[probe ringsame]
type = ctxswitch
members = 3
cpus = same
passes = 50
every = 250ms
[probe ringspread]
type = ctxswitch
mode = thread
members = 4
cpus = spread
passes = 50
every = 250ms
[probe one]
type = switchcost
mode = one
count = 200000
every = 250ms
[probe alternate]
type = switchcost
count = 500
every = 250ms
[probe locked]
type = switchcost
mode = locked
threads = 3
count = 20000
every = 250ms
[phase none]
duration = 3s
EOF2
)
run_loadd --profile "$prof" >"$T/out" 2>&1 || fail "loadd failed: $(cat "$T/out")"

median() {
	sql "select value from samples s join probes p on p.id = s.probe_id
	     where p.name = '$1' and s.failed = 0 order by value
	     limit 1 offset (select count(*) / 2 from samples s join probes p on p.id = s.probe_id
			     where p.name = '$1' and s.failed = 0)"
}
for p in thread fork exec daemonfork ring threadring ringsame ringspread one alternate locked; do
	n=$(sql "select count(*) from samples s join probes p on p.id = s.probe_id
		 where p.name = '$p' and s.failed = 0 and s.value > 0")
	(( n >= 1 )) || fail "probe $p stored no positive figure: $(sql "select * from events")"
	bad=$(sql "select count(*) from samples s join probes p on p.id = s.probe_id
		   where p.name = '$p' and (s.failed != 0 or s.value is null or s.value < 0)")
	[[ $bad == 0 ]] || fail "probe $p has $bad failed or empty samples: $(sql "select * from events")"
done
ge() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a >= b) }'; }
# Like with like, all three made by the fork server: a fork against a
# thread, a fork + exec against a bare fork.
ge "$(median fork)" "$(median thread)" || fail "fork ($(median fork) us) cheaper than a thread ($(median thread) us)"
ge "$(median exec)" "$(median fork)" ||
	fail "fork + exec ($(median exec) us) cheaper than a bare fork ($(median fork) us)"
ge "$(median alternate)" "$(median one)" ||
	fail "alternating ($(median alternate) ns) cheaper per increment than one thread ($(median one) ns)"
# Every alternating increment is a hand-off: the threads' own counters show
# at least one voluntary switch per ten increments.
sw=$(sql "select min(s.nvcsw) from samples s join probes p on p.id = s.probe_id where p.name = 'alternate'")
(( sw >= 50 )) || fail "alternating threads switched only $sw times for 500 increments"
[[ $(sql "select units from probes where name = 'alternate'") == ns ]] || fail "switchcost's units are not ns"
# fork from the daemon copies loadd's page tables: never cheaper than from
# the small fork server (with a margin for noise: under ASan it is far dearer).
ge "$(median daemonfork)" "$(awk -v f="$(median fork)" 'BEGIN { print f / 2 }')" ||
	fail "a fork of loadd ($(median daemonfork) us) far cheaper than one of the fork server ($(median fork) us)"
# A pinned ring says where its members ran.
"$LOADD" --check --profile "$prof" >"$T/plan" 2>&1 || fail "loadd --check failed: $(cat "$T/plan")"
grep -q "ringsame .*all on one CPU" "$T/plan" || fail "the pinned ring does not say it is pinned: $(cat "$T/plan")"
"$LOADCTL" --db "$DB" report >"$T/report" || fail "report failed"
grep -Eq "^ +threadring +ctxswitch +us +[0-9]+ " "$T/report" && grep -Eq "^ +alternate +switchcost +ns " "$T/report" || fail "the report has no ctxswitch row: $(cat "$T/report")"
echo "ok: thread $(median thread) us, fork $(median fork) us, exec $(median exec) us," \
	"switch $(median ring) us, one $(median one) ns, alternate $(median alternate) ns"

# The fork server ends with the probe, even when loadd is killed outright.
prof=$(profile server <<'EOF2'
[run]
settle = 0s
[probe]
every = 10s
tree = depth=1 fanout=2 files=2
[probe fork]
type = spawn
count = 5
every = 100ms
[phase none]
duration = 30s
EOF2
)
rm -f "$DB"*
start_loadd --profile "$prof"
server=
for ((i = 0; i < 100; i++)); do
	[[ -z $server ]] || break
	sleep 0.1
	for stat in /proc/[0-9]*/stat; do
		read -r pid comm _ ppid _ <"$stat" 2>/dev/null || continue
		[[ $ppid == "$LOADD_PID" && $comm == "(loadd-fork-serv)" ]] && server=$pid
	done
done
[[ -n $server ]] || fail "no loadd-fork-server child of loadd in 10 s: $(cat "$T/loadd.err")"
kill -KILL "$LOADD_PID"
for ((i = 0; i < 50; i++)); do
	[[ -e /proc/$server && $(cut -d' ' -f3 "/proc/$server/stat" 2>/dev/null) != Z ]] || break
	sleep 0.1
done
[[ ! -e /proc/$server || $(cut -d' ' -f3 "/proc/$server/stat" 2>/dev/null) == Z ]] ||
	fail "loadd-fork-server $server outlived a kill -9 of loadd"
echo "ok: the fork server $server ended with loadd"
