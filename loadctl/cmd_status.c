// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl status: what the running loadd is doing, from GET /v1/status: the
 * run, its phase, each load's counters, the latest jobs, the system. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api_client.h"
#include "loadctl.h"
#include "log.h"
#include "parse.h"
#include "table.h"
#include "term_escape.h"
#include "timeutil.h"
#include "xalloc.h"

#define STATUS_TIMEOUT_MS 5000

/* ---- reading the document ---- */

static double num(json_t *obj, const char *key)
{
	json_t *v = json_object_get(obj, key);

	return json_is_number(v) ? json_number_value(v) : NAN;
}

static const char *str(json_t *obj, const char *key)
{
	const char *s = json_string_value(json_object_get(obj, key));

	return s != NULL ? s : "?";
}

static char *fmt_secs(double s)
{
	char buf[32];

	if (!isfinite(s))
		return xstrdup("?");
	format_ms((int64_t)llround(s * 1000), buf, sizeof buf);
	return xstrdup(buf);
}

/* ---- the parts of the view ---- */

static void print_run(json_t *doc)
{
	json_t *run = json_object_get(doc, "run");
	json_t *phase = json_object_get(doc, "phase");
	char *elapsed = fmt_secs(num(run, "elapsed_s"));
	char *planned = fmt_secs(num(run, "planned_s"));

	printf("run %.0f: profile %s, %s (loadd pid %.0f)\n", num(run, "id"), str(run, "profile"),
	       str(run, "status"), num(doc, "pid"));
	printf("  elapsed %s of about %s; round %.0f of %.0f\n", elapsed, planned,
	       num(run, "round"), num(run, "rounds"));
	free(elapsed);
	free(planned);
	if (!json_is_object(phase)) {
		printf("  between phases\n");
		return;
	}

	json_t *loads = json_object_get(phase, "loads");
	size_t i;
	json_t *l;
	char *in = fmt_secs(num(phase, "elapsed_s"));
	char *settle = fmt_secs(num(phase, "settle_s"));
	char *duration = fmt_secs(num(phase, "duration_s"));

	printf("  phase %.0f of %.0f: %s (%s cache; loads:", num(phase, "index") + 1,
	       num(phase, "count"), str(phase, "name"), str(phase, "cache"));
	if (json_array_size(loads) == 0)
		printf(" none");
	json_array_foreach(loads, i, l)
		printf(" %s", json_string_value(l) ? json_string_value(l) : "?");
	printf("), %s, %s in (settle %s, then %s of jobs); %.0f jobs, %.0f failed\n",
	       str(phase, "state"), in, settle, duration, num(phase, "jobs"), num(phase, "failed"));
	free(in);
	free(settle);
	free(duration);
}

static void print_load_counters(json_t *doc)
{
	static const char *const heading[] = { "Load",     "Type",  "Procs", "Restarts", "Cycles",
					       "Cycles/s", "MiB/s", "Ops/s", "CPU s",    "State" };
	json_t *loads = json_object_get(doc, "loads");
	struct table t;
	size_t i;
	json_t *l;

	if (json_array_size(loads) == 0) {
		printf("\n  no loads running\n");
		return;
	}
	table_init(&t, heading, "llrrrrrrrl");
	t.indent = "  ";
	json_array_foreach(loads, i, l)
	{
		char *row[10];
		bool stalled = json_is_true(json_object_get(l, "stalled"));
		row[0] = xstrdup(str(l, "name"));
		row[1] = xstrdup(str(l, "type"));
		row[2] = fmt_fixed(num(l, "procs"), 0);
		row[3] = fmt_fixed(num(l, "restarts"), 0);
		row[4] = fmt_fixed(num(l, "cycles"), 0);
		row[5] = fmt_fixed(num(l, "cycles_per_s"), 1);
		row[6] = num(l, "bytes") > 0 ? fmt_fixed(num(l, "bytes_per_s") / (1 << 20), 1)
					     : xstrdup("-");
		row[7] = num(l, "ops") > 0 ? fmt_fixed(num(l, "ops_per_s"), 0) : xstrdup("-");
		row[8] = fmt_fixed(num(l, "cpu_s"), 1);
		row[9] = xstrdup(stalled ? "stalled" : "running");
		table_row(&t, row);
	}
	putchar('\n');
	table_print(&t, stdout);
	table_free(&t);
}

