// SPDX-License-Identifier: GPL-2.0-or-later
/* The Prometheus text loadd serves: label values escaped, values written
 * the format's way, the probe histogram's buckets cumulative with +Inf equal
 * to the count, phases that share a name sharing one series, and the status
 * document's handling of what JSON cannot hold. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "api_view.h"
#include "probe.h"

/* What fn writes for its argument, as a malloc'd string. */
#define CAPTURE(out, call)                                                                         \
	do {                                                                                       \
		size_t len_ = 0;                                                                   \
		FILE *fp = open_memstream(&(out), &len_);                                          \
		assert_non_null(fp);                                                               \
		call;                                                                              \
		fclose(fp);                                                                        \
	} while (0)

static void test_label_values(void **state)
{
	static const struct {
		const char *in, *want;
	} cases[] = {
		{ "cpu", "\"cpu\"" },
		{ "", "\"\"" },
		{ "a\"b", "\"a\\\"b\"" },
		{ "back\\slash", "\"back\\\\slash\"" },
		{ "two\nlines", "\"two\\nlines\"" },
		{ "tab\tstays", "\"tab\tstays\"" },
		{ "ünïcode", "\"ünïcode\"" },
		{ "\\\"\n", "\"\\\\\\\"\\n\"" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out = NULL;
		CAPTURE(out, metrics_write_label_value(fp, cases[i].in));
		assert_string_equal(out, cases[i].want);
		free(out);
	}
}

static void test_values(void **state)
{
	static const struct {
		double in;
		const char *want;
	} cases[] = {
		{ 0, "0" },
		{ 1, "1" },
		{ 0.1, "0.1" },
		{ 1.5e-7, "1.5e-07" },
		{ 123456789012.0, "123456789012" },
		{ -2.25, "-2.25" },
		{ NAN, "NaN" },
		{ INFINITY, "+Inf" },
		{ -INFINITY, "-Inf" },
	};

	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		char *out = NULL;
		CAPTURE(out, metrics_write_value(fp, cases[i].in));
		assert_string_equal(out, cases[i].want);
		free(out);
	}
}

/* A profile of three phases, two of them named "cpu". */
static struct phase_def phases[] = {
	{ .name = "none", .duration_ms = 1000, .settle_ms = -1 },
	{ .name = "cpu", .duration_ms = 1000, .settle_ms = -1 },
	{ .name = "cpu", .duration_ms = 1000, .settle_ms = -1 },
};

/* The first release's [probe] section: the job probe. */
static struct probe_inst_def job_probe[] = {
	{ .name = "job", .type = "job" },
};

static struct profile test_profile = {
	.path = "/etc/loadd/t.conf",
	.name = "t",
	.run = { .rounds = 2, .settle_ms = 500 },
	.phases = phases,
	.nphases = 3,
	.probes = job_probe,
	.nprobes = 1,
};

static struct sample job(int64_t phase_id, int64_t seq, double wall_ms, bool failed)
{
	return (struct sample){ .phase_id = phase_id,
				.seq = seq,
				.wall_ms = wall_ms,
				.failed = failed,
				.exit_code = failed ? 1 : 0 };
}

/* A job's sample goes where run.c sends it: the status and the probe's figures. */
static void add_sample(struct api_view *v, const struct sample *s)
{
	api_view_add_sample(v, s);
	api_view_add_probe_sample(v, 0, s);
}

static void add(struct api_view *v, int64_t phase_id, int64_t seq, double wall_ms, bool failed)
{
	struct sample s = job(phase_id, seq, wall_ms, failed);

	add_sample(v, &s);
}

static bool has_line(const char *text, const char *line)
{
	size_t n = strlen(line);

	for (const char *p = text; (p = strstr(p, line)) != NULL; p += n)
		if ((p == text || p[-1] == '\n') && p[n] == '\n')
			return true;
	return false;
}

