// SPDX-License-Identifier: GPL-2.0-or-later
/* The chat relay in its two shapes: one libevent loop serving every
 * connection (bufferevents; a member with too much unsent pauses its room's
 * reading), or VolanoMark's own, a thread per connection that reads a
 * message and writes it to each other member in turn (a slow reader blocks
 * the writer, which stops reading its sender). Either way the server holds
 * a bounded amount per connection. */
#include "chat_server.h"

#include <arpa/inet.h>
#include <errno.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <fcntl.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <pthread.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "xalloc.h"

#define CHAT_THREAD_STACK (256 * 1024)

struct chat_conn {
	struct chat_server *s;
	int fd;
	long room; /* -1 until joined */
	/* event */
	struct bufferevent *bev;
	bool congested;
	/* threads */
	pthread_t thread;
	bool running;
	pthread_mutex_t write_lock; /* one writer at a time on fd */
};

struct chat_room {
	struct chat_conn **members;
	long n;
	long congested;       /* event: members over CHAT_SERVER_OUT_MAX */
	pthread_mutex_t lock; /* threads: guards members and n */
};

struct chat_server {
	int mode;
	long nrooms, users, nconns;
	size_t size;
	int listen_fd;
	int quit[2]; /* written once by chat_server_stop */
	struct sockaddr_in addr;
	struct chat_room *rooms;
	struct chat_conn *conns;
	long accepted;
	pthread_t thread; /* the event loop, or the threads mode's acceptor */
	bool thread_started;
	struct event_base *base;
};

static void set_nodelay(int fd)
{
	int one = 1;

	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
}

/* The room a JOIN names, with room for one more; NULL for a bad join. */
static struct chat_room *join_room(struct chat_server *s, const struct chat_frame *f)
{
	if (f->kind != CHAT_JOIN || f->room >= (uint32_t)s->nrooms)
		return NULL;
	return &s->rooms[f->room];
}

/* ---- event: one loop ---- */

static void room_reading(struct chat_room *r, bool on)
{
	for (long i = 0; i < r->n; i++) {
		if (r->members[i]->bev == NULL)
			continue;
		if (on)
			bufferevent_enable(r->members[i]->bev, EV_READ);
		else
			bufferevent_disable(r->members[i]->bev, EV_READ);
	}
}

static void conn_uncongest(struct chat_conn *c)
{
	struct chat_room *r = &c->s->rooms[c->room];

	if (!c->congested)
		return;
	c->congested = false;
	if (--r->congested == 0)
		room_reading(r, true);
}

static void relay_event(struct chat_conn *from, const unsigned char *frame)
{
	struct chat_room *r = &from->s->rooms[from->room];

	for (long i = 0; i < r->n; i++) {
		struct chat_conn *m = r->members[i];

		if (m == from || m->bev == NULL)
			continue;
		bufferevent_write(m->bev, frame, from->s->size);
		if (!m->congested &&
		    evbuffer_get_length(bufferevent_get_output(m->bev)) > CHAT_SERVER_OUT_MAX) {
			m->congested = true;
			if (r->congested++ == 0)
				room_reading(r, false);
		}
	}
}

static void conn_drop_event(struct chat_conn *c)
{
	if (c->room >= 0)
		conn_uncongest(c);
	bufferevent_free(c->bev);
	c->bev = NULL;
}

static void on_conn_read(struct bufferevent *bev, void *arg)
{
	struct chat_conn *c = arg;
	struct chat_server *s = c->s;
	struct evbuffer *in = bufferevent_get_input(bev);
	unsigned char *frame = xmalloc(s->size);

	/* every whole frame, even while the room is paused: what is already
	 * read is bounded, and it may be all a waiting sender has left */
	while (c->bev != NULL && evbuffer_get_length(in) >= s->size) {
		struct chat_frame f;

		evbuffer_remove(in, frame, s->size);
		memcpy(&f, frame, sizeof f);
		if (c->room >= 0 && f.kind == CHAT_TEXT) {
			relay_event(c, frame);
		} else if (c->room < 0 && join_room(s, &f) != NULL &&
			   s->rooms[f.room].n < s->users) {
			struct chat_room *r = &s->rooms[f.room];

			c->room = f.room;
			r->members[r->n++] = c;
			if (r->congested > 0)
				bufferevent_disable(bev, EV_READ);
			f.kind = CHAT_JOINED;
			memcpy(frame, &f, sizeof f);
			bufferevent_write(bev, frame, s->size);
		} else {
			conn_drop_event(c); /* a frame out of protocol */
		}
	}
	free(frame);
}

/* Down to half of CHAT_SERVER_OUT_MAX: the room may read again. */
static void on_conn_drained(struct bufferevent *bev, void *arg)
{
	struct chat_conn *c = arg;

	(void)bev;
	if (c->room >= 0)
		conn_uncongest(c);
}

