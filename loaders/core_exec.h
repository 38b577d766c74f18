// SPDX-License-Identifier: GPL-2.0-or-later
/* Loaders that run an external program (dbench, tar): find it on PATH the
 * way the profile check does, start it as a loader child, read its output
 * line by line, and stop it the way fio's exec engine does. */
#ifndef LOADD_CORE_EXEC_H
#define LOADD_CORE_EXEC_H

#include <sys/types.h>

/* Grace between SIGTERM and SIGKILL for a program a loader runs: within
 * loadd's own grace, so the loader still removes its files after it. */
#define EXEC_GRACE_MS 1000

/* Where execvp() would find name: a name with a slash is taken as it is,
 * anything else is looked up in $PATH (empty entries are the current dir).
 * Returns an xmalloc'd path to an executable regular file, or NULL. */
char *program_find(const char *name);

struct exec_child {
	pid_t pid;
	int out_fd;          /* read end of its stdout and stderr */
	char last_line[256]; /* the last line not handed to the callback, escaped */
};

/* Starts argv[0] (a path, as program_find returns) with stdin from /dev/null
 * and stdout and stderr into a pipe, in the loader's process group, dying with
 * the loader. Returns 0, or -1 with an xmalloc'd message in *err (a program
 * that cannot be executed is caught here, not later as exit status 127). */
int exec_start(char *const argv[], struct exec_child *c, char **err);

/* Called for each output line, without its newline; returns nonzero when it
 * took the line (it is then not kept as last_line). */
typedef int (*exec_line_fn)(void *arg, const char *line);

/* Reads the child's output until it closes it, then reaps it. When the loader
 * is told to stop meanwhile, the child gets SIGTERM, EXEC_GRACE_MS, then
 * SIGKILL, and is reaped. Returns its wait status, or -1 when it was stopped
 * (or could not be reaped). fn may be NULL. */
int exec_finish(struct exec_child *c, exec_line_fn fn, void *arg);

/* "exit status 2", "killed by SIGKILL" */
void exec_status_text(int status, char *buf, size_t len);

#endif
