#!/usr/bin/env python3
# SPDX-License-Identifier: GPL-2.0-or-later
"""The docs say what the programs do, and nothing they do not.

Usage: docs_drift.py SRC HELPDIR, where HELPDIR holds the programs' own
listings (written by docs_drift.sh): loadd.help, loaders.txt, probes.txt (when
loadd has --list-probes), loadtop.help, loadctl.help and loadctl.CMD.help.

Checked, both ways:
- every profile section and key (the [run], [probe] and [phase] option tables
  in the source, [load NAME] and each loader from loadd --list-loaders, each
  probe kind from loadd --list-probes) has a row in docs/ (running.md,
  loads.md, probes.md) and an entry in man/loadd.conf.5;
- every loadd, loadtop and loadctl option, and every loadctl command, is named
  in docs/; a command line in the docs names only commands and options that
  exist;
- every relative link in README.md, CONTRIBUTING.md and docs/*.md resolves,
  anchors included.
Each problem is printed as `file: what is wrong`."""
import os
import re
import sys

SRC, HELP = sys.argv[1], sys.argv[2]
problems = []


def read(path):
    with open(os.path.join(SRC, path), encoding="utf-8") as f:
        return f.read()


def helped(name):
    path = os.path.join(HELP, name)
    return open(path, encoding="utf-8").read() if os.path.exists(path) else None


def md_files():
    docs = sorted("docs/" + f for f in os.listdir(os.path.join(SRC, "docs")) if f.endswith(".md"))
    return ["README.md", "CONTRIBUTING.md"] + docs


# ---- what the programs have ----

def source_tables():
    """Keys of the run_options, probe_options and phase_options tables."""
    tables = {}
    for folder in ("common", "probe", "daemon"):
        for name in sorted(os.listdir(os.path.join(SRC, folder))):
            if not name.endswith(".c"):
                continue
            text = read(folder + "/" + name)
            for m in re.finditer(r"option_def\s+(run|probe|phase)_options\[\]\s*=\s*\{(.*?)\n\};",
                                 text, re.S):
                keys = re.findall(r'\{\s*(?:\.key\s*=\s*)?"([a-z_][a-z0-9_]*)"', m.group(2))
                tables.setdefault(m.group(1), []).extend(keys)
    return tables


def listing(text):
    """Parses --list-loaders/--list-probes: a block 'Every [KIND NAME] section
    takes:' of common keys, then 'name: summary' blocks of keys."""
    common, units, cur = [], {}, None
    for line in text.splitlines():
        if re.match(r"^Every \[", line):
            cur = common
        elif re.match(r"^([a-z][\w-]*): ", line):
            cur = units.setdefault(line.split(":")[0], [])
        elif cur is not None:
            m = re.match(r"^  ([a-z_][a-z0-9_]*)(?: = |\s{2,}|$)", line)
            if m:
                cur.append(m.group(1))
    return common, units


# ---- what the docs say ----

def md_sections(path):
    """{heading: text below it up to the next heading}, code blocks left out."""
    out, head, block = {}, None, False
    for line in read(path).splitlines():
        if line.startswith("```"):
            block = not block
            continue
        if block:
            continue
        m = re.match(r"^#+ (.*)", line)
        if m:
            head = m.group(1).strip()
            out[head] = ""
        elif head is not None:
            out[head] += line + "\n"
    return out


def table_keys(text):
    return re.findall(r"^\| `([a-z_][a-z0-9_]*)` \|", text, re.M)


def man_sections(path):
    """{'.SH NAME/.SS NAME': [keys of '.TP\\n.B key' entries]}."""
    out, sh, ss = {}, None, None
    lines = read(path).splitlines()
    for i, line in enumerate(lines):
        if line.startswith(".SH "):
            sh, ss = line[4:].strip(), None
            out.setdefault(sh, [])
        elif line.startswith(".SS "):
            ss = re.sub(r"\\f[BIRP]", "", line[4:]).strip()
            out.setdefault(sh + "/" + ss, [])
        elif line == ".TP" and i + 1 < len(lines) and sh:
            m = re.match(r"^\.B ([a-z_][a-z0-9_]*)$", lines[i + 1])
            if m:
                out[sh + "/" + ss if ss else sh].append(m.group(1))
    return out


def compare(what, code, doc, where):
    for k in sorted(set(code) - set(doc)):
        problems.append("%s: '%s' of %s is not documented here" % (where, k, what))
    for k in sorted(set(doc) - set(code)):
        problems.append("%s: documents '%s' of %s, which the program does not have" % (where, k, what))


def find_section(sections, pattern, where, what):
    hits = [h for h in sections if re.search(pattern, h)]
    if not hits:
        problems.append("%s: no section for %s (a heading matching /%s/)" % (where, what, pattern))
        return None
    return hits[0]


# ---- profile sections, keys, loaders, probes ----

MAN_CONF = "man/loadd.conf.5"
running = md_sections("docs/running.md")
loads_md = md_sections("docs/loads.md")
probes_md = md_sections("docs/probes.md")
man = man_sections(MAN_CONF)

tables = source_tables()
for section in ("run", "probe", "phase"):
    if section not in tables:
        continue  # the table moved; the listing below checks what replaced it
    head = find_section(running, r"^`\[%s[\] ]" % section, "docs/running.md", "[%s]" % section)
    if head:
        compare("[%s]" % section, tables[section], table_keys(running[head]), "docs/running.md")
    manhead = "SECTIONS/[%s]" % section
    if manhead not in man and section == "phase":
        manhead = "SECTIONS/[phase NAME]"
    if manhead in man:
        compare("[%s]" % section, tables[section], man[manhead], MAN_CONF)
    else:
        problems.append("%s: no '.SS [%s]' under SECTIONS" % (MAN_CONF, section))

