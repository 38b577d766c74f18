// SPDX-License-Identifier: GPL-2.0-or-later
/* loader-rate: runs one loader alone, as loadd would start it (its own
 * process group, a shared counter page, the stop handler, a scratch dir and
 * a cache dir), and times whole cycles of it: a memory pass, a file written
 * (and synced, with fsync = yes), a file read. Timing whole cycles rather
 * than a window of the byte counter keeps what ends a cycle (fdatasync, the
 * truncate of the last file) in the figure, as dd's own figure keeps it.
 *
 *	loader-rate [-c CYCLES] [-w CYCLES] [-d DIR] [-T SECONDS] TYPE [KEY=VALUE ...]
 *
 * The first -w cycles are a warm-up (a memory fill, the read loader's file
 * being made happen before them anyway). It prints one line:
 * mib_per_s=... cycles=... seconds=... cpu_s=... */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "loader.h"
#include "remove_tree.h"
#include "log.h"
#include "parse.h"
#include "procfs.h"
#include "timeutil.h"
#include "xalloc.h"

static void usage(void)
{
	fprintf(stderr,
		"usage: loader-rate [-c CYCLES] [-w CYCLES] [-d DIR] [-T SECONDS] TYPE [KEY=VALUE ...]\n"
		"  -c  cycles to time (default 3)\n"
		"  -w  cycles of warm-up first (default 1)\n"
		"  -d  where the loader's scratch and cache dirs go (default $TMPDIR or /tmp);\n"
		"      removed at the end\n"
		"  -T  give up after this many seconds (default 600)\n"
		"  TYPE KEY=VALUE: a loader and its options, as in a [load] section\n");
	exit(2);
}

static long count_arg(const char *s, long min)
{
	const char *err;
	long v;

	if (parse_long(s, &v, &err) < 0 || v < min || v > 1000000) {
		fprintf(stderr, "loader-rate: invalid count '%s'\n", s);
		exit(2);
	}
	return v;
}

static uint64_t group_cpu_ns(pid_t pgid)
{
	uint64_t cpu = 0;
	int nprocs;

	if (procfs_group_usage(&pgid, 1, &cpu, &nprocs) < 0)
		fatal("reading /proc");
	return cpu;
}

/* Waits until the loader has completed `cycles` cycles; the time it did, or
 * -1 when it died or the deadline passed. Polls every millisecond: a cycle
 * lasts from tens of milliseconds (a memory pass) to seconds, and a faster
 * poll would take CPU from the loader it times on a small machine. */
static int64_t wait_cycles(struct loader_shm *shm, uint64_t cycles, pid_t pid, int64_t deadline)
{
	const struct timespec tick = { .tv_nsec = 1000 * 1000 };
	int status;

	while (atomic_load(&shm->cycles) < cycles) {
		if (mono_ns() > deadline || waitpid(pid, &status, WNOHANG) == pid)
			return -1;
		nanosleep(&tick, NULL);
	}
	return mono_ns();
}

int main(int argc, char **argv)
{
	long cycles = 3, warm = 1, timeout_s = 600;
	const char *base = getenv("TMPDIR");
	struct load_def def = { .line = 0 };
	struct loader_shm *shm;
	char *dir, *scratch, *cache;
	uint64_t bytes0, bytes1, cpu0, cpu1;
	int64_t t0, t1, deadline;
	int c, status, event_fd, rc = 0;
	pid_t pid;

	log_init("loader-rate", 0);
	if (base == NULL || *base == '\0')
		base = "/tmp";
	while ((c = getopt(argc, argv, "c:w:d:T:h")) != -1) {
		switch (c) {
		case 'c': cycles = count_arg(optarg, 1); break;
		case 'w': warm = count_arg(optarg, 0); break;
		case 'd': base = optarg; break;
		case 'T': timeout_s = count_arg(optarg, 1); break;
		default: usage();
		}
	}
	if (optind >= argc)
		usage();
	def.type = argv[optind];
	def.name = argv[optind];
	def.kvs = xcalloc((size_t)(argc - optind), sizeof *def.kvs);
	for (int i = optind + 1; i < argc; i++) {
		char *eq = strchr(argv[i], '=');

		if (eq == NULL || eq == argv[i])
			usage();
		def.kvs[def.nkv++] = (struct kv){ .key = xstrndup(argv[i], (size_t)(eq - argv[i])),
						  .value = xstrdup(eq + 1),
						  .line = 0 };
	}
	loader_table_check();
	if (loader_validate(&def, "(command line)", stderr) > 0)
		return 2;

	dir = xasprintf("%s/loader-rate.XXXXXX", base);
	if (mkdtemp(dir) == NULL)
		fatal("cannot create a dir in %s", base);
	scratch = xasprintf("%s/load", dir);
	cache = xasprintf("%s/cache", dir);
	if (mkdir(scratch, 0700) < 0)
		fatal("mkdir %s", scratch);
	shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		fatal("mmap");
	/* Events go to our stderr as they are: nothing else reads them. */
	event_fd = dup(STDERR_FILENO);
	fcntl(event_fd, F_SETFL, O_NONBLOCK);
	struct loader_ctx ctx = { .name = def.name,
				  .config = def.config,
				  .dir = scratch,
				  .cache_dir = cache,
				  .shm = shm,
				  .event_fd = event_fd };
	pid = loader_spawn(def.loader, &ctx);
	if (pid < 0)
		fatal("fork");

	deadline = mono_ns() + timeout_s * NSEC_PER_SEC;
	if (wait_cycles(shm, (uint64_t)warm, pid, deadline) < 0) {
		fprintf(stderr, "loader-rate: the loader did not finish its warm-up\n");
		rc = 1;
		goto out;
	}
	/* From the end of a cycle (or the start) to the end of another. */
	cpu0 = group_cpu_ns(pid);
	bytes0 = atomic_load(&shm->bytes);
	t0 = mono_ns();
	t1 = wait_cycles(shm, (uint64_t)(warm + cycles), pid, deadline);
	bytes1 = atomic_load(&shm->bytes);
	cpu1 = group_cpu_ns(pid);
	if (t1 < 0) {
		fprintf(stderr, "loader-rate: the loader did not finish %ld cycles\n", cycles);
		rc = 1;
		goto out;
	}
	printf("mib_per_s=%.1f cycles=%ld seconds=%.3f cpu_s=%.3f\n",
	       (double)(bytes1 - bytes0) / (1 << 20) * NSEC_PER_SEC / (double)(t1 - t0), cycles,
	       (double)(t1 - t0) / NSEC_PER_SEC, (double)(cpu1 - cpu0) / NSEC_PER_SEC);
out:
	kill(-pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (remove_tree(dir) < 0)
		log_warn("cannot remove %s: %s", dir, strerror(errno));
	return rc;
}
