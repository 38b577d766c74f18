// SPDX-License-Identifier: GPL-2.0-or-later
/* The fs loader: dbench with `clients` clients in the load's scratch dir,
 * `runtime` seconds a run, run after run. A run is a cycle. dbench's output
 * is read only for its figures: each per-second line adds the operations done
 * since the last one (so progress shows while a run lasts) and, in the
 * measured (execute) period, the bytes its MB/s stands for: MB/s x 10^6 x
 * seconds, as dbench computes MB. Its warm-up is not counted as bytes. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "core_exec.h"
#include "remove_tree.h"
#include "trust.h"
#include "xalloc.h"

struct fs_config {
	long clients;
	int64_t runtime_ms;
	char *loadfile;
};

/* clang-format off */
static const struct option_def fs_options[] = {
	{ .key = "clients", .type = OPT_INT, .offset = offsetof(struct fs_config, clients),
	  .def = "4", .min = 1, .max = 1024,
	  .help = "dbench clients, each a process replaying the loadfile" },
	{ .key = "runtime", .type = OPT_DURATION, .offset = offsetof(struct fs_config, runtime_ms),
	  .def = "10s", .min = 1000, .max = 3600 * 1000LL,
	  .help = "length of one dbench run (dbench -t), whole seconds; a run is a cycle" },
	{ .key = "loadfile", .type = OPT_STRING, .offset = offsetof(struct fs_config, loadfile),
	  .help = "dbench's loadfile (dbench -c); default: the client.txt the dbench package "
		  "installs (/usr/share/dbench/client.txt or a place like it)" },
	{ .key = NULL },
};
/* clang-format on */

/* Where packages and source installs put dbench's client.txt. */
static const char *const loadfile_places[] = {
	"/usr/share/dbench/client.txt",
	"/usr/local/share/dbench/client.txt",
	"/usr/share/dbench4/client.txt",
	"/usr/local/share/client.txt",
	NULL,
};

static const char *loadfile_find(void)
{
	for (size_t i = 0; loadfile_places[i] != NULL; i++) {
		if (access(loadfile_places[i], R_OK) == 0)
			return loadfile_places[i];
	}
	return NULL;
}

/* A token of a loadfile line names a path above dbench's -D directory: it
 * has a ".." component, with either of dbench's separators. */
static bool climbs_out(const char *token, size_t len)
{
	size_t i = 0;

	while (i < len) {
		size_t n = 0;

		while (i + n < len && token[i + n] != '/' && token[i + n] != '\\' &&
		       token[i + n] != '"')
			n++;
		if (n == 2 && token[i] == '.' && token[i + 1] == '.')
			return true;
		i += n + 1;
	}
	return false;
}

/* dbench joins a loadfile's paths to the load's directory: one that climbs
 * out of it with ".." would have root write elsewhere. The file itself must
 * be one only trusted users can change. */
static int loadfile_check(const char *loadfile, const char *file, int line, FILE *errs)
{
	char *err = NULL, buf[4096];
	long lineno = 0;
	int problems = 0;
	FILE *fp;

	if (trust_file(loadfile, "loadfile", &err) < 0) {
		fprintf(errs, "%s:%d: %s\n", file, line, err);
		free(err);
		return 1;
	}
	fp = fopen(loadfile, "re");
	if (fp == NULL) {
		fprintf(errs, "%s:%d: loadfile: cannot read %s: %s\n", file, line, loadfile,
			strerror(errno));
		return 1;
	}
	while (fgets(buf, sizeof buf, fp) != NULL && problems < 5) {
		const char *p = buf;

		lineno++;
		while (*p != '\0') {
			size_t len;

			p += strspn(p, " \t\r\n");
			len = strcspn(p, " \t\r\n");
			if (len > 0 && climbs_out(p, len)) {
				fprintf(errs,
					"%s:%d: loadfile %s:%ld: the path %.*s leaves the load's "
					"directory with '..'; loadd refuses such a loadfile\n",
					file, line, loadfile, lineno, (int)len, p);
				problems++;
				break;
			}
			p += len;
		}
	}
	fclose(fp);
	return problems;
}

static int fs_check(const void *config, const struct load_def *def, const char *file, FILE *errs)
{
	const struct fs_config *cfg = config;
	int problems = 0;
	char *dbench;

	if (cfg->runtime_ms % 1000 != 0) {
		fprintf(errs, "%s:%d: runtime: dbench runs for whole seconds; write e.g. 10s\n",
			file, load_key_line(def, "runtime"));
		problems++;
	}
	/* The start-up check of the built-in defaults has no profile line: the
	 * machine is only looked at for a real [load] section. */
	if (def->line <= 0)
		return problems;
	dbench = program_find("dbench");
	if (dbench == NULL) {
		fprintf(errs, "%s:%d: load '%s' needs the dbench program (package dbench)\n", file,
			def->line, def->name);
		problems++;
	}
	free(dbench);
	if (cfg->loadfile != NULL) {
		if (access(cfg->loadfile, R_OK) < 0) {
			fprintf(errs, "%s:%d: loadfile: cannot read %s: %s\n", file,
				load_key_line(def, "loadfile"), cfg->loadfile, strerror(errno));
			problems++;
		} else {
			problems += loadfile_check(cfg->loadfile, file,
						   load_key_line(def, "loadfile"), errs);
		}
	} else if (loadfile_find() != NULL) {
		problems += loadfile_check(loadfile_find(), file, def->line, errs);
	} else if (problems == 0) {
		fprintf(errs,
			"%s:%d: load '%s': dbench's loadfile is not in %s or the places like "
			"it; give it with loadfile = PATH\n",
			file, def->line, def->name, loadfile_places[0]);
		problems++;
	}
	return problems;
}

