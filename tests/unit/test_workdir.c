// SPDX-License-Identifier: GPL-2.0-or-later
/* The work dir: what loadd refuses to work in, the stamp that marks it as
 * loadd's, and a sweep that removes only what loadd recorded making. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "log.h"
#include "workdir.h"

struct fixture {
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	snprintf(f->dir, sizeof f->dir, "/tmp/test_workdir.XXXXXX");
	if (f == NULL || mkdtemp(f->dir) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd;

	if (asprintf(&cmd, "rm -rf '%s'", f->dir) > 0) {
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", f->dir);
		free(cmd);
	}
	free(f);
	return 0;
}

static char *path_in(const struct fixture *f, const char *name)
{
	char *p;

	assert_true(asprintf(&p, "%s/%s", f->dir, name) > 0);
	return p;
}

static void write_file(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
}

/* Opens dir; returns the message of a refusal (malloc'd) or NULL. */
static char *refusal(const char *dir)
{
	char *resolved = NULL, *err = NULL;
	int fd = workdir_open(dir, &resolved, &err);

	if (fd >= 0) {
		close(fd);
		free(resolved);
		return NULL;
	}
	assert_non_null(err);
	return err;
}

static void assert_refused(const char *dir, const char *why)
{
	char *err = refusal(dir);

	if (err == NULL)
		fail_msg("%s was accepted, want a refusal saying '%s'", dir, why);
	if (strstr(err, why) == NULL)
		fail_msg("refusal of %s says '%s', want '%s'", dir, err, why);
	free(err);
}

static void test_new_dir_is_stamped(void **state)
{
	struct fixture *f = *state;
	char *work = path_in(f, "a/b/work"), *stamp, *err;
	struct stat st;

	err = refusal(work);
	if (err != NULL)
		fail_msg("%s", err);
	assert_int_equal(stat(work, &st), 0);
	assert_int_equal(st.st_mode & 0777, geteuid() == 0 ? 0711 : 0700);
	assert_true(asprintf(&stamp, "%s/%s", work, WORKDIR_STAMP) > 0);
	assert_int_equal(access(stamp, F_OK), 0);
	/* Its own again: accepted (the lock was released). */
	assert_null(refusal(work));
	free(stamp);
	free(work);
}

static void test_refusals(void **state)
{
	struct fixture *f = *state;
	char *target = path_in(f, "target"), *link = path_in(f, "link");
	char *gw = path_in(f, "groupw"), *full = path_in(f, "full");
	char *open_parent = path_in(f, "open"), *below = path_in(f, "open/work");
	char *file;

	assert_int_equal(mkdir(target, 0700), 0);
	assert_int_equal(symlink(target, link), 0);
	assert_refused(link, "symbolic link");

	assert_int_equal(mkdir(gw, 0700), 0);
	assert_int_equal(chmod(gw, 0770), 0);
	assert_refused(gw, "writable by its group (mode 0770)");

	assert_int_equal(mkdir(full, 0700), 0);
	assert_true(asprintf(&file, "%s/thesis.txt", full) > 0);
	write_file(file);
	assert_refused(full, "not empty and has no " WORKDIR_STAMP);
	assert_int_equal(access(file, F_OK), 0);

	assert_int_equal(mkdir(open_parent, 0700), 0);
	assert_int_equal(chmod(open_parent, 0777), 0);
	assert_refused(below, "writable by others (mode 0777) without the sticky bit");
	assert_int_equal(chmod(open_parent, 01777), 0);
	assert_null(refusal(below));

	if (geteuid() == 0) {
		char *theirs = path_in(f, "theirs");

		assert_int_equal(mkdir(theirs, 0700), 0);
		assert_int_equal(chown(theirs, 65534, 65534), 0);
		assert_refused(theirs, "belongs to");
		free(theirs);
	}
	assert_refused("/", "give a directory of its own");
	assert_refused("/usr", "system directory");
	free(file);
	free(target);
	free(link);
	free(gw);
	free(full);
	free(open_parent);
	free(below);
}

/* The sweep removes what loadd recorded (a link inside is removed, not
 * followed); a load-* dir loadd did not make stays, and cannot be taken. */
static void test_sweep_only_what_was_made(void **state)
{
	struct fixture *f = *state;
	char *work = path_in(f, "work"), *outside = path_in(f, "outside");
	char *resolved = NULL, *err = NULL, path[512];
	int lock = workdir_open(work, &resolved, &err);

	assert_true(lock >= 0);
	write_file(outside);
	assert_int_equal(workdir_make(resolved, "load-old", geteuid(), getegid(), true, &err), 0);
	assert_int_equal(workdir_make(resolved, "cache-old", geteuid(), getegid(), false, &err), 0);
	snprintf(path, sizeof path, "%s/load-old/deep", resolved);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/load-old/deep/file", resolved);
	write_file(path);
	snprintf(path, sizeof path, "%s/load-old/link", resolved);
	assert_int_equal(symlink(outside, path), 0);
	snprintf(path, sizeof path, "%s/load-precious", resolved);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof path, "%s/load-precious/thesis.txt", resolved);
	write_file(path);
	snprintf(path, sizeof path, "%s/tree-keep", resolved);
	assert_int_equal(mkdir(path, 0700), 0);

	/* Reused when recorded, refused when not. */
	assert_int_equal(workdir_make(resolved, "load-old", geteuid(), getegid(), false, &err), 0);
	assert_int_equal(workdir_make(resolved, "load-precious", geteuid(), getegid(), true, &err),
			 -1);
	assert_non_null(strstr(err, "loadd did not make it"));
	free(err);
	err = NULL;
	assert_int_equal(workdir_make(resolved, "../escape", geteuid(), getegid(), true, &err), -1);
	free(err);

	workdir_sweep(resolved);
	snprintf(path, sizeof path, "%s/load-old", resolved);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof path, "%s/cache-old", resolved);
	assert_int_equal(access(path, F_OK), -1);
	snprintf(path, sizeof path, "%s/load-precious/thesis.txt", resolved);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof path, "%s/tree-keep", resolved);
	assert_int_equal(access(path, F_OK), 0);
	assert_int_equal(access(outside, F_OK), 0);
	close(lock);
	free(resolved);
	free(work);
	free(outside);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_new_dir_is_stamped, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refusals, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_only_what_was_made, setup, teardown),
	};

	log_init("test_workdir", 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
