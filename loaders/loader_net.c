// SPDX-License-Identifier: GPL-2.0-or-later
/* The net loader: an HTTP server (libevent's evhttp) on 127.0.0.1 serving
 * one body of file_size bytes, and `clients` client processes (libcurl) that
 * fetch it whole, close the connection and fetch it again (keepalive = yes
 * reuses the connection instead). A transfer is a cycle; ops counts the
 * connections opened. Only 127.0.0.1 is ever bound or fetched from. */
#include "loader_net.h"

#include <arpa/inet.h>
#include <curl/curl.h>
#include <errno.h>
#include <event2/event.h>
#include <event2/buffer.h>
#include <event2/http.h>
#include <event2/listener.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core_exec.h"
#include "parse.h"
#include "timeutil.h"
#include "xalloc.h"

struct net_config {
	long clients;
	struct size_spec file_size;
	bool keepalive;
};

/* clang-format off */
static const struct option_def net_options[] = {
	{ .key = "clients", .type = OPT_INT, .offset = offsetof(struct net_config, clients),
	  .def = "4", .min = 1, .max = 256,
	  .help = "client processes, each fetching the file again and again" },
	{ .key = "file_size", .type = OPT_SIZE, .offset = offsetof(struct net_config, file_size),
	  .def = "1M", .min = 1, .max = 1LL << 30,
	  .help = "size of the one file the server serves (the paper: a fixed-size file)" },
	{ .key = "keepalive", .type = OPT_BOOL, .offset = offsetof(struct net_config, keepalive),
	  .def = "no",
	  .help = "no: a new connection for every transfer, closed after it (the paper); yes: "
		  "each client keeps its connection" },
	{ .key = NULL },
};
/* clang-format on */

/* A failing client or server reports its first error at once, then at most
 * one summary per ERROR_EVENT_NS, so a dead server does not flood the events. */
#define ERROR_EVENT_NS (10 * NSEC_PER_SEC)
/* After a failed transfer a client waits this long: no busy loop against a
 * server that is not there. */
#define ERROR_PAUSE_NS (100 * NSEC_PER_MSEC)
/* A long transfer shows its bytes as they come, every this many. */
#define FLUSH_BYTES (4u << 20)
#define CLIENT_BUFFER (128 * 1024)
#define STOP_GRACE_MS 1000

struct error_events {
	int64_t last_ns; /* 0: none reported yet */
	uint64_t unreported;
};

/* Reports msg now when it is the first error or the last report is old;
 * otherwise only counts it for the next report. */
static void error_event(const struct loader_ctx *ctx, struct error_events *ev, const char *who,
			const char *msg)
{
	int64_t now = mono_ns();

	if (ev->last_ns != 0 && now - ev->last_ns < ERROR_EVENT_NS) {
		ev->unreported++;
		return;
	}
	if (ev->unreported > 0)
		loader_event(ctx, "error", "%s: %s (and %llu more errors since the last report)",
			     who, msg, (unsigned long long)ev->unreported);
	else
		loader_event(ctx, "error", "%s: %s", who, msg);
	ev->last_ns = now;
	ev->unreported = 0;
}

/* ---- the listening socket ---- */

int net_listen_loopback(uint16_t *port, char **err)
{
	struct sockaddr_in addr = { .sin_family = AF_INET,
				    .sin_port = 0,
				    .sin_addr.s_addr = htonl(INADDR_LOOPBACK) };
	socklen_t addrlen = sizeof addr;
	int fd, saved, one = 1;

	fd = socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		*err = xasprintf("cannot make a TCP socket: %s", strerror(errno));
		return -1;
	}
	/* Accepted sockets inherit it: a reply's last small segment goes out
	 * at once instead of waiting for the client's delayed ACK (Nagle),
	 * which held each kept-alive transfer up for milliseconds. */
	setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof one);
	if (bind(fd, (struct sockaddr *)&addr, sizeof addr) < 0) {
		*err = xasprintf("cannot bind 127.0.0.1 (any port): %s", strerror(errno));
		goto fail;
	}
	if (listen(fd, 1024) < 0) {
		*err = xasprintf("cannot listen on 127.0.0.1: %s", strerror(errno));
		goto fail;
	}
	if (getsockname(fd, (struct sockaddr *)&addr, &addrlen) < 0) {
		*err = xasprintf("cannot read the port of 127.0.0.1: %s", strerror(errno));
		goto fail;
	}
	*port = ntohs(addr.sin_port);
	return fd;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