/* The job probe's times, failures and missed slots are exported once, in
 * the every-probe families: phases that share a name share a series, the
 * buckets are cumulative with +Inf equal to the count. */
static void test_histogram(void **state)
{
#define JOB "loadd_probe_latency_seconds_bucket{probe=\"job\",type=\"job\",phase=\"cpu\","
	static const struct {
		const char *line;
		bool present;
	} want[] = {
		{ "# TYPE loadd_probe_latency_seconds histogram", true },
		{ JOB "le=\"0.0005\"} 1", true },
		{ JOB "le=\"0.0025\"} 1", true },
		{ JOB "le=\"0.005\"} 3", true },
		{ JOB "le=\"0.25\"} 4", true },
		{ JOB "le=\"60\"} 4", true },
		{ JOB "le=\"+Inf\"} 5", true },
		{ "loadd_probe_latency_seconds_count{probe=\"job\",type=\"job\",phase=\"cpu\"} 5",
		  true },
		{ "loadd_probe_operation_failures_total{probe=\"job\",type=\"job\",phase=\"cpu\"} "
		  "1",
		  true },
		{ "loadd_probe_missed_slots_total{probe=\"job\",type=\"job\",phase=\"cpu\"} 2",
		  true },
		{ "loadd_probe_latency_seconds_count{probe=\"job\",type=\"job\",phase=\"none\"} 0",
		  true },
		{ "loadd_phase_info{phase=\"cpu\",round=\"2\"} 1", true },
		{ "loadd_phase_probing 1", true },
		{ "loadd_run_info{run_id=\"7\",profile=\"t\",version=\"" LOADD_VERSION "\"} 1",
		  true },
		/* The sample of an old phase and the one between phases count nowhere. */
		{ "loadd_probe_latency_seconds_count{probe=\"job\",type=\"job\",phase=\"none\"} 1",
		  false },
		/* The job's own families of the first release: the job is counted once. */
		{ "# TYPE loadd_probe_response_seconds histogram", false },
		{ "# TYPE loadd_probe_failures_total counter", false },
	};
#undef JOB
	struct api_view v;
	struct sample s;
	char *out = NULL;

	api_view_init(&v, &test_profile);
	v.run_id = 7;
	assert_int_equal(v.nhists, 2);

	/* Phase 2 (a "cpu"), round 1: two jobs. */
	api_view_phase_begin(&v, 1, 1, 11, 0);
	add(&v, 11, 0, 0.5, false);
	add(&v, 11, 1, 3, false);
	api_view_phase_end(&v);
	add(&v, 11, 2, 3, false);
	/* Phase 3, also "cpu", round 2: its jobs land in the same series. */
	api_view_phase_begin(&v, 2, 2, 12, 0);
	v.state = PHASE_PROBING;
	add(&v, 10, 0, 3, false);
	add(&v, 12, 0, 3, false);
	add(&v, 12, 1, 200, false);
	s = job(12, 2, 0, true);
	s.missed = 2;
	add_sample(&v, &s);
	add(&v, 12, 3, 90000, false);

	CAPTURE(out, metrics_write(fp, &v));
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (has_line(out, want[i].line) != want[i].present)
			fail_msg("%s line: %s\n--- in ---\n%s",
				 want[i].present ? "missing" : "unexpected", want[i].line, out);
	assert_int_equal(v.phase_jobs, 4);
	assert_int_equal(v.phase_failed, 1);
	assert_int_equal(v.nlatest, 4);
	free(out);
	api_view_free(&v);
}

static void test_latest_keeps_the_newest(void **state)
{
	struct api_view v;

	api_view_init(&v, &test_profile);
	api_view_phase_begin(&v, 1, 0, 5, 0);
	for (int i = 0; i < API_LATEST_SAMPLES + 7; i++)
		add(&v, 5, i, 1 + i, false);
	assert_int_equal(v.nlatest, API_LATEST_SAMPLES);
	for (size_t i = 0; i < API_LATEST_SAMPLES; i++)
		assert_int_equal(v.latest[i].seq, 7 + (int64_t)i);
	/* A new phase starts with none. */
	api_view_phase_begin(&v, 1, 1, 6, 0);
	assert_int_equal(v.nlatest, 0);
	api_view_free(&v);
}

