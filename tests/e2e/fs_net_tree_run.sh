#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fs, net and tree loaders, each in a phase of its own with tiny
# settings: their counters land in loader_stats and grow, the report gives
# each its throughput, net counts a connection per transfer (one per client
# with keepalive), and nothing of theirs but the tar tree is left in the
# work dir. Needs dbench (package dbench).
source "$(dirname "$0")/lib.sh"

command -v dbench >/dev/null || skip "needs dbench (package dbench)"

prof=$(profile fnt <<'EOF2'
[run]
settle = 1s
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase fs]
duration = 4s
loads = fs
[phase net]
duration = 2s
loads = net netka
[phase tree]
duration = 2s
loads = tree
[load fs]
type = fs
clients = 1
runtime = 2s
[load net]
type = net
clients = 2
file_size = 64K
[load netka]
type = net
clients = 1
file_size = 256K
keepalive = yes
[load tree]
type = tree
tree = depth=2 fanout=3 files=4 size=1K
EOF2
)

run_loadd --profile "$prof" >"$T/out" 2>"$T/err" || fail "loadd exited $?: $(cat "$T/err")"
[[ $(sql "select status from runs") == complete ]] || fail "run not complete"

for load in fs net netka tree; do
	rows=$(sql "select count(*) from loader_stats where load = '$load'")
	(( rows >= 2 )) || fail "$load: $rows loader_stats rows, want at least 2"
	[[ $(sql "select count(*) from loader_stats a join loader_stats b
		  on a.load = b.load and a.phase_id = b.phase_id and b.t > a.t
		  and (b.bytes < a.bytes or b.cycles < a.cycles or b.ops < a.ops)
		  where a.load = '$load'") == 0 ]] || fail "$load: a counter went down"
	[[ $(sql "select max(bytes) > 0 and max(cycles) > 0 from loader_stats where load = '$load'") == 1 ]] ||
		fail "$load: no bytes or no cycles: $(sql "select * from loader_stats where load = '$load'")"
	[[ $(sql "select max(errors) from loader_stats where load = '$load'") == 0 ]] ||
		fail "$load: errors counted: $(sql "select kind, message from events where load = '$load'")"
	[[ $(sql "select count(*) from events where load = '$load' and kind in ('exit', 'signal', 'oom-kill', 'restart', 'error', 'stall')") == 0 ]] ||
		fail "$load: trouble: $(sql "select kind, message from events where load = '$load'")"
done
[[ $(sql "select count(*) from phases where valid = 1") == 3 ]] ||
	fail "some phase invalid: $(sql "select name, invalid_reason from phases where valid = 0")"

# dbench's operations show within a run, not only at its end.
[[ $(sql "select max(ops) > 0 from loader_stats where load = 'fs'") == 1 ]] || fail "fs counted no dbench operations"
# Without keepalive every transfer opened its connection; with it, the one
# client kept its one connection.
[[ $(sql "select max(ops) = max(cycles) from loader_stats where load = 'net'") == 1 ]] ||
	fail "net: connections != transfers: $(sql "select max(ops), max(cycles) from loader_stats where load = 'net'")"
[[ $(sql "select max(ops) from loader_stats where load = 'netka'") == 1 ]] ||
	fail "netka: $(sql "select max(ops) from loader_stats where load = 'netka'") connections, want 1"
[[ $(sql "select max(bytes) = max(cycles) * 262144 from loader_stats where load = 'netka'") == 1 ]] ||
	fail "netka: bytes are not whole bodies"
sql "select message from events where load = 'net' and kind = 'info'" | grep -q "^serving 65536 bytes on 127.0.0.1:" ||
	fail "net did not say where it serves: $(sql "select message from events where load = 'net'")"

# The report's load table gives every load its type, its cycles/s in its
# loader's unit and a MiB/s above zero.
python3 - "$T/out" <<'PY' || fail "report lacks throughput: $(cat "$T/out")"
import sys
text = open(sys.argv[1]).read()
part = text.split("Loads over the probe window", 1)[1].split("\n\n", 1)[0]
lines = part.splitlines()
at = next(i for i, l in enumerate(lines) if l.startswith("Phase") and "Cycles" in l)
head = lines[at]
def left(line, col, nxt):  # a left-aligned cell, which may hold blanks ("2.5 tar cycles/s")
    return line[head.index(col):head.index(nxt)].strip()
def right(line, col):      # a right-aligned number ends where its heading ends
    return line[:head.index(col) + len(col)].split()[-1]
want = {"fs": ("fs", "runs/s"), "net": ("net", "transfers/s"), "netka": ("net", "transfers/s"),
        "tree": ("tree", "tar cycles/s")}
seen = {}
for line in lines[at + 1:]:
    load = left(line, "Load", "Type")
    if load in want:
        cycles = left(line, "Cycles", "Ops")
        assert (left(line, "Type", "Cycles"), cycles.split(" ", 1)[1]) == want[load], line
        seen[load] = (float(cycles.split()[0]), float(right(line, "MiB/s")))
assert set(seen) == set(want), seen
assert all(c > 0 and m > 0 for c, m in seen.values()), seen
PY

leftover=$(ls -A "$WORK" | grep -v -e '^tree-' -e '^tar-trees$' -e '^\.lock$' -e '^\.loadd-' || true)
[[ -z "$leftover" ]] || fail "left in the work dir: $leftover"
[[ $(ls "$WORK/tar-trees" | grep -c '^tree-') == 1 ]] || fail "the tar tree was not kept"
echo "ok: $(sql "select load || ' ' || max(cycles) || ' cycles ' || max(bytes) || ' bytes' from loader_stats group by load" | tr '\n' ' ')"
