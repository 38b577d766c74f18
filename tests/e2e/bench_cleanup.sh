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

set -m # the fake bench gets a process group of its own
bash "$T/fake-bench" &
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

kill -TERM -- "-$bench"
wait "$bench" || true
kill -0 "$holder" 2>/dev/null && fail "the script ended before the child holding $tmp/held"
[[ ! -e $tmp ]] || fail "the temp dir is left: $(ls -la "$tmp")"
echo "ok: $tmp removed after its last holder ($holder) went"
