// SPDX-License-Identifier: GPL-2.0-or-later
/* The register of the IPC objects a probe makes: System V queues, semaphores
 * and shared memory, POSIX queues, named semaphores and shared memory, FIFOs.
 * Each probe keeps one register, <workdir>/.loadd-ipc-<probe>, and writes an
 * object's line before it uses it (a POSIX name before it is even created);
 * when a sample has removed what it made, the register starts afresh. After
 * a crash (kill -9) the next loadd sweeps what the registers still list, and
 * only that: a System V object whose id, key, creator and ctime no longer
 * match what was recorded (an id reused by someone else) stays, as does
 * every POSIX name without loadd's run-unique prefix. */
#ifndef LOADD_IPC_OBJECTS_H
#define LOADD_IPC_OBJECTS_H

#include <stddef.h>

/* The file name of a probe's register in the work dir: this, then the probe. */
#define IPC_OBJECTS_FILE ".loadd-ipc-"

enum ipc_kind {
	IPC_SYSV_MSG,  /* msgget */
	IPC_SYSV_SEM,  /* semget */
	IPC_SYSV_SHM,  /* shmget */
	IPC_POSIX_MQ,  /* mq_open */
	IPC_POSIX_SEM, /* sem_open */
	IPC_POSIX_SHM, /* shm_open */
	IPC_FIFO,      /* mkfifo: an absolute path */
};

struct ipc_objects;

/* The register of probe `probe` in workdir (NULL: none is kept, for tests),
 * emptied. NULL with *err when it cannot be written. */
struct ipc_objects *ipc_objects_open(const char *workdir, const char *probe, char **err);
/* Removes the register (whatever it listed must be gone) and frees r. */
void ipc_objects_close(struct ipc_objects *r);

/* Writes a POSIX name unique to this run and probe into buf,
 * "/loadd-<pid>-<random>-<probe>-<serial><what>", and records it: call it
 * before mq_open, sem_open or shm_open. -1 with *err when it cannot be
 * recorded (then do not create it). */
int ipc_objects_posix_name(struct ipc_objects *r, enum ipc_kind kind, const char *what, char *buf,
			   size_t len, char **err);
/* Records a FIFO's absolute path: call it before mkfifo. */
int ipc_objects_fifo(struct ipc_objects *r, const char *path, char **err);
/* Records System V object id of kind, with its key, creator and ctime read
 * by IPC_STAT: call it right after creating (and, for a semaphore, setting)
 * it, before using it. -1 with *err: remove it then. */
int ipc_objects_sysv(struct ipc_objects *r, enum ipc_kind kind, int id, char **err);
/* Everything recorded is gone (the sample removed it): starts afresh. */
void ipc_objects_clear(struct ipc_objects *r);

/* At start-up, after a crash: removes the objects every register in workdir
 * lists that still match, logs each, and deletes the registers. */
void ipc_objects_sweep(const char *workdir);

/* The System V object's key, creator uid and ctime; -1 when it is gone. */
int ipc_objects_sysv_stat(enum ipc_kind kind, int id, long *key, long *cuid, long *ctime);

#endif
