// SPDX-License-Identifier: GPL-2.0-or-later
#include "procfs.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <math.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>
#include <unistd.h>

#include "timeutil.h"

/* /proc/stat holds a line per CPU and the whole interrupt table; this fits
 * machines with hundreds of CPUs in one read. */
#define STAT_BUF_LEN (64 * 1024)
#define SMALL_BUF_LEN 4096

static const char *const psi_resources[3] = { "cpu", "memory", "io" };

ssize_t read_small_file(const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd, saved;

	if (len == 0) {
		errno = EINVAL;
		return -1;
	}
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	saved = errno;
	close(fd);
	if (n < 0) {
		errno = saved;
		return -1;
	}
	buf[n] = '\0';
	return n;
}

/* Skips blanks, then reads decimal digits. NULL when there are none. */
static const char *scan_u64(const char *p, uint64_t *out)
{
	uint64_t v = 0;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p < '0' || *p > '9')
		return NULL;
	while (*p >= '0' && *p <= '9')
		v = v * 10 + (uint64_t)(*p++ - '0');
	*out = v;
	return p;
}

/* A signed field (cutime, cstime are %ld in the kernel's format). */
static const char *scan_i64(const char *p, int64_t *out)
{
	uint64_t v;
	bool neg = false;

	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '-') {
		neg = true;
		p++;
	}
	p = scan_u64(p, &v);
	if (p)
		*out = neg ? -(int64_t)v : (int64_t)v;
	return p;
}

/* "12.34": /proc/loadavg's fixed-point figures, independent of the locale. */
static const char *scan_fixed(const char *p, double *out)
{
	uint64_t ip, frac = 0;
	double scale = 1;

	p = scan_u64(p, &ip);
	if (p == NULL)
		return NULL;
	if (*p == '.') {
		p++;
		while (*p >= '0' && *p <= '9' && scale < 1e15) {
			frac = frac * 10 + (uint64_t)(*p++ - '0');
			scale *= 10;
		}
	}
	*out = (double)ip + (double)frac / scale;
	return p;
}

static const char *next_line(const char *p)
{
	p = strchr(p, '\n');
	return p ? p + 1 : NULL;
}

/* The line starting with key (key includes its separator), or NULL. */
static const char *find_line(const char *text, const char *key)
{
	size_t klen = strlen(key);

	for (const char *p = text; p && *p; p = next_line(p))
		if (strncmp(p, key, klen) == 0)
			return p + klen;
	return NULL;
}

int procfs_parse_stat(const char *text, struct proc_stat *out)
{
	/* user nice system idle iowait irq softirq steal (guest and
	 * guest_nice follow but are already counted in user and nice). */
	uint64_t f[8] = { 0 };
	const char *p;
	int n;

	if (strncmp(text, "cpu ", 4) != 0)
		return -1;
	p = text + 4;
	for (n = 0; n < 8; n++) {
		const char *q = scan_u64(p, &f[n]);
		if (q == NULL)
			break;
		p = q;
	}
	if (n < 4)
		return -1;
	out->busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
	out->total = out->busy + f[3] + f[4];

	p = find_line(text, "ctxt ");
	if (p == NULL || scan_u64(p, &out->ctxt) == NULL)
		return -1;
	return 0;
}

/* "Key:    1234 kB" -> bytes. */
static bool meminfo_field(const char *line, const char *key, uint64_t *out)
{
	size_t klen = strlen(key);
	const char *p;
	uint64_t v;

	if (strncmp(line, key, klen) != 0 || line[klen] != ':')
		return false;
	p = scan_u64(line + klen + 1, &v);
	if (p == NULL)
		return false;
	while (*p == ' ')
		p++;
	*out = strncmp(p, "kB", 2) == 0 ? v * 1024 : v;
	return true;
}

