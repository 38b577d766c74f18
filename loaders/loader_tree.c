// SPDX-License-Identifier: GPL-2.0-or-later
/* The tree loader: tar a directory tree into an archive in the load's
 * scratch dir, extract the archive into a scratch dir beside it, remove both,
 * again. A cycle is one tar plus one untar; bytes are the archive's bytes
 * tar wrote and then read back, twice its size a cycle. GNU tar reports
 * every 100 records (--checkpoint), so a big tree shows progress within a
 * step; another tar counts each step's bytes when it ends.
 * The tree is by default one of its own, generated from `tree` like the
 * probe's tree but in a directory of its own (tarring the probe's tree would
 * keep it in the page cache and hide what a cold-cache phase measures); it
 * is built once and reused across phases and runs. Or `source = DIR`. */
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <linux/magic.h>
#include <sys/stat.h>
#include <sys/statfs.h>
#include <sys/statvfs.h>
#include <sys/wait.h>
#include <unistd.h>

#include "loader.h"
#include "core_exec.h"
#include "parse.h"
#include "remove_tree.h"
#include "timeutil.h"
#include "tree.h"
#include "xalloc.h"

/* Free space never taken by a cycle: this share of the work dir's file
 * system (as ext4 keeps for root), on top of what the cycle writes. */
#define FREE_RESERVE_PERCENT 5

struct tree_config {
	struct tree_spec tree;
	char *source;
};

/* clang-format off */
static const struct option_def tree_options[] = {
	{ .key = "tree", .type = OPT_CUSTOM, .offset = offsetof(struct tree_config, tree),
	  .def = "depth=3 fanout=6 files=8 size=4K", .parse = tree_spec_parse,
	  .help = "the tree to tar, generated in the work dir as the probe's tree is (keys depth, "
		  "fanout, files, size), kept apart from the probe's and reused" },
	{ .key = "source", .type = OPT_STRING, .offset = offsetof(struct tree_config, source),
	  .help = "tar this existing directory (an absolute path) instead of a generated tree" },
	{ .key = NULL },
};
/* clang-format on */

/* /proc, /sys and the like: tar would read generated, endless files. */
static bool pseudo_fs(const char *dir)
{
	struct statfs sf;

	if (statfs(dir, &sf) < 0)
		return false;
	switch ((unsigned long)sf.f_type) {
	case PROC_SUPER_MAGIC:
	case SYSFS_MAGIC:
	case DEBUGFS_MAGIC:
	case TRACEFS_MAGIC:
	case CGROUP_SUPER_MAGIC:
	case CGROUP2_SUPER_MAGIC:
	case SECURITYFS_MAGIC:
	case BPF_FS_MAGIC:
	case DEVPTS_SUPER_MAGIC: return true;
	default: return false;
	}
}

/* Before a step that writes `need` bytes into the load's directory: does
 * the file system keep its reserve afterwards? Says why not in an event. */
static bool room_for(const struct loader_ctx *ctx, uint64_t need, const char *step)
{
	struct statvfs sv;
	uint64_t avail, reserve;

	if (statvfs(ctx->dir, &sv) < 0)
		return true;
	avail = (uint64_t)sv.f_bavail * sv.f_frsize;
	reserve = (uint64_t)sv.f_blocks * sv.f_frsize / 100 * FREE_RESERVE_PERCENT;
	if (avail >= need + reserve)
		return true;
	loader_error(ctx->shm);
	loader_event(ctx, "error",
		     "not enough free space in %s to %s: %llu MiB free, the step "
		     "writes about %llu MiB and %d%% of the file system (%llu MiB) is kept free",
		     ctx->dir, step, (unsigned long long)(avail >> 20),
		     (unsigned long long)(need >> 20), FREE_RESERVE_PERCENT,
		     (unsigned long long)(reserve >> 20));
	return false;
}

/* What tar writes for the generated tree: a 512-byte header per entry and
 * each file's data in 512-byte records. */
static uint64_t own_tree_bytes(const struct tree_spec *spec)
{
	uint64_t data = ((uint64_t)spec->file_size + 511) / 512 * 512;

	return tree_entries(spec) * (512 + data);
}

