// SPDX-License-Identifier: GPL-2.0-or-later
/* The fs, net and tree loaders: their [load] sections through
 * loader_validate (values, the programs they need on PATH, file:line in every
 * message); the net client against a bogus server on 127.0.0.1 (every broken
 * reply is an error, a whole body is a transfer); and each loader run for
 * real in a child process until it has counted, then stopped with nothing
 * left behind. The fs loader runs a stand-in dbench (a script on PATH) whose
 * output and exit status the test chooses. */
#include <arpa/inet.h>
#include <errno.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "loader.h"
#include "loader_exec.h"
#include "loader_net.h"
#include "remove_tree.h"
#include "xalloc.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))
/* How long a loader may take to count what a test waits for. Generous: the
 * tests wait for counts, never for a time. */
#define COUNT_TIMEOUT_S 30

static char *make_temp_dir(void)
{
	char *dir = xstrdup("/tmp/loadd-unit-fnt.XXXXXX");

	assert_non_null(mkdtemp(dir));
	return dir;
}

static void remove_all(const char *dir)
{
	assert_int_equal(remove_tree(dir), 0);
}

/* ---- option checks ---- */

struct section {
	const char *type;
	const char *keys[3][2];
};

/* Loadfiles the cases name by these tokens: an empty one, and one whose
 * path climbs out of the load's directory. */
#define LOADFILE_EMPTY "@empty"
#define LOADFILE_CLIMBS "@climbs"
static char *loadfile_dir, *loadfile_empty, *loadfile_climbs;

static int loadfiles_make(void **state)
{
	FILE *fp;

	loadfile_dir = make_temp_dir();
	loadfile_empty = xasprintf("%s/empty.txt", loadfile_dir);
	loadfile_climbs = xasprintf("%s/climbs.txt", loadfile_dir);
	fp = fopen(loadfile_empty, "w");
	assert_non_null(fp);
	fclose(fp);
	fp = fopen(loadfile_climbs, "w");
	assert_non_null(fp);
	fputs("0 NTCreateX \"\\clients\\client1\\ok.doc\" 0x1 0x0 0x0 0\n"
	      "0 NTCreateX \"\\..\\..\\escaped\" 0x1 0x0 0x0 0\n", fp);
	fclose(fp);
	return 0;
}

static int loadfiles_remove(void **state)
{
	remove_all(loadfile_dir);
	free(loadfile_dir);
	free(loadfile_empty);
	free(loadfile_climbs);
	return 0;
}

static const char *loadfile_token(const char *value)
{
	if (value != NULL && strcmp(value, LOADFILE_EMPTY) == 0)
		return loadfile_empty;
	if (value != NULL && strcmp(value, LOADFILE_CLIMBS) == 0)
		return loadfile_climbs;
	return value;
}

static int validate(const struct section *sec, struct load_def *def, char **msgs)
{
	struct kv kvs[3];
	size_t len = 0, n = 0;
	FILE *errs = open_memstream(msgs, &len);
	int problems;

	assert_non_null(errs);
	for (; n < 3 && sec->keys[n][0] != NULL; n++)
		kvs[n] = (struct kv){ .key = (char *)sec->keys[n][0],
				      .value = (char *)loadfile_token(sec->keys[n][1]),
				      .line = 11 + (int)n };
	*def = (struct load_def){ .name = "x", .line = 10, .type = (char *)sec->type,
				  .kvs = kvs, .nkv = n };
	problems = loader_validate(def, "t.conf", errs);
	fclose(errs);
	def->kvs = NULL;
	def->nkv = 0;
	return problems;
}

static void release(struct load_def *def)
{
	const struct loader_ops *ops = def->loader;

	if (ops == NULL)
		return;
	options_free(ops->options, def->config);
	free(def->config);
	def->config = NULL;
}

