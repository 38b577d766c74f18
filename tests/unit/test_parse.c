// SPDX-License-Identifier: GPL-2.0-or-later
/* Value parsers: every form of duration and size a profile may use, every
 * error each parser gives, formulas resolved against a given machine, and
 * command lines split with quotes. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "parse.h"

#define KiB 1024ULL
#define MiB (1024 * KiB)
#define GiB (1024 * MiB)
#define TiB (1024 * GiB)
#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

static void test_duration_forms(void **state)
{
	static const struct {
		const char *in;
		int64_t ms;
	} cases[] = {
		{ "500ms", 500 },
		{ "30s", 30000 },
		{ "5m", 300000 },
		{ "1h", 3600000 },
		{ "1m30s", 90000 },
		{ "1h2m3s4ms", 3723004 },
		{ "1h30s", 3630000 },
		{ "90", 90000 },
		{ "0", 0 },
		{ "0s", 0 },
		{ "1.5s", 1500 },
		{ "0.25", 250 },
		{ "1.5ms", 2 },
		{ "2.5h", 9000000 },
		{ "0.0001s", 0 },
		{ "10ms", 10 },
		{ "9223372036854775807ms", INT64_MAX },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		const char *err = NULL;
		int64_t ms = -1;

		if (parse_duration_ms(cases[i].in, &ms, &err) != 0)
			fail_msg("'%s': %s", cases[i].in, err);
		if (ms != cases[i].ms)
			fail_msg("'%s': got %lld ms, want %lld", cases[i].in, (long long)ms,
				 (long long)cases[i].ms);
	}
}

static void test_duration_errors(void **state)
{
	static const struct {
		const char *in;
		const char *err;
	} cases[] = {
		{ "", "empty" },
		{ "s", "expected a number" },
		{ "-5s", "expected a number" },
		{ " 5s", "expected a number" },
		{ ".5s", "expected a number" },
		{ "5.s", "expected digits after the decimal point" },
		{ "5x", "unknown unit (use ms, s, m or h)" },
		{ "5sec", "unknown unit (use ms, s, m or h)" },
		{ "5S", "unknown unit (use ms, s, m or h)" },
		{ "1m30", "a number without a unit (use ms, s, m or h)" },
		{ "30s1m", "units must go from largest to smallest, each once (as in 1m30s)" },
		{ "1m1m", "units must go from largest to smallest, each once (as in 1m30s)" },
		{ "1m 30s", "unexpected character after a unit" },
		{ "5 s", "unexpected character after the number" },
		{ "5s,", "unexpected character after a unit" },
		{ "9223372036854775808ms", "too large" },
		{ "2562047788016h", "too large" },
		{ "99999999999999999999", "too large" },
		{ "2562047788015h13m", "too large" }, /* the sum overflows */
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		const char *err = NULL;
		int64_t ms = -1;

		if (parse_duration_ms(cases[i].in, &ms, &err) != -1)
			fail_msg("'%s' parsed as %lld ms", cases[i].in, (long long)ms);
		if (err == NULL || strcmp(err, cases[i].err) != 0)
			fail_msg("'%s': error '%s', want '%s'", cases[i].in, err, cases[i].err);
	}
}

