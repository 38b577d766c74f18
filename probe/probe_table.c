// SPDX-License-Identifier: GPL-2.0-or-later
/* Every probe kind loadd knows, in the order --list-probes prints them. An
 * explicit table, as for loaders: a static library would drop a kind's object
 * file that nothing references. */
#include "probe.h"

#include <string.h>

#include "log.h"
#include "probe_study.h"

extern const struct probe_ops probe_job_ops;
extern const struct probe_ops probe_wakeup_ops;
extern const struct probe_ops probe_fsync_ops;
extern const struct probe_ops probe_launch_ops;
extern const struct probe_ops probe_fault_ops;
extern const struct probe_ops probe_spawn_ops;
extern const struct probe_ops probe_ctxswitch_ops;
extern const struct probe_ops probe_switchcost_ops;
extern const struct probe_ops probe_ipclat_ops;
extern const struct probe_ops probe_ipcbw_ops;
extern const struct probe_ops probe_sync_ops;
extern const struct probe_ops probe_chat_ops;

const struct probe_ops *const probe_table[] = {
	&probe_job_ops,
	&probe_wakeup_ops,
	&probe_fsync_ops,
	&probe_launch_ops,
	&probe_fault_ops,
	&probe_spawn_ops,
	&probe_ctxswitch_ops,
	&probe_switchcost_ops,
	&probe_ipclat_ops,
	&probe_ipcbw_ops,
	&probe_sync_ops,
	&probe_chat_ops,
	NULL,
};

const struct probe_ops *probe_find(const char *name)
{
	for (size_t i = 0; probe_table[i] != NULL; i++)
		if (strcmp(probe_table[i]->name, name) == 0)
			return probe_table[i];
	return NULL;
}

bool probe_kind_find(const char *name, struct probe_kind *k)
{
	const struct probe_ops *ops = probe_find(name);

	if (ops == NULL)
		return false;
	*k = (struct probe_kind){ .name = ops->name,
				  .options = ops->options,
				  .config_size = ops->config_size,
				  .ops = ops };
	return true;
}

void probe_names(char *buf, size_t len)
{
	size_t used = 0;

	buf[0] = '\0';
	for (size_t i = 0; probe_table[i] != NULL && used < len; i++) {
		int n = snprintf(buf + used, len - used, "%s%s", i ? ", " : "",
				 probe_table[i]->name);

		if (n < 0)
			break;
		used += (size_t)n;
	}
}

void probe_print_all(FILE *fp)
{
	char known[128];

	probe_names(known, sizeof known);
	fprintf(fp, "Every [probe NAME] section takes:\n");
	fprintf(fp,
		"  type = NAME  the probe kind, one of: %s (default: the section's NAME "
		"when it is a kind)\n",
		known);
	fprintf(fp, "A phase runs every probe unless it names some: probes = job, wakeup\n");
	fprintf(fp, "The old [probe] section (no name) is the job probe, named job.\n");
	for (size_t i = 0; probe_table[i] != NULL; i++) {
		const struct probe_ops *ops = probe_table[i];

		fprintf(fp, "\n%s: %s\n", ops->name, ops->summary);
		fprintf(fp, "  records: %s, in %s\n",
			ops->histogram ? "a histogram per second" : "one row per operation",
			ops->units);
		options_print(ops->options, fp);
	}
}

const struct study_kind *probe_study_kinds(void)
{
	static struct study_kind kinds[sizeof probe_table / sizeof probe_table[0]];
	size_t n = 0;

	for (size_t i = 0; probe_table[i] != NULL; i++)
		if (probe_table[i]->study != NULL)
			kinds[n++] = (struct study_kind){ .type = probe_table[i]->name,
							  .options = probe_table[i]->options,
							  .places = probe_table[i]->study };
	kinds[n] = (struct study_kind){ 0 };
	return kinds;
}

/* Every {key} of a label template is one of the kind's options, or variant. */
static void study_check_template(const struct probe_ops *ops, const char *tpl)
{
	for (const char *p = tpl; p != NULL && (p = strchr(p, '{')) != NULL; p++) {
		const char *end = strchr(p, '}');
		char key[64];

		if (end == NULL || (size_t)(end - p) > sizeof key)
			fatalx("probe %s: study label \"%s\" has an unclosed {", ops->name, tpl);
		snprintf(key, sizeof key, "%.*s", (int)(end - p - 1), p + 1);
		if (strcmp(key, "variant") != 0 && options_find(ops->options, key) == NULL)
			fatalx("probe %s: study label \"%s\" names no option {%s}", ops->name, tpl,
			       key);
	}
}

/* A study place needs a table, a row header, a row label and a unit. */
static void study_check(const struct probe_ops *ops)
{
	for (const struct study_place *sp = ops->study; sp != NULL && sp->table != NULL; sp++) {
		if (sp->rows == NULL || sp->row == NULL || sp->unit == NULL)
			fatalx("probe %s: study table \"%s\" lacks rows, row or unit", ops->name,
			       sp->table);
		study_check_template(ops, sp->row);
		study_check_template(ops, sp->column);
	}
}

void probe_table_check(void)
{
	for (size_t i = 0; probe_table[i] != NULL; i++) {
		const struct probe_ops *ops = probe_table[i];

		if (ops->version != PROBE_OPS_VERSION)
			fatalx("probe %zu (%s): interface version %d, this loadd needs %d", i,
			       ops->name ? ops->name : "?", ops->version, PROBE_OPS_VERSION);
		if (ops->name == NULL || *ops->name == '\0' || ops->summary == NULL ||
		    ops->units == NULL)
			fatalx("probe %zu has no name, summary or units", i);
		for (const char *p = ops->name; *p; p++)
			if (!(*p >= 'a' && *p <= 'z') && !(*p >= '0' && *p <= '9') && *p != '-')
				fatalx("probe %s: a name is lower-case letters, digits and '-'",
				       ops->name);
		if (probe_find(ops->name) != ops)
			fatalx("probe %s is listed twice", ops->name);
		if (ops->options == NULL || ops->config_size == 0)
			fatalx("probe %s has no options table or config size", ops->name);
		if ((ops->run == NULL) == (ops->measure == NULL))
			fatalx("probe %s has both or neither of run and measure", ops->name);
		if (ops->run != NULL && (ops->open == NULL || ops->close == NULL))
			fatalx("probe %s lacks open or close", ops->name);
		if ((ops->open == NULL) != (ops->close == NULL))
			fatalx("probe %s has open without close or close without open", ops->name);
		if (ops->measure != NULL &&
		    (strcmp(ops->options[0].key, "every") != 0 || ops->options[0].offset != 0))
			fatalx("probe %s measures per slot: its config and options start with "
			       "every (PROBE_EVERY_OPTION)",
			       ops->name);
		study_check(ops);
	}
}
