// SPDX-License-Identifier: GPL-2.0-or-later
/* The column table of every record: what each figure is called in the
 * database and the outputs, where it lives in its struct, its unit and the
 * schema version that added it. See records.h for how to add one. */
#include "records.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#define ARRAY_LEN(a) (sizeof(a) / sizeof((a)[0]))
#define COLUMNS(a) .columns = (a), .ncolumns = ARRAY_LEN(a)

/* ---- runs ---- */

#define RS(field) offsetof(struct run_start, field)
/* clang-format off */
static const struct column run_start_columns[] = {
	{ "status", "TEXT NOT NULL", RS(status), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "profile_name", "TEXT NOT NULL", RS(info.profile_name), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "profile_path", "TEXT", RS(info.profile_path), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "profile_text", "TEXT", RS(info.profile_text), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "host", "TEXT", RS(info.host), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "kernel", "TEXT", RS(info.kernel), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "cpu_model", "TEXT", RS(info.cpu_model), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "cores", "INTEGER", RS(info.cores), COL_INT, "", 1, 0, NULL, NULL },
	{ "ram_bytes", "INTEGER", RS(info.ram_bytes), COL_U64, "bytes", 1, 0, NULL, NULL },
	{ "swap_bytes", "INTEGER", RS(info.swap_bytes), COL_U64, "bytes", 1, 0, NULL, NULL },
	{ "tree_fingerprint", "TEXT", RS(info.tree_fingerprint), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "version", "TEXT", RS(info.version), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "rounds", "INTEGER", RS(info.rounds), COL_LONG, "", 1, 0, NULL, NULL },
	{ "planned_ms", "INTEGER", RS(info.planned_ms), COL_I64, "ms", 1, 0, NULL, NULL },
	{ "pid", "INTEGER", RS(info.pid), COL_INT, "", 1, 0, NULL, NULL },
	{ "started_at", "REAL NOT NULL", RS(started_at), COL_TIME, "s", 1, 0, NULL, NULL },
	{ "uuid", "TEXT", RS(uuid), COL_TEXT, "", 4, 0, NULL, NULL },
};
/* clang-format on */

#define RR(field) offsetof(struct run_row, field)
/* clang-format off */
static const struct column run_columns[] = {
	{ "id", "INTEGER PRIMARY KEY", RR(id), COL_I64, "", 1, COLF_NO_INSERT | COLF_KEY, NULL, NULL },
	{ "status", "TEXT NOT NULL", RR(status), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "profile_name", "TEXT NOT NULL", RR(profile_name), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "profile_path", "TEXT", RR(profile_path), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "profile_text", "TEXT", RR(profile_text), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "host", "TEXT", RR(host), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "kernel", "TEXT", RR(kernel), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "cpu_model", "TEXT", RR(cpu_model), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "cores", "INTEGER", RR(cores), COL_INT, "", 1, 0, NULL, NULL },
	{ "ram_bytes", "INTEGER", RR(ram_bytes), COL_U64, "bytes", 1, 0, NULL, NULL },
	{ "swap_bytes", "INTEGER", RR(swap_bytes), COL_U64, "bytes", 1, 0, NULL, NULL },
	{ "tree_fingerprint", "TEXT", RR(tree_fingerprint), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "version", "TEXT", RR(version), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "rounds", "INTEGER", RR(rounds), COL_LONG, "", 1, 0, NULL, NULL },
	{ "planned_ms", "INTEGER", RR(planned_ms), COL_I64, "ms", 1, 0, NULL, NULL },
	{ "started_at", "REAL NOT NULL", RR(started_at), COL_TIME, "s", 1, 0, NULL, NULL },
	{ "ended_at", "REAL", RR(ended_at), COL_TIME, "s", 1, COLF_NO_INSERT, NULL, NULL },
	{ "samples", "", RR(samples), COL_I64, "", 1, COLF_NO_INSERT,
	  "(SELECT count(*) FROM samples s WHERE s.run_id = r.id)", NULL },
	{ "uuid", "TEXT", RR(uuid), COL_TEXT, "", 4, 0, NULL, NULL },
};
/* clang-format on */

