// SPDX-License-Identifier: GPL-2.0-or-later
/* /proc parsers against fixture texts, the sampler's arithmetic, and the
 * live readers on this machine. */
#include <math.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "procfs.h"
#include "timeutil.h"

#define KB 1024ULL

static void load_fixture(const char *name, char *buf, size_t len)
{
	char path[512];

	snprintf(path, sizeof path, "%s/proc/%s", TEST_DATA_DIR, name);
	if (read_small_file(path, buf, len) < 0)
		fail_msg("cannot read fixture %s", path);
}

static void test_parse_stat(void **state)
{
	static const struct {
		const char *file;
		int rc;
		uint64_t busy, total, ctxt;
	} cases[] = {
		/* guest (500) and guest_nice (3) are inside user and nice: not added */
		{ "stat", 0, 3014 + 20 + 3069 + 7 + 99 + 3044, 9253 + 73389 + 549, 1722593 },
		/* a kernel with no steal column yet */
		{ "stat-2.6.8", 0, 1000 + 10 + 200 + 4 + 5, 1219 + 5000 + 30, 99 },
		{ "stat-no-ctxt", -1, 0, 0, 0 },
	};
	char buf[4096];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct proc_stat st = { 0 };

		load_fixture(cases[i].file, buf, sizeof buf);
		assert_int_equal(procfs_parse_stat(buf, &st), cases[i].rc);
		if (cases[i].rc < 0)
			continue;
		assert_int_equal(st.busy, cases[i].busy);
		assert_int_equal(st.total, cases[i].total);
		assert_int_equal(st.ctxt, cases[i].ctxt);
	}
}

static void test_parse_stat_text(void **state)
{
	static const struct {
		const char *text;
		int rc;
	} cases[] = {
		{ "", -1 },
		{ "cpu0 1 2 3 4\nctxt 5\n", -1 }, /* no aggregate line */
		{ "cpu  1 2 3\nctxt 5\n", -1 },   /* too few columns */
		{ "cpu  x 2 3 4\nctxt 5\n", -1 },
		{ "cpu  1 2 3 4\nctxt 5", 0 }, /* no final newline */
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct proc_stat st;
		assert_int_equal(procfs_parse_stat(cases[i].text, &st), cases[i].rc);
	}
}

static void test_parse_meminfo(void **state)
{
	static const struct {
		const char *file;
		uint64_t total, available, swap_total, swap_free;
	} cases[] = {
		{ "meminfo", 24684092 * KB, 24370776 * KB, 2097148 * KB, 1048572 * KB },
		/* before 3.14: MemFree + Buffers + Cached */
		{ "meminfo-3.10", 1000000 * KB, (200000 + 10000 + 300000) * KB, 0, 0 },
	};
	char buf[4096];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct meminfo mi;

		load_fixture(cases[i].file, buf, sizeof buf);
		assert_int_equal(procfs_parse_meminfo(buf, &mi), 0);
		assert_int_equal(mi.mem_total, cases[i].total);
		assert_int_equal(mi.mem_available, cases[i].available);
		assert_int_equal(mi.swap_total, cases[i].swap_total);
		assert_int_equal(mi.swap_free, cases[i].swap_free);
	}
	{
		struct meminfo mi;
		assert_int_equal(procfs_parse_meminfo("MemFree: 10 kB\n", &mi), -1);
	}
}

static void test_parse_psi(void **state)
{
	static const struct {
		const char *file;
		uint64_t some, full;
		bool has_full;
	} cases[] = {
		{ "pressure-memory", 5000123, 1200456, true },
		{ "pressure-cpu-5.2", 987654321, 0, false },
	};
	char buf[4096];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		struct psi_totals psi;

		load_fixture(cases[i].file, buf, sizeof buf);
		assert_int_equal(procfs_parse_psi(buf, &psi), 0);
		assert_int_equal(psi.some_us, cases[i].some);
		assert_int_equal(psi.full_us, cases[i].full);
		assert_int_equal(psi.has_full, cases[i].has_full);
	}
	{
		struct psi_totals psi;
		assert_int_equal(procfs_parse_psi("", &psi), -1);
		assert_int_equal(procfs_parse_psi("full avg10=0.00 total=5\n", &psi), -1);
		/* total= must be on the some line itself */
		assert_int_equal(procfs_parse_psi("some avg10=0.00\nfull total=5\n", &psi), -1);
	}
}

