// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers for building JSON documents with jansson: a figure that does not
 * exist is null, never 0, and running out of memory is fatal. */
#ifndef LOADD_JSON_BUILD_H
#define LOADD_JSON_BUILD_H

#include <jansson.h>

/* NaN and infinities become null. */
json_t *json_real_or_null(double v);
/* A string from a database or a profile: null for NULL, and invalid UTF-8
 * (which JSON cannot carry) replaced by U+FFFD, one per bad byte. */
json_t *json_text(const char *s);
/* Sets obj[key] = value, taking value's reference. */
void json_set(json_t *obj, const char *key, json_t *value);

#endif
