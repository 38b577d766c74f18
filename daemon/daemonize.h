// SPDX-License-Identifier: GPL-2.0-or-later
/* Running as a service. loadd stays in the foreground by default (as systemd
 * runs it); --daemon detaches it the classic way (double fork, setsid), with
 * one difference: the process started from the terminal waits until the
 * daemon says it runs, so every start-up error still reaches the terminal
 * and the exit status. */
#ifndef LOADD_DAEMONIZE_H
#define LOADD_DAEMONIZE_H

#include <stdio.h>

/* Closes every descriptor above stderr the caller inherited, then detaches.
 * Returns in the daemon only. The calling process exits there: 0 once the
 * daemon calls daemon_ready(), 1 when the daemon dies before. */
void daemon_start(void);
/* The daemon runs: stdin and stdout go to /dev/null, stderr to log (so a
 * crash report lands there too), the cwd to /; the waiting process exits 0. */
void daemon_ready(FILE *log);

/* Defaults: /run/loadd/loadd.pid and /var/log/loadd.log as root; otherwise
 * $XDG_RUNTIME_DIR/loadd.pid (else <workdir>/loadd.pid) and <workdir>/loadd.log.
 * xmalloc'd, absolute. */
char *daemon_default_pidfile(const char *workdir);
char *daemon_default_log(const char *workdir);

/* Writes our pid to path and keeps it locked while loadd runs (a second
 * loadd given the same path is refused); its directory is checked first.
 * 0, or -1 with an xmalloc'd message in *err. */
int pidfile_write(const char *path, char **err);
/* Removes path if it still holds our pid. */
void pidfile_remove(const char *path);
/* Opens the log for appending, line-buffered, never through a symbolic
 * link, and only a plain file of loadd's user. NULL with *err. */
FILE *log_file_open(const char *path, char **err);

#endif
