// SPDX-License-Identifier: GPL-2.0-or-later
/* The tree loader: its [load] sections through loader_validate (the tree
 * spec, the source, tar on PATH, file:line in every message), and the loader
 * run for real over a given source and over a tree of its own: each cycle
 * counted as tar's records, stopped, its scratch dir empty. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "loader_test.h"
#include "remove_tree.h"
#include "xalloc.h"

static void test_listed(void **state)
{
	check_listed("tree", "tar cycles", false);
}

static void test_valid_sections(void **state)
{
	static const struct section cases[] = {
		{ "tree", { { NULL } } },
		{ "tree", { { "tree", "depth=1 fanout=2 files=3 size=0" } } },
		{ "tree", { { "source", "/" } } },
	};

	check_valid(cases, NCASES(cases));
}

/* Each refused section and the exact place its message names. */
static void test_refused_sections(void **state)
{
	static const struct refused cases[] = {
		{ { "tree", { { "tree", "depth=99" } } }, "t.conf:11:" },
		{ { "tree", { { "tree", "depth=2 colour=red" } } }, "t.conf:11:" },
		{ { "tree", { { "source", "srcdir" } } },
		  "t.conf:11: source: give the directory as an absolute path, not 'srcdir'\n" },
		{ { "tree", { { "source", "/nonexistent" } } },
		  "t.conf:11: source: /nonexistent: No such file or directory\n" },
		{ { "tree", { { "source", "/dev/null" } } },
		  "t.conf:11: source: /dev/null is not a directory\n" },
	};

	check_refused(cases, NCASES(cases));
}

static void test_programs_on_path(void **state)
{
	check_needs_program("tree", "t.conf:10: load 'x' needs the tar program (package tar)\n");
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listed),           cmocka_unit_test(test_valid_sections),
		cmocka_unit_test(test_refused_sections), cmocka_unit_test(test_programs_on_path),
		cmocka_unit_test(test_tree_runs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
