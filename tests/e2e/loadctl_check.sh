#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loadctl baseline, check and import on real (tiny) runs: naming a baseline,
# check's exit statuses (0 nothing regressed, 1 something did, 2 the check
# could not be made) on a run made slower by hand and on a load made to do
# less, its JSON, and import: new ids, the same figures, a second import
# skipped.
source "$(dirname "$0")/lib.sh"

tiny=$(tiny_profile)
OTHER="$T/other.db"
# One after the other: runs side by side would load each other.
for db in "$DB" "$DB" "$OTHER"; do
	"$LOADD" --db "$db" --workdir "$WORK" --socket "$SOCK" --profile "$tiny" >/dev/null \
		2>"$T/loadd.err" || fail "loadd failed: $(cat "$T/loadd.err")"
done

# ---- baseline ----
ctl --db "$DB" baseline list
ctl_expect 0 "" "baseline list, none yet"
grep -q "^No baselines in $DB" "$T/out" || fail "empty list: $(cat "$T/out")"
ctl --db "$DB" baseline set 1 --name base
ctl_expect 0 "" "baseline set"
[[ $(cat "$T/out") == "baseline base: run 1" ]] || fail "baseline set said: $(cat "$T/out")"
ctl --db "$DB" baseline list
grep -qE '^base +1 +tiny +' "$T/out" || fail "baseline list: $(cat "$T/out")"
ctl --db "$DB" baseline list --json
jq -e 'length == 1 and .[0].name == "base" and .[0].run == 1 and .[0].set_at > 0' "$T/out" \
	>/dev/null || fail "baseline list --json: $(cat "$T/out")"
ctl --db "$DB" baseline set 1 --name base
ctl_expect 0 "" "the same name again replaces it"
[[ $(sqlite3 "$DB" "SELECT count(*) FROM baselines") == 1 ]] || fail "two rows for one name"
ctl --db "$DB" baseline set 1
ctl_expect 2 "which name? give --name NAME" "baseline set without a name"
ctl --db "$DB" baseline set 1 --name 12
ctl_expect 2 "--name '12': a name is 1 to 64 characters, no ':', and not a number" "a number as a name"
ctl --db "$DB" baseline set x --name a
ctl_expect 2 "'x' is not a run id of this database" "baseline set x"
ctl --db "$DB" baseline set 9 --name a
ctl_expect 1 "no run 9 in $DB" "baseline of a missing run"
ctl --db "$DB" baseline
ctl_expect 2 "set RUN --name NAME, or list" "baseline alone"

# ---- check ----
# A run against itself: nothing can have regressed.
ctl --db "$DB" check 1 --against base
ctl_expect 0 "" "run 1 against itself"
grep -q "^OK: nothing regressed beyond ±5%$" "$T/out" || fail "no OK line: $(cat "$T/out")"
grep -qE '^Phase +Figure +Baseline +Run +change +95% interval +verdict$' "$T/out" ||
	fail "check's heading: $(cat "$T/out")"
for fig in "none +job time" "cpu +job time" "cpu +load cpu"; do
	grep -qE "^$fig " "$T/out" || fail "no '$fig' row: $(cat "$T/out")"
done
# The latest run by default; whatever the machine did, 0 or 1.
ctl --db "$DB" check --against base
[[ $RC -eq 0 || $RC -eq 1 ]] || fail "check of the latest run: exit $RC: $(cat "$T/err")"
grep -q "^Run       latest (run 2 of $DB)$" "$T/out" || fail "latest: $(cat "$T/out")"

# Run 1 made 10 s slower a job in none: regressed, listed, exit 1.
cp "$DB" "$T/slow.db"
sqlite3 "$T/slow.db" "UPDATE samples SET wall_ms = wall_ms + 10000 WHERE phase_id IN
	(SELECT id FROM phases WHERE run_id = 1 AND name = 'none')"
