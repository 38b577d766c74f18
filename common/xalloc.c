// SPDX-License-Identifier: GPL-2.0-or-later
#include "xalloc.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"

void *xmalloc(size_t size)
{
	void *p = malloc(size ? size : 1);
	if (p == NULL)
		fatalx("out of memory allocating %zu bytes", size);
	return p;
}

void *xcalloc(size_t nmemb, size_t size)
{
	void *p = calloc(nmemb ? nmemb : 1, size ? size : 1);
	if (p == NULL)
		fatalx("out of memory allocating %zu x %zu bytes", nmemb, size);
	return p;
}

void *xrealloc(void *ptr, size_t size)
{
	void *p = realloc(ptr, size ? size : 1);
	if (p == NULL)
		fatalx("out of memory reallocating to %zu bytes", size);
	return p;
}

void *xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void *p = reallocarray(ptr, nmemb ? nmemb : 1, size ? size : 1);
	if (p == NULL)
		fatalx("out of memory reallocating to %zu x %zu bytes", nmemb, size);
	return p;
}

char *xstrdup(const char *s)
{
	char *p = strdup(s);
	if (p == NULL)
		fatalx("out of memory copying a string");
	return p;
}

char *xstrndup(const char *s, size_t n)
{
	char *p = strndup(s, n);
	if (p == NULL)
		fatalx("out of memory copying a string");
	return p;
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;

	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		fatalx("out of memory formatting a string");
	va_end(ap);
	return s;
}

void str_append(char **s, const char *sep, const char *fmt, ...)
{
	va_list ap;
	char *add, *joined;

	va_start(ap, fmt);
	if (vasprintf(&add, fmt, ap) < 0)
		fatalx("out of memory formatting a string");
	va_end(ap);
	if (*s == NULL || **s == '\0') {
		free(*s);
		*s = add;
		return;
	}
	joined = xasprintf("%s%s%s", *s, sep, add);
	free(*s);
	free(add);
	*s = joined;
}
