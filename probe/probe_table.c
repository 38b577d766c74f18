// SPDX-License-Identifier: GPL-2.0-or-later
/* Every probe kind loadd knows, in the order --list-probes prints them. An
 * explicit table, as for loaders: a static library would drop a kind's object
 * file that nothing references. */
#include "probe.h"

#include <string.h>

#include "log.h"

extern const struct probe_ops probe_job_ops;
extern const struct probe_ops probe_wakeup_ops;
extern const struct probe_ops probe_fsync_ops;
extern const struct probe_ops probe_launch_ops;
extern const struct probe_ops probe_fault_ops;
extern const struct probe_ops probe_spawn_ops;
extern const struct probe_ops probe_ctxswitch_ops;
extern const struct probe_ops probe_switchcost_ops;
extern const struct probe_ops probe_ipclat_ops;

const struct probe_ops *const probe_table[] = {
	&probe_job_ops,       &probe_wakeup_ops,
	&probe_fsync_ops,     &probe_launch_ops,
	&probe_fault_ops,     &probe_spawn_ops,
	&probe_ctxswitch_ops, &probe_switchcost_ops,
	&probe_ipclat_ops,    NULL,
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
		if (ops->open == NULL || ops->run == NULL || ops->close == NULL)
			fatalx("probe %s lacks open, run or close", ops->name);
	}
}
