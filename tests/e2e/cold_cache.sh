#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# cache = cold drops the page cache before each job: root only, and refused
# before anything starts otherwise.
source "$(dirname "$0")/lib.sh"

prof=$(profile cold <<'EOF2'
[probe]
every = 300ms
tree = depth=3 fanout=5 files=10
[phase cold]
duration = 3s
cache = cold
[phase warm]
duration = 3s
EOF2
)
if [[ $(id -u) -ne 0 ]]; then
	status=0
	run_loadd --profile "$prof" 2>"$T/err" || status=$?
	[[ $status == 2 ]] && grep -q "cold.conf:6: phase 'cold' has cache = cold, which needs root" "$T/err" ||
		fail "non-root cold phase not refused: $status $(cat "$T/err")"
	skip "the rest needs root"
fi
run_loadd --profile "$prof" >/dev/null 2>"$T/err" || fail "loadd failed: $(cat "$T/err")"
# A cold ls -R must read the disk: it takes more system time than a warm one.
read -r cold warm < <(sql "select
	(select avg(sys_ms) from samples s join phases p on p.id = s.phase_id where p.name = 'cold'),
	(select avg(sys_ms) from samples s join phases p on p.id = s.phase_id where p.name = 'warm')" | tr '|' ' ')
python3 -c "import sys; sys.exit(0 if float('$cold') > float('$warm') else 1)" ||
	fail "cold jobs ($cold ms sys) not slower than warm ones ($warm ms sys)"
echo "ok: cold $cold ms sys, warm $warm ms sys"
