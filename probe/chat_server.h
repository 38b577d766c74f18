// SPDX-License-Identifier: GPL-2.0-or-later
/* The chat probe's server: a chat room relay on 127.0.0.1, the shape of
 * VolanoMark's. Every connection first joins a room; from then on each
 * message it sends is written to every other member of its room. Messages
 * are frames of one fixed size, a chat_frame header then filler text. */
#ifndef LOADD_CHAT_SERVER_H
#define LOADD_CHAT_SERVER_H

#include <netinet/in.h>
#include <stddef.h>
#include <stdint.h>

enum chat_frame_kind {
	CHAT_JOIN = 1,   /* client to server: I am user `user` of room `room` */
	CHAT_JOINED = 2, /* server to client: you are in */
	CHAT_TEXT = 3,   /* a message, relayed to the room's other members */
};

struct chat_frame {
	uint32_t kind;
	uint32_t room;
	uint32_t user;   /* the sender's number, over all rooms */
	uint32_t unused; /* zero */
	int64_t sent_ns; /* CLOCK_MONOTONIC when the sender wrote it */
};

#define CHAT_FRAME_MIN ((long)sizeof(struct chat_frame))

enum chat_server_mode {
	CHAT_SERVER_EVENT,   /* one libevent loop in a thread of its own */
	CHAT_SERVER_THREADS, /* a thread per connection, blocking writes */
};

/* The event server stops reading from a room while a member has more than
 * this much unsent, and starts again when that member is down to half: a
 * slow reader holds its room back, it never makes the server grow. */
#define CHAT_SERVER_OUT_MAX (64 * 1024)

struct chat_server;

/* Listens on 127.0.0.1, port chosen by the system, for rooms * users
 * connections sending frames of `size` bytes, and serves them until
 * chat_server_stop(). NULL with *err (xmalloc'd) when it cannot. */
struct chat_server *chat_server_start(int mode, long rooms, long users, size_t size, char **err);
/* Where clients connect. */
struct sockaddr_in chat_server_addr(const struct chat_server *s);
/* Stops serving, joins every thread of it, closes every socket, frees s. */
void chat_server_stop(struct chat_server *s);

#endif
