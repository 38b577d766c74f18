#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The shipped cpu load keeps every CPU busy: [load cpu] of config/cpu.conf
# and config/quick.conf, run as they ship for a few seconds, keep the CPUs
# >= 90% busy over the probe window (system_stats.cpu_busy_pct), with one
# ring per CPU this process may use (read here, never assumed); tokens = 1
# stays lat_ctx's single ring.
source "$(dirname "$0")/lib.sh"

ncpus=$(nproc)

# The [load cpu] section of a shipped profile, as it ships.
shipped_section() {
	awk '/^\[/ { on = ($0 ~ /^\[load cpu\]/) } on' "$SRC/config/$1.conf"
}

busy_over_window() {
	sql "select round(avg(s.cpu_busy_pct), 1) from system_stats s join phases p
	     on p.id = s.phase_id where p.name = 'cpu' and s.t >= p.probe_start"
}

for shipped in cpu quick; do
	rm -f "$DB"
	p=$(profile "$shipped-sat" <<EOF2
[run]
settle = 2s
[probe]
every = 500ms
tree = depth=2 fanout=3 files=4
[phase cpu]
duration = 6s
loads = cpu
$(shipped_section "$shipped")
EOF2
)
	run_loadd --profile "$p" >"$T/out" 2>"$T/err" || fail "$shipped: loadd failed: $(cat "$T/err")"
	busy=$(busy_over_window)
	[[ -n $busy ]] || fail "$shipped: no system_stats in the probe window"
	awk -v b="$busy" 'BEGIN { exit !(b >= 90) }' ||
		fail "$shipped's cpu load kept $ncpus CPUs only $busy% busy"
	started=$(sql "select message from events where load = 'cpu' and kind = 'start' limit 1")
	if ((ncpus > 1)); then
		grep -qF "in $ncpus rings, one pinned to each CPU" <<<"$started" ||
			fail "$shipped: not one ring per CPU on $ncpus CPUs: $started"
	fi
	echo "$shipped: $busy% busy on $ncpus CPUs ($started)"
done

# tokens = 1: one ring, lmbench lat_ctx's mode
p=$(profile single <<'EOF2'
[phase cpu]
duration = 1s
loads = cpu
[load cpu]
type = cpu
procs = 4
tokens = 1
EOF2
)
run_loadd --check --profile "$p" >"$T/check" 2>&1 || fail "tokens = 1 refused: $(cat "$T/check")"
grep -qF "4 processes in a ring, 1 token" "$T/check" ||
	fail "tokens = 1 is not a single ring: $(cat "$T/check")"
