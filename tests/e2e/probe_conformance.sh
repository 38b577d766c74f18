#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every probe kind loadd lists (probe_table[], through --list-probes) runs
# briefly in a tiny profile beside the job probe: it records figures under its
# own probe row, the report and loadtop show it, the phase that does not name
# it has none of its figures, and it leaves nothing behind in the work dir.
source "$(dirname "$0")/lib.sh"
: "${LOADTOP:?set LOADTOP to the loadtop binary}"

mapfile -t kinds < <("$LOADD" --list-probes | sed -n 's/^\([a-z][a-z0-9-]*\): .*/\1/p')
(( ${#kinds[@]} >= 5 )) || fail "--list-probes lists ${#kinds[@]} kinds: ${kinds[*]}"

# Short schedules, small sizes: a few seconds in all per kind.
declare -A keys=(
	[job]=$'every = 200ms\ntree = depth=1 fanout=2 files=2'
	[wakeup]="interval = 1ms"
	[fsync]="every = 200ms"
	[launch]="every = 500ms"
	[fault]=$'every = 200ms\nsize = 4M'
	[spawn]=$'every = 200ms\ncount = 5'
	[ctxswitch]=$'every = 200ms\npasses = 20'
	[switchcost]=$'every = 200ms\ncount = 200'
	[ipclat]=$'every = 200ms\ncount = 50'
	[ipcbw]=$'every = 200ms\nsizes = 1K, 4K\ntotal = 256'
	[sync]=$'every = 200ms\ncount = 200'
	[chat]=$'every = 500ms\nduration = 200ms\nrooms = 2\nusers = 3'
)

for kind in "${kinds[@]}"; do
	[[ -v keys[$kind] ]] || fail "probe kind '$kind' has no settings in this test: add them"
	rm -rf "$DB" "$DB"-* "$WORK"
	name=p-$kind
	# A companion runs in both phases: the job, or for the job kind a wakeup
	# (a profile has one job probe).
	if [[ $kind == job ]]; then
		companion=$'[probe other]\ntype = wakeup' other=other
	else
		companion=$'[probe]\nevery = 300ms\ntree = depth=1 fanout=2 files=2' other=job
	fi
	prof=$(profile "conf-$kind" <<EOF2
[run]
settle = 100ms

$companion

[probe $name]
type = $kind
${keys[$kind]}

[phase without]
duration = 1s
probes = $other

[phase both]
duration = 2s
EOF2
)
	run_loadd --profile "$prof" >"$T/out" 2>"$T/err" || fail "$kind: loadd exited $?: $(cat "$T/err")"
	[[ $(sql "select status from runs") == complete ]] || fail "$kind: run not complete"
	id=$(sql "select id from probes where name = '$name' and type = '$kind'")
	[[ -n $id ]] || fail "$kind: no probes row: $(sql "select * from probes")"
	[[ $(sql "select units from probes where id = $id") =~ ^(ms|us|ns|MB/s|msg/s)$ ]] || fail "$kind: no units"
	n=$(sql "select (select count(*) from samples where probe_id = $id and failed = 0)
		 + (select coalesce(sum(count), 0) from histograms where probe_id = $id)")
	(( n > 0 )) || fail "$kind: nothing recorded: $(cat "$T/err")"
	[[ $(sql "select count(*) from samples s join phases p on p.id = s.phase_id
		  where s.probe_id = $id and p.name = 'without'")$(sql "select count(*) from
		  histograms h join phases p on p.id = h.phase_id where h.probe_id = $id and
		  p.name = 'without'") == 00 ]] || fail "$kind: figures in a phase that does not run it"
	grep -Eq "^ +$name +$kind +(ms|us|ns|MB/s|msg/s) +[0-9]+ " "$T/out" ||
		fail "$kind: the report has no row for it: $(cat "$T/out")"
	# loadtop shows it in the (last) phase that runs it, the job on its own lines.
	if [[ $kind != job ]]; then
		"$LOADTOP" --db "$DB" -b -n 1 >"$T/top" || fail "$kind: loadtop -b failed"
		grep -Eq "^$name \($kind\)  .*(median|p50) [0-9.]+ (ms|us|ns|MB/s|msg/s)" "$T/top" ||
			fail "$kind: loadtop has no line for it: $(cat "$T/top")"
	fi
	leftover=$(find "$WORK" -mindepth 1 -maxdepth 1 -name 'probe-*' 2>/dev/null)
	[[ -z $leftover ]] || fail "$kind: left in the work dir: $leftover"
done
echo "ok: ${kinds[*]}"
