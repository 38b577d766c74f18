#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Every database fixture of an older schema opens with this loadd, migrates,
# and reports its run with the same figures as the version that made it.
source "$(dirname "$0")/lib.sh"
export TZ=UTC

prof=$(profile tiny <<'EOF2'
[run]
settle = 100ms

[probe]
every = 200ms
tree = depth=1 fanout=2 files=2

[probe wakeup]

[phase none]
duration = 1s
EOF2
)

shopt -s nullglob
fixtures=("$SRC"/tests/data/db/*v[0-9]*.db)
(( ${#fixtures[@]} > 0 )) || fail "no fixtures in tests/data/db"
for fixture in "${fixtures[@]}"; do
	name=$(basename "$fixture" .db)
	cp "$fixture" "$DB"
	rm -f "$DB-wal" "$DB-shm"
	old=$(sql "pragma user_version")
	runs=$(sql "select count(*) from runs")

	# Opening it read-only first must refuse politely, not break it.
	if "$LOADCTL" --db "$DB" report >"$T/ro.out" 2>"$T/ro.err"; then
		[[ $(sql "pragma user_version") == "$old" ]] || fail "$name: a reader changed the schema"
	else
		grep -q "run this version's loadd once" "$T/ro.err" ||
			fail "$name: unclear refusal: $(cat "$T/ro.err")"
	fi

	# A run of this loadd migrates it and adds its own run beside the old ones.
	run_loadd --profile "$prof" >"$T/run.out" 2>"$T/run.err" ||
		fail "$name: loadd on it exited $?: $(cat "$T/run.err")"
	(( $(sql "pragma user_version") > old )) || fail "$name: not migrated"
	[[ $(sql "select count(*) from runs") == $((runs + 1)) ]] || fail "$name: runs lost or not added"
	# Every run, old or new, has a UUID (loadctl import tells runs apart by it).
	[[ $(sql "select count(*) from runs where uuid is null or length(uuid) != 36") == 0 ]] ||
		fail "$name: runs without a UUID"
	[[ $(sql "select count(distinct uuid) from runs") == $((runs + 1)) ]] || fail "$name: UUIDs repeat"

	# The old runs report as they did.
	for ((id = 1; id <= runs; id++)); do
		"$LOADCTL" --db "$DB" report "$id" >"$T/report" || fail "$name: report $id failed"
		want="$SRC/tests/data/db/$name.report"
		# The same figures: every number of the old report, in order, where
		# the new one has them (its layout may have gained columns since).
		if [[ -f "$want" && $id == 1 ]]; then
			python3 - "$want" "$T/report" <<'PY' || fail "$name: run $id reports different figures"
import re, sys
def blocks(path):
    """The report's blank-line separated blocks, each a list of lines."""
    out = [[]]
    for line in open(path):
        if line.strip():
            out[-1].append(line)
        elif out[-1]:
            out.append([])
    return [b for b in out if b]
def figures(bs):
    out = []
    for line in (l for b in bs for l in b):
        out += [(line.split()[0] if line.split() else "", n)
                for n in re.findall(r"(?<![\w.])[-+]?\d+(?:\.\d+)?(?![\w.])", line)]
    return out
old_blocks = blocks(sys.argv[1])
# A section the old version did not print at all (one whose first word
# begins no block of the old report, e.g. the study tables) is new, not a
# changed figure.
known = {b[0].split()[0] for b in old_blocks}
new_blocks = [b for b in blocks(sys.argv[2]) if b[0].split()[0] in known]
old, new = figures(old_blocks), figures(new_blocks)
if old != new:
    for o, n in zip(old, new):
        if o != n:
            print("first difference: was %s %s, now %s %s" % (o + n))
            break
    print("was %d figures, now %d" % (len(old), len(new)))
    sys.exit(1)
PY
		fi
		"$LOADCTL" --db "$DB" report "$id" --json >"$T/report.json" ||
			fail "$name: JSON report $id failed"
		python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); assert d["phases"][0]["probes"][0]["type"] == "job"' \
			"$T/report.json" || fail "$name: the old run's job probe is not in the JSON report"
	done
	# The new run has its probes.
	"$LOADCTL" --db "$DB" report >"$T/new" || fail "$name: report of the new run failed"
	grep -Eq "^none +job +job" "$T/new" && grep -Eq "^ +wakeup +wakeup" "$T/new" ||
		fail "$name: the new run's report lacks its probes: $(cat "$T/new")"
	"$LOADCTL" --db "$DB" export --run all - >"$T/all.csv" || fail "$name: export of every run failed"
done
