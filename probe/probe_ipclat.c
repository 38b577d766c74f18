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

#include <errno.h>
#include <math.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "ipc_channel.h"
#include "ipc_limits.h"
#include "ipc_objects.h"
#include "timeutil.h"
#include "xalloc.h"

#define IPC_QUIT 'q' /* first byte of the message that ends the child */
#define IPC_DATA 'x'

struct ipclat_config {
	struct probe_every every;
	int via;
	long size;
	long count;
};

/* clang-format off */
static const struct option_def ipclat_options[] = {
	PROBE_EVERY_OPTION(struct ipclat_config, "burst of `count` round trips"),
	{ "via", OPT_ENUM, offsetof(struct ipclat_config, via), "pipe", 0, 0, ipc_via_names, NULL,
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
	char *dir;   /* scratch dir of the FIFOs */
	long serial; /* of the sample, for unique names */
	char *buf;   /* size bytes, sysv: after its mtype */
	struct ipc_objects *reg;
};

/* The echo child: only system calls, safe after fork in a threaded process. */
static void ipc_echo(const struct ipc_chan *ch, char *buf, size_t size)
{
	while (ipc_recv(ch, ch->c_in, 1, buf, size) == 0) {
		if (ipc_send(ch, ch->c_out, 2, buf, size) < 0 || buf[IPC_MSG_OFFSET] == IPC_QUIT)
			break;
	}
}

static int chan_open(struct ipc_chan *ch, struct ipclat_state *st, char **err)
{
	struct ipc_chan_spec spec = { .via = st->via,
				      .size = st->size,
				      .depth = 1,
				      .nodelay = true,
				      .dir = st->dir,
				      .reg = st->reg,
				      .serial = ++st->serial };

	return ipc_chan_open(ch, &spec, err);
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
	memset(st->buf + IPC_MSG_OFFSET, IPC_DATA, st->size);
	pid = fork();
	if (pid < 0) {
		*err = xasprintf("fork: %s", strerror(errno));
		ipc_chan_close(&ch);
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
		*err = xasprintf("%s: a round trip failed: %s", ipc_via_names[st->via],
				 strerror(errno));
	st->buf[IPC_MSG_OFFSET] = IPC_QUIT;
	if (rc < 0 || ipc_send(&ch, ch.p_out, 1, st->buf, st->size) < 0)
		kill(pid, SIGKILL);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	ipc_chan_close(&ch);
	ipc_objects_clear(st->reg);
	return rc;
}

static int ipclat_measure(const void *config, void *state, const struct probe_window *w,
			  int stop_fd, struct sample *s, struct hist *h, char **err)
{
	return ipclat_sample(state, h, err) < 0 ? -1 : 0;
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
	struct ipc_limits limits;
	const char *sysctl;
	long limit;

	st->via = cfg->via;
	st->size = (size_t)cfg->size;
	st->count = cfg->count;
	st->buf = xcalloc(1, IPC_MSG_OFFSET + st->size);
	if ((st->reg = ipc_objects_open(env->workdir, env->name, err)) == NULL) {
		ipclat_close(st);
		return NULL;
	}
	ipc_limits_read("/proc", &limits);
	limit = ipc_limit_for(&limits, ipc_via_names[st->via], &sysctl);
	if (limit > 0 && cfg->size > limit) {
		*err = xasprintf("%s: size %ld is over the limit %ld (%s)", ipc_via_names[st->via],
				 cfg->size, limit, sysctl);
		ipclat_close(st);
		return NULL;
	}
	if (st->via == IPC_VIA_FIFO) {
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

	format_ms(cfg->every.every_ms, every, sizeof every);
	snprintf(buf, len, "%ld round trips of %ld bytes over %s every %s", cfg->count, cfg->size,
		 ipc_via_names[cfg->via], every);
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
	.close = ipclat_close,
	.describe = ipclat_describe,
	.study = ipclat_study,
	.measure = ipclat_measure,
};