static void test_size_forms(void **state)
{
	static const struct {
		const char *in;
		struct size_spec want;
	} cases[] = {
		{ "4096", { .kind = SIZE_BYTES, .bytes = 4096 } },
		{ "0", { .kind = SIZE_BYTES, .bytes = 0 } },
		{ "64M", { .kind = SIZE_BYTES, .bytes = 64 * MiB } },
		{ "64MiB", { .kind = SIZE_BYTES, .bytes = 64 * MiB } },
		{ "64MB", { .kind = SIZE_BYTES, .bytes = 64 * MiB } },
		{ "64Mi", { .kind = SIZE_BYTES, .bytes = 64 * MiB } },
		{ "64m", { .kind = SIZE_BYTES, .bytes = 64 * MiB } },
		{ "12K", { .kind = SIZE_BYTES, .bytes = 12 * KiB } },
		{ "12k", { .kind = SIZE_BYTES, .bytes = 12 * KiB } },
		{ "2G", { .kind = SIZE_BYTES, .bytes = 2 * GiB } },
		{ "1.5G", { .kind = SIZE_BYTES, .bytes = 3 * GiB / 2 } },
		{ "0.5K", { .kind = SIZE_BYTES, .bytes = 512 } },
		{ "3T", { .kind = SIZE_BYTES, .bytes = 3 * TiB } },
		{ "17B", { .kind = SIZE_BYTES, .bytes = 17 } },
		{ "60%", { .kind = SIZE_PERCENT, .percent = 60 } },
		{ "12.5%", { .kind = SIZE_PERCENT, .percent = 12.5 } },
		{ "1000%", { .kind = SIZE_PERCENT, .percent = 1000 } },
		{ "ram", { .kind = SIZE_FORMULA, .ram_coef = 1 } },
		{ "swap", { .kind = SIZE_FORMULA, .swap_coef = 1 } },
		{ "ram+swap-64M",
		  { .kind = SIZE_FORMULA,
		    .ram_coef = 1,
		    .swap_coef = 1,
		    .offset = -64 * (int64_t)MiB } },
		{ "ram - 1G", { .kind = SIZE_FORMULA, .ram_coef = 1, .offset = -(int64_t)GiB } },
		{ "ram+ram", { .kind = SIZE_FORMULA, .ram_coef = 2 } },
		{ "64M+ram", { .kind = SIZE_FORMULA, .ram_coef = 1, .offset = 64 * (int64_t)MiB } },
		{ "swap-ram", { .kind = SIZE_FORMULA, .ram_coef = -1, .swap_coef = 1 } },
		{ "-ram+swap", { .kind = SIZE_FORMULA, .ram_coef = -1, .swap_coef = 1 } },
		{ "ram-ram", { .kind = SIZE_FORMULA } },
		/* Sizes alone add up to a plain size. */
		{ "1G+512M", { .kind = SIZE_BYTES, .bytes = GiB + 512 * MiB } },
		{ "1G-512M", { .kind = SIZE_BYTES, .bytes = 512 * MiB } },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		struct size_spec got;
		const char *err = NULL;

		memset(&got, 0xa5, sizeof got);
		if (parse_size(cases[i].in, &got, &err) != 0)
			fail_msg("'%s': %s", cases[i].in, err);
		if (got.kind != cases[i].want.kind)
			fail_msg("'%s': kind %d, want %d", cases[i].in, got.kind,
				 cases[i].want.kind);
		switch (got.kind) {
		case SIZE_BYTES:
			if (got.bytes != cases[i].want.bytes)
				fail_msg("'%s': %llu bytes, want %llu", cases[i].in,
					 (unsigned long long)got.bytes,
					 (unsigned long long)cases[i].want.bytes);
			break;
		case SIZE_PERCENT: assert_true(got.percent == cases[i].want.percent); break;
		case SIZE_FORMULA:
			if (got.ram_coef != cases[i].want.ram_coef ||
			    got.swap_coef != cases[i].want.swap_coef ||
			    got.offset != cases[i].want.offset)
				fail_msg("'%s': ram*%d swap*%d %+lld", cases[i].in, got.ram_coef,
					 got.swap_coef, (long long)got.offset);
			break;
		}
	}
}

