// SPDX-License-Identifier: GPL-2.0-or-later
/* Reading the IPC message limits (see ipc_limits.h). */
#include "ipc_limits.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "procfs.h"
#include "xalloc.h"

static long read_limit(const char *proc_root, const char *rel)
{
	char *path = xasprintf("%s/sys/%s", proc_root, rel);
	char text[64], *end;
	ssize_t n = read_small_file(path, text, sizeof text);
	long v;

	free(path);
	if (n <= 0)
		return 0;
	v = strtol(text, &end, 10);
	if (end == text || v < 0 || (*end != '\n' && *end != '\0'))
		return 0;
	return v;
}

void ipc_limits_read(const char *proc_root, struct ipc_limits *out)
{
	out->mq_msgsize_max = read_limit(proc_root, "fs/mqueue/msgsize_max");
	out->mq_msg_max = read_limit(proc_root, "fs/mqueue/msg_max");
	out->msgmax = read_limit(proc_root, "kernel/msgmax");
	out->msgmnb = read_limit(proc_root, "kernel/msgmnb");
}

const char *ipc_limit_sysctl(const char *via)
{
	if (strcmp(via, "posixmq") == 0)
		return "fs.mqueue.msgsize_max";
	if (strcmp(via, "sysvmq") == 0)
		return "kernel.msgmax";
	return NULL;
}

long ipc_limit_for(const struct ipc_limits *l, const char *via, const char **sysctl)
{
	long v = strcmp(via, "posixmq") == 0  ? l->mq_msgsize_max
		 : strcmp(via, "sysvmq") == 0 ? l->msgmax
					      : 0;

	*sysctl = v > 0 ? ipc_limit_sysctl(via) : NULL;
	return v;
}