static void on_conn_event(struct bufferevent *bev, short what, void *arg)
{
	(void)bev;
	if (what & (BEV_EVENT_EOF | BEV_EVENT_ERROR))
		conn_drop_event(arg);
}

static void on_accept(evutil_socket_t fd, short what, void *arg)
{
	struct chat_server *s = arg;
	struct chat_conn *c;
	int cfd = accept4(fd, NULL, NULL, SOCK_CLOEXEC | SOCK_NONBLOCK);

	(void)what;
	if (cfd < 0)
		return;
	if (s->accepted == s->nconns) {
		close(cfd); /* more than the rooms hold */
		return;
	}
	set_nodelay(cfd);
	c = &s->conns[s->accepted];
	c->bev = bufferevent_socket_new(s->base, cfd, BEV_OPT_CLOSE_ON_FREE);
	if (c->bev == NULL) {
		close(cfd);
		return;
	}
	s->accepted++;
	bufferevent_setcb(c->bev, on_conn_read, on_conn_drained, on_conn_event, c);
	bufferevent_setwatermark(c->bev, EV_WRITE, CHAT_SERVER_OUT_MAX / 2, 0);
	bufferevent_enable(c->bev, EV_READ);
}

static void on_quit(evutil_socket_t fd, short what, void *arg)
{
	(void)fd;
	(void)what;
	event_base_loopbreak(arg);
}

static void *event_server(void *arg)
{
	struct chat_server *s = arg;
	struct event *ev_accept = event_new(s->base, s->listen_fd, EV_READ | EV_PERSIST, on_accept,
					    s);
	struct event *ev_quit = event_new(s->base, s->quit[0], EV_READ, on_quit, s->base);

	if (ev_accept != NULL && ev_quit != NULL) {
		event_add(ev_accept, NULL);
		event_add(ev_quit, NULL);
		event_base_dispatch(s->base);
	}
	if (ev_accept != NULL)
		event_free(ev_accept);
	if (ev_quit != NULL)
		event_free(ev_quit);
	for (long i = 0; i < s->accepted; i++)
		if (s->conns[i].bev != NULL)
			bufferevent_free(s->conns[i].bev);
	return NULL;
}

/* ---- threads: one per connection ---- */

static int read_frame(int fd, unsigned char *buf, size_t size)
{
	for (size_t done = 0; done < size;) {
		ssize_t n = read(fd, buf + done, size - done);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		done += (size_t)n;
	}
	return 0;
}

static int write_frame(struct chat_conn *c, const unsigned char *buf, size_t size)
{
	int rc = 0;

	pthread_mutex_lock(&c->write_lock);
	for (size_t done = 0; done < size;) {
		ssize_t n = send(c->fd, buf + done, size - done, MSG_NOSIGNAL);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0) {
			rc = -1;
			break;
		}
		done += (size_t)n;
	}
	pthread_mutex_unlock(&c->write_lock);
	return rc;
}

/* Writes to each other member in turn, as VolanoMark's server did. The
 * members are fixed once every user has joined, before the first message. */
static void relay_threads(struct chat_conn *from, const unsigned char *frame)
{
	struct chat_room *r = &from->s->rooms[from->room];
	long n;

	pthread_mutex_lock(&r->lock);
	n = r->n;
	pthread_mutex_unlock(&r->lock);
	for (long i = 0; i < n; i++)
		if (r->members[i] != from)
			write_frame(r->members[i], frame, from->s->size); /* a gone reader: skip */
}

static void *conn_thread(void *arg)
{
	struct chat_conn *c = arg;
	struct chat_server *s = c->s;
	unsigned char *frame = xmalloc(s->size);
	struct chat_frame f;

	while (read_frame(c->fd, frame, s->size) == 0) {
		memcpy(&f, frame, sizeof f);
		if (c->room >= 0 && f.kind == CHAT_TEXT) {
			relay_threads(c, frame);
			continue;
		}
		if (c->room >= 0 || join_room(s, &f) == NULL)
			break;
		struct chat_room *r = &s->rooms[f.room];
		bool in = false;

		pthread_mutex_lock(&r->lock);
		if (r->n < s->users) {
			r->members[r->n++] = c;
			in = true;
		}
		pthread_mutex_unlock(&r->lock);
		if (!in)
			break;
		c->room = f.room;
		f.kind = CHAT_JOINED;
		memcpy(frame, &f, sizeof f);
		if (write_frame(c, frame, s->size) < 0)
			break;
	}
	free(frame);
	return NULL;
}

