// SPDX-License-Identifier: GPL-2.0-or-later
/* change_ci A-ROUND... -- B-ROUND... [--resamples N]: the change statistics
 * of common/change.c on values from the command line, for the reference
 * check in Python. A round is its values joined by commas: 3.1,2.9,3.4.
 * Prints "ratio ci_low ci_high verdict rounds_needed". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "change.h"
#include "xalloc.h"

struct side_in {
	double *v;
	size_t *len;
	size_t n, nrounds;
};

static void add_round(struct side_in *s, const char *arg)
{
	char *copy = xstrdup(arg), *save = NULL, *tok;

	s->len = xreallocarray(s->len, s->nrounds + 1, sizeof *s->len);
	s->len[s->nrounds] = 0;
	for (tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
		s->v = xreallocarray(s->v, s->n + 1, sizeof *s->v);
		s->v[s->n++] = strtod(tok, NULL);
		s->len[s->nrounds]++;
	}
	s->nrounds++;
	free(copy);
}

int main(int argc, char **argv)
{
	static const char *const names[] = { "untestable", "equivalent", "lower", "higher",
					     "inconclusive" };
	struct side_in in[2] = { { 0 } };
	struct change_opts o;
	struct change c;
	int i, side = 0;

	change_opts_default(&o);
	for (i = 1; i < argc; i++) {
		if (strcmp(argv[i], "--") == 0)
			side = 1;
		else if (strcmp(argv[i], "--resamples") == 0 && i + 1 < argc)
			o.resamples = (unsigned)strtoul(argv[++i], NULL, 10);
		else
			add_round(&in[side], argv[i]);
	}
	{
		struct rounds a = { in[0].v, in[0].len, in[0].nrounds };
		struct rounds b = { in[1].v, in[1].len, in[1].nrounds };

		change_estimate(&a, &b, &o, &c);
	}
	printf("%.9g %.9g %.9g %s %zu\n", c.ratio, c.ci_low, c.ci_high, names[c.verdict],
	       c.rounds_needed);
	for (i = 0; i < 2; i++) {
		free(in[i].v);
		free(in[i].len);
	}
	return 0;
}