/* ---- loads and phases ---- */

#define LI(field) offsetof(struct load_info, field)
/* clang-format off */
static const struct column load_columns[] = {
	{ "name", "TEXT NOT NULL", LI(name), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "type", "TEXT NOT NULL", LI(type), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "cycle_unit", "TEXT NOT NULL", LI(cycle_unit), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "ops_unit", "TEXT", LI(ops_unit), COL_TEXT_NULL, "", 1, 0, NULL, NULL },
	{ "reports_bytes", "INTEGER NOT NULL", LI(reports_bytes), COL_BOOL, "", 1, 0, NULL, NULL },
};
/* clang-format on */

#define PH(field) offsetof(struct phase_row, field)
/* clang-format off */
static const struct column phase_columns[] = {
	{ "id", "INTEGER PRIMARY KEY", PH(id), COL_I64, "", 1, COLF_NO_INSERT | COLF_KEY, NULL, NULL },
	{ "round", "INTEGER NOT NULL", PH(round), COL_LONG, "", 1, 0, NULL, NULL },
	{ "seq", "INTEGER NOT NULL", PH(seq), COL_LONG, "", 1, 0, NULL, NULL },
	{ "name", "TEXT NOT NULL", PH(name), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "cache", "TEXT", PH(cache), COL_TEXT, "", 1, 0, NULL, NULL },
	{ "loads", "TEXT NOT NULL", PH(loads), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "started_at", "REAL NOT NULL", PH(started_at), COL_TIME, "s", 1, 0, NULL, NULL },
	{ "probe_start", "REAL", PH(probe_start), COL_TIME, "s", 1, COLF_NO_INSERT, NULL, NULL },
	{ "ended_at", "REAL", PH(ended_at), COL_TIME, "s", 1, COLF_NO_INSERT, NULL, NULL },
	{ "valid", "INTEGER NOT NULL", PH(valid), COL_BOOL, "", 1, COLF_NO_INSERT, NULL,
	  &(const struct figure_view){
		  .metric = "loadd_phase_valid", .metric_type = "gauge",
		  .help = "1 when a finished phase's figures count, 0 when it was invalid (a load "
			  "stalled, every job failed, the run stopped); per phase and round." } },
	{ "invalid_reason", "TEXT", PH(invalid_reason), COL_TEXT, "", 1, COLF_NO_INSERT, NULL, NULL },
	/* a text: its metric is 1 when set */
	{ "weak", "TEXT", PH(weak), COL_TEXT_NULL, "", 3, COLF_NO_INSERT, NULL,
	  &(const struct figure_view){
		  .metric = "loadd_phase_weak", .metric_type = "gauge",
		  .help = "1 when a finished phase's load fell short of what it was expected to "
			  "achieve (weak: no slowdown there means little), else 0; per phase and "
			  "round." } },
};
/* clang-format on */

/* ---- the probe's samples ---- */

