// SPDX-License-Identifier: GPL-2.0-or-later
/* cpu-ring-rate: runs the cpu loader alone, as loadd would start it (its own
 * process group, a shared counter page, the stop handler), and prints how
 * many token passes and trips it made per second over a fixed time. No probe
 * job and no database run beside it, so the figure is the ring's own.
 *
 *	cpu-ring-rate [-t SECONDS] [-w SECONDS] [KEY=VALUE ...]
 *
 * KEY=VALUE are the cpu loader's options, as in a [load] section. It prints
 * one line: passes_per_s=... trips_per_s=... seconds=... cpu_s=... */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "log.h"
#include "parse.h"
#include "procfs.h"
#include "timeutil.h"
#include "xalloc.h"

static void usage(void)
{
	fprintf(stderr, "usage: cpu-ring-rate [-t SECONDS] [-w SECONDS] [KEY=VALUE ...]\n"
			"  -t  measuring time (default 5)\n"
			"  -w  warm-up before measuring (default 1)\n"
			"  KEY=VALUE: the cpu loader's options (loadd --list-loaders)\n");
	exit(2);
}

static double seconds_arg(const char *s)
{
	const char *err;
	double v;

	if (parse_double(s, &v, &err) < 0 || v <= 0 || v > 3600) {
		fprintf(stderr, "cpu-ring-rate: invalid time '%s'\n", s);
		exit(2);
	}
	return v;
}

static void sleep_s(double s)
{
	sleep_until_ns(mono_ns() + (int64_t)(s * NSEC_PER_SEC));
}

/* CPU time of the whole ring so far, members and top. */
static uint64_t group_cpu_ns(pid_t pgid)
{
	uint64_t cpu = 0;
	int nprocs;

	if (procfs_group_usage(&pgid, 1, &cpu, &nprocs) < 0)
		fatal("reading /proc");
	return cpu;
}

int main(int argc, char **argv)
{
	double run_s = 5, warm_s = 1;
	struct load_def def = { .name = "cpu", .type = "cpu", .line = 0 };
	struct loader_shm *shm;
	uint64_t ops0, ops1, cyc0, cyc1, cpu0, cpu1;
	int64_t t0, t1;
	int c, status, event_fd;
	pid_t pid;

	log_init("cpu-ring-rate", 0);
	while ((c = getopt(argc, argv, "t:w:h")) != -1) {
		switch (c) {
		case 't': run_s = seconds_arg(optarg); break;
		case 'w': warm_s = seconds_arg(optarg); break;
		default: usage();
		}
	}
	def.kvs = xcalloc((size_t)(argc - optind) + 1, sizeof *def.kvs);
	for (int i = optind; i < argc; i++) {
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

	shm = mmap(NULL, sizeof *shm, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (shm == MAP_FAILED)
		fatal("mmap");
	/* Events go to our stderr as they are: nothing reads them here. */
	event_fd = dup(STDERR_FILENO);
	fcntl(event_fd, F_SETFL, O_NONBLOCK);
	struct loader_ctx ctx = {
		.name = def.name, .config = def.config, .dir = "/", .shm = shm, .event_fd = event_fd
	};
	pid = loader_spawn(def.loader, &ctx);
	if (pid < 0)
		fatal("fork");

	sleep_s(warm_s);
	cpu0 = group_cpu_ns(pid);
	cyc0 = atomic_load(&shm->cycles);
	ops0 = atomic_load(&shm->ops);
	t0 = mono_ns();
	sleep_s(run_s);
	cyc1 = atomic_load(&shm->cycles);
	ops1 = atomic_load(&shm->ops);
	t1 = mono_ns();
	cpu1 = group_cpu_ns(pid);

	kill(-pid, SIGTERM);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	if (ops1 == ops0) {
		fprintf(stderr, "cpu-ring-rate: the ring made no progress\n");
		return 1;
	}
	/* cpu_s: what the ring's processes used meanwhile (in clock ticks). */
	printf("passes_per_s=%.1f trips_per_s=%.1f seconds=%.3f cpu_s=%.3f\n",
	       (double)(ops1 - ops0) * NSEC_PER_SEC / (double)(t1 - t0),
	       (double)(cyc1 - cyc0) * NSEC_PER_SEC / (double)(t1 - t0),
	       (double)(t1 - t0) / NSEC_PER_SEC, (double)(cpu1 - cpu0) / NSEC_PER_SEC);
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : 1;
}
