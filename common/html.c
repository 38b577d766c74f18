// SPDX-License-Identifier: GPL-2.0-or-later
#include "html.h"

#include <stdarg.h>
#include <string.h>

void html_text(FILE *out, const char *s)
{
	for (; s != NULL && *s != '\0'; s++) {
		switch (*s) {
		case '&': fputs("&amp;", out); break;
		case '<': fputs("&lt;", out); break;
		case '>': fputs("&gt;", out); break;
		case '"': fputs("&quot;", out); break;
		case '\'': fputs("&#39;", out); break;
		default: fputc(*s, out);
		}
	}
}

void html_raw(FILE *out, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vfprintf(out, fmt, ap);
	va_end(ap);
}

/* Printable, on screen and paper, with no external file: system fonts only. */
static const char style_sheet[] =
	"body{font-family:sans-serif;margin:1.5em auto;max-width:75em;padding:0 1em;color:#222}\n"
	"h1{font-size:1.5em}h2{font-size:1.2em;margin-top:2em;border-bottom:1px solid #ccc}\n"
	"table{border-collapse:collapse;margin:.5em 0;font-size:.9em}\n"
	"th,td{padding:.2em .6em;border-bottom:1px solid #e4e4e4;text-align:right}\n"
	"th{background:#f2f2f2}td.l,th.l{text-align:left}\n"
	"tr.invalid td{background:#fde4e4}tr.weak td{background:#fff4d6}\n"
	"tr.baseline td{background:#e6f0fb}\n"
	".mark{font-weight:bold;color:#a00}.weakmark{font-weight:bold;color:#8a5a00}\n"
	"dl.facts{display:grid;grid-template-columns:max-content auto;gap:.1em 1em}\n"
	"dl.facts dt{font-weight:bold}dl.facts dd{margin:0}\n"
	"figure{margin:1em 0;break-inside:avoid}figure svg{max-width:100%;height:auto}\n"
	"figcaption{font-size:.9em;color:#444}\n"
	"div.wide{overflow-x:auto}td.verdict{font-weight:bold}\n"
	"p.missing{color:#a00}pre{background:#f6f6f6;padding:.5em;overflow-x:auto}\n"
	"@media print{body{max-width:none}h2{break-after:avoid}}\n";

void html_page_begin(FILE *out, const char *title)
{
	fputs("<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
	      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
	      "style-src 'unsafe-inline'; img-src data:\">\n"
	      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
	      "<title>",
	      out);
	html_text(out, title);
	fprintf(out, "</title>\n<style>\n%s</style>\n</head>\n<body>\n", style_sheet);
}

void html_page_end(FILE *out)
{
	fputs("</body>\n</html>\n", out);
}

/* The id-bearing forms gnuplot writes, and what each becomes. */
static const char *const id_forms[] = { "id='", "id=\"", "href='#", "href=\"#", "url(#" };

void html_inline_svg(FILE *out, const char *svg, size_t len, const char *prefix)
{
	const char *p = memmem(svg, len, "<svg", 4), *end = svg + len;
	size_t i;

	if (p == NULL)
		return;
	while (p < end) {
		for (i = 0; i < sizeof id_forms / sizeof id_forms[0]; i++) {
			size_t n = strlen(id_forms[i]);

			if ((size_t)(end - p) >= n && memcmp(p, id_forms[i], n) == 0) {
				fwrite(p, 1, n, out);
				fputs(prefix, out);
				p += n;
				break;
			}
		}
		if (i == sizeof id_forms / sizeof id_forms[0])
			fputc(*p++, out);
	}
	fputc('\n', out);
}
