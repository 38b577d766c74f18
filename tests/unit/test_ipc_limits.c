// SPDX-License-Identifier: GPL-2.0-or-later
/* The IPC limits reader on a fake /proc: each figure from its file, an
 * unreadable or garbled file as unknown, and the limit and sysctl each
 * mechanism gets. */
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

#include "ipc_limits.h"
#include "remove_tree.h"

static void put(const char *root, const char *rel, const char *text)
{
	char path[512];
	FILE *fp;

	snprintf(path, sizeof path, "%s/%s", root, rel);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
}

static char *fake_proc(void)
{
	char tmpl[] = "/tmp/loadd-ipc-limits-XXXXXX", path[512];
	char *root = mkdtemp(tmpl);
	static const char *const dirs[] = { "sys", "sys/fs", "sys/fs/mqueue", "sys/kernel" };

	assert_non_null(root);
	for (size_t i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		snprintf(path, sizeof path, "%s/%s", root, dirs[i]);
		assert_int_equal(mkdir(path, 0700), 0);
	}
	return strdup(root);
}

static void test_reads_each_limit(void **state)
{
	char *root = fake_proc();
	struct ipc_limits l;

	(void)state;
	put(root, "sys/fs/mqueue/msgsize_max", "8192\n");
	put(root, "sys/fs/mqueue/msg_max", "10\n");
	put(root, "sys/kernel/msgmax", "4096\n");
	put(root, "sys/kernel/msgmnb", "16384\n");
	ipc_limits_read(root, &l);
	assert_int_equal(l.mq_msgsize_max, 8192);
	assert_int_equal(l.mq_msg_max, 10);
	assert_int_equal(l.msgmax, 4096);
	assert_int_equal(l.msgmnb, 16384);
	remove_tree(root);
	free(root);
}

static void test_missing_or_garbled_is_unknown(void **state)
{
	char *root = fake_proc();
	struct ipc_limits l;
	const char *sysctl = "x";

	(void)state;
	put(root, "sys/fs/mqueue/msgsize_max", "lots\n");
	put(root, "sys/fs/mqueue/msg_max", "-3\n");
	put(root, "sys/kernel/msgmax", "12abc\n");
	/* no msgmnb at all */
	ipc_limits_read(root, &l);
	assert_int_equal(l.mq_msgsize_max, 0);
	assert_int_equal(l.mq_msg_max, 0);
	assert_int_equal(l.msgmax, 0);
	assert_int_equal(l.msgmnb, 0);
	/* unknown: no limit claimed, no sysctl named */
	assert_int_equal(ipc_limit_for(&l, "posixmq", &sysctl), 0);
	assert_null(sysctl);
	remove_tree(root);
	free(root);
}

static void test_limit_of_each_mechanism(void **state)
{
	const struct ipc_limits l = {
		.mq_msgsize_max = 8192, .mq_msg_max = 10, .msgmax = 4096, .msgmnb = 16384
	};
	const char *sysctl;

	(void)state;
	assert_int_equal(ipc_limit_for(&l, "posixmq", &sysctl), 8192);
	assert_string_equal(sysctl, "fs.mqueue.msgsize_max");
	assert_int_equal(ipc_limit_for(&l, "sysvmq", &sysctl), 4096);
	assert_string_equal(sysctl, "kernel.msgmax");
	static const char *const free_vias[] = { "pipe",       "fifo", "unix-stream",
						 "unix-dgram", "tcp",  "udp" };

	for (size_t i = 0; i < sizeof free_vias / sizeof free_vias[0]; i++) {
		assert_int_equal(ipc_limit_for(&l, free_vias[i], &sysctl), 0);
		assert_null(sysctl);
		assert_null(ipc_limit_sysctl(free_vias[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_reads_each_limit),
		cmocka_unit_test(test_missing_or_garbled_is_unknown),
		cmocka_unit_test(test_limit_of_each_mechanism),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
