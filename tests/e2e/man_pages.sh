#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The man pages render without warnings and stay in step with --help: every
# option the programs take is in their page, every option a page names is
# taken, and loadctl(8) covers every command. loadd.conf(5) is checked against
# the option tables by docs_drift.
source "$(dirname "$0")/lib.sh"

LOADTOP=${LOADTOP:-$(dirname "$LOADD")/loadtop}
[[ -x $LOADTOP ]] || fail "no loadtop next to $LOADD"

if command -v groff >/dev/null; then
	for page in loadd.8 loadd.conf.5 loadctl.8 loadtop.1; do
		warnings=$(LC_ALL=C.UTF-8 groff -man -ww -z -Tutf8 "$SRC/man/$page" 2>&1)
		[[ -z $warnings ]] || fail "$page: $warnings"
	done
fi

"$LOADD" --help >"$T/loadd.help"
"$LOADTOP" --help >"$T/loadtop.help"
"$LOADCTL" help >"$T/loadctl.help"
for cmd in $(awk '/^Commands:/ { on = 1; next } on && /^  [a-z]/ { print $1 } /^$/ { on = 0 }' "$T/loadctl.help"); do
	echo "COMMAND $cmd"
	"$LOADCTL" help "$cmd" | head -1
done >"$T/loadctl.commands"

python3 - "$SRC/man" "$T" <<'PY' || fail "man pages and --help disagree"
import re, sys
man, t = sys.argv[1], sys.argv[2]

def section(page, name):
    text = open("%s/%s" % (man, page)).read().replace("\\-", "-")
    text = re.sub(r"\\f[BIRP]", "", text)
    m = re.search(r"^\.SH %s\n(.*?)(?=^\.SH |\Z)" % name, text, re.S | re.M)
    assert m, "%s has no %s section" % (page, name)
    return m.group(1)

def options(text):
    return set(re.findall(r"(?<![\w-])--([a-z][a-z-]*)", text))

bad = []
for prog, page in (("loadd", "loadd.8"), ("loadtop", "loadtop.1")):
    helped = options(open("%s/%s.help" % (t, prog)).read())
    paged = options(section(page, "OPTIONS"))
    bad += ["%s: --%s in --help, not in %s" % (prog, o, page) for o in sorted(helped - paged)]
    bad += ["%s: --%s in %s, not in --help" % (prog, o, page) for o in sorted(paged - helped)]

commands = re.findall(r"^COMMAND (\S+)$", open(t + "/loadctl.commands").read(), re.M)
assert commands, "loadctl help lists no commands"
paged_cmds = set(re.findall(r"^\.TP\n\.B ([a-z]+)\b", section("loadctl.8", "COMMANDS"), re.M))
bad += ["loadctl: command %s not in loadctl.8" % c for c in commands if c not in paged_cmds]
bad += ["loadctl.8: command %s that loadctl does not have" % c for c in sorted(paged_cmds - set(commands))]
helped = options(open(t + "/loadctl.help").read() + open(t + "/loadctl.commands").read())
paged = options(section("loadctl.8", "COMMANDS") + section("loadctl.8", "OPTIONS"))
bad += ["loadctl: --%s in its help, not in loadctl.8" % o for o in sorted(helped - paged)]
bad += ["loadctl.8: --%s that loadctl does not take" % o for o in sorted(paged - helped)]
for b in bad:
    print(b)
sys.exit(1 if bad else 0)
PY
echo "ok: man pages in step with --help"
