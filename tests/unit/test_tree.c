// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe tree: spec parsing, fingerprints, and building, reusing and
 * rebuilding it in temp dirs. */
#include <errno.h>
#include <fcntl.h>
#include <ftw.h>
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

#include "tree.h"
#include "xalloc.h"

static const struct tree_spec defaults = { .depth = 4, .fanout = 8, .files = 10, .file_size = 0 };

static void test_spec_parse_good(void **state)
{
	static const struct {
		const char *text;
		struct tree_spec want;
	} cases[] = {
		{ "depth=4 fanout=8 files=10 size=512", { 4, 8, 10, 512 } },
		{ "size=512 files=3 fanout=2 depth=1", { 1, 2, 3, 512 } },
		{ "fanout=2", { 4, 2, 10, 0 } }, /* the rest kept */
		{ "files=0 size=1K", { 4, 8, 0, 1024 } },
		{ "  depth=2\tfanout=3  ", { 2, 3, 10, 0 } },
		{ "depth=0 fanout=1 files=0 size=0", { 0, 1, 0, 0 } },
		{ "depth=1 fanout=64 files=1000 size=1M", { 1, 64, 1000, 1048576 } },
		{ "depth=2,fanout=4", { 2, 4, 10, 0 } },
		/* 1+16+...+16^5 = 1118481 directories: the cap is on entries */
		{ "depth=5 fanout=16 files=0", { 5, 16, 0, 0 } },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tree_spec spec = defaults;
		const char *err = NULL;

		if (tree_spec_parse(cases[i].text, &spec, &err) != 0)
			fail_msg("'%s': %s", cases[i].text, err);
		assert_int_equal(spec.depth, cases[i].want.depth);
		assert_int_equal(spec.fanout, cases[i].want.fanout);
		assert_int_equal(spec.files, cases[i].want.files);
		assert_int_equal(spec.file_size, cases[i].want.file_size);
	}
}

static void test_spec_parse_bad(void **state)
{
	static const struct {
		const char *text;
		const char *msg; /* a part of the message */
	} cases[] = {
		{ "", "empty" },
		{ "   ", "empty" },
		{ "depth", "key=value" },
		{ "depth=", "depth" },
		{ "depth=abc", "depth" },
		{ "depth=9", "depth must be 0..8" },
		{ "depth=-1", "depth must be 0..8" },
		{ "fanout=0", "fanout must be 1..64" },
		{ "fanout=65", "fanout must be 1..64" },
		{ "files=1001", "files must be 0..1000" },
		{ "size=2M", "at most 1M" },
		{ "size=50%", "number of bytes" },
		{ "size=ram", "number of bytes" },
		{ "size=lots", "size" },
		{ "colour=red", "unknown key 'colour'" },
		{ "depth=2 depth=3", "twice" },
		{ "depth=8 fanout=64", "more than the 2000000 allowed" },
		{ "depth=6 fanout=8 files=10", "more than the 2000000 allowed" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct tree_spec spec = defaults;
		const char *err = NULL;

		assert_int_equal(tree_spec_parse(cases[i].text, &spec, &err), -1);
		assert_non_null(err);
		if (strstr(err, cases[i].msg) == NULL)
			fail_msg("'%s': message '%s' lacks '%s'", cases[i].text, err, cases[i].msg);
		/* a refused spec leaves the destination alone */
		assert_memory_equal(&spec, &defaults, sizeof spec);
	}
}

static void test_entries(void **state)
{
	static const struct {
		struct tree_spec spec;
		uint64_t entries;
	} cases[] = {
		{ { 0, 1, 0, 0 }, 1 },
		{ { 0, 5, 7, 0 }, 8 },
		{ { 1, 2, 3, 0 }, 3 + 9 },
		{ { 4, 8, 10, 0 }, 4681 * 11 },
		{ { 8, 64, 1000, 0 }, 1001ULL * 285942833483841ULL },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++)
		assert_int_equal(tree_entries(&cases[i].spec), cases[i].entries);
}

static void test_fingerprint(void **state)
{
	static const struct tree_spec specs[] = {
		{ 4, 8, 10, 0 }, { 5, 8, 10, 0 }, { 4, 9, 10, 0 }, { 4, 8, 11, 0 },
		{ 4, 8, 10, 1 }, { 8, 4, 10, 0 }, { 4, 10, 8, 0 },
	};
	char fp[sizeof specs / sizeof specs[0]][TREE_FINGERPRINT_LEN + 1];

	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		char again[TREE_FINGERPRINT_LEN + 1];

		tree_fingerprint(&specs[i], fp[i]);
		assert_int_equal(strlen(fp[i]), TREE_FINGERPRINT_LEN);
		assert_int_equal(strspn(fp[i], "0123456789abcdef"), TREE_FINGERPRINT_LEN);
		tree_fingerprint(&specs[i], again);
		assert_string_equal(fp[i], again);
		for (size_t j = 0; j < i; j++)
			assert_string_not_equal(fp[i], fp[j]);
	}
}

