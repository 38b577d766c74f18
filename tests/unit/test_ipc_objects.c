// SPDX-License-Identifier: GPL-2.0-or-later
/* The register of IPC objects: what a probe recorded and left (as after a
 * kill -9) is swept at the next start; an object loadd did not record, or
 * whose id now belongs to someone else, and a name without loadd's prefix,
 * survive the sweep. */
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <semaphore.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "ipc_objects.h"
#include "log.h"

struct fixture {
	char dir[64];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof *f);

	if (f == NULL)
		return -1;
	snprintf(f->dir, sizeof f->dir, "/tmp/test_ipc_objects.XXXXXX");
	if (mkdtemp(f->dir) == NULL)
		return -1;
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char *cmd;

	if (asprintf(&cmd, "rm -rf '%s'", f->dir) > 0) {
		if (system(cmd) != 0)
			fprintf(stderr, "cannot remove %s\n", f->dir);
		free(cmd);
	}
	free(f);
	return 0;
}

static bool msg_exists(int id)
{
	struct msqid_ds ds;

	return msgctl(id, IPC_STAT, &ds) == 0;
}

static bool sem_exists(int id)
{
	return semctl(id, 0, GETVAL) >= 0;
}

static bool shm_exists(int id)
{
	struct shmid_ds ds;

	return shmctl(id, IPC_STAT, &ds) == 0;
}

/* What a probe killed mid-sample leaves: objects recorded, never removed. */
static void test_sweep_what_was_recorded(void **state)
{
	struct fixture *f = *state;
	char *err = NULL, mq[128], psem[128], pshm[128], fifo[128];
	struct ipc_objects *r = ipc_objects_open(f->dir, "p1", &err);
	int msg, sem, shm, fd;
	sem_t *s;

	assert_non_null(r);
	msg = msgget(IPC_PRIVATE, IPC_CREAT | 0600);
	sem = semget(IPC_PRIVATE, 1, IPC_CREAT | 0600);
	shm = shmget(IPC_PRIVATE, 4096, IPC_CREAT | 0600);
	assert_true(msg >= 0 && sem >= 0 && shm >= 0);
	assert_int_equal(ipc_objects_sysv(r, IPC_SYSV_MSG, msg, &err), 0);
	assert_int_equal(ipc_objects_sysv(r, IPC_SYSV_SEM, sem, &err), 0);
	assert_int_equal(ipc_objects_sysv(r, IPC_SYSV_SHM, shm, &err), 0);
	assert_int_equal(ipc_objects_posix_name(r, IPC_POSIX_MQ, "q", mq, sizeof mq, &err), 0);
	assert_int_equal(ipc_objects_posix_name(r, IPC_POSIX_SEM, "s", psem, sizeof psem, &err), 0);
	assert_int_equal(ipc_objects_posix_name(r, IPC_POSIX_SHM, "m", pshm, sizeof pshm, &err), 0);
	assert_true(strncmp(mq, "/loadd-", 7) == 0);
	snprintf(fifo, sizeof fifo, "%s/fifo-1", f->dir);
	assert_int_equal(ipc_objects_fifo(r, fifo, &err), 0);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	fd = mq_open(mq, O_RDWR | O_CREAT | O_EXCL, 0600, NULL);
	assert_true(fd >= 0);
	mq_close(fd);
	s = sem_open(psem, O_CREAT | O_EXCL, 0600, 1);
	assert_true(s != SEM_FAILED);
	sem_close(s);
	fd = shm_open(pshm, O_RDWR | O_CREAT | O_EXCL, 0600);
	assert_true(fd >= 0);
	close(fd);
	/* The crash: the register is never closed. */
	ipc_objects_sweep(f->dir);
	assert_false(msg_exists(msg));
	assert_false(sem_exists(sem));
	assert_false(shm_exists(shm));
	assert_true(mq_open(mq, O_RDWR) < 0 && errno == ENOENT);
	assert_true(sem_open(psem, 0) == SEM_FAILED && errno == ENOENT);
	assert_true(shm_open(pshm, O_RDWR, 0) < 0 && errno == ENOENT);
	assert_true(access(fifo, F_OK) < 0);
	/* The register itself is gone. */
	char *reg;
	assert_true(asprintf(&reg, "%s/" IPC_OBJECTS_FILE "p1", f->dir) > 0);
	assert_true(access(reg, F_OK) < 0);
	free(reg);
	ipc_objects_close(r);
}

