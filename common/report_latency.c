// SPDX-License-Identifier: GPL-2.0-or-later
#include "report_latency.h"

#include "json_build.h"
#include "table.h"
#include "xalloc.h"

static bool has_latency(const struct report_probe *rp)
{
	return !rp->histogram && rp->ran && rp->count > 0;
}

void report_latency_print(const struct run_report *rep, FILE *out)
{
	static const char *const head[] = { "Phase", "Probe", "Type",  "n",
					    "p50",   "p99",   "p99.9", "max" };
	enum { NCOLS = sizeof head / sizeof head[0] };
	static const char align[] = "lllrrrrr";
	_Static_assert(sizeof align - 1 == NCOLS, "one alignment per column");
	struct table t;
	bool any = false;

	for (size_t i = 0; i < rep->nphases && !any; i++)
		for (size_t k = 0; k < rep->phases[i].nprobe; k++)
			any |= has_latency(&rep->phases[i].probe[k]);
	if (!any)
		return;
	fprintf(out, "\nLatencies of the probes above that time each operation inside a sample "
		     "(chat: send to delivery), in ms\n");
	table_init(&t, head, align);
	for (size_t i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		bool first = true;

		for (size_t k = 0; k < p->nprobe; k++) {
			const struct report_probe *rp = &p->probe[k];
			char *c[NCOLS];

			if (!has_latency(rp))
				continue;
			c[0] = xstrdup(first ? p->name : "");
			c[1] = xstrdup(rp->name);
			c[2] = xstrdup(rp->type);
			c[3] = xasprintf("%llu", (unsigned long long)rp->count);
			c[4] = fmt_ms(rp->p50);
			c[5] = fmt_ms(rp->p99);
			c[6] = fmt_ms(rp->p999);
			c[7] = fmt_ms(rp->max);
			table_row(&t, c);
			first = false;
		}
	}
	table_print(&t, out);
	table_free(&t);
}

json_t *report_latency_json(const struct report_probe *rp)
{
	json_t *o = json_object();

	json_object_set_new(o, "count", json_integer((json_int_t)rp->count));
	json_object_set_new(o, "p50_ms", json_real_or_null(rp->p50));
	json_object_set_new(o, "p99_ms", json_real_or_null(rp->p99));
	json_object_set_new(o, "p999_ms", json_real_or_null(rp->p999));
	json_object_set_new(o, "max_ms", json_real_or_null(rp->max));
	json_object_set_new(o, "mean_ms", json_real_or_null(rp->mean));
	return o;
}
