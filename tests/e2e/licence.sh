#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The licence is there and every source file names it: C and headers on their
# first line, scripts and CMake files on their first line or right under the
# shebang.
set -euo pipefail
: "${SRC:?set SRC to the source tree}"
cd "$SRC"

fail() { echo "FAIL: $*" >&2; exit 1; }

[ -f LICENSE ] || fail "no LICENSE"
grep -q "GNU GENERAL PUBLIC LICENSE" LICENSE || fail "LICENSE is not the GPL"
grep -q "Version 2, June 1991" LICENSE || fail "LICENSE is not version 2 of the GPL"
grep -q "GPL-2.0-or-later" README.md || fail "README.md does not name the licence"

spdx='SPDX-License-Identifier: GPL-2.0-or-later'
missing=()
while IFS= read -r f; do
	[ -f "$f" ] || continue # deleted, not yet committed
	case "$f" in
	tests/data/*) continue ;;
	*.c | *.h | CMakeLists.txt | */CMakeLists.txt | *.sh | *.py | *.service.in) ;;
	*) head -c 2 "$f" | grep -q '^#!' || continue ;; # other scripts
	esac
	head -n 2 "$f" | grep -qF "$spdx" || missing+=("$f")
done < <(if [ -e .git ]; then git ls-files; else find . -type f -printf '%P\n'; fi)

[ ${#missing[@]} -eq 0 ] || fail "no '$spdx' at the top of: ${missing[*]}"
echo "ok: LICENSE, README and every source file"