int procfs_parse_meminfo(const char *text, struct meminfo *out)
{
	uint64_t mem_free = 0, buffers = 0, cached = 0;
	bool has_total = false, has_available = false, unused;
	const struct {
		const char *key;
		uint64_t *dst;
		bool *seen;
	} fields[] = {
		{ "MemTotal", &out->mem_total, &has_total },
		{ "MemAvailable", &out->mem_available, &has_available },
		{ "MemFree", &mem_free, &unused },
		{ "Buffers", &buffers, &unused },
		{ "Cached", &cached, &unused },
		{ "SwapTotal", &out->swap_total, &unused },
		{ "SwapFree", &out->swap_free, &unused },
	};

	memset(out, 0, sizeof *out);
	for (const char *p = text; p && *p; p = next_line(p)) {
		for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++) {
			if (meminfo_field(p, fields[i].key, fields[i].dst)) {
				*fields[i].seen = true;
				break;
			}
		}
	}
	if (!has_total)
		return -1;
	/* Kernels before 3.14 have no MemAvailable: the classic estimate. */
	if (!has_available)
		out->mem_available = mem_free + buffers + cached;
	return 0;
}

/* "some avg10=0.00 avg60=0.00 avg300=0.00 total=12345" -> 12345 */
static bool psi_line_total(const char *line, uint64_t *out)
{
	const char *end = strchr(line, '\n');
	const char *p = strstr(line, "total=");

	if (p == NULL || (end && p > end))
		return false;
	return scan_u64(p + 6, out) != NULL;
}

int procfs_parse_psi(const char *text, struct psi_totals *out)
{
	bool has_some = false;

	memset(out, 0, sizeof *out);
	for (const char *p = text; p && *p; p = next_line(p)) {
		if (strncmp(p, "some ", 5) == 0)
			has_some = psi_line_total(p, &out->some_us);
		else if (strncmp(p, "full ", 5) == 0)
			out->has_full = psi_line_total(p, &out->full_us);
	}
	return has_some ? 0 : -1;
}

int procfs_read_stat(struct proc_stat *out)
{
	char buf[STAT_BUF_LEN];

	if (read_small_file("/proc/stat", buf, sizeof buf) < 0)
		return -1;
	return procfs_parse_stat(buf, out);
}

int procfs_read_meminfo(struct meminfo *out)
{
	char buf[SMALL_BUF_LEN * 2];

	if (read_small_file("/proc/meminfo", buf, sizeof buf) < 0)
		return -1;
	return procfs_parse_meminfo(buf, out);
}

int procfs_read_loadavg(double *load1)
{
	char buf[256];

	if (read_small_file("/proc/loadavg", buf, sizeof buf) < 0)
		return -1;
	return scan_fixed(buf, load1) ? 0 : -1;
}

int procfs_read_psi(const char *resource, struct psi_totals *out)
{
	char path[64], buf[512];

	snprintf(path, sizeof path, "/proc/pressure/%s", resource);
	if (read_small_file(path, buf, sizeof buf) < 0)
		return -1;
	return procfs_parse_psi(buf, out);
}

/* The value of "key<blanks>: value" on this line, trimmed, into out. */
static bool cpuinfo_value(const char *line, const char *key, char *out, size_t len)
{
	size_t klen = strlen(key);
	const char *p = line + klen, *end;
	size_t n;

	if (strncmp(line, key, klen) != 0)
		return false;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p != ':')
		return false;
	p++;
	while (*p == ' ' || *p == '\t')
		p++;
	end = strchr(p, '\n');
	if (end == NULL)
		end = p + strlen(p);
	while (end > p && isspace((unsigned char)end[-1]))
		end--;
	if (end == p)
		return false;
	n = (size_t)(end - p);
	if (n >= len)
		n = len - 1;
	memcpy(out, p, n);
	out[n] = '\0';
	return true;
}

int procfs_parse_cpu_model(const char *text, char *out, size_t len)
{
	/* x86 and arm64 say "model name"; 32-bit ARM "Hardware" or
	 * "Processor"; MIPS "cpu model". */
	static const char *const keys[] = { "model name", "Hardware", "cpu model", "Processor" };

	for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
		for (const char *p = text; p && *p; p = next_line(p))
			if (cpuinfo_value(p, keys[k], out, len))
				return 0;
	return -1;
}

