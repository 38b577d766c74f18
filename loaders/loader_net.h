// SPDX-License-Identifier: GPL-2.0-or-later
/* The net loader's two halves, apart so that each can be tested on its own:
 * a listening socket on 127.0.0.1, and a client that fetches the body once
 * and counts what came. */
#ifndef LOADD_LOADER_NET_H
#define LOADD_LOADER_NET_H

#include <stdbool.h>
#include <stdint.h>

#include "loader.h"

/* A listening TCP socket on 127.0.0.1 (never any other address) and a port
 * the kernel picks. Returns the fd (non-blocking, close-on-exec) and the port
 * in *port, or -1 with an xmalloc'd message in *err. */
int net_listen_loopback(uint16_t *port, char **err);

/* The server answers only this secret path ("/" and 32 hex digits, drawn
 * afresh for each server): any local user can reach 127.0.0.1, and their
 * requests must not count as the load's. 0, or -1 with errno. */
#define NET_SECRET_PATH_LEN 33
int net_secret_path(char out[NET_SECRET_PATH_LEN + 1]);

struct net_client;

/* A client of http://127.0.0.1:port + path expecting body_bytes in each
 * reply. keepalive reuses the connection; otherwise each transfer opens a
 * new one and closes it. NULL with *err when libcurl cannot be set up. */
struct net_client *net_client_new(uint16_t port, const char *path, uint64_t body_bytes,
				  bool keepalive, char **err);
/* One transfer of the whole body. A whole body counts in shm as a cycle, its
 * bytes and the connections it opened; anything else (no connection, a bad
 * status, a short or long body) counts as an error. Returns 0, or -1 with the
 * reason in errbuf. */
int net_client_fetch(struct net_client *c, struct loader_shm *shm, char *errbuf, size_t len);
void net_client_free(struct net_client *c);

#endif
