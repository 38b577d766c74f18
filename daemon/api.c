// SPDX-License-Identifier: GPL-2.0-or-later
/* The control API's sockets and HTTP side. Requests are served by evhttp in
 * the run's own event loop, each connection asynchronously, with bounded
 * headers, bodies and time, so no client can hold up the loop or the
 * probe's sample handling. */
#include "api.h"

#include <errno.h>
#include <dirent.h>
#include <event2/buffer.h>
#include <event2/bufferevent.h>
#include <event2/event.h>
#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <event2/listener.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <stdarg.h>
#include <netdb.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include "api_view.h"
#include "fd_limit.h"
#include "log.h"
#include "parse.h"
#include "supervisor.h"
#include "timeutil.h"
#include "paths.h"
#include "trust.h"
#include "xalloc.h"

#define API_SOCKET_GROUP "loadd"
#define API_TIMEOUT_S 5 /* from accept (or the last reply) to a whole request */
#define API_MAX_HEADERS 8192
#define API_MAX_BODY 4096         /* no route takes a body */
#define API_STOP_FALLBACK_MS 1000 /* stop even when the 202 never reaches its client */
#define API_ACCEPT_PAUSE_MS 1000  /* out of fds: stop accepting this long */
#define API_FD_LIMIT 8192
#define API_MAX_CONNECTIONS 64 /* live clients at most, whatever the fd limit */
#define API_FD_RESERVE 24      /* fds never given to clients: the probe's and loads' */
#define API_REAP_MS 100        /* after cutting a client, look again this soon */

/* ---- the listening sockets ---- */

/* A socket file that accepts a connection belongs to a live loadd. 1 live,
 * 0 stale (or absent), -1 error. */
static int socket_answers(const struct sockaddr_un *sun, const char *path, char **err)
{
	struct stat st;
	int fd, rc;

	if (lstat(path, &st) < 0) {
		if (errno == ENOENT)
			return 0;
		*err = xasprintf("control socket %s: %s", path, strerror(errno));
		return -1;
	}
	if (!S_ISSOCK(st.st_mode)) {
		*err = xasprintf(
			"%s exists and is not a socket; remove it or give another --socket", path);
		return -1;
	}
	/* Non-blocking: a live loadd with a full backlog must not hang us. */
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*err = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	rc = connect(fd, (const struct sockaddr *)sun, sizeof *sun);
	if (rc == 0 || errno == EAGAIN || errno == EINPROGRESS) {
		close(fd);
		return 1;
	}
	rc = errno;
	close(fd);
	if (rc == ECONNREFUSED || rc == ENOENT)
		return 0;
	*err = xasprintf("cannot check control socket %s: %s", path, strerror(rc));
	return -1;
}

/* Root shares the socket with group loadd when there is one; anyone else
 * keeps it to themselves. The socket is born with its group and mode (the
 * effective gid and the umask at bind()): a chown or chmod by path after
 * bind() could be sent elsewhere by a link swapped in meanwhile. */
static int bind_private(int fd, const struct sockaddr_un *sun)
{
	struct group *gr = geteuid() == 0 ? getgrnam(API_SOCKET_GROUP) : NULL;
	gid_t saved_gid = getegid();
	mode_t old_umask;
	int rc, err;

	if (gr != NULL && setegid(gr->gr_gid) < 0)
		gr = NULL;
	old_umask = umask(gr != NULL ? 0117 : 0177);
	rc = bind(fd, (const struct sockaddr *)sun, sizeof *sun);
	err = errno;
	umask(old_umask);
	if (gr != NULL && setegid(saved_gid) < 0)
		fatal("cannot return to group %u", (unsigned)saved_gid);
	errno = err;
	return rc;
}