#define SA(field) offsetof(struct sample, field)
/* clang-format off */
static const struct column sample_columns[] = {
	{ "phase_id", "INTEGER NOT NULL", SA(phase_id), COL_PHASE_ID, "", 1, COLF_KEY, NULL, NULL },
	{ "seq", "INTEGER NOT NULL", SA(seq), COL_I64, "", 1, 0, NULL, NULL },
	{ "started_at", "REAL NOT NULL", SA(started_at), COL_TIME, "s", 1, 0, NULL, NULL },
	{ "wall_ms", "REAL", SA(wall_ms), COL_REAL, "ms", 1, 0, NULL, NULL },
	{ "user_ms", "REAL", SA(user_ms), COL_REAL, "ms", 1, 0, NULL, NULL },
	{ "sys_ms", "REAL", SA(sys_ms), COL_REAL, "ms", 1, 0, NULL, NULL },
	{ "cpu_pct", "REAL", SA(cpu_pct), COL_REAL, "%", 1, 0, NULL, NULL },
	{ "nvcsw", "INTEGER", SA(nvcsw), COL_LONG, "", 1, 0, NULL, NULL },
	{ "nivcsw", "INTEGER", SA(nivcsw), COL_LONG, "", 1, 0, NULL, NULL },
	{ "exit_code", "INTEGER", SA(exit_code), COL_INT, "", 1, 0, NULL, NULL },
	{ "failed", "INTEGER NOT NULL", SA(failed), COL_BOOL, "", 1, 0, NULL, NULL },
	{ "missed", "INTEGER NOT NULL", SA(missed), COL_I64, "", 1, 0, NULL, NULL },
	/* NULL (read as 0) in a version-1 run: its one probe, the job */
	{ "probe_id", "INTEGER", SA(probe_id), COL_I64, "", 2, COLF_KEY, NULL, NULL },
	{ "value", "REAL", SA(value), COL_REAL, "", 2, 0, NULL, NULL },
	{ "variant", "INTEGER NOT NULL", SA(variant), COL_INT, "", 2, 0, NULL, NULL },
	{ "over_limit", "INTEGER NOT NULL", SA(over_limit), COL_I64, "bytes", 6, 0, NULL, NULL },
};
/* clang-format on */

/* ---- the probes of a run and their histograms ---- */

#define PI(field) offsetof(struct probe_info, field)
/* clang-format off */
static const struct column probe_columns[] = {
	{ "id", "INTEGER PRIMARY KEY", PI(id), COL_I64, "", 2, COLF_NO_INSERT | COLF_KEY, NULL, NULL },
	{ "name", "TEXT NOT NULL", PI(name), COL_TEXT, "", 2, COLF_NOT_NULL, NULL, NULL },
	{ "type", "TEXT NOT NULL", PI(type), COL_TEXT, "", 2, COLF_NOT_NULL, NULL, NULL },
	{ "units", "TEXT NOT NULL", PI(units), COL_TEXT, "", 2, COLF_NOT_NULL, NULL, NULL },
	{ "histogram", "INTEGER NOT NULL", PI(histogram), COL_BOOL, "", 2, 0, NULL, NULL },
	{ "options", "TEXT", PI(options), COL_TEXT, "", 2, 0, NULL, NULL },
};
/* clang-format on */

#define HR(field) offsetof(struct hist_row, field)
/* clang-format off */
static const struct column hist_columns[] = {
	{ "phase_id", "INTEGER NOT NULL", HR(phase_id), COL_PHASE_ID, "", 2, COLF_KEY, NULL, NULL },
	{ "probe_id", "INTEGER NOT NULL", HR(probe_id), COL_I64, "", 2, COLF_KEY, NULL, NULL },
	{ "variant", "INTEGER NOT NULL", HR(variant), COL_INT, "", 2, 0, NULL, NULL },
	{ "t", "REAL NOT NULL", HR(t), COL_TIME, "s", 2, 0, NULL, NULL },
	{ "count", "INTEGER NOT NULL", HR(count), COL_U64, "", 2, 0, NULL, NULL },
	{ "max_ns", "INTEGER NOT NULL", HR(max_ns), COL_U64, "ns", 2, 0, NULL, NULL },
	{ "sum_ns", "INTEGER NOT NULL", HR(sum_ns), COL_U64, "ns", 2, 0, NULL, NULL },
	{ "steal_pct", "REAL", HR(steal_pct), COL_REAL, "%", 2, 0, NULL, NULL },
	{ "buckets", "BLOB NOT NULL", HR(buckets), COL_BLOB, "", 2, 0, NULL, NULL },
};
/* clang-format on */

/* ---- system figures ---- */