static void test_size_errors(void **state)
{
	static const struct {
		const char *in;
		const char *err;
	} cases[] = {
		{ "", "empty" },
		{ "M", "unknown term (use ram, swap, available or a size like 64M)" },
		{ "lots", "unknown term (use ram, swap, available or a size like 64M)" },
		{ "rams", "unknown term (use ram, swap, available or a size like 64M)" },
		{ "64X", "unknown suffix (use K, M, G or T, or a formula like ram-1G)" },
		{ "64Mb", "unknown suffix (use K, M, G or T, or a formula like ram-1G)" },
		{ "64 M", "unknown suffix (use K, M, G or T, or a formula like ram-1G)" },
		{ "1e3", "unknown suffix (use K, M, G or T, or a formula like ram-1G)" },
		{ "1.5", "a size in bytes must be a whole number" },
		{ "1.5B", "a size in bytes must be a whole number" },
		{ "1.G", "expected digits after the decimal point" },
		{ "0%", "a percentage must be above 0 and at most 1000" },
		{ "1000.1%", "a percentage must be above 0 and at most 1000" },
		{ "60%%", "unknown suffix (use K, M, G or T, or a formula like ram-1G)" },
		{ "ram+60%", "a percentage cannot be part of a formula" },
		{ "ram+", "expected a term after + or -" },
		{ "ram-", "expected a term after + or -" },
		{ "ram swap", "expected + or - between terms" },
		{ "ram*2", "expected + or - between terms" },
		{ "2*ram", "unknown suffix (use K, M, G or T, or a formula like ram-1G)" },
		{ "ram+-1G", "unknown term (use ram, swap, available or a size like 64M)" },
		{ "512M-1G", "negative size" },
		{ "9223372036854775808", "too large" },
		{ "8388608T", "too large" },
		{ "99999999999999999999K", "too large" },
		{ "ram+8388607T+8388607T", "too large" },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		struct size_spec got;
		const char *err = NULL;

		if (parse_size(cases[i].in, &got, &err) != -1)
			fail_msg("'%s' parsed", cases[i].in);
		if (err == NULL || strcmp(err, cases[i].err) != 0)
			fail_msg("'%s': error '%s', want '%s'", cases[i].in, err, cases[i].err);
	}
}

/* Each formula against a machine with 8 GiB of RAM and 2 GiB of swap, and
 * one with no swap. */
static void test_size_resolve(void **state)
{
	static const struct {
		const char *in;
		uint64_t ram, swap;
		uint64_t want;
	} cases[] = {
		{ "64M", 8 * GiB, 2 * GiB, 64 * MiB },
		{ "ram", 8 * GiB, 2 * GiB, 8 * GiB },
		{ "swap", 8 * GiB, 2 * GiB, 2 * GiB },
		{ "ram+swap-64M", 8 * GiB, 2 * GiB, 10 * GiB - 64 * MiB },
		{ "ram+swap-64M", 8 * GiB, 0, 8 * GiB - 64 * MiB },
		{ "ram-1G", 8 * GiB, 0, 7 * GiB },
		{ "ram-1G", 512 * MiB, 0, 0 }, /* negative clamps to 0 */
		{ "swap-ram", 8 * GiB, 2 * GiB, 0 },
		{ "ram+ram", 8 * GiB, 0, 16 * GiB },
		{ "60%", 10 * GiB, 0, 6 * GiB },
		{ "50%", 3, 0, 1 }, /* rounds down */
		{ "1000%", 8 * GiB, 0, 80 * GiB },
		{ "12.5%", 8 * GiB, 0, GiB },
		{ "ram", UINT64_MAX, 0, UINT64_MAX },
		{ "ram+swap", UINT64_MAX, UINT64_MAX, UINT64_MAX }, /* saturates */
		{ "1000%", UINT64_MAX / 2, 0, UINT64_MAX },
		/* available is MemAvailable now: 6 GiB in these cases */
		{ "available-512M", 8 * GiB, 0, 6 * GiB - 512 * MiB },
		{ "available+swap-64M", 8 * GiB, 2 * GiB, 8 * GiB - 64 * MiB },
		{ "available-8G", 8 * GiB, 0, 0 },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		struct size_spec spec;
		const char *err;
		uint64_t got;

		assert_int_equal(parse_size(cases[i].in, &spec, &err), 0);
		got = size_resolve_now(&spec, cases[i].ram, cases[i].swap, 6 * GiB);
		if (got != cases[i].want)
			fail_msg("'%s' with ram %llu swap %llu: %llu, want %llu", cases[i].in,
				 (unsigned long long)cases[i].ram,
				 (unsigned long long)cases[i].swap, (unsigned long long)got,
				 (unsigned long long)cases[i].want);
	}
}

