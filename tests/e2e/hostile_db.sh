#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A database copied from elsewhere is hostile input: its strings carry
# terminal escape sequences, NULs, invalid UTF-8 and 1 MB of ESC bytes, its
# figures are NULL or negative. Every command's text output reaches the
# terminal without a raw control byte, JSON stays valid, nothing crashes;
# a newer schema, a truncated file and a file that is not SQLite each get one
# clear message.
source "$(dirname "$0")/lib.sh"
: "${LOADTOP:?set LOADTOP to the loadtop binary}"

prof=$(profile tiny <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
[phase busy]
duration = 1s
loads = spin
[load spin]
type = cpu
procs = 2
EOF2
)
run_loadd --profile "$prof" >/dev/null 2>"$T/loadd.err" || fail "loadd failed: $(cat "$T/loadd.err")"

esc="char(27)||']0;pwned'||char(7)||char(27)||'[2J'"
sql "update runs set host = 'evil'||$esc,
	kernel = cast(x'fffe41c0afe280ae' as text),
	cpu_model = substr(replace(hex(zeroblob(500000)), '0', char(27)), 1, 1000000),
	profile_name = cast(x'6e756c00616674' as text)||$esc,
	profile_path = 'p'||char(155)||'2J',
	profile_text = '[phase '||char(27)||'[2J]'||char(10)||'duration = 1s',
	version = NULL, tree_fingerprint = NULL, cores = -4, ram_bytes = NULL,
	swap_bytes = -1, rounds = NULL"
sql "update phases set name = name||$esc, cache = NULL, invalid_reason = 'r'||$esc"
sql "update loads set name = 'spin'||$esc, cycle_unit = 'c'||$esc, ops_unit = NULL"
sql "update loader_stats set load = 'spin'||$esc, cycles = NULL, bytes = -5"
sql "update samples set wall_ms = NULL where seq % 3 = 0"
sql "update samples set wall_ms = -1 where seq % 3 = 1"
sql "insert into events (run_id, phase_id, t, load, kind, message)
	values (1, NULL, 0, 'spin'||$esc, 'error', 'msg'||$esc||cast(x'00ff' as text))"
# A second run, so compare has two.
sql "insert into runs (status, profile_name, started_at) values ('complete'||$esc, 'x', 1)"

# No raw control byte other than newline and tab.
raw_free() { # FILE what
	if LC_ALL=C grep -qP '[\x00-\x08\x0b-\x1f\x7f]' "$1"; then
		fail "$2: a raw control byte reached the output: $(head -c 300 "$1" | od -c | head -5)"
	fi
}

run() { # what args...: runs loadctl, status 0 or 1, no sanitizer report
	local what=$1 rc=0
	shift
	"$@" >"$T/out" 2>"$T/err" || rc=$?
	(( rc <= 1 )) || fail "$what: exit $rc: $(head -c 500 "$T/err")"
	! grep -q "Sanitizer\|runtime error" "$T/err" || fail "$what: $(head -c 2000 "$T/err")"
	raw_free "$T/err" "$what (stderr)"
}

run "runs" "$LOADCTL" --db "$DB" runs
raw_free "$T/out" "runs"
grep -qF 'evil\x1b]0;pwned\x07\x1b[2J' "$T/out" || fail "runs: host not shown escaped: $(cat "$T/out")"
run "report" "$LOADCTL" --db "$DB" report 1
raw_free "$T/out" "report"
grep -qF 'Kernel    \xff\xfeA\xc0\xaf\u{202e}' "$T/out" ||
	fail "report: kernel not shown escaped: $(grep Kernel "$T/out")"
run "report --json" "$LOADCTL" --db "$DB" report --json 1
python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" ||
	fail "report --json is not JSON"
run "compare" "$LOADCTL" --db "$DB" compare 1 1
raw_free "$T/out" "compare"
run "compare --json" "$LOADCTL" --db "$DB" compare --json 1 1
[[ ! -s "$T/out" ]] || python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/out" ||
	fail "compare --json is not JSON"
run "report of the second run" "$LOADCTL" --db "$DB" report 2
raw_free "$T/out" "report 2"
run "export csv" "$LOADCTL" --db "$DB" export --run 1 --format csv "$T/x.csv"
run "export json" "$LOADCTL" --db "$DB" export --run 1 --format json "$T/x.json"
[[ ! -s "$T/x.json" ]] || python3 -c 'import json,sys; json.load(open(sys.argv[1]))' "$T/x.json" ||
	fail "export json is not JSON"
run "loadtop batch" "$LOADTOP" --db "$DB" -b -n 1 -d 0.1
raw_free "$T/out" "loadtop"

# Files that are not a database this program can read: one clear line each.
one_message() { # file what expected-text
	local rc=0
	"$LOADCTL" --db "$1" runs >"$T/out" 2>"$T/err" || rc=$?
	(( rc == 1 )) || fail "$2: exit $rc, want 1: $(cat "$T/err")"
	grep -qF "$3" "$T/err" || fail "$2: stderr lacks '$3': $(cat "$T/err")"
	(( $(wc -l <"$T/err") == 1 )) || fail "$2: more than one line: $(cat "$T/err")"
}
cp "$DB" "$T/newer.db"
sqlite3 "$T/newer.db" "pragma user_version = 9999"
one_message "$T/newer.db" "newer schema" "newer than this program's"
head -c 3000 "$DB" >"$T/truncated.db"
one_message "$T/truncated.db" "truncated database" "$T/truncated.db"
head -c 5000 /dev/urandom >"$T/noise.db"
one_message "$T/noise.db" "not SQLite" "$T/noise.db"
printf 'not a database\n' >"$T/text.db"
one_message "$T/text.db" "a text file" "$T/text.db"
echo "ok"
