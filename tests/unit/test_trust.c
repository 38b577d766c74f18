// SPDX-License-Identifier: GPL-2.0-or-later
/* Which directories and files loadd trusts: owned by root, itself or its
 * binary's owner, and writable by no one else (sticky directories and its
 * own or root's group excepted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "paths.h"
#include "trust.h"
#include "xalloc.h"

static void expect_dir(const char *dir, const char *problem)
{
	char *err = NULL;
	int rc = trust_dir_chain(dir, &err);

	if (problem == NULL) {
		if (rc != 0)
			fail_msg("%s refused: %s", dir, err);
	} else {
		if (rc == 0)
			fail_msg("%s trusted, expected \"%s\"", dir, problem);
		if (strstr(err, problem) == NULL)
			fail_msg("%s: \"%s\" lacks \"%s\"", dir, err, problem);
	}
	free(err);
}

static void expect_file(const char *path, const char *problem)
{
	char *err = NULL;
	int rc = trust_file(path, "profile", &err);

	if (problem == NULL) {
		if (rc != 0)
			fail_msg("%s refused: %s", path, err);
	} else {
		if (rc == 0)
			fail_msg("%s trusted, expected \"%s\"", path, problem);
		if (strstr(err, problem) == NULL)
			fail_msg("%s: \"%s\" lacks \"%s\"", path, err, problem);
	}
	free(err);
}

static void test_dirs_and_files(void **state)
{
	char dir[] = "/tmp/loadd-unit-trust.XXXXXX";
	char *sub, *file, *made, *err = NULL;
	FILE *fp;

	assert_non_null(mkdtemp(dir));
	sub = xasprintf("%s/sub", dir);
	file = xasprintf("%s/p.conf", sub);
	assert_int_equal(mkdir(sub, 0755), 0);
	fp = fopen(file, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(chmod(file, 0644), 0);

	expect_dir(sub, NULL);
	expect_file(file, NULL);
	/* A parent others can write makes everything below it untrusted. */
	assert_int_equal(chmod(dir, 0777), 0);
	expect_dir(sub, "is writable by other users (mode 0777)");
	expect_file(file, "is writable by other users");
	/* Sticky, like /tmp: others cannot replace what is in it. */
	assert_int_equal(chmod(dir, 01777), 0);
	expect_dir(sub, NULL);
	assert_int_equal(chmod(dir, 0700), 0);
	/* Group-writable: fine for loadd's own group, not for another. */
	assert_int_equal(chmod(sub, 0775), 0);
	expect_dir(sub, NULL);
	if (geteuid() == 0) {
		assert_int_equal(chown(sub, (uid_t)-1, 12345), 0);
		expect_dir(sub, "is writable by other users (mode 0775)");
		assert_int_equal(chown(sub, (uid_t)-1, getegid()), 0);
	}
	assert_int_equal(chmod(sub, 0755), 0);
	/* The file itself. */
	assert_int_equal(chmod(file, 0666), 0);
	expect_file(file, "profile ");
	expect_file(file, "is writable by other users (mode 0666)");
	assert_int_equal(chmod(file, 0644), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(file, 65534, (gid_t)-1), 0);
		expect_file(file, "belongs to uid 65534, not to root");
		assert_int_equal(chown(file, 0, (gid_t)-1), 0);
	}
	expect_file(sub, "is not a regular file");

	/* mkdir -p below a trusted directory, checked, then refused under an open one. */
	made = xasprintf("%s/a/b/sock", dir);
	assert_int_equal(trust_make_parent_dirs(made, 0700, "control socket", &err), 0);
	assert_int_equal(chmod(dir, 0777), 0);
	free(made);
	made = xasprintf("%s/c/d/sock", dir);
	assert_int_equal(trust_make_parent_dirs(made, 0700, "control socket", &err), -1);
	assert_non_null(strstr(err, "control socket"));
	assert_non_null(strstr(err, "writable by other users"));
	free(err);
	assert_int_equal(chmod(dir, 0700), 0);
	free(made);

	made = xasprintf("rm -rf '%s'", dir);
	assert_int_equal(system(made), 0);
	free(made);
	free(file);
	free(sub);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_dirs_and_files),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
