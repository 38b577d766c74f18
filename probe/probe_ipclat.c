// SPDX-License-Identifier: GPL-2.0-or-later
/* The ipclat probe: the latency of a message there and back between two
 * processes, as lmbench's lat_pipe, lat_unix, lat_udp and lat_tcp measure
 * it and Stevens' appendix compares them. Every slot the prober forks an
 * echo child, sends `size` bytes `count` times over `via` and times each
 * round trip into a histogram (one per slot). Everything a sample makes is
 * gone when it ends: FIFO and POSIX queue names are unlinked as soon as both
 * ends are open, a System V queue is removed, and the child (killed with
 * loadd by a parent-death signal) is waited for. Each object is in the
 * probe's register (ipc_objects.h) before it is used, so what a kill -9
 * leaves is swept at the next start. Loopback only. */
#include "probe.h"
#include "ipc_objects.h"

#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "timeutil.h"
#include "xalloc.h"

enum ipc_via {
	VIA_PIPE,
	VIA_FIFO,
	VIA_UNIX_STREAM,
	VIA_UNIX_DGRAM,
	VIA_TCP,
	VIA_UDP,
	VIA_POSIXMQ,
	VIA_SYSVMQ
};

static const char *const ipc_vias[] = { "pipe", "fifo",    "unix-stream", "unix-dgram", "tcp",
					"udp",  "posixmq", "sysvmq",      NULL };

#define IPC_QUIT 'q' /* first byte of the message that ends the child */
#define IPC_DATA 'x'

struct ipclat_config {
	int64_t every_ms;
	int via;
	long size;
	long count;
};

/* clang-format off */
static const struct option_def ipclat_options[] = {
	{ "every", OPT_DURATION, offsetof(struct ipclat_config, every_ms), "1s", 10, 3600000,
	  NULL, NULL, "one burst of `count` round trips per slot of this length" },
	{ "via", OPT_ENUM, offsetof(struct ipclat_config, via), "pipe", 0, 0, ipc_vias, NULL,
	  "the mechanism: pipe, fifo, unix-stream, unix-dgram, tcp and udp on 127.0.0.1, "
	  "posixmq (mq_send), sysvmq (msgsnd)" },
	{ "size", OPT_INT, offsetof(struct ipclat_config, size), "1", 1, 65536, NULL, NULL,
	  "bytes of each message" },
	{ "count", OPT_INT, offsetof(struct ipclat_config, count), "1000", 1, 1000000, NULL, NULL,
	  "round trips per slot, each timed" },
	{ NULL },
};
/* clang-format on */

struct ipclat_state {
	int via;
	size_t size;
	long count;
	int64_t every_ms;
	char *dir; /* scratch dir of the FIFOs */
	const char *name;
	long serial; /* of the sample, for unique names */
	char *buf;   /* size bytes, sysv: after its mtype */
	struct ipc_objects *reg;
};

/* Both directions of one sample's channel: the parent's ends and the child's. */
struct ipc_chan {
	int via;
	int p_in, p_out, c_in, c_out; /* fds, or mqd_t for posixmq */
	int msqid;                    /* sysvmq: one queue, mtype 1 down, 2 up */
};

struct sysv_msg {
	long mtype;
	char data[];
};

