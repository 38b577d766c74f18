// SPDX-License-Identifier: GPL-2.0-or-later
#include "ipc_objects.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mqueue.h>
#include <semaphore.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/msg.h>
#include <sys/random.h>
#include <sys/sem.h>
#include <sys/shm.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "log.h"
#include "xalloc.h"

/* The prefix of every POSIX name loadd makes; the sweep touches no other. */
#define POSIX_PREFIX "/loadd-"

/* clang-format off */
static const char *const kind_words[] = {
	[IPC_SYSV_MSG] = "msg", [IPC_SYSV_SEM] = "sem", [IPC_SYSV_SHM] = "shm",
	[IPC_POSIX_MQ] = "mq", [IPC_POSIX_SEM] = "psem", [IPC_POSIX_SHM] = "pshm",
	[IPC_FIFO] = "fifo",
};
static const char *const kind_names[] = {
	[IPC_SYSV_MSG] = "System V queue", [IPC_SYSV_SEM] = "System V semaphore set",
	[IPC_SYSV_SHM] = "System V shared memory", [IPC_POSIX_MQ] = "POSIX queue",
	[IPC_POSIX_SEM] = "POSIX semaphore", [IPC_POSIX_SHM] = "POSIX shared memory",
	[IPC_FIFO] = "FIFO",
};
/* clang-format on */

struct ipc_objects {
	int fd; /* the register, O_APPEND; -1 when none is kept */
	char *path;
	char *probe;
	unsigned token; /* random, with the pid: names unique to the run */
	long serial;
};

static unsigned run_token(void)
{
	static unsigned token;
	unsigned t;

	if (token != 0)
		return token;
	if (getrandom(&t, sizeof t, GRND_NONBLOCK) != (ssize_t)sizeof t)
		t = (unsigned)time(NULL) ^ (unsigned)clock();
	token = t | 1u;
	return token;
}

struct ipc_objects *ipc_objects_open(const char *workdir, const char *probe, char **err)
{
	struct ipc_objects *r = xcalloc(1, sizeof *r);

	r->fd = -1;
	r->probe = xstrdup(probe);
	r->token = run_token();
	if (workdir == NULL)
		return r;
	r->path = xasprintf("%s/" IPC_OBJECTS_FILE "%s", workdir, probe);
	r->fd = open(r->path, O_WRONLY | O_APPEND | O_CREAT | O_TRUNC | O_NOFOLLOW | O_CLOEXEC,
		     0600);
	if (r->fd < 0) {
		*err = xasprintf("cannot make the register of IPC objects %s: %s", r->path,
				 strerror(errno));
		free(r->path);
		free(r->probe);
		free(r);
		return NULL;
	}
	return r;
}

void ipc_objects_close(struct ipc_objects *r)
{
	if (r == NULL)
		return;
	if (r->fd >= 0) {
		close(r->fd);
		unlink(r->path);
	}
	free(r->path);
	free(r->probe);
	free(r);
}

/* One line to the register; no fsync: a crash of loadd (the case the
 * register is for) keeps what was written, and a crash of the machine
 * takes the objects with it. */
static int register_line(struct ipc_objects *r, const char *line, char **err)
{
	size_t len = strlen(line);

	if (r->fd < 0)
		return 0;
	if (write(r->fd, line, len) != (ssize_t)len) {
		*err = xasprintf("cannot write to %s: %s", r->path, strerror(errno));
		return -1;
	}
	return 0;
}

int ipc_objects_posix_name(struct ipc_objects *r, enum ipc_kind kind, const char *what, char *buf,
			   size_t len, char **err)
{
	char *line;
	int rc;

	snprintf(buf, len, POSIX_PREFIX "%ld-%08x-%.40s-%ld%s", (long)getpid(), r->token, r->probe,
		 ++r->serial, what);
	line = xasprintf("%s %s\n", kind_words[kind], buf);
	rc = register_line(r, line, err);
	free(line);
	return rc;
}

int ipc_objects_fifo(struct ipc_objects *r, const char *path, char **err)
{
	char *line = xasprintf("%s %s\n", kind_words[IPC_FIFO], path);
	int rc = register_line(r, line, err);

	free(line);
	return rc;
}

union semun_arg {
	int val;
	struct semid_ds *buf;
	unsigned short *array;
};

static void perm_fields(const struct ipc_perm *perm, time_t t, long *key, long *cuid, long *ctime)
{
	*key = (long)perm->__key;
	*cuid = (long)perm->cuid;
	*ctime = (long)t;
}

int ipc_objects_sysv_stat(enum ipc_kind kind, int id, long *key, long *cuid, long *ctime)
{
	struct msqid_ds msg;
	struct semid_ds sem;
	struct shmid_ds shm;
	union semun_arg arg = { .buf = &sem };

	memset(&msg, 0, sizeof msg);
	memset(&sem, 0, sizeof sem);
	memset(&shm, 0, sizeof shm);
	if (kind == IPC_SYSV_MSG && msgctl(id, IPC_STAT, &msg) == 0)
		perm_fields(&msg.msg_perm, msg.msg_ctime, key, cuid, ctime);
	else if (kind == IPC_SYSV_SEM && semctl(id, 0, IPC_STAT, arg) == 0)
		perm_fields(&sem.sem_perm, sem.sem_ctime, key, cuid, ctime);
	else if (kind == IPC_SYSV_SHM && shmctl(id, IPC_STAT, &shm) == 0)
		perm_fields(&shm.shm_perm, shm.shm_ctime, key, cuid, ctime);
	else
		return -1;
	return 0;
}

