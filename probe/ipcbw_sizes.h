// SPDX-License-Identifier: GPL-2.0-or-later
/* The message sizes of an ipcbw probe: its `sizes` option ("1K-64K", powers
 * of two; or "1K, 4K, 64K") parsed into a list, and written back for
 * labels. The list's order is the samples' variant. */
#ifndef LOADD_IPCBW_SIZES_H
#define LOADD_IPCBW_SIZES_H

#include <stddef.h>

#define IPCBW_SIZES_MAX 16
#define IPCBW_SIZE_LARGEST (1024L * 1024)

struct ipcbw_sizes {
	int n;
	long bytes[IPCBW_SIZES_MAX]; /* rising */
};

/* The option's parser (OPT_CUSTOM): 0, or -1 with *err. */
int ipcbw_sizes_parse(const char *value, void *dst, const char **err);
long ipcbw_sizes_max(const struct ipcbw_sizes *s);
/* "64K", "1M", "1000" */
void ipcbw_size_label(long bytes, char *buf, size_t len);
/* "1K, 2K, 4K" */
void ipcbw_sizes_format(const struct ipcbw_sizes *s, char *buf, size_t len);

#endif
