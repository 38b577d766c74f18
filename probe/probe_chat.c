// SPDX-License-Identifier: GPL-2.0-or-later
/* The chat probe: VolanoMark's whole-system figure, messages delivered per
 * second by a chat server, built on libevent. Every slot it starts a server
 * on 127.0.0.1 (chat_server.c: one event loop, or a thread per connection
 * as VolanoMark's server had), connects `rooms` x `users` users to it from
 * one event loop in the prober's thread, and lets them chat for `duration`:
 * each user sends at `rate` (or as fast as its `window` of messages in
 * flight allows) and the server writes every message to every other member
 * of its room. Each delivery is timed from the stamp its sender put in it
 * into the sample's histogram; the sample's figure is deliveries per second.
 * Nothing outlives the sample: sockets closed, server threads joined. */
#include "probe.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <math.h>
#include <netinet/tcp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "chat_server.h"
#include "fd_limit.h"
#include "timeutil.h"
#include "xalloc.h"

#define CHAT_MAX_CONNS 512
#define CHAT_JOIN_NS (5 * NSEC_PER_SEC)  /* every user must be in by then */
#define CHAT_DRAIN_NS (2 * NSEC_PER_SEC) /* after the chat, for the last deliveries */
#define CHAT_FD_SPARE 256                /* loadd's own files beside the chat's */

static const char *const chat_servers[] = { "event", "threads", NULL };

struct chat_config {
	int64_t every_ms;
	int64_t duration_ms;
	int server;
	long rooms;
	long users;
	long rate;
	long window;
	long size;
};

/* clang-format off */
static const struct option_def chat_options[] = {
	{ "every", OPT_DURATION, offsetof(struct chat_config, every_ms), "2s", 100, 3600000,
	  NULL, NULL, "one sample per slot of this length; missed slots are counted" },
	{ "duration", OPT_DURATION, offsetof(struct chat_config, duration_ms), "1s", 10, 600000,
	  NULL, NULL, "how long the users chat in each sample" },
	{ "server", OPT_ENUM, offsetof(struct chat_config, server), "event", 0, 0, chat_servers,
	  NULL, "event: one libevent loop serves every connection; threads: a thread per "
	  "connection, as VolanoMark's server had" },
	{ "rooms", OPT_INT, offsetof(struct chat_config, rooms), "4", 1, CHAT_MAX_CONNS, NULL,
	  NULL, "chat rooms; rooms x users is at most 512 connections" },
	{ "users", OPT_INT, offsetof(struct chat_config, users), "8", 2, CHAT_MAX_CONNS, NULL,
	  NULL, "users (connections) in each room; each message goes to the other users - 1" },
	{ "rate", OPT_INT, offsetof(struct chat_config, rate), "0", 0, 100000, NULL, NULL,
	  "messages per second each user sends; 0: as fast as its window allows" },
	{ "window", OPT_INT, offsetof(struct chat_config, window), "1", 1, 64, NULL, NULL,
	  "messages a user may have in flight (sent, not yet delivered to every other "
	  "member); it waits for one to arrive everywhere before sending more" },
	{ "size", OPT_INT, offsetof(struct chat_config, size), "64", CHAT_FRAME_MIN, 4096, NULL,
	  NULL, "bytes of each message, its 24-byte header included" },
	{ NULL },
};
/* clang-format on */

static int chat_check(const void *config, const char *file, int line, FILE *errs)
{
	const struct chat_config *cfg = config;

	if (cfg->rooms * cfg->users > CHAT_MAX_CONNS) {
		fprintf(errs, "%s:%d: rooms x users = %ld connections; at most %d\n", file, line,
			cfg->rooms * cfg->users, CHAT_MAX_CONNS);
		return 1;
	}
	return 0;
}

struct chat_state {
	struct chat_config cfg;
	struct probe_ctx *ctx; /* for the histogram beside each sample */
};

struct chat_user;

/* One sample's client side: every user's connection on one event loop. */
struct chat_clients {
	const struct chat_config *cfg;
	struct event_base *base;
	struct chat_user *users;
	long n;
	unsigned char *frame;
	long joined;
	bool sending;
	int64_t start_ns, last_ns;
	long sent, delivered;
	struct hist *hist;
	const char *failure; /* what went wrong, or NULL */
	bool stopped;
};

struct chat_user {
	struct chat_clients *cl;
	struct bufferevent *bev;
	struct event *tick; /* rate: the next message is due */
	long index;
	long sent;
	long got; /* deliveries of its messages to the others */
	long due; /* rate: messages due, not yet sent */
	int64_t next_ns;
};