/* A line whose id now names another object (other ctime or key), a POSIX
 * name without the prefix, a path outside the work dir: all left alone. */
static void test_sweep_spares_foreign_objects(void **state)
{
	struct fixture *f = *state;
	char *reg, line[512];
	int msg = msgget(IPC_PRIVATE, IPC_CREAT | 0600), fd;
	long key, cuid, ctime;
	FILE *fp;

	assert_true(msg >= 0);
	assert_int_equal(ipc_objects_sysv_stat(IPC_SYSV_MSG, msg, &key, &cuid, &ctime), 0);
	fd = shm_open("/foreign-test-ipc-objects", O_RDWR | O_CREAT, 0600);
	assert_true(fd >= 0);
	close(fd);
	assert_true(asprintf(&reg, "%s/" IPC_OBJECTS_FILE "p2", f->dir) > 0);
	fp = fopen(reg, "w");
	assert_non_null(fp);
	fprintf(fp, "msg %d %ld %ld %ld\n", msg, key, cuid, ctime - 100);
	fprintf(fp, "msg %d %ld %ld %ld\n", msg, key + 1, cuid, ctime);
	fprintf(fp, "pshm /foreign-test-ipc-objects\n");
	fprintf(fp, "fifo /tmp/not-in-the-work-dir\n");
	fprintf(fp, "garbage\n");
	fclose(fp);
	snprintf(line, sizeof line, "%s", reg);
	ipc_objects_sweep(f->dir);
	assert_true(msg_exists(msg));
	fd = shm_open("/foreign-test-ipc-objects", O_RDWR, 0);
	assert_true(fd >= 0);
	close(fd);
	assert_true(access(line, F_OK) < 0);
	msgctl(msg, IPC_RMID, NULL);
	shm_unlink("/foreign-test-ipc-objects");
	free(reg);
}

/* A clean sample: cleared after each, removed at close, names unique. */
static void test_clear_and_close(void **state)
{
	struct fixture *f = *state;
	char *err = NULL, a[128], b[128], *reg;
	struct ipc_objects *r = ipc_objects_open(f->dir, "p3", &err);
	struct stat st;

	assert_non_null(r);
	assert_true(asprintf(&reg, "%s/" IPC_OBJECTS_FILE "p3", f->dir) > 0);
	assert_int_equal(ipc_objects_posix_name(r, IPC_POSIX_MQ, "d", a, sizeof a, &err), 0);
	assert_int_equal(ipc_objects_posix_name(r, IPC_POSIX_MQ, "d", b, sizeof b, &err), 0);
	assert_string_not_equal(a, b);
	assert_int_equal(stat(reg, &st), 0);
	assert_true(st.st_size > 0);
	ipc_objects_clear(r);
	assert_int_equal(stat(reg, &st), 0);
	assert_int_equal(st.st_size, 0);
	ipc_objects_close(r);
	assert_true(access(reg, F_OK) < 0);
	free(reg);
	/* Without a work dir (tests): names, no register. */
	r = ipc_objects_open(NULL, "p4", &err);
	assert_non_null(r);
	assert_int_equal(ipc_objects_posix_name(r, IPC_POSIX_SEM, "x", a, sizeof a, &err), 0);
	ipc_objects_close(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_sweep_what_was_recorded, setup, teardown),
		cmocka_unit_test_setup_teardown(test_sweep_spares_foreign_objects, setup, teardown),
		cmocka_unit_test_setup_teardown(test_clear_and_close, setup, teardown),
	};

	log_init("test_ipc_objects", 0);
	return cmocka_run_group_tests(tests, NULL, NULL);
}