/* size_format writes what parse_size reads back to the same spec. */
static void test_size_format(void **state)
{
	static const struct {
		const char *in;
		const char *want;
	} cases[] = {
		{ "64M", "64M" },
		{ "64MiB", "64M" },
		{ "2048M", "2G" },
		{ "1.5G", "1536M" },
		{ "4096", "4K" },
		{ "17", "17" },
		{ "0", "0" },
		{ "3T", "3T" },
		{ "60%", "60%" },
		{ "12.5%", "12.5%" },
		{ "33.3333333%", "33.3333333%" },
		{ "ram", "ram" },
		{ "ram+swap-64M", "ram+swap-64M" },
		{ "64M + ram", "ram+64M" },
		{ "swap-ram", "swap-ram" },
		{ "-ram-1K", "-ram-1K" },
		{ "ram+ram-1G", "ram+ram-1G" },
		{ "ram-ram", "0" },
		{ "ram-1000", "ram-1000" },
		{ "available-512M", "available-512M" },
		{ "available+swap-64M", "swap+available-64M" },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		struct size_spec spec, back;
		const char *err;
		char buf[64];

		assert_int_equal(parse_size(cases[i].in, &spec, &err), 0);
		size_format(&spec, buf, sizeof buf);
		if (strcmp(buf, cases[i].want) != 0)
			fail_msg("'%s' written as '%s', want '%s'", cases[i].in, buf,
				 cases[i].want);
		if (spec.kind == SIZE_FORMULA && spec.ram_coef == 0 && spec.swap_coef == 0)
			continue; /* "0" reads back as plain bytes, which resolve the same */
		assert_int_equal(parse_size(buf, &back, &err), 0);
		assert_int_equal(back.kind, spec.kind);
		assert_true(size_resolve(&back, 8 * GiB, GiB) == size_resolve(&spec, 8 * GiB, GiB));
	}
}

static void test_format_bytes(void **state)
{
	static const struct {
		uint64_t in;
		const char *want;
	} cases[] = {
		{ 0, "0 B" },
		{ 17, "17 B" },
		{ 1023, "1023 B" },
		{ 1024, "1 KiB" },
		{ 1536, "1.5 KiB" },
		{ 12 * KiB + 300, "12.3 KiB" },
		{ 47 * GiB / 2, "23.5 GiB" },
		{ 150 * MiB + 300 * KiB, "150 MiB" },
		{ 640 * MiB, "640 MiB" },
		{ 3 * GiB / 2, "1.5 GiB" },
		{ 2 * GiB, "2 GiB" },
		{ 10 * GiB - 1, "10 GiB" },
		{ 5 * TiB, "5 TiB" },
		{ 1024 * TiB, "1 PiB" },
		{ UINT64_MAX, "16 EiB" },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		char buf[32];

		format_bytes(cases[i].in, buf, sizeof buf);
		if (strcmp(buf, cases[i].want) != 0)
			fail_msg("%llu: '%s', want '%s'", (unsigned long long)cases[i].in, buf,
				 cases[i].want);
	}
}

