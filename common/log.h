// SPDX-License-Identifier: GPL-2.0-or-later
/* Logging to stderr (or a log file once daemonised). Debug messages cost one
 * branch when debug output is off. */
#ifndef LOADD_LOG_H
#define LOADD_LOG_H

#include <stdio.h>

enum log_level { LOG_DEBUG, LOG_INFO, LOG_WARN, LOG_ERROR };

extern int log_debug_enabled;

void log_init(const char *progname, int verbose);
void log_set_file(FILE *fp);
const char *log_progname(void);
void log_msg(enum log_level level, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Exit with status 1 after a message; fatal() appends strerror(errno). */
void fatal(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
void fatalx(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));

#define log_debug(...)                                                                             \
	do {                                                                                       \
		if (log_debug_enabled)                                                             \
			log_msg(LOG_DEBUG, __VA_ARGS__);                                           \
	} while (0)
#define log_info(...) log_msg(LOG_INFO, __VA_ARGS__)
#define log_warn(...) log_msg(LOG_WARN, __VA_ARGS__)
#define log_error(...) log_msg(LOG_ERROR, __VA_ARGS__)

#endif
