// SPDX-License-Identifier: GPL-2.0-or-later
/* The net loader: its [load] sections through loader_validate; its client
 * against a bogus server on 127.0.0.1 (every broken reply is an error, a
 * whole body is a transfer); its server on the loopback only; and the loader
 * run for real: counted, stopped, a client killed from outside named in an
 * event. */
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "loader_net.h"
#include "loader_test.h"
#include "remove_tree.h"
#include "xalloc.h"

static void test_listed(void **state)
{
	check_listed("net", "transfers", true);
}

static void test_valid_sections(void **state)
{
	static const struct section cases[] = {
		{ "net", { { NULL } } },
		{ "net", { { "clients", "256" }, { "file_size", "64K" }, { "keepalive", "yes" } } },
		{ "net", { { "file_size", "1G" } } },
	};

	check_valid(cases, NCASES(cases));
}

/* Each refused section and the exact place its message names. */
static void test_refused_sections(void **state)
{
	static const struct refused cases[] = {
		{ { "net", { { "file_size", "50%" } } },
		  "t.conf:11: file_size: give the file's size in bytes (\"1M\"), not as a share of "
		  "the machine's memory\n" },
		{ { "net", { { "file_size", "0" } } }, "t.conf:11:" },
		{ { "net", { { "file_size", "2G" } } }, "t.conf:11:" },
		{ { "net", { { "clients", "257" } } }, "t.conf:11:" },
		{ { "net", { { "keepalive", "maybe" } } }, "t.conf:11:" },
	};

	check_refused(cases, NCASES(cases));
}

/* ---- the net client against a bogus server ---- */

struct bogus {
	int fd;
	const char *reply;
	size_t reply_len;
};

/* Serves one connection: reads the request head, writes the canned reply
 * (a truncated body among them), closes. */
static void *bogus_serve(void *arg)
{
	struct bogus *b = arg;
	char req[4096];
	size_t used = 0;
	int conn = accept(b->fd, NULL, NULL);

	if (conn < 0)
		return NULL;
	while (used < sizeof req - 1) {
		ssize_t n = read(conn, req + used, sizeof req - 1 - used);

		if (n <= 0)
			break;
		used += (size_t)n;
		req[used] = '\0';
		if (strstr(req, "\r\n\r\n") != NULL)
			break;
	}
	if (write(conn, b->reply, b->reply_len) < 0)
		perror("bogus server");
	close(conn);
	return NULL;
}

static void test_client_counts_broken_replies(void **state)
{
	static const struct {
		const char *what;
		const char *reply;
		bool whole;
		const char *reason;
	} cases[] = {
		{ "truncated body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123", false,
		  "transfer closed" },
		{ "short body, no length", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n01234",
		  false, "a body of 5 bytes, expected 10" },
		{ "long body", "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n0123456789ab", false,
		  "a body of 12 bytes, expected 10" },
		{ "server error", "HTTP/1.1 500 Oops\r\nContent-Length: 10\r\n\r\n0123456789",
		  false, "HTTP status 500" },
		{ "not found", "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false,
		  "HTTP status 404" },
		{ "not HTTP", "SSH-2.0-OpenSSH_9.2\r\n", false, "" },
		{ "closed at once", "", false, "" },
		{ "whole body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", true,
		  NULL },
	};
	struct loader_shm *shm = shm_new();
	uint64_t errors = 0, transfers = 0;

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct bogus b = { .reply = cases[i].reply, .reply_len = strlen(cases[i].reply) };
		struct net_client *c;
		char *err = NULL, why[512] = "";
		pthread_t thread;
		uint16_t port;
		int rc;

		b.fd = net_listen_loopback(&port, &err);
		assert_true(b.fd >= 0);
		/* The bogus server blocks in accept(). */
		fcntl(b.fd, F_SETFL, fcntl(b.fd, F_GETFL) & ~O_NONBLOCK);
		assert_int_equal(pthread_create(&thread, NULL, bogus_serve, &b), 0);
		c = net_client_new(port, "/", 10, false, &err);
		assert_non_null(c);
		rc = net_client_fetch(c, shm, why, sizeof why);
		pthread_join(thread, NULL);
		close(b.fd);
		net_client_free(c);

		if (cases[i].whole) {
			if (rc != 0)
				fail_msg("%s: not taken: %s", cases[i].what, why);
			transfers++;
		} else {
			if (rc == 0)
				fail_msg("%s: taken as a whole body", cases[i].what);
			if (strstr(why, cases[i].reason) == NULL)
				fail_msg("%s: reason \"%s\" lacks \"%s\"", cases[i].what, why,
					 cases[i].reason);
			errors++;
		}
		assert_int_equal(atomic_load(&shm->errors), errors);
		assert_int_equal(atomic_load(&shm->cycles), transfers);
		assert_int_equal(atomic_load(&shm->bytes), transfers * 10);
		assert_int_equal(atomic_load(&shm->ops), transfers);
	}
	munmap(shm, sizeof *shm);
}