def check_units(kind, unit, listed, md_path, md, heading, man_sh):
    """The units of a section kind (unit: loader, probe) as loadd lists them
    against their '## The NAME UNIT' sections of md_path and '.SS NAME' under man_sh,
    and the common keys of every [KIND NAME] section against docs/running.md
    and the man page's SECTIONS."""
    common, units = listing(listed)
    if not units:
        problems.append("loadd's list of %ss: nothing parsed from it" % unit)
    if common:
        head = find_section(running, r"^`\[%s " % kind, "docs/running.md", "[%s NAME]" % kind)
        if head:
            compare("[%s NAME]" % kind, common, table_keys(running[head]), "docs/running.md")
        compare("[%s NAME]" % kind, common, man.get("SECTIONS/[%s NAME]" % kind, []), MAN_CONF)
    docs = {m.group(1): h for h in md for m in [re.match(heading, h)] if m}
    mans = {k.split("/", 1)[1]: v for k, v in man.items() if k.startswith(man_sh + "/")}
    compare("the %ss" % unit, units, docs, "%s ('## The NAME %s')" % (md_path, unit))
    compare("the %ss" % unit, units, mans, "%s (%s, '.SS NAME')" % (MAN_CONF, man_sh))
    for name, keys in units.items():
        if name in docs:
            compare("%s %s" % (unit, name), keys, table_keys(md[docs[name]]), md_path)
        if name in mans:
            compare("%s %s" % (unit, name), keys, mans[name], MAN_CONF)


check_units("load", "loader", helped("loaders.txt"), "docs/loads.md", loads_md, r"^The (\w+) loader$",
            "LOADERS")
# Probe kinds are checked once loadd lists them (--list-probes).
if helped("probes.txt") is not None:
    check_units("probe", "probe", helped("probes.txt"), "docs/probes.md", probes_md,
                r"^The `?(\w+)`? probe$", "PROBES")

# ---- commands and options ----

def long_options(text):
    return set(re.findall(r"(?<![\w-])--([a-z][a-z-]*)", text))


def strip_comment(line):
    return re.sub(r"\s#\s.*$", "", line)


def command_lines():
    """(file, line number, text) of every code span and code-block line."""
    for path in md_files():
        block = False
        for n, line in enumerate(read(path).splitlines(), 1):
            if line.startswith("```"):
                block = not block
                continue
            if block:
                yield path, n, strip_comment(line)
            else:
                for span in re.findall(r"`([^`]+)`", line):
                    yield path, n, span


docs_text = "\n".join(read(p) for p in md_files())
doc_options = long_options(docs_text)
options = {
    "loadd": long_options(helped("loadd.help")),
    "loadtop": long_options(helped("loadtop.help")),
}
ctl_help = helped("loadctl.help")
ctl_global = long_options(ctl_help.split("Options:")[-1]) if "Options:" in ctl_help else set()
commands = re.findall(r"^  ([a-z]+)\b", ctl_help.split("Commands:")[1].split("\n\n")[0], re.M)
ctl_options = {c: long_options(helped("loadctl.%s.help" % c) or "") | ctl_global for c in commands}

for prog, opts in options.items():
    for o in sorted(opts - doc_options):
        problems.append("docs/: %s --%s is not documented" % (prog, o))
for c in commands:
    if not re.search(r"loadctl (?:--db \S+ )?%s\b" % c, docs_text):
        problems.append("docs/: the command 'loadctl %s' is not documented" % c)
    for o in sorted(ctl_options[c] - doc_options):
        problems.append("docs/: loadctl %s --%s is not documented" % (c, o))

for path, n, text in command_lines():
    for m in re.finditer(r"(?:^|[\s(/])(loadd|loadtop|loadctl)((?: +[^\s|;&]+)*)", text):
        prog, args = m.group(1), m.group(2).split()
        if prog == "loadctl":
            words = [a for a in args if not a.startswith("-")]
            if args and args[0] == "--db":
                words = words[1:]  # its PATH
            if not words or not re.match(r"^[a-z]+$", words[0]):
                continue
            cmd = words[0]
            if cmd not in commands:
                problems.append("%s:%d: 'loadctl %s': no such command" % (path, n, cmd))
                continue
            allowed = ctl_options[cmd]
        else:
            allowed = options[prog]
        for a in args:
            o = re.match(r"^--([a-z][a-z-]*)", a)
            if o and o.group(1) not in allowed:
                problems.append("%s:%d: '%s ... --%s': no such option" % (path, n, prog, o.group(1)))

# ---- links ----

def anchors(path):
    out, seen = set(), {}
    for head in md_sections(path):
        a = re.sub(r"[^\w\- ]", "", head.lower()).replace(" ", "-")
        if a in seen:
            seen[a] += 1
            a = "%s-%d" % (a, seen[a])
        else:
            seen[a] = 0
        out.add(a)
    return out


for path in md_files():
    block = False
    for n, line in enumerate(read(path).splitlines(), 1):
        if line.startswith("```"):
            block = not block
        if block:
            continue
        for target in re.findall(r"\]\(([^)\s]+)\)", line):
            if re.match(r"^[a-z]+:", target):
                continue
            file, _, frag = target.partition("#")
            dest = os.path.normpath(os.path.join(os.path.dirname(path), file)) if file else path
            if not os.path.exists(os.path.join(SRC, dest)):
                problems.append("%s:%d: link to %s: no such file" % (path, n, target))
            elif frag and dest.endswith(".md") and frag not in anchors(dest):
                problems.append("%s:%d: link to %s: no heading #%s in %s" % (path, n, target, frag, dest))

for p in problems:
    print(p)
sys.exit(1 if problems else 0)