static int open_unix(struct api_listen *l, char **err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	const char *path = l->socket_path;
	struct stat st;
	int fd, rc;

	if (strlen(path) >= sizeof sun.sun_path) {
		*err = xasprintf("control socket path %s is too long (at most %zu bytes); give a "
				 "shorter --socket",
				 path, sizeof sun.sun_path - 1);
		return -1;
	}
	memcpy(sun.sun_path, path, strlen(path) + 1);
	if (trust_make_parent_dirs(path, geteuid() == 0 ? 0755 : 0700, "control socket", err) < 0)
		return -1;
	rc = socket_answers(&sun, path, err);
	if (rc < 0)
		return -1;
	if (rc > 0) {
		*err = xasprintf("another loadd is running (socket %s answers)", path);
		return -1;
	}
	if (unlink(path) == 0)
		log_info("replaced the stale control socket %s", path);

	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*err = xasprintf("socket: %s", strerror(errno));
		return -1;
	}
	if (bind_private(fd, &sun) < 0) {
		*err = xasprintf("cannot bind control socket %s: %s", path, strerror(errno));
		close(fd);
		return -1;
	}
	if (lstat(path, &st) == 0) {
		l->dev = st.st_dev;
		l->ino = st.st_ino;
	}
	l->owner = getpid();
	l->unix_fd = fd;
	if (listen(fd, SOMAXCONN) < 0) {
		*err = xasprintf("cannot listen on %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* "127.0.0.1:9184", "[::1]:9184", "localhost:9184". */
static int open_tcp(struct api_listen *l, const char *spec, char **err)
{
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM,
				  .ai_flags = AI_PASSIVE | AI_NUMERICSERV };
	struct addrinfo *res = NULL, *ai;
	const char *colon = strrchr(spec, ':');
	char host[256], port[16], bound_host[NI_MAXHOST], bound_port[NI_MAXSERV];
	struct sockaddr_storage ss = { 0 };
	socklen_t sslen = sizeof ss;
	size_t hlen;
	int fd = -1, rc, one = 1, saved = 0;

	if (colon == NULL || colon == spec || colon[1] == '\0' ||
	    strlen(colon + 1) >= sizeof port) {
		*err = xasprintf("--listen %s: expected ADDRESS:PORT, e.g. 127.0.0.1:9184", spec);
		return -1;
	}
	hlen = (size_t)(colon - spec);
	if (spec[0] == '[' && colon[-1] == ']') {
		spec++;
		hlen -= 2;
	}
	if (hlen == 0 || hlen >= sizeof host) {
		*err = xasprintf("--listen %s: expected ADDRESS:PORT, e.g. 127.0.0.1:9184", spec);
		return -1;
	}
	memcpy(host, spec, hlen);
	host[hlen] = '\0';
	strcpy(port, colon + 1);
	rc = getaddrinfo(host, port, &hints, &res);
	if (rc != 0) {
		*err = xasprintf("--listen %s:%s: %s", host, port, gai_strerror(rc));
		return -1;
	}
	for (ai = res; ai != NULL; ai = ai->ai_next) {
		fd = socket(ai->ai_family, ai->ai_socktype | SOCK_CLOEXEC | SOCK_NONBLOCK,
			    ai->ai_protocol);
		if (fd < 0) {
			saved = errno;
			continue;
		}
		setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
		if (bind(fd, ai->ai_addr, ai->ai_addrlen) == 0 && listen(fd, SOMAXCONN) == 0)
			break;
		saved = errno;
		close(fd);
		fd = -1;
	}
	freeaddrinfo(res);
	if (fd < 0) {
		*err = xasprintf("cannot listen on %s:%s: %s", host, port, strerror(saved));
		return -1;
	}
	if (getsockname(fd, (struct sockaddr *)&ss, &sslen) == 0 &&
	    getnameinfo((struct sockaddr *)&ss, sslen, bound_host, sizeof bound_host, bound_port,
			sizeof bound_port, NI_NUMERICHOST | NI_NUMERICSERV) == 0)
		l->tcp_addr = xasprintf(ss.ss_family == AF_INET6 ? "[%s]:%s" : "%s:%s", bound_host,
					bound_port);
	else
		l->tcp_addr = xasprintf("%s:%s", host, port);
	l->tcp_fd = fd;
	return 0;
}

int api_listen_open(struct api_listen *l, const char *socket_path, const char *listen_addr,
		    char **err)
{
	memset(l, 0, sizeof *l);
	l->unix_fd = -1;
	l->tcp_fd = -1;
	*err = NULL;
	l->socket_path = absolute_path(socket_path);
	if (open_unix(l, err) < 0 || (listen_addr != NULL && open_tcp(l, listen_addr, err) < 0)) {
		api_listen_close(l);
		return -1;
	}
	return 0;
}

void api_listen_close(struct api_listen *l)
{
	struct stat st;

	if (l->unix_fd >= 0)
		close(l->unix_fd);
	if (l->tcp_fd >= 0)
		close(l->tcp_fd);
	/* Only ours, and only if nobody replaced it meanwhile. */
	if (l->socket_path != NULL && l->owner == getpid() && l->owner != 0 &&
	    lstat(l->socket_path, &st) == 0 && st.st_dev == l->dev && st.st_ino == l->ino)
		unlink(l->socket_path);
	free(l->socket_path);
	free(l->tcp_addr);
	memset(l, 0, sizeof *l);
	l->unix_fd = -1;
	l->tcp_fd = -1;
}

/* ---- the server ---- */

/* The loads' counters as of the last tick, for their rates; indexed like the
 * profile's loads. */
struct load_tick {
	bool seen;
	int64_t t_ns;
	uint64_t cycles, bytes, ops;
	double cycles_per_s, bytes_per_s, ops_per_s;
	bool has_rates;
};

/* One listening socket and evhttp server. When accept() fails for want of
 * fds the listener pauses, rather than waking the loop again at once. */
struct api_server {
	struct api *api;
	struct evhttp *http;
	struct evconnlistener *lev;
	struct event *resume;
	const char *where;
	struct event *drain;         /* past the cap: close what waits */
	struct bufferevent *refused; /* the connection that met the cap */
};

/* A client's connection, held (a bufferevent reference) from accept until
 * evhttp has let it go, so that live clients can be counted and each given
 * a deadline for its whole request: evhttp's own timeout restarts with
 * every byte, so a client trickling one byte a second would never meet it. */
struct api_conn {
	struct api *api;
	struct bufferevent *bev; /* NULL: a free slot */
	struct event *deadline;
};

struct api {
	struct api_view view;
	const struct profile *profile;
	struct db *db;
	struct supervisor *sv;
	struct api_server unix_server; /* every route */
	struct api_server tcp_server;  /* --listen: /metrics only */
	int64_t start_ns;              /* CLOCK_MONOTONIC at the run's start */
	int64_t phase_start_ns;

	struct load_status *status; /* scratch for supervisor_status */
	struct load_view *loads;
	struct load_tick *ticks;
	size_t max_loads;

	void (*stop)(void *arg);
	void *stop_arg;
	bool stop_fired;
	struct event *stop_timer;

	struct event_base *base;
	struct api_conn conns[API_MAX_CONNECTIONS];
	size_t nconns, max_conns;
	unsigned long refused;
};

struct route {
	const char *path;
	enum evhttp_cmd_type method; /* GET routes answer HEAD too */
	const char *const *params;   /* query parameters it takes, NULL-terminated */
	void (*serve)(struct api *api, struct evhttp_request *req, struct evkeyvalq *query);
};

static const char *reason_phrase(int code)
{
	switch (code) {
	case 200: return "OK";
	case 202: return "Accepted";
	case 400: return "Bad Request";
	case 404: return "Not Found";
	case 405: return "Method Not Allowed";
	default: return "Internal Server Error";
	}
}

static void reply_json(struct evhttp_request *req, int code, json_t *doc)
{
	const size_t flags = JSON_INDENT(2) | JSON_REAL_PRECISION(15);
	struct evbuffer *buf = evbuffer_new();
	char *text = doc != NULL ? json_dumps(doc, flags) : NULL;

	json_decref(doc);
	if (text == NULL) {
		code = 500;
		doc = error_json("loadd could not encode the reply");
		text = doc != NULL ? json_dumps(doc, flags) : NULL;
		json_decref(doc);
	}
	if (buf == NULL) {
		free(text);
		evhttp_send_error(req, 500, NULL);
		return;
	}
	if (text != NULL) {
		evbuffer_add(buf, text, strlen(text));
		evbuffer_add(buf, "\n", 1);
	}
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "application/json");
	evhttp_send_reply(req, code, reason_phrase(code), buf);
	evbuffer_free(buf);
	free(text);
}