ctl --db "$DB" check "$T/slow.db:1" --against base
ctl_expect 1 "" "a slower run"
grep -qE '^REGRESSED: none, job time \+[0-9.]+%$' "$T/out" || fail "none not listed: $(cat "$T/out")"
[[ $(grep -c '^REGRESSED' "$T/out") == 1 ]] || fail "more than none regressed: $(cat "$T/out")"
ctl --db "$DB" check "$T/slow.db:1" --against base --json
ctl_expect 1 "" "a slower run, as JSON"
jq -e '.regressed == true and .baseline == "base" and .against_run_id == 1 and
	.threshold == 0.05 and
	([.figures[] | select(.regressed) | [.phase, .figure]] == [["none", "time"]]) and
	(.figures[0] | .ratio > 100 and .ci_low > 1.05 and .verdict == "REGRESSED")' "$T/out" \
	>/dev/null || fail "check --json: $(cat "$T/out")"
# A baseline whose load did a thousand times the work: the load regressed.
# (Rounds' rates spread widely on a busy machine; a thousandfold change
# clears any spread three rounds can show.)
cp "$DB" "$T/busy.db"
sqlite3 "$T/busy.db" "UPDATE loader_stats SET cycles = cycles * 1000 WHERE run_id = 1"
ctl --db "$DB" check 1 --against "$T/busy.db:1"
ctl_expect 1 "" "a load doing less"
grep -qE '^REGRESSED: cpu, load cpu -99\.9%$' "$T/out" || fail "the load not listed: $(cat "$T/out")"
# The other way round it got better: exit 0. A run as --against works too.
ctl --db "$T/slow.db" check "$DB:1" --against 1
ctl_expect 0 "" "a faster run"
grep -qE '^none +job time .* better$' "$T/out" || fail "none not better: $(cat "$T/out")"

ctl --db "$DB" check 1
ctl_expect 2 "against what? give --against NAME|RUN" "check without --against"
ctl --db "$DB" check 1 --against nosuch
ctl_expect 2 "'nosuch' is neither a baseline of $DB nor a run (loadctl baseline list)" "unknown baseline"
ctl --db "$DB" check 1 --against base --threshold 0
ctl_expect 2 "--threshold '0' is not a percentage" "no band"
ctl --db "$DB" check 9 --against base
ctl_expect 2 "no run 9 in $DB" "a missing run"
ctl --db "$DB" check 1 2 --against base
ctl_expect 2 "too many arguments" "two runs"
ctl --db "$DB" check 1 --against base --threshold 10%
ctl_expect 0 "" "--threshold 10%"
grep -q "^Band      ±10%$" "$T/out" || fail "the band: $(cat "$T/out")"

# ---- import ----
n_samples=$(sqlite3 "$OTHER" "SELECT count(*) FROM samples")
"$LOADCTL" --db "$OTHER" report 1 --json | jq '.phases | del(.[].rounds[].phase_id)' >"$T/orig.json"
ctl --db "$DB" import "$OTHER"
ctl_expect 0 "" "import"
grep -q "^run 1 of $OTHER: imported as run 3$" "$T/out" || fail "import said: $(cat "$T/out")"
grep -q "^1 imported, 0 skipped, 0 failed$" "$T/out" || fail "import's tally: $(cat "$T/out")"
[[ $(sql "SELECT count(*) FROM samples WHERE run_id = 3") == "$n_samples" ]] ||
	fail "samples of the imported run: $(sql "SELECT count(*) FROM samples WHERE run_id = 3") of $n_samples"
[[ $(sql "SELECT uuid FROM runs WHERE id = 3") == $(sqlite3 "$OTHER" "SELECT uuid FROM runs WHERE id = 1") ]] ||
	fail "the UUID did not travel"
[[ $(sql "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id WHERE s.run_id = 3 AND p.run_id != 3") == 0 ]] ||
	fail "samples point at another run's phases"
"$LOADCTL" --db "$DB" report 3 --json | jq '.phases | del(.[].rounds[].phase_id)' >"$T/copy.json"
diff -u "$T/orig.json" "$T/copy.json" >&2 || fail "the imported run reports other figures"
ctl --db "$DB" import "$OTHER"
ctl_expect 0 "" "import again"
grep -q "^run 1 of $OTHER: already here as run 3, skipped$" "$T/out" || fail "second import: $(cat "$T/out")"
[[ $(sql "SELECT count(*) FROM runs") == 3 ]] || fail "a run imported twice"
# Chosen runs into a new database: ids start again at 1.
ctl --db "$T/new.db" import "$DB" 2 3
ctl_expect 0 "" "import of chosen runs"
grep -q "^run 2 of $DB: imported as run 1$" "$T/out" || fail "import 2 3: $(cat "$T/out")"
grep -q "^run 3 of $DB: imported as run 2$" "$T/out" || fail "import 2 3: $(cat "$T/out")"
ctl --db "$T/new.db" import "$OTHER"
grep -q "^run 1 of $OTHER: already here as run 2, skipped$" "$T/out" ||
	fail "a copy of a copy not recognised: $(cat "$T/out")"