static void test_parse_cpu_model(void **state)
{
	static const struct {
		const char *file;
		int rc;
		const char *model;
	} cases[] = {
		{ "cpuinfo-x86", 0, "Intel(R) Xeon(R) Processor @ 2.80GHz" },
		{ "cpuinfo-armv7", 0, "ARMv7 Processor rev 4 (v7l)" },
		{ "cpuinfo-armv6-old", 0, "BCM2708" },
		{ "cpuinfo-mips", 0, "MIPS 1004Kc V2.15" },
		{ "cpuinfo-s390", -1, NULL },
	};
	char buf[4096];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char model[256] = "";

		load_fixture(cases[i].file, buf, sizeof buf);
		assert_int_equal(procfs_parse_cpu_model(buf, model, sizeof model), cases[i].rc);
		if (cases[i].rc == 0)
			assert_string_equal(model, cases[i].model);
	}
}

static void test_parse_pid_stat(void **state)
{
	static const struct {
		const char *file;
		int rc;
		pid_t pgrp;
		uint64_t own, children;
	} cases[] = {
		{ "pid-stat", 0, 4236, 7 + 3, 2 + 1 },
		/* comm "my (odd) ) name": spaces and parentheses */
		{ "pid-stat-odd-comm", 0, 777, 150 + 50, 1000 + 300 },
		{ "pid-stat-kthread", 0, 0, 12, 0 },
		{ "pid-stat-truncated", -1, 0, 0, 0 },
	};
	char buf[4096];

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		pid_t pgrp = -1;
		uint64_t own = 0, children = 0;

		load_fixture(cases[i].file, buf, sizeof buf);
		assert_int_equal(procfs_parse_pid_stat(buf, &pgrp, &own, &children), cases[i].rc);
		if (cases[i].rc < 0)
			continue;
		assert_int_equal(pgrp, cases[i].pgrp);
		assert_int_equal(own, cases[i].own);
		assert_int_equal(children, cases[i].children);
	}
	{
		pid_t pgrp;
		uint64_t own, children;
		assert_int_equal(
			procfs_parse_pid_stat("no parenthesis here", &pgrp, &own, &children), -1);
		assert_int_equal(procfs_parse_pid_stat("1 (x)", &pgrp, &own, &children), -1);
	}
}

static struct proc_stat mkstat(uint64_t busy, uint64_t total, uint64_t ctxt)
{
	return (struct proc_stat){ .busy = busy, .total = total, .ctxt = ctxt };
}

static void test_sampler_deltas(void **state)
{
	struct sys_sampler ss;
	struct sys_sample out;
	struct proc_stat st;
	struct psi_totals psi[3] = {
		{ .some_us = 1000000 },                                      /* cpu, no full */
		{ .some_us = 2000000, .full_us = 500000, .has_full = true }, /* memory */
		{ 0 },
	};
	bool ok[3] = { true, true, false };
	int64_t t = 10 * NSEC_PER_SEC;

	sys_sampler_init(&ss);
	st = mkstat(1000, 10000, 50000);
	assert_int_equal(sys_sampler_feed(&ss, &st, psi, ok, t, &out), -1);

	/* Half a second later: 50 of 200 jiffies busy, 1000 switches,
	 * 100 ms of cpu some, 50 ms of memory full. */
	st = mkstat(1050, 10200, 51000);
	psi[0].some_us += 100000;
	psi[1].some_us += 250000;
	psi[1].full_us += 50000;
	t += NSEC_PER_SEC / 2;
	memset(&out, 0, sizeof out);
	assert_int_equal(sys_sampler_feed(&ss, &st, psi, ok, t, &out), 0);
	assert_float_equal(out.cpu_busy_pct, 25.0, 1e-9);
	assert_float_equal(out.ctxt_per_s, 2000.0, 1e-6);
	assert_float_equal(out.psi_cpu_some, 20.0, 1e-9);
	assert_true(isnan(out.psi_cpu_full));
	assert_float_equal(out.psi_mem_some, 50.0, 1e-9);
	assert_float_equal(out.psi_mem_full, 10.0, 1e-9);
	assert_true(isnan(out.psi_io_some));
	assert_true(isnan(out.psi_io_full));

	/* Counters that go backwards give 0, never a wrapped huge figure. */
	st = mkstat(10, 100, 5);
	psi[0].some_us = 0;
	t += NSEC_PER_SEC;
	assert_int_equal(sys_sampler_feed(&ss, &st, psi, ok, t, &out), 0);
	assert_float_equal(out.cpu_busy_pct, 0.0, 0);
	assert_float_equal(out.ctxt_per_s, 0.0, 0);
	assert_float_equal(out.psi_cpu_some, 0.0, 0);

	/* io pressure appears: no previous reading, so still NaN this time... */
	ok[2] = true;
	psi[2] = (struct psi_totals){ .some_us = 7000, .full_us = 3000, .has_full = true };
	st = mkstat(20, 200, 10);
	t += NSEC_PER_SEC;
	assert_int_equal(sys_sampler_feed(&ss, &st, psi, ok, t, &out), 0);
	assert_float_equal(out.cpu_busy_pct, 10.0, 1e-9);
	assert_true(isnan(out.psi_io_some));

	/* ...and a figure the next. */
	psi[2].some_us += 10000;
	psi[2].full_us += 1000;
	st = mkstat(20, 300, 10);
	t += NSEC_PER_SEC;
	assert_int_equal(sys_sampler_feed(&ss, &st, psi, ok, t, &out), 0);
	assert_float_equal(out.cpu_busy_pct, 0.0, 0);
	assert_float_equal(out.psi_io_some, 1.0, 1e-9);
	assert_float_equal(out.psi_io_full, 0.1, 1e-9);

	/* The same instant twice: no division by zero. */
	assert_int_equal(sys_sampler_feed(&ss, &st, psi, ok, t, &out), 0);
	assert_float_equal(out.ctxt_per_s, 0.0, 0);
	assert_true(isnan(out.psi_io_some));
}