int ipc_objects_sysv(struct ipc_objects *r, enum ipc_kind kind, int id, char **err)
{
	long key, cuid, ctime;
	char *line;
	int rc;

	if (ipc_objects_sysv_stat(kind, id, &key, &cuid, &ctime) < 0) {
		*err = xasprintf("cannot read %s %d back (IPC_STAT): %s", kind_names[kind], id,
				 strerror(errno));
		return -1;
	}
	line = xasprintf("%s %d %ld %ld %ld\n", kind_words[kind], id, key, cuid, ctime);
	rc = register_line(r, line, err);
	free(line);
	return rc;
}

void ipc_objects_clear(struct ipc_objects *r)
{
	if (r->fd >= 0 && ftruncate(r->fd, 0) < 0)
		log_warn("cannot empty %s: %s", r->path, strerror(errno));
}

/* ---- the start-up sweep ---- */

static int sysv_remove(enum ipc_kind kind, int id)
{
	union semun_arg arg = { .val = 0 };

	return kind == IPC_SYSV_MSG   ? msgctl(id, IPC_RMID, NULL)
	       : kind == IPC_SYSV_SEM ? semctl(id, 0, IPC_RMID, arg)
				      : shmctl(id, IPC_RMID, NULL);
}

static void sweep_sysv(enum ipc_kind kind, const char *rest, const char *reg)
{
	long key, cuid, ctime, now_key, now_cuid, now_ctime;
	int id;

	if (sscanf(rest, "%d %ld %ld %ld", &id, &key, &cuid, &ctime) != 4)
		return;
	if (ipc_objects_sysv_stat(kind, id, &now_key, &now_cuid, &now_ctime) < 0)
		return; /* gone already */
	if (now_key != key || now_cuid != cuid || now_ctime != ctime) {
		log_info("left %s %d alone: its id now belongs to another object (%s)",
			 kind_names[kind], id, reg);
		return;
	}
	if (sysv_remove(kind, id) == 0)
		log_info("removed %s %d, left by an earlier run", kind_names[kind], id);
	else
		log_warn("cannot remove %s %d, left by an earlier run: %s", kind_names[kind], id,
			 strerror(errno));
}

static void sweep_posix(enum ipc_kind kind, const char *name)
{
	int rc;

	if (strncmp(name, POSIX_PREFIX, strlen(POSIX_PREFIX)) != 0 || strchr(name + 1, '/'))
		return; /* not a name loadd makes */
	rc = kind == IPC_POSIX_MQ    ? mq_unlink(name)
	     : kind == IPC_POSIX_SEM ? sem_unlink(name)
				     : shm_unlink(name);
	if (rc == 0)
		log_info("removed %s %s, left by an earlier run", kind_names[kind], name);
	else if (errno != ENOENT)
		log_warn("cannot remove %s %s, left by an earlier run: %s", kind_names[kind], name,
			 strerror(errno));
}

/* A FIFO inside the work dir, and only a FIFO. */
static void sweep_fifo(const char *path, const char *workdir)
{
	size_t n = strlen(workdir);
	struct stat st;

	if (strncmp(path, workdir, n) != 0 || path[n] != '/' || strstr(path, "/../") != NULL)
		return;
	if (lstat(path, &st) < 0 || !S_ISFIFO(st.st_mode))
		return;
	if (unlink(path) == 0)
		log_info("removed FIFO %s, left by an earlier run", path);
}

static void sweep_line(char *line, const char *workdir, const char *reg)
{
	char *space = strchr(line, ' ');

	if (space == NULL)
		return;
	*space = '\0';
	for (size_t k = 0; k < sizeof kind_words / sizeof *kind_words; k++) {
		if (strcmp(line, kind_words[k]) != 0)
			continue;
		if (k <= IPC_SYSV_SHM)
			sweep_sysv((enum ipc_kind)k, space + 1, reg);
		else if (k == IPC_FIFO)
			sweep_fifo(space + 1, workdir);
		else
			sweep_posix((enum ipc_kind)k, space + 1);
	}
}

static void sweep_register(int wfd, const char *workdir, const char *name)
{
	int fd = openat(wfd, name, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	char *path = xasprintf("%s/%s", workdir, name), line[4096];
	struct stat st;
	FILE *fp;

	if (fd < 0 || fstat(fd, &st) < 0 || !S_ISREG(st.st_mode) || st.st_uid != geteuid()) {
		log_warn("left %s alone: not a register loadd wrote", path);
		if (fd >= 0)
			close(fd);
		free(path);
		return;
	}
	fp = fdopen(fd, "r");
	while (fp != NULL && fgets(line, sizeof line, fp) != NULL) {
		line[strcspn(line, "\n")] = '\0';
		sweep_line(line, workdir, path);
	}
	if (fp != NULL)
		fclose(fp);
	else
		close(fd);
	if (unlinkat(wfd, name, 0) < 0)
		log_warn("cannot remove %s: %s", path, strerror(errno));
	free(path);
}

void ipc_objects_sweep(const char *workdir)
{
	int wfd = open(workdir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	int dfd = wfd >= 0 ? dup(wfd) : -1;
	DIR *d = dfd >= 0 ? fdopendir(dfd) : NULL;
	struct dirent *de;

	if (d == NULL) {
		if (dfd >= 0)
			close(dfd);
		if (wfd >= 0)
			close(wfd);
		return;
	}
	while ((de = readdir(d)) != NULL)
		if (strncmp(de->d_name, IPC_OBJECTS_FILE, strlen(IPC_OBJECTS_FILE)) == 0)
			sweep_register(wfd, workdir, de->d_name);
	closedir(d);
	close(wfd);
}
