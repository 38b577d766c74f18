// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer: the profile parser on any text, with the loaders' validation,
 * and the duration and size parsers on its first line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "loader.h"
#include "log.h"
#include "parse.h"
#include "probe.h"
#include "profile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Every loader's options are checked, but not the machine: a load without a
 * line (as the built-in defaults are) skips looking for dbench and reading
 * its whole loadfile, which is not the parsing fuzzed here and took seconds
 * an input under coverage instrumentation. */
static int validate_offline(struct load_def *def, const char *file, FILE *errs)
{
	int line = def->line, problems;

	def->line = 0;
	problems = loader_validate(def, file, errs);
	def->line = line;
	return problems;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const struct profile_checks checks = { validate_offline, probe_kind_find,
						      probe_names };
	static int quiet;
	char *text = malloc(size + 1);
	struct profile p;
	struct size_spec sz;
	const char *why;
	int64_t ms;
	char *nl;

	if (!quiet) {
		log_init("fuzz_profile", -1);
		quiet = 1;
	}
	if (text == NULL)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	if (profile_parse_text("fuzz.conf", text, &p, &checks, NULL) == 0)
		profile_free(&p);
	if ((nl = strchr(text, '\n')) != NULL)
		*nl = '\0';
	parse_duration_ms(text, &ms, &why);
	parse_size(text, &sz, &why);
	free(text);
	return 0;
}