static void reply_error(struct evhttp_request *req, int code, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void reply_error(struct evhttp_request *req, int code, const char *fmt, ...)
{
	va_list ap;
	char *msg;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	reply_json(req, code, error_json(msg != NULL ? msg : reason_phrase(code)));
	free(msg);
}

/* The run's phases as recorded, for their valid and weak figures; on a
 * failed read the last ones stay. */
static void refresh_phase_rows(struct api *api)
{
	struct phase_row *rows = NULL;
	size_t n = 0;

	if (api->db != NULL && db_phases_list(api->db, api->view.run_id, &rows, &n) == 0)
		api_view_set_phase_rows(&api->view, rows, n);
}

/* Live counters from the supervisor, with the rates of the last tick. */
static void refresh_view(struct api *api)
{
	struct api_view *v = &api->view;
	int64_t now = mono_ns();
	size_t n = 0;

	v->elapsed_s = (double)(now - api->start_ns) / NSEC_PER_SEC;
	v->phase_elapsed_s = v->state == PHASE_NONE
				     ? 0
				     : (double)(now - api->phase_start_ns) / NSEC_PER_SEC;
	if (api->sv != NULL && api->max_loads > 0)
		n = supervisor_status(api->sv, api->status, api->max_loads);
	for (size_t i = 0; i < n; i++) {
		const struct load_def *ld = profile_load_by_name(api->profile, api->status[i].name);
		struct load_view *lv = &api->loads[i];

		memset(lv, 0, sizeof *lv);
		lv->st = api->status[i];
		if (ld != NULL) {
			const struct load_tick *t = &api->ticks[ld - api->profile->loads];
			lv->has_rates = t->has_rates;
			lv->cycles_per_s = t->cycles_per_s;
			lv->bytes_per_s = t->bytes_per_s;
			lv->ops_per_s = t->ops_per_s;
		}
	}
	v->loads = api->loads;
	v->nloads = n;
	refresh_phase_rows(api);
}

static void serve_status(struct api *api, struct evhttp_request *req, struct evkeyvalq *query)
{
	refresh_view(api);
	reply_json(req, 200, status_json(&api->view));
}

static void serve_runs(struct api *api, struct evhttp_request *req, struct evkeyvalq *query)
{
	const char *limit_text = evhttp_find_header(query, "limit");
	struct run_row *rows = NULL;
	size_t n = 0;
	long limit = -1;
	const char *why;

	if (limit_text != NULL && (parse_long(limit_text, &limit, &why) < 0 || limit < 1)) {
		reply_error(req, 400, "limit must be a whole number of 1 or more, not '%s'",
			    limit_text);
		return;
	}
	/* The database stops at the limit: a long history is not read in the
	 * event loop only to be cut. */
	if (db_list(api->db, REC_RUN, 0, limit > 0 && limit < INT_MAX ? (int)limit : 0,
		    (void **)&rows, &n) < 0) {
		reply_error(req, 500, "loadd could not read the runs from its database");
		return;
	}
	reply_json(req, 200, runs_json(rows, n));
	for (size_t i = 0; i < n; i++)
		db_run_row_free(&rows[i]);
	free(rows);
}

static void fire_stop(struct api *api)
{
	if (api->stop_fired)
		return;
	api->stop_fired = true;
	if (api->stop != NULL)
		api->stop(api->stop_arg);
}

static void on_stop_sent(struct evhttp_request *req, void *arg)
{
	fire_stop(arg);
}

static void on_stop_timer(evutil_socket_t fd, short what, void *arg)
{
	fire_stop(arg);
}

/* The peer's uid from the kernel (SO_PEERCRED), not from anything it sent;
 * -1 when it cannot be known (then nothing is allowed). */
static long peer_uid(struct evhttp_request *req)
{
	struct evhttp_connection *conn = evhttp_request_get_connection(req);
	struct bufferevent *bev = conn ? evhttp_connection_get_bufferevent(conn) : NULL;
	evutil_socket_t fd = bev ? bufferevent_getfd(bev) : -1;
	struct ucred cred;
	socklen_t len = sizeof cred;

	if (fd < 0 || getsockopt(fd, SOL_SOCKET, SO_PEERCRED, &cred, &len) < 0 ||
	    len != sizeof cred)
		return -1;
	return (long)cred.uid;
}

/* Who started the run: loadd's real user, or under sudo the user sudo ran
 * it for. */
static long starter_uid(void)
{
	const char *sudo_uid = getenv("SUDO_UID");
	char *end;
	long uid;

	if (getuid() == 0 && sudo_uid != NULL && sudo_uid[0] != '\0') {
		errno = 0;
		uid = strtol(sudo_uid, &end, 10);
		if (errno == 0 && *end == '\0' && uid >= 0)
			return uid;
	}
	return (long)getuid();
}

/* Reading is for whoever the socket's mode lets in; stopping a run is for
 * root and the user who started it only. */
static bool may_stop(struct evhttp_request *req, long *who)
{
	*who = peer_uid(req);
	return *who == 0 || (*who >= 0 && (*who == starter_uid() || *who == (long)geteuid()));
}

/* The run ends once the 202 has gone out, so the client sees it; a client
 * that hangs up early cannot keep the run going: the timer stops it anyway. */
static void serve_stop(struct api *api, struct evhttp_request *req, struct evkeyvalq *query)
{
	struct timeval fallback = { 0, API_STOP_FALLBACK_MS * 1000 };
	long who;

	if (!may_stop(req, &who)) {
		log_warn("refused a stop from uid %ld: only root or the run's starter (uid %ld) "
			 "may stop it",
			 who, starter_uid());
		reply_error(req, 403,
			    "only root or the user who started the run (uid %ld) may "
			    "stop it; you are uid %ld",
			    starter_uid(), who);
		return;
	}

	if (!api->view.stopping) {
		log_info("stop requested through the control API: stopping the run");
		api->view.stopping = true;
		evhttp_request_set_on_complete_cb(req, on_stop_sent, api);
		evtimer_add(api->stop_timer, &fallback);
	}
	reply_json(req, 202,
		   json_pack("{s:I, s:s}", "run_id", (json_int_t)api->view.run_id, "status",
			     "stopping"));
}

static void serve_metrics(struct api *api, struct evhttp_request *req, struct evkeyvalq *query)
{
	struct evbuffer *buf;
	char *text = NULL;
	size_t len = 0;
	FILE *fp;

	refresh_view(api);
	fp = open_memstream(&text, &len);
	if (fp == NULL) {
		reply_error(req, 500, "out of memory");
		return;
	}
	metrics_write(fp, &api->view);
	if (fclose(fp) != 0 || (buf = evbuffer_new()) == NULL) {
		free(text);
		reply_error(req, 500, "out of memory");
		return;
	}
	evbuffer_add(buf, text, len);
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "text/plain; version=0.0.4; charset=utf-8");
	evhttp_send_reply(req, 200, "OK", buf);
	evbuffer_free(buf);
	free(text);
}