static int ipc_send(const struct ipc_chan *ch, int fd, long mtype, char *buf, size_t size)
{
	if (ch->via == VIA_POSIXMQ)
		return mq_send(fd, buf + sizeof(long), size, 0);
	if (ch->via == VIA_SYSVMQ) {
		((struct sysv_msg *)buf)->mtype = mtype;
		return msgsnd(ch->msqid, buf, size, 0);
	}
	for (size_t done = 0; done < size;) {
		ssize_t n = write(fd, buf + sizeof(long) + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* Reads one whole message into buf (after the mtype slot); -1 on EOF/error. */
static int ipc_recv(const struct ipc_chan *ch, int fd, long mtype, char *buf, size_t size)
{
	if (ch->via == VIA_POSIXMQ)
		return mq_receive(fd, buf + sizeof(long), size, NULL) < 0 ? -1 : 0;
	if (ch->via == VIA_SYSVMQ)
		return msgrcv(ch->msqid, buf, size, mtype, 0) < 0 ? -1 : 0;
	if (ch->via == VIA_UNIX_DGRAM || ch->via == VIA_UDP)
		return read(fd, buf + sizeof(long), size) <= 0 ? -1 : 0;
	for (size_t done = 0; done < size;) {
		ssize_t n = read(fd, buf + sizeof(long) + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

/* The echo child: only system calls, safe after fork in a threaded process. */
static void ipc_echo(const struct ipc_chan *ch, char *buf, size_t size)
{
	while (ipc_recv(ch, ch->c_in, 1, buf, size) == 0) {
		if (ipc_send(ch, ch->c_out, 2, buf, size) < 0 || buf[sizeof(long)] == IPC_QUIT)
			break;
	}
}

static void chan_close(struct ipc_chan *ch)
{
	int *fds[] = { &ch->p_in, &ch->p_out, &ch->c_in, &ch->c_out };

	for (size_t i = 0; i < 4; i++) {
		if (*fds[i] < 0)
			continue;
		/* a socketpair's or a pipe's end may be listed twice */
		for (size_t j = i + 1; j < 4; j++)
			if (*fds[j] == *fds[i])
				*fds[j] = -1;
		if (ch->via == VIA_POSIXMQ)
			mq_close(*fds[i]);
		else
			close(*fds[i]);
		*fds[i] = -1;
	}
	if (ch->msqid >= 0)
		msgctl(ch->msqid, IPC_RMID, NULL);
	ch->msqid = -1;
}

static int loopback_pair(int type, int *a, int *b)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t len = sizeof addr;
	int one = 1, l = socket(AF_INET, type | SOCK_CLOEXEC, 0), c = -1, s = -1;

	if (l < 0 || bind(l, (struct sockaddr *)&addr, sizeof addr) < 0 ||
	    getsockname(l, (struct sockaddr *)&addr, &len) < 0)
		goto fail;
	c = socket(AF_INET, type | SOCK_CLOEXEC, 0);
	if (c < 0)
		goto fail;
	if (type == SOCK_STREAM) {
		if (listen(l, 1) < 0 || connect(c, (struct sockaddr *)&addr, sizeof addr) < 0 ||
		    (s = accept4(l, NULL, NULL, SOCK_CLOEXEC)) < 0)
			goto fail;
		close(l);
		setsockopt(c, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
		setsockopt(s, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
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
static int mq_open_private(const struct ipclat_state *st, const char *dir, size_t size)
{
	struct mq_attr attr = { .mq_maxmsg = 1, .mq_msgsize = (long)size };
	char name[128], *err = NULL;
	int q;

	if (ipc_objects_posix_name(st->reg, IPC_POSIX_MQ, dir, name, sizeof name, &err) < 0) {
		free(err);
		return -1;
	}
	q = mq_open(name, O_RDWR | O_CREAT | O_EXCL | O_CLOEXEC, 0600, &attr);
	if (q >= 0)
		mq_unlink(name);
	return q;
}

static int fifo_open_private(const struct ipclat_state *st, char dir)
{
	char *path = xasprintf("%s/fifo-%ld%c", st->dir, st->serial, dir), *err = NULL;
	int fd = -1;

	if (ipc_objects_fifo(st->reg, path, &err) < 0) {
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

static int chan_open(struct ipc_chan *ch, struct ipclat_state *st, char **err)
{
	int a[2] = { -1, -1 }, b[2] = { -1, -1 }, rc = 0;

	*ch = (struct ipc_chan){
		.via = st->via, .p_in = -1, .p_out = -1, .c_in = -1, .c_out = -1, .msqid = -1
	};
	st->serial++;
	switch (st->via) {
	case VIA_PIPE:
		rc = pipe2(a, O_CLOEXEC) < 0 || pipe2(b, O_CLOEXEC) < 0 ? -1 : 0;
		ch->p_out = a[1], ch->c_in = a[0], ch->c_out = b[1], ch->p_in = b[0];
		break;
	case VIA_FIFO:
		ch->p_out = ch->c_in = fifo_open_private(st, 'd');
		ch->c_out = ch->p_in = fifo_open_private(st, 'u');
		rc = ch->p_out < 0 || ch->p_in < 0 ? -1 : 0;
		break;
	case VIA_UNIX_STREAM:
	case VIA_UNIX_DGRAM:
		rc = socketpair(AF_UNIX,
				(st->via == VIA_UNIX_STREAM ? SOCK_STREAM : SOCK_DGRAM) |
					SOCK_CLOEXEC,
				0, a);
		ch->p_in = ch->p_out = a[0], ch->c_in = ch->c_out = a[1];
		break;
	case VIA_TCP:
	case VIA_UDP:
		rc = loopback_pair(st->via == VIA_TCP ? SOCK_STREAM : SOCK_DGRAM, &a[0], &a[1]);
		ch->p_in = ch->p_out = a[0], ch->c_in = ch->c_out = a[1];
		break;
	case VIA_POSIXMQ:
		ch->p_out = ch->c_in = mq_open_private(st, "d", st->size);
		ch->c_out = ch->p_in = mq_open_private(st, "u", st->size);
		rc = ch->p_out < 0 || ch->p_in < 0 ? -1 : 0;
		break;
	case VIA_SYSVMQ:
		ch->msqid = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
		rc = ch->msqid < 0 ? -1 : 0;
		if (rc == 0 && ipc_objects_sysv(st->reg, IPC_SYSV_MSG, ch->msqid, err) < 0) {
			chan_close(ch);
			return -1;
		}
		break;
	}
	if (rc < 0) {
		int e = errno;

		*err = xasprintf(
			"%s: cannot make the channel: %s%s", ipc_vias[st->via], strerror(e),
			st->via == VIA_POSIXMQ && (e == EMFILE || e == ENOSPC)
				? " (see the sysctl fs.mqueue.queues_max)"
			: st->via == VIA_SYSVMQ && e == ENOSPC ? " (see the sysctl kernel.msgmni)"
							       : "");
		chan_close(ch);
	}
	return rc;
}

/* One burst of round trips into h. */
static int ipclat_sample(struct ipclat_state *st, struct hist *h, char **err)
{
	struct ipc_chan ch;
	pid_t pid;
	int rc = 0, status;

	if (chan_open(&ch, st, err) < 0) {
		ipc_objects_clear(st->reg);
		return -1;
	}
	memset(st->buf + sizeof(long), IPC_DATA, st->size);
	pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		chan_close(&ch);
		ipc_objects_clear(st->reg);
		return -1;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ipc_echo(&ch, st->buf, st->size);
		_exit(0);
	}
	for (long i = 0; i < st->count && rc == 0; i++) {
		int64_t t0 = mono_ns();

		rc = ipc_send(&ch, ch.p_out, 1, st->buf, st->size);
		if (rc == 0)
			rc = ipc_recv(&ch, ch.p_in, 2, st->buf, st->size);
		if (rc == 0)
			hist_add(h, (uint64_t)(mono_ns() - t0));
	}
	if (rc < 0)
		*err = xasprintf("%s: a round trip failed: %s", ipc_vias[st->via], strerror(errno));
	st->buf[sizeof(long)] = IPC_QUIT;
	if (rc < 0 || ipc_send(&ch, ch.p_out, 1, st->buf, st->size) < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	chan_close(&ch);
	ipc_objects_clear(st->reg);
	return rc;
}

static void ipclat_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct ipclat_state *st = state;
	int64_t every_ns = st->every_ms * NSEC_PER_MSEC;

	for (int64_t k = 0; w->start_ns + k * every_ns < w->end_ns; k++) {
		struct hist *h;
		double t;
		char *err = NULL;

		if (probe_wait_until(c, w->start_ns + k * every_ns) < 0)
			return;
		h = xcalloc(1, sizeof *h);
		t = wall_now();
		if (ipclat_sample(st, h, &err) < 0)
			probe_complain(c, err);
		if (h->count > 0)
			probe_emit_hist(c, w->phase_id, 0, t, NAN, h);
		else
			free(h);
		/* a burst past its slot starts the next at the first free one */
		while (w->start_ns + (k + 1) * every_ns < mono_ns())
			k++;
	}
}

/* The system's cap on a POSIX queue's message, 0 when unknown. */
static long mq_msgsize_max(void)
{
	FILE *fp = fopen("/proc/sys/fs/mqueue/msgsize_max", "re");
	long v = 0;

	if (fp != NULL) {
		if (fscanf(fp, "%ld", &v) != 1)
			v = 0;
		fclose(fp);
	}
	return v;
}

static void ipclat_close(void *state)
{
	struct ipclat_state *st = state;

	if (st->dir != NULL)
		rmdir(st->dir);
	ipc_objects_close(st->reg);
	free(st->dir);
	free(st->buf);
	free(st);
}

static void *ipclat_open(const void *config, const struct probe_env *env, char **err)
{
	const struct ipclat_config *cfg = config;
	struct ipclat_state *st = xcalloc(1, sizeof *st);
	long limit;

	st->via = cfg->via;
	st->size = (size_t)cfg->size;
	st->count = cfg->count;
	st->every_ms = cfg->every_ms;
	st->name = env->name;
	st->buf = xcalloc(1, sizeof(long) + st->size);
	if ((st->reg = ipc_objects_open(env->workdir, env->name, err)) == NULL) {
		ipclat_close(st);
		return NULL;
	}
	if (st->via == VIA_POSIXMQ && (limit = mq_msgsize_max()) > 0 && cfg->size > limit) {
		*err = xasprintf("posixmq: size %ld is over the limit %ld of the sysctl "
				 "fs.mqueue.msgsize_max",
				 cfg->size, limit);
		ipclat_close(st);
		return NULL;
	}
	if (st->via == VIA_FIFO) {
		st->dir = xasprintf("%s/probe-%s", env->workdir ? env->workdir : ".", env->name);
		if (mkdir(st->dir, 0700) < 0 && errno != EEXIST) {
			*err = xasprintf("cannot make %s: %s", st->dir, strerror(errno));
			ipclat_close(st);
			return NULL;
		}
	}
	return st;
}

static void ipclat_describe(const void *config, char *buf, size_t len)
{
	const struct ipclat_config *cfg = config;
	char every[32];

	format_ms(cfg->every_ms, every, sizeof every);
	snprintf(buf, len, "%ld round trips of %ld bytes over %s every %s", cfg->count, cfg->size,
		 ipc_vias[cfg->via], every);
}

/* The IPC appendix's latency table: a row per mechanism. */
static const struct study_place ipclat_study[] = {
	{ .table = "IPC latency: us per round trip (ipclat)",
	  .rows = "mechanism",
	  .row = "{via}",
	  .unit = "us" },
	{ 0 },
};

const struct probe_ops probe_ipclat_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "ipclat",
	.summary = "IPC latency: a message there and back between two processes over a pipe, "
		   "FIFO, Unix or loopback socket, POSIX or System V queue; a histogram per slot",
	.options = ipclat_options,
	.config_size = sizeof(struct ipclat_config),
	.units = "us",
	.histogram = true,
	.open = ipclat_open,
	.run = ipclat_run,
	.close = ipclat_close,
	.describe = ipclat_describe,
	.study = ipclat_study,
};