static void test_live_readers(void **state)
{
	struct proc_stat st;
	struct meminfo mi;
	struct host_info hi;
	struct sys_sampler ss;
	struct sys_sample out;
	double load1 = -1;

	assert_int_equal(procfs_read_stat(&st), 0);
	assert_true(st.total >= st.busy);
	assert_true(st.ctxt > 0);
	assert_int_equal(procfs_read_meminfo(&mi), 0);
	assert_true(mi.mem_total > 0 && mi.mem_available <= mi.mem_total);
	assert_int_equal(procfs_read_loadavg(&load1), 0);
	assert_true(load1 >= 0);
	assert_int_equal(procfs_read_psi("no-such-resource", &(struct psi_totals){ 0 }), -1);

	assert_int_equal(host_info_read(&hi), 0);
	assert_true(hi.hostname[0] != '\0');
	assert_true(hi.kernel[0] != '\0');
	assert_true(hi.cpu_model[0] != '\0');
	assert_true(hi.cores >= 1);
	assert_int_equal(hi.ram_bytes, mi.mem_total);

	sys_sampler_init(&ss);
	assert_int_equal(sys_sampler_take(&ss, &out), -1);
	usleep(20000);
	assert_int_equal(sys_sampler_take(&ss, &out), 0);
	assert_true(out.cpu_busy_pct >= 0 && out.cpu_busy_pct <= 100);
	assert_true(out.mem_available > 0);
	assert_true(out.t > 0);
}

static void burn_cpu_ms(long ms)
{
	struct rusage ru;

	do
		getrusage(RUSAGE_SELF, &ru);
	while (ru.ru_utime.tv_sec * 1000 + ru.ru_utime.tv_usec / 1000 + ru.ru_stime.tv_sec * 1000 +
		       ru.ru_stime.tv_usec / 1000 <
	       ms);
}

static void test_group_usage(void **state)
{
	pid_t child, groups[3];
	uint64_t cpu_ns[3];
	int nprocs[3], status;

	/* A child in a group of its own, sleeping until killed. */
	child = fork();
	assert_true(child >= 0);
	if (child == 0) {
		setpgid(0, 0);
		pause();
		_exit(0);
	}
	setpgid(child, child);
	burn_cpu_ms(60);

	groups[0] = getpgrp();
	groups[1] = child;
	groups[2] = 999999999; /* no such group */
	assert_int_equal(procfs_group_usage(groups, 3, cpu_ns, nprocs), 0);
	assert_true(nprocs[0] >= 1);
	/* at least 60 ms burnt, counted in 10 ms ticks */
	assert_true(cpu_ns[0] >= 40 * NSEC_PER_MSEC);
	assert_int_equal(nprocs[1], 1);
	assert_int_equal(nprocs[2], 0);
	assert_int_equal(cpu_ns[2], 0);

	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	assert_int_equal(procfs_group_usage(groups, 3, cpu_ns, nprocs), 0);
	assert_int_equal(nprocs[1], 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),      cmocka_unit_test(test_parse_stat_text),
		cmocka_unit_test(test_parse_meminfo),   cmocka_unit_test(test_parse_psi),
		cmocka_unit_test(test_parse_cpu_model), cmocka_unit_test(test_parse_pid_stat),
		cmocka_unit_test(test_sampler_deltas),  cmocka_unit_test(test_live_readers),
		cmocka_unit_test(test_group_usage),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
