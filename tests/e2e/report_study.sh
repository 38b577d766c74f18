#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The study tables of a tiny primitives run: loadd's own report, loadctl
# report, its JSON and its HTML page print spawn's creation table (a row per
# mode), ctxswitch's members x size, switchcost's ns and switches per
# increment, ipclat's latency and ipcbw's bandwidth by message size (a size
# over the POSIX queue's limit said so), with the idle phase and the loaded
# one side by side; the per-probe rows, the export and compare stay as they
# were.
source "$(dirname "$0")/lib.sh"

prof=$(profile study <<'EOF2'
[run]
settle = 0s
[probe]
every = 1s
tree = depth=1 fanout=2 files=2
[probe thread]
type = spawn
mode = thread
count = 10
every = 250ms
[probe fork]
type = spawn
count = 3
every = 250ms
[probe ring]
type = ctxswitch
passes = 20
every = 250ms
[probe ring16k]
type = ctxswitch
size = 16K
passes = 20
every = 250ms
[probe one]
type = switchcost
mode = one
count = 100000
every = 250ms
[probe alternate]
type = switchcost
count = 500
every = 250ms
[probe pipe]
type = ipclat
count = 50
every = 250ms
[probe mqbw]
type = ipcbw
via = posixmq
sizes = 1K, MQ_OVER
total = 256
every = 500ms
[phase idle]
duration = 2s
[phase busy]
duration = 2s
loads = cpu
[load cpu]
type = cpu
procs = 2
expect = none
EOF2
)
mq_limit=$(cat /proc/sys/fs/mqueue/msgsize_max)
sed -i "s/MQ_OVER/$((mq_limit * 2))/" "$prof"
run_loadd --profile "$prof" >"$T/out" 2>&1 || fail "loadd failed: $(cat "$T/out")"
grep -q "^Study tables" "$T/out" || fail "loadd's report has no study tables: $(cat "$T/out")"
"$LOADCTL" --db "$DB" report >"$T/report" || fail "report failed"

# Each table's title, its phases side by side, its rows and columns.
table() { # TITLE-PREFIX: the table's lines, up to the next blank line
	awk -v t="$1" 'index($0, t) == 1 { on = 1; next } on && /^$/ { exit } on' "$T/report"
}
table "Creation" >"$T/spawn"
grep -Eq "^  mode +idle +busy$" "$T/spawn" || fail "creation table heading: $(cat "$T/report")"
grep -Eq "^  thread +[0-9.]+ +[0-9.]+$" "$T/spawn" || fail "no thread row: $(cat "$T/spawn")"
grep -Eq "^  fork +[0-9.]+ +[0-9.]+$" "$T/spawn" || fail "no fork row (mode's default): $(cat "$T/spawn")"
[[ $(head -2 "$T/spawn" | tail -1 | awk '{ print $1 }') == thread ]] || fail "thread is not first: $(cat "$T/spawn")"
table "Context switch" >"$T/ctx"
grep -Eq "^ +idle +busy$" "$T/ctx" || fail "ctxswitch phases: $(cat "$T/ctx")"
grep -Eq "^  members +0 +16K +0 +16K$" "$T/ctx" || fail "ctxswitch sizes: $(cat "$T/ctx")"
grep -Eq "^  2 process( +[0-9.]+){4}$" "$T/ctx" || fail "ctxswitch row: $(cat "$T/ctx")"
table "Switch cost" >"$T/switch"
grep -Eq "^  mode +ns/incr +switches/incr +ns/incr +switches/incr$" "$T/switch" ||
	fail "switchcost columns: $(cat "$T/switch")"
grep -Eq "^  one( +[0-9.e-]+){4}$" "$T/switch" && grep -Eq "^  alternate( +[0-9.e-]+){4}$" "$T/switch" ||
	fail "switchcost rows: $(cat "$T/switch")"
table "IPC latency" >"$T/ipc"
grep -Eq "^  pipe +[0-9.]+ +[0-9.]+$" "$T/ipc" || fail "ipclat row: $(cat "$T/ipc")"
table "IPC bandwidth" >"$T/bw"
grep -Eq "^ +idle +busy$" "$T/bw" && grep -Eq "^  message size +posixmq +posixmq$" "$T/bw" ||
	fail "ipcbw heading: $(cat "$T/bw")"
grep -Eq "^  1K +[0-9.]+ +[0-9.]+$" "$T/bw" || fail "ipcbw 1K row: $(cat "$T/bw")"
grep -Eq "over the limit $mq_limit +over the limit $mq_limit$" "$T/bw" ||
	fail "ipcbw's size over the limit: $(cat "$T/bw")"
# The per-probe rows are still there.
grep -Eq "^ +ring16k +ctxswitch +us +[0-9]+ " "$T/report" || fail "the probe rows are gone: $(cat "$T/report")"

"$LOADCTL" --db "$DB" report --json >"$T/json" || fail "report --json failed"
python3 - "$T/json" <<'EOF2' || fail "JSON studies: $(cat "$T/json")"
import json, sys
r = json.load(open(sys.argv[1]))
st = {t["title"].split(":")[0]: t for t in r["studies"]}
assert set(st) == {"Creation", "Context switch", "Switch cost", "IPC latency", "IPC bandwidth"}, st.keys()
c = st["Context switch"]
assert c["statistic"] == "median" and c["phases"] == ["idle", "busy"], c
assert [x["label"] for x in c["columns"]] == ["0", "16K"] and c["columns"][0]["unit"] == "us", c
assert len(c["cells"]) == len(c["row_labels"]) * 2 * 2
assert all(x["median"] > 0 and x["n"] > 0 for x in c["cells"]), c["cells"]
s = st["Switch cost"]
alt = [x for x in s["cells"] if x["row"] == "alternate" and x["column"] == "switches/incr"]
assert all(x["median"] >= 0.1 for x in alt), alt  # every hand-off a switch, nearly
EOF2
"$LOADCTL" --db "$DB" report --html "$T/page.html" || fail "report --html failed"
grep -q "<h2>Study tables</h2>" "$T/page.html" && grep -q "<th colspan=\"2\">busy</th>" "$T/page.html" ||
	fail "the page has no study tables"
"$LOADCTL" --db "$DB" export "$T/all.csv" || fail "export failed"
grep -q ",ring16k," "$T/all.csv" || fail "export lost the ctxswitch samples: $(head -3 "$T/all.csv")"
ctl --db "$DB" compare 1 1
ctl_expect 0 "" "compare the run with itself"
grep -q "ring16k" "$T/out" || fail "compare left out the ctxswitch probe: $(cat "$T/out")"
echo ok
