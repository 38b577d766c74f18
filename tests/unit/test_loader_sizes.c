// SPDX-License-Identifier: GPL-2.0-or-later
/* The memory, read and write loaders' options as a profile gives them: each
 * [load] section through loader_validate (values, ranges, the loaders' own
 * checks, file:line in every message), sizes resolved against a given
 * machine (the paper's ram+swap-64M among them), and the arithmetic that
 * fits a file on a filesystem and shrinks it after ENOSPC. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "loader.h"
#include "core_file.h"
#include "parse.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)
#define TiB (1024 * GiB)
#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

/* A [load NAME] section starting at line 10, one key a line after it. */
struct section {
	const char *type;
	const char *keys[4][2];
};

/* Runs loader_validate on the section. Returns the number of problems; the
 * messages are in *msgs (xmalloc'd by open_memstream). */
static int validate(const struct section *sec, struct load_def *def, char **msgs)
{
	struct kv kvs[4];
	size_t len = 0, n = 0;
	FILE *errs = open_memstream(msgs, &len);
	int problems;

	assert_non_null(errs);
	for (; n < 4 && sec->keys[n][0] != NULL; n++)
		kvs[n] = (struct kv){ .key = (char *)sec->keys[n][0],
				      .value = (char *)sec->keys[n][1],
				      .line = 11 + (int)n };
	*def = (struct load_def){
		.name = "x", .line = 10, .type = (char *)sec->type, .kvs = kvs, .nkv = n
	};
	problems = loader_validate(def, "t.conf", errs);
	fclose(errs);
	def->kvs = NULL;
	def->nkv = 0;
	return problems;
}

static void release(struct load_def *def)
{
	const struct loader_ops *ops = def->loader;

	if (ops == NULL)
		return;
	options_free(ops->options, def->config);
	free(def->config);
}

/* The value of a size key of a validated load, found through its table. */
static struct size_spec config_size(const struct load_def *def, const char *key)
{
	const struct loader_ops *ops = def->loader;
	const struct option_def *opt = options_find(ops->options, key);

	assert_non_null(opt);
	return *(const struct size_spec *)((const char *)def->config + opt->offset);
}

static void test_loaders_listed(void **state)
{
	static const char *const names[] = { "memory", "read", "write" };

	for (size_t i = 0; i < NCASES(names); i++) {
		const struct loader_ops *ops = loader_find(names[i]);

		if (ops == NULL)
			fail_msg("loader %s is not in loader_table", names[i]);
		assert_true(ops->reports_bytes);
		assert_non_null(options_find(ops->options, "size"));
	}
}

/* Accepted sections, each size resolved on a machine of 8 GiB RAM and 2 GiB swap. */
static void test_valid_sizes(void **state)
{
	static const struct {
		struct section sec;
		const char *key;
		uint64_t bytes;
	} cases[] = {
		{ { "memory", { { NULL } } }, "size", 4 * GiB }, /* default 50% */
		{ { "memory", { { "size", "2G" } } }, "size", 2 * GiB },
		{ { "memory", { { "size", "64M" } } }, "size", 64 * MiB },
		{ { "memory", { { "size", "2M" } } }, "size", 2 * MiB },
		{ { "memory", { { "size", "60%" } } }, "size", 8 * GiB * 6 / 10 },
		{ { "memory", { { "size", "ram+swap-64M" } } }, "size", 10 * GiB - 64 * MiB },
		{ { "memory", { { "size", "ram - 1G" } } }, "size", 7 * GiB },
		{ { "memory", { { "size", "ram" } } }, "size", 8 * GiB },
		{ { "memory", { { "size", "1.5G" } } }, "size", 3 * GiB / 2 },
		{ { "write", { { NULL } } }, "size", 8 * GiB }, /* default ram */
		{ { "write", { { NULL } } }, "block", 1 * MiB },
		{ { "write", { { NULL } } }, "reserve", 1 * GiB },
		{ { "write", { { "size", "16M" }, { "block", "64K" } } }, "block", 64 * KiB },
		{ { "write", { { "size", "swap+1G" } } }, "size", 3 * GiB },
		{ { "write", { { "reserve", "0" } } }, "reserve", 0 },
		{ { "write", { { "fsync", "yes" }, { "block", "64M" } } }, "block", 64 * MiB },
		{ { "read", { { NULL } } }, "size", 8 * GiB }, /* default ram */
		{ { "read", { { "size", "512M" }, { "cache", "keep" } } }, "size", 512 * MiB },
		{ { "read", { { "size", "25%" }, { "cache", "drop" } } }, "size", 2 * GiB },
		{ { "read", { { "block", "4K" } } }, "block", 4 * KiB },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct load_def def;
		struct size_spec spec;
		char *msgs = NULL;
		uint64_t got;

		if (validate(&cases[i].sec, &def, &msgs) != 0)
			fail_msg("case %zu (%s): refused: %s", i, cases[i].sec.type, msgs);
		spec = config_size(&def, cases[i].key);
		got = size_resolve(&spec, 8 * GiB, 2 * GiB);
		if (got != cases[i].bytes)
			fail_msg("case %zu (%s %s): %llu bytes, want %llu", i, cases[i].sec.type,
				 cases[i].key, (unsigned long long)got,
				 (unsigned long long)cases[i].bytes);
		free(msgs);
		release(&def);
	}
}