/* ---- the client ---- */

struct net_client {
	CURL *curl;
	struct loader_shm *shm;
	uint64_t expect;  /* bytes a whole body has */
	uint64_t got;     /* this transfer's bytes so far */
	uint64_t flushed; /* of which already counted in shm */
	char url[96];
	char curl_err[CURL_ERROR_SIZE];
};

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct net_client *c = arg;
	size_t n = size * nmemb;

	(void)data;
	c->got += n;
	if (c->got <= c->expect && c->got - c->flushed >= FLUSH_BYTES) {
		loader_progress(c->shm, 0, c->got - c->flushed, 0);
		c->flushed = c->got;
	}
	return n;
}

struct net_client *net_client_new(uint16_t port, const char *path, uint64_t body_bytes,
				  bool keepalive, char **err)
{
	static bool curl_ready;
	struct net_client *c;
	CURLcode rc = CURLE_OK;

	if (!curl_ready) {
		rc = curl_global_init(CURL_GLOBAL_NOTHING);
		if (rc != CURLE_OK) {
			*err = xasprintf("libcurl: %s", curl_easy_strerror(rc));
			return NULL;
		}
		curl_ready = true;
	}
	c = xcalloc(1, sizeof *c);
	c->expect = body_bytes;
	snprintf(c->url, sizeof c->url, "http://127.0.0.1:%u%s", (unsigned)port, path);
	c->curl = curl_easy_init();
	if (c->curl == NULL) {
		*err = xstrdup("libcurl: cannot make a handle");
		free(c);
		return NULL;
	}
#define SET(opt, val)                                                                              \
	do {                                                                                       \
		if (rc == CURLE_OK)                                                                \
			rc = curl_easy_setopt(c->curl, opt, val);                                  \
	} while (0)
	SET(CURLOPT_URL, c->url);
	/* Never through a proxy, whatever http_proxy or all_proxy say. */
	SET(CURLOPT_PROXY, "");
	SET(CURLOPT_NOPROXY, "*");
#if LIBCURL_VERSION_NUM >= 0x075500
	SET(CURLOPT_PROTOCOLS_STR, "http");
#else
	SET(CURLOPT_PROTOCOLS, (long)CURLPROTO_HTTP);
#endif
	SET(CURLOPT_FOLLOWLOCATION, 0L);
	SET(CURLOPT_NOSIGNAL, 1L);
	SET(CURLOPT_HTTP_VERSION, (long)CURL_HTTP_VERSION_1_1);
	SET(CURLOPT_WRITEFUNCTION, on_body);
	SET(CURLOPT_WRITEDATA, c);
	SET(CURLOPT_ERRORBUFFER, c->curl_err);
	SET(CURLOPT_BUFFERSIZE, (long)CLIENT_BUFFER);
	SET(CURLOPT_CONNECTTIMEOUT_MS, 5000L);
	/* A server that stops sending ends the transfer as an error. */
	SET(CURLOPT_LOW_SPEED_LIMIT, 1L);
	SET(CURLOPT_LOW_SPEED_TIME, 10L);
	if (!keepalive) {
		SET(CURLOPT_FRESH_CONNECT, 1L);
		SET(CURLOPT_FORBID_REUSE, 1L);
	}
#undef SET
	if (rc != CURLE_OK) {
		*err = xasprintf("libcurl: %s", curl_easy_strerror(rc));
		net_client_free(c);
		return NULL;
	}
	return c;
}