/* A listing of a tree: "path type size" lines, sorted. */
static char **walk_list;
static size_t walk_n, walk_cap;
static size_t walk_root_len;

static int walk_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	if (walk_n == walk_cap) {
		walk_cap = walk_cap ? walk_cap * 2 : 256;
		walk_list = xreallocarray(walk_list, walk_cap, sizeof *walk_list);
	}
	walk_list[walk_n++] = xasprintf(".%s %c %lld", path + walk_root_len,
					S_ISDIR(st->st_mode)   ? 'd'
					: S_ISREG(st->st_mode) ? 'f'
							       : '?',
					S_ISREG(st->st_mode) ? (long long)st->st_size : 0LL);
	return 0;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static size_t walk(const char *root, char ***out)
{
	walk_list = NULL;
	walk_n = walk_cap = 0;
	walk_root_len = strlen(root);
	assert_int_equal(nftw(root, walk_one, 16, FTW_PHYS), 0);
	qsort(walk_list, walk_n, sizeof *walk_list, cmp_str);
	*out = walk_list;
	return walk_n;
}

static void walk_free(char **list, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(list[i]);
	free(list);
}

static int rm_one(const char *path, const struct stat *st, int flag, struct FTW *ftw)
{
	return remove(path);
}

static char *make_tmpdir(void)
{
	const char *base = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char *dir = xasprintf("%s/loadd-tree-test.XXXXXX", base);

	assert_non_null(mkdtemp(dir));
	return dir;
}

static void rm_tmpdir(char *dir)
{
	nftw(dir, rm_one, 16, FTW_DEPTH | FTW_PHYS);
	free(dir);
}

static bool exists(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	struct stat st;
	bool ok = lstat(path, &st) == 0;

	free(path);
	return ok;
}

static void touch(const char *dir, const char *name)
{
	char *path = xasprintf("%s/%s", dir, name);
	int fd = open(path, O_WRONLY | O_CREAT, 0644);

	assert_true(fd >= 0);
	close(fd);
	free(path);
}

static char *ensure_ok(const char *workdir, const struct tree_spec *spec)
{
	char *err = NULL;
	char *path = tree_ensure(workdir, spec, &err);

	if (path == NULL)
		fail_msg("tree_ensure: %s", err);
	return path;
}