# A file of an older schema with probes kept as histograms: migrated, then
# every probe, sample and histogram second comes along under new ids.
cp "$SRC/tests/data/db/v3.db" "$T/v2.db"
ctl --db "$DB" import "$T/v2.db"
ctl_expect 0 "" "import of a version-3 file"
grep -q "^run 1 of $T/v2.db: imported as run 4$" "$T/out" || fail "import of v2: $(cat "$T/out")"
for q in "select count(*) from probes" "select count(*) from histograms" \
	"select count(*) from samples" "select sum(count) from histograms"; do
	[[ $(sqlite3 "$T/v2.db" "$q") == $(sql "$q where run_id = 4") ]] ||
		fail "v2 import: '$q': $(sqlite3 "$T/v2.db" "$q") there, $(sql "$q where run_id = 4") here"
done
[[ $(sql "select count(*) from samples s join probes p on p.id = s.probe_id where s.run_id = 4 and p.run_id = 4") == \
	$(sql "select count(*) from samples where run_id = 4") ]] || fail "v2 import: samples of other runs' probes"
[[ $(sql "select count(*) from histograms h join probes p on p.id = h.probe_id join phases f on f.id = h.phase_id
	where h.run_id = 4 and p.run_id = 4 and f.run_id = 4") == $(sql "select count(*) from histograms where run_id = 4") ]] ||
	fail "v2 import: histograms pointing elsewhere"
TZ=UTC "$LOADCTL" --db "$DB" report 4 | sed 1d >"$T/v2.here"
TZ=UTC "$LOADCTL" --db "$T/v2.db" report 1 | sed 1d >"$T/v2.there"
diff -u "$T/v2.there" "$T/v2.here" >&2 || fail "the imported version-2 run reports other figures"

# compare covers the imported run's wakeup probe (a run against itself:
# no change), and marks a weak phase instead of comparing it.
ctl --db "$DB" compare 4 4
ctl_expect 0 "" "compare of a run with probes"
grep -q "^Probes' changes" "$T/out" || fail "no probes' table: $(cat "$T/out")"
grep -qE '^cpu +wakeup +[0-9.]+ +[0-9.]+ +\+0\.0% ' "$T/out" || fail "cpu's wakeup row: $(cat "$T/out")"
ctl --db "$DB" compare 4 4 --json
jq -e '[.phases[].figures[] | select(.figure == "probe") | .probe] == ["wakeup", "wakeup"]' \
	"$T/out" >/dev/null || fail "probes in compare --json: $(cat "$T/out")"
cp "$DB" "$T/weak.db"
sqlite3 "$T/weak.db" "UPDATE phases SET weak = 'cpu: busy 1% (expected >= 90%)'
	WHERE run_id = 2 AND name = 'cpu'"
ctl --db "$DB" compare 1 "$T/weak.db:2"
ctl_expect 0 "" "compare with a weak phase"
grep -qE '^cpu .* weak in B ' "$T/out" || fail "cpu not weak in B: $(cat "$T/out")"

ctl --db "$DB" import
ctl_expect 2 "import from which database?" "import without a database"
ctl --db "$DB" import "$OTHER" x
ctl_expect 2 "'x' is not a run id" "import of a word"
ctl --db "$DB" import "$T/nope.db"
ctl_expect 1 "no database at $T/nope.db" "import of a missing file"
[[ ! -e "$T/nope.db" ]] || fail "import created the file it was to read"
ctl --db "$DB" import "$DB"
ctl_expect 1 "$DB is the database runs are imported into" "import into itself"
ctl --db "$DB" import "$OTHER" 7
ctl_expect 1 "no run 7 in $OTHER" "import of a missing run"

echo "ok: loadctl baseline, check and import"