static void test_listed(void **state)
{
	static const struct {
		const char *name, *cycles;
		bool ops;
	} cases[] = {
		{ "fs", "runs", true },
		{ "net", "transfers", true },
		{ "tree", "tar cycles", false },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		const struct loader_ops *ops = loader_find(cases[i].name);

		if (ops == NULL)
			fail_msg("loader %s is not in loader_table", cases[i].name);
		assert_string_equal(ops->cycle_unit, cases[i].cycles);
		assert_int_equal(ops->ops_unit != NULL, cases[i].ops);
		assert_true(ops->reports_bytes);
	}
	loader_table_check();
}

/* Sets PATH to a dir of its own holding a stand-in dbench (the unit tests do
 * not need the real one) followed by the old PATH; returns the old PATH. */
static char *path_with_fake_dbench(char **dir)
{
	char *saved = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	char *prog, *path;
	FILE *fp;

	*dir = make_temp_dir();
	prog = xasprintf("%s/dbench", *dir);
	fp = fopen(prog, "w");
	assert_non_null(fp);
	fputs("#!/bin/sh\nexit 0\n", fp);
	fclose(fp);
	assert_int_equal(chmod(prog, 0755), 0);
	path = xasprintf("%s:%s", *dir, saved);
	setenv("PATH", path, 1);
	free(path);
	free(prog);
	return saved;
}

static void test_valid_sections(void **state)
{
	static const struct section cases[] = {
		{ "fs", { { "loadfile", LOADFILE_EMPTY } } },
		{ "fs", { { "clients", "1" }, { "runtime", "3s" }, { "loadfile", LOADFILE_EMPTY } } },
		{ "net", { { NULL } } },
		{ "net", { { "clients", "256" }, { "file_size", "64K" }, { "keepalive", "yes" } } },
		{ "net", { { "file_size", "1G" } } },
		{ "tree", { { NULL } } },
		{ "tree", { { "tree", "depth=1 fanout=2 files=3 size=0" } } },
		{ "tree", { { "source", "/" } } },
	};
	char *bin, *saved = path_with_fake_dbench(&bin);

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct load_def def;
		char *msgs;
		int problems = validate(&cases[i], &def, &msgs);

		if (problems != 0)
			fail_msg("case %zu (%s): %d problem(s): %s", i, cases[i].type, problems, msgs);
		assert_non_null(def.config);
		release(&def);
		free(msgs);
	}
	setenv("PATH", saved, 1);
	remove_all(bin);
	free(bin);
	free(saved);
}

/* Each refused section and the exact place its message names. */
static void test_refused_sections(void **state)
{
	static const struct {
		struct section sec;
		const char *message;
	} cases[] = {
		{ { "fs", { { "clients", "0" } } }, "t.conf:11:" },
		{ { "fs", { { "runtime", "1500ms" } } },
		  "t.conf:11: runtime: dbench runs for whole seconds; write e.g. 10s\n" },
		{ { "fs", { { "runtime", "500ms" } } }, "t.conf:11:" },
		{ { "fs", { { "clients", "2" }, { "loadfile", "/nonexistent/client.txt" } } },
		  "t.conf:12: loadfile: cannot read /nonexistent/client.txt: No such file or "
		  "directory\n" },
		{ { "fs", { { "clients", "2" }, { "loadfile", LOADFILE_CLIMBS } } }, "t.conf:12: loadfile " },
		{ { "fs", { { "threads", "2" } } }, "t.conf:11:" },
		{ { "net", { { "file_size", "50%" } } },
		  "t.conf:11: file_size: give the file's size in bytes (\"1M\"), not as a share of "
		  "the machine's memory\n" },
		{ { "net", { { "file_size", "0" } } }, "t.conf:11:" },
		{ { "net", { { "file_size", "2G" } } }, "t.conf:11:" },
		{ { "net", { { "clients", "257" } } }, "t.conf:11:" },
		{ { "net", { { "keepalive", "maybe" } } }, "t.conf:11:" },
		{ { "tree", { { "tree", "depth=99" } } }, "t.conf:11:" },
		{ { "tree", { { "tree", "depth=2 colour=red" } } }, "t.conf:11:" },
		{ { "tree", { { "source", "srcdir" } } },
		  "t.conf:11: source: give the directory as an absolute path, not 'srcdir'\n" },
		{ { "tree", { { "source", "/nonexistent" } } },
		  "t.conf:11: source: /nonexistent: No such file or directory\n" },
		{ { "tree", { { "source", "/dev/null" } } },
		  "t.conf:11: source: /dev/null is not a directory\n" },
	};
	char *bin, *saved = path_with_fake_dbench(&bin);

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct load_def def;
		char *msgs;
		int problems = validate(&cases[i].sec, &def, &msgs);

		if (problems == 0)
			fail_msg("case %zu (%s): accepted", i, cases[i].sec.type);
		if (strstr(msgs, cases[i].message) != msgs)
			fail_msg("case %zu: expected \"%s\", got \"%s\"", i, cases[i].message, msgs);
		assert_null(def.config);
		free(msgs);
	}
	setenv("PATH", saved, 1);
	remove_all(bin);
	free(bin);
	free(saved);
}

