/* The system: CPU, context switches, memory and pressure, last second. */
#include <math.h>
#include <stdio.h>

#include "parse.h"
#include "view.h"

/* A PSI pair, some/full; "n/a" where the kernel has no figure. */
static void psi_pair(struct text *t, const char *label, double some, double full)
{
	char a[16], b[16];

	fmt_num(a, sizeof a, some, 1);
	fmt_num(b, sizeof b, full, 1);
	text_add(t, TC_HEAD, label);
	text_addf(t, some >= 10 ? TC_WARN : TC_NORMAL, "%s", a);
	text_add(t, TC_NORMAL, "/");
	text_addf(t, full >= 10 ? TC_BAD : TC_NORMAL, "%s", b);
}

static void system_update(const struct snapshot *s, struct text *t)
{
	const struct sys_sample *y = &s->sys;
	char busy[16], ctxt[24], load[16], avail[32], swap[32];

	text_line(t);
	text_add(t, TC_TITLE, "System");
	if (!s->have_sys) {
		text_line(t);
		text_add(t, TC_DIM, "no system figures yet");
		return;
	}
	fmt_num(busy, sizeof busy, y->cpu_busy_pct, 1);
	fmt_num(ctxt, sizeof ctxt, y->ctxt_per_s, 0);
	fmt_num(load, sizeof load, y->load1, 2);
	format_bytes(y->mem_available, avail, sizeof avail);
	format_bytes(y->swap_used, swap, sizeof swap);
	text_line(t);
	text_add(t, TC_HEAD, "cpu busy ");
	text_addf(t, y->cpu_busy_pct >= 90 ? TC_WARN : TC_VALUE, "%s%%", busy);
	text_add(t, TC_HEAD, "  ctxt/s ");
	text_add(t, TC_VALUE, ctxt);
	text_add(t, TC_HEAD, "  load1 ");
	text_add(t, TC_NORMAL, load);
	text_add(t, TC_HEAD, "  MemAvailable ");
	text_add(t, TC_VALUE, avail);
	text_add(t, TC_HEAD, "  swap used ");
	text_add(t, y->swap_used ? TC_WARN : TC_NORMAL, swap);

	text_line(t);
	text_add(t, TC_HEAD, "PSI some/full %  ");
	psi_pair(t, "cpu ", y->psi_cpu_some, y->psi_cpu_full);
	psi_pair(t, "  memory ", y->psi_mem_some, y->psi_mem_full);
	psi_pair(t, "  io ", y->psi_io_some, y->psi_io_full);
}

const struct panel_ops panel_system_ops = {
	.name = "system",
	.update = system_update,
	.draw = text_draw_titled,
};