/* Refused sections: one problem each, told at the key's line with words
 * that say what is wrong. */
static void test_invalid_sizes(void **state)
{
	static const struct {
		struct section sec;
		const char *where;
		const char *words;
	} cases[] = {
		{ { "memory", { { "size", "1M" } } }, "t.conf:11:", "out of range" },
		{ { "memory", { { "size", "0" } } }, "t.conf:11:", "out of range" },
		{ { "memory", { { "size", "banana" } } }, "t.conf:11:", "invalid size 'banana'" },
		{ { "memory", { { "size", "50%%" } } }, "t.conf:11:", "invalid size" },
		{ { "memory", { { "size", "-1G" } } }, "t.conf:11:", "invalid size" },
		{ { "memory", { { "size", "ram*2" } } }, "t.conf:11:", "invalid size" },
		{ { "memory", { { "size", "ram+50%" } } }, "t.conf:11:", "percentage" },
		/* No machine has 100 TiB of RAM and swap: resolves to nothing. */
		{ { "memory", { { "size", "ram+swap-100T" } } }, "t.conf:11:", "at least 2 MiB" },
		{ { "memory", { { "sise", "2G" } } }, "t.conf:11:", "did you mean 'size'" },
		{ { "memory", { { "size", "2G" }, { "size", "3G" } } }, "t.conf:12:", "duplicate" },
		/* pressure mode sets the size itself */
		{ { "memory", { { "pressure", "10%" }, { "size", "2G" } } },
		  "t.conf:12:",
		  "not used with pressure" },
		{ { "memory", { { "pressure", "120%" } } }, "t.conf:11:", "0%..100%" },
		{ { "memory", { { "pressure", "lots" } } }, "t.conf:11:", "such as 10%" },
		{ { "memory", { { "pressure", "10%" }, { "step", "1M" } } },
		  "t.conf:12:",
		  "out of range" },
		{ { "write", { { "block", "1K" } } }, "t.conf:11:", "out of range" },
		{ { "write", { { "block", "128M" } } }, "t.conf:11:", "out of range" },
		{ { "write", { { "size", "1K" } } }, "t.conf:11:", "out of range" },
		{ { "write", { { "size", "16M" }, { "block", "10%" } } },
		  "t.conf:12:",
		  "plain size" },
		{ { "write", { { "reserve", "ram-1G" } } }, "t.conf:11:", "plain size" },
		{ { "write", { { "fsync", "maybe" } } }, "t.conf:11:", "invalid boolean" },
		{ { "read", { { "cache", "cold" } } }, "t.conf:11:", "expected keep or drop" },
		{ { "read", { { "size", "3X" } } }, "t.conf:11:", "invalid size" },
		{ { "read", { { "reserve", "5%" } } }, "t.conf:11:", "plain size" },
		{ { "read", { { "fsync", "yes" } } }, "t.conf:11:", "unknown key 'fsync'" },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct load_def def;
		char *msgs = NULL;
		int problems = validate(&cases[i].sec, &def, &msgs);

		if (problems != 1)
			fail_msg("case %zu (%s %s = %s): %d problems, want 1: %s", i,
				 cases[i].sec.type, cases[i].sec.keys[0][0],
				 cases[i].sec.keys[0][1], problems, msgs);
		if (strncmp(msgs, cases[i].where, strlen(cases[i].where)) != 0 ||
		    strstr(msgs, cases[i].words) == NULL)
			fail_msg("case %zu: message '%s' lacks '%s' or '%s'", i, msgs,
				 cases[i].where, cases[i].words);
		assert_null(def.config);
		free(msgs);
	}
}

