# SPDX-License-Identifier: GPL-2.0-or-later
# Shared helpers of the bench scripts (sourced, not run). Each script sets
# bench_name before sourcing. Figures are printed for people; each final
# figure also goes out as one tab-separated line that bench/run-all gathers:
#
#	result<TAB>metric<TAB>loadd<TAB>reference<TAB>ratio<TAB>target<TAB>met
#
# with "-" for a field that does not apply.

bench_dir=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
bench_src=$(cd "$bench_dir/.." && pwd)
# The build to measure: -b in each script, else $LOADD_BUILD_DIR, else build/.
bench_build=${LOADD_BUILD_DIR:-$bench_src/build}

die() {
	echo "$bench_name: $*" >&2
	exit 1
}

usage_error() {
	echo "$bench_name: $*" >&2
	exit 2
}

# need_prog FILE: an executable of the build, or a clear message.
need_prog() {
	[[ -x $1 ]] || usage_error "no $1: build it (cmake --build BUILD_DIR), or give the build with -b"
}

# need_tool NAME PACKAGE: a reference tool from the system.
need_tool() {
	command -v "$1" >/dev/null || usage_error "$1 is not installed (Debian: apt-get install $2, or scripts/deps --bench)"
}

is_count() {
	[[ $1 =~ ^[1-9][0-9]*$ ]]
}

# Statistics of the numbers on stdin, one a line.
median() {
	sort -g | awk '{ v[NR] = $1 } END { if (NR == 0) print "nan"; else print (NR % 2) ? v[(NR + 1) / 2] : (v[NR / 2] + v[NR / 2 + 1]) / 2 }'
}

# Coefficient of variation, in %: sample standard deviation / mean.
cv_pct() {
	awk '{ n++; s += $1; q += $1 * $1 }
	     END { if (n < 2 || s == 0) { print "nan"; exit }
		   m = s / n; var = (q - n * m * m) / (n - 1); if (var < 0) var = 0
		   printf "%.2f\n", 100 * sqrt(var) / m }'
}

# Interquartile range / median, in %: a spread that a few outliers (another
# program's burst on a shared machine) do not dominate as they do the CV.
# Quartiles interpolated between ranks (type 7, as R and the report).
iqr_pct() {
	sort -g | awk '{ v[NR] = $1 }
	function q(p,  h, i) { h = (NR - 1) * p + 1; i = int(h); return v[i] + (h - i) * (v[i + 1] - v[i]) }
	END { if (NR < 2 || q(0.5) == 0) { print "nan"; exit }
	      printf "%.2f\n", 100 * (q(0.75) - q(0.25)) / q(0.5) }'
}

# ratio A B with 2 decimals (3 when asked).
ratio() {
	awk -v a="$1" -v b="$2" -v d="${3:-2}" 'BEGIN { if (b == 0) print "nan"; else printf "%.*f\n", d, a / b }'
}

# verdict VALUE OP LIMIT: "met" or "NOT met" (OP one of <= < >= >).
verdict() {
	awk -v v="$1" -v op="$2" -v l="$3" 'BEGIN {
		ok = (op == "<=") ? v <= l : (op == "<") ? v < l : (op == ">=") ? v >= l : v > l
		print (v == "nan" ? "NOT met" : ok ? "met" : "NOT met") }'
}

# result METRIC LOADD REFERENCE RATIO TARGET MET: the line run-all gathers.
result() {
	printf 'result\t%s\t%s\t%s\t%s\t%s\t%s\n' "$@"
}