/* Nobody listening: a connection error, counted. */
static void test_client_no_server(void **state)
{
	struct loader_shm *shm = shm_new();
	struct net_client *c;
	char *err = NULL, why[512];
	uint16_t port;
	int fd = net_listen_loopback(&port, &err);

	assert_true(fd >= 0);
	close(fd);
	c = net_client_new(port, "/", 10, true, &err);
	assert_non_null(c);
	assert_int_equal(net_client_fetch(c, shm, why, sizeof why), -1);
	assert_non_null(strstr(why, "127.0.0.1"));
	assert_int_equal(atomic_load(&shm->errors), 1);
	assert_int_equal(atomic_load(&shm->cycles), 0);
	assert_int_equal(atomic_load(&shm->last_progress_ns), 0);
	net_client_free(c);
	munmap(shm, sizeof *shm);
}

static void test_listen_loopback_only(void **state)
{
	struct sockaddr_in addr;
	socklen_t len = sizeof addr;
	char *err = NULL;
	uint16_t port;
	int fd = net_listen_loopback(&port, &err);

	assert_true(fd >= 0);
	assert_int_equal(getsockname(fd, (struct sockaddr *)&addr, &len), 0);
	assert_int_equal(addr.sin_family, AF_INET);
	assert_int_equal(ntohl(addr.sin_addr.s_addr), INADDR_LOOPBACK);
	assert_int_equal(ntohs(addr.sin_port), port);
	assert_true(port != 0);
	close(fd);
}

/* ---- the loader run for real ---- */

static void test_net_runs(void **state)
{
	static const struct {
		const char *keepalive;
		bool one_connection_each; /* connections == clients */
	} cases[] = {
		{ "no", false },
		{ "yes", true },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct section sec = { "net",
				       { { "clients", "2" },
					 { "file_size", "64K" },
					 { "keepalive", cases[i].keepalive } } };
		char *work = make_temp_dir(), *msgs, *events;
		struct child_run r;
		struct load_def def;
		uint64_t cycles, ops, bytes;

		assert_int_equal(validate(&sec, &def, &msgs), 0);
		free(msgs);
		child_start(&r, &def, work);
		if (!wait_cycles(&r, 50))
			fail_msg("keepalive=%s: %llu transfers", cases[i].keepalive,
				 (unsigned long long)atomic_load(&r.shm->cycles));
		assert_true(WIFEXITED(child_stop(&r)));
		cycles = atomic_load(&r.shm->cycles);
		ops = atomic_load(&r.shm->ops);
		bytes = atomic_load(&r.shm->bytes);
		/* A client killed inside loader_progress() may have added its
		 * transfer but not yet its bytes or connection: one each at most. */
		assert_true(bytes <= cycles * 64 * 1024 && bytes >= (cycles - 2) * 64 * 1024);
		assert_int_equal(atomic_load(&r.shm->errors), 0);
		if (cases[i].one_connection_each)
			assert_int_equal(ops, 2);
		else
			assert_true(ops <= cycles && ops >= cycles - 2);
		events = child_events(&r);
		assert_non_null(strstr(events, "info serving 65536 bytes on 127.0.0.1:"));
		/* Clients that die of the stop are not errors. */
		if (strstr(events, "error") != NULL)
			fail_msg("keepalive=%s: %s", cases[i].keepalive, events);
		free(events);
		child_free(&r);
		release(&def);
		remove_all(work);
		free(work);
	}
}

/* A client killed from outside ends the load with an event naming it; loadd
 * then restarts the whole load. */
static void test_net_client_killed(void **state)
{
	struct section sec = { "net", { { "clients", "1" }, { "file_size", "4K" } } };
	char *work = make_temp_dir(), *msgs, *events, *path, children[64] = "";
	struct child_run r;
	struct load_def def;
	FILE *fp;
	int status;
	long client;

	assert_int_equal(validate(&sec, &def, &msgs), 0);
	free(msgs);
	child_start(&r, &def, work);
	assert_true(wait_cycles(&r, 5));
	path = xasprintf("/proc/%d/task/%d/children", (int)r.pid, (int)r.pid);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(children, sizeof children, fp));
	fclose(fp);
	client = strtol(children, NULL, 10);
	assert_true(client > 0);
	assert_int_equal(kill((pid_t)client, SIGKILL), 0);
	assert_int_equal(waitpid(r.pid, &status, 0), r.pid);
	assert_true(WIFEXITED(status));
	assert_int_equal(WEXITSTATUS(status), 1);
	events = child_events(&r);
	if (strstr(events, "error client 0 ended: killed by SIGKILL\n") == NULL)
		fail_msg("events: %s", events);
	free(events);
	free(path);
	child_free(&r);
	release(&def);
	remove_all(work);
	free(work);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listed),
		cmocka_unit_test(test_valid_sections),
		cmocka_unit_test(test_refused_sections),
		cmocka_unit_test(test_listen_loopback_only),
		cmocka_unit_test(test_client_counts_broken_replies),
		cmocka_unit_test(test_client_no_server),
		cmocka_unit_test(test_net_runs),
		cmocka_unit_test(test_net_client_killed),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
