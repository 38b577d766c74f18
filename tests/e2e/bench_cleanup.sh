# SPDX-License-Identifier: GPL-2.0-or-later
# bench/lib.sh's exit: a bench script killed with its whole process group
# (TERM to every process of it at once) still removes its temp dir, though
# a load it started is stopped with a status that set -e would end on, and
# another child, deaf to TERM for a while, still holds a file in the dir (a
# dd finishing its fdatasync, a loadd closing its database).
source "$(dirname "$0")/lib.sh"

cat >"$T/fake-bench" <<EOF
#!/usr/bin/env bash
set -euo pipefail
bench_name=fake-bench
source "$SRC/bench/lib.sh"
bench_tmpdir "$T"
echo "\$bench_tmp" >"$T/tmpdir"
sleep 300 &
bench_pids+=("\$!")
(
	trap '' TERM
	exec 3>"\$bench_tmp/held"
	sleep 2
) &
echo "\$!" >"$T/holder"
sleep 300
EOF

# The fake bench in a process group of its own (setsid: no job control
# needed), so that the whole group can be stopped at once.
setsid bash "$T/fake-bench" &
bench=$!
STARTED_PIDS+=("$bench")
for ((i = 0; i < 100; i++)); do
	[[ -s $T/holder ]] && break
	sleep 0.1
done
[[ -s $T/holder ]] || fail "the fake bench did not start"
tmp=$(<"$T/tmpdir")
holder=$(<"$T/holder")
STARTED_PIDS+=("$holder")
[[ -d $tmp && -e $tmp/held ]] || fail "no temp dir with a held file: $tmp"
pgid=$(ps -o pgid= -p "$bench" | tr -d ' ')
[[ $pgid == "$bench" ]] || fail "the fake bench has no process group of its own ($pgid)"

kill -TERM -- "-$pgid"
# Bounded: the cleanup waits for the holder (2 s), then removes the dir.
for ((i = 0; i < 600; i++)); do
	[[ $(ps -o stat= -p "$bench" 2>/dev/null) == Z* || ! -e /proc/$bench ]] && break
	sleep 0.1
done
[[ $(ps -o stat= -p "$bench" 2>/dev/null) == Z* || ! -e /proc/$bench ]] ||
	fail "the fake bench did not end within 60 s of TERM"
wait "$bench" || true
kill -0 "$holder" 2>/dev/null && fail "the script ended before the child holding $tmp/held"
[[ ! -e $tmp ]] || fail "the temp dir is left: $(ls -la "$tmp")"
echo "ok: $tmp removed after its last holder ($holder) went"
