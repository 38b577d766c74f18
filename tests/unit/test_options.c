// SPDX-License-Identifier: GPL-2.0-or-later
/* Options tables: defaults, each type, and the exact text of every problem
 * a profile section can have. */
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "options.h"
#include "parse.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

struct sample {
	long procs;
	bool pin;
	int64_t every_ms;
	struct size_spec size;
	char *path;
	char *label;
	int mode;
	int parity; /* OPT_CUSTOM: 0 even, 1 odd */
	long spare; /* no default: keeps what the caller put there */
	long count; /* "at least" range */
};

static const char *const modes[] = { "process", "thread", "fiber", NULL };

/* A custom parser: accepts "even" or "odd". */
static int parity_parse(const char *value, void *dst, const char **err)
{
	if (strcmp(value, "even") == 0 || strcmp(value, "odd") == 0) {
		*(int *)dst = value[0] == 'o';
		return 0;
	}
	*err = "expected even or odd";
	return -1;
}

/* clang-format off */
static const struct option_def sample_options[] = {
	{ "procs", OPT_INT, offsetof(struct sample, procs), "8", 1, 1024, NULL, NULL,
	  "processes in the ring" },
	{ "pin", OPT_BOOL, offsetof(struct sample, pin), "no", 0, 0, NULL, NULL, "pin to a CPU" },
	{ "every", OPT_DURATION, offsetof(struct sample, every_ms), "1s", 10, 3600000, NULL, NULL,
	  "one job per slot" },
	{ "size", OPT_SIZE, offsetof(struct sample, size), "64M", 4096, 1LL << 40, NULL, NULL,
	  "working set" },
	{ "path", OPT_STRING, offsetof(struct sample, path), "/tmp/x", 0, 0, NULL, NULL,
	  "where to write" },
	{ "label", OPT_STRING, offsetof(struct sample, label), NULL, 0, 0, NULL, NULL,
	  "a name for reports" },
	{ "mode", OPT_ENUM, offsetof(struct sample, mode), "process", 0, 0, modes, NULL,
	  "how members run" },
	{ "parity", OPT_CUSTOM, offsetof(struct sample, parity), "even", 0, 0, NULL,
	  parity_parse, "which numbers" },
	{ "spare", OPT_INT, offsetof(struct sample, spare), NULL, 0, 0, NULL, NULL,
	  "unbounded, no default" },
	{ "count", OPT_INT, offsetof(struct sample, count), "1", 1, LLONG_MAX, NULL, NULL,
	  "how many" },
	{ NULL },
};
/* clang-format on */

/* Applies kvs to a fresh sample; returns the problems and what was printed. */
static int apply(const struct kv *kvs, size_t n, struct sample *s, char **out)
{
	size_t len = 0;
	FILE *fp;
	int problems;

	*out = NULL;
	fp = open_memstream(out, &len);
	assert_non_null(fp);
	memset(s, 0, sizeof *s);
	s->spare = -5;
	problems = options_apply(sample_options, s, kvs, n, "x.conf", "load cpu", fp);
	fclose(fp);
	return problems;
}

static void test_defaults(void **state)
{
	struct sample s;
	char *out;

	assert_int_equal(apply(NULL, 0, &s, &out), 0);
	assert_string_equal(out, "");
	assert_int_equal(s.procs, 8);
	assert_false(s.pin);
	assert_int_equal(s.every_ms, 1000);
	assert_int_equal(s.size.kind, SIZE_BYTES);
	assert_int_equal(s.size.bytes, 64 << 20);
	assert_string_equal(s.path, "/tmp/x");
	assert_null(s.label);
	assert_int_equal(s.mode, 0);
	assert_int_equal(s.parity, 0);
	assert_int_equal(s.spare, -5);
	assert_int_equal(s.count, 1);
	options_free(sample_options, &s);
	assert_null(s.path);
	free(out);
}

static void test_values(void **state)
{
	static const struct kv kvs[] = {
		{ "procs", "1024", 2 },       { "pin", "yes", 3 },       { "every", "1m30s", 4 },
		{ "size", "ram-1G", 5 },      { "path", "/var/a b", 6 }, { "label", "first", 7 },
		{ "mode", "fiber", 8 },       { "parity", "odd", 9 },    { "spare", "-77", 10 },
		{ "count", "123456789", 11 },
	};
	struct sample s;
	char *out;

	assert_int_equal(apply(kvs, NCASES(kvs), &s, &out), 0);
	assert_string_equal(out, "");
	assert_int_equal(s.procs, 1024);
	assert_true(s.pin);
	assert_int_equal(s.every_ms, 90000);
	assert_int_equal(s.size.kind, SIZE_FORMULA);
	assert_int_equal(s.size.ram_coef, 1);
	assert_int_equal(s.size.offset, -(1LL << 30));
	assert_string_equal(s.path, "/var/a b");
	assert_string_equal(s.label, "first");
	assert_int_equal(s.mode, 2);
	assert_int_equal(s.parity, 1);
	assert_int_equal(s.spare, -77);
	assert_int_equal(s.count, 123456789);
	options_free(sample_options, &s);
	free(out);
}

