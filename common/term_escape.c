// SPDX-License-Identifier: GPL-2.0-or-later
#include "term_escape.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "write_all.h"
#include "xalloc.h"

/* The longest escape one input character can become: "\u{10ffff}". */
#define ESCAPE_MAX 10

/* Length of the valid UTF-8 sequence at s (at most n bytes) and its code
 * point; 0 when the bytes are not valid, shortest-form UTF-8. */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp)
{
	size_t len, i;
	uint32_t c = s[0];

	if (c < 0x80) {
		*cp = c;
		return 1;
	}
	if (c >= 0xc2 && c <= 0xdf) {
		len = 2;
		c &= 0x1f;
	} else if (c >= 0xe0 && c <= 0xef) {
		len = 3;
		c &= 0x0f;
	} else if (c >= 0xf0 && c <= 0xf4) {
		len = 4;
		c &= 0x07;
	} else {
		return 0;
	}
	if (len > n)
		return 0;
	for (i = 1; i < len; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		c = c << 6 | (s[i] & 0x3f);
	}
	/* Overlong 3- and 4-byte forms, surrogates and beyond U+10FFFF. */
	if ((len == 3 && c < 0x800) || (len == 4 && (c < 0x10000 || c > 0x10ffff)) ||
	    (c >= 0xd800 && c <= 0xdfff))
		return 0;
	*cp = c;
	return len;
}

size_t utf8_char_len(const char *s, size_t n)
{
	uint32_t cp;

	return n == 0 ? 0 : utf8_decode((const unsigned char *)s, n, &cp);
}

/* Code points a terminal acts on or that reorder what is shown: C1 controls
 * (U+009B is a one-character CSI), line/paragraph separators, bidirectional
 * embeddings, overrides and isolates, and the BOM / zero-width no-break. */
static bool hostile_code_point(uint32_t c)
{
	return (c >= 0x80 && c <= 0x9f) || c == 0x2028 || c == 0x2029 ||
	       (c >= 0x200e && c <= 0x200f) || (c >= 0x202a && c <= 0x202e) ||
	       (c >= 0x2066 && c <= 0x2069) || c == 0xfeff;
}

/* The escape for one input character at s into out (ESCAPE_MAX + 1 bytes);
 * returns how many input bytes it used and sets *out_len. */
static size_t escape_one(const unsigned char *s, size_t n, unsigned flags, char *out,
			 size_t *out_len)
{
	uint32_t cp;
	size_t used;
	unsigned char c = s[0];

	if (c == '\\' && !(flags & TERM_ESCAPE_KEEP_BACKSLASH)) {
		memcpy(out, "\\\\", 2);
		*out_len = 2;
		return 1;
	}
	if (c == '\n' || c == '\t') {
		if (flags & TERM_ESCAPE_KEEP_LINES) {
			out[0] = (char)c;
			*out_len = 1;
		} else {
			memcpy(out, c == '\n' ? "\\n" : "\\t", 2);
			*out_len = 2;
		}
		return 1;
	}
	if (c < 0x20 || c == 0x7f) {
		*out_len = (size_t)snprintf(out, ESCAPE_MAX + 1, "\\x%02x", c);
		return 1;
	}
	if (c < 0x80) {
		out[0] = (char)c;
		*out_len = 1;
		return 1;
	}
	used = utf8_decode(s, n, &cp);
	if (used == 0) {
		*out_len = (size_t)snprintf(out, ESCAPE_MAX + 1, "\\x%02x", c);
		return 1;
	}
	if (hostile_code_point(cp)) {
		*out_len = (size_t)snprintf(out, ESCAPE_MAX + 1, "\\u{%x}", (unsigned)cp);
		return used;
	}
	memcpy(out, s, used);
	*out_len = used;
	return used;
}

size_t term_escape_buf(char *dst, size_t cap, const char *s, size_t n, unsigned flags)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t len = 0, i = 0;

	if (cap == 0)
		return 0;
	while (s != NULL && i < n) {
		char piece[ESCAPE_MAX + 1];
		size_t piece_len;
		size_t used = escape_one(p + i, n - i, flags, piece, &piece_len);

		if (len + piece_len + 1 > cap)
			break;
		memcpy(dst + len, piece, piece_len);
		len += piece_len;
		i += used;
	}
	dst[len] = '\0';
	return len;
}

