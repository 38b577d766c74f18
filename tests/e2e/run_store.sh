#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A real run of a tiny two-phase profile: every table gets its rows, the
# report has the paper's columns, and both export formats read back.
source "$(dirname "$0")/lib.sh"

cache=warm
[[ $(id -u) -eq 0 ]] && cache=cold
prof=$(profile tiny <<EOF2
[run]
rounds = 2
settle = 200ms

[probe]
job = ls -R {tree}
every = 200ms
tree = depth=2 fanout=3 files=4

[phase none]
duration = 2s
cache = $cache

[phase warm]
duration = 2s
EOF2
)

run_loadd --profile "$prof" >"$T/out" 2>"$T/err" || fail "loadd exited $?: $(cat "$T/err")"

grep -q "round 2/2 phase warm: n=" "$T/err" || fail "no per-phase progress line: $(cat "$T/err")"
[[ $(sql "select status from runs") == complete ]] || fail "run not complete"
[[ $(sql "select count(*) from phases where valid = 1 and ended_at > started_at") == 4 ]] ||
	fail "expected 4 valid, ended phases"
[[ $(sql "select profile_text like '%[phase warm]%' from runs") == 1 ]] || fail "profile text not stored"
[[ $(sql "select length(host) > 0 and length(kernel) > 0 and cores > 0 and ram_bytes > 0 from runs") == 1 ]] ||
	fail "host facts missing"
[[ $(sql "select length(tree_fingerprint) from runs") == 16 ]] || fail "no tree fingerprint"

# Every 200 ms over 2 s: 10 slots per phase, a few may be missed on a busy machine.
n=$(sql "select count(*) from samples")
(( n >= 24 && n <= 40 )) || fail "expected about 40 samples, got $n"
[[ $(sql "select count(*) from samples where failed = 0 and wall_ms > 0 and exit_code = 0") == "$n" ]] ||
	fail "some samples failed or have no time"
[[ $(sql "select count(*) from samples where user_ms + sys_ms > wall_ms * 2.5") == 0 ]] ||
	fail "CPU time larger than wall time allows"
(( $(sql "select count(*) from system_stats") >= 6 )) || fail "too few system samples"
[[ $(sql "select count(*) from system_stats where cpu_busy_pct < 0 or cpu_busy_pct > 100") == 0 ]] ||
	fail "CPU busy out of range"

# The report: the run's header and the contest columns, a row per phase, no load → Ratio 1.00.
grep -q "Time" "$T/out" && grep -q "CPU%" "$T/out" && grep -q "LCPU%" "$T/out" &&
	grep -q "Ratio" "$T/out" || fail "report lacks the paper's columns: $(cat "$T/out")"
grep -Eq "^ *none .*1\.00" "$T/out" || fail "baseline phase has no ratio 1.00: $(cat "$T/out")"
"$LOADCTL" --db "$DB" report >"$T/report2" || fail "loadctl report failed"
diff <(grep -v '^$' "$T/out") <(grep -v '^$' "$T/report2") >/dev/null ||
	fail "loadd's report and loadctl's differ"

# Export: CSV read back by Python's csv module, JSON by its json module.
"$LOADCTL" --db "$DB" export "$T/results.csv" || fail "export csv failed"
"$LOADCTL" --db "$DB" export --format json - >"$T/results.json" || fail "export json failed"
python3 - "$T/results.csv" "$T/results.json" "$n" <<'PY' || fail "export does not read back"
import csv, json, sys
rows = list(csv.DictReader(open(sys.argv[1], newline="")))
n = int(sys.argv[3])
assert len(rows) == n, (len(rows), n)
for col in ("run_id", "round", "phase", "seq", "started_at", "wall_ms", "user_ms", "sys_ms",
            "cpu_pct", "nvcsw", "nivcsw", "exit_code", "failed", "missed"):
    assert col in rows[0], col
assert {r["phase"] for r in rows} == {"none", "warm"}
assert {r["round"] for r in rows} == {"1", "2"}
assert all(float(r["wall_ms"]) > 0 for r in rows)
data = json.load(open(sys.argv[2]))
assert len(data) == n
assert sorted(float(r["wall_ms"]) for r in rows) == sorted(float(d["wall_ms"]) for d in data)
PY

# Nothing of the run is left in the work dir but the probe's tree and the lock.
leftover=$(ls -A "$WORK" | grep -v -e '^tree-' -e '^\.lock$' -e '^\.loadd-' || true)
[[ -z "$leftover" ]] || fail "left in the work dir: $leftover"
echo "ok: $n samples"