# utime + stime of a live process, in clock ticks (fields 14 and 15 of
# /proc/PID/stat, counted after the command name's closing parenthesis):
# the process's own threads, not its children.
cpu_ticks() {
	local stat f
	stat=$(<"/proc/$1/stat") || return 1
	stat=${stat##*) }
	read -r -a f <<<"$stat"
	echo $((f[11] + f[12]))
}

# Peak resident set of a live process, KiB.
vm_hwm_kib() {
	awk '/^VmHWM:/ { print $2 }' "/proc/$1/status"
}

now_s() {
	date +%s.%N
}

# time_cmd OUT CMD...: runs CMD with its stdout to OUT and prints
# "wall user sys" in seconds (user and sys: the command and its children).
time_cmd() {
	local out=$1 t TIMEFORMAT='%R %U %S'
	shift
	{ t=$({ time "$@" >"$out" 2>"$bench_tmp/time_cmd.err"; } 2>&1); } || {
		echo "$bench_name: $* failed:" >&2
		cat "$bench_tmp/time_cmd.err" >&2
		exit 1
	}
	echo "$t"
}

# wait_sql DB SQL PID SECONDS: waits until SQL on DB prints something other
# than nothing or 0, while PID lives; prints it. Fails on timeout or death.
wait_sql() {
	local db=$1 sql=$2 pid=$3 limit=$4 v deadline
	deadline=$(awk -v t="$(now_s)" -v l="$limit" 'BEGIN { printf "%.0f", t + l }')
	while :; do
		if [[ -s $db ]]; then
			v=$(sqlite3 -readonly "$db" "$sql" 2>/dev/null) || v=
			if [[ -n $v && $v != 0 ]]; then
				echo "$v"
				return 0
			fi
		fi
		kill -0 "$pid" 2>/dev/null || return 1
		(($(date +%s) < deadline)) || return 1
		sleep 0.05
	done
}

# The machine the figures come from, one fact a line.
machine_facts() {
	local dev fs rota model
	model=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo)
	echo "cpus: $(nproc) ($model)"
	echo "ram: $(awk '/^MemTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)," \
		"swap $(awk '/^SwapTotal:/ { printf "%.1f GiB", $2 / 1048576 }' /proc/meminfo)"
	echo "kernel: $(uname -r)"
	dev=$(df -P "${1:-/}" | awk 'NR == 2 { print $1 }')
	fs=$(df -PT "${1:-/}" | awk 'NR == 2 { print $2 }')
	rota=$(lsblk -dno ROTA "$dev" 2>/dev/null | tr -d ' ') || rota=
	case $rota in
	0) rota="non-rotational" ;;
	1) rota="reported rotational" ;;
	*) rota="type unknown" ;;
	esac
	echo "disk: $dev ($fs, $rota)"
	echo "load average: $(cut -d' ' -f1-3 /proc/loadavg)"
}

# A private temp dir, removed on exit (kept when BENCH_KEEP is set, to look
# into) with whatever the script started; scripts add PIDs to bench_pids to
# have them stopped.
bench_pids=()

# PIDs of the processes holding a file of the temp dir open. A child whose
# shell died first (a kill of the whole process group) may still be busy: a
# write or an fdatasync under writeback, a database closing and removing its
# journal. Removing the dir under it fails, and the dir is left behind.
bench_holders() {
	find /proc/[0-9]*/fd -maxdepth 1 -lname "$bench_tmp/*" 2>/dev/null |
		awk -F/ '{ print $3 }' | sort -u | grep -vx "$$" || true
}

bench_cleanup() {
	local pid holders i
	# The script is ending: a child's status (wait gives 143 for one
	# just stopped) must not end this under set -e before the dir is gone.
	set +e
	for pid in "${bench_pids[@]}"; do
		kill -TERM "$pid" 2>/dev/null && wait "$pid" 2>/dev/null
	done
	[[ -n ${bench_tmp:-} && -d $bench_tmp ]] || return 0
	if [[ -n ${BENCH_KEEP:-} ]]; then
		echo "$bench_name: kept $bench_tmp (BENCH_KEEP is set)" >&2
		return 0
	fi
	# What still holds a file in the dir was started here (the dir is
	# private): ask it to stop, and give it up to 60 s to finish its
	# write and go, before removing the dir.
	for ((i = 0; i < 300; i++)); do
		holders=$(bench_holders)
		[[ -n $holders ]] || break
		((i % 25 == 0)) && kill -TERM $holders 2>/dev/null
		sleep 0.2
	done
	for ((i = 0; i < 5; i++)); do
		rm -rf "$bench_tmp" 2>/dev/null && break
		sleep 1
	done
	if [[ -e $bench_tmp ]]; then
		echo "$bench_name: could not remove $bench_tmp${holders:+ (still used by PID $holders)}" >&2
	fi
	return 0
}

bench_tmpdir() {
	bench_tmp=$(mktemp -d "${1:-${TMPDIR:-/tmp}}/$bench_name.XXXXXX")
	trap bench_cleanup EXIT
	trap 'exit 129' HUP
	trap 'exit 130' INT
	trap 'exit 143' TERM
}