static void fs_describe(const void *config, char *buf, size_t len)
{
	const struct fs_config *cfg = config;
	const char *loadfile = cfg->loadfile != NULL ? cfg->loadfile : loadfile_find();

	snprintf(buf, len, "dbench, %ld client%s, runs of %lld s, loadfile %s", cfg->clients,
		 cfg->clients == 1 ? "" : "s", (long long)(cfg->runtime_ms / 1000),
		 loadfile != NULL ? loadfile : "(none found)");
}

/* What one run has counted so far. */
struct fs_run {
	struct loader_shm *shm;
	uint64_t ops_seen; /* dbench's own running total of operations */
	uint64_t bytes_counted;
	long execute_secs; /* length of the measured period so far */
};

static void count_bytes_upto(struct fs_run *run, double mb_per_sec, long secs, uint64_t cycles,
			     uint64_t ops)
{
	double total = mb_per_sec * 1e6 * (double)secs;
	uint64_t bytes = 0;

	if (total > (double)run->bytes_counted) {
		bytes = (uint64_t)total - run->bytes_counted;
		run->bytes_counted += bytes;
	}
	loader_progress(run->shm, cycles, bytes, ops);
}

/* "   4     22896   278.83 MB/sec  execute   1 sec  latency 22.403 ms",
 * "   4  cleanup   4 sec", "Throughput 271.39 MB/sec  4 clients ...". */
static int fs_line(void *arg, const char *line)
{
	struct fs_run *run = arg;
	unsigned long clients, ops;
	double mbps;
	char stage[16];
	long secs;

	if (sscanf(line, "%lu %lu %lf MB/sec %15s %ld sec", &clients, &ops, &mbps, stage, &secs) ==
	    5) {
		uint64_t new_ops = ops > run->ops_seen ? ops - run->ops_seen : 0;

		if (ops > run->ops_seen)
			run->ops_seen = ops;
		if (strcmp(stage, "execute") == 0) {
			run->execute_secs = secs;
			count_bytes_upto(run, mbps, secs, 0, new_ops);
		} else {
			loader_progress(run->shm, 0, 0, new_ops);
		}
		return 1;
	}
	if (sscanf(line, "%lu cleanup %ld sec", &clients, &secs) == 2)
		return 1;
	if (sscanf(line, "Throughput %lf MB/sec", &mbps) == 1) {
		count_bytes_upto(run, mbps, run->execute_secs, 0, 0);
		return 1;
	}
	return 0;
}

static int fs_run(const struct loader_ctx *ctx)
{
	const struct fs_config *cfg = ctx->config;
	char *dbench, *clients_dir, secs[24], clients[24], status_text[64];
	const char *loadfile;
	int rc = 0;

	dbench = program_find("dbench");
	loadfile = cfg->loadfile != NULL ? cfg->loadfile : loadfile_find();
	if (dbench == NULL || loadfile == NULL) {
		loader_event(ctx, "error", "%s",
			     dbench == NULL ? "dbench is not on PATH any more"
					    : "dbench's loadfile is gone");
		free(dbench);
		return 1;
	}
	snprintf(secs, sizeof secs, "%lld", (long long)(cfg->runtime_ms / 1000));
	snprintf(clients, sizeof clients, "%ld", cfg->clients);
	char *const argv[] = { dbench, "-c", (char *)loadfile, "-D", (char *)ctx->dir,
			       "-t",   secs, clients,          NULL };

	while (!loader_stopping()) {
		struct fs_run run = { .shm = ctx->shm };
		struct exec_child child;
		char *err = NULL;
		int status;

		if (exec_start(argv, &child, &err) < 0) {
			loader_event(ctx, "error", "%s", err);
			free(err);
			rc = 1;
			break;
		}
		status = exec_finish(&child, fs_line, &run);
		if (status < 0)
			break;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
			loader_progress(ctx->shm, 1, 0, 0);
			continue;
		}
		/* A failed run (a full disk, a killed client) ends the loader: loadd
		 * records the exit and restarts it with back-off. */
		exec_status_text(status, status_text, sizeof status_text);
		loader_error(ctx->shm);
		loader_event(ctx, "error", "dbench ended with %s%s%s", status_text,
			     child.last_line[0] ? ": " : "", child.last_line);
		rc = 1;
		break;
	}
	/* dbench deletes its files at the end of a run, not when stopped. */
	clients_dir = xasprintf("%s/clients", ctx->dir);
	remove_tree(clients_dir);
	free(clients_dir);
	free(dbench);
	return rc;
}

const struct loader_ops loader_fs_ops = {
	.version = LOADER_OPS_VERSION,
	.name = "fs",
	.summary = "dbench with N clients in the work dir, run after run",
	.options = fs_options,
	.config_size = sizeof(struct fs_config),
	.cycle_unit = "runs",
	.ops_unit = "operations",
	.reports_bytes = true,
	.expect = "cycles >= 1 | mib_s > 0",
	.check = fs_check,
	.run = fs_run,
	.describe = fs_describe,
};