/* One bad line at a time, with the exact message it gets. */
static void test_problems(void **state)
{
	static const struct {
		struct kv kv;
		const char *want;
	} cases[] = {
		{ { "proc", "4", 3 },
		  "x.conf:3: unknown key 'proc' in [load cpu]; did you mean 'procs'?\n" },
		{ { "evrey", "1s", 4 },
		  "x.conf:4: unknown key 'evrey' in [load cpu]; did you mean 'every'?\n" },
		{ { "sise", "1G", 4 },
		  "x.conf:4: unknown key 'sise' in [load cpu]; did you mean 'size'?\n" },
		{ { "Mode", "thread", 4 },
		  "x.conf:4: unknown key 'Mode' in [load cpu]; did you mean 'mode'?\n" },
		{ { "colour", "red", 5 }, "x.conf:5: unknown key 'colour' in [load cpu]\n" },
		{ { "p", "1", 5 }, "x.conf:5: unknown key 'p' in [load cpu]\n" },
		{ { "procs", "", 6 }, "x.conf:6: procs has no value\n" },
		{ { "procs", "eight", 6 },
		  "x.conf:6: procs: invalid integer 'eight': not a whole number\n" },
		{ { "procs", "0", 6 }, "x.conf:6: procs = 0 is out of range (1..1024)\n" },
		{ { "procs", "1025", 6 }, "x.conf:6: procs = 1025 is out of range (1..1024)\n" },
		{ { "procs", "99999999999999999999", 6 },
		  "x.conf:6: procs: invalid integer '99999999999999999999': too large\n" },
		{ { "pin", "maybe", 7 },
		  "x.conf:7: pin: invalid boolean 'maybe': expected yes/no, true/false, on/off or 1/0\n" },
		{ { "every", "5x", 8 },
		  "x.conf:8: every: invalid duration '5x': unknown unit (use ms, s, m or h)\n" },
		{ { "every", "5ms", 8 }, "x.conf:8: every = 5ms is out of range (10ms..1h)\n" },
		{ { "every", "61m", 8 }, "x.conf:8: every = 61m is out of range (10ms..1h)\n" },
		{ { "size", "1K", 9 }, "x.conf:9: size = 1K is out of range (4K..1T)\n" },
		{ { "size", "2T", 9 }, "x.conf:9: size = 2T is out of range (4K..1T)\n" },
		{ { "size", "64Q", 9 },
		  "x.conf:9: size: invalid size '64Q': unknown suffix (use K, M, G or T, or a formula like ram-1G)\n" },
		{ { "mode", "Thread", 10 },
		  "x.conf:10: mode: invalid value 'Thread': expected process, thread or fiber\n" },
		{ { "parity", "prime", 11 },
		  "x.conf:11: parity: invalid value 'prime': expected even or odd\n" },
		{ { "count", "0", 12 }, "x.conf:12: count = 0 is out of range (at least 1)\n" },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		struct sample s;
		char *out;
		int n = apply(&cases[i].kv, 1, &s, &out);

		if (n != 1 || strcmp(out, cases[i].want) != 0)
			fail_msg("%s = %s: %d problem(s):\n%s\nwant:\n%s", cases[i].kv.key,
				 cases[i].kv.value, n, out, cases[i].want);
		options_free(sample_options, &s);
		free(out);
	}
}

/* Sizes that depend on the machine are checked when the load starts, not
 * against the table's range. */
static void test_size_range_only_for_bytes(void **state)
{
	static const struct kv kvs[] = { { "size", "1000%", 2 } };
	struct sample s;
	char *out;

	assert_int_equal(apply(kvs, 1, &s, &out), 0);
	assert_int_equal(s.size.kind, SIZE_PERCENT);
	options_free(sample_options, &s);
	free(out);
}

/* Every problem of a section is reported, in order, and a key given twice
 * keeps its first value. */
