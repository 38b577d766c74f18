// SPDX-License-Identifier: GPL-2.0-or-later
/* Allocation helpers that never return NULL: running out of memory in the
 * supervisor is a broken invariant, so they exit with a message instead. */
#ifndef LOADD_XALLOC_H
#define LOADD_XALLOC_H

#include <stddef.h>

void *xmalloc(size_t size);
void *xcalloc(size_t nmemb, size_t size);
void *xrealloc(void *ptr, size_t size);
void *xreallocarray(void *ptr, size_t nmemb, size_t size);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* Appends the formatted text to *s (NULL or empty: becomes it), sep between. */
void str_append(char **s, const char *sep, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

#endif