static int tree_check(const void *config, const struct load_def *def, const char *file, FILE *errs)
{
	const struct tree_config *cfg = config;
	int problems = 0;
	struct stat st;
	char *tar;

	if (cfg->source != NULL && cfg->source[0] != '/') {
		fprintf(errs, "%s:%d: source: give the directory as an absolute path, not '%s'\n",
			file, load_key_line(def, "source"), cfg->source);
		problems++;
	}
	/* The start-up check of the built-in defaults has no profile line: the
	 * machine is only looked at for a real [load] section. */
	if (def->line <= 0)
		return problems;
	tar = program_find("tar");
	if (tar == NULL) {
		fprintf(errs, "%s:%d: load '%s' needs the tar program (package tar)\n", file,
			def->line, def->name);
		problems++;
	}
	free(tar);
	if (cfg->source != NULL && cfg->source[0] == '/') {
		if (stat(cfg->source, &st) < 0) {
			fprintf(errs, "%s:%d: source: %s: %s\n", file, load_key_line(def, "source"),
				cfg->source, strerror(errno));
			problems++;
		} else if (!S_ISDIR(st.st_mode)) {
			fprintf(errs, "%s:%d: source: %s is not a directory\n", file,
				load_key_line(def, "source"), cfg->source);
			problems++;
		} else if (pseudo_fs(cfg->source)) {
			fprintf(errs,
				"%s:%d: source: %s is a kernel pseudo-filesystem (its files "
				"are generated, some without end); give a directory of real files\n",
				file, load_key_line(def, "source"), cfg->source);
			problems++;
		} else if (access(cfg->source, R_OK | X_OK) < 0) {
			fprintf(errs, "%s:%d: source: cannot read %s: %s\n", file,
				load_key_line(def, "source"), cfg->source, strerror(errno));
			problems++;
		}
	}
	return problems;
}

static void tree_describe(const void *config, char *buf, size_t len)
{
	const struct tree_config *cfg = config;
	const struct tree_spec *t = &cfg->tree;
	char size[32];

	if (cfg->source != NULL) {
		snprintf(buf, len, "tar and untar %s, again and again", cfg->source);
		return;
	}
	format_bytes((uint64_t)t->file_size, size, sizeof size);
	snprintf(buf, len,
		 "tar and untar a tree of %llu entries (depth=%ld fanout=%ld files=%ld, "
		 "%s files), again and again",
		 (unsigned long long)tree_entries(t), t->depth, t->fanout, t->files, size);
}

/* The parent of the load's scratch dir is the work dir. */
static char *workdir_of(const char *scratch)
{
	char *copy = xstrdup(scratch), *dir = xstrdup(dirname(copy));

	free(copy);
	return dir;
}

/* Builds (or finds) the load's own tree. Two tree loads of one spec in one
 * phase would build it at once: a lock makes the second wait and reuse it. */
static char *own_tree(const struct loader_ctx *ctx, const struct tree_spec *spec)
{
	char *workdir = workdir_of(ctx->dir);
	char *base = xasprintf("%s/%s", workdir, TREE_LOAD_DIR);
	char *lock_path = xasprintf("%s/.lock", base);
	char *path = NULL, *err = NULL;
	int lock = -1;
	int64_t t0;

	if (mkdir(base, 0755) < 0 && errno != EEXIST) {
		loader_event(ctx, "error", "cannot create %s: %s", base, strerror(errno));
		goto out;
	}
	lock = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (lock < 0) {
		loader_event(ctx, "error", "cannot open %s: %s", lock_path, strerror(errno));
		goto out;
	}
	while (flock(lock, LOCK_EX) < 0) {
		if (errno != EINTR || loader_stopping())
			goto out;
	}
	t0 = mono_ns();
	path = tree_ensure(base, spec, &err);
	if (path == NULL) {
		loader_event(ctx, "error", "%s", err);
		free(err);
	} else {
		loader_event(ctx, "info", "tree %s: %llu entries, ready in %.1f s", path,
			     (unsigned long long)tree_entries(spec), (mono_ns() - t0) / 1e9);
	}
out:
	if (lock >= 0)
		close(lock);
	free(lock_path);
	free(base);
	free(workdir);
	return path;
}

