// SPDX-License-Identifier: GPL-2.0-or-later
#include "batch.h"

#include "timeutil.h"

void batch_print(FILE *fp, const struct snapshot *s, long index, long total)
{
	struct text t = { 0 };
	char when[32];

	format_wall(wall_now(), when, sizeof when);
	if (total > 0)
		fprintf(fp, "=== loadtop snapshot %ld/%ld at %s ===\n", index, total, when);
	else
		fprintf(fp, "=== loadtop snapshot %ld at %s ===\n", index, when);
	for (size_t i = 0; i < panel_count; i++) {
		text_reset(&t, BATCH_WIDTH);
		panel_table[i]->update(s, &t);
		for (size_t j = 0; j < t.n; j++) {
			const struct tline *l = &t.lines[j];
			size_t len = l->len;
			/* Padding is for columns on a screen, not for a file. */
			while (len > 0 && l->s[len - 1] == ' ')
				len--;
			fprintf(fp, "%.*s\n", (int)len, l->s);
		}
		fputc('\n', fp);
	}
	fflush(fp);
	text_free(&t);
}
