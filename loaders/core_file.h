// SPDX-License-Identifier: GPL-2.0-or-later
/* What the read and write loaders share: how big a file may be on its
 * filesystem, writing a file block by block with ENOSPC told apart from other
 * failures, and sleeping in a way that a stop request cuts short. */
#ifndef LOADD_CORE_FILE_H
#define LOADD_CORE_FILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "loader.h"
#include "parse.h"
#include "profile.h"

/* Free bytes an unprivileged writer may use (f_bavail) on the filesystem that
 * holds path: the root-reserved blocks are left to the system. 0 or -1. */
int fs_free_bytes(const char *path, uint64_t *free_bytes);

/* The largest file of at most want bytes, in whole blocks, that leaves
 * reserve bytes free; own is what the loader already holds on that
 * filesystem and gives back before writing. 0 when not even a block fits. */
uint64_t file_fit(uint64_t want, uint64_t free_bytes, uint64_t own, uint64_t reserve,
		  uint64_t block);

/* The size of a file to make in dir: spec resolved on this machine, in
 * whole blocks, clamped so that reserve stays free (an info event says so;
 * own is what the loader already holds there). While not even a block fits
 * it says so once (an enospc event) and waits. 0 when stopped first. */
uint64_t file_plan_size(const struct loader_ctx *ctx, const char *dir, const struct size_spec *spec,
			uint64_t block, uint64_t reserve, uint64_t own);

/* The size after an ENOSPC: half, in whole blocks, never below one block. */
uint64_t file_shrink(uint64_t size, uint64_t block);

enum fill_result {
	FILL_DONE,
	FILL_STOPPED, /* the load was asked to stop */
	FILL_ENOSPC,  /* the filesystem is full (write, fdatasync or close said so) */
	FILL_FAILED,  /* any other error; errno says which */
};

struct file_fill {
	int fd;        /* the file, open for writing at offset 0 */
	uint64_t size; /* bytes to write */
	char *buf;     /* block bytes */
	size_t block;
	int src_fd; /* each block is read from here first (/dev/zero); -1: buf as it is */
	bool sync;  /* fdatasync at the end */
	struct loader_shm *shm;  /* progress is stamped here */
	bool count_bytes;        /* and bytes written counted, or only the time of progress */
	uint64_t written;        /* bytes already in the file (the fd's offset); out: bytes in it */
	const char *failed_call; /* out, FILL_FAILED: "write", "read /dev/zero", "fdatasync" */
	int error;               /* out, FILL_FAILED: its errno */
};

/* Writes the rest of the file, from written up to size (without closing it). */
enum fill_result file_fill_run(struct file_fill *f);

/* Stamps the time of progress without counting anything: work that is not
 * the load's own unit (the read loader making its file) is not a stall. */
void loader_mark_progress(struct loader_shm *shm);

/* Sleeps ms milliseconds, waking within 50 ms when the load is stopped. */
void loader_nap(int ms);

/* For the loaders' check hooks: a refusal of sizes that depend on the
 * machine where only bytes make sense. */
int check_plain_size(const struct size_spec *spec, const struct load_def *def, const char *key,
		     const char *file, FILE *errs);

#endif
