#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# Bad input of every kind gets one clear message and the right exit status;
# nothing starts.
source "$(dirname "$0")/lib.sh"

expect 2 "unrecognized option|unknown option" "$LOADD" --bogus
expect 2 "no profile given" "$LOADD"
expect 2 "no profile 'nosuch'" "$LOADD" --profile nosuch

bad=$(profile bad <<'EOF2'
[run]
rounds = 0
[probe]
every = 5 parsecs
[phase cpu]
duration = 10s
loads = ghost
[frobnicate]
EOF2
)
expect 2 "bad.conf:2: .*rounds" run_loadd --profile "$bad"
grep -q "bad.conf:4: " "$T/err" || fail "no message for line 4: $(cat "$T/err")"
grep -q "bad.conf:7: .*ghost" "$T/err" || fail "no message for the undefined load: $(cat "$T/err")"
grep -q "bad.conf:8: .*frobnicate" "$T/err" || fail "no message for the unknown section: $(cat "$T/err")"
[[ ! -e "$DB" ]] || fail "a refused profile created the database"

good=$(profile good <<'EOF2'
[probe]
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
EOF2
)
# --check validates and prints the plan without running anything.
"$LOADD" --check --profile "$good" --db "$DB" >"$T/plan" || fail "--check failed"
grep -q "1 phase(s) x 1 round(s)" "$T/plan" || fail "plan lacks the total: $(cat "$T/plan")"
[[ ! -e "$DB" ]] || fail "--check created the database"

expect 1 "system directory" "$LOADD" --profile "$good" --db "$DB" --socket "$SOCK" --workdir /
expect 1 "system directory" "$LOADD" --profile "$good" --db "$DB" --socket "$SOCK" --workdir /usr

# A second loadd on the same work dir, then on the same database, refuses.
long=$(profile long <<'EOF2'
[probe]
tree = depth=2 fanout=3 files=4
[phase none]
duration = 60s
EOF2
)
start_loadd --profile "$long"
wait_for_sql "select count(*) from runs where status = 'running'" 30
expect 1 "work dir .* in use by another loadd \(pid $LOADD_PID\)" run_loadd --profile "$good"
expect 1 "database .* in use by another loadd" "$LOADD" --db "$DB" --workdir "$T/work2" \
	--socket "$T/second.sock" --profile "$good"
# The lock is on a file of its own: no second descriptor on the SQLite file
# whose close would drop SQLite's own locks.
flock -n "$DB.lock" true && fail "the database's lock file is not locked"
flock -n "$DB" true || fail "loadd holds a flock on the SQLite file itself"
kill -TERM "$LOADD_PID"
status=0
wait "$LOADD_PID" || status=$?
[[ $status == 143 ]] || fail "SIGTERM: loadd exited $status, want 143"
[[ $(sql "select status from runs") == aborted ]] || fail "a stopped run is not marked aborted"
[[ $(sql "select count(*) from phases where valid = 0 and invalid_reason like '%stopped%'") == 1 ]] ||
	fail "the interrupted phase is not marked"
echo ok
