# SPDX-License-Identifier: GPL-2.0-or-later
# Sourced (after lib.sh) by the control API tests: HTTP over the test's
# socket with curl, and a Python 3 that can parse Prometheus text.

# The interpreter itself, not a version manager's shim: each start of a
# shim costs a second on a machine busy with the test's own load.
PYTHON=$(python3 -c 'import sys; print(sys.executable)')

# A long profile: a short quiet phase, then a small cpu load, so the status
# has a phase, samples and a load's counters for as long as a test needs.
api_profile() {
	profile api <<'EOF2'
[run]
settle = 0s
[probe]
every = 200ms
tree = depth=2 fanout=3 files=4
[phase none]
duration = 1s
[phase cpu]
duration = 120s
loads = cpu
[load cpu]
type = cpu
procs = 2
EOF2
}

# http METHOD TARGET [curl options...]: the body goes to $T/body, the headers
# to $T/headers; prints the status code.
http() {
	local method=$1 target=$2
	shift 2
	curl -sS --max-time 10 --unix-socket "$SOCK" -X "$method" -o "$T/body" -D "$T/headers" \
		-w '%{http_code}' "$@" "http://loadd$target"
}

# Fails unless METHOD TARGET answers CODE with a JSON body.
expect_json() {
	local code=$1 method=$2 target=$3 got
	got=$(http "$method" "$target") || fail "$method $target: curl failed"
	[[ $got == "$code" ]] || fail "$method $target: $got, want $code: $(cat "$T/body")"
	"$PYTHON" -m json.tool "$T/body" >/dev/null || fail "$method $target: body is not JSON: $(cat "$T/body")"
	grep -qi '^content-type: application/json' "$T/headers" ||
		fail "$method $target: not application/json: $(cat "$T/headers")"
}

# Waits until loadd answers on $SOCK and its run is in the cpu phase with a
# few samples; fails early when loadd died.
wait_for_api() {
	local i
	for ((i = 0; i < 300; i++)); do
		kill -0 "$LOADD_PID" 2>/dev/null ||
			fail "loadd died: $(cat "$T/loadd.err" "$T/loadd.log" 2>/dev/null)"
		if [[ $(http GET /v1/status 2>/dev/null) == 200 ]] &&
			"$PYTHON" - "$T/body" <<'PY' 2>/dev/null; then
import json, sys
d = json.load(open(sys.argv[1]))
assert d["phase"]["name"] == "cpu" and d["phase"]["jobs"] >= 2 and d["loads"]
PY
			return 0
		fi
		sleep 0.1
	done
	fail "loadd did not reach its cpu phase: $(cat "$T/loadd.err" "$T/loadd.log" 2>/dev/null)"
}

# Waits (up to 60 s) for loadd to exit; its exit status is in LOADD_STATUS.
wait_for_exit() {
	local i
	for ((i = 0; i < 600; i++)); do
		if ! kill -0 "$LOADD_PID" 2>/dev/null; then
			LOADD_STATUS=0
			wait "$LOADD_PID" || LOADD_STATUS=$?
			return 0
		fi
		sleep 0.1
	done
	fail "loadd did not exit"
}

# A python3 with prometheus_client (the distribution's, when python3 on
# PATH is another one).
prometheus_python() {
	local py
	for py in "$PYTHON" /usr/bin/python3; do
		if "$py" -c 'import prometheus_client.parser' 2>/dev/null; then
			echo "$py"
			return 0
		fi
	done
	fail "no python3 with prometheus_client: scripts/deps installs python3-prometheus-client"
}

# Parses a /metrics body with prometheus_client and checks what loadd must
# expose: HELP and TYPE for every family, the probe histogram (cumulative
# buckets, +Inf equal to the count), the cpu load's counters, the phase info
# and, where the kernel has PSI, the pressure gauges.
check_metrics() {
	[[ -n ${PROM_PYTHON:-} ]] || PROM_PYTHON=$(prometheus_python) || exit 1
	"$PROM_PYTHON" - "$1" <<'PY' || fail "/metrics is not what it should be: $(head -c 3000 "$1")"
import math, os, sys
from prometheus_client.parser import text_string_to_metric_families

text = open(sys.argv[1]).read()
fams = {}
for f in text_string_to_metric_families(text):
    fams[f.name] = f
typed = [l.split()[2] for l in text.splitlines() if l.startswith("# TYPE ")]
helped = {l.split()[2] for l in text.splitlines() if l.startswith("# HELP ")}
assert typed and set(typed) <= helped, set(typed) - helped
assert len(typed) == len(set(typed)), "a family typed twice"

def family(name):
    f = fams.get(name) or fams.get(name[: -len("_total")] if name.endswith("_total") else name)
    assert f is not None, name
    assert f.documentation, name + " has no HELP"
    return f

# The job's times in the every-probe family, and nowhere else.
assert "loadd_probe_response_seconds" not in fams, "the job exported twice"
h = family("loadd_probe_latency_seconds")
assert h.type == "histogram", h.type
job = [s for s in h.samples if s.labels["type"] == "job"]
phases = {s.labels["phase"] for s in job}
assert phases == {"none", "cpu"}, phases
for ph in phases:
    buckets = sorted(((float(s.labels["le"]), s.value) for s in job
                      if s.name.endswith("_bucket") and s.labels["phase"] == ph))
    assert buckets[-1][0] == math.inf
    assert all(a[1] <= b[1] for a, b in zip(buckets, buckets[1:])), buckets
    count = [s.value for s in job if s.name.endswith("_count") and s.labels["phase"] == ph]
    total = [s.value for s in job if s.name.endswith("_sum") and s.labels["phase"] == ph]
    assert count == [buckets[-1][1]] and len(total) == 1 and total[0] >= 0, (ph, count, total)
none_count = [s.value for s in job if s.name.endswith("_count") and s.labels["phase"] == "none"]
assert none_count[0] >= 1, "no sample of phase none counted"
missed = family("loadd_probe_missed_slots_total")
assert missed.type == "counter"
assert {(s.labels["type"], s.labels["phase"]) for s in missed.samples} >= {("job", "none"), ("job", "cpu")}, missed.samples

for name in ("loadd_load_cycles_total", "loadd_load_bytes_total", "loadd_load_ops_total",
             "loadd_load_errors_total", "loadd_load_restarts_total",
             "loadd_load_cpu_seconds_total"):
    f = family(name)
    assert f.type == "counter", (name, f.type)
    assert [(s.labels["load"], s.labels["type"]) for s in f.samples] == [("cpu", "cpu")], f.samples
assert family("loadd_load_cycles_total").samples[0].value > 0

info = family("loadd_phase_info")
assert info.type == "gauge"
assert [(s.labels, s.value) for s in info.samples] == [({"phase": "cpu", "round": "1"}, 1.0)], info.samples

psi = family("loadd_pressure_stalled_ratio")
assert psi.type == "gauge"
if os.path.exists("/proc/pressure/cpu"):
    some = [s.value for s in psi.samples if s.labels == {"resource": "cpu", "kind": "some"}]
    assert len(some) == 1 and 0 <= some[0] <= 1, psi.samples
print("metrics ok: %d families" % len(fams))
PY
}
