#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loadtop on a real terminal (a pane of a private tmux server) while loadd
# runs: the panels are there, survive resizes (too small, then large again),
# the keys work, and q, Ctrl-C and SIGTERM each give the terminal back.
source "$(dirname "$0")/lib.sh"
: "${LOADTOP:?set LOADTOP to the loadtop binary}"
command -v tmux >/dev/null || skip "needs tmux"

TMUX_SERVER=loadd-test-$$
tm() {
	tmux -L "$TMUX_SERVER" "$@"
}
trap 'tm kill-server 2>/dev/null || true; cleanup' EXIT

# Waits up to 10 s for the pane to show (or, with !, to stop showing) the
# extended regex $1.
wait_for_pane() {
	local pattern=$1 negate=false i
	if [[ $pattern == "!"* ]]; then
		negate=true
		pattern=${pattern#!}
	fi
	for ((i = 0; i < 100; i++)); do
		tm capture-pane -p -t top >"$T/pane"
		if grep -qE -- "$pattern" "$T/pane"; then
			$negate || return 0
		else
			! $negate || return 0
		fi
		sleep 0.1
	done
	fail "pane $($negate && echo "still shows" || echo "never showed") '$pattern':
$(cat "$T/pane")"
}

pane_flag() {
	tm display-message -p -t top "#{$1}"
}

panels_shown() {
	local title
	for title in Probe Loads System "Phases so far" Events; do
		wait_for_pane "^$title"
	done
	grep -qE "run 1  (running|complete)  profile show" "$T/pane" ||
		fail "header lacks the run: $(cat "$T/pane")"
}

start_loadtop() {
	tm send-keys -t top "$* $LOADTOP --db $DB --run 1; echo loadtop-exit=\$?" Enter
	panels_shown
	[[ $(pane_flag alternate_on) == 1 ]] || fail "loadtop does not use the alternate screen"
}

# Back at the prompt: loadtop said how it ended, the alternate screen is
# gone with its panels, the cursor is visible again.
expect_exit() {
	wait_for_pane "^loadtop-exit=$1\$"
	[[ $(pane_flag alternate_on) == 0 ]] || fail "alternate screen still on after exit $1"
	[[ $(pane_flag cursor_flag) == 1 ]] || fail "cursor still hidden after exit $1"
	! grep -q "^Phases so far" "$T/pane" || fail "panels left on the screen after exit $1"
	tm send-keys -t top "clear" Enter
	wait_for_pane "!^loadtop-exit"
}

prof=$(profile show <<'EOF2'
[run]
settle = 300ms
[probe]
every = 200ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 4s
[phase cpu]
duration = 4s
loads = ring
[load ring]
type = cpu
procs = 2
EOF2
)
start_loadd --socket "$T/loadd.sock" --profile "$prof" >"$T/loadd.out"
wait_for_sql "select count(*) from phases where run_id = 1" 30

tm -f /dev/null new-session -d -x 120 -y 40 -s top "PS1='$ ' bash --norc --noprofile"
wait_for_pane '^\$'

start_loadtop
tm capture-pane -p -e -t top >"$T/pane.sgr"
grep -q $'\e\\[3[0-7]m' "$T/pane.sgr" || fail "no colour on a terminal that has it"

# Smaller, too small, large again: the panels follow, nothing crashes.
tm resize-window -t top -x 80 -y 24
wait_for_pane "!^.{81}"
panels_shown
tm resize-window -t top -x 40 -y 10
wait_for_pane "terminal too small: 40x10"
wait_for_pane "enlarge it to at least"
tm resize-window -t top -x 100 -y 30
panels_shown

# Help, then any key closes it; pause and resume.
tm send-keys -t top h
wait_for_pane "loadtop keys"
tm send-keys -t top x
wait_for_pane "!loadtop keys"
tm send-keys -t top p
wait_for_pane "PAUSED"
tm send-keys -t top p
wait_for_pane "!PAUSED"
tm send-keys -t top Tab Up Down NPage PPage
panels_shown
tm send-keys -t top q
expect_exit 0

# NO_COLOR: the same panels in no colour; Ctrl-C leaves cleanly.
start_loadtop NO_COLOR=1
tm capture-pane -p -e -t top >"$T/pane.sgr"
! grep -q $'\e\\[[34][0-7]m' "$T/pane.sgr" || fail "colour despite NO_COLOR"
tm send-keys -t top C-c
expect_exit 130

# SIGTERM from outside: the terminal is given back too.
start_loadtop
shell=$(pane_flag pane_pid)
pid=$(ps -o pid= --ppid "$shell" | tr -d ' ')
[[ -n "$pid" ]] || fail "no loadtop process under the pane's shell"
kill -TERM "$pid"
expect_exit 143

wait "$LOADD_PID" || fail "loadd exited $?: $(cat "$T/loadd.err")"
echo "ok: panels, resizes, keys and every exit path"
