// SPDX-License-Identifier: GPL-2.0-or-later
/* The memory load's cgroup, on a tree of plain files standing in for the
 * cgroup file system: which hierarchy it picks (v2 at the root, the hybrid
 * layout's unified, v1's memory controller), and what it writes on entering
 * (cgroup.subtree_control, memory.max, memory.high, or v1's limit and soft
 * limit, cgroup.procs), what it reads back (its charge and limit, its
 * parent's room). The development machine has the memory controller on v1
 * only, so this is the one place the v2 path runs. */
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

#include "memory_cgroup.h"
#include "remove_tree.h"

#define MiB (1024ULL * 1024)

struct fake {
	char root[PATH_MAX];
};

static int fake_setup(void **state)
{
	struct fake *f = calloc(1, sizeof *f);
	const char *tmp = getenv("TMPDIR");

	snprintf(f->root, sizeof f->root, "%s/loadd-cgroup-XXXXXX", tmp ? tmp : "/tmp");
	if (mkdtemp(f->root) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int fake_teardown(void **state)
{
	struct fake *f = *state;

	remove_tree(f->root);
	free(f);
	return 0;
}

/* Writes text to root/rel, making the dirs on the way. */
static void put(const struct fake *f, const char *rel, const char *text)
{
	char path[PATH_MAX * 2];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", f->root, rel);
	for (char *slash = strchr(path + strlen(f->root) + 1, '/'); slash != NULL;
	     slash = strchr(slash + 1, '/')) {
		*slash = '\0';
		mkdir(path, 0755);
		*slash = '/';
	}
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static void assert_file(const struct fake *f, const char *rel, const char *want)
{
	char path[PATH_MAX * 2], got[128] = "";
	FILE *fp;
	size_t n;

	snprintf(path, sizeof path, "%s/%s", f->root, rel);
	fp = fopen(path, "r");
	assert_non_null(fp);
	n = fread(got, 1, sizeof got - 1, fp);
	got[n] = '\0';
	fclose(fp);
	if (strcmp(got, want) != 0)
		fail_msg("%s: \"%s\", want \"%s\"", rel, got, want);
}

static void assert_path(const struct fake *f, const char *got, const char *rel)
{
	char want[PATH_MAX * 2];

	snprintf(want, sizeof want, "%s%s", f->root, rel);
	assert_string_equal(got, want);
}

/* A v2 tree as a delegated session has it; the files the kernel would make
 * in the load's own cgroup are made beforehand (mkdir finds it there). */
static void test_v2_enter(void **state)
{
	const struct fake *f = *state;
	struct memory_cgroup cg;
	uint64_t used = 0, max = 0, room = 0;
	char why[256] = "", stale[PATH_MAX * 2];

	put(f, "cgroup.controllers", "cpuset cpu io memory pids\n");
	put(f, "user.slice/s1/cgroup.subtree_control", "");
	put(f, "user.slice/s1/cgroup.procs", "");
	put(f, "user.slice/s1/memory.max", "max\n");
	put(f, "user.slice/s1/memory.stat", "anon 104857600\nfile 5\n");
	put(f, "user.slice/s1/loadd-memory-7/memory.max", "");
	put(f, "user.slice/s1/loadd-memory-7/memory.high", "");
	put(f, "user.slice/s1/loadd-memory-7/cgroup.procs", "");
	/* left by a load that was killed: swept */
	snprintf(stale, sizeof stale, "%s/user.slice/s1/loadd-memory-3", f->root);
	assert_int_equal(mkdir(stale, 0755), 0);

	assert_true(memory_cgroup_find_at(&cg, f->root, "1:name=systemd:/x\n0::/user.slice/s1\n"));
	assert_int_equal(cg.version, 2);
	assert_path(f, cg.parent, "/user.slice/s1");

	/* unlimited parent: no room figure */
	assert_false(memory_cgroup_room(&cg, &room));

	if (memory_cgroup_enter(&cg, "7", 900 * MiB, 1000 * MiB, why, sizeof why) != 0)
		fail_msg("enter: %s", why);
	assert_path(f, cg.dir, "/user.slice/s1/loadd-memory-7");
	assert_file(f, "user.slice/s1/cgroup.subtree_control", "+memory");
	assert_file(f, "user.slice/s1/loadd-memory-7/memory.max", "1048576000");
	assert_file(f, "user.slice/s1/loadd-memory-7/memory.high", "943718400");
	assert_file(f, "user.slice/s1/loadd-memory-7/cgroup.procs", "0");
	assert_int_equal(access(stale, F_OK), -1);

	/* its charge and limit, as the controller reads them each tick */
	put(f, "user.slice/s1/loadd-memory-7/memory.current", "524288000\n");
	put(f, "user.slice/s1/loadd-memory-7/memory.max", "1048576000\n");
	assert_true(memory_cgroup_usage(&cg, &used, &max));
	assert_int_equal(used, 500 * MiB);
	assert_int_equal(max, 1000 * MiB);

	/* a limited parent leaves its limit less its anonymous memory */
	put(f, "user.slice/s1/memory.max", "2097152000\n");
	assert_true(memory_cgroup_room(&cg, &room));
	assert_int_equal(room, 2000 * MiB - 100 * MiB);

	/* back to the parent (the dir of plain files cannot be removed) */
	memory_cgroup_leave(&cg);
	assert_file(f, "user.slice/s1/cgroup.procs", "0");
	assert_string_equal(cg.dir, "");
	assert_false(memory_cgroup_usage(&cg, &used, &max));
}

/* A limit the kernel refuses (here: no memory.max file) is an error that
 * says which file, and nothing is left entered. */
static void test_v2_refused(void **state)
{
	const struct fake *f = *state;
	struct memory_cgroup cg;
	char why[PATH_MAX + 128] = "";

	put(f, "cgroup.controllers", "memory\n");
	put(f, "cgroup.subtree_control", "");
	put(f, "cgroup.procs", "");
	assert_true(memory_cgroup_find_at(&cg, f->root, "0::/\n"));
	assert_int_equal(cg.version, 2);
	assert_string_equal(cg.parent, f->root);
	assert_int_equal(memory_cgroup_enter(&cg, "9", MiB, 2 * MiB, why, sizeof why), -1);
	assert_non_null(strstr(why, "loadd-memory-9: its limit"));
	assert_string_equal(cg.dir, "");
}

/* The hybrid layout: a unified hierarchy at root/unified without the memory
 * controller (as on the development machine) means v1. */
static void test_hybrid_v1(void **state)
{
	const struct fake *f = *state;
	struct memory_cgroup cg;
	char why[256] = "";

	put(f, "unified/cgroup.controllers", "\n");
	put(f, "memory/a/b/cgroup.procs", "");
	put(f, "memory/a/b/loadd-memory-5/memory.limit_in_bytes", "");
	put(f, "memory/a/b/loadd-memory-5/memory.soft_limit_in_bytes", "");
	put(f, "memory/a/b/loadd-memory-5/cgroup.procs", "");
	assert_true(memory_cgroup_find_at(&cg, f->root, "4:memory:/a/b\n0::/\n"));
	assert_int_equal(cg.version, 1);
	assert_path(f, cg.parent, "/memory/a/b");
	if (memory_cgroup_enter(&cg, "5", 30 * MiB, 40 * MiB, why, sizeof why) != 0)
		fail_msg("enter: %s", why);
	assert_file(f, "memory/a/b/loadd-memory-5/memory.limit_in_bytes", "41943040");
	assert_file(f, "memory/a/b/loadd-memory-5/memory.soft_limit_in_bytes", "31457280");
	assert_file(f, "memory/a/b/loadd-memory-5/cgroup.procs", "0");
	memory_cgroup_leave(&cg);
}

/* The hybrid layout with the memory controller on the unified side: v2
 * there, at the path of the 0:: line. */
static void test_hybrid_unified(void **state)
{
	const struct fake *f = *state;
	struct memory_cgroup cg;

	put(f, "unified/cgroup.controllers", "memory pids\n");
	assert_true(memory_cgroup_find_at(&cg, f->root, "4:memory:/a\n0::/u\n"));
	assert_int_equal(cg.version, 2);
	assert_path(f, cg.parent, "/unified/u");
}

/* No memory controller anywhere: none, and nothing to enter. */
static void test_none(void **state)
{
	const struct fake *f = *state;
	struct memory_cgroup cg;

	put(f, "cgroup.controllers", "cpu io\n");
	assert_false(memory_cgroup_find_at(&cg, f->root, "0::/\n"));
	assert_int_equal(cg.version, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_v2_enter, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_v2_refused, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_hybrid_v1, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_hybrid_unified, fake_setup, fake_teardown),
		cmocka_unit_test_setup_teardown(test_none, fake_setup, fake_teardown),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