/* The programs are looked up on loadd's own PATH, as execvp would. */
static void test_programs_on_path(void **state)
{
	static const struct {
		const char *type;
		const char *message;
	} cases[] = {
		{ "fs", "t.conf:10: load 'x' needs the dbench program (package dbench)\n" },
		{ "tree", "t.conf:10: load 'x' needs the tar program (package tar)\n" },
	};
	char *saved = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	char *empty = make_temp_dir();

	setenv("PATH", empty, 1);
	for (size_t i = 0; i < NCASES(cases); i++) {
		struct section sec = { cases[i].type, { { NULL } } };
		struct load_def def;
		char *msgs;

		assert_int_equal(validate(&sec, &def, &msgs), 1);
		assert_string_equal(msgs, cases[i].message);
		free(msgs);
	}
	setenv("PATH", saved, 1);
	rmdir(empty);
	free(empty);
	free(saved);
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

static struct loader_shm *shm_new(void)
{
	struct loader_shm *shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE,
				      MAP_SHARED | MAP_ANONYMOUS, -1, 0);

	assert_true(shm != MAP_FAILED);
	memset(shm, 0, sizeof *shm);
	return shm;
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
		{ "short body, no length", "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n01234", false,
		  "a body of 5 bytes, expected 10" },
		{ "long body", "HTTP/1.1 200 OK\r\nContent-Length: 12\r\n\r\n0123456789ab", false,
		  "a body of 12 bytes, expected 10" },
		{ "server error", "HTTP/1.1 500 Oops\r\nContent-Length: 10\r\n\r\n0123456789", false,
		  "HTTP status 500" },
		{ "not found", "HTTP/1.1 404 Not Found\r\nContent-Length: 0\r\n\r\n", false,
		  "HTTP status 404" },
		{ "not HTTP", "SSH-2.0-OpenSSH_9.2\r\n", false, "" },
		{ "closed at once", "", false, "" },
		{ "whole body", "HTTP/1.1 200 OK\r\nContent-Length: 10\r\n\r\n0123456789", true, NULL },
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

/* ---- the loaders run for real ---- */

struct child_run {
	pid_t pid;
	int events;   /* read end of the event pipe */
	struct loader_shm *shm;
	char *dir;    /* the load's scratch dir, <workdir>/load-x */
	char *workdir;
};

/* Starts the validated load in a child of its own process group, as loadd
 * would (the parent-death signal aside: the test outlives it anyway). */
static void child_start(struct child_run *r, const struct load_def *def, const char *workdir)
{
	const struct loader_ops *ops = def->loader;
	int pipefd[2];

	r->shm = shm_new();
	r->workdir = xstrdup(workdir);
	r->dir = xasprintf("%s/load-x", workdir);
	assert_int_equal(mkdir(r->dir, 0700), 0);
	assert_int_equal(pipe2(pipefd, O_CLOEXEC), 0);
	fcntl(pipefd[1], F_SETFL, O_NONBLOCK);
	r->events = pipefd[0];
	r->pid = fork();
	assert_true(r->pid >= 0);
	if (r->pid == 0) {
		struct loader_ctx ctx = { .name = "x", .config = def->config, .dir = r->dir,
					  .shm = r->shm, .event_fd = pipefd[1] };

		setpgid(0, 0);
		close(pipefd[0]);
		loader_catch_stop();
		_exit(ops->run(&ctx));
	}
	setpgid(r->pid, r->pid);
	close(pipefd[1]);
}

static bool wait_cycles(struct child_run *r, uint64_t cycles)
{
	const struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };

	for (int i = 0; i < COUNT_TIMEOUT_S * 50; i++) {
		if (atomic_load(&r->shm->cycles) >= cycles)
			return true;
		if (waitpid(r->pid, NULL, WNOHANG) == r->pid) {
			r->pid = 0;
			return false;
		}
		nanosleep(&tick, NULL);
	}
	return false;
}