static const char *const runs_params[] = { "limit", NULL };
static const char *const no_params[] = { NULL };

static const struct route unix_routes[] = {
	{ "/v1/status", EVHTTP_REQ_GET, no_params, serve_status },
	{ "/v1/runs", EVHTTP_REQ_GET, runs_params, serve_runs },
	{ "/v1/stop", EVHTTP_REQ_POST, no_params, serve_stop },
	{ "/metrics", EVHTTP_REQ_GET, no_params, serve_metrics },
	{ NULL, 0, NULL, NULL },
};

static const struct route tcp_routes[] = {
	{ "/metrics", EVHTTP_REQ_GET, no_params, serve_metrics },
	{ NULL, 0, NULL, NULL },
};

static bool param_known(const struct route *r, const char *key)
{
	for (const char *const *p = r->params; *p != NULL; p++)
		if (strcmp(*p, key) == 0)
			return true;
	return false;
}

static void dispatch(struct api *api, const struct route *routes, struct evhttp_request *req)
{
	const struct evhttp_uri *uri = evhttp_request_get_evhttp_uri(req);
	const char *path = uri != NULL ? evhttp_uri_get_path(uri) : NULL;
	const char *query_text = uri != NULL ? evhttp_uri_get_query(uri) : NULL;
	enum evhttp_cmd_type cmd = evhttp_request_get_command(req);
	struct evkeyvalq query;
	const struct route *r;

	TAILQ_INIT(&query);
	if (path == NULL || path[0] != '/') {
		reply_error(req, 400, "malformed request: the target must be an absolute path");
		return;
	}
	for (r = routes; r->path != NULL; r++)
		if (strcmp(r->path, path) == 0)
			break;
	if (r->path == NULL) {
		if (routes == tcp_routes)
			reply_error(req, 404, "no route %s: this address serves GET /metrics only",
				    path);
		else
			reply_error(req, 404,
				    "no route %s: the routes are GET /v1/status, "
				    "GET /v1/runs, POST /v1/stop and GET /metrics",
				    path);
		return;
	}
	if (cmd != r->method && !(r->method == EVHTTP_REQ_GET && cmd == EVHTTP_REQ_HEAD)) {
		const char *allow = r->method == EVHTTP_REQ_GET ? "GET, HEAD" : "POST";
		evhttp_add_header(evhttp_request_get_output_headers(req), "Allow", allow);
		reply_error(req, 405, "%s takes %s only", path, allow);
		return;
	}
	if (query_text != NULL && evhttp_parse_query_str(query_text, &query) < 0) {
		reply_error(req, 400, "malformed query string");
		return;
	}
	for (struct evkeyval *kv = query.tqh_first; kv != NULL; kv = kv->next.tqe_next) {
		if (!param_known(r, kv->key)) {
			reply_error(req, 400, "%s takes no parameter '%s'", path, kv->key);
			evhttp_clear_headers(&query);
			return;
		}
	}
	r->serve(api, req, &query);
	evhttp_clear_headers(&query);
}