#define PSI_HELP                                                                                   \
	"Share of the last second in which some (or all) tasks stalled on a resource "             \
	"(PSI)."
#define PSI(res, kind, label, warn, bad)                                                           \
	(&(const struct figure_view){                                                              \
		.json = "psi." res "." kind,                                                       \
		.metric = "loadd_pressure_stalled_ratio",                                          \
		.metric_type = "gauge",                                                            \
		.help = PSI_HELP,                                                                  \
		.labels = (const char *const[]){ "resource", res, "kind", kind, NULL },            \
		.scale = 0.01,                                                                     \
		.panel = label,                                                                    \
		.panel_line = 2,                                                                   \
		.decimals = 1,                                                                     \
		.warn_at = warn,                                                                   \
		.bad_at = bad })

#define SY(field) offsetof(struct sys_sample, field)
/* clang-format off */
static const struct column sys_columns[] = {
	{ "phase_id", "INTEGER", SY(phase_id), COL_PHASE_ID, "", 1, COLF_KEY, NULL, NULL },
	{ "t", "REAL NOT NULL", SY(t), COL_TIME, "s", 1, 0, NULL,
	  &(const struct figure_view){ .json = "t" } },
	{ "cpu_busy_pct", "REAL", SY(cpu_busy_pct), COL_REAL, "%", 1, 0, NULL,
	  &(const struct figure_view){
		  .json = "cpu_busy_pct", .metric = "loadd_cpu_busy_ratio", .metric_type = "gauge",
		  .help = "Share of all CPUs' time busy over the last second.", .scale = 0.01,
		  .panel = "cpu busy ", .panel_line = 1, .decimals = 1, .suffix = "%",
		  .warn_at = 90 } },
	{ "ctxt_per_s", "REAL", SY(ctxt_per_s), COL_REAL, "1/s", 1, 0, NULL,
	  &(const struct figure_view){
		  .json = "ctxt_per_s", .metric = "loadd_context_switches_per_second",
		  .metric_type = "gauge",
		  .help = "Context switches per second, all CPUs, over the last second.",
		  .panel = "  ctxt/s ", .panel_line = 1, .decimals = 0 } },
	{ "load1", "REAL", SY(load1), COL_REAL, "", 1, 0, NULL,
	  &(const struct figure_view){
		  .json = "load1", .metric = "loadd_system_load1", .metric_type = "gauge",
		  .help = "The 1-minute load average.",
		  .panel = "  load1 ", .panel_line = 1, .decimals = 2 } },
	{ "mem_available", "INTEGER", SY(mem_available), COL_U64, "bytes", 1, 0, NULL,
	  &(const struct figure_view){
		  .json = "mem_available", .metric = "loadd_memory_available_bytes",
		  .metric_type = "gauge", .help = "MemAvailable from /proc/meminfo.",
		  .panel = "  MemAvailable ", .panel_line = 1 } },
	{ "swap_used", "INTEGER", SY(swap_used), COL_U64, "bytes", 1, 0, NULL,
	  &(const struct figure_view){
		  .json = "swap_used", .metric = "loadd_swap_used_bytes", .metric_type = "gauge",
		  .help = "Swap in use.", .panel = "  swap used ", .panel_line = 1,
		  .warn_at = 1 } },
	{ "psi_cpu_some", "REAL", SY(psi_cpu_some), COL_REAL, "%", 1, 0, NULL,
	  PSI("cpu", "some", "PSI some/full %  cpu ", 10, 0) },
	{ "psi_cpu_full", "REAL", SY(psi_cpu_full), COL_REAL, "%", 1, 0, NULL,
	  PSI("cpu", "full", "/", 0, 10) },
	{ "psi_mem_some", "REAL", SY(psi_mem_some), COL_REAL, "%", 1, 0, NULL,
	  PSI("memory", "some", "  memory ", 10, 0) },
	{ "psi_mem_full", "REAL", SY(psi_mem_full), COL_REAL, "%", 1, 0, NULL,
	  PSI("memory", "full", "/", 0, 10) },
	{ "psi_io_some", "REAL", SY(psi_io_some), COL_REAL, "%", 1, 0, NULL,
	  PSI("io", "some", "  io ", 10, 0) },
	{ "psi_io_full", "REAL", SY(psi_io_full), COL_REAL, "%", 1, 0, NULL,
	  PSI("io", "full", "/", 0, 10) },
};
/* clang-format on */

