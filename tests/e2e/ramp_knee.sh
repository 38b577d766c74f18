#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The knee search: a phase ramping cpu.procs over 2, 4, 8 runs a phase row
# per step (knee@2 ...) and the report prints the ramp table and the knee.
# With a condition no step can meet, every step runs and the knee is beyond
# the last; with one the first step meets (ratio > 0), the search stops after
# it (a ramp-stop event) and there is no acceptable step. Bad ramp and until
# lines are refused with file:line; the shipped config/knee.conf is valid.
# The JSON report carries the same steps and knee.
source "$(dirname "$0")/lib.sh"

bad=$(profile bad <<'EOF2'
[phase knee]
duration = 1s
loads = cpu
ramp = net.clients 1,2
until = speed > 3
[load cpu]
type = cpu
EOF2
)
status=0
run_loadd --check --profile "$bad" >/dev/null 2>"$T/bad.err" || status=$?
[[ $status == 2 ]] || fail "a bad ramp exited $status"
grep -qF "$bad:4: ramp: phase 'knee' does not run load 'net'" "$T/bad.err" ||
	fail "no file:line for the ramp: $(cat "$T/bad.err")"
run_loadd --check --profile "$SRC/config/knee.conf" >/dev/null 2>"$T/knee.err" ||
	fail "config/knee.conf refused: $(cat "$T/knee.err")"

knee() {
	profile "$1" <<EOF2
[run]
settle = 500ms
[probe]
every = 250ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
[phase knee]
duration = 1s
loads = cpu
ramp = cpu.procs 2..8 x2
until = $2
[load cpu]
type = cpu
expect = none
EOF2
}

# every step acceptable
p=$(knee never "median > 1000000ms")
run_loadd --profile "$p" >"$T/out" 2>"$T/err" || fail "loadd failed: $(cat "$T/err")"
[[ $(sql "select group_concat(name, ' ') from phases where run_id = 1 order by id") == "none knee@2 knee@4 knee@8" ]] ||
	fail "steps not stored as phases: $(sql "select group_concat(name, ' ') from phases")"
(( $(sql "select max(procs) from loader_stats where phase_id = (select id from phases where name = 'knee@8')") == 9 )) ||
	fail "the step did not run 8 members"
"$LOADCTL" --db "$DB" report 1 >"$T/report" || fail "report failed"
grep -q "^Knee search knee: cpu.procs over 3 steps" "$T/report" || fail "no ramp table: $(cat "$T/report")"
grep -Eq "^ +3 +8 " "$T/report" || fail "no row for step 3: $(cat "$T/report")"
grep -q "^Knee: beyond the last step run (procs = 8): no step had median > 1e+06ms" "$T/report" ||
	fail "no knee line: $(cat "$T/report")"
# the JSON report has the same steps and knee
"$LOADCTL" --db "$DB" report 1 --json >"$T/report.json" || fail "report --json failed"
python3 - "$T/report.json" <<'PY' || fail "the JSON report's knee: $(cat "$T/report.json")"
import json, sys
r = json.load(open(sys.argv[1]))["ramps"]
assert len(r) == 1 and r[0]["phase"] == "knee" and r[0]["key"] == "procs", r
assert [s["value"] for s in r[0]["steps"]] == ["2", "4", "8"], r
assert all(s["median_ms"] > 0 for s in r[0]["steps"]), r
assert r[0]["knee_found"] == "beyond" and r[0]["knee"] == {"step": 3, "value": "8"}, r
PY

# the first step already too slow: the search stops there
p=$(knee first "ratio > 0")
run_loadd --profile "$p" >"$T/out" 2>"$T/err" || fail "loadd failed: $(cat "$T/err")"
[[ $(sql "select group_concat(name, ' ') from phases where run_id = 2 order by id") == "none knee@2" ]] ||
	fail "the search went on past its condition: $(sql "select group_concat(name, ' ') from phases where run_id = 2")"
sql "select message from events where run_id = 2 and kind = 'ramp-stop'" | grep -q "^step 1 (cpu.procs = 2)" ||
	fail "no ramp-stop event"
"$LOADCTL" --db "$DB" report 2 >"$T/report2" || fail "report 2 failed"
grep -q "^Knee: none: the first step (procs = 2) already has ratio > 0" "$T/report2" ||
	fail "no knee verdict: $(cat "$T/report2")"
"$LOADCTL" --db "$DB" export --run 2 - | grep -q ",knee@2," || fail "export lacks the step"
"$LOADCTL" --db "$DB" report 2 --json | python3 -c '
import json, sys
r = json.load(sys.stdin)["ramps"][0]
assert r["knee_found"] == "none" and r["knee"] is None and len(r["steps"]) == 1, r
assert r["until"] == "ratio > 0", r
' || fail "the JSON report of the stopped search"
echo ok
