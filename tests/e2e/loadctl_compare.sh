#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loadctl compare on real (tiny) runs: two runs in one database, one in
# another with a different job and phase list, one over a different tree.
# Checks the table's shape, the JSON, every exit status, the refusal of
# different trees, the verdict on samples made slower or invalid by hand,
# the ranking of four runs, and the A/A case: two real runs made one after
# the other (never side by side: each would load the other) get no faster or
# slower verdict.
source "$(dirname "$0")/lib.sh"

# The verdict column of phase $1 in $T/out: the text below the heading's
# "B vs A", up to the next two blanks.
verdict() {
	awk -v phase="$1" '
		/^Phase +Time A/ { col = index($0, "B vs A") }
		col && $1 == phase { v = substr($0, col); sub(/  .*/, "", v); print v; exit }
	' "$T/out"
}

runs_in() { # DB PROFILE
	"$LOADD" --db "$1" --workdir "$WORK" --socket "$SOCK" --profile "$2" >/dev/null \
		2>"$T/loadd.err" || fail "loadd failed: $(cat "$T/loadd.err")"
}

tiny=$(tiny_profile)
# Same tree, another job and another phase list.
other=$(profile other <<'EOF'
[probe]
job = ls -R -a {tree}
every = 100ms
tree = depth=2 fanout=3 files=4
[run]
settle = 0s
[phase none]
duration = 1s
[phase idle]
duration = 1s
EOF
)
# Another tree.
small=$(profile small <<'EOF'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=1 fanout=2 files=2
[phase none]
duration = 1s
EOF
)
OTHER="$T/other.db"
SMALL="$T/small.db"
runs_in "$DB" "$tiny"
runs_in "$DB" "$tiny"
runs_in "$OTHER" "$other"
runs_in "$SMALL" "$small"

# Two runs of one database, side by side.
ctl --db "$DB" compare 1 2
ctl_expect 0 "" "compare 1 2"
[[ ! -s "$T/err" ]] || fail "compare 1 2 warned: $(cat "$T/err")"
grep -q "^A     run 1 in $DB (complete), profile tiny" "$T/out" || fail "no A line: $(cat "$T/out")"
grep -q "^B     run 2 in $DB (complete), profile tiny" "$T/out" || fail "no B line: $(cat "$T/out")"
grep -qE '^Phase +Time A +Time B +change +95% interval +Ratio A +Ratio B +rounds +n A +n B +B vs A$' \
	"$T/out" || fail "no heading: $(cat "$T/out")"
# The A/A case: the idle phase of two runs of one profile, one after the
# other, is not called faster or slower. (Under the cpu load it may be: a
# machine shared with other work gives the ring, and so the job, a different
# share of the CPUs from one run to the next, and the loads' table shows it.)
v=$(verdict none)
case $v in
"no significant change" | "inconclusive: need more rounds ("*")") ;;
*) fail "A/A, phase none: verdict '$v' in: $(cat "$T/out")" ;;
esac
case $(verdict cpu) in
faster | slower | "no significant change" | "inconclusive: need more rounds ("*")") ;;
*) fail "phase cpu: verdict '$(verdict cpu)' in: $(cat "$T/out")" ;;
esac
# none is each run's baseline: its ratio is 1.00 on both sides.
pct='(>\+|[-+])[0-9.]+%'
grep -qE "^none +[0-9.]+ +[0-9.]+ +$pct +$pct \.\. $pct +1\.00 +1\.00 +3/3 " "$T/out" ||
	fail "none's row: $(cat "$T/out")"
grep -qE '^Phase +Load +Rate A +Rate B +change +95% interval +LCPU% A +LCPU% B +B vs A$' "$T/out" ||
	fail "no loads table: $(cat "$T/out")"
grep -qE "^cpu +cpu +[0-9]+ trips/s +[0-9]+ trips/s +$pct +$pct \.\. $pct +[0-9.]+ +[0-9.]+ +[a-z]" "$T/out" ||
	fail "cpu's loads row: $(cat "$T/out")"