void net_client_free(struct net_client *c)
{
	if (c == NULL)
		return;
	curl_easy_cleanup(c->curl);
	free(c);
}

int net_client_fetch(struct net_client *c, struct loader_shm *shm, char *errbuf, size_t len)
{
	long status = 0, connects = 0;
	CURLcode rc;

	c->shm = shm;
	c->got = 0;
	c->flushed = 0;
	c->curl_err[0] = '\0';
	rc = curl_easy_perform(c->curl);
	if (rc != CURLE_OK) {
		snprintf(errbuf, len, "%s: %s", c->url,
			 c->curl_err[0] ? c->curl_err : curl_easy_strerror(rc));
		goto error;
	}
	curl_easy_getinfo(c->curl, CURLINFO_RESPONSE_CODE, &status);
	if (status != 200) {
		snprintf(errbuf, len, "%s: HTTP status %ld", c->url, status);
		goto error;
	}
	if (c->got != c->expect) {
		snprintf(errbuf, len, "%s: a body of %llu bytes, expected %llu", c->url,
			 (unsigned long long)c->got, (unsigned long long)c->expect);
		goto error;
	}
	curl_easy_getinfo(c->curl, CURLINFO_NUM_CONNECTS, &connects);
	loader_progress(shm, 1, c->got - c->flushed, connects > 0 ? (uint64_t)connects : 0);
	return 0;
error:
	loader_error(shm);
	return -1;
}

/* A client process: fetches until SIGTERM (its default action) ends it. */
static void client_main(const struct loader_ctx *ctx, uint16_t port, const char *path,
			uint64_t body_bytes, bool keepalive, long index)
{
	const struct timespec pause = { .tv_sec = ERROR_PAUSE_NS / NSEC_PER_SEC,
					.tv_nsec = ERROR_PAUSE_NS % NSEC_PER_SEC };
	struct error_events events = { 0 };
	struct net_client *c;
	char who[32], msg[CURL_ERROR_SIZE + 96], *err = NULL;

	snprintf(who, sizeof who, "client %ld", index);
	c = net_client_new(port, path, body_bytes, keepalive, &err);
	if (c == NULL) {
		loader_event(ctx, "error", "%s: %s", who, err);
		_exit(1);
	}
	for (;;) {
		if (net_client_fetch(c, ctx->shm, msg, sizeof msg) == 0)
			continue;
		error_event(ctx, &events, who, msg);
		nanosleep(&pause, NULL);
	}
}

/* ---- the server ---- */

int net_secret_path(char out[NET_SECRET_PATH_LEN + 1])
{
	unsigned char raw[(NET_SECRET_PATH_LEN - 1) / 2];
	size_t got = 0;

	while (got < sizeof raw) {
		ssize_t n = getrandom(raw + got, sizeof raw - got, 0);

		if (n < 0 && errno != EINTR)
			return -1;
		if (n > 0)
			got += (size_t)n;
	}
	out[0] = '/';
	for (size_t i = 0; i < sizeof raw; i++)
		snprintf(out + 1 + 2 * i, 3, "%02x", raw[i]);
	return 0;
}

struct net_server {
	const struct loader_ctx *ctx;
	struct event_base *base;
	unsigned char *body;
	size_t body_len;
	pid_t *clients;
	long nclients;
	struct error_events events;
	int rc;
	char path[NET_SECRET_PATH_LEN + 1]; /* the only target served */
};

static void server_error(struct net_server *s, const char *msg)
{
	loader_error(s->ctx->shm);
	error_event(s->ctx, &s->events, "server", msg);
}

