#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# A build without sanitizers is hardened: stack protector, _FORTIFY_SOURCE,
# full RELRO (BIND_NOW). Checks $LOADD, or the binaries given as arguments.
set -euo pipefail
fail() { echo "FAIL: $*" >&2; exit 1; }
command -v readelf >/dev/null || { echo "SKIP: needs readelf" >&2; exit 77; }
bins=("$@")
[[ ${#bins[@]} -gt 0 ]] || bins=("${LOADD:?set LOADD or give binaries}")
for bin in "${bins[@]}"; do
	syms=$(readelf --dyn-syms -W "$bin")
	if grep -q "__asan_init\|__ubsan_handle" <<<"$syms"; then
		echo "SKIP: $bin is a sanitizer build (scripts/test checks a release build)" >&2
		exit 77
	fi
	readelf -l -W "$bin" | grep -q "GNU_RELRO" || fail "$bin: no RELRO segment"
	readelf -d -W "$bin" | grep -Eq "BIND_NOW|FLAGS.*NOW" || fail "$bin: not linked with -z now"
	grep -q "__stack_chk_fail" <<<"$syms" || fail "$bin: no stack protector (__stack_chk_fail)"
	if [[ ${LOADD_FORTIFY:-1} == 1 ]]; then
		grep -Eq "__[a-z_]+_chk@" <<<"$syms" || fail "$bin: no _FORTIFY_SOURCE checked calls"
	fi
done
echo PASS
