// SPDX-License-Identifier: GPL-2.0-or-later
/* loadd: the supervisor. Reads a profile, prepares its work dir, runs the
 * phases with their loads while the probe times its job, stores everything
 * in SQLite and prints the report at the end. */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "control_socket.h"
#include "daemonize.h"
#include "db.h"
#include "ipc_objects.h"
#include "loader.h"
#include "log.h"
#include "parse.h"
#include "procfs.h"
#include "probe.h"
#include "probe_study.h"
#include "profile.h"
#include "report.h"
#include "report_study.h"
#include "run.h"
#include "run_user.h"
#include "supervisor.h"
#include "timeutil.h"
#include "tree.h"
#include "trust.h"
#include "workdir.h"
#include "xalloc.h"

/* Exit statuses: 0 a complete run or one stopped through the control API
 * (loadctl stop: the user asked for it), 1 a failure (another loadd running
 * included), 2 bad usage or profile, 128 + N a run stopped by signal N. */
enum { EXIT_RUN_FAILED = 1, EXIT_USAGE = 2 };

struct args {
	const char *profile;
	const char *db;
	const char *workdir;
	const char *socket;
	const char *listen;
	const char *pidfile;
	const char *log;
	bool daemon;
	bool check;
	bool list_loaders;
	bool list_probes;
	int verbose;
};

static void usage(FILE *fp)
{
	fprintf(fp,
		"usage: loadd --profile NAME|PATH [options]\n"
		"       loadd --check --profile NAME|PATH\n"
		"       loadd --list-loaders\n"
		"       loadd --list-probes\n"
		"\n"
		"Runs the phases of a profile: each starts its background loads, lets them\n"
		"settle, then times the probe job on a fixed schedule. Everything is stored\n"
		"in SQLite; the report is printed at the end (and by `loadctl report`).\n"
		"\n"
		"  -p, --profile NAME|PATH  the profile: NAME.conf in ./config (not as root),\n"
		"                           /etc/loadd or %s, or a path\n"
		"  -c, --check              validate the profile, print the plan, run nothing\n"
		"      --db PATH            database (default %s)\n"
		"      --workdir DIR        work dir for the probe's tree and the loads' files\n"
		"                           (default /var/lib/loadd/work as root, else ~/.cache/loadd)\n"
		"      --socket PATH        control socket (default %s)\n"
		"      --listen ADDR:PORT   also serve GET /metrics over TCP, e.g. 127.0.0.1:9184\n"
		"      --daemon             detach from the terminal once the run has started\n"
		"      --pidfile PATH       write the pid there (with --daemon by default\n"
		"                           %s)\n"
		"      --log PATH           log there once the run has started (with --daemon by\n"
		"                           default %s)\n"
		"      --list-loaders       every loader with its profile keys, and exit\n"
		"      --list-probes        every probe kind with its profile keys, and exit\n"
		"  -v, --verbose            debug messages\n"
		"  -V, --version            print the version and exit\n"
		"  -h, --help               this help\n",
		LOADD_PROFILE_DIR,
		geteuid() == 0 ? "/var/lib/loadd/loadd.db" : "$XDG_STATE_HOME/loadd/loadd.db",
		control_socket_default_text(),
		geteuid() == 0 ? "/run/loadd/loadd.pid" : "$XDG_RUNTIME_DIR/loadd.pid",
		geteuid() == 0 ? "/var/log/loadd.log" : "loadd.log in the work dir");
}