int host_info_read(struct host_info *out)
{
	char buf[16 * 1024];
	struct utsname uts;
	struct meminfo mi;
	long n;

	memset(out, 0, sizeof *out);
	if (gethostname(out->hostname, sizeof out->hostname - 1) < 0)
		snprintf(out->hostname, sizeof out->hostname, "unknown");
	if (uname(&uts) == 0) {
		snprintf(out->kernel, sizeof out->kernel, "%s", uts.release);
	} else {
		snprintf(out->kernel, sizeof out->kernel, "unknown");
		snprintf(uts.machine, sizeof uts.machine, "unknown");
	}
	if (read_small_file("/proc/cpuinfo", buf, sizeof buf) < 0 ||
	    procfs_parse_cpu_model(buf, out->cpu_model, sizeof out->cpu_model) < 0)
		snprintf(out->cpu_model, sizeof out->cpu_model, "%s", uts.machine);
	n = sysconf(_SC_NPROCESSORS_ONLN);
	out->cores = n > 0 ? (int)n : 1;
	if (procfs_read_meminfo(&mi) < 0)
		return -1;
	out->ram_bytes = mi.mem_total;
	out->swap_bytes = mi.swap_total;
	return 0;
}

int procfs_parse_pid_stat(const char *text, pid_t *pgrp, uint64_t *own_ticks, uint64_t *child_ticks)
{
	const char *p = strrchr(text, ')');
	uint64_t utime, stime, v;
	int64_t cutime, cstime;

	if (p == NULL)
		return -1;
	p++;
	/* Field 3 is the state, a single letter. */
	while (*p == ' ')
		p++;
	if (*p == '\0')
		return -1;
	p++;
	/* Fields 4 (ppid) and 5 (pgrp). */
	if ((p = scan_u64(p, &v)) == NULL || (p = scan_u64(p, &v)) == NULL)
		return -1;
	*pgrp = (pid_t)v;
	/* Fields 6..13: session, tty_nr, tpgid (may be -1), flags, faults. */
	for (int field = 6; field <= 13; field++) {
		int64_t skip;
		if ((p = scan_i64(p, &skip)) == NULL)
			return -1;
	}
	if ((p = scan_u64(p, &utime)) == NULL || (p = scan_u64(p, &stime)) == NULL ||
	    (p = scan_i64(p, &cutime)) == NULL || (p = scan_i64(p, &cstime)) == NULL)
		return -1;
	*own_ticks = utime + stime;
	*child_ticks = (uint64_t)(cutime > 0 ? cutime : 0) + (uint64_t)(cstime > 0 ? cstime : 0);
	return 0;
}

static bool all_digits(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s; s++)
		if (*s < '0' || *s > '9')
			return false;
	return true;
}

