#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# loadctl report --html and loadctl plot on a real short run, the page opened
# in headless Chromium with networking disabled: every figure is drawn (the
# distribution has one dot per job), the console stays silent (the page's
# Content-Security-Policy would log any script or fetch), and hostile strings
# in the database (host, profile, phase, event) render as text.
source "$(dirname "$0")/lib.sh"

command -v gnuplot >/dev/null || fail "gnuplot is missing (scripts/deps installs gnuplot-nox)"
CHROMIUM=$(command -v chromium || command -v chromium-browser || true)
if [[ -z "$CHROMIUM" ]]; then
	[[ "${CI:-}" == true ]] && fail "chromium is missing (scripts/deps installs it)"
	skip "no chromium"
fi

tiny=$(profile tiny <<'EOF2'
[run]
settle = 0s
[probe job]
every = 100ms
tree = depth=2 fanout=3 files=4
[probe wakeup]
interval = 5ms
[phase none]
duration = 2s
[phase cpu]
duration = 2s
loads = cpu
[phase again]
duration = 1s
[load cpu]
type = cpu
procs = 2
EOF2
)
run_loadd --profile "$tiny" >/dev/null 2>"$T/loadd.err" || fail "loadd failed: $(cat "$T/loadd.err")"

# What a database from another machine may hold.
sql "UPDATE runs SET host = '<script>alert(1)</script>', profile_name = '<img src=x onerror=alert(2)>';
     UPDATE phases SET name = 'cpu\"><b>bold</b>' WHERE name = 'cpu';
     UPDATE phases SET valid = 0, invalid_reason = '<i>a load died</i>' WHERE name = 'again';
     UPDATE phases SET weak = '<u>cpu</u> 40% busy' WHERE name LIKE 'cpu%';
     INSERT INTO events (run_id, t, kind, message)
       SELECT id, started_at, 'error', '<iframe src=\"http://127.0.0.1:9/\"></iframe>' FROM runs;"