static void on_request(struct evhttp_request *req, void *arg)
{
	struct net_server *s = arg;
	const char *uri = evhttp_request_get_uri(req);
	struct evbuffer *buf;

	/* Anyone on the machine can reach 127.0.0.1: a request without the
	 * secret path is not ours, and is neither counted nor recorded. */
	if (strcmp(uri, s->path) != 0) {
		evhttp_send_error(req, HTTP_NOTFOUND, NULL);
		return;
	}
	buf = evbuffer_new();
	if (buf == NULL) {
		server_error(s, "out of memory for a reply");
		evhttp_send_error(req, HTTP_INTERNAL, NULL);
		return;
	}
	evhttp_add_header(evhttp_request_get_output_headers(req), "Content-Type",
			  "application/octet-stream");
	/* Every reply points at the one body: nothing is copied in user space. */
	evbuffer_add_reference(buf, s->body, s->body_len, NULL, NULL);
	evhttp_send_reply(req, HTTP_OK, "OK", buf);
	evbuffer_free(buf);
}

static void on_accept_error(struct evconnlistener *listener, void *arg)
{
	struct net_server *s = arg;
	char msg[96];

	snprintf(msg, sizeof msg, "cannot accept a connection: %s", strerror(errno));
	server_error(s, msg);
}

/* A client that dies ends the whole load: loadd records it and restarts
 * the load with back-off. */
static void reap_clients(struct net_server *s)
{
	char how[64];
	int status;

	for (long i = 0; i < s->nclients; i++) {
		if (s->clients[i] <= 0 || waitpid(s->clients[i], &status, WNOHANG) != s->clients[i])
			continue;
		s->clients[i] = 0;
		exec_status_text(status, how, sizeof how);
		loader_event(s->ctx, "error", "client %ld ended: %s", i, how);
		s->rc = 1;
		event_base_loopbreak(s->base);
	}
}

/* Signals come through a signalfd: the event base loadd left in this
 * process's memory still owns libevent's signal handling. */
static void on_signal(evutil_socket_t fd, short what, void *arg)
{
	struct net_server *s = arg;
	struct signalfd_siginfo si;
	bool stop = false, child = false;

	while (read(fd, &si, sizeof si) == sizeof si) {
		if (si.ssi_signo == SIGCHLD)
			child = true;
		else
			stop = true;
	}
	/* A stop reaches the whole group: clients dying of it are no news (and
	 * their SIGTERM is always read first: lower signals come out first). */
	if (stop)
		event_base_loopbreak(s->base);
	else if (child)
		reap_clients(s);
}

static int serve(struct net_server *s, int listen_fd)
{
	struct evhttp_bound_socket *bound;
	struct event *ev_signal;
	sigset_t mask, old_mask;
	int sfd;
	struct evhttp *http;

	s->base = event_base_new();
	if (s->base == NULL) {
		loader_event(s->ctx, "error", "server: cannot make an event loop");
		close(listen_fd);
		return 1;
	}
	http = evhttp_new(s->base);
	bound = http != NULL ? evhttp_accept_socket_with_handle(http, listen_fd) : NULL;
	if (bound == NULL) {
		loader_event(s->ctx, "error", "server: cannot serve HTTP on its socket");
		if (http != NULL)
			evhttp_free(http);
		close(listen_fd);
		event_base_free(s->base);
		return 1;
	}
	evconnlistener_set_error_cb(evhttp_bound_socket_get_listener(bound), on_accept_error);
	evhttp_set_allowed_methods(http, EVHTTP_REQ_GET);
	evhttp_set_timeout(http, 30);
	evhttp_set_gencb(http, on_request, s);

	/* A stop that came before the signals were blocked was caught by
	 * loader_catch_stop() and shows in loader_stopping(). */
	sigemptyset(&mask);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGCHLD);
	sigprocmask(SIG_BLOCK, &mask, &old_mask);
	sfd = signalfd(-1, &mask, SFD_NONBLOCK | SFD_CLOEXEC);
	if (sfd < 0) {
		loader_event(s->ctx, "error", "server: signalfd: %s", strerror(errno));
		s->rc = 1;
	} else {
		ev_signal = event_new(s->base, sfd, EV_READ | EV_PERSIST, on_signal, s);
		event_add(ev_signal, NULL);
		reap_clients(s);
		if (!loader_stopping() && s->rc == 0)
			event_base_dispatch(s->base);
		event_free(ev_signal);
		close(sfd);
	}
	sigprocmask(SIG_SETMASK, &old_mask, NULL);
	evhttp_free(http); /* closes listen_fd */
	event_base_free(s->base);
	return s->rc;
}