static void *thread_acceptor(void *arg)
{
	struct chat_server *s = arg;
	pthread_attr_t attr;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, CHAT_THREAD_STACK);
	while (s->accepted < s->nconns) {
		struct pollfd pfd[2] = { { s->listen_fd, POLLIN, 0 }, { s->quit[0], POLLIN, 0 } };
		struct chat_conn *c = &s->conns[s->accepted];

		if (poll(pfd, 2, -1) < 0 && errno != EINTR)
			break;
		if (pfd[1].revents)
			break;
		if (!(pfd[0].revents & POLLIN))
			continue;
		c->fd = accept4(s->listen_fd, NULL, NULL, SOCK_CLOEXEC);
		if (c->fd < 0)
			continue;
		set_nodelay(c->fd);
		if (pthread_create(&c->thread, &attr, conn_thread, c) != 0) {
			close(c->fd);
			c->fd = -1;
			continue;
		}
		c->running = true;
		s->accepted++;
	}
	pthread_attr_destroy(&attr);
	return NULL;
}

static void stop_threads(struct chat_server *s)
{
	/* every blocked read or write of a connection's thread returns */
	for (long i = 0; i < s->accepted; i++)
		shutdown(s->conns[i].fd, SHUT_RDWR);
	for (long i = 0; i < s->accepted; i++) {
		if (s->conns[i].running)
			pthread_join(s->conns[i].thread, NULL);
		close(s->conns[i].fd);
	}
}

/* ---- both ---- */

static int listen_loopback(struct chat_server *s)
{
	socklen_t len = sizeof s->addr;

	s->addr = (struct sockaddr_in){ .sin_family = AF_INET,
					.sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	s->listen_fd = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s->listen_fd < 0 ||
	    bind(s->listen_fd, (struct sockaddr *)&s->addr, sizeof s->addr) < 0 ||
	    getsockname(s->listen_fd, (struct sockaddr *)&s->addr, &len) < 0 ||
	    listen(s->listen_fd, (int)s->nconns) < 0)
		return -1;
	return s->mode == CHAT_SERVER_EVENT ? evutil_make_socket_nonblocking(s->listen_fd) : 0;
}

static void chat_server_free(struct chat_server *s)
{
	if (s->listen_fd >= 0)
		close(s->listen_fd);
	for (int i = 0; i < 2; i++)
		if (s->quit[i] >= 0)
			close(s->quit[i]);
	for (long i = 0; i < s->nrooms; i++) {
		pthread_mutex_destroy(&s->rooms[i].lock);
		free(s->rooms[i].members);
	}
	for (long i = 0; i < s->nconns; i++)
		pthread_mutex_destroy(&s->conns[i].write_lock);
	if (s->base != NULL)
		event_base_free(s->base);
	free(s->rooms);
	free(s->conns);
	free(s);
}

struct chat_server *chat_server_start(int mode, long rooms, long users, size_t size, char **err)
{
	struct chat_server *s = xcalloc(1, sizeof *s);
	int rc;

	*s = (struct chat_server){ .mode = mode,
				   .nrooms = rooms,
				   .users = users,
				   .nconns = rooms * users,
				   .size = size,
				   .listen_fd = -1,
				   .quit = { -1, -1 } };
	s->rooms = xcalloc((size_t)rooms, sizeof *s->rooms);
	for (long i = 0; i < rooms; i++) {
		s->rooms[i].members = xcalloc((size_t)users, sizeof *s->rooms[i].members);
		pthread_mutex_init(&s->rooms[i].lock, NULL);
	}
	s->conns = xcalloc((size_t)s->nconns, sizeof *s->conns);
	for (long i = 0; i < s->nconns; i++) {
		s->conns[i] = (struct chat_conn){ .s = s, .fd = -1, .room = -1 };
		pthread_mutex_init(&s->conns[i].write_lock, NULL);
	}
	if (pipe2(s->quit, O_CLOEXEC) < 0 || listen_loopback(s) < 0) {
		*err = xasprintf("chat server: cannot listen on 127.0.0.1: %s", strerror(errno));
		chat_server_free(s);
		return NULL;
	}
	if (mode == CHAT_SERVER_EVENT) {
		s->base = event_base_new();
		if (s->base == NULL) {
			*err = xstrdup("chat server: cannot make an event loop");
			chat_server_free(s);
			return NULL;
		}
	}
	rc = pthread_create(&s->thread, NULL,
			    mode == CHAT_SERVER_EVENT ? event_server : thread_acceptor, s);
	if (rc != 0) {
		*err = xasprintf("chat server: cannot start its thread: %s", strerror(rc));
		chat_server_free(s);
		return NULL;
	}
	s->thread_started = true;
	return s;
}

struct sockaddr_in chat_server_addr(const struct chat_server *s)
{
	return s->addr;
}

void chat_server_stop(struct chat_server *s)
{
	if (s == NULL)
		return;
	if (write(s->quit[1], "q", 1) < 0) {
		/* a pipe with room for a byte: cannot fail */
	}
	pthread_join(s->thread, NULL);
	if (s->mode == CHAT_SERVER_THREADS)
		stop_threads(s);
	chat_server_free(s);
}
