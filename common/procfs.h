// SPDX-License-Identifier: GPL-2.0-or-later
/* Readers for /proc and the host's facts. Each file is read with one read()
 * into a stack buffer and parsed without allocation. */
#ifndef LOADD_PROCFS_H
#define LOADD_PROCFS_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "records.h"

struct proc_stat {
	uint64_t busy;  /* jiffies: user + nice + system + irq + softirq + steal */
	uint64_t total; /* busy + idle + iowait */
	uint64_t ctxt;  /* context switches since boot */
};

struct meminfo {
	uint64_t mem_total; /* bytes */
	uint64_t mem_available;
	uint64_t swap_total;
	uint64_t swap_free;
};

struct psi_totals {
	uint64_t some_us; /* cumulative stall time, microseconds */
	uint64_t full_us;
	bool has_full; /* /proc/pressure/cpu has no full line on old kernels */
};

/* The parsers take the file's text, so tests can feed them fixtures; the
 * readers read the real file. Each returns 0 or -1. */
int procfs_parse_stat(const char *text, struct proc_stat *out);
int procfs_parse_meminfo(const char *text, struct meminfo *out);
int procfs_parse_psi(const char *text, struct psi_totals *out);
int procfs_read_stat(struct proc_stat *out);
int procfs_read_meminfo(struct meminfo *out);
int procfs_read_loadavg(double *load1);
/* resource: "cpu", "memory" or "io". -1 when the kernel has no PSI. */
int procfs_read_psi(const char *resource, struct psi_totals *out);

/* The CPU's name from /proc/cpuinfo text ("model name", or "Hardware",
 * "cpu model", "Processor" on other architectures): 0, or -1 when none. */
int procfs_parse_cpu_model(const char *text, char *out, size_t len);
/* One /proc/PID/stat line: the process group and the CPU time in clock ticks,
 * its own (utime + stime) and its reaped children's (cutime + cstime). comm
 * may hold spaces and ')', so the fields are counted from the last ')'. */
int procfs_parse_pid_stat(const char *text, pid_t *pgrp, uint64_t *own_ticks,
			  uint64_t *child_ticks);

/* Reads a whole small file into buf (NUL-terminated); returns its length or -1. */
ssize_t read_small_file(const char *path, char *buf, size_t len);

struct host_info {
	char hostname[256];
	char kernel[256]; /* uname release */
	char cpu_model[256];
	int cores; /* online CPUs */
	uint64_t ram_bytes;
	uint64_t swap_bytes;
};

int host_info_read(struct host_info *out);

/* Per process group: CPU time of every live member (its own, the larger of
 * utime + stime and the scheduler's schedstat sum, plus cutime + cstime, so
 * reaped children count) and how many members live. One scan of /proc for
 * all groups. cpu_ns and nprocs have n entries. */
int procfs_group_usage(const pid_t *pgids, int n, uint64_t *cpu_ns, int *nprocs);

/* System sampler: turns two readings a second apart into a sys_sample. */
struct sys_sampler {
	struct proc_stat stat;
	struct psi_totals psi[3]; /* cpu, memory, io */
	bool psi_ok[3];
	int64_t mono; /* CLOCK_MONOTONIC of the last reading */
	bool primed;
};

void sys_sampler_init(struct sys_sampler *ss);
/* Fills out with the figures since the last call (the first call returns -1
 * and only primes the sampler). */
int sys_sampler_take(struct sys_sampler *ss, struct sys_sample *out);
/* The rates part of sys_sampler_take, fed with readings taken at mono (ns):
 * cpu_busy_pct, ctxt_per_s and the psi_* fields. -1 on the priming call. */
int sys_sampler_feed(struct sys_sampler *ss, const struct proc_stat *stat,
		     const struct psi_totals psi[3], const bool psi_ok[3], int64_t mono,
		     struct sys_sample *out);

#endif
