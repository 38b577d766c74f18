#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The service unit keeps its sandboxing: systemd-analyze rates it 5.0 or
# better (it was 9.6 "UNSAFE" without), and keeps what a run needs.
source "$(dirname "$0")/lib.sh"
unit=$(dirname "$LOADD")/loadd@.service
[[ -f $unit ]] || skip "no configured unit at $unit"
command -v systemd-analyze >/dev/null || skip "no systemd-analyze"
cp "$unit" "$T/loadd@.service"
systemd-analyze security --offline=true "$T/loadd@.service" >"$T/out" 2>&1 ||
	skip "systemd-analyze security --offline does not work here: $(tail -1 "$T/out")"
score=$(sed -n 's/.*Overall exposure level for [^:]*: \([0-9.]*\).*/\1/p' "$T/out")
[[ -n $score ]] || fail "no score: $(tail -3 "$T/out")"
awk -v s="$score" 'BEGIN { exit !(s <= 5.0) }' || fail "exposure $score, want 5.0 or less"
for key in NoNewPrivileges=yes ProtectSystem=strict StateDirectory=loadd RuntimeDirectory=loadd \
	'RestrictAddressFamilies=AF_UNIX AF_INET AF_INET6' CapabilityBoundingSet=; do
	grep -q "^$key" "$unit" || fail "the unit lost $key"
done
# What a run needs stays: changing user, killing the loads, dropping caches.
for cap in CAP_SETUID CAP_SETGID CAP_KILL CAP_SYS_ADMIN; do
	grep -q "^CapabilityBoundingSet=.*$cap" "$unit" || fail "the unit lost $cap"
done
echo "ok: exposure $score"