static void conn_request_done(struct api *api, struct evhttp_request *req);

static void on_unix_request(struct evhttp_request *req, void *arg)
{
	conn_request_done(arg, req);
	dispatch(arg, unix_routes, req);
}

static void on_tcp_request(struct evhttp_request *req, void *arg)
{
	conn_request_done(arg, req);
	dispatch(arg, tcp_routes, req);
}

/* Every method reaches our handler, so a wrong one gets a 405 with a JSON
 * body rather than evhttp's own page. */
#define API_ALL_METHODS                                                                            \
	(EVHTTP_REQ_GET | EVHTTP_REQ_POST | EVHTTP_REQ_HEAD | EVHTTP_REQ_PUT | EVHTTP_REQ_DELETE | \
	 EVHTTP_REQ_OPTIONS | EVHTTP_REQ_TRACE | EVHTTP_REQ_CONNECT | EVHTTP_REQ_PATCH)

static void on_accept_resume(evutil_socket_t fd, short what, void *arg)
{
	struct api_server *srv = arg;

	evconnlistener_enable(srv->lev);
}

/* evhttp owns the listeners' callback argument, so their error callback
 * finds its server here. */
static struct api_server *servers[2];

static void on_accept_error(struct evconnlistener *lev, void *arg)
{
	struct api_server *srv = NULL;
	struct timeval pause = { API_ACCEPT_PAUSE_MS / 1000, API_ACCEPT_PAUSE_MS % 1000 * 1000 };
	int err = EVUTIL_SOCKET_ERROR();

	for (size_t i = 0; i < sizeof servers / sizeof servers[0]; i++)
		if (servers[i] != NULL && servers[i]->lev == lev)
			srv = servers[i];
	if (srv == NULL)
		return;
	log_warn("control API on %s: cannot accept a connection: %s; pausing for %d ms", srv->where,
		 strerror(err), API_ACCEPT_PAUSE_MS);
	evconnlistener_disable(lev);
	evtimer_add(srv->resume, &pause);
}