/* ---- loaders' counters and events ---- */

#define LS(field) offsetof(struct loader_sample, field)
/* clang-format off */
static const struct column loader_columns[] = {
	{ "phase_id", "INTEGER", LS(phase_id), COL_PHASE_ID, "", 1, COLF_KEY, NULL, NULL },
	{ "load", "TEXT NOT NULL", LS(load), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "t", "REAL NOT NULL", LS(t), COL_TIME, "s", 1, 0, NULL, NULL },
	{ "cycles", "INTEGER", LS(cycles), COL_U64, "", 1, 0, NULL, NULL },
	{ "bytes", "INTEGER", LS(bytes), COL_U64, "bytes", 1, 0, NULL, NULL },
	{ "ops", "INTEGER", LS(ops), COL_U64, "", 1, 0, NULL, NULL },
	{ "errors", "INTEGER", LS(errors), COL_U64, "", 1, 0, NULL, NULL },
	{ "cpu_ms", "REAL", LS(cpu_ms), COL_REAL, "ms", 1, 0, NULL, NULL },
	{ "procs", "INTEGER", LS(procs), COL_INT, "", 1, 0, NULL, NULL },
	{ "restarts", "INTEGER", LS(restarts), COL_INT, "", 1, 0, NULL, NULL },
	{ "running", "INTEGER", LS(running), COL_BOOL, "", 1, 0, NULL, NULL },
	{ "stalled", "INTEGER", LS(stalled), COL_BOOL, "", 1, 0, NULL, NULL },
};
/* clang-format on */

#define EV(field) offsetof(struct event, field)
/* clang-format off */
static const struct column event_columns[] = {
	{ "phase_id", "INTEGER", EV(phase_id), COL_PHASE_ID, "", 1, COLF_KEY, NULL, NULL },
	{ "t", "REAL NOT NULL", EV(t), COL_TIME, "s", 1, 0, NULL, NULL },
	{ "load", "TEXT", EV(load), COL_TEXT_NULL, "", 1, 0, NULL, NULL },
	{ "kind", "TEXT NOT NULL", EV(kind), COL_TEXT, "", 1, COLF_NOT_NULL, NULL, NULL },
	{ "message", "TEXT", EV(message), COL_TEXT_NULL, "", 1, 0, NULL, NULL },
};
/* clang-format on */

#define BL(field) offsetof(struct baseline_row, field)
/* clang-format off */
static const struct column baseline_columns[] = {
	{ "name", "TEXT NOT NULL PRIMARY KEY", BL(name), COL_TEXT, "", 5, COLF_NOT_NULL, NULL, NULL },
	{ "run_id", "INTEGER NOT NULL", BL(run_id), COL_I64, "", 5, COLF_KEY, NULL, NULL },
	{ "set_at", "REAL NOT NULL", BL(set_at), COL_TIME, "s", 5, 0, NULL, NULL },
};
/* clang-format on */