static void test_loads_and_escaping(void **state)
{
	struct load_view loads[] = {
		{ .st = { .name = "odd \"name\"\\",
			  .type = "cpu",
			  .procs = 3,
			  .restarts = 1,
			  .cycles = 12,
			  .bytes = 4096,
			  .ops = 24,
			  .errors = 0,
			  .cpu_ms = 1500 } },
	};
	static const char *const want[] = {
		"loadd_load_cycles_total{load=\"odd \\\"name\\\"\\\\\",type=\"cpu\"} 12",
		"loadd_load_bytes_total{load=\"odd \\\"name\\\"\\\\\",type=\"cpu\"} 4096",
		"loadd_load_restarts_total{load=\"odd \\\"name\\\"\\\\\",type=\"cpu\"} 1",
		"loadd_load_cpu_seconds_total{load=\"odd \\\"name\\\"\\\\\",type=\"cpu\"} 1.5",
		"loadd_load_processes{load=\"odd \\\"name\\\"\\\\\",type=\"cpu\"} 3",
		"# TYPE loadd_load_cycles_total counter",
		"# TYPE loadd_load_processes gauge",
	};
	struct api_view v;
	char *out = NULL;

	api_view_init(&v, &test_profile);
	v.loads = loads;
	v.nloads = 1;
	CAPTURE(out, metrics_write(fp, &v));
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!has_line(out, want[i]))
			fail_msg("missing line: %s\n--- in ---\n%s", want[i], out);
	/* Between phases there is no phase to name. */
	assert_null(strstr(out, "loadd_phase_info{"));
	free(out);
	api_view_free(&v);
}

/* Rows as db_phases_list gives them (xmalloc'd texts: the view frees them). */
static struct phase_row *phase_rows(void)
{
	struct phase_row *rows = calloc(3, sizeof *rows);

	rows[0] = (struct phase_row){ .id = 1,
				      .round = 1,
				      .name = strdup("warm"),
				      .cache = strdup("warm"),
				      .loads = strdup(""),
				      .ended_at = 10,
				      .valid = true };
	rows[1] = (struct phase_row){ .id = 2,
				      .round = 1,
				      .name = strdup("memory"),
				      .cache = strdup("warm"),
				      .loads = strdup("mem"),
				      .ended_at = 20,
				      .valid = true,
				      .weak = strdup("mem: psi_memory 0.0% (expected > 0.0%)") };
	/* running: no figures yet */
	rows[2] = (struct phase_row){ .id = 3,
				      .round = 2,
				      .name = strdup("warm"),
				      .cache = strdup("warm"),
				      .loads = strdup("") };
	return rows;
}

/* A finished phase's weak and valid figures, from the phase record's
 * table: 1 for the weak one, 0 for the other; a running phase has none.
 * The status lists every phase with its weak text. */
static void test_weak_phases(void **state)
{
	static const char *const want[] = {
		"# TYPE loadd_phase_weak gauge",
		"loadd_phase_weak{phase=\"warm\",round=\"1\"} 0",
		"loadd_phase_weak{phase=\"memory\",round=\"1\"} 1",
		"loadd_phase_valid{phase=\"memory\",round=\"1\"} 1",
	};
	struct api_view v;
	json_t *doc, *rows_json;
	char *out = NULL;

	api_view_init(&v, &test_profile);
	api_view_set_phase_rows(&v, phase_rows(), 3);
	CAPTURE(out, metrics_write(fp, &v));
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (!has_line(out, want[i]))
			fail_msg("missing line: %s\n--- in ---\n%s", want[i], out);
	assert_null(strstr(out, "round=\"2\""));
	free(out);

	doc = status_json(&v);
	rows_json = json_object_get(doc, "phases");
	assert_int_equal(json_array_size(rows_json), 3);
	assert_true(json_is_null(json_object_get(json_array_get(rows_json, 0), "weak")));
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(rows_json, 1), "weak")),
		"mem: psi_memory 0.0% (expected > 0.0%)");
	assert_string_equal(
		json_string_value(json_object_get(json_array_get(rows_json, 1), "name")), "memory");
	json_decref(doc);
	api_view_free(&v);
}

