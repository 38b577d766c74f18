// SPDX-License-Identifier: GPL-2.0-or-later
/* The ipcbw probe: one-way bandwidth between two processes, in MB/s (10^6
 * bytes a second, as lmbench prints it), for each message size of a list
 * (1K, 2K, ... 64K by default), over a pipe, FIFO, POSIX or System V queue,
 * Unix stream socket or loopback TCP, as lmbench's bw_pipe, bw_unix and
 * bw_tcp measure it and Stevens' appendix tabulates it. Every slot, for each
 * size, the prober opens a channel (ipc_channel.c), forks a writer that
 * sends messages of that size without pause, reads a quarter of `total`
 * untimed (the warm-up: caches, the socket's window), then times reading
 * `total` bytes. One sample per size per slot: its value the MB/s, its
 * variant the size's place in the list. A size the mechanism cannot carry
 * (over fs.mqueue.msgsize_max or kernel.msgmax, read at start) is never
 * tried: its sample has no value, is not failed, and keeps the limit in
 * over_limit. Every object is in the probe's register (ipc_objects.h)
 * before it is used, so that what a kill -9 leaves is swept at the next
 * start. */
#include "probe.h"

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/msg.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc_channel.h"
#include "ipc_limits.h"
#include "ipc_objects.h"
#include "ipcbw_sizes.h"
#include "timeutil.h"
#include "xalloc.h"

/* The mechanisms a one-way stream makes sense over (no datagrams: a lost
 * or cut datagram is not bandwidth). Indexed by the option's value. */
static const char *const ipcbw_vias[] = { "pipe",        "fifo", "posixmq", "sysvmq",
					  "unix-stream", "tcp",  NULL };
static const int ipcbw_via_ids[] = { IPC_VIA_PIPE,   IPC_VIA_FIFO,        IPC_VIA_POSIXMQ,
				     IPC_VIA_SYSVMQ, IPC_VIA_UNIX_STREAM, IPC_VIA_TCP };

#define IPCBW_SOCKBUF (1024 * 1024) /* bw_tcp's SO_SNDBUF and SO_RCVBUF */
#define IPCBW_MQ_DEPTH 10           /* messages a POSIX queue holds, at most */

struct ipcbw_config {
	int64_t every_ms;
	int via;
	struct ipcbw_sizes sizes;
	long total_kib;
};

/* clang-format off */
static const struct option_def ipcbw_options[] = {
	{ "every", OPT_DURATION, offsetof(struct ipcbw_config, every_ms), "2s", 10, 3600000,
	  NULL, NULL, "one pass over every size per slot of this length; missed slots are counted" },
	{ "via", OPT_ENUM, offsetof(struct ipcbw_config, via), "pipe", 0, 0, ipcbw_vias, NULL,
	  "the mechanism: pipe, fifo, posixmq (mq_send), sysvmq (msgsnd), unix-stream, or tcp "
	  "on 127.0.0.1" },
	{ "sizes", OPT_CUSTOM, offsetof(struct ipcbw_config, sizes), "1K-64K", 0, 0, NULL,
	  ipcbw_sizes_parse,
	  "message sizes, up to 16 of them: a list (1K, 4K, 64K) or a range of powers of two "
	  "(1K-1M); each 1 byte to 1M" },
	{ "total", OPT_INT, offsetof(struct ipcbw_config, total_kib), "10240", 64, 1048576,
	  NULL, NULL,
	  "KiB timed per size and slot (lmbench moves 10 MiB), after a quarter of it untimed" },
	{ NULL },
};
/* clang-format on */

struct ipcbw_state {
	int via; /* enum ipc_via */
	struct ipcbw_sizes sizes;
	long limit;         /* the largest message via carries, 0: none */
	const char *sysctl; /* that sets it */
	size_t total;       /* bytes timed per size */
	int64_t every_ms;
	char *dir;   /* scratch dir of the FIFOs */
	long serial; /* of the channel, for unique names */
	long mq_depth;
	char *buf; /* the largest size, after the mtype slot */
	struct ipc_objects *reg;
};

/* The writer child: messages without pause until it is killed or the
 * channel goes. Only system calls, safe after fork in a threaded process. */
static void ipcbw_writer(const struct ipc_chan *ch, char *buf, size_t size)
{
	while (ipc_send(ch, ch->c_out, 1, buf, size) == 0)
		;
}

/* Reads `want` bytes in receives of at most size (a stream's read may give
 * less, as bw_pipe's does); -1 on EOF or error. */
