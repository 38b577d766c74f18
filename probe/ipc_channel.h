// SPDX-License-Identifier: GPL-2.0-or-later
/* The channel between two processes that the IPC probes (ipclat, ipcbw)
 * measure: a pipe, FIFO, Unix or loopback socket, POSIX or System V queue,
 * opened by the prober before it forks its partner, so both ends are there
 * in both processes. FIFO and POSIX queue names are unlinked as soon as both
 * ends are open; every object is in the probe's register (ipc_objects.h)
 * before it is used, so that what a kill -9 leaves is swept at the next
 * start. Loopback only. */
#ifndef LOADD_IPC_CHANNEL_H
#define LOADD_IPC_CHANNEL_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

enum ipc_via {
	IPC_VIA_PIPE,
	IPC_VIA_FIFO,
	IPC_VIA_UNIX_STREAM,
	IPC_VIA_UNIX_DGRAM,
	IPC_VIA_TCP,
	IPC_VIA_UDP,
	IPC_VIA_POSIXMQ,
	IPC_VIA_SYSVMQ
};

/* Indexed by enum ipc_via, NULL-terminated: "pipe", "fifo", ... */
extern const char *const ipc_via_names[];

/* What to open. */
struct ipc_objects;

struct ipc_chan_spec {
	int via;                 /* enum ipc_via */
	struct ipc_objects *reg; /* the probe's register of what it makes */
	size_t size;             /* the largest message, in bytes */
	long depth;              /* posixmq: messages each queue holds (mq_maxmsg) */
	bool nodelay;            /* tcp: TCP_NODELAY (a latency probe wants it) */
	int sockbuf;             /* tcp: SO_SNDBUF and SO_RCVBUF, 0 for the system's */
	const char *dir;         /* fifo: where the FIFOs are made (and unlinked) */
	long serial;             /* of the sample, so that names are unique to the run */
};

/* Both directions: the parent's ends and the child's ("down" is parent to
 * child, "up" the other way). fds, or mqd_t for posixmq. */
struct ipc_chan {
	int via;
	int p_in, p_out, c_in, c_out;
	int msqid; /* sysvmq: one queue, mtype 1 down, 2 up */
};

/* Opens ch; -1 with *err (naming the sysctl when a system limit is hit). */
int ipc_chan_open(struct ipc_chan *ch, const struct ipc_chan_spec *spec, char **err);
/* Closes every end and removes the System V queue; safe twice. Then
 * ipc_objects_clear() the register. */
void ipc_chan_close(struct ipc_chan *ch);

/* Messages live at buf + sizeof(long): System V's mtype goes before them. */
#define IPC_MSG_OFFSET sizeof(long)

/* Sends size bytes (all of them) from buf + IPC_MSG_OFFSET; -1 with errno. */
int ipc_send(const struct ipc_chan *ch, int fd, long mtype, char *buf, size_t size);
/* Receives one whole message of size bytes; -1 on EOF or error. */
int ipc_recv(const struct ipc_chan *ch, int fd, long mtype, char *buf, size_t size);
/* What one receive gives (a stream's read may return less than size): the
 * bytes, 0 at EOF, -1 with errno. */
ssize_t ipc_recv_some(const struct ipc_chan *ch, int fd, long mtype, char *buf, size_t size);

#endif
