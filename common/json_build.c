// SPDX-License-Identifier: GPL-2.0-or-later
#include "json_build.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "term_escape.h"
#include "xalloc.h"

json_t *json_real_or_null(double v)
{
	return isfinite(v) ? json_real(v) : json_null();
}

json_t *json_text(const char *s)
{
	size_t n, i = 0, len = 0;
	char *fixed;
	json_t *j;

	if (s == NULL)
		return json_null();
	n = strlen(s);
	if ((j = json_stringn(s, n)) != NULL)
		return j;
	fixed = xmalloc(n * 3 + 1);
	while (i < n) {
		size_t c = utf8_char_len(s + i, n - i);

		if (c == 0) {
			memcpy(fixed + len, "\xef\xbf\xbd", 3);
			len += 3;
			i++;
		} else {
			memcpy(fixed + len, s + i, c);
			len += c;
			i += c;
		}
	}
	j = json_stringn(fixed, len);
	free(fixed);
	return j;
}

void json_set(json_t *obj, const char *key, json_t *value)
{
	if (value == NULL || json_object_set_new(obj, key, value) < 0)
		fatalx("out of memory building a JSON document");
}
