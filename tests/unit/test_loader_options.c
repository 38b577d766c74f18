// SPDX-License-Identifier: GPL-2.0-or-later
/* The cpu loader's options as a profile gives them, through loader_validate:
 * defaults, values that pass, every value refused with its file:line, an
 * unknown type or key, and the documentation --list-loaders prints. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "loader.h"
#include "parse.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))
#define MAXKEYS 6

/* A [load NAME] section at line 20; its keys follow, one a line from 21. */
struct section {
	const char *name;
	const char *type;
	const char *keys[MAXKEYS][2];
};

static int validate(const struct section *sec, struct load_def *def, char **msgs)
{
	struct kv kvs[MAXKEYS];
	size_t len = 0, n = 0;
	FILE *errs = open_memstream(msgs, &len);
	int problems;

	assert_non_null(errs);
	for (; n < MAXKEYS && sec->keys[n][0] != NULL; n++)
		kvs[n] = (struct kv){ .key = (char *)sec->keys[n][0],
				      .value = (char *)sec->keys[n][1],
				      .line = 21 + (int)n };
	*def = (struct load_def){ .name = (char *)(sec->name ? sec->name : "ring"),
				  .line = 20,
				  .type = (char *)sec->type,
				  .kvs = kvs,
				  .nkv = n };
	problems = loader_validate(def, "cpu.conf", errs);
	fclose(errs);
	def->kvs = NULL;
	def->nkv = 0;
	return problems;
}

static void release(struct load_def *def)
{
	if (def->loader == NULL)
		return;
	options_free(def->options, def->config);
	free(def->config);
}

/* A field of the validated config, found through the loader's own table. */
static const void *field(const struct load_def *def, const char *key)
{
	const struct loader_ops *ops = def->loader;
	const struct option_def *opt = options_find(ops->options, key);

	assert_non_null(opt);
	return (const char *)def->config + opt->offset;
}

static long field_long(const struct load_def *def, const char *key)
{
	return *(const long *)field(def, key);
}

static const char *field_enum(const struct load_def *def, const char *key)
{
	const struct option_def *opt = options_find(
		((const struct loader_ops *)def->loader)->options, key);

	return opt->choices[*(const int *)field(def, key)];
}

static void test_table_is_sound(void **state)
{
	/* fatalx() would end the test program: passing means it returned. */
	loader_table_check();
	assert_non_null(loader_find("cpu"));
	assert_null(loader_find("gpu"));
}

static void test_defaults(void **state)
{
	struct section sec = { .type = "cpu" };
	struct load_def def;
	char *msgs;

	assert_int_equal(validate(&sec, &def, &msgs), 0);
	assert_string_equal(msgs, "");
	assert_ptr_equal(def.loader, loader_find("cpu"));
	assert_ptr_equal(def.options, loader_find("cpu")->options);
	/* 0 is auto: the ring's size follows the machine's CPU count. */
	assert_int_equal(field_long(&def, "procs"), 0);
	assert_int_equal(field_long(&def, "tokens"), 0);
	assert_true(*(const bool *)field(&def, "pin"));
	assert_int_equal(field_long(&def, "work"), 10);
	assert_int_equal(((const struct size_spec *)field(&def, "size"))->bytes, 0);
	assert_string_equal(field_enum(&def, "mode"), "process");
	assert_int_equal(field_long(&def, "nice"), 0);
	assert_int_equal(def.stall_ms, 10000);
	release(&def);
	free(msgs);
}

static void test_values_that_pass(void **state)
{
	static const struct {
		struct section sec;
		long procs, tokens;
		uint64_t size;
		const char *mode;
		long nice;
		int64_t stall_ms;
	} cases[] = {
		{ { .type = "cpu", .keys = { { "procs", "2" } } }, 2, 0, 0, "process", 0, 10000 },
		{ { .type = "cpu", .keys = { { "procs", "auto" }, { "tokens", "auto" } } },
		  0,
		  0,
		  0,
		  "process",
		  0,
		  10000 },
		{ { .type = "cpu", .keys = { { "procs", "4096" }, { "tokens", "4095" } } },
		  4096,
		  4095,
		  0,
		  "process",
		  0,
		  10000 },
		{ { .type = "cpu",
		    .keys = { { "procs", "64" },
			      { "tokens", "3" },
			      { "size", "64K" },
			      { "mode", "thread" },
			      { "nice", "19" },
			      { "stall", "2s" } } },
		  64,
		  3,
		  65536,
		  "thread",
		  19,
		  2000 },
		{ { .type = "cpu", .keys = { { "size", "64M" }, { "stall", "1h" } } },
		  0,
		  0,
		  64ULL << 20,
		  "process",
		  0,
		  3600000 },
		{ { .type = "cpu", .keys = { { "nice", "-20" } } },
		  0,
		  0,
		  0,
		  "process",
		  -20,
		  10000 },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct load_def def;
		char *msgs;

		/* A negative nice is refused without the right to use it. */
		if (cases[i].nice < 0 && geteuid() != 0)
			continue;
		assert_int_equal(validate(&cases[i].sec, &def, &msgs), 0);
		assert_string_equal(msgs, "");
		assert_int_equal(field_long(&def, "procs"), cases[i].procs);
		assert_int_equal(field_long(&def, "tokens"), cases[i].tokens);
		assert_int_equal(((const struct size_spec *)field(&def, "size"))->bytes,
				 cases[i].size);
		assert_string_equal(field_enum(&def, "mode"), cases[i].mode);
		assert_int_equal(field_long(&def, "nice"), cases[i].nice);
		assert_int_equal(def.stall_ms, cases[i].stall_ms);
		release(&def);
		free(msgs);
	}
}

