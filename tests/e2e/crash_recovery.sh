#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# kill -9 of loadd keeps every sample already taken; the next start marks
# that run crashed.
source "$(dirname "$0")/lib.sh"

prof=$(profile long <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 60s
EOF2
)
start_loadd --profile "$prof"
wait_for_sql "select count(*) >= 10 from samples" 30
kill -KILL "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
taken=$(sql "select count(*) from samples")
(( taken >= 10 )) || fail "samples lost after kill -9: $taken"
[[ $(sql "select status from runs where id = 1") == running ]] || fail "run 1 should still say running"

run_profile short <<'EOF2'
[probe]
every = 100ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
EOF2
grep -q "crashed" "$T/short.err" || fail "no word about the crashed run: $(cat "$T/short.err")"
[[ $(sql "select status from runs where id = 1") == crashed ]] || fail "run 1 not marked crashed"
[[ $(sql "select count(*) from samples s join phases p on p.id = s.phase_id where p.run_id = 1") == "$taken" ]] ||
	fail "samples of the crashed run changed"
"$LOADCTL" --db "$DB" runs | grep -q crashed || fail "loadctl runs does not show the crashed run"
echo "ok: $taken samples kept"