! grep -q "Only in" "$T/out" || fail "phases only in one run: $(cat "$T/out")"
# Every row of the main table is as wide as the heading up to the verdict.
awk '/^Phase +Time A/ { col = index($0, "B vs A"); next }
     col && /^$/ { exit }
     col && !/^[( ]/ && substr($0, col - 2, 2) != "  " { print; bad = 1 }
     END { exit bad }' "$T/out" || fail "the table is not aligned: $(cat "$T/out")"

# DB:RUN on both sides, a different job (a warning) and different phases.
ctl --db "$T/nowhere.db" compare "$DB:2" "$OTHER:1"
ctl_expect 0 "warning: runs $DB:2 and $OTHER:1 timed different jobs ('ls -R {tree}' and 'ls -R -a {tree}')" \
	"compare across databases"
grep -q "^Job   A ls -R {tree}, B ls -R -a {tree}$" "$T/out" || fail "Job line: $(cat "$T/out")"
grep -q "^Only in A: cpu$" "$T/out" || fail "no 'Only in A: cpu': $(cat "$T/out")"
grep -q "^Only in B: idle$" "$T/out" || fail "no 'Only in B: idle': $(cat "$T/out")"
[[ -n $(verdict none) ]] || fail "no verdict for none: $(cat "$T/out")"
[[ -z $(verdict cpu) ]] || fail "cpu compared with nothing: $(cat "$T/out")"

# The same as JSON.
ctl --db "$DB" compare 2 "$OTHER:1" --json
ctl_expect 0 "timed different jobs" "compare --json"
jq -e '
	.runs[0].id == 2 and .runs[0].db == "'"$DB"'" and .runs[1].spec == "'"$OTHER"':1" and
	.same_tree == true and .threshold == 0.05 and .resamples == 2000 and
	([.phases[].name] == ["none", "cpu", "idle"]) and
	(.phases[0].figures[0] | .figure == "time" and .unit == "ms" and
		.higher_is_better == false and .runs[0].median > 0 and
		(.pairs | length) == 1 and
		(.pairs[0] | .a == 0 and .b == 1 and .ratio > 0 and .ci_low <= .ratio and
			.ratio <= .ci_high and
			(.verdict | IN("equivalent", "inconclusive", "lower", "higher")))) and
	(.phases[1].figures | length) == 2 and
	(.phases[1].figures[0].runs[1].why_not == "missing") and
	(.phases[1].figures[1] | .figure == "load" and .load == "cpu" and
		.unit == "cycles/s" and .higher_is_better == true and .pairs == [])
' "$T/out" >/dev/null || fail "compare --json: $(cat "$T/out")"

# Different trees: refused, or compared with a warning under --force.
fa=$(sql "select tree_fingerprint from runs where id = 1")
fb=$(sqlite3 -batch -noheader "$SMALL" "select tree_fingerprint from runs where id = 1")
[[ -n $fa && -n $fb && $fa != "$fb" ]] || fail "fingerprints '$fa' and '$fb'"
ctl --db "$DB" compare 1 "$SMALL:1"
ctl_expect 1 "loadctl: error: runs 1 and $SMALL:1 timed different trees (fingerprints $fa and $fb): their times are not comparable" \
	"different trees"
[[ $(wc -l <"$T/err") -eq 1 && ! -s "$T/out" ]] || fail "different trees: $(cat "$T/err" "$T/out")"
ctl --db "$DB" compare --force 1 "$SMALL:1"
ctl_expect 0 "warning: runs 1 and $SMALL:1 timed different trees (fingerprints $fa and $fb)" \
	"different trees with --force"
grep -q "^Tree  A $fa, B $fb: compared anyway (--force)$" "$T/out" || fail "Tree line: $(cat "$T/out")"

# Run 2 made slower by hand, every job by 10 s: B slower, and A faster the
# other way round, whatever the machine did meanwhile.
cp "$DB" "$T/slow.db"
sqlite3 "$T/slow.db" "update samples set wall_ms = wall_ms + 10000 where phase_id in
	(select id from phases where run_id = 2 and name = 'none')"
ctl --db "$DB" compare 1 "$T/slow.db:2"
ctl_expect 0 "" "compare with a slower run"
[[ $(verdict none) == slower ]] || fail "none not slower: $(cat "$T/out")"
ctl --db "$DB" compare "$T/slow.db:2" 1
ctl_expect 0 "" "compare a slower run with a faster one"
[[ $(verdict none) == faster ]] || fail "none not faster: $(cat "$T/out")"
ctl --db "$DB" compare 1 1
ctl_expect 0 "" "a run with itself"
case $(verdict none) in
"no significant change" | inconclusive*) ;;
*) fail "a run unlike itself: $(cat "$T/out")" ;;
esac
# A wider band.
ctl --db "$DB" compare --threshold 1000% 1 "$T/slow.db:2"
ctl_expect 2 "--threshold '1000%' is not a percentage between 0 and 100" "a band too wide"
ctl --db "$DB" compare --threshold 0 1 2
ctl_expect 2 "--threshold '0' is not a percentage" "no band"
ctl --db "$DB" compare --threshold 12.5% 1 2
ctl_expect 0 "" "--threshold 12.5%"
grep -q "outside the ±12.5% band" "$T/out" || fail "the band is not named: $(cat "$T/out")"