/* Every refusal names the file and the line of the key at fault. */
static void test_values_refused(void **state)
{
	static const struct {
		struct section sec;
		const char *where; /* "cpu.conf:LINE:" */
		const char *says;  /* a part of the message */
	} cases[] = {
		{ { .type = "cpu", .keys = { { "procs", "1" } } }, "cpu.conf:21:", "out of range" },
		{ { .type = "cpu", .keys = { { "procs", "4097" } } }, "cpu.conf:21:", "2..4096" },
		{ { .type = "cpu", .keys = { { "procs", "many" } } },
		  "cpu.conf:21:",
		  "expected a number or auto" },
		{ { .type = "cpu", .keys = { { "tokens", "4095" } } },
		  "cpu.conf:21:",
		  "needs more members" },
		{ { .type = "cpu", .keys = { { "work", "-1" } } }, "cpu.conf:21:", "out of range" },
		{ { .type = "cpu", .keys = { { "tokens", "0" } } },
		  "cpu.conf:21:",
		  "out of range" },
		{ { .type = "cpu", .keys = { { "procs", "4" }, { "tokens", "4" } } },
		  "cpu.conf:22:",
		  "tokens = 4 needs more members" },
		{ { .type = "cpu", .keys = { { "size", "65M" } } },
		  "cpu.conf:21:",
		  "out of range" },
		{ { .type = "cpu", .keys = { { "size", "10%" } } },
		  "cpu.conf:21:",
		  "working set in bytes" },
		{ { .type = "cpu", .keys = { { "size", "lots" } } },
		  "cpu.conf:21:",
		  "invalid size" },
		{ { .type = "cpu", .keys = { { "mode", "fiber" } } },
		  "cpu.conf:21:",
		  "expected process or thread" },
		{ { .type = "cpu", .keys = { { "nice", "20" } } }, "cpu.conf:21:", "-20..19" },
		{ { .type = "cpu", .keys = { { "stall", "0" } } }, "cpu.conf:21:", "out of range" },
		{ { .type = "cpu", .keys = { { "stall", "soon" } } },
		  "cpu.conf:21:",
		  "invalid duration" },
		{ { .type = "cpu", .keys = { { "procs", "8" }, { "prosc", "8" } } },
		  "cpu.conf:22:",
		  "unknown key 'prosc' in [load ring]; did you mean 'procs'?" },
		{ { .type = "gpu" }, "cpu.conf:20:", "unknown load type 'gpu'; known: cpu" },
		{ { .name = "a/b", .type = "cpu" }, "cpu.conf:20:", "load name 'a/b'" },
	};

	for (size_t i = 0; i < NCASES(cases); i++) {
		struct load_def def;
		char *msgs;

		assert_int_equal(validate(&cases[i].sec, &def, &msgs), 1);
		if (strncmp(msgs, cases[i].where, strlen(cases[i].where)) != 0 ||
		    strstr(msgs, cases[i].says) == NULL)
			fail_msg("case %zu: expected \"%s ...%s...\", got \"%s\"", i,
				 cases[i].where, cases[i].says, msgs);
		/* A refused section keeps no config behind. */
		assert_null(def.loader);
		assert_null(def.config);
		free(msgs);
	}
}

static void test_negative_nice_needs_root(void **state)
{
	struct section sec = { .type = "cpu", .keys = { { "nice", "-5" } } };
	struct load_def def;
	char *msgs;
	int problems = validate(&sec, &def, &msgs);

	if (geteuid() == 0) {
		assert_int_equal(problems, 0);
		release(&def);
	} else {
		assert_int_equal(problems, 1);
		assert_non_null(strstr(msgs, "cpu.conf:21: nice = -5 needs root"));
	}
	free(msgs);
}

static void test_list_loaders(void **state)
{
	static const char *const expected[] = {
		"type = (required)",
		"stall = 10s",
		"\ncpu: ",
		"procs = auto",
		"2..4096",
		"tokens = auto",
		"pin = yes",
		"work = 10",
		"size = 0",
		"mode = process",
		"one of: process, thread",
		"nice = 0",
		"counts: trips, passes",
	};
	char *text = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&text, &len);

	assert_non_null(fp);
	loader_print_all(fp);
	fclose(fp);
	for (size_t i = 0; i < NCASES(expected); i++) {
		if (strstr(text, expected[i]) == NULL)
			fail_msg("--list-loaders lacks \"%s\":\n%s", expected[i], text);
	}
	free(text);
}

static void test_describe(void **state)
{
	struct section sec = { .type = "cpu",
			       .keys = { { "procs", "16" },
					 { "tokens", "2" },
					 { "size", "64K" },
					 { "mode", "thread" },
					 { "pin", "no" } } };
	const struct loader_ops *ops = loader_find("cpu");
	struct load_def def;
	char *msgs, what[256];

	assert_int_equal(validate(&sec, &def, &msgs), 0);
	ops->describe(def.config, what, sizeof what);
	assert_string_equal(what, "16 threads in a ring, 2 tokens, 64 KiB working set each, "
				  "10 us of work per pass");
	release(&def);
	free(msgs);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_table_is_sound),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values_that_pass),
		cmocka_unit_test(test_values_refused),
		cmocka_unit_test(test_negative_nice_needs_root),
		cmocka_unit_test(test_list_loaders),
		cmocka_unit_test(test_describe),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
