#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loadtop -b against the database of a real run: every figure it prints is
# the database's own (recomputed here with Python's sqlite3 and statistics
# modules), it reads a run while loadd is still writing it, and each reason
# there is nothing to show gets its message and exit status.
source "$(dirname "$0")/lib.sh"
: "${LOADTOP:?set LOADTOP to the loadtop binary}"

prof=$(profile tiny <<'EOF2'
[run]
settle = 300ms

[probe]
job = ls -R {tree}
every = 200ms
tree = depth=2 fanout=3 files=4

[phase none]
duration = 2s

[phase cpu]
duration = 2s
loads = ring

[load ring]
type = cpu
procs = 2
EOF2
)
run_loadd --socket "$T/loadd.sock" --profile "$prof" >"$T/out" 2>"$T/err" ||
	fail "loadd exited $?: $(cat "$T/err")"
[[ $(sql "select status from runs") == complete ]] || fail "run not complete"

"$LOADTOP" --db "$DB" -b -n 2 -d 0.2 >"$T/top" 2>"$T/top.err" ||
	fail "loadtop -b exited $?: $(cat "$T/top.err")"
[[ $(grep -c '^=== loadtop snapshot [12]/2 at ' "$T/top") == 2 ]] ||
	fail "expected two marked snapshots: $(cat "$T/top")"
for title in Probe Loads System "Phases so far" Events; do
	grep -q "^$title" "$T/top" || fail "no $title panel: $(cat "$T/top")"
done
grep -q "run 1  complete  profile tiny" "$T/top" || fail "header lacks the run: $(head -3 "$T/top")"
grep -q "round 1/1  phase 2/2 cpu (run over)" "$T/top" ||
	fail "header lacks round and phase: $(head -3 "$T/top")"

# The figures, from the first snapshot, against the database.
sed -n '2,/^=== /p' "$T/top" >"$T/snap1"
python3 - "$DB" "$T/snap1" <<'PY' || fail "loadtop's figures differ from the database's: $(cat "$T/snap1")"
import re, sqlite3, statistics, sys

db = sqlite3.connect(sys.argv[1])
text = open(sys.argv[2]).read()
lines = text.splitlines()

def panel(title):
    start = next(i for i, l in enumerate(lines) if l.startswith(title))
    end = next((i for i in range(start + 1, len(lines)) if lines[i] == ""), len(lines))
    return lines[start:end]

def walls(phase_id):
    return sorted(r[0] for r in db.execute(
        "select wall_ms from samples where phase_id = ? and failed = 0", (phase_id,)))

def check(what, printed, value, fmt):
    want = fmt % value
    assert printed == want, f"{what}: loadtop printed {printed}, the database says {want}"

# Phases so far: n, median, p95 and ratio of every phase.
phases = db.execute("select id, round, name from phases order by started_at, id").fetchall()
rows = [l.split() for l in panel("Phases so far")[2:]]
assert len(rows) == len(phases), (rows, phases)
medians = {}
for (pid, rnd, name), row in zip(phases, rows):
    w = walls(pid)
    assert row[0] == str(rnd) and row[1] == name, (row, rnd, name)
    assert row[2] == str(len(w)), (row, len(w))
    medians[name] = statistics.median(w)
    check(f"{name} median", row[3], medians[name], "%.1f")
    check(f"{name} p95", row[4], statistics.quantiles(w, n=100, method="inclusive")[94], "%.1f")
for (pid, rnd, name), row in zip(phases, rows):
    check(f"{name} ratio", row[5], medians[name] / medians["none"], "%.2f")

# The probe panel shows the last phase.
last_id = phases[-1][0]
w = walls(last_id)
probe = " ".join(panel("Probe"))
m = re.search(r"last (\S+) ms  median (\S+) ms  p95 (\S+) ms  cpu% (\S+)  jobs (\d+)  "
              r"missed (\d+)  failed (\d+)", probe)
assert m, probe
last = db.execute("select wall_ms from samples where phase_id = ? and failed = 0"
                  " order by seq desc limit 1", (last_id,)).fetchone()[0]
cpu = [r[0] for r in db.execute("select cpu_pct from samples where phase_id = ? and failed = 0",
                                (last_id,))]
check("last", m[1], last, "%.1f")
check("probe median", m[2], statistics.median(w), "%.1f")
check("probe cpu%", m[4], sum(cpu) / len(cpu), "%.1f")
assert m[5] == str(len(w)), (m[5], len(w))
missed, failed = db.execute("select sum(missed), sum(failed) from samples where phase_id = ?",
                            (last_id,)).fetchone()
assert (m[6], m[7]) == (str(missed), str(failed)), (m.groups(), missed, failed)

# The loads panel: throughput and CPU from the load's last two counter rows.
loads = panel("Loads")
assert loads[1].split()[:3] == ["load", "type", "state"], loads
ring = next(l for l in loads[2:] if l.startswith("ring"))
f = ring.split()
(t1, c1, b1, o1, cpu1, procs, restarts, errors), (t0, c0, b0, o0, cpu0, *_) = db.execute(
    "select t, cycles, bytes, ops, cpu_ms, procs, restarts, errors from loader_stats"
    " where phase_id = ? and load = 'ring' order by t desc, id desc limit 2", (last_id,))
