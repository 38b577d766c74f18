#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""One function name, one definition: fails when a function (static or not)
is defined in two product files, unless the name is on the allow-list below,
where a name is the same on purpose (every program's main, every loadctl
command's usage). Reads the source as text: a definition is a line at column
0 naming a function whose parameter list ends before a line holding only
"{"."""
import os
import re
import sys

PRODUCT = ["common", "daemon", "loadctl", "loaders", "probe", "tui"]

# Names defined more than once on purpose, and why.
ALLOWED = {
    "main": "every program has one",
    "usage": "every program and command prints its own",
    "print_json": "each loadctl command prints its own JSON document",
    "parse_args": "loadd's and loadtop's own command lines",
    "catch_stop_signals": "loadd's and loadtop's own stop signals",
    "on_stop_signal": "each process's own SIGTERM handler (loadd, a loader, loadtop)",
    "on_body": "loadctl's curl reply callback and the net loader's HTTP handler",
    "on_accept_error": "the listeners of two servers: the API and the net loader",
    "write_run": "the /metrics run family and the write loader's run loop",
    "write_loads": "the /metrics loads families and the HTML report's loads table",
    "write_file": "loadctl plot's output file and a cgroup knob of the memory loader",
}

START = re.compile(r"^(?!typedef\b|struct\b[^(]*;|enum\b|union\b|#|/|\s|\})"
                   r"[A-Za-z_][\w \t\*]*?\b([A-Za-z_]\w*)\s*\(")


# Alike code found when the check came in, still to be shared by the owners
# of those files; a name here is a debt, not a permission: remove it when
# merged. New duplicates fail.
KNOWN = {}
ALLOWED.update(KNOWN)


def definitions(path):
    """(name, line) of every function defined in a C file."""
    with open(path, encoding="utf-8", errors="replace") as f:
        lines = f.read().split("\n")
    i = 0
    while i < len(lines):
        m = START.match(lines[i])
        if m is None or lines[i].rstrip().endswith(";"):
            i += 1
            continue
        # the declarator may run over several lines; it ends with ")"
        j = i
        while j < len(lines) and not lines[j].rstrip().endswith(")") \
                and not lines[j].rstrip().endswith(";") and j - i < 8:
            j += 1
        if j + 1 < len(lines) and lines[j].rstrip().endswith(")") \
                and lines[j + 1].strip() == "{":
            yield m.group(1), i + 1
        i = j + 1


def main():
    src = os.environ.get("SRC") or sys.argv[1]
    seen = {}
    for d in PRODUCT:
        for root, _, files in os.walk(os.path.join(src, d)):
            for name in sorted(files):
                if name.endswith(".c"):
                    path = os.path.join(root, name)
                    rel = os.path.relpath(path, src)
                    for fn, line in definitions(path):
                        seen.setdefault(fn, []).append(f"{rel}:{line}")
    twice = {fn: places for fn, places in seen.items()
             if len({p.split(":")[0] for p in places}) > 1 and fn not in ALLOWED}
    for fn in sorted(twice):
        print(f"{fn} is defined in {len(twice[fn])} files: {', '.join(twice[fn])}",
              file=sys.stderr)
    if twice:
        print(f"FAIL: {len(twice)} function names defined in more than one product file "
              "(share one copy, rename one, or allow it in tests/e2e/duplicate_names.py)",
              file=sys.stderr)
        return 1
    print(f"ok: {sum(len(p) for p in seen.values())} function definitions, "
          f"{len(seen)} names, none defined twice but {', '.join(sorted(ALLOWED))}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