/* True when path is dir or lies below it (both resolved). */
static bool inside(const char *path, const char *dir)
{
	char *rpath = realpath(path, NULL), *rdir = realpath(dir, NULL);
	bool in = false;

	if (rpath != NULL && rdir != NULL) {
		size_t n = strlen(rdir);

		in = strncmp(rpath, rdir, n) == 0 &&
		     (rpath[n] == '/' || rpath[n] == '\0' || strcmp(rdir, "/") == 0);
	}
	free(rpath);
	free(rdir);
	return in;
}

/* GNU tar's records with its default blocking factor (-b 20). */
#define TAR_RECORD 10240
#define TAR_CHECKPOINT 100

/* One run of tar: the bytes of the archive counted so far. */
struct tar_step {
	struct loader_shm *shm;
	uint64_t counted;
};

/* "tar: #300": checkpoint 300, 300 records through the archive. */
static int tar_line(void *arg, const char *line)
{
	struct tar_step *step = arg;
	const char *mark = strrchr(line, '#');
	unsigned long records;
	char extra;

	if (mark == NULL || mark < line + 2 || mark[-1] != ' ' || mark[-2] != ':' ||
	    sscanf(mark + 1, "%lu%c", &records, &extra) != 1)
		return 0;
	if ((uint64_t)records * TAR_RECORD > step->counted) {
		loader_progress(step->shm, 0, (uint64_t)records * TAR_RECORD - step->counted, 0);
		step->counted = (uint64_t)records * TAR_RECORD;
	}
	return 1;
}

static int gnu_line(void *arg, const char *line)
{
	if (strstr(line, "GNU tar") != NULL)
		*(bool *)arg = true;
	return 1;
}

/* Only GNU tar has --checkpoint. */
static bool tar_is_gnu(char *tar)
{
	char *const argv[] = { tar, "--version", NULL };
	struct exec_child child;
	char *err = NULL;
	bool gnu = false;

	if (exec_start(argv, &child, &err) < 0) {
		free(err);
		return false;
	}
	exec_finish(&child, gnu_line, &gnu);
	return gnu;
}

/* Runs tar once and counts the archive's bytes (when creating, the size of
 * the archive it made goes to *archive_bytes); 0 when it did its job, else
 * -1 (stopped, or failed with an event). Exit status 1 of tar -c ("file
 * changed as we read it", a live source) still made an archive: counted as
 * an error, not as a failure. */
static int run_tar(const struct loader_ctx *ctx, char *const argv[], bool creating,
		   const char *archive, uint64_t *archive_bytes)
{
	struct tar_step step = { .shm = ctx->shm };
	struct exec_child child;
	char *err = NULL, how[64];
	struct stat st;
	int status;

	if (exec_start(argv, &child, &err) < 0) {
		loader_event(ctx, "error", "%s", err);
		free(err);
		return -1;
	}
	status = exec_finish(&child, tar_line, &step);
	if (status < 0)
		return -1;
	if (!WIFEXITED(status) || WEXITSTATUS(status) > (creating ? 1 : 0)) {
		exec_status_text(status, how, sizeof how);
		loader_error(ctx->shm);
		loader_event(ctx, "error", "tar -%s ended with %s%s%s", creating ? "c" : "x", how,
			     child.last_line[0] ? ": " : "", child.last_line);
		return -1;
	}
	if (WEXITSTATUS(status) == 1)
		loader_error(ctx->shm);
	if (creating) {
		if (stat(archive, &st) < 0) {
			loader_event(ctx, "error", "tar made no archive %s: %s", archive,
				     strerror(errno));
			return -1;
		}
		*archive_bytes = (uint64_t)st.st_size;
	}
	if (*archive_bytes > step.counted)
		loader_progress(ctx->shm, 0, *archive_bytes - step.counted, 0);
	return 0;
}