/* evhttp has freed the connection: bufferevent_free() clears the
 * callbacks, and only our reference keeps the structure. */
static bool conn_closed(struct api_conn *c)
{
	bufferevent_data_cb readcb = NULL, writecb = NULL;
	bufferevent_event_cb eventcb = NULL;

	bufferevent_getcb(c->bev, &readcb, &writecb, &eventcb, NULL);
	return readcb == NULL && writecb == NULL && eventcb == NULL;
}

static void conn_release(struct api_conn *c)
{
	event_del(c->deadline);
	bufferevent_decref(c->bev);
	c->bev = NULL;
	c->api->nconns--;
}

static void conns_reap(struct api *api)
{
	for (size_t i = 0; i < api->max_conns; i++)
		if (api->conns[i].bev != NULL && conn_closed(&api->conns[i]))
			conn_release(&api->conns[i]);
}

/* Ends a connection evhttp still holds: it reads the end and frees it. */
static void conn_cut(struct bufferevent *bev)
{
	evutil_socket_t fd = bufferevent_getfd(bev);

	if (fd >= 0)
		shutdown(fd, SHUT_RDWR);
}

static void on_conn_deadline(evutil_socket_t fd, short what, void *arg)
{
	struct api_conn *c = arg;
	struct timeval again = { 0, API_REAP_MS * 1000 };

	if (conn_closed(c)) {
		conn_release(c);
		return;
	}
	conn_cut(c->bev);
	evtimer_add(c->deadline, &again);
}

/* Past the cap: the connection that met it is closed, and so is every one
 * waiting in the backlog (accepted and closed at once, one fd at a time),
 * so that a flood neither fills the backlog nor takes the fds the probe
 * and loads need. Then accepting resumes. */
static void on_drain(evutil_socket_t unused, short what, void *arg)
{
	struct api_server *srv = arg;
	struct bufferevent *bev = srv->refused;
	struct api_conn c = { .bev = bev };
	evutil_socket_t lfd = evconnlistener_get_fd(srv->lev);
	int fd;

	srv->refused = NULL;
	if (bev != NULL) {
		/* Not if evhttp already let it go: its fd number may be reused. */
		if (!conn_closed(&c))
			conn_cut(bev);
		bufferevent_decref(bev);
	}
	while ((fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC)) >= 0) {
		srv->api->refused++;
		close(fd);
	}
	evconnlistener_enable(srv->lev);
}

/* Every accepted connection: tracked with its deadline, or, past the cap,
 * closed at once (after evhttp has set its fd) with the backlog drained. */
static struct bufferevent *on_new_conn(struct event_base *base, void *arg)
{
	struct api_server *srv = arg;
	struct api *api = srv->api;
	struct bufferevent *bev = bufferevent_socket_new(base, -1, 0);
	struct timeval deadline = { API_TIMEOUT_S, 0 }, now = { 0, 0 };
	struct api_conn *c = NULL;

	if (bev == NULL)
		return NULL;
	conns_reap(api);
	for (size_t i = 0; i < api->max_conns && c == NULL; i++)
		if (api->conns[i].bev == NULL)
			c = &api->conns[i];
	bufferevent_incref(bev);
	if (c == NULL) {
		if (api->refused++ % 1000 == 0)
			log_warn("control API on %s: %zu clients connected, the most allowed; "
				 "closing new connections",
				 srv->where, api->nconns);
		/* The listener's accept loop stops here until the drain. */
		evconnlistener_disable(srv->lev);
		if (srv->refused != NULL)
			bufferevent_decref(srv->refused);
		srv->refused = bev;
		evtimer_add(srv->drain, &now);
		return bev;
	}
	c->bev = bev;
	api->nconns++;
	evtimer_add(c->deadline, &deadline);
	return bev;
}

/* A request has been read whole and answered: the next one on the same
 * connection gets a fresh deadline. */
