// SPDX-License-Identifier: GPL-2.0-or-later
/* The IPC probes' channel: opening, sending, receiving, closing (see
 * ipc_channel.h). */
#include "ipc_channel.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "ipc_objects.h"
#include "xalloc.h"

const char *const ipc_via_names[] = { "pipe", "fifo",    "unix-stream", "unix-dgram", "tcp",
				      "udp",  "posixmq", "sysvmq",      NULL };

struct sysv_msg {
	long mtype;
	char data[];
};

int ipc_send(const struct ipc_chan *ch, int fd, long mtype, char *buf, size_t size)
{
	if (ch->via == IPC_VIA_POSIXMQ)
		return mq_send(fd, buf + IPC_MSG_OFFSET, size, 0);
	if (ch->via == IPC_VIA_SYSVMQ) {
		((struct sysv_msg *)buf)->mtype = mtype;
		return msgsnd(ch->msqid, buf, size, 0);
	}
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, buf + IPC_MSG_OFFSET + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

ssize_t ipc_recv_some(const struct ipc_chan *ch, int fd, long mtype, char *buf, size_t size)
{
	ssize_t n;

	do {
		if (ch->via == IPC_VIA_POSIXMQ)
			n = mq_receive(fd, buf + IPC_MSG_OFFSET, size, NULL);
		else if (ch->via == IPC_VIA_SYSVMQ)
			n = msgrcv(ch->msqid, buf, size, mtype, 0);
		else
			n = read(fd, buf + IPC_MSG_OFFSET, size);
	} while (n < 0 && errno == EINTR);
	return n;
}

int ipc_recv(const struct ipc_chan *ch, int fd, long mtype, char *buf, size_t size)
{
	bool message = ch->via == IPC_VIA_POSIXMQ || ch->via == IPC_VIA_SYSVMQ ||
		       ch->via == IPC_VIA_UNIX_DGRAM || ch->via == IPC_VIA_UDP;

	if (message)
		return ipc_recv_some(ch, fd, mtype, buf, size) <= 0 ? -1 : 0;
	for (size_t done = 0; done < size;) {
		ssize_t n = ipc_recv_some(ch, fd, mtype, buf + done, size - done);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

void ipc_chan_close(struct ipc_chan *ch)
{
	int *fds[] = { &ch->p_in, &ch->p_out, &ch->c_in, &ch->c_out };

	for (size_t i = 0; i < 4; i++) {
		if (*fds[i] < 0)
			continue;
		/* a socketpair's or a FIFO's end may be listed twice */
		for (size_t j = i + 1; j < 4; j++)
			if (*fds[j] == *fds[i])
				*fds[j] = -1;
		if (ch->via == IPC_VIA_POSIXMQ)
			mq_close(*fds[i]);
		else
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (ch->msqid >= 0)
		msgctl(ch->msqid, IPC_RMID, NULL);
	ch->msqid = -1;
}

static void tcp_tune(int fd, const struct ipc_chan_spec *spec)
{
	int one = 1;

	if (spec->nodelay)
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (spec->sockbuf > 0) {
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &spec->sockbuf, sizeof spec->sockbuf);
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &spec->sockbuf, sizeof spec->sockbuf);
	}
}

static int loopback_pair(int type, const struct ipc_chan_spec *spec, int *a, int *b)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof addr;
	int l = socket(AF_INET, type | SOCK_CLOEXEC, 0), c = -1, s = -1;

	if (l < 0 || bind(l, (struct sockaddr *)&addr, sizeof addr) < 0 ||
	    getsockname(l, (struct sockaddr *)&addr, &len) < 0)
		goto fail;
	c = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (c < 0)
		goto fail;
	if (type == SOCK_STREAM) {
		/* buffer sizes before connect, so the window scale follows them */
		tcp_tune(c, spec);
		tcp_tune(l, spec);
		if (listen(l, 1) < 0 || connect(c, (struct sockaddr *)&addr, sizeof addr) < 0 ||
		    (s = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
			goto fail;
		close(l);
		tcp_tune(s, spec);
	} else {
		struct sockaddr_in caddr = addr;

		caddr.sin_port = 0;
		len = sizeof caddr;
		if (bind(c, (struct sockaddr *)&caddr, sizeof caddr) < 0 ||
		    getsockname(c, (struct sockaddr *)&caddr, &len) < 0 ||
		    connect(c, (struct sockaddr *)&addr, sizeof addr) < 0 ||
		    connect(l, (struct sockaddr *)&caddr, sizeof caddr) < 0)
			goto fail;
		s = l;
	}
	*a = c;
	*b = s;
	return 0;
fail:
	if (l >= 0 && l != s)
		close(l);
	if (c >= 0)
		close(c);
	if (s >= 0)
		close(s);
	return -1;
}

/* A POSIX queue under a name of this run, unlinked at once: nothing is left
 * for a crash to leave behind. */
static int mq_open_private(const struct ipc_chan_spec *spec, const char *dir)
{
	struct mq_attr attr = { .mq_maxmsg = spec->depth > 0 ? spec->depth : 1,
				.mq_msgsize = (long)spec->size };
	char name[128], *err = NULL;
	int q;

	if (ipc_objects_posix_name(spec->reg, IPC_POSIX_MQ, dir, name, sizeof name, &err) < 0) {
		free(err);
		return -1;
	}
	q = mq_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
	if (q >= 0)
		mq_unlink(name);
	return q;
}

static int fifo_open_private(const struct ipc_chan_spec *spec, char dir)
{
	char *path = xasprintf("%s/fifo-%ld%c", spec->dir, spec->serial, dir), *err = NULL;
	int fd = -1;

	if (ipc_objects_fifo(spec->reg, path, &err) < 0) {
		free(err);
		free(path);
		return -1;
	}
	/* O_RDWR: neither end waits for the other to open */
	if (mkfifo(path, 0600) == 0)
		fd = open(path, O_RDWR | O_CLOEXEC | O_NOFOLLOW);
	unlink(path);
	free(path);
	return fd;
}

static int socket_chan(struct ipc_chan *ch, const struct ipc_chan_spec *spec)
{
	int a[2] = { -1, -1 }, rc;

	if (spec->via == IPC_VIA_UNIX_STREAM || spec->via == IPC_VIA_UNIX_DGRAM)
		rc = socketpair(AF_UNIX,
				(spec->via == IPC_VIA_UNIX_STREAM ? SOCK_STREAM : SOCK_DGRAM) |
					SOCK_CLOEXEC,
				0, a);
	else
		rc = loopback_pair(spec->via == IPC_VIA_TCP ? SOCK_STREAM : SOCK_DGRAM, spec, &a[0],
				   &a[1]);
	ch->p_in = ch->p_out = a[0], ch->c_in = ch->c_out = a[1];
	return rc < 0 ? -1 : 0;
}

/* "(see the sysctl ...)" for an error that a system limit explains. */
static const char *limit_hint(int via, int e)
{
	if (via == IPC_VIA_POSIXMQ && (e == EMFILE || e == ENOSPC))
		return " (see the sysctl fs.mqueue.queues_max)";
	if (via == IPC_VIA_POSIXMQ && e == EINVAL)
		return " (see the sysctls fs.mqueue.msg_max and fs.mqueue.msgsize_max)";
	if (via == IPC_VIA_SYSVMQ && e == ENOSPC)
		return " (see the sysctl kernel.msgmni)";
	if (e == EMFILE)
		return " (the open file limit, ulimit -n)";
	return "";
}

int ipc_chan_open(struct ipc_chan *ch, const struct ipc_chan_spec *spec, char **err)
{
	int a[2] = { -1, -1 }, b[2] = { -1, -1 }, rc = 0;

	*ch = (struct ipc_chan){
		.via = spec->via, .p_in = -1, .p_out = -1, .c_in = -1, .c_out = -1, .msqid = -1
	};
	switch (spec->via) {
	case IPC_VIA_PIPE:
		rc = pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0 ? -1 : 0;
		ch->p_out = a[1], ch->c_in = a[0], ch->c_out = b[1], ch->p_in = b[0];
		break;
	case IPC_VIA_FIFO:
		ch->p_out = ch->c_in = fifo_open_private(spec, 'd');
		ch->c_out = ch->p_in = fifo_open_private(spec, 'u');
		rc = ch->p_out < 0 || ch->p_in < 0 ? -1 : 0;
		break;
	case IPC_VIA_UNIX_STREAM:
	case IPC_VIA_UNIX_DGRAM:
	case IPC_VIA_TCP:
	case IPC_VIA_UDP: rc = socket_chan(ch, spec); break;
	case IPC_VIA_POSIXMQ:
		ch->p_out = ch->c_in = mq_open_private(spec, "d");
		ch->c_out = ch->p_in = mq_open_private(spec, "u");
		rc = ch->p_out < 0 || ch->p_in < 0 ? -1 : 0;
		break;
	case IPC_VIA_SYSVMQ:
		ch->msqid = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
		rc = ch->msqid < 0 ? -1 : 0;
		if (rc == 0 && ipc_objects_sysv(spec->reg, IPC_SYSV_MSG, ch->msqid, err) < 0) {
			ipc_chan_close(ch);
			return -1;
		}
		break;
	}
	if (rc < 0) {
		int e = errno;

		*err = xasprintf("%s: cannot make the channel: %s%s", ipc_via_names[spec->via],
				 strerror(e), limit_hint(spec->via, e));
		ipc_chan_close(ch);
	}
	return rc;
}