static void test_build_count(void **state)
{
	static const struct tree_spec specs[] = {
		{ 0, 1, 0, 0 }, { 0, 1, 3, 10 }, { 2, 3, 4, 100 }, { 3, 4, 5, 0 }, { 1, 64, 0, 0 },
	};

	for (size_t i = 0; i < sizeof specs / sizeof specs[0]; i++) {
		char *work = make_tmpdir(), *path, **list, fp[TREE_FINGERPRINT_LEN + 1], *want;
		size_t n, files = 0;

		path = ensure_ok(work, &specs[i]);
		tree_fingerprint(&specs[i], fp);
		want = xasprintf("%s/tree-%s", work, fp);
		assert_string_equal(path, want);
		assert_true(exists(path, ".loadd-tree-complete"));

		n = walk(path, &list);
		/* the listing holds the stamp besides the tree's own entries */
		assert_int_equal(n, tree_entries(&specs[i]) + 1);
		for (size_t j = 0; j < n; j++) {
			char name[64], type;
			long long size;

			assert_int_equal(sscanf(list[j], "%63s %c %lld", name, &type, &size), 3);
			if (type == 'f' && strstr(name, ".loadd-tree-complete") == NULL) {
				files++;
				assert_int_equal(size, specs[i].file_size);
			}
		}
		assert_int_equal(files, (tree_entries(&specs[i]) / (uint64_t)(specs[i].files + 1)) *
						(uint64_t)specs[i].files);
		walk_free(list, n);
		free(want);
		free(path);
		rm_tmpdir(work);
	}
}

static void test_names(void **state)
{
	struct tree_spec spec = { 2, 12, 11, 0 };
	char *work = make_tmpdir(), *path = ensure_ok(work, &spec);

	assert_true(exists(path, "f000"));
	assert_true(exists(path, "f010"));
	assert_false(exists(path, "f011"));
	assert_true(exists(path, "d00/d11/f010"));
	assert_false(exists(path, "d12"));
	assert_false(exists(path, "d00/d00/d00"));
	free(path);
	rm_tmpdir(work);
}

static void test_reuse(void **state)
{
	struct tree_spec spec = { 2, 3, 2, 64 };
	char *work = make_tmpdir(), *p1, *p2;
	struct stat st1, st2;

	p1 = ensure_ok(work, &spec);
	assert_int_equal(stat(p1, &st1), 0);
	/* anything added to a complete tree survives: it was not rebuilt */
	touch(p1, "marker");
	assert_int_equal(stat(p1, &st1), 0);
	p2 = ensure_ok(work, &spec);
	assert_string_equal(p1, p2);
	assert_int_equal(stat(p2, &st2), 0);
	assert_int_equal(st1.st_ino, st2.st_ino);
	assert_int_equal(st1.st_mtim.tv_sec, st2.st_mtim.tv_sec);
	assert_int_equal(st1.st_mtim.tv_nsec, st2.st_mtim.tv_nsec);
	assert_true(exists(p2, "marker"));
	free(p1);
	free(p2);
	rm_tmpdir(work);
}

static void test_rebuild_partial(void **state)
{
	static const char *const stamps[] = {
		NULL,                 /* no stamp: interrupted build */
		"0123456789abcdef\n", /* another tree's stamp */
		"",                   /* empty */
	};
	struct tree_spec spec = { 2, 3, 2, 16 };

	for (size_t i = 0; i < sizeof stamps / sizeof stamps[0]; i++) {
		char *work = make_tmpdir(), *path = ensure_ok(work, &spec), *stamp, **list;
		size_t n;

		stamp = xasprintf("%s/.loadd-tree-complete", path);
		assert_int_equal(unlink(stamp), 0);
		if (stamps[i]) {
			FILE *fp = fopen(stamp, "w");
			assert_non_null(fp);
			fputs(stamps[i], fp);
			fclose(fp);
		}
		touch(path, "d00/leftover");
		free(path);

		path = ensure_ok(work, &spec);
		assert_false(exists(path, "d00/leftover"));
		assert_true(exists(path, ".loadd-tree-complete"));
		n = walk(path, &list);
		assert_int_equal(n, tree_entries(&spec) + 1);
		walk_free(list, n);
		free(stamp);
		free(path);
		rm_tmpdir(work);
	}
}