/* PSI the kernel does not have is left out, never sent as NaN. */
static void test_pressure_without_psi(void **state)
{
	struct api_view v;
	char *out = NULL;

	api_view_init(&v, &test_profile);
	v.has_sys = true;
	v.sys = (struct sys_sample){ .cpu_busy_pct = 50,
				     .psi_cpu_some = 12.5,
				     .psi_cpu_full = NAN,
				     .psi_mem_some = NAN,
				     .psi_mem_full = NAN,
				     .psi_io_some = NAN,
				     .psi_io_full = NAN,
				     .load1 = 0.5,
				     .ctxt_per_s = 10 };
	CAPTURE(out, metrics_write(fp, &v));
	assert_true(has_line(out,
			     "loadd_pressure_stalled_ratio{resource=\"cpu\",kind=\"some\"} 0.125"));
	assert_true(has_line(out, "loadd_cpu_busy_ratio 0.5"));
	assert_null(strstr(out, "NaN"));
	assert_null(strstr(out, "kind=\"full\""));
	free(out);
	api_view_free(&v);
}

/* JSON has no NaN, and text from outside may not be UTF-8: the status
 * document must still come out whole. */
static void test_status_json(void **state)
{
	struct load_view loads[] = {
		{ .st = { .name = "bad\xff\xfe", .type = "cpu", .cpu_ms = NAN, .ramping = true } },
	};
	struct api_view v;
	json_t *doc, *l;
	char *text;

	api_view_init(&v, &test_profile);
	v.loads = loads;
	v.nloads = 1;
	v.has_sys = true;
	v.sys = (struct sys_sample){ .psi_cpu_some = NAN, .cpu_busy_pct = 10 };
	api_view_phase_begin(&v, 1, 1, 3, 100.5);
	add(&v, 3, 0, NAN, true);

	doc = status_json(&v);
	assert_non_null(doc);
	text = json_dumps(doc, 0);
	assert_non_null(text);
	l = json_array_get(json_object_get(doc, "loads"), 0);
	assert_string_equal(json_string_value(json_object_get(l, "name")), "bad??");
	assert_true(json_is_null(json_object_get(l, "cpu_s")));
	assert_true(json_is_true(json_object_get(l, "ramping")));
	assert_true(json_is_null(json_object_get(
		json_object_get(json_object_get(json_object_get(doc, "system"), "psi"), "cpu"),
		"some")));
	assert_string_equal(
		json_string_value(json_object_get(json_object_get(doc, "phase"), "name")), "cpu");
	assert_int_equal(json_integer_value(json_object_get(json_object_get(doc, "run"), "rounds")),
			 2);
	free(text);
	json_decref(doc);
	api_view_free(&v);
}

/* Every probe's histogram: a wakeup probe's seconds and an fsync probe's
 * operations land per probe and phase name, cumulative, +Inf = count; the
 * status gives each probe's figures over the current phase. */
