// SPDX-License-Identifier: GPL-2.0-or-later
/* The system's limits on IPC messages, read from /proc/sys, so that an IPC
 * probe never tries a size the kernel refuses and says which sysctl stops
 * it: a POSIX queue's message is at most fs.mqueue.msgsize_max bytes (for an
 * unprivileged process: loadd keeps to it as root too, so that figures do
 * not depend on who ran them), a System V message at most kernel.msgmax, and
 * a System V queue holds kernel.msgmnb bytes. */
#ifndef LOADD_IPC_LIMITS_H
#define LOADD_IPC_LIMITS_H

struct ipc_limits {
	long mq_msgsize_max; /* fs.mqueue.msgsize_max; 0 when unknown */
	long mq_msg_max;     /* fs.mqueue.msg_max: messages a POSIX queue holds */
	long msgmax;         /* kernel.msgmax */
	long msgmnb;         /* kernel.msgmnb */
};

/* Reads them under proc_root ("/proc", or a test's fake tree); a file that
 * cannot be read or parsed leaves its figure 0 (unknown). */
void ipc_limits_read(const char *proc_root, struct ipc_limits *out);

/* The largest message the mechanism `via` (an IPC probe's via: "posixmq",
 * "sysvmq", "pipe" ...) carries, with the sysctl that sets it; 0 (and
 * *sysctl NULL) when no sysctl caps it or its figure is unknown. */
long ipc_limit_for(const struct ipc_limits *l, const char *via, const char **sysctl);

/* The sysctl that caps a message of `via`, NULL for none: its name alone,
 * for a report of a record that kept only the limit's figure. */
const char *ipc_limit_sysctl(const char *via);

#endif