char *term_escape_n(const char *s, size_t n, unsigned flags)
{
	/* Each input byte becomes at most 4 output bytes ("\xff"); a hostile code
	 * point of 2 or 3 bytes at most 8 ("\u{202e}"). */
	size_t cap = n * 4 + 1;
	char *out = xmalloc(cap);

	term_escape_buf(out, cap, s, n, flags);
	return out;
}

char *term_escape(const char *s)
{
	return term_escape_n(s, s ? strlen(s) : 0, 0);
}

void term_escape_fputs(const char *s, unsigned flags, FILE *f)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = s ? strlen(s) : 0, i = 0;

	while (i < n) {
		char piece[ESCAPE_MAX + 1];
		size_t piece_len;

		i += escape_one(p + i, n - i, flags, piece, &piece_len);
		fwrite(piece, 1, piece_len, f);
	}
}

bool term_is_safe(const char *s)
{
	const unsigned char *p = (const unsigned char *)s;
	size_t n = strlen(s), i = 0;

	while (i < n) {
		char piece[ESCAPE_MAX + 1];
		size_t piece_len, used = escape_one(p + i, n - i, 0, piece, &piece_len);

		if (piece_len != used || memcmp(piece, p + i, used) != 0)
			return false;
		i += used;
	}
	return true;
}

/* The guard on stdout: a UTF-8 character cut between two writes is held
 * back until the rest of it arrives. */
struct term_guard {
	int fd;
	unsigned char held[4];
	size_t nheld;
};

/* How many bytes at the end of s[0..n) start a UTF-8 character that is not
 * complete yet (0 when none). */
static size_t incomplete_tail(const unsigned char *s, size_t n)
{
	for (size_t back = 1; back <= 3 && back <= n; back++) {
		unsigned char c = s[n - back];
		size_t need = c >= 0xf0 ? 4 : c >= 0xe0 ? 3 : c >= 0xc2 ? 2 : 0;

		if ((c & 0xc0) == 0x80)
			continue;
		return need > back ? back : 0;
	}
	return 0;
}

static ssize_t guard_write(void *cookie, const char *buf, size_t n)
{
	struct term_guard *g = cookie;
	unsigned flags = TERM_ESCAPE_KEEP_LINES | TERM_ESCAPE_KEEP_BACKSLASH;
	size_t total = g->nheld + n, tail, cap;
	unsigned char *in = xmalloc(total);
	char *out;
	int rc;

	memcpy(in, g->held, g->nheld);
	memcpy(in + g->nheld, buf, n);
	tail = incomplete_tail(in, total);
	cap = (total - tail) * 4 + 1;
	out = xmalloc(cap);
	rc = write_all(g->fd, out,
		       term_escape_buf(out, cap, (const char *)in, total - tail, flags));
	memcpy(g->held, in + total - tail, tail);
	g->nheld = tail;
	free(out);
	free(in);
	return rc < 0 ? -1 : (ssize_t)n;
}

static int guard_close(void *cookie)
{
	struct term_guard *g = cookie;
	char out[4 * sizeof g->held + 1];
	size_t len = term_escape_buf(out, sizeof out, (const char *)g->held, g->nheld,
				     TERM_ESCAPE_KEEP_LINES | TERM_ESCAPE_KEEP_BACKSLASH);
	int rc = write_all(g->fd, out, len);

	free(g);
	return rc;
}

static FILE *guarded_stdout;

static void guard_flush_at_exit(void)
{
	if (guarded_stdout != NULL)
		fclose(guarded_stdout);
	guarded_stdout = NULL;
}

void term_guard_stdout(void)
{
	static const cookie_io_functions_t io = { .write = guard_write, .close = guard_close };
	struct term_guard *g;
	FILE *f;

	if (guarded_stdout != NULL)
		return;
	fflush(stdout);
	g = xcalloc(1, sizeof *g);
	g->fd = fileno(stdout);
	f = fopencookie(g, "w", io);
	if (f == NULL) {
		free(g);
		return;
	}
	guarded_stdout = stdout = f;
	atexit(guard_flush_at_exit);
}
