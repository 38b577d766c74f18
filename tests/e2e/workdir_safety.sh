#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A work dir another user could redirect is refused with a message and exit
# 1, and nothing is written through it; a directory loadd did not make in its
# work dir survives a run, even after a crash.
source "$(dirname "$0")/lib.sh"

prof=$(profile tiny <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=1 fanout=2 files=2
[phase none]
duration = 1s
EOF2
)

refused() { # what expected-text args...
	local what=$1 text=$2 rc=0
	shift 2
	"$LOADD" --db "$DB" --socket "$SOCK" --profile "$prof" "$@" >"$T/out" 2>"$T/err" || rc=$?
	(( rc == 1 )) || fail "$what: exit $rc, want 1: $(cat "$T/err")"
	grep -qF -- "$text" "$T/err" || fail "$what: stderr lacks '$text': $(cat "$T/err")"
}

# A link planted where the work dir would be: nothing is made at its target.
mkdir "$T/elsewhere"
ln -s "$T/elsewhere" "$T/linked"
refused "a link as work dir" "is a symbolic link" --workdir "$T/linked"
[[ -z $(ls -A "$T/elsewhere") ]] || fail "loadd wrote through the link: $(ls -A "$T/elsewhere")"

mkdir -m 0770 "$T/groupw"
chmod 0770 "$T/groupw"
refused "a group-writable work dir" "writable by its group (mode 0770)" --workdir "$T/groupw"
[[ -z $(ls -A "$T/groupw") ]] || fail "loadd wrote in a group-writable dir"

mkdir -m 0777 "$T/open"
chmod 0777 "$T/open"
refused "below a world-writable dir" "without the sticky bit" --workdir "$T/open/work"
[[ ! -e "$T/open/work" ]] || fail "loadd made a work dir below a world-writable dir"

mkdir "$T/full"
echo mine >"$T/full/notes.txt"
refused "an unmarked non-empty dir" "not empty and has no .loadd-workdir" --workdir "$T/full"

if [[ $(id -u) -eq 0 ]]; then
	mkdir "$T/theirs"
	chown nobody "$T/theirs"
	refused "a dir of another user" "belongs to user nobody" --workdir "$T/theirs"
	[[ -z $(ls -A "$T/theirs") ]] || fail "loadd wrote in another user's dir"
fi

# A good run stamps its work dir; a load-* dir loadd did not make survives the
# start-up sweep of the next run, and what a killed run made is swept.
run_loadd --profile "$prof" >/dev/null 2>"$T/loadd.err" || fail "loadd failed: $(cat "$T/loadd.err")"
[[ -f "$WORK/.loadd-workdir" ]] || fail "the work dir has no stamp"
mkdir "$WORK/load-precious"
echo thesis >"$WORK/load-precious/thesis.txt"
crash=$(profile crash <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=1 fanout=2 files=2
[phase busy]
duration = 60s
loads = wr
[load wr]
type = write
size = 1M
EOF2
)
start_loadd --profile "$crash"
for ((i = 0; i < 100; i++)); do
	[[ -d "$WORK/load-wr" ]] && break
	sleep 0.1
done
[[ -d "$WORK/load-wr" ]] || fail "the write load made no dir: $(cat "$T/loadd.err")"
kill -KILL "$LOADD_PID"
wait "$LOADD_PID" 2>/dev/null || true
sleep 0.5 # the loads die with loadd (parent-death signal)
run_loadd --profile "$prof" >/dev/null 2>"$T/loadd.err" || fail "loadd failed: $(cat "$T/loadd.err")"
[[ ! -e "$WORK/load-wr" ]] || fail "the killed run's load-wr was not swept"
grep -q "left .*load-precious alone: loadd did not make it" "$T/loadd.err" ||
	fail "no warning about load-precious: $(cat "$T/loadd.err")"
[[ $(cat "$WORK/load-precious/thesis.txt") == thesis ]] || fail "load-precious was touched"

# A profile whose load would take load-precious is refused at that load.
taker=$(profile taker <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=1 fanout=2 files=2
[phase busy]
duration = 1s
loads = precious
[load precious]
type = write
size = 1M
EOF2
)
run_loadd --profile "$taker" >/dev/null 2>"$T/loadd.err" || true
[[ $(cat "$WORK/load-precious/thesis.txt") == thesis ]] || fail "load-precious was emptied"
sql "select message from events where kind = 'error'" | grep -q "loadd did not make it" ||
	fail "no event says why load precious could not start: $(sql 'select kind, message from events')"
echo ok