static long chat_others(const struct chat_clients *cl)
{
	return cl->cfg->users - 1;
}

static bool chat_all_delivered(const struct chat_clients *cl)
{
	return cl->delivered == cl->sent * chat_others(cl);
}

static void chat_send(struct chat_user *u)
{
	struct chat_clients *cl = u->cl;
	struct chat_frame f = { .kind = CHAT_TEXT,
				.room = (uint32_t)(u->index / cl->cfg->users),
				.user = (uint32_t)u->index,
				.sent_ns = mono_ns() };

	memcpy(cl->frame, &f, sizeof f);
	bufferevent_write(u->bev, cl->frame, (size_t)cl->cfg->size);
	u->sent++;
	cl->sent++;
}

/* Sends while the window has room (and, with a rate, a message is due). */
static void chat_try_send(struct chat_user *u)
{
	struct chat_clients *cl = u->cl;
	long others = chat_others(cl);

	while (cl->sending && (u->sent * others - u->got) < cl->cfg->window * others &&
	       (cl->cfg->rate == 0 || u->due > 0)) {
		chat_send(u);
		if (cl->cfg->rate > 0)
			u->due--;
	}
}

static void chat_fail(struct chat_clients *cl, const char *why)
{
	if (cl->failure == NULL)
		cl->failure = why;
	event_base_loopbreak(cl->base);
}

static void on_user_due(evutil_socket_t fd, short what, void *arg)
{
	struct chat_user *u = arg;
	int64_t period = NSEC_PER_SEC / u->cl->cfg->rate, wait;
	struct timeval tv;

	(void)fd;
	(void)what;
	if (!u->cl->sending)
		return;
	/* a user held back by its window does not pile up a backlog */
	if (u->due < u->cl->cfg->window)
		u->due++;
	chat_try_send(u);
	u->next_ns += period;
	wait = u->next_ns - mono_ns();
	if (wait < 0)
		wait = 0;
	tv = (struct timeval){ .tv_sec = wait / NSEC_PER_SEC,
			       .tv_usec = wait % NSEC_PER_SEC / 1000 };
	evtimer_add(u->tick, &tv);
}

static void chat_begin(struct chat_clients *cl)
{
	cl->sending = true;
	cl->start_ns = cl->last_ns = mono_ns();
	for (long i = 0; i < cl->n; i++) {
		struct chat_user *u = &cl->users[i];

		if (cl->cfg->rate == 0) {
			chat_try_send(u);
			continue;
		}
		/* spread the users over one period, not all at its start */
		int64_t offset = NSEC_PER_SEC / cl->cfg->rate * i / cl->n;
		struct timeval tv = { .tv_sec = offset / NSEC_PER_SEC,
				      .tv_usec = offset % NSEC_PER_SEC / 1000 };

		u->next_ns = cl->start_ns + offset;
		evtimer_add(u->tick, &tv);
	}
}

static void on_user_read(struct bufferevent *bev, void *arg)
{
	struct chat_user *u = arg;
	struct chat_clients *cl = u->cl;
	struct evbuffer *in = bufferevent_get_input(bev);
	size_t size = (size_t)cl->cfg->size;

	while (evbuffer_get_length(in) >= size) {
		struct chat_frame f;
		int64_t now;

		evbuffer_remove(in, cl->frame, size);
		memcpy(&f, cl->frame, sizeof f);
		if (f.kind == CHAT_JOINED) {
			if (++cl->joined == cl->n)
				chat_begin(cl);
			continue;
		}
		if (f.kind != CHAT_TEXT || f.user >= (uint32_t)cl->n || f.user == u->index) {
			chat_fail(cl, "a frame out of protocol from the server");
			return;
		}
		now = mono_ns();
		hist_add(cl->hist, (uint64_t)(now - f.sent_ns));
		cl->delivered++;
		cl->last_ns = now;
		cl->users[f.user].got++;
		chat_try_send(&cl->users[f.user]);
		if (!cl->sending && chat_all_delivered(cl))
			event_base_loopbreak(cl->base);
	}
}

static void on_user_event(struct bufferevent *bev, short what, void *arg)
{
	struct chat_user *u = arg;

	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		chat_fail(u->cl, "the server closed a user's connection");
}

static void on_chat_end(evutil_socket_t fd, short what, void *arg)
{
	struct chat_clients *cl = arg;

	(void)fd;
	(void)what;
	cl->sending = false;
	if (chat_all_delivered(cl))
		event_base_loopbreak(cl->base);
}

static void on_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct chat_clients *cl = arg;

	(void)fd;
	(void)what;
	chat_fail(cl, cl->joined < cl->n ? "the users could not all join in 5s"
					 : "messages still undelivered 2s after the chat");
}

