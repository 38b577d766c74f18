// SPDX-License-Identifier: GPL-2.0-or-later
#include "log.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int log_debug_enabled;
static const char *log_prog = "loadd";
static FILE *log_fp;
static int log_timestamps;

void log_init(const char *progname, int verbose)
{
	log_prog = progname;
	log_debug_enabled = verbose > 0;
}

/* A log file gets timestamps; a terminal or journald adds its own. */
void log_set_file(FILE *fp)
{
	log_fp = fp;
	log_timestamps = fp != NULL;
}

const char *log_progname(void)
{
	return log_prog;
}

static void log_vmsg(enum log_level level, const char *fmt, va_list ap, int err)
{
	static const char *const prefix[] = { "debug: ", "", "warning: ", "error: " };
	FILE *fp = log_fp ? log_fp : stderr;
	char stamp[32] = "";

	if (log_timestamps) {
		time_t now = time(NULL);
		struct tm tm;
		localtime_r(&now, &tm);
		strftime(stamp, sizeof stamp, "%Y-%m-%d %H:%M:%S ", &tm);
	}
	fprintf(fp, "%s%s: %s", stamp, log_prog, prefix[level]);
	vfprintf(fp, fmt, ap);
	if (err)
		fprintf(fp, ": %s", strerror(err));
	fputc('\n', fp);
	fflush(fp);
}

void log_msg(enum log_level level, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(level, fmt, ap, 0);
	va_end(ap);
}

void fatal(const char *fmt, ...)
{
	int err = errno;
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERROR, fmt, ap, err);
	va_end(ap);
	exit(1);
}

void fatalx(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	log_vmsg(LOG_ERROR, fmt, ap, 0);
	va_end(ap);
	exit(1);
}
