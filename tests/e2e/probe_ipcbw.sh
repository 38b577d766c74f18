#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ipcbw probe over every mechanism: each stores one sample per message
# size per slot, with positive MB/s; the stream mechanisms move more at their
# largest size than at their smallest (fewer system calls per byte: a loose
# order, no timing threshold); a POSIX and a System V queue asked for sizes
# above the limits this machine's /proc gives are not tried: those samples
# have no value, are not failed and keep the limit, and the report and the
# export say so. Nothing is left behind: no System V queue, no POSIX queue or
# shared memory of loadd's, no FIFO, no child process.
source "$(dirname "$0")/lib.sh"

vias=(pipe fifo posixmq sysvmq unix-stream tcp)
mq_limit=$(cat /proc/sys/fs/mqueue/msgsize_max)
msg_limit=$(cat /proc/sys/kernel/msgmax)
# Two sizes each side of the limit: 1/2, 1, 2, 4 times it (at most 1M).
over_sizes() { # LIMIT
	local half=$(($1 / 2)) s=$1 list
	list="$half"
	for _ in 1 2 3; do
		((s <= 1048576)) && list+=", $s"
		s=$((s * 2))
	done
	echo "$list"
}
queues_before=$(sysv_queue_ids)
{
	printf '[run]\nsettle = 0s\n'
	for v in "${vias[@]}"; do
		# the queues' largest: their limit (8K by default)
		big=64K
		[[ $v == posixmq ]] && big=$mq_limit
		[[ $v == sysvmq ]] && big=$msg_limit
		printf '[probe %s]\ntype = ipcbw\nvia = %s\nevery = 400ms\nsizes = 1K, %s\ntotal = 1024\n' \
			"$v" "$v" "$big"
	done
	printf '[probe mq-over]\ntype = ipcbw\nvia = posixmq\nevery = 1s\ntotal = 256\nsizes = %s\n' \
		"$(over_sizes "$mq_limit")"
	printf '[probe msg-over]\ntype = ipcbw\nvia = sysvmq\nevery = 1s\ntotal = 256\nsizes = %s\n' \
		"$(over_sizes "$msg_limit")"
	printf '[phase none]\nduration = 2s\n'
} >"$T/ipc.conf"
# loadd on one CPU: unpinned, whether a probe's two processes share a CPU or
# not moves a transfer several-fold on a VM, and may move the 1K and the 64K
# transfers of a slot differently; pinned, only the message size differs.
cpu0=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
taskset -c "$cpu0" "$LOADD" --db "$DB" --workdir "$WORK" --socket "$SOCK" \
	--profile "$T/ipc.conf" >"$T/out" 2>&1 || fail "loadd failed: $(cat "$T/out")"

probe_sql() { # NAME WHERE
	sql "select count(*) from samples s join probes p on p.id = s.probe_id where p.name = '$1' and $2"
}
for v in "${vias[@]}"; do
	for variant in 0 1; do
		n=$(probe_sql "$v" "s.variant = $variant and s.failed = 0 and s.value > 0 and s.over_limit = 0")
		((n >= 2)) || fail "$v, size $variant: $n samples: $(sql "select * from events")"
	done
	bad=$(probe_sql "$v" "(s.failed = 1 or s.value is null or s.value <= 0)")
	[[ $bad == 0 ]] || fail "$v: $bad failed or empty samples: $(cat "$T/out")"
done
median() { # NAME VARIANT
	sql "select value from samples s join probes p on p.id = s.probe_id where p.name = '$1'
	     and s.variant = $2 and s.value is not null order by value" |
		awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'
}
for v in pipe unix-stream tcp; do
	small=$(median "$v" 0) big=$(median "$v" 1)
	awk -v a="$big" -v b="$small" 'BEGIN { exit !(a > b) }' ||
		fail "$v: 64K messages ($big MB/s) no faster than 1K ($small MB/s)"
done

# Over the limit: sizes 2 and 3 (twice and four times it) not tried.
for probe in mq-over:$mq_limit msg-over:$msg_limit; do
	name=${probe%%:*} limit=${probe#*:}
	for variant in 0 1; do
		n=$(probe_sql "$name" "s.variant = $variant and s.value > 0 and s.over_limit = 0")
		((n >= 1)) || fail "$name: size $variant, at or under the limit, not measured"
	done
	n=$(probe_sql "$name" "s.variant >= 2 and s.value is null and s.failed = 0 and s.over_limit = $limit")
	m=$(probe_sql "$name" "s.variant >= 2")
	((n >= 2 && n == m)) || fail "$name: $n of $m samples over the limit stored as such"
done
"$LOADCTL" --db "$DB" report >"$T/report" || fail "report failed"
grep -Eq "mq-over.*over the limit $mq_limit \(fs.mqueue.msgsize_max\)" "$T/report" ||
	fail "the report does not name the POSIX queue's limit: $(cat "$T/report")"
grep -Eq "msg-over.*over the limit $msg_limit \(kernel.msgmax\)" "$T/report" ||
	fail "the report does not name the System V queue's limit"
# The study table: sizes as rows, mechanisms as columns, the sizes over the
# limit said so in their cells.
sed -n '/^IPC bandwidth: MB\/s one way (ipcbw)/,/^$/p' "$T/report" >"$T/study"
grep -Eq "^ +message size +pipe +fifo +posixmq +sysvmq +unix-stream +tcp" "$T/study" ||
	fail "no bandwidth study table with the mechanisms as columns: $(cat "$T/report")"
grep -Eq "^ +64K +[0-9.]+ +[0-9.]+ " "$T/study" || fail "no 64K row in the study table: $(cat "$T/study")"
grep -q "over the limit $mq_limit" "$T/study" || fail "no cell over the limit: $(cat "$T/study")"
"$LOADCTL" --db "$DB" export --probe mq-over - >"$T/export.csv" || fail "export failed"
python3 - "$T/export.csv" "$mq_limit" <<'PY' || fail "the export does not show the limit"
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1])))
over = [r for r in rows if r["over_limit"] == sys.argv[2]]
assert over and all(r["value"] == "" and r["failed"] in ("0", "false") for r in over), rows[:3]
PY

left=$(sysv_queues_left "$queues_before")
[[ -z $left ]] || fail "System V queues left: $left: $(ipcs -q)"
if [[ -d /dev/mqueue ]]; then
	[[ -z $(ls /dev/mqueue | grep '^loadd-' || true) ]] || fail "a POSIX queue was left: $(ls /dev/mqueue)"
fi
[[ -z $(ls /dev/shm | grep '^loadd-' || true) ]] || fail "shared memory was left: $(ls /dev/shm)"
[[ -z $(find "$WORK" -name 'fifo-*' -o -name 'probe-*' 2>/dev/null) ]] ||
	fail "left in the work dir: $(find "$WORK" -name 'fifo-*' -o -name 'probe-*')"
[[ -z $(own_processes) ]] || fail "processes left: $(own_processes)"
echo "ok: 6 mechanisms; limits $mq_limit (posixmq), $msg_limit (sysvmq) reported"