static void on_stop(evutil_socket_t fd, short what, void *arg)
{
	struct chat_clients *cl = arg;

	(void)fd;
	(void)what;
	cl->stopped = true;
	event_base_loopbreak(cl->base);
}

/* Connects user i and asks to join its room. */
static int chat_connect(struct chat_clients *cl, long i, const struct sockaddr_in *addr)
{
	struct chat_user *u = &cl->users[i];
	struct chat_frame f = { .kind = CHAT_JOIN,
				.room = (uint32_t)(i / cl->cfg->users),
				.user = (uint32_t)i };
	int one = 1, fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);

	if (fd < 0)
		return -1;
	if (connect(fd, (const struct sockaddr *)addr, sizeof *addr) < 0 ||
	    evutil_make_socket_nonblocking(fd) < 0) {
		close(fd);
		return -1;
	}
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	u->bev = bufferevent_socket_new(cl->base, fd, BEV_OPT_CLOSE_ON_FREE);
	if (u->bev == NULL) {
		close(fd);
		return -1;
	}
	bufferevent_setcb(u->bev, on_user_read, NULL, on_user_event, u);
	bufferevent_enable(u->bev, EV_READ);
	memcpy(cl->frame, &f, sizeof f);
	return bufferevent_write(u->bev, cl->frame, (size_t)cl->cfg->size);
}

static void clients_free(struct chat_clients *cl)
{
	for (long i = 0; i < cl->n; i++) {
		if (cl->users[i].tick != NULL)
			event_free(cl->users[i].tick);
		if (cl->users[i].bev != NULL)
			bufferevent_free(cl->users[i].bev);
	}
	free(cl->users);
	free(cl->frame);
}

static struct timeval tv_of_ns(int64_t ns)
{
	return (struct timeval){ .tv_sec = ns / NSEC_PER_SEC, .tv_usec = ns % NSEC_PER_SEC / 1000 };
}

/* Connects every user, chats for the duration and waits for the last
 * deliveries. 0, or -1 with *err. */
static int chat_clients_run(struct chat_clients *cl, const struct sockaddr_in *addr, int stop_fd,
			    char **err)
{
	struct event *end = evtimer_new(cl->base, on_chat_end, cl);
	struct event *deadline = evtimer_new(cl->base, on_deadline, cl);
	struct event *stop = event_new(cl->base, stop_fd, EV_READ, on_stop, cl);
	struct timeval tv;
	int rc = 0;

	if (end == NULL || deadline == NULL || stop == NULL) {
		*err = xstrdup("cannot make the clients' events");
		rc = -1;
		goto out;
	}
	event_add(stop, NULL);
	tv = tv_of_ns(CHAT_JOIN_NS);
	event_add(deadline, &tv);
	for (long i = 0; i < cl->n && rc == 0; i++) {
		cl->users[i].tick = evtimer_new(cl->base, on_user_due, &cl->users[i]);
		if (cl->users[i].tick == NULL || chat_connect(cl, i, addr) < 0) {
			*err = xasprintf("user %ld of %ld cannot connect to the server: %s", i + 1,
					 cl->n, strerror(errno));
			rc = -1;
		}
	}
	/* the chat's clock starts once everyone is in: the first loop run */
	while (rc == 0 && cl->joined < cl->n && cl->failure == NULL && !cl->stopped)
		event_base_loop(cl->base, EVLOOP_ONCE);
	if (rc == 0 && cl->sending) {
		tv = tv_of_ns(cl->cfg->duration_ms * NSEC_PER_MSEC);
		event_add(end, &tv);
		tv = tv_of_ns(cl->cfg->duration_ms * NSEC_PER_MSEC + CHAT_DRAIN_NS);
		event_add(deadline, &tv);
		event_base_dispatch(cl->base);
	}
	if (rc == 0 && cl->failure != NULL) {
		*err = xasprintf("%s (%ld sent, %ld of %ld deliveries)", cl->failure, cl->sent,
				 cl->delivered, cl->sent * chat_others(cl));
		rc = -1;
	}
out:
	if (end != NULL)
		event_free(end);
	if (deadline != NULL)
		event_free(deadline);
	if (stop != NULL)
		event_free(stop);
	return rc;
}

