// SPDX-License-Identifier: GPL-2.0-or-later
#include "gnuplot.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "write_all.h"
#include "xalloc.h"

char *gnuplot_label(const char *s)
{
	char *out = xstrdup(s ? s : "");

	for (char *p = out; *p != '\0'; p++) {
		unsigned char c = (unsigned char)*p;

		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
		      strchr(" -_.,:+/=()@", c) != NULL))
			*p = '_';
	}
	return out;
}

/* Everything in a memfd from its start, NUL-terminated. */
static char *memfd_slurp(int fd, size_t *len)
{
	struct stat st;
	char *buf;
	size_t got = 0;

	if (fstat(fd, &st) < 0 || lseek(fd, 0, SEEK_SET) < 0)
		return NULL;
	buf = xmalloc((size_t)st.st_size + 1);
	while (got < (size_t)st.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)st.st_size - got);

		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		got += (size_t)n;
	}
	buf[got] = '\0';
	*len = got;
	return buf;
}

/* Fonts by family name only, so the output is the same wherever it is
 * made; "dynamic" lets the page scale an SVG. */
static char *terminal_line(enum plot_format format, int width, int height)
{
	if (format == PLOT_PNG)
		return xasprintf("set terminal pngcairo size %d,%d font 'sans,10' "
				 "background '#ffffff'\n",
				 width, height);
	return xasprintf("set terminal svg size %d,%d dynamic font 'sans,10' "
			 "background '#ffffff'\n",
			 width, height);
}

/* Runs gnuplot with stdin, stdout and stderr on the three memfds; its
 * wait status, or -1 when it could not be started. */
static int run_gnuplot(int in, int out, int errfd)
{
	const char *prog = getenv("GNUPLOT");
	pid_t pid;
	int status;

	if (prog == NULL || *prog == '\0')
		prog = "gnuplot";
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (dup2(in, 0) < 0 || dup2(out, 1) < 0 || dup2(errfd, 2) < 0)
			_exit(127);
		execlp(prog, prog, (char *)NULL);
		dprintf(2, "cannot run %s: %s (install gnuplot-nox)", prog, strerror(errno));
		_exit(127);
	}
	while (waitpid(pid, &status, 0) < 0)
		if (errno != EINTR)
			return -1;
	return status;
}

int gnuplot_render(const char *script, size_t script_len, enum plot_format format, int width,
		   int height, char **out, size_t *len, char **err)
{
	int in = memfd_create("gnuplot-in", MFD_CLOEXEC);
	int outfd = memfd_create("gnuplot-out", MFD_CLOEXEC);
	int errfd = memfd_create("gnuplot-err", MFD_CLOEXEC);
	char *head = terminal_line(format, width, height);
	int status, rc = -1;
	size_t elen;
	char *emsg;

	*out = NULL;
	*len = 0;
	*err = NULL;
	if (in < 0 || outfd < 0 || errfd < 0) {
		*err = xasprintf("memfd_create: %s", strerror(errno));
		goto done;
	}
	if (write_all(in, head, strlen(head)) < 0 || write_all(in, script, script_len) < 0 ||
	    lseek(in, 0, SEEK_SET) < 0) {
		*err = xasprintf("writing the plot script: %s", strerror(errno));
		goto done;
	}
	status = run_gnuplot(in, outfd, errfd);
	emsg = memfd_slurp(errfd, &elen);
	if (status < 0) {
		*err = xasprintf("cannot start gnuplot: %s", strerror(errno));
	} else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		size_t n = emsg ? strlen(emsg) : 0;

		while (n > 0 && (emsg[n - 1] == '\n' || emsg[n - 1] == ' '))
			emsg[--n] = '\0';
		*err = xasprintf("gnuplot failed: %s", n ? emsg : "no message");
	} else if ((*out = memfd_slurp(outfd, len)) == NULL || *len == 0) {
		free(*out);
		*out = NULL;
		*err = xstrdup("gnuplot drew nothing");
	} else {
		rc = 0;
	}
	free(emsg);
done:
	free(head);
	if (in >= 0)
		close(in);
	if (outfd >= 0)
		close(outfd);
	if (errfd >= 0)
		close(errfd);
	return rc;
}