static void conn_request_done(struct api *api, struct evhttp_request *req)
{
	struct evhttp_connection *evcon = evhttp_request_get_connection(req);
	struct bufferevent *bev = evcon != NULL ? evhttp_connection_get_bufferevent(evcon) : NULL;
	struct timeval deadline = { API_TIMEOUT_S, 0 };

	for (size_t i = 0; bev != NULL && i < api->max_conns; i++)
		if (api->conns[i].bev == bev)
			evtimer_add(api->conns[i].deadline, &deadline);
}

/* Live clients at most: API_MAX_CONNECTIONS, and never so many that fewer
 * than API_FD_RESERVE fds would be left of the limit. */
static size_t conns_max(void)
{
	struct rlimit rl;
	long open_fds = 0, room;
	DIR *d = opendir("/proc/self/fd");
	struct dirent *de;

	if (d != NULL) {
		while ((de = readdir(d)) != NULL)
			open_fds += de->d_name[0] != '.';
		closedir(d);
	}
	if (getrlimit(RLIMIT_NOFILE, &rl) < 0 || rl.rlim_cur == RLIM_INFINITY)
		return API_MAX_CONNECTIONS;
	room = (long)rl.rlim_cur - open_fds - API_FD_RESERVE;
	if (room < 1)
		room = 1;
	return room < API_MAX_CONNECTIONS ? (size_t)room : API_MAX_CONNECTIONS;
}

static void serve_on(struct api_server *srv, struct api *api, struct event_base *base, int fd,
		     const char *where, void (*cb)(struct evhttp_request *, void *))
{
	srv->api = api;
	srv->where = where;
	srv->http = evhttp_new(base);
	srv->resume = evtimer_new(base, on_accept_resume, srv);
	srv->drain = evtimer_new(base, on_drain, srv);
	if (srv->http == NULL || srv->resume == NULL || srv->drain == NULL)
		fatalx("cannot create the control API's HTTP server");
	/* The fd stays ours (no LEV_OPT_CLOSE_ON_FREE): it is closed, and the
	 * socket file removed, only once the run is recorded as ended. */
	srv->lev = evconnlistener_new(base, NULL, NULL, LEV_OPT_CLOSE_ON_EXEC, 0, fd);
	if (srv->lev == NULL || evhttp_bind_listener(srv->http, srv->lev) == NULL)
		fatalx("cannot serve the control API");
	evconnlistener_set_error_cb(srv->lev, on_accept_error);
	for (size_t i = 0; i < sizeof servers / sizeof servers[0]; i++) {
		if (servers[i] == NULL) {
			servers[i] = srv;
			break;
		}
	}
	evhttp_set_allowed_methods(srv->http, API_ALL_METHODS);
	evhttp_set_max_headers_size(srv->http, API_MAX_HEADERS);
	evhttp_set_max_body_size(srv->http, API_MAX_BODY);
	evhttp_set_timeout(srv->http, API_TIMEOUT_S);
	evhttp_set_bevcb(srv->http, on_new_conn, srv);
	evhttp_set_gencb(srv->http, cb, api);
}

static void server_free(struct api_server *srv)
{
	if (srv->http == NULL)
		return;
	for (size_t i = 0; i < sizeof servers / sizeof servers[0]; i++)
		if (servers[i] == srv)
			servers[i] = NULL;
	/* Frees the listener too (the fd stays open). */
	evhttp_free(srv->http);
	event_free(srv->resume);
	event_free(srv->drain);
	if (srv->refused != NULL)
		bufferevent_decref(srv->refused);
}

/* Clients' connections must not use up the fds the probe needs to start
 * its job: raise the soft limit within the hard one (idle clients are
 * dropped after API_TIMEOUT_S, and accept() pauses when fds run out anyway).
 * Not beyond API_FD_LIMIT: the jobs and loads inherit it, and some programs
 * still loop over every possible fd. */
struct api *api_new(const struct api_config *cfg)
{
	struct api *api = xcalloc(1, sizeof *api);
	const struct profile *p = cfg->profile;

	/* Best effort: each connection is a descriptor. */
	if (raise_fd_limit(API_FD_LIMIT, NULL) < 0)
		log_debug("cannot raise the fd limit to %d: %s", API_FD_LIMIT, strerror(errno));
	api_view_init(&api->view, p);
	api->view.run_id = cfg->run_id;
	api->view.pid = getpid();
	api->view.started_at = cfg->started_at;
	api->view.socket_path = cfg->listen->socket_path;
	api->view.metrics_addr = cfg->listen->tcp_addr;
	api->profile = p;
	api->db = cfg->db;
	api->sv = cfg->sv;
	api->stop = cfg->stop;
	api->stop_arg = cfg->stop_arg;
	api->start_ns = mono_ns() - (int64_t)((wall_now() - cfg->started_at) * NSEC_PER_SEC);
	api->max_loads = p->nloads;
	api->status = xcalloc(p->nloads + 1, sizeof *api->status);
	api->loads = xcalloc(p->nloads + 1, sizeof *api->loads);
	api->ticks = xcalloc(p->nloads + 1, sizeof *api->ticks);
	api->stop_timer = evtimer_new(cfg->base, on_stop_timer, api);
	if (api->stop_timer == NULL)
		fatalx("cannot create the control API's timer");
	api->base = cfg->base;
	api->max_conns = conns_max();
	for (size_t i = 0; i < api->max_conns; i++) {
		api->conns[i].api = api;
		api->conns[i].deadline = evtimer_new(cfg->base, on_conn_deadline, &api->conns[i]);
		if (api->conns[i].deadline == NULL)
			fatalx("cannot create the control API's timers");
	}
	log_debug("control API: at most %zu clients at once", api->max_conns);