static void test_numbers(void **state)
{
	static const struct {
		const char *in;
		int ok;
		long l;
		const char *err;
	} longs[] = {
		{ "0", 1, 0, NULL },
		{ "42", 1, 42, NULL },
		{ "-7", 1, -7, NULL },
		{ "+7", 1, 7, NULL },
		{ "9223372036854775807", 1, 9223372036854775807L, NULL },
		{ "", 0, 0, "empty" },
		{ "4x", 0, 0, "not a whole number" },
		{ "1.5", 0, 0, "not a whole number" },
		{ " 4", 0, 0, "not a whole number" },
		{ "0x10", 0, 0, "not a whole number" },
		{ "9223372036854775808", 0, 0, "too large" },
	};
	static const struct {
		const char *in;
		int ok;
		double d;
		const char *err;
	} doubles[] = {
		{ "0.5", 1, 0.5, NULL },         { "-2", 1, -2, NULL },
		{ "1e3", 1, 1000, NULL },        { "", 0, 0, "empty" },
		{ "abc", 0, 0, "not a number" }, { "1.5x", 0, 0, "not a number" },
		{ "nan", 0, 0, "not a number" }, { "inf", 0, 0, "not a finite number" },
		{ "1e999", 0, 0, "too large" },
	};
	static const struct {
		const char *in;
		int ok;
		bool b;
	} bools[] = {
		{ "yes", 1, true }, { "no", 1, false },  { "true", 1, true }, { "false", 1, false },
		{ "on", 1, true },  { "off", 1, false }, { "1", 1, true },    { "0", 1, false },
		{ "YES", 1, true }, { "Off", 1, false }, { "y", 0, false },   { "2", 0, false },
	};
	size_t i;

	for (i = 0; i < NCASES(longs); i++) {
		const char *err = NULL;
		long l = -1;

		if (longs[i].ok) {
			assert_int_equal(parse_long(longs[i].in, &l, &err), 0);
			assert_true(l == longs[i].l);
		} else {
			assert_int_equal(parse_long(longs[i].in, &l, &err), -1);
			assert_string_equal(err, longs[i].err);
		}
	}
	for (i = 0; i < NCASES(doubles); i++) {
		const char *err = NULL;
		double d = -1;

		if (doubles[i].ok) {
			assert_int_equal(parse_double(doubles[i].in, &d, &err), 0);
			assert_true(d == doubles[i].d);
		} else {
			if (parse_double(doubles[i].in, &d, &err) != -1)
				fail_msg("'%s' parsed", doubles[i].in);
			assert_string_equal(err, doubles[i].err);
		}
	}
	for (i = 0; i < NCASES(bools); i++) {
		const char *err = NULL;
		bool b = !bools[i].b;

		if (bools[i].ok) {
			assert_int_equal(parse_bool(bools[i].in, &b, &err), 0);
			assert_int_equal(b, bools[i].b);
		} else {
			assert_int_equal(parse_bool(bools[i].in, &b, &err), -1);
			assert_string_equal(err, "expected yes/no, true/false, on/off or 1/0");
		}
	}
	{
		const char *err = NULL;
		bool b;

		assert_int_equal(parse_bool("", &b, &err), -1);
		assert_string_equal(err, "empty");
	}
}

static void test_argv_split(void **state)
{
	static const struct {
		const char *in;
		const char *want[6]; /* NULL-terminated */
	} cases[] = {
		{ "ls -R {tree}", { "ls", "-R", "{tree}" } },
		{ "  ls\t -R  ", { "ls", "-R" } },
		{ "sh -c 'echo a b'", { "sh", "-c", "echo a b" } },
		{ "sh -c \"echo 'a' b\"", { "sh", "-c", "echo 'a' b" } },
		{ "a'b c'd", { "ab cd" } },
		{ "a \"\" b", { "a", "", "b" } },
		{ "''", { "" } },
		{ "x 'a\\' b", { "x", "a\\", "b" } }, /* no backslash escapes */
		{ "make -j2 \"CC=gcc -O2\"", { "make", "-j2", "CC=gcc -O2" } },
	};
	static const struct {
		const char *in;
		const char *err;
	} bad[] = {
		{ "", "empty command" },
		{ "   \t ", "empty command" },
		{ "sh -c 'echo", "unterminated ' quote" },
		{ "echo \"a", "unterminated \" quote" },
		{ "echo a\"b 'c\" 'd", "unterminated ' quote" },
	};
	size_t i, j;

	for (i = 0; i < NCASES(cases); i++) {
		const char *err = NULL;
		char **argv = argv_split(cases[i].in, &err);

		if (argv == NULL)
			fail_msg("'%s': %s", cases[i].in, err);
		for (j = 0; cases[i].want[j] != NULL; j++) {
			if (argv[j] == NULL || strcmp(argv[j], cases[i].want[j]) != 0)
				fail_msg("'%s': word %zu is '%s', want '%s'", cases[i].in, j,
					 argv[j] ? argv[j] : "(end)", cases[i].want[j]);
		}
		if (argv[j] != NULL)
			fail_msg("'%s': extra word '%s'", cases[i].in, argv[j]);
		argv_free(argv);
	}
	for (i = 0; i < NCASES(bad); i++) {
		const char *err = NULL;

		assert_null(argv_split(bad[i].in, &err));
		assert_string_equal(err, bad[i].err);
	}
	argv_free(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_forms), cmocka_unit_test(test_duration_errors),
		cmocka_unit_test(test_size_forms),     cmocka_unit_test(test_size_errors),
		cmocka_unit_test(test_size_resolve),   cmocka_unit_test(test_size_format),
		cmocka_unit_test(test_format_bytes),   cmocka_unit_test(test_numbers),
		cmocka_unit_test(test_argv_split),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
