// SPDX-License-Identifier: GPL-2.0-or-later
/* The loader interface's shared half: finding and validating loaders, the
 * start-up check of the table, --list-loaders, and the helpers every loader
 * uses in its own processes (progress, events, stopping, children, cleanup). */
#include "loader.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "core_file.h"
#include "log.h"
#include "run_user.h"
#include "parse.h"
#include "timeutil.h"
#include "xalloc.h"

/* The keys every [load NAME] takes besides type, whatever its loader. */
struct load_common {
	int64_t stall_ms;
	char *expect;
};

/* clang-format off */
const struct option_def load_common_options[] = {
	{ .key = "stall", .type = OPT_DURATION, .offset = offsetof(struct load_common, stall_ms),
	  .def = "10s", .min = 1000, .max = 3600 * 1000LL,
	  .help = "no progress for this long flags the load as stalled (an event; a probe window "
		  "without any progress makes the phase invalid)" },
	{ .key = "expect", .type = OPT_STRING, .offset = offsetof(struct load_common, expect),
	  .def = NULL,
	  .help = "what the load must achieve over the probe window, else the phase is marked "
		  "weak: terms such as busy >= 90%, psi_memory > 0%, available <= 1G, mib_s >= "
		  "10, ops_s >= 1, cycles >= 1, joined by | (any suffices); none: no check. "
		  "Default: the loader's own (--list-loaders)" },
	{ .key = NULL },
};
/* clang-format on */

const struct loader_ops *loader_find(const char *name)
{
	for (size_t i = 0; loader_table[i] != NULL; i++) {
		if (strcmp(loader_table[i]->name, name) == 0)
			return loader_table[i];
	}
	return NULL;
}

/* "cpu, memory, read" for messages. */
static void known_loaders(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; loader_table[i] != NULL && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 loader_table[i]->name);
		if (n < 0)
			break;
		used += (size_t)n;
	}
}

/* The name becomes a directory, load-NAME, under the work dir. */
static bool load_name_ok(const char *name)
{
	if (name == NULL || *name == '\0' || strcmp(name, ".") == 0 || strcmp(name, "..") == 0)
		return false;
	for (const char *p = name; *p; p++) {
		if (!(*p >= 'a' && *p <= 'z') && !(*p >= 'A' && *p <= 'Z') &&
		    !(*p >= '0' && *p <= '9') && *p != '-' && *p != '_' && *p != '.')
			return false;
	}
	return strlen(name) <= 64;
}

int loader_validate(struct load_def *def, const char *file, FILE *errs)
{
	const struct loader_ops *ops;
	struct load_common common;
	struct kv *common_kvs, *own_kvs;
	size_t ncommon = 0, nown = 0;
	char known[256], *section;
	void *config;
	int problems = 0;

	if (!load_name_ok(def->name)) {
		fprintf(errs,
			"%s:%d: load name '%s' is not usable: use up to 64 letters, digits, "
			"'-', '_' or '.'\n",
			file, def->line, def->name ? def->name : "");
		problems++;
	}
	known_loaders(known, sizeof known);
	if (def->type == NULL || *def->type == '\0') {
		fprintf(errs, "%s:%d: [load %s] has no type; known: %s\n", file, def->line,
			def->name ? def->name : "", known);
		return problems + 1;
	}
	ops = loader_find(def->type);
	if (ops == NULL) {
		fprintf(errs, "%s:%d: unknown load type '%s'; known: %s\n", file, def->line,
			def->type, known);
		return problems + 1;
	}

	/* Keys of the common table go there; everything else is the loader's,
	 * whose table then names any unknown key with its line. */
	common_kvs = xcalloc(def->nkv, sizeof *common_kvs);
	own_kvs = xcalloc(def->nkv, sizeof *own_kvs);
	for (size_t i = 0; i < def->nkv; i++) {
		if (options_find(load_common_options, def->kvs[i].key) != NULL)
			common_kvs[ncommon++] = def->kvs[i];
		else
			own_kvs[nown++] = def->kvs[i];
	}
	section = xasprintf("load %s", def->name ? def->name : "");
	memset(&common, 0, sizeof common);
	problems += options_apply(load_common_options, &common, common_kvs, ncommon, file, section,
				  errs);
	config = xcalloc(1, ops->config_size);
	problems += options_apply(ops->options, config, own_kvs, nown, file, section, errs);
	if (problems == 0 && ops->check != NULL)
		problems += ops->check(config, def, file, errs);
	{
		const char *text = common.expect != NULL ? common.expect : ops->expect;
		const char *err;

		if (expect_parse(text, &def->expect, &err) < 0) {
			fprintf(errs, "%s:%d: expect: %s\n", file, load_key_line(def, "expect"),
				err);
			problems++;
		}
	}
	options_free(load_common_options, &common);
	free(section);
	free(common_kvs);
	free(own_kvs);

	if (problems != 0) {
		options_free(ops->options, config);
		free(config);
		return problems;
	}
	def->loader = ops;
	def->config = config;
	def->options = ops->options;
	def->stall_ms = common.stall_ms;
	return 0;
}

