#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The docs cannot drift from the programs: every profile section and key,
# loader, probe kind, loadctl command and option is in docs/ and loadd.conf(5)
# and the reverse, and every relative link in the Markdown resolves
# (docs_drift.py says what exactly).
source "$(dirname "$0")/lib.sh"

LOADTOP=${LOADTOP:-$(dirname "$LOADD")/loadtop}
"$LOADD" --help >"$T/loadd.help"
"$LOADD" --list-loaders >"$T/loaders.txt"
# Probe kinds are checked once loadd can list them.
if grep -q -- '--list-probes' "$T/loadd.help"; then
	"$LOADD" --list-probes >"$T/probes.txt"
fi
"$LOADTOP" --help >"$T/loadtop.help"
"$LOADCTL" help >"$T/loadctl.help"
for cmd in $(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }' "$T/loadctl.help"); do
	"$LOADCTL" help "$cmd" >"$T/loadctl.$cmd.help"
done

python3 "$SRC/tests/e2e/docs_drift.py" "$SRC" "$T" || fail "the docs and the programs disagree (above)"
echo "ok: docs in step with the programs"