static int tree_run(const struct loader_ctx *ctx)
{
	const struct tree_config *cfg = ctx->config;
	char *tar, *source, *archive, *extract, checkpoint[32], action[40];
	char *create_argv[12], *extract_argv[12];
	size_t nc = 0, nx = 0;
	bool gnu;
	int rc = 1;

	tar = program_find("tar");
	if (tar == NULL) {
		loader_event(ctx, "error", "tar is not on PATH any more");
		return 1;
	}
	source = cfg->source != NULL ? xstrdup(cfg->source) : own_tree(ctx, &cfg->tree);
	if (source == NULL) {
		free(tar);
		return loader_stopping() ? 0 : 1;
	}
	if (inside(ctx->dir, source)) {
		loader_event(ctx, "error",
			     "source %s holds the work dir: tar would archive its "
			     "own archive",
			     source);
		free(source);
		free(tar);
		return 1;
	}
	archive = xasprintf("%s/tree.tar", ctx->dir);
	extract = xasprintf("%s/extract", ctx->dir);
	snprintf(checkpoint, sizeof checkpoint, "--checkpoint=%d", TAR_CHECKPOINT);
	snprintf(action, sizeof action, "--checkpoint-action=echo=#%%u");
	gnu = tar_is_gnu(tar);
	create_argv[nc++] = tar;
	extract_argv[nx++] = tar;
	if (gnu) {
		create_argv[nc++] = checkpoint;
		create_argv[nc++] = action;
		extract_argv[nx++] = checkpoint;
		extract_argv[nx++] = action;
	}
	create_argv[nc++] = "-b";
	create_argv[nc++] = "20";
	create_argv[nc++] = "-cf";
	create_argv[nc++] = archive;
	create_argv[nc++] = "-C";
	create_argv[nc++] = source;
	create_argv[nc++] = ".";
	create_argv[nc] = NULL;
	extract_argv[nx++] = "-b";
	extract_argv[nx++] = "20";
	extract_argv[nx++] = "-xf";
	extract_argv[nx++] = archive;
	extract_argv[nx++] = "-C";
	extract_argv[nx++] = extract;
	extract_argv[nx] = NULL;

	/* The archive's size: estimated for a generated tree, known after the
	 * first cycle for a source. */
	uint64_t last_archive = cfg->source != NULL ? 0 : own_tree_bytes(&cfg->tree);

	while (!loader_stopping()) {
		uint64_t archive_bytes = 0;

		/* The archive, then its extraction beside it: twice the tree. */
		if (!room_for(ctx, 2 * last_archive, "write the archive and its extraction"))
			break;
		if (run_tar(ctx, create_argv, true, archive, &archive_bytes) < 0)
			break;
		last_archive = archive_bytes;
		if (!room_for(ctx, archive_bytes, "extract the archive"))
			break;
		if (mkdir(extract, 0755) < 0) {
			loader_event(ctx, "error", "cannot create %s: %s", extract,
				     strerror(errno));
			break;
		}
		if (run_tar(ctx, extract_argv, false, archive, &archive_bytes) < 0)
			break;
		if (remove_tree(extract) < 0 || unlink(archive) < 0) {
			loader_event(ctx, "error", "cannot remove the copy of the tree in %s: %s",
				     ctx->dir, strerror(errno));
			break;
		}
		loader_progress(ctx->shm, 1, 0, 0);
	}
	if (loader_stopping())
		rc = 0;
	remove_tree(extract);
	unlink(archive);
	free(extract);
	free(archive);
	free(source);
	free(tar);
	return rc;
}

const struct loader_ops loader_tree_ops = {
	.version = LOADER_OPS_VERSION,
	.name = "tree",
	.summary = "tar a directory tree into the work dir, untar it beside, remove both, again",
	.options = tree_options,
	.config_size = sizeof(struct tree_config),
	.cycle_unit = "tar cycles",
	.ops_unit = NULL,
	.reports_bytes = true,
	.expect = "cycles >= 1",
	.check = tree_check,
	.run = tree_run,
	.describe = tree_describe,
};
