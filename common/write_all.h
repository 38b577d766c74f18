// SPDX-License-Identifier: GPL-2.0-or-later
/* Writing a whole buffer to a descriptor. */
#ifndef LOADD_WRITE_ALL_H
#define LOADD_WRITE_ALL_H

#include <stddef.h>

/* Writes all len bytes, again after EINTR and short writes. 0, or -1 with
 * errno set (a write of nothing counts as an error: EIO). */
int write_all(int fd, const void *buf, size_t len);

#endif
