#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The tree load never fills the work dir's file system: a cycle that would
# leave less than its reserve free is not started (an event says why), and
# a kernel pseudo-filesystem is refused as a source. Needs root (a small
# tmpfs is the work dir, unmounted after).
source "$(dirname "$0")/lib.sh"
need_root
command -v tar >/dev/null || skip "needs tar"

expect() { # expect STATUS PATTERN command...
	local want=$1 pattern=$2 got=0
	shift 2
	"$@" >"$T/out" 2>"$T/err" || got=$?
	[[ $got == "$want" ]] || fail "'$*' exited $got, want $want: $(cat "$T/err")"
	grep -Eq -- "$pattern" "$T/err" || fail "'$*': message does not match '$pattern': $(cat "$T/err")"
}

proc=$(profile proc <<'EOF2'
[probe]
tree = depth=1 fanout=2 files=2
[phase tree]
duration = 2s
loads = tree
[load tree]
type = tree
source = /proc
EOF2
)
expect 2 "source: /proc is a kernel pseudo-filesystem" "$LOADD" --check --profile "$proc"

# A 12 MiB source and a 20 MiB work dir: the archive fits, its extraction
# beside it would not.
mkdir "$T/src"
head -c $((12 << 20)) /dev/zero >"$T/src/big"
mnt="$T/work-fs"
mkdir "$mnt"
mount -t tmpfs -o size=20m,mode=0755 loadd-test "$mnt" || skip "cannot mount a tmpfs"
trap 'umount "$mnt" 2>/dev/null || umount -l "$mnt"; cleanup' EXIT
WORK="$mnt/work"
prof=$(profile big <<EOF2
[run]
settle = 0s
[probe]
tree = depth=1 fanout=2 files=2
[phase tree]
duration = 4s
loads = tree
[load tree]
type = tree
source = $T/src
EOF2
)
run_loadd --profile "$prof" >"$T/out" 2>"$T/err" || true
sql "select message from events" | grep -q "not enough free space in .* to extract the archive" ||
	fail "no free-space event: $(sql "select kind, message from events")"
! sql "select message from events" | grep -q "No space left" ||
	fail "tar filled the file system: $(sql "select message from events")"
echo PASS