/* One /proc/PID/stat, or -1 when the process is gone. */
static ssize_t read_at(int dir_fd, const char *path, char *buf, size_t len)
{
	ssize_t n;
	int fd = openat(dir_fd, path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return -1;
	do
		n = read(fd, buf, len - 1);
	while (n < 0 && errno == EINTR);
	close(fd);
	if (n <= 0)
		return -1;
	buf[n] = '\0';
	return n;
}

static uint64_t ticks_to_ns(uint64_t ticks, uint64_t hz)
{
	return ticks / hz * NSEC_PER_SEC + ticks % hz * NSEC_PER_SEC / hz;
}

/* The CPU time of one process in ns, with its reaped children. Tick-sampled
 * utime + stime miss most of the time of processes that run in bursts far
 * shorter than a tick (the members of a large cpu ring); the scheduler's own
 * sum in schedstat does not, so the larger of the two is taken. */
static int group_read_pid(int proc_fd, const char *pid, uint64_t hz, pid_t *pgrp, uint64_t *ns)
{
	char path[64], buf[1024];
	uint64_t own, children, run_ns;

	snprintf(path, sizeof path, "%s/stat", pid);
	if (read_at(proc_fd, path, buf, sizeof buf) < 0 ||
	    procfs_parse_pid_stat(buf, pgrp, &own, &children) < 0)
		return -1;
	*ns = ticks_to_ns(own, hz);
	snprintf(path, sizeof path, "%s/schedstat", pid);
	if (read_at(proc_fd, path, buf, sizeof buf) > 0 && scan_u64(buf, &run_ns) != NULL &&
	    run_ns > *ns)
		*ns = run_ns;
	*ns += ticks_to_ns(children, hz);
	return 0;
}

int procfs_group_usage(const pid_t *pgids, int n, uint64_t *cpu_ns, int *nprocs)
{
	long clk_tck = sysconf(_SC_CLK_TCK);
	uint64_t hz = clk_tck > 0 ? (uint64_t)clk_tck : 100;
	struct dirent *de;
	DIR *dir;

	for (int i = 0; i < n; i++) {
		cpu_ns[i] = 0;
		nprocs[i] = 0;
	}
	dir = opendir("/proc");
	if (dir == NULL)
		return -1;
	while ((de = readdir(dir)) != NULL) {
		uint64_t ns;
		pid_t pgrp;
		int i;

		/* A process that exits mid-scan is simply not counted. */
		if (!all_digits(de->d_name) ||
		    group_read_pid(dirfd(dir), de->d_name, hz, &pgrp, &ns) < 0)
			continue;
		for (i = 0; i < n; i++)
			if (pgids[i] == pgrp)
				break;
		if (i == n)
			continue;
		cpu_ns[i] += ns;
		nprocs[i]++;
	}
	closedir(dir);
	return 0;
}

void sys_sampler_init(struct sys_sampler *ss)
{
	memset(ss, 0, sizeof *ss);
}

/* Counters that go backwards (a reset, a wrap) give 0, not a huge figure. */
static uint64_t sat_delta(uint64_t now, uint64_t before)
{
	return now > before ? now - before : 0;
}

int sys_sampler_feed(struct sys_sampler *ss, const struct proc_stat *stat,
		     const struct psi_totals psi[3], const bool psi_ok[3], int64_t mono,
		     struct sys_sample *out)
{
	bool was_primed = ss->primed;
	struct sys_sampler prev = *ss;
	double *some[3] = { &out->psi_cpu_some, &out->psi_mem_some, &out->psi_io_some };
	double *full[3] = { &out->psi_cpu_full, &out->psi_mem_full, &out->psi_io_full };
	uint64_t dbusy, dtotal;
	double dt_us;

	ss->stat = *stat;
	for (int i = 0; i < 3; i++) {
		ss->psi_ok[i] = psi_ok[i];
		if (psi_ok[i])
			ss->psi[i] = psi[i];
	}
	ss->mono = mono;
	ss->primed = true;
	if (!was_primed)
		return -1;

	dt_us = mono > prev.mono ? (double)(mono - prev.mono) / 1000.0 : 0;
	dbusy = sat_delta(stat->busy, prev.stat.busy);
	dtotal = sat_delta(stat->total, prev.stat.total);
	out->cpu_busy_pct = dtotal ? (double)dbusy / (double)dtotal * 100.0 : 0;
	if (out->cpu_busy_pct > 100)
		out->cpu_busy_pct = 100;
	out->ctxt_per_s = dt_us > 0 ? (double)sat_delta(stat->ctxt, prev.stat.ctxt) / dt_us * 1e6
				    : 0;

	for (int i = 0; i < 3; i++) {
		*some[i] = NAN;
		*full[i] = NAN;
		if (!psi_ok[i] || !prev.psi_ok[i] || dt_us <= 0)
			continue;
		*some[i] = (double)sat_delta(psi[i].some_us, prev.psi[i].some_us) / dt_us * 100.0;
		if (psi[i].has_full && prev.psi[i].has_full)
			*full[i] = (double)sat_delta(psi[i].full_us, prev.psi[i].full_us) / dt_us *
				   100.0;
	}
	return 0;
}

int sys_sampler_take(struct sys_sampler *ss, struct sys_sample *out)
{
	struct psi_totals psi[3];
	struct proc_stat stat;
	struct meminfo mi;
	bool psi_ok[3];
	int64_t mono;

	if (procfs_read_stat(&stat) < 0)
		return -1;
	for (int i = 0; i < 3; i++)
		psi_ok[i] = procfs_read_psi(psi_resources[i], &psi[i]) == 0;
	mono = mono_ns();

	memset(out, 0, sizeof *out);
	if (sys_sampler_feed(ss, &stat, psi, psi_ok, mono, out) < 0)
		return -1;
	out->t = wall_now();
	if (procfs_read_loadavg(&out->load1) < 0)
		out->load1 = NAN;
	if (procfs_read_meminfo(&mi) == 0) {
		out->mem_available = mi.mem_available;
		out->swap_used = sat_delta(mi.swap_total, mi.swap_free);
	}
	return 0;
}