static int receive_bytes(const struct ipc_chan *ch, char *buf, size_t size, size_t want)
{
	for (size_t done = 0; done < want;) {
		ssize_t n = ipc_recv_some(ch, ch->p_in, 1, buf, size);

		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static int chan_for(struct ipcbw_state *st, size_t size, struct ipc_chan *ch, char **err)
{
	struct ipc_chan_spec spec = { .via = st->via,
				      .size = size,
				      .depth = st->mq_depth,
				      .sockbuf = IPCBW_SOCKBUF,
				      .dir = st->dir,
				      .reg = st->reg,
				      .serial = ++st->serial };

	return ipc_chan_open(ch, &spec, err);
}

/* A System V queue holds kernel.msgmnb bytes; a message bigger than that
 * would wait for ever. Make room for two (allowed to root), or say why not. */
static int sysv_room(const struct ipc_chan *ch, size_t size, char **err)
{
	struct msqid_ds ds;

	if (msgctl(ch->msqid, IPC_STAT, &ds) < 0 || ds.msg_qbytes >= 2 * size)
		return 0;
	ds.msg_qbytes = 2 * size;
	if (msgctl(ch->msqid, IPC_SET, &ds) == 0)
		return 0;
	*err = xasprintf("sysvmq: a queue of kernel.msgmnb bytes cannot hold two messages of %zu "
			 "bytes, and raising it was refused: %s",
			 size, strerror(errno));
	return -1;
}

/* Times `total` bytes of messages of `size`: 0 with s->value in MB/s, -1
 * with *err. */
static int ipcbw_one(struct ipcbw_state *st, size_t size, struct sample *s, char **err)
{
	struct ipc_chan ch;
	int64_t t0 = 0, t1 = 0;
	int rc, status;
	pid_t pid;

	if (chan_for(st, size, &ch, err) < 0) {
		ipc_objects_clear(st->reg);
		return -1;
	}
	if (st->via == IPC_VIA_SYSVMQ && sysv_room(&ch, size, err) < 0) {
		ipc_chan_close(&ch);
		ipc_objects_clear(st->reg);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		ipc_chan_close(&ch);
		ipc_objects_clear(st->reg);
		return -1;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		ipcbw_writer(&ch, st->buf, size);
		_exit(0);
	}
	rc = receive_bytes(&ch, st->buf, size, st->total / 4);
	if (rc == 0) {
		t0 = mono_ns();
		rc = receive_bytes(&ch, st->buf, size, st->total);
		t1 = mono_ns();
	}
	if (rc < 0)
		*err = xasprintf("%s: receiving %zu-byte messages failed: %s",
				 ipc_via_names[st->via], size, strerror(errno));
	kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ipc_chan_close(&ch);
	ipc_objects_clear(st->reg);
	if (rc == 0) {
		s->wall_ms = (double)(t1 - t0) / NSEC_PER_MSEC;
		s->value = (double)st->total / 1e6 / ((double)(t1 - t0) / NSEC_PER_SEC);
	}
	return rc;
}

/* Every size once, a sample each; false when interrupted. */
static bool ipcbw_pass(struct ipcbw_state *st, struct probe_ctx *c, const struct probe_window *w,
		       int64_t seq, int64_t missed)
{
	for (int i = 0; i < st->sizes.n; i++) {
		size_t size = (size_t)st->sizes.bytes[i];
		struct sample s = { .phase_id = w->phase_id,
				    .seq = seq,
				    .missed = i == 0 ? missed : 0,
				    .variant = i,
				    .started_at = wall_now(),
				    .wall_ms = NAN,
				    .value = NAN };
		char *err = NULL;

		if (probe_interrupted(c))
			return false;
		if (st->limit > 0 && (long)size > st->limit)
			s.over_limit = st->limit; /* not tried: no value, not failed */
		else if (ipcbw_one(st, size, &s, &err) < 0) {
			s.failed = true;
			s.exit_code = 1;
			probe_complain(c, err);
		}
		probe_emit_sample(c, &s);
	}
	return true;
}

static void ipcbw_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct ipcbw_state *st = state;
	int64_t every_ns = st->every_ms * NSEC_PER_MSEC, nslots = 0, missed = 0;

	if (w->end_ns > w->start_ns)
		nslots = (w->end_ns - w->start_ns + every_ns - 1) / every_ns;
	for (int64_t k = 0, next; k < nslots; k = next) {
		if (probe_wait_until(c, w->start_ns + k * every_ns) < 0 ||
		    !ipcbw_pass(st, c, w, k, missed))
			return;
		/* a pass past its slot starts the next at the first free one */
		next = k + 1;
		if (mono_ns() > w->start_ns + next * every_ns)
			next = (mono_ns() - w->start_ns + every_ns - 1) / every_ns;
		if (next >= nslots)
			probe_set_done_missed(c, nslots - k - 1);
		missed = next - k - 1;
	}
}

static void ipcbw_close(void *state)
{
	struct ipcbw_state *st = state;

	if (st->dir != NULL)
		rmdir(st->dir);
	ipc_objects_close(st->reg);
	free(st->dir);
	free(st->buf);
	free(st);
}

static void *ipcbw_open(const void *config, const struct probe_env *env, char **err)
{
	const struct ipcbw_config *cfg = config;
	struct ipcbw_state *st = xcalloc(1, sizeof *st);
	struct ipc_limits limits;
	long largest = ipcbw_sizes_max(&cfg->sizes);

	st->via = ipcbw_via_ids[cfg->via];
	st->sizes = cfg->sizes;
	st->total = (size_t)cfg->total_kib * 1024;
	st->every_ms = cfg->every_ms;
	ipc_limits_read("/proc", &limits);
	st->limit = ipc_limit_for(&limits, ipc_via_names[st->via], &st->sysctl);
	st->mq_depth = limits.mq_msg_max > 0 && limits.mq_msg_max < IPCBW_MQ_DEPTH
			       ? limits.mq_msg_max
			       : IPCBW_MQ_DEPTH;
	st->buf = xcalloc(1, IPC_MSG_OFFSET + (size_t)largest);
	memset(st->buf + IPC_MSG_OFFSET, 'x', (size_t)largest);
	if ((st->reg = ipc_objects_open(env->workdir, env->name, err)) == NULL) {
		ipcbw_close(st);
		return NULL;
	}
	if (st->via == IPC_VIA_FIFO) {
		st->dir = xasprintf("%s/probe-%s", env->workdir ? env->workdir : ".", env->name);
		if (mkdir(st->dir, 0700) < 0 && errno != EEXIST) {
			*err = xasprintf("cannot make %s: %s", st->dir, strerror(errno));
			ipcbw_close(st);
			return NULL;
		}
	}
	return st;
}

static void ipcbw_describe(const void *config, char *buf, size_t len)
{
	const struct ipcbw_config *cfg = config;
	struct ipc_limits limits;
	const char *sysctl;
	char every[32], sizes[160], over[120] = "";
	long limit;

	ipc_limits_read("/proc", &limits);
	limit = ipc_limit_for(&limits, ipcbw_vias[cfg->via], &sysctl);
	if (limit > 0 && ipcbw_sizes_max(&cfg->sizes) > limit)
		snprintf(over, sizeof over, "; sizes over the limit %ld (%s) are not tried", limit,
			 sysctl);
	format_ms(cfg->every_ms, every, sizeof every);
	ipcbw_sizes_format(&cfg->sizes, sizes, sizeof sizes);
	snprintf(buf, len, "%ld KiB one way over %s in messages of %s every %s%s", cfg->total_kib,
		 ipcbw_vias[cfg->via], sizes, every, over);
}

/* "64K": the size of a sample's variant, from the sizes the probe's options
 * (as stored with its run) list. */
static void ipcbw_variant_label(const char *options_text, int variant, char *buf, size_t len)
{
	struct ipcbw_sizes sizes = { 0 };
	const char *err, *line = options_text;
	char value[256] = "1K-64K"; /* the option's default */

	while (line != NULL && sscanf(line, " sizes = %255[^\n]", value) != 1) {
		line = strchr(line, '\n');
		line = line != NULL ? line + 1 : NULL;
	}
	if (ipcbw_sizes_parse(value, &sizes, &err) < 0 || variant < 0 || variant >= sizes.n)
		snprintf(buf, len, "size %d", variant);
	else
		ipcbw_size_label(sizes.bytes[variant], buf, len);
}

/* A size the mechanism cannot carry, in its table's cell. */
static void ipcbw_note(const struct sample *s, char *buf, size_t len)
{
	if (s->over_limit > 0)
		snprintf(buf, len, "over the limit %lld", (long long)s->over_limit);
}

/* The IPC appendix's bandwidth table: message sizes as rows, mechanisms as
 * columns. */
static const struct study_place ipcbw_study[] = {
	{ .table = "IPC bandwidth: MB/s one way (ipcbw)",
	  .rows = "message size",
	  .row = "{variant}",
	  .column = "{via}",
	  .unit = "MB/s",
	  .variant_label = ipcbw_variant_label,
	  .note = ipcbw_note },
	{ 0 },
};

const struct probe_ops probe_ipcbw_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "ipcbw",
	.summary = "IPC bandwidth: MB/s one way between two processes over a pipe, FIFO, POSIX "
		   "or System V queue, Unix stream or loopback TCP socket, a sample per message "
		   "size (variant = the size's place in sizes)",
	.options = ipcbw_options,
	.config_size = sizeof(struct ipcbw_config),
	.units = "MB/s",
	.open = ipcbw_open,
	.run = ipcbw_run,
	.close = ipcbw_close,
	.describe = ipcbw_describe,
	.study = ipcbw_study,
};