/* A symbolic link inside a partial tree is removed, never followed. */
static void test_rebuild_keeps_outside(void **state)
{
	struct tree_spec spec = { 1, 2, 1, 0 };
	char *work = make_tmpdir(), *outside = make_tmpdir(), *path, *link, *stamp;

	path = ensure_ok(work, &spec);
	touch(outside, "precious");
	link = xasprintf("%s/d01/escape", path);
	assert_int_equal(symlink(outside, link), 0);
	stamp = xasprintf("%s/.loadd-tree-complete", path);
	assert_int_equal(unlink(stamp), 0);
	free(path);

	path = ensure_ok(work, &spec);
	assert_false(exists(path, "d01/escape"));
	assert_true(exists(outside, "precious"));
	free(link);
	free(stamp);
	free(path);
	rm_tmpdir(outside);
	rm_tmpdir(work);
}

static void test_refuse_symlink(void **state)
{
	struct tree_spec spec = { 1, 2, 1, 0 };
	char *work = make_tmpdir(), *target = make_tmpdir(), *link, *err = NULL;
	char fp[TREE_FINGERPRINT_LEN + 1];

	tree_fingerprint(&spec, fp);
	link = xasprintf("%s/tree-%s", work, fp);
	assert_int_equal(symlink(target, link), 0);
	touch(target, "keep");
	assert_null(tree_ensure(work, &spec, &err));
	assert_non_null(err);
	assert_non_null(strstr(err, "symbolic link"));
	assert_non_null(strstr(err, link));
	assert_true(exists(target, "keep"));
	assert_false(exists(target, "d00"));
	free(err);

	/* a file in the way is refused too */
	assert_int_equal(unlink(link), 0);
	touch(work, strrchr(link, '/') + 1);
	err = NULL;
	assert_null(tree_ensure(work, &spec, &err));
	assert_non_null(strstr(err, "not a directory"));
	free(err);

	err = NULL;
	assert_null(tree_ensure("/nonexistent-loadd-dir", &spec, &err));
	assert_non_null(strstr(err, "No such file or directory"));
	free(err);

	free(link);
	rm_tmpdir(target);
	rm_tmpdir(work);
}

static bool same_file(const char *a, const char *b)
{
	FILE *fa = fopen(a, "rb"), *fb = fopen(b, "rb");
	bool same = fa && fb;
	int ca, cb;

	while (same) {
		ca = getc(fa);
		cb = getc(fb);
		if (ca != cb)
			same = false;
		if (ca == EOF || cb == EOF)
			break;
	}
	if (fa)
		fclose(fa);
	if (fb)
		fclose(fb);
	return same;
}

static void test_deterministic(void **state)
{
	struct tree_spec spec = { 2, 3, 4, 1000 };
	char *w1 = make_tmpdir(), *w2 = make_tmpdir();
	char *p1 = ensure_ok(w1, &spec), *p2 = ensure_ok(w2, &spec);
	char **l1, **l2, *a, *b;
	size_t n1 = walk(p1, &l1), n2 = walk(p2, &l2);

	assert_int_equal(n1, n2);
	for (size_t i = 0; i < n1; i++) {
		char name[64], type;
		long long size;

		assert_string_equal(l1[i], l2[i]);
		assert_int_equal(sscanf(l1[i], "%63s %c %lld", name, &type, &size), 3);
		if (type != 'f')
			continue;
		a = xasprintf("%s/%s", p1, name);
		b = xasprintf("%s/%s", p2, name);
		assert_true(same_file(a, b));
		free(a);
		free(b);
	}
	/* contents depend on the path: two files differ */
	a = xasprintf("%s/d00/f000", p1);
	b = xasprintf("%s/d00/f001", p1);
	assert_false(same_file(a, b));
	free(a);
	free(b);

	walk_free(l1, n1);
	walk_free(l2, n2);
	free(p1);
	free(p2);
	rm_tmpdir(w1);
	rm_tmpdir(w2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_spec_parse_good),
		cmocka_unit_test(test_spec_parse_bad),
		cmocka_unit_test(test_entries),
		cmocka_unit_test(test_fingerprint),
		cmocka_unit_test(test_build_count),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_reuse),
		cmocka_unit_test(test_rebuild_partial),
		cmocka_unit_test(test_rebuild_keeps_outside),
		cmocka_unit_test(test_refuse_symlink),
		cmocka_unit_test(test_deterministic),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
