#!/usr/bin/env bash
# SPDX-License-Identifier: GPL-2.0-or-later
# The ipclat probe over every mechanism: each stores round trips in its
# histograms, a 4 KiB message takes at least as long as a 1-byte one (both
# on one CPU), and nothing is left behind: no FIFO in the work dir, no
# System V queue, no POSIX queue or shared memory of loadd's, no child
# process.
source "$(dirname "$0")/lib.sh"

vias=(pipe fifo unix-stream unix-dgram tcp udp posixmq sysvmq)
queues_before=$(sysv_queue_ids)
{
	printf '[run]\nsettle = 0s\n'
	for v in "${vias[@]}"; do
		printf '[probe %s]\ntype = ipclat\nvia = %s\nevery = 250ms\ncount = 100\n' "$v" "$v"
	done
	printf '[probe big]\ntype = ipclat\nvia = unix-stream\nsize = 4096\nevery = 250ms\ncount = 100\n'
	printf '[phase none]\nduration = 2s\n'
} >"$T/ipc.conf"
run_loadd --profile "$T/ipc.conf" >"$T/out" 2>&1 || fail "loadd failed: $(cat "$T/out")"

for v in "${vias[@]}" big; do
	n=$(sql "select coalesce(sum(h.count), 0) from histograms h join probes p on p.id = h.probe_id
		 where p.name = '$v'")
	(( n >= 100 )) || fail "$v: only $n round trips stored: $(sql "select * from events")"
done

# The 1-byte against 4 KiB order, in a run of its own with loadd on one CPU:
# unpinned, whether a probe's two processes share a CPU or not moves a round
# trip several-fold on a VM (a cross-CPU wake-up each way), far more than
# the message size does, and the two probes need not be placed alike.
cpu0=$(taskset -pc $$ | sed 's/.*: *//; s/[-,].*//')
{
	printf '[run]\nsettle = 0s\n'
	printf '[probe small]\ntype = ipclat\nvia = unix-stream\nevery = 250ms\ncount = 100\n'
	printf '[probe big]\ntype = ipclat\nvia = unix-stream\nsize = 4096\nevery = 250ms\ncount = 100\n'
	printf '[phase none]\nduration = 2s\n'
} >"$T/order.conf"
taskset -c "$cpu0" "$LOADD" --db "$T/order.db" --workdir "$WORK" --socket "$SOCK" \
	--profile "$T/order.conf" >"$T/order.out" 2>&1 || fail "loadd failed: $(cat "$T/order.out")"
p50() {
	"$LOADCTL" --db "$T/order.db" report | awk -v p="$1" '$1 == p && $2 == "ipclat" { print $5 } $2 == p && $3 == "ipclat" { print $6 }'
}
small=$(p50 small) big=$(p50 big)
[[ -n $small && -n $big ]] || fail "the report lacks the ipclat rows: $("$LOADCTL" --db "$T/order.db" report)"
awk -v a="$big" -v b="$small" 'BEGIN { exit !(a * 1.5 >= b) }' ||
	fail "4 KiB round trips ($big ms) far faster than 1-byte ones ($small ms)"

left=$(sysv_queues_left "$queues_before")
[[ -z $left ]] || fail "System V queues left: $left: $(ipcs -q)"
if [[ -d /dev/mqueue ]]; then
	[[ -z $(ls /dev/mqueue | grep '^loadd-' || true) ]] || fail "a POSIX queue was left: $(ls /dev/mqueue)"
fi
[[ -z $(ls /dev/shm | grep '^loadd-' || true) ]] || fail "shared memory was left: $(ls /dev/shm)"
[[ -z $(find "$WORK" -name 'fifo-*' -o -name 'probe-*' 2>/dev/null) ]] ||
	fail "left in the work dir: $(find "$WORK" -name 'fifo-*' -o -name 'probe-*')"
[[ -z $(own_processes) ]] || fail "processes left: $(own_processes)"
echo "ok: 8 mechanisms; unix-stream p50 $small ms for 1 byte, $big ms for 4 KiB"