/* Sizes written back as a profile spells them, so messages quote them right. */
static void test_size_round_trip(void **state)
{
	static const char *const sizes[] = { "ram+swap-64M", "ram-1G",  "ram",  "60%",
					     "2G",           "swap+1G", "1536K" };

	for (size_t i = 0; i < NCASES(sizes); i++) {
		struct size_spec spec;
		const char *err = NULL;
		char back[64];

		if (parse_size(sizes[i], &spec, &err) < 0)
			fail_msg("'%s': %s", sizes[i], err);
		size_format(&spec, back, sizeof back);
		if (strcmp(back, sizes[i]) != 0)
			fail_msg("'%s' written back as '%s'", sizes[i], back);
	}
}

/* The formula on machines with and without swap, and where it goes below 0. */
static void test_formula_machines(void **state)
{
	static const struct {
		const char *size;
		uint64_t ram, swap, bytes;
	} cases[] = {
		{ "ram+swap-64M", 23 * GiB, 0, 23 * GiB - 64 * MiB },
		{ "ram+swap-64M", 512 * MiB, 1 * GiB, 1536 * MiB - 64 * MiB },
		{ "ram+swap-64M", 32 * MiB, 0, 0 },
		{ "ram-1G", 512 * MiB, 4 * GiB, 0 },
		{ "50%", 23 * GiB, 0, 23 * GiB / 2 },
		{ "100%", 3 * GiB, 0, 3 * GiB },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct size_spec spec;
		const char *err = NULL;
		uint64_t got;

		assert_int_equal(parse_size(cases[i].size, &spec, &err), 0);
		got = size_resolve(&spec, cases[i].ram, cases[i].swap);
		if (got != cases[i].bytes)
			fail_msg("case %zu '%s': %llu, want %llu", i, cases[i].size,
				 (unsigned long long)got, (unsigned long long)cases[i].bytes);
	}
}

/* What fits on a filesystem with reserve left free, in whole blocks. */
static void test_file_fit(void **state)
{
	static const struct {
		uint64_t want, free_bytes, own, reserve, block, fit;
	} cases[] = {
		{ 1 * GiB, 100 * GiB, 0, 1 * GiB, MiB, 1 * GiB },     /* fits */
		{ 8 * GiB, 5 * GiB, 0, 1 * GiB, MiB, 4 * GiB },       /* clamped */
		{ 8 * GiB, 5 * GiB, 2 * GiB, 1 * GiB, MiB, 6 * GiB }, /* its own file counts */
		{ 8 * GiB, 1 * GiB, 0, 1 * GiB, MiB, 0 },             /* nothing left */
		{ 8 * GiB, 512 * MiB, 0, 1 * GiB, MiB, 0 },           /* below the reserve */
		{ 16 * MiB, 16 * MiB, 0, 0, MiB, 16 * MiB },          /* exactly */
		{ 16 * MiB, 10 * MiB + 5, 0, 0, 4 * MiB, 8 * MiB },   /* whole blocks */
		{ 16 * MiB, UINT64_MAX, 1 * GiB, 0, MiB, 16 * MiB },  /* no overflow */
		{ 3 * MiB, 100 * GiB, 0, 0, 2 * MiB, 2 * MiB },       /* want in whole blocks */
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		uint64_t got = file_fit(cases[i].want, cases[i].free_bytes, cases[i].own,
					cases[i].reserve, cases[i].block);

		if (got != cases[i].fit)
			fail_msg("case %zu: %llu, want %llu", i, (unsigned long long)got,
				 (unsigned long long)cases[i].fit);
	}
}

/* After ENOSPC: half, whole blocks, never below one block. */
static void test_file_shrink(void **state)
{
	static const struct {
		uint64_t size, block, next;
	} cases[] = {
		{ 16 * MiB, MiB, 8 * MiB },    { 3 * MiB, MiB, 1 * MiB },
		{ 1 * MiB, MiB, 1 * MiB },     { 5 * MiB, 2 * MiB, 2 * MiB },
		{ 2 * MiB, 4 * MiB, 4 * MiB }, { 23 * GiB, MiB, 11 * GiB + 512 * MiB },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		uint64_t got = file_shrink(cases[i].size, cases[i].block);

		if (got != cases[i].next)
			fail_msg("case %zu: %llu, want %llu", i, (unsigned long long)got,
				 (unsigned long long)cases[i].next);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_loaders_listed),   cmocka_unit_test(test_valid_sizes),
		cmocka_unit_test(test_invalid_sizes),    cmocka_unit_test(test_size_round_trip),
		cmocka_unit_test(test_formula_machines), cmocka_unit_test(test_file_fit),
		cmocka_unit_test(test_file_shrink),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
