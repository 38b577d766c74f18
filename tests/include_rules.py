#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The folders depend on each other only as docs/architecture.md says: each
folder's files include headers of the folders listed for it, and only
daemon/ includes db.h among the writers' side (loaders and the probe never
touch the database). Prints each include that breaks a rule; exits 1 if any.
Usage: include_rules.py SRC"""
import glob
import os
import re
import sys

# folder: the other folders whose headers it may include
ALLOWED = {
    "common": set(),
    "probe": {"common"},
    "loaders": {"common", "probe/tree.h"},
    "daemon": {"common", "loaders", "probe"},
    "loadctl": {"common", "probe/probe_study.h"},  # the kinds' study tables, for its reports
    "tui": {"common"},
}
# headers a folder may not include even though its folder is allowed
FORBIDDEN = {"loaders": {"common/db.h"}, "probe": {"common/db.h"}}

os.chdir(sys.argv[1])
home = {}
for folder in ALLOWED:
    for h in glob.glob(folder + "/*.h"):
        home[os.path.basename(h)] = folder
bad = []
for folder, allowed in ALLOWED.items():
    for path in sorted(glob.glob(folder + "/*.[ch]")):
        for n, line in enumerate(open(path, encoding="utf-8"), 1):
            m = re.match(r'\s*#\s*include\s+"([^"]+)"', line)
            if not m or m.group(1) not in home:
                continue
            header = home[m.group(1)] + "/" + m.group(1)
            owner = home[m.group(1)]
            ok = owner == folder or owner in allowed or header in allowed
            if not ok or header in FORBIDDEN.get(folder, ()):
                bad.append("%s:%d: %s/ may not include %s (docs/architecture.md)" % (path, n, folder, header))
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