void loader_print_all(FILE *fp)
{
	char known[256];

	known_loaders(known, sizeof known);
	fprintf(fp, "Every [load NAME] section takes:\n");
	fprintf(fp, "  type = (required)  the loader to run, one of: %s\n", known);
	options_print(load_common_options, fp);
	for (size_t i = 0; loader_table[i] != NULL; i++) {
		const struct loader_ops *ops = loader_table[i];

		fprintf(fp, "\n%s: %s\n", ops->name, ops->summary);
		fprintf(fp, "  counts: %s", ops->cycle_unit);
		if (ops->ops_unit != NULL)
			fprintf(fp, ", %s", ops->ops_unit);
		if (ops->reports_bytes)
			fprintf(fp, ", MiB/s");
		fputc('\n', fp);
		fprintf(fp, "  expects: %s\n", ops->expect);
		options_print(ops->options, fp);
	}
}

/* ---- the start-up check ---- */

static size_t option_size(enum opt_type type)
{
	switch (type) {
	case OPT_INT: return sizeof(long);
	case OPT_BOOL: return sizeof(bool);
	case OPT_DURATION: return sizeof(int64_t);
	case OPT_SIZE: return sizeof(struct size_spec);
	case OPT_STRING: return sizeof(char *);
	case OPT_ENUM: return sizeof(int);
	case OPT_CUSTOM: return 1;
	}
	return 0;
}

static void check_options(const struct loader_ops *ops)
{
	const struct option_def *opt;
	char *errbuf = NULL;
	size_t errlen = 0;
	FILE *errs;
	void *scratch;
	int problems;

	for (opt = ops->options; opt->key != NULL; opt++) {
		size_t size = option_size(opt->type);

		if (size == 0)
			fatalx("loader %s: option %s: unknown type %d", ops->name, opt->key,
			       opt->type);
		if (opt->help == NULL || *opt->help == '\0')
			fatalx("loader %s: option %s has no help", ops->name, opt->key);
		if (strcmp(opt->key, "type") == 0 || options_find(load_common_options, opt->key))
			fatalx("loader %s: option %s is a key every load takes", ops->name,
			       opt->key);
		if (options_find(ops->options, opt->key) != opt)
			fatalx("loader %s: option %s is listed twice", ops->name, opt->key);
		if (opt->offset + size > ops->config_size)
			fatalx("loader %s: option %s lies outside the config struct", ops->name,
			       opt->key);
		if (opt->min > opt->max)
			fatalx("loader %s: option %s: range %lld..%lld is empty", ops->name,
			       opt->key, opt->min, opt->max);
		if (opt->type == OPT_ENUM && (opt->choices == NULL || opt->choices[0] == NULL))
			fatalx("loader %s: option %s has no choices", ops->name, opt->key);
		if (opt->type == OPT_CUSTOM && opt->parse == NULL)
			fatalx("loader %s: option %s has no parser", ops->name, opt->key);
	}

	/* Every default must pass the table's own checks, and the loader's. */
	errs = open_memstream(&errbuf, &errlen);
	if (errs == NULL)
		fatal("open_memstream");
	scratch = xcalloc(1, ops->config_size);
	problems = options_apply(ops->options, scratch, NULL, 0, "(built-in defaults)", ops->name,
				 errs);
	if (problems == 0 && ops->check != NULL) {
		struct load_def def = { .name = (char *)ops->name, .type = (char *)ops->name };

		problems = ops->check(scratch, &def, "(built-in defaults)", errs);
	}
	fclose(errs);
	options_free(ops->options, scratch);
	free(scratch);
	if (problems != 0)
		fatalx("loader %s: its defaults are invalid:\n%s", ops->name, errbuf);
	free(errbuf);
}

