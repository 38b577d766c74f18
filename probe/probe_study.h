// SPDX-License-Identifier: GPL-2.0-or-later
/* The study tables of the probe kinds (study.h), for the programs that print
 * reports: they hand them to the report (report_study_use), which lives in
 * common/ and so cannot read the probe table itself. */
#ifndef LOADD_PROBE_STUDY_H
#define LOADD_PROBE_STUDY_H

#include "study.h"

/* Every kind of the probe table that declares study tables, ended by a NULL
 * type; static storage. */
const struct study_kind *probe_study_kinds(void);

#endif
