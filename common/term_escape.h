// SPDX-License-Identifier: GPL-2.0-or-later
/* Strings that came from a database, a profile or a child's output, made safe
 * to print on a terminal or into a one-line log: control characters, escape
 * sequences (ESC, C1 controls), bidirectional overrides and invalid UTF-8 are
 * shown escaped (\e is "\x1b", a lone 0xff byte "\xff", U+202E "\u{202e}"),
 * and a backslash as "\\" so an escape always reads back unambiguously.
 * Printable ASCII and valid printable UTF-8 pass unchanged. */
#ifndef LOADD_TERM_ESCAPE_H
#define LOADD_TERM_ESCAPE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

enum term_escape_flags {
	/* Keep newline and tab as they are (multi-line text such as a profile);
	 * otherwise they are shown as "\n" and "\t", keeping output one line. */
	TERM_ESCAPE_KEEP_LINES = 1 << 0,
	/* Leave a backslash single: for output already escaped field by field. */
	TERM_ESCAPE_KEEP_BACKSLASH = 1 << 1,
};

/* Escapes n bytes of s (NULs included) into dst of cap bytes; always ends dst
 * with a NUL when cap > 0 and never cuts an escape or a character in half.
 * Returns the length written, without the NUL. */
size_t term_escape_buf(char *dst, size_t cap, const char *s, size_t n, unsigned flags);

/* xmalloc'd escaped copies; NULL prints as "" (an empty string). */
char *term_escape_n(const char *s, size_t n, unsigned flags);
char *term_escape(const char *s);

/* Writes s escaped (flags as above) to f. */
void term_escape_fputs(const char *s, unsigned flags, FILE *f);

/* Replaces stdout by a stream that escapes whatever reaches it (keeping
 * lines, tabs and backslashes): a guard for a command's text output, so a
 * string that no field-level escaping caught still cannot reach the terminal
 * raw. Machine output (CSV, JSON) must not go through it. */
void term_guard_stdout(void);

/* Length of the valid, shortest-form UTF-8 character at s (at most n bytes):
 * 1 for ASCII, 0 when the bytes are not valid UTF-8. */
size_t utf8_char_len(const char *s, size_t n);

/* True when s would print unchanged. */
bool term_is_safe(const char *s);

/* Decodes one UTF-8 character of at most n bytes into *cp: its length, or 0
 * where it is not valid UTF-8 (overlong forms and surrogates included). */
size_t utf8_decode(const unsigned char *s, size_t n, uint32_t *cp);

#endif