static void parse_args(int argc, char **argv, struct args *a)
{
	enum {
		OPT_DB = 256,
		OPT_WORKDIR,
		OPT_LIST_LOADERS,
		OPT_LIST_PROBES,
		OPT_SOCKET,
		OPT_LISTEN,
		OPT_DAEMON,
		OPT_PIDFILE,
		OPT_LOG
	};
	static const struct option longopts[] = {
		{ "profile", required_argument, NULL, 'p' },
		{ "check", no_argument, NULL, 'c' },
		{ "db", required_argument, NULL, OPT_DB },
		{ "workdir", required_argument, NULL, OPT_WORKDIR },
		{ "list-loaders", no_argument, NULL, OPT_LIST_LOADERS },
		{ "list-probes", no_argument, NULL, OPT_LIST_PROBES },
		{ "socket", required_argument, NULL, OPT_SOCKET },
		{ "listen", required_argument, NULL, OPT_LISTEN },
		{ "daemon", no_argument, NULL, OPT_DAEMON },
		{ "pidfile", required_argument, NULL, OPT_PIDFILE },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "verbose", no_argument, NULL, 'v' },
		{ "version", no_argument, NULL, 'V' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	while ((c = getopt_long(argc, argv, "p:cvVh", longopts, NULL)) != -1) {
		switch (c) {
		case 'p': a->profile = optarg; break;
		case 'c': a->check = true; break;
		case OPT_DB: a->db = optarg; break;
		case OPT_WORKDIR: a->workdir = optarg; break;
		case OPT_LIST_LOADERS: a->list_loaders = true; break;
		case OPT_LIST_PROBES: a->list_probes = true; break;
		case OPT_SOCKET: a->socket = optarg; break;
		case OPT_LISTEN: a->listen = optarg; break;
		case OPT_DAEMON: a->daemon = true; break;
		case OPT_PIDFILE: a->pidfile = optarg; break;
		case OPT_LOG: a->log = optarg; break;
		case 'v': a->verbose++; break;
		case 'V': printf("loadd %s\n", LOADD_VERSION); exit(0);
		case 'h': usage(stdout); exit(0);
		default: fprintf(stderr, "Try 'loadd --help'.\n"); exit(EXIT_USAGE);
		}
	}
	if (optind < argc) {
		fprintf(stderr, "loadd: unexpected argument '%s'\nTry 'loadd --help'.\n",
			argv[optind]);
		exit(EXIT_USAGE);
	}
	if (!a->list_loaders && !a->list_probes && a->profile == NULL) {
		fprintf(stderr,
			"loadd: no profile given: use --profile NAME, e.g. --profile quick\n");
		exit(EXIT_USAGE);
	}
}

/* Cold-cache phases drop the page cache, which only root may do: refuse
 * before anything starts rather than fail a phase later. */
static int check_privileges(const struct profile *p, bool warn_only)
{
	int problems = 0;

	if (geteuid() == 0)
		return 0;
	for (size_t i = 0; i < p->nphases; i++) {
		if (p->phases[i].cache != CACHE_COLD)
			continue;
		fprintf(stderr,
			"%s:%d: %sphase '%s' has cache = cold, which needs root "
			"(it drops the page cache); run loadd as root or use cache = warm\n",
			p->path, p->phases[i].line, warn_only ? "warning: " : "",
			p->phases[i].name);
		problems++;
	}
	return warn_only ? 0 : problems;
}

/* What a probe kind needs beyond its options (root for SCHED_FIFO). */
static int check_probes(const struct profile *p)
{
	int problems = 0;

	for (size_t i = 0; i < p->nprobes; i++) {
		const struct probe_inst_def *pi = &p->probes[i];

		if (pi->ops->check != NULL)
			problems += pi->ops->check(pi->config, p->path, pi->line, stderr);
	}
	return problems;
}

/* A phase whose settle may wait for a load ramping up to its target: how long at most. */
static void print_settle_wait(const struct profile *p, const struct phase_def *ph)
{
	char max[32];

	for (size_t j = 0; j < ph->nloads; j++) {
		const struct load_def *ld = profile_load_by_name(p, ph->loads[j]);
		const struct loader_ops *ops = ld != NULL ? ld->loader : NULL;

		if (ops == NULL || ops->ramps == NULL || !ops->ramps(ld->config))
			continue;
		format_ms(ph->settle_max_ms, max, sizeof max);
		printf("  (the settle waits for %s to hold, up to %s)", ld->name, max);
		return;
	}
}

static void print_plan(const struct profile *p)
{
	char fp[TREE_FINGERPRINT_LEN + 1], settle[32], dur[32], total[32], every[32];
	const struct tree_spec *t = &p->probe.tree;
	int64_t round_ms = profile_total_ms(p) / p->run.rounds;

	tree_fingerprint(t, fp);
	format_ms(p->probe.every_ms, every, sizeof every);
	printf("profile %s (%s)\n", p->name, p->path);
	printf("probe:  %s, every %s; tree depth=%ld fanout=%ld files=%ld size=%ld "
	       "(%llu entries, fingerprint %s)\n",
	       p->probe.job, every, t->depth, t->fanout, t->files, t->file_size,
	       (unsigned long long)tree_entries(t), fp);
	for (size_t i = 0; i < p->nprobes; i++) {
		const struct probe_inst_def *pi = &p->probes[i];
		char what[256] = "";

		if (pi->ops->describe != NULL)
			pi->ops->describe(pi->config, what, sizeof what);
		printf("%-7s %-8s %-7s %s\n", i == 0 ? "probes:" : "", pi->name, pi->type, what);
	}
	printf("rounds: %ld\n", p->run.rounds);
	printf("loads and job run as: %s (uid %u, %s)\n\n", run_user_get()->name,
	       (unsigned)run_user_get()->uid, run_user_get()->why);
	printf("  %-3s %-16s %-5s %-8s %-8s %s\n", "#", "phase", "cache", "settle", "duration",
	       "loads");
	for (size_t i = 0; i < p->nphases; i++) {
		const struct phase_def *ph = &p->phases[i];
		format_ms(ph->settle_ms >= 0 ? ph->settle_ms : p->run.settle_ms, settle,
			  sizeof settle);
		format_ms(ph->duration_ms, dur, sizeof dur);
		printf("  %-3zu %-16s %-5s %-8s %-8s", i + 1, ph->name,
		       ph->cache == CACHE_COLD ? "cold" : "warm", settle, dur);
		for (size_t j = 0; j < ph->nloads; j++)
			printf(" %s", ph->loads[j]);
		printf("%s", ph->nloads == 0 ? " -" : "");
		if (ph->probes != NULL) {
			printf("  (probes:");
			for (size_t j = 0; ph->probes[j] != NULL; j++)
				printf(" %s", ph->probes[j]);
			printf(")");
		}
		if (ph->ramp.nsteps > 0)
			printf("  (knee search: %s.%s, up to %zu steps)", ph->ramp.load,
			       ph->ramp.key, ph->ramp.nsteps);
		print_settle_wait(p, ph);
		printf("\n");
	}
	if (p->nloads > 0)
		printf("\nloads:\n");
	for (size_t i = 0; i < p->nloads; i++) {
		const struct load_def *ld = &p->loads[i];
		const struct loader_ops *ops = ld->loader;
		char what[256] = "";
		if (ops->describe != NULL)
			ops->describe(ld->config, what, sizeof what);
		printf("  %-16s %-8s %s\n", ld->name, ld->type, what);
	}
	format_ms(round_ms, settle, sizeof settle);
	format_ms(profile_total_ms(p), total, sizeof total);
	printf("\n%zu phase(s) x %ld round(s): %s a round, %s in all (plus load start-up and "
	       "stop, a few seconds a phase)\n",
	       p->nphases, p->run.rounds, settle, total);
}

/* Stop signals from start-up on. Until the run's event loop takes them
 * (and after it), a signal is noted here and acted on at the next step; a
 * tree being built stops at once. */
static volatile sig_atomic_t stop_signal;

static void note_stop_signal(int signo)
{
	if (stop_signal == 0)
		stop_signal = signo;
}

static void catch_stop_signals(void)
{
	static const int signals[] = { SIGINT, SIGTERM, SIGHUP, SIGQUIT };
	struct sigaction sa = { .sa_handler = note_stop_signal };

	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof signals / sizeof signals[0]; i++)
		sigaction(signals[i], &sa, NULL);
	tree_set_cancel(&stop_signal);
}

