// SPDX-License-Identifier: GPL-2.0-or-later
/* Lines of text with a style class per byte: what a panel shows, built once
 * and then either drawn with curses or printed plainly. */
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <wchar.h>

#include "term_escape.h"
#include "view.h"
#include "xalloc.h"

bool view_utf8;

void text_reset(struct text *t, int width)
{
	t->n = 0;
	t->sticky = 0;
	t->width = width;
}

void text_free(struct text *t)
{
	free(t->lines);
	memset(t, 0, sizeof *t);
}

struct tline *text_line(struct text *t)
{
	struct tline *l;

	if (t->n == t->cap) {
		t->cap = t->cap ? t->cap * 2 : 16;
		t->lines = xreallocarray(t->lines, t->cap, sizeof *t->lines);
	}
	l = &t->lines[t->n++];
	l->len = 0;
	l->cols = 0;
	return l;
}

/* Length of the UTF-8 sequence at s and its code point; 0 when invalid. */
static void put(struct tline *l, const char *bytes, size_t n, int cols, enum tclass cls)
{
	memcpy(l->s + l->len, bytes, n);
	memset(l->cls + l->len, cls, n);
	l->len += (unsigned short)n;
	l->cols += (unsigned short)cols;
}

void text_add(struct text *t, enum tclass cls, const char *str)
{
	const unsigned char *s = (const unsigned char *)str;
	struct tline *l = t->n ? &t->lines[t->n - 1] : text_line(t);

	while (*s != '\0') {
		uint32_t cp = 0;
		size_t n = 1;
		int w = 1;

		if (*s < 0x20 || *s == 0x7f) {
			s++;
			if (l->cols + 1 > t->width || l->len + 1 > TLINE_BYTES)
				return;
			put(l, "?", 1, 1, cls);
			continue;
		}
		if (*s >= 0x80) {
			n = view_utf8 ? utf8_decode(s, strnlen((const char *)s, 4), &cp) : 0;
			w = n ? wcwidth((wchar_t)cp) : -1;
			if (w < 0) {
				/* Not printable here: one '?' for the byte. */
				s++;
				if (l->cols + 1 > t->width || l->len + 1 > TLINE_BYTES)
					return;
				put(l, "?", 1, 1, cls);
				continue;
			}
		}
		if (l->cols + w > t->width || l->len + n > TLINE_BYTES)
			return;
		put(l, (const char *)s, n, w, cls);
		s += n;
	}
}

void text_addf(struct text *t, enum tclass cls, const char *fmt, ...)
{
	char buf[TLINE_BYTES];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	text_add(t, cls, buf);
}

void text_pad(struct text *t, int col)
{
	struct tline *l = t->n ? &t->lines[t->n - 1] : text_line(t);

	/* A field wider than its column still gets one blank after it. */
	if (l->len > 0 && l->cols >= col && l->s[l->len - 1] != ' ')
		col = l->cols + 1;
	if (col > t->width)
		col = t->width;
	while (l->cols < col && l->len < TLINE_BYTES)
		put(l, " ", 1, 1, TC_NORMAL);
}

bool text_equal(const struct text *a, const struct text *b)
{
	if (a->n != b->n || a->sticky != b->sticky || a->width != b->width)
		return false;
	for (size_t i = 0; i < a->n; i++) {
		const struct tline *x = &a->lines[i], *y = &b->lines[i];
		if (x->len != y->len || memcmp(x->s, y->s, x->len) != 0 ||
		    memcmp(x->cls, y->cls, x->len) != 0)
			return false;
	}
	return true;
}

void text_copy(struct text *dst, const struct text *src)
{
	if (dst->cap < src->n) {
		dst->cap = src->n;
		dst->lines = xreallocarray(dst->lines, dst->cap, sizeof *dst->lines);
	}
	dst->n = src->n;
	dst->sticky = src->sticky;
	dst->width = src->width;
	for (size_t i = 0; i < src->n; i++) {
		const struct tline *l = &src->lines[i];
		struct tline *d = &dst->lines[i];
		d->len = l->len;
		d->cols = l->cols;
		memcpy(d->s, l->s, l->len);
		memcpy(d->cls, l->cls, l->len);
	}
}
