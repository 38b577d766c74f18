#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The memory, write and read loaders, each in a phase of its own on a tiny
# profile: their counters land in loader_stats and grow, the report gives
# each a MiB/s, the read loader makes its file once for two phases, and
# nothing of theirs is left in the work dir after the run.
source "$(dirname "$0")/lib.sh"

prof=$(profile mio <<'EOF2'
[run]
settle = 500ms
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase memory]
duration = 2s
loads = mem
[phase write]
duration = 2s
loads = wr wrsync
[phase read]
duration = 2s
loads = rd rdkeep
[phase read-again]
duration = 2s
loads = rd
[load mem]
type = memory
size = 64M
[load wr]
type = write
size = 16M
reserve = 0
[load wrsync]
type = write
size = 8M
block = 64K
fsync = yes
reserve = 0
[load rd]
type = read
size = 16M
cache = drop
reserve = 0
[load rdkeep]
type = read
size = 8M
block = 256K
cache = keep
reserve = 0
EOF2
)

run_loadd --profile "$prof" >"$T/out" 2>"$T/err" || fail "loadd exited $?: $(cat "$T/err")"
[[ $(sql "select status from runs") == complete ]] || fail "run not complete"

for load in mem wr wrsync rd rdkeep; do
	rows=$(sql "select count(*) from loader_stats where load = '$load'")
	(( rows >= 2 )) || fail "$load: $rows loader_stats rows, want at least 2"
	# Within each phase the byte count only grows, and it grew.
	[[ $(sql "select count(*) from loader_stats a join loader_stats b
		  on a.load = b.load and a.phase_id = b.phase_id and b.t > a.t and b.bytes < a.bytes
		  where a.load = '$load'") == 0 ]] || fail "$load: bytes went down"
	[[ $(sql "select max(bytes) > 0 and max(cycles) > 0 from loader_stats where load = '$load'") == 1 ]] ||
		fail "$load: no bytes or no cycles counted: $(sql "select * from loader_stats where load = '$load'")"
	[[ $(sql "select count(*) from events where load = '$load' and kind in ('exit', 'signal', 'oom-kill', 'restart', 'error', 'stall')") == 0 ]] ||
		fail "$load: trouble: $(sql "select kind, message from events where load = '$load'")"
done
[[ $(sql "select count(*) from phases where valid = 1") == 4 ]] ||
	fail "some phase invalid: $(sql "select name, invalid_reason from phases where valid = 0")"

# The memory loader said how its size compares with what is free.
sql "select message from events where load = 'mem' and kind = 'info'" | grep -q "MemAvailable" ||
	fail "memory loader did not state its size against MemAvailable"
# The read file was made once, for both phases that read it.
made=$(sql "select count(*) from events where load = 'rd' and kind = 'info' and message like 'making its%'")
[[ $made == 1 ]] || fail "rd made its file $made times, want once"

# The report's load table gives each load a MiB/s above zero.
python3 - "$T/out" <<'PY' || fail "report lacks MiB/s: $(cat "$T/out")"
import sys
text = open(sys.argv[1]).read()
part = text.split("Loads over the probe window", 1)[1].split("\n\n", 1)[0]
lines = part.splitlines()
at = next(i for i, l in enumerate(lines) if l.startswith("Phase") and "MiB/s" in l)
head = lines[at]
seen = {}
for line in lines[at + 1:]:
    # Load is left-aligned; MiB/s, a number, ends where its heading ends.
    load = line[head.index("Load"):head.index("Type")].strip()
    if load in ("mem", "wr", "wrsync", "rd", "rdkeep"):
        mib = line[:head.index("MiB/s") + len("MiB/s")].split()[-1]
        seen.setdefault(load, []).append(float(mib))
assert set(seen) == {"mem", "wr", "wrsync", "rd", "rdkeep"}, seen
assert all(v > 0 for vs in seen.values() for v in vs), seen
PY

leftover=$(ls -A "$WORK" | grep -v -e '^tree-' -e '^\.lock$' -e '^\.loadd-' || true)
[[ -z "$leftover" ]] || fail "left in the work dir: $leftover"
echo "ok: $(sql "select load || ' ' || max(bytes) from loader_stats group by load" | tr '\n' ' ')"