	serve_on(&api->unix_server, api, cfg->base, cfg->listen->unix_fd, cfg->listen->socket_path,
		 on_unix_request);
	log_info("control API on %s", cfg->listen->socket_path);
	if (cfg->listen->tcp_fd >= 0) {
		serve_on(&api->tcp_server, api, cfg->base, cfg->listen->tcp_fd,
			 cfg->listen->tcp_addr, on_tcp_request);
		log_info("metrics on http://%s/metrics", cfg->listen->tcp_addr);
	}
	return api;
}

void api_free(struct api *api)
{
	if (api == NULL)
		return;
	server_free(&api->unix_server);
	server_free(&api->tcp_server);
	/* evhttp_free has closed every connection. */
	for (size_t i = 0; i < api->max_conns; i++) {
		if (api->conns[i].bev != NULL)
			conn_release(&api->conns[i]);
		event_free(api->conns[i].deadline);
	}
	event_free(api->stop_timer);
	api_view_free(&api->view);
	free(api->status);
	free(api->loads);
	free(api->ticks);
	free(api);
}

void api_phase_begin(struct api *api, long round, size_t phase_index, int64_t phase_id)
{
	if (api == NULL)
		return;
	api->phase_start_ns = mono_ns();
	api_view_phase_begin(&api->view, round, phase_index, phase_id, wall_now());
}

void api_probe_begin(struct api *api)
{
	if (api != NULL && api->view.state != PHASE_NONE)
		api->view.state = PHASE_PROBING;
}

void api_phase_end(struct api *api)
{
	if (api != NULL)
		api_view_phase_end(&api->view);
}

void api_probe_sample(struct api *api, size_t probe, const struct sample *s)
{
	if (api != NULL)
		api_view_add_probe_sample(&api->view, probe, s);
}

void api_probe_hist(struct api *api, size_t probe, int64_t phase_id, const struct hist *h)
{
	if (api != NULL)
		api_view_add_probe_hist(&api->view, probe, phase_id, h);
}

void api_sample(struct api *api, const struct sample *s)
{
	if (api != NULL)
		api_view_add_sample(&api->view, s);
}

static double per_second(uint64_t now, uint64_t before, double dt)
{
	return now >= before ? (double)(now - before) / dt : 0;
}

/* Once a second: the system figures, and the loads' rates since the last
 * tick (a load that was not running then gets its rates a tick later). */
void api_sys_sample(struct api *api, const struct sys_sample *s)
{
	int64_t now = mono_ns();
	size_t n = 0;

	if (api == NULL)
		return;
	api->view.sys = *s;
	api->view.has_sys = true;
	if (api->sv != NULL && api->max_loads > 0)
		n = supervisor_status(api->sv, api->status, api->max_loads);
	for (size_t i = 0; i < api->max_loads; i++)
		api->ticks[i].seen = false;
	for (size_t i = 0; i < n; i++) {
		const struct load_status *st = &api->status[i];
		const struct load_def *ld = profile_load_by_name(api->profile, st->name);
		struct load_tick *t;

		if (ld == NULL)
			continue;
		t = &api->ticks[ld - api->profile->loads];
		if (t->t_ns > 0 && now > t->t_ns) {
			double dt = (double)(now - t->t_ns) / NSEC_PER_SEC;
			t->cycles_per_s = per_second(st->cycles, t->cycles, dt);
			t->bytes_per_s = per_second(st->bytes, t->bytes, dt);
			t->ops_per_s = per_second(st->ops, t->ops, dt);
			t->has_rates = true;
		}
		t->seen = true;
		t->t_ns = now;
		t->cycles = st->cycles;
		t->bytes = st->bytes;
		t->ops = st->ops;
	}
	/* A load that stopped starts afresh when it runs again. */
	for (size_t i = 0; i < api->max_loads; i++) {
		if (!api->ticks[i].seen) {
			api->ticks[i].t_ns = 0;
			api->ticks[i].has_rates = false;
		}
	}
}