void loader_table_check(void)
{
	for (size_t i = 0; loader_table[i] != NULL; i++) {
		const struct loader_ops *ops = loader_table[i];

		if (ops->version != LOADER_OPS_VERSION)
			fatalx("loader %zu (%s): interface version %d, this loadd needs %d", i,
			       ops->name ? ops->name : "?", ops->version, LOADER_OPS_VERSION);
		if (ops->name == NULL || *ops->name == '\0')
			fatalx("loader %zu has no name", i);
		for (const char *p = ops->name; *p; p++) {
			if (!(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9') && *p != '-')
				fatalx("loader %s: a name is lower-case letters, digits and '-'",
				       ops->name);
		}
		if (loader_find(ops->name) != ops)
			fatalx("loader %s is listed twice", ops->name);
		if (ops->summary == NULL || ops->cycle_unit == NULL)
			fatalx("loader %s has no summary or cycle unit", ops->name);
		if (ops->run == NULL)
			fatalx("loader %s has no run function", ops->name);
		if (ops->options == NULL || ops->config_size == 0)
			fatalx("loader %s has no options table or config size", ops->name);
		{
			struct expectation e;
			const char *err;

			if (ops->expect == NULL || expect_parse(ops->expect, &e, &err) < 0)
				fatalx("loader %s: its default expectation is missing or wrong",
				       ops->name);
		}
		check_options(ops);
	}
}

/* ---- helpers for loaders ---- */

void loader_set_reach(struct loader_shm *shm, enum loader_reach reach)
{
	atomic_store_explicit(&shm->reach, (int)reach, memory_order_relaxed);
}

void loader_progress(struct loader_shm *shm, uint64_t cycles, uint64_t bytes, uint64_t ops)
{
	if (cycles == 0 && bytes == 0 && ops == 0)
		return;
	if (cycles != 0)
		atomic_fetch_add_explicit(&shm->cycles, cycles, memory_order_relaxed);
	if (bytes != 0)
		atomic_fetch_add_explicit(&shm->bytes, bytes, memory_order_relaxed);
	if (ops != 0)
		atomic_fetch_add_explicit(&shm->ops, ops, memory_order_relaxed);
	atomic_store_explicit(&shm->last_progress_ns, mono_ns(), memory_order_relaxed);
}

void loader_error(struct loader_shm *shm)
{
	atomic_fetch_add_explicit(&shm->errors, 1, memory_order_relaxed);
}

/* One write() below PIPE_BUF is atomic, so lines from several processes of
 * a loader never interleave. The pipe is non-blocking: when loadd lags far
 * behind, an event is lost rather than the load held up. */
void loader_event(const struct loader_ctx *ctx, const char *kind, const char *fmt, ...)
{
	char line[PIPE_BUF];
	va_list ap;
	int n, len;

	n = snprintf(line, sizeof line, "%s ", kind);
	if (n < 0 || (size_t)n >= sizeof line - 2)
		return;
	va_start(ap, fmt);
	len = vsnprintf(line + n, sizeof line - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (len < 0)
		return;
	len += n;
	if ((size_t)len > sizeof line - 2)
		len = (int)sizeof line - 2;
	for (int i = 0; i < len; i++) {
		if (line[i] == '\n' || line[i] == '\r')
			line[i] = ' ';
	}
	line[len++] = '\n';
	while (write(ctx->event_fd, line, (size_t)len) < 0 && errno == EINTR)
		;
}

static volatile sig_atomic_t stop_requested;

static void on_stop_signal(int sig)
{
	(void)sig;
	stop_requested = 1;
}

/* No SA_RESTART: a loader blocked in read(), waitpid() or a sleep gets EINTR
 * and can look at loader_stopping(). */
void loader_catch_stop(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = on_stop_signal;
	sigemptyset(&sa.sa_mask);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGINT, &sa, NULL);
}

bool loader_stopping(void)
{
	return stop_requested != 0;
}

pid_t loader_fork(void)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid != 0)
		return pid;
	/* If the parent died between fork() and prctl(), the signal is never
	 * sent: the child is already an orphan and must go now. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(1);
	signal(SIGTERM, SIG_DFL);
	signal(SIGINT, SIG_DFL);
	stop_requested = 0;
	return 0;
}

int loader_stop_child(pid_t pid, int grace_ms)
{
	const struct timespec tick = { .tv_nsec = 10 * NSEC_PER_MSEC };
	int64_t deadline = mono_ns() + (int64_t)grace_ms * NSEC_PER_MSEC;
	int status;
	pid_t r;

	if (kill(pid, SIGTERM) < 0 && errno != ESRCH)
		return -1;
	for (;;) {
		r = waitpid(pid, &status, WNOHANG);
		if (r == pid)
			return status;
		if (r < 0 && errno != EINTR)
			return -1;
		if (mono_ns() >= deadline)
			break;
		nanosleep(&tick, NULL);
	}
	kill(pid, SIGKILL);
	while ((r = waitpid(pid, &status, 0)) < 0 && errno == EINTR)
		;
	return r == pid ? status : -1;
}

/* The event pipe's fixed descriptor in a loader's processes. */
#define LOADER_EVENT_FD 3

static void write_oom_score_adj(void)
{
	int fd = open("/proc/self/oom_score_adj", O_WRONLY | O_CLOEXEC);

	if (fd < 0)
		return;
	if (write(fd, "1000", 4) < 0)
		log_warn("cannot set oom_score_adj: %s", strerror(errno));
	close(fd);
}

/* System V semaphores, queues and shared memory made by a load's programs
 * (dbench's start barrier, a semaphore set it leaves when it is killed) live
 * in the load's own IPC namespace and vanish with its last process, so no
 * stop leaves them behind in the machine's. Needs root (CAP_SYS_ADMIN):
 * without it the load shares loadd's namespace, as any program would. */
static void enter_own_ipc_namespace(const struct loader_ctx *ctx)
{
	if (unshare(CLONE_NEWIPC) < 0 && errno != EPERM)
		loader_event(ctx, "info", "shares loadd's IPC namespace: %s", strerror(errno));
}

/* The loader's top process: its own group, dies with its parent, first in
 * line for the OOM killer, nothing of the parent's but its event pipe. */
static void __attribute__((noreturn))
loader_child(const struct loader_ops *ops, const struct loader_ctx *parent_ctx, pid_t parent)
{
	struct loader_ctx ctx = *parent_ctx;
	sigset_t none;
	int devnull, event_fd;

	setpgid(0, 0);
	/* The parent may have died before prctl(): then no signal will come. */
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	write_oom_score_adj();
	enter_own_ipc_namespace(parent_ctx);
	/* Root stays with loadd: the load runs as the run's user (unless its
	 * configuration needs root). That change clears the parent-death
	 * signal, so it is set again. */
	if (ops->needs_root != NULL && ops->needs_root(parent_ctx->config) &&
	    run_user_get()->drop) {
		loader_event(parent_ctx, "info", "runs as root: its configuration needs it");
		if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
			_exit(127);
	} else if (run_user_enter() < 0) {
		log_error("load %s: cannot become user %s: %s", parent_ctx->name,
			  run_user_get()->name, strerror(errno));
		_exit(127);
	}
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		_exit(127);
	for (int sig = 1; sig < NSIG; sig++) {
		if (sig != SIGKILL && sig != SIGSTOP)
			signal(sig, SIG_DFL);
	}
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);

	/* The event pipe moves out of the way first: stdin or stdout may be
	 * what it is if the parent started with them closed. */
	event_fd = fcntl(ctx.event_fd, F_DUPFD_CLOEXEC, LOADER_EVENT_FD + 1);
	if (event_fd < 0)
		_exit(127);
	devnull = open("/dev/null", O_RDWR | O_CLOEXEC);
	if (devnull >= 0) {
		dup2(devnull, STDIN_FILENO);
		dup2(devnull, STDOUT_FILENO);
	}
	if (dup3(event_fd, LOADER_EVENT_FD, O_CLOEXEC) < 0)
		_exit(127);
	if (close_range(LOADER_EVENT_FD + 1, ~0U, 0) < 0) {
		for (int fd = LOADER_EVENT_FD + 1; fd < 65536; fd++)
			close(fd);
	}
	log_set_file(NULL);
	loader_catch_stop();
	ctx.event_fd = LOADER_EVENT_FD;
	_exit(ops->run(&ctx));
}

pid_t loader_spawn(const struct loader_ops *ops, const struct loader_ctx *ctx)
{
	pid_t parent = getpid();
	pid_t pid = fork();

	if (pid == 0)
		loader_child(ops, ctx, parent);
	/* Both sides set the group, so neither a kill nor a scan of the group
	 * can come before it exists. */
	if (pid > 0)
		setpgid(pid, pid);
	return pid;
}

int load_key_line(const struct load_def *def, const char *key)
{
	for (size_t i = 0; i < def->nkv; i++)
		if (strcmp(def->kvs[i].key, key) == 0)
			return def->kvs[i].line;
	return def->line;
}