/* Everything the loader wrote to its event pipe. */
static char *child_events(struct child_run *r)
{
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);
	char buf[512];
	ssize_t n;

	while ((n = read(r->events, buf, sizeof buf)) > 0)
		fwrite(buf, 1, (size_t)n, fp);
	fclose(fp);
	return text;
}

/* SIGTERM to the group as loadd sends it; returns the loader's wait status.
 * Then no process of the group may be left. */
static int child_stop(struct child_run *r)
{
	int status = 0;

	const struct timespec tick = { .tv_nsec = 20 * 1000 * 1000 };

	if (r->pid <= 0)
		return 0;
	kill(-r->pid, SIGTERM);
	assert_int_equal(waitpid(r->pid, &status, 0), r->pid);
	/* The loader reaped its own children; what they started (dbench's
	 * clients) got the same SIGTERM and goes within the grace loadd gives. */
	for (int i = 0; kill(-r->pid, 0) == 0; i++) {
		if (i == 250)
			fail_msg("processes of group %d are left 5 s after the stop", (int)r->pid);
		nanosleep(&tick, NULL);
	}
	assert_int_equal(errno, ESRCH);
	return status;
}

static void child_free(struct child_run *r)
{
	close(r->events);
	munmap(r->shm, sizeof *r->shm);
	free(r->dir);
	free(r->workdir);
}

