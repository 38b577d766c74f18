#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# No function name is defined in two product files unless on purpose
# (duplicate_names.py holds the allow-list and says why for each name).
set -euo pipefail
: "${SRC:?set SRC to the source tree}"
exec python3 "$(dirname "$0")/duplicate_names.py" "$SRC"