static void test_probe_latency(void **state)
{
	static const struct {
		const char *line;
		bool present;
	} want[] = {
		{ "# TYPE loadd_probe_latency_seconds histogram", true },
		{ "loadd_probe_latency_seconds_bucket{probe=\"wake\",type=\"wakeup\",phase=\"cpu\","
		  "le=\"5e-05\"} 0",
		  true },
		{ "loadd_probe_latency_seconds_bucket{probe=\"wake\",type=\"wakeup\",phase=\"cpu\","
		  "le=\"0.0001\"} 90",
		  true },
		{ "loadd_probe_latency_seconds_bucket{probe=\"wake\",type=\"wakeup\",phase=\"cpu\","
		  "le=\"0.025\"} 99",
		  true },
		{ "loadd_probe_latency_seconds_bucket{probe=\"wake\",type=\"wakeup\",phase=\"cpu\","
		  "le=\"+Inf\"} 100",
		  true },
		{ "loadd_probe_latency_seconds_count{probe=\"wake\",type=\"wakeup\",phase=\"cpu\"} "
		  "100",
		  true },
		{ "loadd_probe_latency_seconds_count{probe=\"wake\",type=\"wakeup\",phase=\"none\"} "
		  "0",
		  true },
		{ "loadd_probe_latency_seconds_count{probe=\"save\",type=\"fsync\",phase=\"cpu\"} 1",
		  true },
		{ "loadd_probe_operation_failures_total{probe=\"save\",type=\"fsync\","
		  "phase=\"cpu\"} 1",
		  true },
	};
	struct probe_inst_def probes[] = {
		{ .name = "wake", .type = "wakeup", .ops = probe_find("wakeup") },
		{ .name = "save", .type = "fsync", .ops = probe_find("fsync") },
	};
	struct profile p = test_profile;
	struct hist *h = calloc(1, sizeof *h);
	struct sample ok = { .phase_id = 11, .wall_ms = 2 },
		      bad = { .phase_id = 11, .failed = true };
	struct api_view v;
	json_t *status, *wake;
	char *out = NULL;

	assert_non_null(h);
	p.probes = probes;
	p.nprobes = 2;
	api_view_init(&v, &p);
	/* 90 wake-ups 70 us late, 9 at 2 ms, one at 50 ms */
	for (int i = 0; i < 90; i++)
		hist_add(h, 70000);
	for (int i = 0; i < 9; i++)
		hist_add(h, 2000000);
	hist_add(h, 50000000);
	api_view_add_probe_hist(&v, 0, 11, h); /* no phase yet: counted nowhere */
	api_view_phase_begin(&v, 1, 1, 11, 0);
	api_view_add_probe_hist(&v, 0, 11, h);
	api_view_add_probe_hist(&v, 0, 12, h); /* another phase's */
	api_view_add_probe_sample(&v, 1, &ok);
	api_view_add_probe_sample(&v, 1, &bad);

	CAPTURE(out, metrics_write(fp, &v));
	for (size_t i = 0; i < sizeof want / sizeof want[0]; i++)
		if (has_line(out, want[i].line) != want[i].present)
			fail_msg("%s line: %s\n--- in ---\n%s",
				 want[i].present ? "missing" : "unexpected", want[i].line, out);
	free(out);

	status = status_json(&v);
	wake = json_array_get(json_object_get(status, "probes"), 0);
	assert_string_equal(json_string_value(json_object_get(wake, "type")), "wakeup");
	assert_int_equal(json_integer_value(json_object_get(wake, "n")), 100);
	assert_int_equal(json_integer_value(json_object_get(wake, "over_16_7ms")), 1);
	assert_true(fabs(json_real_value(json_object_get(wake, "p50_ms")) - 0.07) < 0.001);
	assert_true(json_real_value(json_object_get(wake, "max_ms")) == 50);
	json_decref(status);
	api_view_free(&v);
	free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_label_values),
		cmocka_unit_test(test_values),
		cmocka_unit_test(test_histogram),
		cmocka_unit_test(test_probe_latency),
		cmocka_unit_test(test_latest_keeps_the_newest),
		cmocka_unit_test(test_loads_and_escaping),
		cmocka_unit_test(test_pressure_without_psi),
		cmocka_unit_test(test_status_json),
		cmocka_unit_test(test_weak_phases),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