# Four runs ranked: run 1 twice (a tie whatever the machine did), run 2
# 10 s slower a job, and 20 s slower.
cp "$DB" "$T/slower.db"
sqlite3 "$T/slower.db" "update samples set wall_ms = wall_ms + 20000 where phase_id in
	(select id from phases where run_id = 2 and name = 'none')"
ctl --db "$DB" compare 1 "$DB:1" "$T/slow.db:2" "$T/slower.db:2"
ctl_expect 0 "" "four runs"
for i in 1 2 3 4; do
	grep -q "^$i  *run [12] in " "$T/out" || fail "run $i not listed: $(cat "$T/out")"
done
grep -qE '^none +job time +1 = 2 +3$' "$T/out" || fail "none's summary: $(cat "$T/out")"
grep -qE '^cpu +job time ' "$T/out" || fail "cpu's time in the summary: $(cat "$T/out")"
grep -qE '^cpu +load cpu ' "$T/out" || fail "cpu's load in the summary: $(cat "$T/out")"
awk '/^none, job time/ { on = 1; next } on && /^$/ { exit } on { print $1, $2 }' "$T/out" \
	>"$T/ranks"
[[ $(cat "$T/ranks") == $'Rank Run\n1 1\n1 2\n3 3\n4 4' ]] ||
	[[ $(cat "$T/ranks") == $'Rank Run\n1 2\n1 1\n3 3\n4 4' ]] ||
	fail "none's ranking: $(cat "$T/ranks") in $(cat "$T/out")"
ctl --db "$DB" compare --json 1 "$DB:1" "$T/slow.db:2" "$T/slower.db:2"
jq -e '.phases[0].figures[0] | [.runs[].rank] == [1, 1, 3, 4] and (.pairs | length) == 6' \
	"$T/out" >/dev/null || fail "four runs in JSON: $(cat "$T/out")"

# An invalid phase is marked and gets no verdict.
cp "$DB" "$T/invalid.db"
sqlite3 "$T/invalid.db" "update phases set valid = 0, invalid_reason = 'load cpu made no progress'
	where run_id = 2 and name = 'cpu'"
ctl --db "$DB" compare 1 "$T/invalid.db:2"
ctl_expect 0 "" "compare with an invalid phase"
[[ $(verdict cpu) == "invalid in B" ]] || fail "cpu not invalid in B: $(cat "$T/out")"
grep -qE '^cpu .*invalid in B +B: INVALID: load cpu made no progress$' "$T/out" ||
	fail "cpu's note: $(cat "$T/out")"
ctl --db "$DB" compare 1 "$T/invalid.db:2" --json
jq -e '.phases[] | select(.name == "cpu") | .figures[0] |
	.pairs == [] and .runs[1].why_not == "invalid" and .runs[1].rank == null' \
	"$T/out" >/dev/null || fail "invalid phase in JSON: $(cat "$T/out")"

# Exit statuses: 2 for a command line that makes no sense, 1 for a run or
# database that is not there.
ctl --db "$DB" compare
ctl_expect 2 "which runs? give two or more" "compare without runs"
ctl --db "$DB" compare 1
ctl_expect 2 "which runs? give two or more" "compare with one run"
ctl --db "$DB" compare 1 x
ctl_expect 2 "'x' is not a run: give RUN or DB:RUN" "compare with a word"
ctl --db "$DB" compare 1 "$OTHER:"
ctl_expect 2 "'$OTHER:' is not a run" "compare with DB: and no run"
ctl --db "$DB" compare ":1" 2
ctl_expect 2 "':1' is not a run" "compare with :RUN"
ctl --db "$DB" compare 0 1
ctl_expect 2 "'0' is not a run" "compare run 0"
ctl --db "$DB" compare 1 2 --bogus
ctl_expect 2 "unknown option '--bogus'" "compare --bogus"
grep -qF "usage: loadctl [--db PATH] compare RUN RUN... [--threshold PCT] [--json | --html FILE] [--force]" "$T/err" ||
	fail "no usage line: $(cat "$T/err")"
ctl --db "$DB" compare 1 9
ctl_expect 1 "no run 9 in $DB" "compare with a missing run"
[[ $(wc -l <"$T/err") -eq 1 ]] || fail "more than one line: $(cat "$T/err")"
ctl --db "$DB" compare 1 "$T/nope.db:1"
ctl_expect 1 "no database at $T/nope.db" "compare with a missing database"
ctl help compare
ctl_expect 0 "" "help compare"
grep -qF "usage: loadctl [--db PATH] compare RUN RUN... [--threshold PCT] [--json | --html FILE] [--force]" "$T/out" ||
	fail "help compare: $(cat "$T/out")"

echo "ok: loadctl compare"