jobs=$(sql "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id
            WHERE p.valid = 1 AND s.failed = 0 AND s.wall_ms > 0")
[[ $jobs -gt 5 ]] || fail "only $jobs jobs ran"

"$LOADCTL" --db "$DB" report --html "$T/r.html" 2>"$T/err" || fail "report --html: $(cat "$T/err")"
[[ ! -s "$T/err" ]] || fail "report --html warned: $(cat "$T/err")"
"$LOADCTL" --db "$DB" report --html - >"$T/stdout.html" || fail "report --html -"
cmp -s "$T/r.html" "$T/stdout.html" || fail "the page to stdout differs from the file"
# Self-contained: no script, no external file, no stylesheet link.
! grep -qiE '<(script|link|iframe|img|object|embed)|(src|href)=.(https?:)?//' "$T/r.html" ||
	fail "the page refers outside itself or runs a script"
grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/r.html" || fail "host not escaped"
grep -qF '<tr class="invalid"><td class="l">again</td>' "$T/r.html" || fail "invalid phase not marked"
grep -qF 'INVALID: &lt;i&gt;a load died&lt;/i&gt;' "$T/r.html" || fail "invalid reason not shown as text"
grep -qF '<tr class="weak"><td class="l">cpu&quot;&gt;' "$T/r.html" || fail "weak phase not marked"
grep -qF 'WEAK: &lt;u&gt;cpu&lt;/u&gt; 40% busy' "$T/r.html" || fail "weak reason not shown as text"
# Without gnuplot the page keeps its tables and says why a figure is missing.
GNUPLOT=/nonexistent/gnuplot "$LOADCTL" --db "$DB" report --html "$T/nogp.html" 2>"$T/err" ||
	fail "report --html without gnuplot failed"
grep -q "figure fig-timeline- left out" "$T/err" || fail "no warning without gnuplot: $(cat "$T/err")"
grep -q 'could not be drawn' "$T/nogp.html" || fail "no note of the missing figures"
grep -q '<table class="phases">' "$T/nogp.html" || fail "no phase table without gnuplot"

# Renders page $1 to the DOM in $2: Chromium as root needs --no-sandbox; the
# proxy on a closed port stops any fetch that would get past the page's
# policy. The console must stay silent: the page has no script, so anything
# there is a blocked fetch, a policy violation or a parse error.
render() {
	local page=$1 dom=$2 pid i
	rm -rf "$T/chromium"
	"$CHROMIUM" --headless --no-sandbox --disable-gpu --disable-quic --no-first-run \
		--disable-background-networking --disable-component-update --disable-sync \
		--user-data-dir="$T/chromium" --proxy-server=127.0.0.1:9 \
		--enable-logging=stderr --v=0 --window-size=1200,4000 \
		--dump-dom "file://$page" >"$dom" 2>"$T/chromium.err" &
	pid=$!
	STARTED_PIDS+=("$pid")
	for ((i = 0; i < 600; i++)); do
		kill -0 "$pid" 2>/dev/null || break
		sleep 0.1
	done
	wait "$pid" || fail "chromium failed on $page: $(tail -5 "$T/chromium.err")"
	[[ -s "$dom" ]] || fail "chromium dumped no DOM of $page: $(tail -5 "$T/chromium.err")"
	! grep -F 'CONSOLE' "$T/chromium.err" || fail "the console was not silent on $page"
}
render "$T/r.html" "$T/dom.html"

count() { grep -oE "$1" "$T/dom.html" | wc -l; }
for fig in distribution ecdf histogram timeline; do
	id=fig-$fig-0-
	[[ $fig == timeline ]] && id=fig-timeline-
	grep -q "<figure id=\"$id\"><svg" <(tr -d '\n' <"$T/dom.html") ||
		fail "figure $fig has no SVG in the rendered page"
	paths=$(count "<path[^>]*d=\"M[^\"]*\"[^>]*>" )
	[[ $paths -gt 20 ]] || fail "only $paths paths drawn"
done
dots=$(count "href=\"#fig-distribution-0-gpPt6\"[^>]*transform=")
[[ $dots -eq $jobs ]] || fail "the distribution has $dots dots for $jobs jobs"
# the timeline, and three figures for each of the two probes
[[ $(count '<svg') -eq 7 ]] || fail "$(count '<svg') figures, want 7"
grep -q '<figure id="fig-histogram-1-"><svg' <(tr -d '\n' <"$T/dom.html") ||
	fail "no histogram of the wakeup probe"
grep -qF 'wakeup p99' "$T/dom.html" || fail "the timeline has no wakeup p99"
grep -qF '<h2>Probes</h2>' "$T/dom.html" || fail "no probe table"
# The hostile strings are text in the DOM, never elements.
[[ $(count '<script') -eq 0 && $(count '<iframe') -eq 0 && $(count '<b>bold') -eq 0 ]] ||
	fail "a string from the database became markup"
grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/dom.html" || fail "host not shown as text"
grep -qF 'cpu"&gt;&lt;b&gt;bold&lt;/b&gt;' "$T/dom.html" || fail "phase name not shown as text"
grep -qF '&lt;iframe src="http://127.0.0.1:9/"&gt;' "$T/dom.html" || fail "event not shown as text"

# Single figures: PNG and SVG, by extension or --format.
"$LOADCTL" --db "$DB" plot timeline "$T/t.png" || fail "plot timeline png"
[[ $(head -c 8 "$T/t.png" | od -An -tx1 | tr -d ' \n') == 89504e470d0a1a0a ]] ||
	fail "t.png is not a PNG"
"$LOADCTL" --db "$DB" plot --format svg --probe job ecdf - >"$T/e.svg" || fail "plot ecdf svg"
grep -q '<svg' "$T/e.svg" || fail "plot ecdf wrote no SVG"
"$LOADCTL" --db "$DB" plot distribution - 1 | cmp -s - <("$LOADCTL" --db "$DB" plot distribution - 1) ||
	fail "the same figure drew differently twice"
set +e
"$LOADCTL" --db "$DB" plot nosuch "$T/x.svg" 2>/dev/null
[[ $? -eq 2 ]] || fail "an unknown figure is a usage error"
"$LOADCTL" --db "$DB" plot --probe nosuch ecdf "$T/x.svg" 2>"$T/err"
[[ $? -eq 1 ]] && grep -q "no probe 'nosuch'" "$T/err" || fail "an unknown probe: $(cat "$T/err")"
"$LOADCTL" --db "$DB" report --json --html - >/dev/null 2>&1
[[ $? -eq 2 ]] || fail "--json with --html is a usage error"
set -e

# compare --html: a second run beside the first, both runs' dots drawn.
run_loadd --profile "$tiny" >/dev/null 2>"$T/loadd.err" || fail "second loadd run: $(cat "$T/loadd.err")"
jobs2=$(sql "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id
             WHERE p.valid = 1 AND s.failed = 0 AND s.wall_ms > 0 AND p.run_id = 2")
"$LOADCTL" --db "$DB" compare 2 1 --html "$T/c.html" 2>"$T/err" || fail "compare --html: $(cat "$T/err")"
render "$T/c.html" "$T/cdom.html"
grep -q '<figure id="fig-compare-"><svg' <(tr -d '\n' <"$T/cdom.html") || fail "compare: no figure"
grep -q '<figure id="fig-compare-1-"><svg' <(tr -d '\n' <"$T/cdom.html") ||
	fail "compare: no figure of the wakeup probe"
cdots=$(grep -oE 'href="#fig-compare-gpPt6"[^>]*transform=' "$T/cdom.html" | wc -l)
# phases named alike in both runs are drawn: none in both, cpu only in run 2
both=$(sql "SELECT count(*) FROM samples s JOIN phases p ON p.id = s.phase_id
            WHERE p.valid = 1 AND s.failed = 0 AND s.wall_ms > 0 AND (p.run_id = 2 OR p.name = 'none')")
[[ $cdots -eq $both ]] || fail "the comparison has $cdots dots for $both jobs"
grep -qF '<td class="l verdict">' "$T/cdom.html" || fail "compare: no verdict column"
grep -qF '&lt;script&gt;alert(1)&lt;/script&gt;' "$T/cdom.html" || fail "compare: host not shown as text"
[[ $(grep -c '<script' "$T/cdom.html") -eq 0 ]] || fail "compare: a string became markup"

# A knee search: its steps' median and p95 against the ramped value, the knee marked.
knee=$(profile knee <<'EOF2'
[run]
settle = 0s
[probe]
every = 100ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
[phase knee]
duration = 1s
loads = cpu
ramp = cpu.procs 2,4
[load cpu]
type = cpu
procs = 2
expect = none
EOF2
)
run_loadd --profile "$knee" >/dev/null 2>"$T/loadd.err" || fail "knee run: $(cat "$T/loadd.err")"
"$LOADCTL" --db "$DB" report --html "$T/k.html" 2>"$T/err" || fail "knee report: $(cat "$T/err")"
grep -q '<figure id="fig-knee-0-"><svg' <(tr -d '\n' <"$T/k.html") || fail "no knee figure"
grep -q '<text>knee@4</text>' "$T/k.html" || fail "the knee steps are not on the timeline"
echo "report_html: ok ($jobs and $jobs2 jobs drawn)"
