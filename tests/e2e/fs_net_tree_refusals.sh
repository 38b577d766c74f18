#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The fs and tree loads need dbench and tar, looked up on loadd's own PATH
# as execvp would: a profile whose program is missing is refused before
# anything starts, with file:line and the package to install, exit 2.
source "$(dirname "$0")/lib.sh"

# As root, loadd runs programs from a fixed safe PATH whatever the caller's:
# the lookup on the caller's PATH is then tried as the user nobody.
loadd_with_path() { # loadd_with_path PATH args...
	local path=$1
	shift
	if [[ $(id -u) -eq 0 ]]; then
		runuser -u nobody -- env PATH="$path" "$LOADD" "$@"
	else
		PATH="$path" "$LOADD" "$@"
	fi
}
if [[ $(id -u) -eq 0 ]]; then
	id nobody >/dev/null 2>&1 || skip "as root, needs the user nobody"
	chmod 0755 "$T"
fi

prof=$(profile progs <<'EOF2'
[probe]
tree = depth=2 fanout=3 files=4
[phase fs]
duration = 2s
loads = fs
[phase tree]
duration = 2s
loads = tree
[load fs]
type = fs
[load tree]
type = tree
EOF2
)
fs_line=$(grep -n '^\[load fs\]' "$prof" | cut -d: -f1)
tree_line=$(grep -n '^\[load tree\]' "$prof" | cut -d: -f1)

# An empty PATH dir: neither program. loadd itself is run by its path.
mkdir "$T/empty"
status=0
loadd_with_path "$T/empty" --db "$DB" --workdir "$WORK" --socket "$SOCK" --profile "$prof" \
	>"$T/out" 2>"$T/err" || status=$?
[[ $status == 2 ]] || fail "exited $status without dbench and tar, want 2: $(cat "$T/err")"
grep -qxF "$prof:$fs_line: load 'fs' needs the dbench program (package dbench)" "$T/err" ||
	fail "no dbench message for line $fs_line: $(cat "$T/err")"
grep -qxF "$prof:$tree_line: load 'tree' needs the tar program (package tar)" "$T/err" ||
	fail "no tar message for line $tree_line: $(cat "$T/err")"
[[ ! -e "$DB" && ! -e "$WORK" ]] || fail "a refused profile made the database or the work dir"

# --check refuses it the same way.
status=0
loadd_with_path "$T/empty" --check --profile "$prof" >"$T/out" 2>"$T/err" || status=$?
[[ $status == 2 ]] || fail "--check exited $status without dbench, want 2"
grep -qF "needs the dbench program (package dbench)" "$T/err" || fail "--check: $(cat "$T/err")"

# tar alone on PATH: only the fs load is refused.
mkdir "$T/taronly"
ln -s "$(command -v tar)" "$T/taronly/tar"
status=0
loadd_with_path "$T/taronly" --check --profile "$prof" >"$T/out" 2>"$T/err" || status=$?
[[ $status == 2 ]] || fail "exited $status without dbench, want 2"
grep -qxF "$prof:$fs_line: load 'fs' needs the dbench program (package dbench)" "$T/err" ||
	fail "no dbench message: $(cat "$T/err")"
! grep -q "tar program" "$T/err" || fail "tar was on PATH: $(cat "$T/err")"

# A dbench on PATH (any dir of it) is found, and a loadfile that is not there is named.
if command -v dbench >/dev/null; then
	mkdir "$T/both"
	ln -s "$(command -v tar)" "$T/both/tar"
	ln -s "$(command -v dbench)" "$T/both/dbench"
	loadd_with_path "$T/empty:$T/both" --check --profile "$prof" >"$T/out" 2>"$T/err" ||
		fail "refused with dbench and tar on PATH: $(cat "$T/err")"
	sed -i '/^\[load fs\]/a loadfile = /nonexistent/client.txt' "$prof"
	status=0
	loadd_with_path "$T/both" --check --profile "$prof" >"$T/out" 2>"$T/err" || status=$?
	[[ $status == 2 ]] || fail "a missing loadfile was accepted"
	line=$((fs_line + 1))
	grep -qxF "$prof:$line: loadfile: cannot read /nonexistent/client.txt: No such file or directory" \
		"$T/err" || fail "no loadfile message for line $line: $(cat "$T/err")"
fi
echo "ok"