/* Before the run is recorded, a stop signal ends loadd at once: the socket
 * and pid file go with it (atexit), and there is no run to mark. */
static void exit_if_stopped(const char *doing)
{
	int signo = stop_signal;

	if (signo == 0)
		return;
	log_info("%s while %s: stopping before the run began; nothing was recorded",
		 strsignal(signo), doing);
	exit(128 + signo);
}

/* Space kept back beside the database, given up when the disk fills so
 * that the run's end can still be written. */
#define RESERVE_BYTES (256 * 1024)
#define RUN_END_ATTEMPTS 5
#define RUN_END_RETRY_MS 200

static char *reserve_make(const char *db_path)
{
	char *path = xasprintf("%s.reserve", db_path);
	int fd = open(path, O_WRONLY | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	int rc = fd < 0 ? errno : posix_fallocate(fd, 0, RESERVE_BYTES);

	if (fd >= 0)
		close(fd);
	if (rc != 0) {
		log_warn("cannot keep %d KiB back in %s: %s; a full disk may leave the run "
			 "unrecorded",
			 RESERVE_BYTES / 1024, path, strerror(rc));
		unlink(path);
	}
	return path;
}

static bool reserve_release(const char *path)
{
	return path != NULL && unlink(path) == 0;
}

/* The run's end is written whatever it takes: retried, and when the disk
 * under the database is full, after giving back the space kept for it, with
 * the reason as an event. */
static void record_run_end(struct db *db, int64_t run_id, const char *status, const char *reserve)
{
	bool told = false;

	for (int attempt = 0; attempt < RUN_END_ATTEMPTS; attempt++) {
		if (db_disk_full(db) && !told) {
			const struct event ev = {
				.t = wall_now(),
				.kind = "error",
				.message =
					"the disk under the database is full: the run ended early",
			};

			if (reserve_release(reserve))
				log_warn("the disk under the database is full: released the %d KiB "
					 "kept back to record the run's end",
					 RESERVE_BYTES / 1024);
			told = db_event_insert(db, run_id, &ev) == 0;
		}
		if (db_run_end(db, run_id, status, wall_now()) == 0)
			return;
		usleep(RUN_END_RETRY_MS * 1000);
	}
	log_error("could not record the end of run %lld; the next start marks it crashed",
		  (long long)run_id);
}

/* What loadd removes however it exits (fatalx included): the control
 * socket and the pid file, each only while it is still its own. */
static struct api_listen api_socket = { .unix_fd = -1, .tcp_fd = -1 };
static char *pidfile_path;
static char *reserve_path;
static pid_t reserve_owner;

static void remove_service_files(void)
{
	api_listen_close(&api_socket);
	if (pidfile_path != NULL)
		pidfile_remove(pidfile_path);
	if (reserve_path != NULL && reserve_owner == getpid()) {
		unlink(reserve_path);
		free(reserve_path);
		reserve_path = NULL;
	}
}

static void record_run_start(const struct profile *p, const char *fingerprint, struct run_info *ri,
			     struct host_info *host)
{
	if (host_info_read(host) < 0)
		log_warn("could not read every host fact from /proc");
	*ri = (struct run_info){
		.profile_name = p->name,
		.profile_path = p->path,
		.profile_text = p->text,
		.host = host->hostname,
		.kernel = host->kernel,
		.cpu_model = host->cpu_model,
		.cores = host->cores,
		.ram_bytes = host->ram_bytes,
		.swap_bytes = host->swap_bytes,
		.tree_fingerprint = fingerprint,
		.version = LOADD_VERSION,
		.rounds = p->run.rounds,
		.planned_ms = profile_total_ms(p),
		.pid = getpid(),
	};
}

/* Each [load NAME] with its loader's units: the report and loadtop name
 * its figures from these, as they do not link the loaders. */
static int record_loads(struct db *db, int64_t run_id, const struct profile *p)
{
	for (size_t i = 0; i < p->nloads; i++) {
		const struct load_def *ld = &p->loads[i];
		const struct loader_ops *ops = ld->loader;
		const struct load_info li = {
			.name = ld->name,
			.type = ld->type,
			.cycle_unit = ops->cycle_unit,
			.ops_unit = ops->ops_unit,
			.reports_bytes = ops->reports_bytes,
		};

		if (db_load_insert(db, run_id, &li) < 0)
			return -1;
	}
	return 0;
}

int main(int argc, char **argv)
{
	struct args a = { 0 };
	struct profile p;
	char *profile_path, *searched = NULL, *err = NULL;
	char *db_path, *workdir_arg, *workdir = NULL, *tree_path;
	char fingerprint[TREE_FINGERPRINT_LEN + 1];
	struct db *db;
	struct run_info ri;
	struct host_info host;
	int status = EXIT_RUN_FAILED, signo = 0;

	log_init("loadd", 0);
	trust_safe_path();
	parse_args(argc, argv, &a);
	log_init("loadd", a.verbose);
	loader_table_check();
	probe_table_check();
	report_study_use(probe_study_kinds());
	catch_stop_signals();

	if (a.list_loaders) {
		loader_print_all(stdout);
		return 0;
	}
	if (a.list_probes) {
		probe_print_all(stdout);
		return 0;
	}
	profile_path = profile_find(a.profile, &searched);
	if (profile_path == NULL) {
		fprintf(stderr, "loadd: no profile '%s' (looked for %s)\n", a.profile, searched);
		free(searched);
		return EXIT_USAGE;
	}
	if (trust_file(profile_path, "profile", &err) < 0) {
		fprintf(stderr, "loadd: %s\n", err);
		free(err);
		free(profile_path);
		return EXIT_USAGE;
	}
	static const struct profile_checks checks = { loader_validate, probe_kind_find,
						      probe_names };
	int problems = profile_load(profile_path, &p, &checks, stderr);
	if (problems > 0) {
		fprintf(stderr, "loadd: %s: %d problem%s; nothing was started\n", profile_path,
			problems, problems == 1 ? "" : "s");
		free(profile_path);
		return EXIT_USAGE;
	}
	if (check_privileges(&p, a.check) + check_probes(&p) > 0) {
		profile_free(&p);
		free(profile_path);
		return EXIT_USAGE;
	}
	struct run_user run_user;
	if (run_user_resolve(p.run.user, &run_user, &err) < 0) {
		fprintf(stderr, "loadd: %s: %s\n", profile_path, err);
		free(err);
		profile_free(&p);
		free(profile_path);
		return EXIT_USAGE;
	}
	run_user_set(&run_user);
	if (a.check) {
		print_plan(&p);
		profile_free(&p);
		free(profile_path);
		return 0;
	}

	workdir_arg = a.workdir ? xstrdup(a.workdir) : workdir_default();
	/* Detach first: the terminal still gets every start-up error. */
	if (a.daemon)
		daemon_start();
	/* Work dir next: it holds the lock that keeps a second loadd out. */
	int workdir_lock = workdir_open(workdir_arg, &workdir, &err);
	if (workdir_lock < 0)
		fatalx("%s", err);
	exit_if_stopped("opening the work dir");
	/* The control socket: one that answers means another loadd runs, and
	 * this one must refuse before it touches the database. */
	char *socket_path = a.socket ? xstrdup(a.socket) : control_socket_default(workdir);
	atexit(remove_service_files);
	if (api_listen_open(&api_socket, socket_path, a.listen, &err) < 0)
		fatalx("%s", err);
	free(socket_path);
	if (a.pidfile != NULL || a.daemon) {
		pidfile_path = a.pidfile ? absolute_path(a.pidfile)
					 : daemon_default_pidfile(workdir);
		if (pidfile_write(pidfile_path, &err) < 0)
			fatalx("%s", err);
	}
	char *log_path = a.log      ? absolute_path(a.log)
			 : a.daemon ? daemon_default_log(workdir)
				    : NULL;
	FILE *log_fp = NULL;
	if (log_path != NULL && (log_fp = log_file_open(log_path, &err)) == NULL)
		fatalx("%s", err);
	db_path = a.db ? xstrdup(a.db) : db_default_path();
	int db_lock_fd = db_lock(db_path, &err);
	if (db_lock_fd < 0)
		fatalx("%s", err);
	db = db_open(db_path, DB_READWRITE, &err);
	if (db == NULL)
		fatalx("%s", err);
	reserve_path = reserve_make(db_path);
	reserve_owner = getpid();
	exit_if_stopped("opening the database");
	int crashed = db_mark_crashed(db);
	if (crashed > 0)
		log_warn("marked %d earlier run%s that did not end cleanly as crashed", crashed,
			 crashed == 1 ? "" : "s");
	workdir_sweep(workdir);
	ipc_objects_sweep(workdir);

	tree_fingerprint(&p.probe.tree, fingerprint);
	int64_t t0 = mono_ns();
	/* Only the job walks the tree: a profile without one builds none. */
	if (profile_job_probe(&p) == NULL) {
		tree_path = xstrdup("");
		fingerprint[0] = '\0';
	} else {
		tree_path = tree_ensure(workdir, &p.probe.tree, &err);
		exit_if_stopped("building the probe's tree");
		if (tree_path == NULL)
			fatalx("cannot build the probe's tree: %s", err);
		log_info("probe tree %s: %llu entries, ready in %.1f s", tree_path,
			 (unsigned long long)tree_entries(&p.probe.tree), (mono_ns() - t0) / 1e9);
	}

	record_run_start(&p, fingerprint, &ri, &host);
	/* The run and its loads in one transaction: no reader sees one
	 * without the other. */
	if (db_begin(db) < 0)
		fatalx("cannot record the run in %s", db_path);
	int64_t run_id = db_run_begin(db, &ri, wall_now());
	if (run_id <= 0 || record_loads(db, run_id, &p) < 0 || db_commit(db) < 0)
		fatalx("cannot record the run in %s", db_path);
	char total[32];
	format_ms(profile_total_ms(&p), total, sizeof total);
	log_info("run %lld: profile %s, %zu phase(s) x %ld round(s), about %s; database %s",
		 (long long)run_id, p.name, p.nphases, p.run.rounds, total, db_path);
	log_info("loads and the probe's job run as %s (uid %u; %s)", run_user_get()->name,
		 (unsigned)run_user_get()->uid, run_user_get()->why);
	/* From here on the run goes on alone: messages go to the log file. */
	if (a.daemon) {
		log_info("running in the background as pid %ld; log %s; stop it with loadctl stop",
			 (long)getpid(), log_path);
		daemon_ready(log_fp);
	} else if (log_fp != NULL) {
		log_info("logging to %s", log_path);
	}
	if (log_fp != NULL)
		log_set_file(log_fp);

	signal(SIGPIPE, SIG_IGN);
	struct run_options ro = {
		.profile = &p,
		.db = db,
		.run_id = run_id,
		.workdir = workdir,
		.tree_path = tree_path,
		.api = &api_socket,
		.pending_signal = &stop_signal,
		.reserve_path = reserve_path,
	};
	enum run_result result = run_execute(&ro, &signo);
	static const char *const result_status[] = {
		[RUN_COMPLETE] = "complete",
		[RUN_ABORTED] = "aborted",
		[RUN_FAILED] = "failed",
	};
	if (db_disk_full(db))
		result = RUN_FAILED;
	record_run_end(db, run_id, result_status[result], reserve_path);

	switch (result) {
	case RUN_COMPLETE:
		fflush(stderr);
		/* A daemon's stdout is /dev/null: its report goes to the log. */
		report_print(db, run_id, a.daemon && log_fp != NULL ? log_fp : stdout);
		status = 0;
		break;
	case RUN_ABORTED:
		log_info("run %lld aborted; the data taken so far is kept: loadctl report %lld",
			 (long long)run_id, (long long)run_id);
		status = signo != 0 ? 128 + signo : 0;
		break;
	case RUN_FAILED:
		log_error("run %lld failed; see the messages above", (long long)run_id);
		break;
	}

	db_close(db);
	/* Only now that the run's end is recorded: a client waiting for the
	 * socket to go (loadctl stop) then finds the run ended. */
	remove_service_files();
	if (log_fp != NULL) {
		log_set_file(NULL);
		fclose(log_fp);
	}
	free(log_path);
	close(db_lock_fd);
	close(workdir_lock);
	free(tree_path);
	free(workdir);
	free(workdir_arg);
	free(db_path);
	free(profile_path);
	profile_free(&p);
	return status;
}
