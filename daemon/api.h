// SPDX-License-Identifier: GPL-2.0-or-later
/* The control API: HTTP served by loadd's own event loop (libevent evhttp)
 * on a Unix socket, with JSON bodies, and optionally a read-only TCP
 * listener for Prometheus. Routes (API version 1):
 *
 *   GET  /v1/status  the run, its phase, each load's live counters, the
 *                    latest samples and system figures
 *   GET  /v1/runs    every run in the database, newest first (?limit=N)
 *   POST /v1/stop    202, then the run ends as 'aborted'
 *   GET  /metrics    Prometheus text exposition format 0.0.4
 *
 * The TCP listener serves GET /metrics only. */
#ifndef LOADD_API_H
#define LOADD_API_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "db.h"
#include "profile.h"
#include "records.h"

#define API_VERSION 1

struct event_base;
struct supervisor;

/* The listening sockets, made before the database is touched: a control
 * socket that answers means another loadd runs, and loadd must refuse
 * before it changes anything. */
struct api_listen {
	char *socket_path; /* absolute */
	int unix_fd;
	int tcp_fd;     /* -1 without --listen */
	char *tcp_addr; /* "127.0.0.1:9184" as bound (the real port), or NULL */
	/* Removed at exit only by the process that made it, and only while it is
	 * still the same file. */
	pid_t owner;
	dev_t dev;
	ino_t ino;
};

/* Binds the Unix socket at socket_path (its directory made when missing; a
 * stale socket replaced, a live one refused) and, when listen_addr is not
 * NULL, a TCP socket at ADDR:PORT ("127.0.0.1:9184", "[::1]:9184"). Returns 0,
 * or -1 with an xmalloc'd message in *err. */
int api_listen_open(struct api_listen *l, const char *socket_path, const char *listen_addr,
		    char **err);
/* Closes both sockets and removes the socket file. Safe to call twice. */
void api_listen_close(struct api_listen *l);

struct api_config {
	struct event_base *base;
	const struct api_listen *listen;
	struct db *db;
	const struct profile *profile;
	int64_t run_id;
	double started_at; /* wall clock */
	struct supervisor *sv;
	/* Called once the reply to POST /v1/stop is sent. */
	void (*stop)(void *arg);
	void *stop_arg;
};

struct api;
struct hist;

/* Starts serving on cfg->base. Every hook below accepts a NULL api, so the
 * run loop calls them unconditionally. */
struct api *api_new(const struct api_config *cfg);
void api_free(struct api *api);

/* What the run tells the API as it goes. */
void api_phase_begin(struct api *api, long round, size_t phase_index, int64_t phase_id);
void api_probe_begin(struct api *api);
void api_phase_end(struct api *api);
void api_sample(struct api *api, const struct sample *s);
/* Any probe's record (probe: its index in the profile). */
void api_probe_sample(struct api *api, size_t probe, const struct sample *s);
void api_probe_hist(struct api *api, size_t probe, int64_t phase_id, const struct hist *h);
void api_sys_sample(struct api *api, const struct sys_sample *s);

#endif