static int net_check(const void *config, const struct load_def *def, const char *file, FILE *errs)
{
	const struct net_config *cfg = config;

	if (cfg->file_size.kind != SIZE_BYTES) {
		fprintf(errs,
			"%s:%d: file_size: give the file's size in bytes (\"1M\"), not as a "
			"share of the machine's memory\n",
			file, load_key_line(def, "file_size"));
		return 1;
	}
	return 0;
}

static void net_describe(const void *config, char *buf, size_t len)
{
	const struct net_config *cfg = config;
	char size[32];

	format_bytes(cfg->file_size.bytes, size, sizeof size);
	snprintf(buf, len, "%ld client%s fetching %s from 127.0.0.1, %s", cfg->clients,
		 cfg->clients == 1 ? "" : "s", size,
		 cfg->keepalive ? "connections kept" : "a new connection each time");
}

static int net_run(const struct loader_ctx *ctx)
{
	const struct net_config *cfg = ctx->config;
	struct net_server s = { .ctx = ctx };
	uint16_t port;
	char *err = NULL;
	int fd;

	if (net_secret_path(s.path) < 0) {
		loader_event(ctx, "error", "server: cannot draw a secret path: %s",
			     strerror(errno));
		return 1;
	}
	fd = net_listen_loopback(&port, &err);
	if (fd < 0) {
		loader_event(ctx, "error", "server: %s", err);
		free(err);
		return 1;
	}
	s.body_len = (size_t)cfg->file_size.bytes;
	s.body = xmalloc(s.body_len);
	memset(s.body, 'x', s.body_len);
	s.nclients = cfg->clients;
	s.clients = xcalloc((size_t)s.nclients, sizeof *s.clients);
	loader_event(ctx, "info", "serving %zu bytes on 127.0.0.1:%u to %ld client%s", s.body_len,
		     (unsigned)port, s.nclients, s.nclients == 1 ? "" : "s");

	/* The clients start before the event loop exists: they inherit none of
	 * it, and their first connections wait in the listen backlog. */
	for (long i = 0; i < s.nclients && !loader_stopping(); i++) {
		pid_t pid = loader_fork();

		if (pid == 0) {
			close(fd);
			client_main(ctx, port, s.path, s.body_len, cfg->keepalive, i);
			_exit(1);
		}
		if (pid < 0) {
			loader_event(ctx, "error", "cannot start client %ld: %s", i,
				     strerror(errno));
			s.rc = 1;
			break;
		}
		s.clients[i] = pid;
	}
	if (s.rc == 0 && !loader_stopping())
		s.rc = serve(&s, fd);
	else
		close(fd);

	for (long i = 0; i < s.nclients; i++) {
		if (s.clients[i] > 0)
			loader_stop_child(s.clients[i], STOP_GRACE_MS);
	}
	free(s.clients);
	free(s.body);
	return s.rc;
}

const struct loader_ops loader_net_ops = {
	.version = LOADER_OPS_VERSION,
	.name = "net",
	.summary = "HTTP on 127.0.0.1: a libevent server of one file, N libcurl clients "
		   "fetching it again and again",
	.options = net_options,
	.config_size = sizeof(struct net_config),
	.cycle_unit = "transfers",
	.ops_unit = "connections",
	.reports_bytes = true,
	.expect = "ops_s >= 1",
	.check = net_check,
	.run = net_run,
	.describe = net_describe,
};