const struct record_type record_types[REC_COUNT] = {
	[REC_RUN_START] = { "run", "runs", NULL, NULL, "id", sizeof(struct run_start), 1,
			    COLUMNS(run_start_columns) },
	[REC_RUN] = { "run", "runs", NULL, NULL, "id DESC", sizeof(struct run_row), 1,
		      COLUMNS(run_columns) },
	[REC_LOAD] = { "load", "loads", "run_id", "run_id", "id", sizeof(struct load_info), 1,
		       COLUMNS(load_columns) },
	[REC_PHASE] = { "phase", "phases", "run_id", "run_id", "started_at, id",
			sizeof(struct phase_row), 1, COLUMNS(phase_columns) },
	[REC_SAMPLE] = { "sample", "samples", "run_id", "phase_id", "seq, id",
			 sizeof(struct sample), 1, COLUMNS(sample_columns) },
	[REC_SYS_SAMPLE] = { "system figures", "system_stats", "run_id", "phase_id", "t, id",
			     sizeof(struct sys_sample), 1, COLUMNS(sys_columns) },
	[REC_LOADER_SAMPLE] = { "loader counters", "loader_stats", "run_id", "phase_id", "t, id",
				sizeof(struct loader_sample), 1, COLUMNS(loader_columns) },
	[REC_EVENT] = { "event", "events", "run_id", "run_id", "t DESC, id DESC",
			sizeof(struct event), 1, COLUMNS(event_columns) },
	[REC_PROBE] = { "probe", "probes", "run_id", "run_id", "id", sizeof(struct probe_info), 2,
			COLUMNS(probe_columns) },
	[REC_HIST] = { "histogram", "histograms", "run_id", "phase_id", "t, id",
		       sizeof(struct hist_row), 2, COLUMNS(hist_columns) },
	[REC_BASELINE] = { "baseline", "baselines", NULL, NULL, "name", sizeof(struct baseline_row),
			   5, COLUMNS(baseline_columns) },
};

#define FIELD(type, c, row) ((type *)((char *)(row) + (c)->offset))

double column_number(const struct column *c, const void *row)
{
	switch (c->type) {
	case COL_INT: return *FIELD(const int, c, row);
	case COL_LONG: return (double)*FIELD(const long, c, row);
	case COL_I64:
	case COL_PHASE_ID: return (double)*FIELD(const int64_t, c, row);
	case COL_U64: return (double)*FIELD(const uint64_t, c, row);
	case COL_BOOL: return *FIELD(const bool, c, row) ? 1 : 0;
	case COL_REAL:
	case COL_TIME: return *FIELD(const double, c, row);
	case COL_TEXT:
	case COL_TEXT_NULL:
	case COL_BLOB: break;
	}
	return NAN;
}

int64_t column_integer(const struct column *c, const void *row)
{
	switch (c->type) {
	case COL_INT: return *FIELD(const int, c, row);
	case COL_LONG: return *FIELD(const long, c, row);
	case COL_I64:
	case COL_PHASE_ID: return *FIELD(const int64_t, c, row);
	case COL_U64: return (int64_t)*FIELD(const uint64_t, c, row);
	case COL_BOOL: return *FIELD(const bool, c, row) ? 1 : 0;
	default: return 0;
	}
}

const char *column_text(const struct column *c, const void *row)
{
	return column_is_text(c) ? *FIELD(const char *const, c, row) : NULL;
}

bool column_is_text(const struct column *c)
{
	return c->type == COL_TEXT || c->type == COL_TEXT_NULL;
}

bool column_is_integer(const struct column *c)
{
	return !column_is_text(c) && c->type != COL_REAL && c->type != COL_TIME &&
	       c->type != COL_BLOB;
}

const struct column *record_column(const struct record_type *rt, const char *name)
{
	for (size_t i = 0; i < rt->ncolumns; i++)
		if (strcmp(rt->columns[i].name, name) == 0)
			return &rt->columns[i];
	return NULL;
}

void record_free_texts(const struct record_type *rt, void *row)
{
	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *c = &rt->columns[i];

		if (column_is_text(c)) {
			free(*FIELD(char *, c, row));
			*FIELD(char *, c, row) = NULL;
		} else if (c->type == COL_BLOB) {
			free(FIELD(struct blob, c, row)->data);
			*FIELD(struct blob, c, row) = (struct blob){ 0 };
		}
	}
}