/* True when dir has nothing in it. */
static bool dir_empty(const char *dir)
{
	char *cmd = xasprintf("test -z \"$(ls -A '%s')\"", dir);
	int rc = system(cmd);

	free(cmd);
	return rc == 0;
}

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
		struct section sec = { "net", { { "clients", "2" }, { "file_size", "64K" },
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

/* The size of the archive tar makes of dir. */
static uint64_t tar_size(const char *dir)
{
	char *cmd = xasprintf("tar -b 20 -cf - -C '%s' . | wc -c", dir);
	unsigned long long size = 0;
	FILE *fp = popen(cmd, "r");

	assert_non_null(fp);
	assert_int_equal(fscanf(fp, "%llu", &size), 1);
	pclose(fp);
	free(cmd);
	assert_true(size >= 3000 * 1001);
	return size;
}

static void test_tree_runs(void **state)
{
	char *work = make_temp_dir(), *src = xasprintf("%s/src", work), *sub, *file, *msgs;
	char *events, *tree_dir;
	uint64_t archive_bytes, cycles, bytes;
	struct child_run r;
	struct load_def def;
	struct stat st;
	FILE *fp;

	/* A given source with a 3 MB file: GNU tar reports its records as it
	 * goes. Each cycle counts the archive twice (written, read back), the
	 * checkpoints and what comes after the last one summing to its size. */
	assert_int_equal(mkdir(src, 0755), 0);
	sub = xasprintf("%s/sub", src);
	assert_int_equal(mkdir(sub, 0755), 0);
	file = xasprintf("%s/f", sub);
	fp = fopen(file, "w");
	assert_non_null(fp);
	for (int i = 0; i < 3000; i++)
		fprintf(fp, "%01000d\n", i);
	fclose(fp);
	archive_bytes = tar_size(src);
	struct section given = { "tree", { { "source", src } } };
	assert_int_equal(validate(&given, &def, &msgs), 0);
	free(msgs);
	child_start(&r, &def, work);
	assert_true(wait_cycles(&r, 3));
	assert_int_equal(child_stop(&r), 0);
	cycles = atomic_load(&r.shm->cycles);
	bytes = atomic_load(&r.shm->bytes);
	if (bytes < cycles * 2 * archive_bytes || bytes >= (cycles + 1) * 2 * archive_bytes)
		fail_msg("%llu bytes for %llu cycles of a %llu-byte archive",
			 (unsigned long long)bytes, (unsigned long long)cycles,
			 (unsigned long long)archive_bytes);
	assert_int_equal(bytes % 10240, 0); /* tar's records */
	assert_int_equal(atomic_load(&r.shm->errors), 0);
	assert_true(dir_empty(r.dir));
	assert_int_equal(stat(file, &st), 0); /* the source is only read */
	assert_int_equal(remove_tree(r.dir), 0);
	child_free(&r);
	release(&def);

	/* The generated tree: built in <workdir>/tar-trees, kept after the stop. */
	assert_int_equal(remove_tree(src), 0);
	struct section own = { "tree", { { "tree", "depth=1 fanout=2 files=2 size=100" } } };
	assert_int_equal(validate(&own, &def, &msgs), 0);
	free(msgs);
	child_start(&r, &def, work);
	assert_true(wait_cycles(&r, 2));
	assert_int_equal(child_stop(&r), 0);
	assert_true(dir_empty(r.dir));
	events = child_events(&r);
	assert_non_null(strstr(events, "info tree "));
	free(events);
	tree_dir = xasprintf("%s/tar-trees", work);
	assert_false(dir_empty(tree_dir));
	child_free(&r);
	release(&def);
	remove_all(work);
	free(tree_dir);
	free(work);
	free(src);
	free(sub);
	free(file);
}

/* A stand-in dbench: prints what dbench prints and exits as told; after
 * three runs it hangs without a word, so the counts are exact. */
static const char fake_dbench_ok[] =
	"#!/bin/sh\n"
	"d=$(dirname \"$0\")\n"
	"echo \"args: $*\" >> \"$d/args\"\n"
	"n=$(($(cat \"$d/runs\" 2>/dev/null || echo 0) + 1))\n"
	"echo $n > \"$d/runs\"\n"
	"[ $n -le 3 ] || exec sleep 1000\n"
	"echo 'dbench version 4.00 - Copyright Andrew Tridgell 1999-2004'\n"
	"echo '   2      1000   900.00 MB/sec  warmup   2 sec  latency 1.000 ms'\n"
	"echo '   2      3000   150.00 MB/sec  execute   1 sec  latency 1.000 ms'\n"
	"echo '   2      5000   200.00 MB/sec  execute   2 sec  latency 1.000 ms'\n"
	"echo '   2  cleanup   3 sec'\n"
	"echo 'Throughput 210 MB/sec  2 clients  2 procs  max_latency=1.000 ms'\n";

static const char fake_dbench_fails[] =
	"#!/bin/sh\n"
	"echo '   2      1000   100.00 MB/sec  warmup   1 sec  latency 1.000 ms'\n"
	"echo 'ERROR: no space left on device' >&2\n"
	"exit 3\n";

static void write_script(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(path, 0755), 0);
}

static void test_fs_runs(void **state)
{
	char *work = make_temp_dir(), *bin = xasprintf("%s/bin", work);
	char *dbench = xasprintf("%s/dbench", bin), *args_path = xasprintf("%s/args", bin);
	char *saved = xstrdup(getenv("PATH")), *path, *msgs, *events, args[512];
	struct child_run r;
	struct load_def def;
	FILE *fp;
	size_t n;

	assert_int_equal(mkdir(bin, 0755), 0);
	write_script(dbench, fake_dbench_ok);
	path = xasprintf("%s:%s", bin, saved);
	setenv("PATH", path, 1);

	struct section sec = { "fs", { { "clients", "2" }, { "runtime", "3s" },
				      { "loadfile", LOADFILE_EMPTY } } };
	assert_int_equal(validate(&sec, &def, &msgs), 0);
	free(msgs);
	child_start(&r, &def, work);
	assert_true(wait_cycles(&r, 3));
	assert_int_equal(child_stop(&r), 0);
	/* 5000 operations a run; bytes from the execute period only: 210 MB/s
	 * over its 2 s (the Throughput line corrects the per-second lines). */
	assert_int_equal(atomic_load(&r.shm->cycles), 3);
	assert_int_equal(atomic_load(&r.shm->ops), 3 * 5000);
	assert_int_equal(atomic_load(&r.shm->bytes), 3 * 420000000ULL);
	assert_int_equal(atomic_load(&r.shm->errors), 0);
	fp = fopen(args_path, "r");
	assert_non_null(fp);
	n = fread(args, 1, sizeof args - 1, fp);
	args[n] = '\0';
	fclose(fp);
	char *expect = xasprintf("args: -c %s -D %s -t 3 2\n", loadfile_empty, r.dir);
	assert_true(strncmp(args, expect, strlen(expect)) == 0);
	free(expect);
	assert_int_equal(remove_tree(r.dir), 0);
	child_free(&r);
	release(&def);

	/* A failed run: counted, told as an event with dbench's last words,
	 * and the loader ends (loadd restarts it with back-off). */
	write_script(dbench, fake_dbench_fails);
	assert_int_equal(validate(&sec, &def, &msgs), 0);
	free(msgs);
	child_start(&r, &def, work);
	{
		int status;

		assert_int_equal(waitpid(r.pid, &status, 0), r.pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 1);
	}
	assert_int_equal(atomic_load(&r.shm->errors), 1);
	assert_int_equal(atomic_load(&r.shm->cycles), 0);
	events = child_events(&r);
	assert_string_equal(events, "error dbench ended with exit status 3: ERROR: no space left "
				    "on device\n");
	free(events);
	child_free(&r);
	release(&def);

	setenv("PATH", saved, 1);
	remove_all(work);
	free(work);
	free(bin);
	free(dbench);
	free(args_path);
	free(saved);
	free(path);
}

/* A child's last line goes into events and the log escaped: its escape
 * sequences cannot reach a terminal that shows them. */
static void test_exec_output_escaped(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "printf 'plain\\n\\033[31mred\\a\\n'", NULL };
	struct exec_child c;
	char *err = NULL;

	assert_int_equal(exec_start(argv, &c, &err), 0);
	assert_true(exec_finish(&c, NULL, NULL) >= 0);
	assert_non_null(strstr(c.last_line, "\\x1b[31mred"));
	for (const char *p = c.last_line; *p != '\0'; p++)
		assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listed),
		cmocka_unit_test(test_valid_sections),
		cmocka_unit_test(test_refused_sections),
		cmocka_unit_test(test_programs_on_path),
		cmocka_unit_test(test_listen_loopback_only),
		cmocka_unit_test(test_client_counts_broken_replies),
		cmocka_unit_test(test_client_no_server),
		cmocka_unit_test(test_net_runs),
		cmocka_unit_test(test_net_client_killed),
		cmocka_unit_test(test_tree_runs),
		cmocka_unit_test(test_fs_runs),
		cmocka_unit_test(test_exec_output_escaped),
	};

	signal(SIGPIPE, SIG_IGN);
	return cmocka_run_group_tests(tests, loadfiles_make, loadfiles_remove);
}
