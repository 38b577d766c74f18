#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loadctl against a real (tiny) run: every command, every exit status, and
# exports that read back or, when they fail, leave no file behind.
source "$(dirname "$0")/lib.sh"

# Before any run: no database at all.
ctl --db "$DB" runs
ctl_expect 1 "no database at $DB (has loadd run yet?)" "runs without a database"
[[ ! -e "$DB" ]] || fail "loadctl created the database"

run_profile tiny <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
[phase again]
duration = 1s
EOF2
n=$(sql "select count(*) from samples")
(( n > 0 )) || fail "the run took no samples"

# Usage errors: status 2 and the usage line.
ctl
ctl_expect 2 "" "no command"
ctl bogus
ctl_expect 2 "unknown command 'bogus'" "unknown command"
ctl --bogus runs
ctl_expect 2 "unknown option '--bogus'" "unknown global option"
ctl --db
ctl_expect 2 "--db needs a PATH" "--db without a path"
ctl --db "$DB" runs --bogus
ctl_expect 2 "usage: loadctl [--db PATH] runs" "unknown option of runs"
ctl --db "$DB" report abc
ctl_expect 2 "'abc' is not a run id" "report of a word"
ctl --db "$DB" report 1 2
ctl_expect 2 "too many arguments" "report of two runs"
ctl --db "$DB" export
ctl_expect 2 "which FILE?" "export without a file"
ctl --db "$DB" export --format xml "$T/x"
ctl_expect 2 "--format is csv or json, not 'xml'" "export to xml"
ctl --db "$DB" export --run "$T/x"
ctl_expect 2 "--run takes a run id or 'all'" "export --run without an id"

# Help and version: status 0 on stdout.
ctl help
ctl_expect 0 "" "help"
grep -q "export" "$T/out" || fail "help does not list export"
ctl help report
ctl_expect 0 "" "help report"
grep -qF "usage: loadctl [--db PATH] report [RUN] [--json | --html FILE]" "$T/out" || fail "help report: $(cat "$T/out")"
ctl --version
ctl_expect 0 "" "--version"
grep -q "^loadctl [0-9]" "$T/out" || fail "--version: $(cat "$T/out")"

# A run that is not there: status 1, one line.
ctl --db "$DB" report 99
ctl_expect 1 "no run 99 in $DB" "report of a missing run"
[[ $(wc -l <"$T/err") -eq 1 ]] || fail "more than one line for a missing run: $(cat "$T/err")"
ctl --db "$DB" export --run 99 "$T/x.csv"
ctl_expect 1 "no run 99 in $DB" "export of a missing run"
[[ ! -e "$T/x.csv" ]] || fail "export of a missing run made a file"

# The commands themselves.
ctl --db "$DB" runs
ctl_expect 0 "" "runs"
grep -Eq "^ *1 +complete +tiny " "$T/out" || fail "runs: $(cat "$T/out")"
grep -Eq " $n\$" "$T/out" || fail "runs does not count $n samples: $(cat "$T/out")"
ctl --db "$DB" report
ctl_expect 0 "" "report"
grep -Eq "^none .* 1\.00 " "$T/out" || fail "report: $(cat "$T/out")"
ctl --db "$DB" report 1 --json
ctl_expect 0 "" "report --json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["run"]["id"] == 1; assert [p["name"] for p in d["phases"]] == ["none", "again"]' "$T/out" ||
	fail "report --json does not read back"

ctl --db "$DB" export -
ctl_expect 0 "" "export to stdout"
[[ $(head -1 "$T/out") == $'run_id,round,phase,phase_id,probe,weak,seq,started_at,wall_ms,user_ms,sys_ms,cpu_pct,nvcsw,nivcsw,exit_code,failed,missed,value,variant,over_limit\r' ]] ||
	fail "CSV header: $(head -1 "$T/out")"
[[ $(wc -l <"$T/out") -eq $((n + 1)) ]] || fail "CSV rows: $(wc -l <"$T/out"), want $((n + 1))"
grep -Eq '^1,1,none,[0-9]+,job,"",0,[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}\.[0-9]{3}Z,' "$T/out" ||
	fail "CSV first row: $(sed -n 2p "$T/out")"

ctl --db "$DB" export --run all "$T/all.json"
ctl_expect 0 "" "export --run all to .json"
python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert len(d) == int(sys.argv[2]), len(d); assert {r["phase"] for r in d} == {"none", "again"}' "$T/all.json" "$n" ||
	fail "JSON export does not read back"
[[ ! -e "$T/all.json.tmp" ]] || fail "the temp file was left"

# Failed exports leave nothing behind.
touch "$T/plainfile"
ctl --db "$DB" export "$T/plainfile/x.csv"
ctl_expect 1 "cannot write $T/plainfile/x.csv" "export below a file"
ctl --db "$DB" export "$T"
ctl_expect 1 "Is a directory" "export onto a directory"
ctl --db "$DB" export /dev/full
ctl_expect 1 "cannot write /dev/full" "export to a full device"
[[ -c /dev/full ]] || fail "/dev/full is no longer a device"

# A filesystem that fills up half-way (needs root to mount a tmpfs): the old
# file stays as it was.
mkdir "$T/small"
if [[ $(id -u) -eq 0 ]] && mount -t tmpfs -o size=64k tmpfs "$T/small"; then
	trap 'umount "$T/small" 2>/dev/null || true; cleanup' EXIT
	echo "old" >"$T/small/results.csv"
	dd if=/dev/zero of="$T/small/filler" bs=4k 2>/dev/null || true
	ctl --db "$DB" export "$T/small/results.csv"
	ctl_expect 1 "cannot write $T/small/results.csv" "export onto a full filesystem"
	[[ $(cat "$T/small/results.csv") == old ]] || fail "the old export was damaged"
	[[ ! -e "$T/small/results.csv.tmp" ]] || fail "the temp file was left on a full filesystem"
	umount "$T/small"
else
	echo "note: not root or no tmpfs: the full-filesystem export was not tried" >&2
fi
echo "ok: $n samples"
