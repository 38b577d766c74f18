// SPDX-License-Identifier: GPL-2.0-or-later
/* Every panel, top to bottom: the one place that says what loadtop shows. */
#include "view.h"

const struct panel_ops *const panel_table[] = {
	&panel_header_ops, &panel_probe_ops,  &panel_loads_ops,
	&panel_system_ops, &panel_phases_ops, &panel_events_ops,
};

const size_t panel_count = sizeof panel_table / sizeof panel_table[0];