static void print_samples(json_t *doc)
{
	static const char *const heading[] = {
		"Seq", "Started", "Wall ms", "CPU%", "Exit", "Missed"
	};
	json_t *samples = json_object_get(doc, "samples");
	json_t *phase = json_object_get(doc, "phase");
	struct table t;
	size_t i;
	json_t *s;

	if (json_array_size(samples) == 0)
		return;
	table_init(&t, heading, "rlrrrr");
	t.indent = "  ";
	json_array_foreach(samples, i, s)
	{
		char *row[6];
		char when[32];
		format_wall(num(s, "started_at"), when, sizeof when);
		row[0] = fmt_fixed(num(s, "seq"), 0);
		/* The date is today's: the time of day says enough. */
		row[1] = xstrdup(strlen(when) > 11 ? when + 11 : when);
		row[2] = json_is_true(json_object_get(s, "failed"))
				 ? xstrdup("failed")
				 : fmt_fixed(num(s, "wall_ms"), 1);
		row[3] = fmt_fixed(num(s, "cpu_pct"), 1);
		row[4] = fmt_fixed(num(s, "exit_code"), 0);
		row[5] = fmt_fixed(num(s, "missed"), 0);
		table_row(&t, row);
	}
	printf("\n  latest jobs of phase %s:\n", str(phase, "name"));
	table_print(&t, stdout);
	table_free(&t);
}

static void print_system(json_t *doc)
{
	json_t *sys = json_object_get(doc, "system");
	json_t *psi = json_object_get(sys, "psi");
	static const char *const resources[] = { "cpu", "memory", "io" };
	char avail[32];

	if (!json_is_object(sys))
		return;
	format_bytes((uint64_t)fmax(0, num(sys, "mem_available")), avail, sizeof avail);
	printf("\n  system: CPU %.0f%% busy, %.0f context switches/s, load %.2f, %s available\n",
	       num(sys, "cpu_busy_pct"), num(sys, "ctxt_per_s"), num(sys, "load1"), avail);
	if (!json_is_object(psi))
		return;
	printf("  pressure (some, last second):");
	for (size_t i = 0; i < 3; i++) {
		double some = num(json_object_get(psi, resources[i]), "some");
		if (isfinite(some))
			printf(" %s %.1f%%", resources[i], some);
		else
			printf(" %s -", resources[i]);
	}
	putchar('\n');
}

/* ---- the command ---- */

static int cmd_status_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc,
			   char **argv)
{
	const char *socket_arg = NULL;
	struct api_reply reply;
	bool json = false;
	char *socket, *err = NULL;
	json_t *doc;
	int status = api_command_options(self, argc, argv, &socket_arg, &json);

	if (status >= 0)
		return status;
	status = LOADCTL_OK;
	socket = api_socket_path(socket_arg);
	if (!api_request(socket, "GET", "/v1/status", STATUS_TIMEOUT_MS, 200, &reply)) {
		status = LOADCTL_ERROR;
		goto out;
	}
	if (json) {
		fwrite(reply.body, 1, reply.len, stdout);
	} else if ((doc = api_reply_json(&reply, &err)) == NULL) {
		log_error("%s", err);
		status = LOADCTL_ERROR;
	} else {
		term_guard_stdout();
		print_run(doc);
		print_load_counters(doc);
		print_samples(doc);
		print_system(doc);
		json_decref(doc);
	}
	api_reply_free(&reply);
out:
	free(err);
	free(socket);
	return status;
}

const struct loadctl_cmd cmd_status_entry = {
	.name = "status",
	.args = "[--json] [--socket PATH]",
	.summary = "what the running loadd is doing, asked over its socket",
	.exec = cmd_status_exec,
};