# Type and unit as the run recorded the load: the cpu ring counts passes.
load_type, cycle_unit, ops_unit, reports_bytes = db.execute(
    "select type, cycle_unit, ops_unit, reports_bytes from loads where run_id = 1 and name = 'ring'"
).fetchone()
assert (load_type, cycle_unit, ops_unit, reports_bytes) == ("cpu", "trips", "passes", 0)
if reports_bytes:
    rate, unit = (b1 - b0) / (t1 - t0) / (1024.0 * 1024.0), "MiB/s"
elif ops_unit is not None:
    rate, unit = (o1 - o0) / (t1 - t0), ops_unit + "/s"
else:
    rate, unit = (c1 - c0) / (t1 - t0), cycle_unit + "/s"
assert f[1] == load_type and f[2] == "stopped", f
assert f[3] == str(procs), (f, procs)
check("ring throughput", f[4], rate, "%.1f")
assert f[5] == unit, (f, unit)
check("ring cpu%", f[6], max(cpu1 - cpu0, 0) / (t1 - t0) / 10.0, "%.1f")
assert f[7:9] == [str(restarts), str(errors)], (f, restarts, errors)
assert rate > 0, "the ring made no progress"

# The system panel: the run's newest row.
sysp = " ".join(panel("System"))
busy, ctxt, some, full = db.execute(
    "select cpu_busy_pct, ctxt_per_s, psi_cpu_some, psi_cpu_full from system_stats"
    " where run_id = 1 order by t desc, id desc limit 1").fetchone()
m = re.search(r"cpu busy (\S+)%  ctxt/s (\S+) .*PSI some/full %  cpu (\S+)/(\S+)", sysp)
assert m, sysp
check("cpu busy", m[1], busy, "%.1f")
check("ctxt/s", m[2], ctxt, "%.0f")
for printed, v in ((m[3], some), (m[4], full)):
    assert printed == ("n/a" if v is None else "%.1f" % v), (printed, v)

# Events: as many as the run has, up to the panel's hundred.
n_events = db.execute("select count(*) from events where run_id = 1").fetchone()[0]
assert panel("Events")[0].startswith(f"Events  latest {min(n_events, 100)},"), panel("Events")
PY

# A run read while loadd writes it: the latest run, live.
long=$(profile long <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 6s
EOF2
)
start_loadd --socket "$T/loadd.sock" --profile "$long" >"$T/loadd.out"
wait_for_sql "select count(*) >= 5 from samples where run_id = 2" 30
"$LOADTOP" --db "$DB" -b -n 2 -d 0.3 >"$T/live" 2>"$T/live.err" ||
	fail "loadtop on a running run exited $?: $(cat "$T/live.err")"
grep -q "run 2  running  profile long" "$T/live" || fail "not the running run: $(cat "$T/live")"
grep -q "phase 1/1 none (probing)" "$T/live" || fail "the live phase is missing: $(cat "$T/live")"
grep -q "remaining " "$T/live" || fail "no remaining time: $(cat "$T/live")"
wait "$LOADD_PID" || fail "loadd (run 2) exited $?: $(cat "$T/loadd.err")"

# Nothing to show: each case says why, with status 1.
expect_refusal() {
	local want=$1
	shift
	local rc=0
	"$LOADTOP" "$@" >"$T/r.out" 2>"$T/r.err" || rc=$?
	[[ $rc == 1 ]] || fail "loadtop $* exited $rc, expected 1: $(cat "$T/r.err")"
	grep -qF "$want" "$T/r.err" || fail "loadtop $*: expected '$want', got: $(cat "$T/r.err")"
	[[ ! -s "$T/r.out" ]] || fail "loadtop $* wrote to stdout: $(cat "$T/r.out")"
}
expect_refusal "no database at $T/none.db; start a run with loadd --profile quick" \
	--db "$T/none.db" -b -n 1
expect_refusal "no run 42 in $DB" --db "$DB" --run 42 -b -n 1
cp "$DB" "$T/empty.db"
sqlite3 "$T/empty.db" "delete from events; delete from loader_stats; delete from system_stats;
	delete from samples; delete from phases; delete from runs"
expect_refusal "no run in $T/empty.db yet; start one with loadd --profile quick" \
	--db "$T/empty.db" -b -n 1
cp "$DB" "$T/newer.db"
sqlite3 "$T/newer.db" "pragma user_version = 99"
expect_refusal "newer than this program's" --db "$T/newer.db" -b -n 1

# Bad usage: status 2 and a hint.
for args in "-d 0" "-d 0.01" "-d abc" "-n 0" "--run x" "--bogus" "extra"; do
	rc=0
	# shellcheck disable=SC2086
	"$LOADTOP" --db "$DB" -b $args >/dev/null 2>"$T/u.err" || rc=$?
	[[ $rc == 2 ]] || fail "loadtop $args exited $rc, expected 2"
	grep -q "loadtop --help" "$T/u.err" || fail "loadtop $args: no hint: $(cat "$T/u.err")"
done
rc=0
"$LOADTOP" --db "$DB" </dev/null >"$T/notty" 2>&1 || rc=$?
[[ $rc == 2 ]] && grep -q "not a terminal; use -b" "$T/notty" ||
	fail "interactive mode without a terminal: exit $rc: $(cat "$T/notty")"
"$LOADTOP" --version | grep -q '^loadtop [0-9]' || fail "no version"
"$LOADTOP" --help | grep -q -- "--batch" || fail "no help"
echo "ok: loadtop's figures match the database"