/* One sample: a server, its users, `duration` of chat. */
static int chat_measure(void *state, const struct probe_window *w, int stop_fd, struct sample *s,
			char **err)
{
	struct chat_state *st = state;
	const struct chat_config *cfg = &st->cfg;
	struct chat_clients cl = { .cfg = cfg, .n = cfg->rooms * cfg->users };
	struct chat_server *server;
	struct sockaddr_in addr;
	int rc;

	s->started_at = wall_now();
	server = chat_server_start(cfg->server, cfg->rooms, cfg->users, (size_t)cfg->size, err);
	if (server == NULL) {
		s->failed = true;
		return -1;
	}
	addr = chat_server_addr(server);
	cl.base = event_base_new();
	cl.users = xcalloc((size_t)cl.n, sizeof *cl.users);
	cl.frame = xcalloc(1, (size_t)cfg->size);
	cl.hist = xcalloc(1, sizeof *cl.hist);
	for (long i = 0; i < cl.n; i++)
		cl.users[i] = (struct chat_user){ .cl = &cl, .index = i };
	if (cl.base == NULL) {
		*err = xstrdup("cannot make the clients' event loop");
		rc = -1;
	} else {
		rc = chat_clients_run(&cl, &addr, stop_fd, err);
	}
	clients_free(&cl); /* the users' side closes first: the server sees EOF */
	chat_server_stop(server);
	if (cl.base != NULL)
		event_base_free(cl.base);
	if (cl.stopped) {
		free(cl.hist);
		return 1;
	}
	s->wall_ms = (double)(cl.last_ns - cl.start_ns) / NSEC_PER_MSEC;
	if (rc == 0 && cl.delivered > 0 && s->wall_ms > 0)
		s->value = (double)cl.delivered / (s->wall_ms / 1e3);
	else if (rc == 0) {
		*err = xstrdup("no message was delivered");
		rc = -1;
	}
	s->failed = rc < 0;
	if (cl.hist->count > 0)
		probe_emit_hist(st->ctx, w->phase_id, 0, s->started_at, NAN, cl.hist);
	else
		free(cl.hist);
	return rc;
}

static void *chat_open(const void *config, const struct probe_env *env, char **err)
{
	const struct chat_config *cfg = config;
	struct chat_state *st;
	rlim_t want = (rlim_t)(2 * cfg->rooms * cfg->users + CHAT_FD_SPARE), hard = 0;

	(void)env;
	/* both ends of every connection are loadd's */
	if (raise_fd_limit(want, &hard) < 0) {
		*err = xasprintf("%ld connections need %llu open files, and the limit is %llu: "
				 "raise it (ulimit -n, LimitNOFILE=) or chat with fewer users",
				 cfg->rooms * cfg->users, (unsigned long long)want,
				 (unsigned long long)hard);
		return NULL;
	}
	st = xcalloc(1, sizeof *st);
	st->cfg = *cfg;
	return st;
}

static void chat_run(void *state, struct probe_ctx *c, const struct probe_window *w)
{
	struct chat_state *st = state;

	st->ctx = c;
	probe_run_slots(c, w, st->cfg.every_ms, chat_measure, st);
}

static void chat_close(void *state)
{
	free(state);
}

static void chat_describe(const void *config, char *buf, size_t len)
{
	const struct chat_config *cfg = config;
	char every[32], duration[32], pace[64];

	format_ms(cfg->every_ms, every, sizeof every);
	format_ms(cfg->duration_ms, duration, sizeof duration);
	if (cfg->rate > 0)
		snprintf(pace, sizeof pace, "%ld messages/s each", cfg->rate);
	else
		snprintf(pace, sizeof pace, "as fast as a window of %ld allows", cfg->window);
	snprintf(buf, len, "%ld rooms of %ld users on a %s server, %s, %s of chat every %s",
		 cfg->rooms, cfg->users, cfg->server == CHAT_SERVER_EVENT ? "one-loop" : "threaded",
		 pace, duration, every);
}

/* VolanoMark's figure as its results printed it: messages delivered per
 * second, a row per server and a column per room layout. */
static const struct study_place chat_study[] = {
	{ .table = "Chat: messages delivered per second (chat)",
	  .rows = "server",
	  .row = "{server}",
	  .column = "{rooms} rooms x {users} users",
	  .unit = "msg/s" },
	{ 0 },
};

const struct probe_ops probe_chat_ops = {
	.version = PROBE_OPS_VERSION,
	.name = "chat",
	.summary = "VolanoMark's chat rooms on 127.0.0.1: messages delivered per second, each "
		   "delivery's latency in a histogram beside the sample",
	.options = chat_options,
	.config_size = sizeof(struct chat_config),
	.units = "msg/s",
	.check = chat_check,
	.open = chat_open,
	.run = chat_run,
	.close = chat_close,
	.describe = chat_describe,
	.study = chat_study,
};