static void test_many_problems_and_duplicates(void **state)
{
	static const struct kv kvs[] = {
		{ "procs", "4", 2 }, { "procs", "6", 3 }, { "path", "/a", 4 }, { "path", "/b", 5 },
		{ "every", "0", 6 }, { "bogus", "1", 7 }, { "label", "x", 8 },
	};
	static const char want[] =
		"x.conf:3: duplicate key 'procs' in [load cpu] (first set at line 2)\n"
		"x.conf:5: duplicate key 'path' in [load cpu] (first set at line 4)\n"
		"x.conf:6: every = 0 is out of range (10ms..1h)\n"
		"x.conf:7: unknown key 'bogus' in [load cpu]\n";
	struct sample s;
	char *out;

	assert_int_equal(apply(kvs, NCASES(kvs), &s, &out), 4);
	assert_string_equal(out, want);
	assert_int_equal(s.procs, 4);
	assert_string_equal(s.path, "/a");
	assert_string_equal(s.label, "x");
	options_free(sample_options, &s);
	free(out);
}

static void test_describe(void **state)
{
	static const struct {
		const char *key;
		const char *want;
	} cases[] = {
		{ "procs", "integer 1..1024" },
		{ "pin", "yes/no" },
		{ "every", "duration 10ms..1h" },
		{ "size", "size 4K..1T" },
		{ "path", "text" },
		{ "mode", "one of: process, thread, fiber" },
		{ "parity", "spec" },
		{ "spare", "integer" },
		{ "count", "integer at least 1" },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		const struct option_def *opt = options_find(sample_options, cases[i].key);
		char buf[128];

		assert_non_null(opt);
		options_describe_type(opt, buf, sizeof buf);
		assert_string_equal(buf, cases[i].want);
	}
	assert_null(options_find(sample_options, "nosuch"));
}

static void test_print(void **state)
{
	static const struct option_def small[] = {
		{ "procs", OPT_INT, 0, "8", 1, 1024, NULL, NULL, "processes in the ring" },
		{ "mode", OPT_ENUM, 0, "process", 0, 0, modes, NULL, "how members run" },
		{ "label", OPT_STRING, 0, NULL, 0, 0, NULL, NULL, "a name" },
		{ NULL },
	};
	static const char want[] =
		"  procs = 8       processes in the ring (integer 1..1024)\n"
		"  mode = process  how members run (one of: process, thread, fiber)\n"
		"  label           a name (text)\n";
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	assert_non_null(fp);
	options_print(small, fp);
	fclose(fp);
	assert_string_equal(out, want);
	free(out);
}

/* A table whose own default does not parse is a bug: the program stops
 * with a message instead of running with garbage. */
static void test_bad_default_is_fatal(void **state)
{
	static const struct option_def bad[][2] = {
		{ { "procs", OPT_INT, 0, "eight", 0, 0, NULL, NULL, "" }, { NULL } },
		{ { "procs", OPT_INT, 0, "0", 1, 10, NULL, NULL, "" }, { NULL } },
		{ { "every", OPT_DURATION, 0, "1x", 0, 0, NULL, NULL, "" }, { NULL } },
		{ { "mode", OPT_ENUM, 0, "fast", 0, 0, modes, NULL, "" }, { NULL } },
		{ { "mode", OPT_ENUM, 0, "process", 0, 0, NULL, NULL, "" }, { NULL } },
	};
	static const char *const want[] = {
		"loadd: error: option table: procs: bad default 'eight': not a whole number\n",
		"loadd: error: option table: procs: default '0' is out of its own range\n",
		"loadd: error: option table: every: bad default '1x': unknown unit (use ms, s, m or h)\n",
		"loadd: error: option table: mode: bad default 'fast': not one of the choices\n",
		"loadd: error: option table: mode: enum without its choices\n",
	};
	size_t i;

	for (i = 0; i < NCASES(bad); i++) {
		char buf[512];
		int fds[2], status;
		ssize_t n;
		size_t len = 0;
		pid_t pid;

		assert_int_equal(pipe(fds), 0);
		pid = fork();
		assert_true(pid >= 0);
		if (pid == 0) {
			union {
				long l;
				int64_t ms;
				int e;
			} cfg;

			dup2(fds[1], STDERR_FILENO);
			options_apply(bad[i], &cfg, NULL, 0, "x.conf", "load x", stdout);
			_exit(0);
		}
		close(fds[1]);
		while ((n = read(fds[0], buf + len, sizeof buf - 1 - len)) > 0)
			len += (size_t)n;
		buf[len] = '\0';
		close(fds[0]);
		assert_int_equal(waitpid(pid, &status, 0), pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 1);
		assert_string_equal(buf, want[i]);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_problems),
		cmocka_unit_test(test_size_range_only_for_bytes),
		cmocka_unit_test(test_many_problems_and_duplicates),
		cmocka_unit_test(test_describe),
		cmocka_unit_test(test_print),
		cmocka_unit_test(test_bad_default_is_fatal),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
