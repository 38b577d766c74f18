// SPDX-License-Identifier: GPL-2.0-or-later
/* Profiles: fixture files in tests/data/profiles. Good ones are read into
 * the structs they mean; each bad one must give exactly its expected
 * "file:line: message" lines, every problem of the file at once. Paths are
 * relative to the data dir so the messages are the same everywhere. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "loader.h"
#include "options.h"
#include "probe.h"
#include "profile.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))

/* A stand-in for the loaders' validate: knows three types, refuses keys
 * that start with "bad" (with a continuation line, as a loader may print),
 * and parses "label" into a config whose string profile_free must free. */
struct fake_config {
	char *label;
};

/* clang-format off */
static const struct option_def fake_options[] = {
	{ "label", OPT_STRING, offsetof(struct fake_config, label), "none", 0, 0, NULL, NULL, "" },
	{ NULL },
};
/* clang-format on */

static int validate_calls;

static int fake_validate(struct load_def *def, const char *file, FILE *errs)
{
	struct fake_config *cfg;
	struct kv label[1];
	size_t i, nlabel = 0;
	int problems = 0;

	validate_calls++;
	if (strcmp(def->type, "cpu") != 0 && strcmp(def->type, "memory") != 0 &&
	    strcmp(def->type, "write") != 0) {
		fprintf(errs, "%s:%d: unknown loader type '%s'\n", file, def->line, def->type);
		problems++;
	}
	for (i = 0; i < def->nkv; i++) {
		assert_string_not_equal(def->kvs[i].key, "type");
		if (strncmp(def->kvs[i].key, "bad", 3) == 0) {
			fprintf(errs, "%s:%d: unknown key '%s' in [load %s]\n  (a second line)\n",
				file, def->kvs[i].line, def->kvs[i].key, def->name);
			problems++;
		}
		if (strcmp(def->kvs[i].key, "label") == 0)
			label[nlabel++] = def->kvs[i];
	}
	cfg = calloc(1, sizeof *cfg);
	assert_non_null(cfg);
	problems += options_apply(fake_options, cfg, label, nlabel, file, "load", errs);
	def->config = cfg;
	def->options = fake_options;
	def->loader = fake_options; /* anything not NULL */
	def->stall_ms = 10000;
	return problems;
}

/* Loads path; returns the problems and what was printed (malloc'd). */
static int load(const char *path, struct profile *p, load_validate_fn validate, char **out)
{
	const struct profile_checks checks = { validate, probe_kind_find, probe_names };
	size_t len = 0;
	FILE *fp;
	int n;

	*out = NULL;
	fp = open_memstream(out, &len);
	assert_non_null(fp);
	n = profile_load(path, p, &checks, fp);
	fclose(fp);
	return n;
}

static int setup(void **state)
{
	return chdir(TEST_DATA_DIR);
}

static void check_loads(const struct phase_def *ph, const char *const *want)
{
	size_t i;

	for (i = 0; want[i] != NULL; i++) {
		assert_true(i < ph->nloads);
		assert_string_equal(ph->loads[i], want[i]);
	}
	assert_int_equal(ph->nloads, i);
	assert_null(ph->loads == NULL ? NULL : ph->loads[i]);
}

static void test_good_full(void **state)
{
	static const char *const no_loads[] = { NULL };
	static const char *const both_loads[] = { "cpu", "mem", "disk", NULL };
	struct profile p;
	const struct load_def *ld;
	char *out;
	int pass;

	for (pass = 0; pass < 2; pass++) {
		validate_calls = 0;
		assert_int_equal(
			load("profiles/good-full.conf", &p, pass ? fake_validate : NULL, &out), 0);
		assert_string_equal(out, "");
		free(out);
		assert_int_equal(validate_calls, pass ? 3 : 0);

		assert_string_equal(p.path, "profiles/good-full.conf");
		assert_string_equal(p.name, "good-full");
		assert_non_null(strstr(p.text, "[load disk]\ntype = write\n"));
		assert_int_equal(p.run.rounds, 3);
		assert_int_equal(p.run.settle_ms, 90000);
		assert_string_equal(p.run.baseline, "idle");

		assert_string_equal(p.probe.job, "sh -c 'ls -R \"{tree}\" | wc -l'");
		assert_string_equal(p.probe.argv[0], "sh");
		assert_string_equal(p.probe.argv[1], "-c");
		assert_string_equal(p.probe.argv[2], "ls -R \"{tree}\" | wc -l");
		assert_null(p.probe.argv[3]);
		assert_int_equal(p.probe.every_ms, 500);
		assert_int_equal(p.probe.timeout_ms, 120000);
		assert_int_equal(p.probe.tree.depth, 3);
		assert_int_equal(p.probe.tree.fanout, 6);
		assert_int_equal(p.probe.tree.files, 10); /* the default, kept */
		assert_int_equal(p.probe.tree.file_size, 512);

		/* Phases in file order. */
		assert_int_equal(p.nphases, 3);
		assert_string_equal(p.phases[0].name, "cold-start");
		assert_int_equal(p.phases[0].line, 13);
		assert_int_equal(p.phases[0].duration_ms, 10000);
		assert_int_equal(p.phases[0].settle_ms, 0);
		assert_int_equal(p.phases[0].cache, CACHE_COLD);
		check_loads(&p.phases[0], no_loads);
		assert_string_equal(p.phases[1].name, "idle");
		assert_int_equal(p.phases[1].line, 18);
		assert_int_equal(p.phases[1].duration_ms, 3600000);
		assert_int_equal(p.phases[1].settle_ms, -1);
		assert_int_equal(p.phases[1].cache, CACHE_WARM);
		check_loads(&p.phases[1], no_loads);
		assert_string_equal(p.phases[2].name, "both");
		assert_int_equal(p.phases[2].line, 22);
		assert_int_equal(p.phases[2].duration_ms, 2000);
		assert_int_equal(p.phases[2].settle_ms, 500);
		check_loads(&p.phases[2], both_loads);

		/* Loads: type taken out, the other keys raw with their lines. */
		assert_int_equal(p.nloads, 3);
		ld = profile_load_by_name(&p, "mem");
		assert_ptr_equal(ld, &p.loads[1]);
		assert_int_equal(ld->line, 31);
		assert_string_equal(ld->type, "memory");
		assert_int_equal(ld->nkv, 2);
		assert_string_equal(ld->kvs[0].key, "size");
		assert_string_equal(ld->kvs[0].value, "ram+swap-64M");
		assert_int_equal(ld->kvs[0].line, 32);
		assert_string_equal(ld->kvs[1].key, "mode");
		assert_string_equal(ld->kvs[1].value, "fill");
		assert_int_equal(ld->kvs[1].line, 34);
		assert_int_equal(p.loads[2].nkv, 0);
		assert_null(profile_load_by_name(&p, "idle"));
		if (pass) {
			assert_string_equal(((struct fake_config *)ld->config)->label, "none");
			assert_int_equal(ld->stall_ms, 10000);
		} else {
			assert_null(ld->config);
		}

		assert_ptr_equal(profile_baseline(&p), &p.phases[1]);
		/* 3 x ((0 + 10s) + (1m30s + 1h) + (500ms + 2s)) */
		assert_int_equal(profile_total_ms(&p), 3 * (10000 + 3690000 + 2500));
		profile_free(&p);
		assert_null(p.path);
		profile_free(&p); /* freeing twice is harmless */
	}
}

/* One header and nothing else: every default. */
static void test_good_minimal(void **state)
{
	struct profile p;
	char *out;

	assert_int_equal(load("profiles/good-minimal.conf", &p, fake_validate, &out), 0);
	assert_string_equal(out, "");
	free(out);
	assert_string_equal(p.name, "good-minimal");
	assert_int_equal(p.run.rounds, 1);
	assert_int_equal(p.run.settle_ms, 3000);
	assert_null(p.run.baseline);
	assert_string_equal(p.probe.job, "ls -R {tree}");
	assert_string_equal(p.probe.argv[2], "{tree}");
	assert_int_equal(p.probe.every_ms, 1000);
	assert_int_equal(p.probe.timeout_ms, 60000);
	assert_int_equal(p.probe.tree.depth, 4);
	assert_int_equal(p.probe.tree.fanout, 8);
	assert_int_equal(p.probe.tree.files, 10);
	assert_int_equal(p.probe.tree.file_size, 0);
	assert_int_equal(p.nphases, 1);
	assert_string_equal(p.phases[0].name, "warm");
	assert_int_equal(p.phases[0].line, 1);
	assert_int_equal(p.phases[0].duration_ms, 30000);
	assert_int_equal(p.phases[0].settle_ms, -1);
	assert_int_equal(p.phases[0].cache, CACHE_WARM);
	assert_int_equal(p.phases[0].nloads, 0);
	assert_int_equal(p.nloads, 0);
	assert_ptr_equal(profile_baseline(&p), &p.phases[0]);
	assert_int_equal(profile_total_ms(&p), 33000);
	profile_free(&p);
}

static void test_no_baseline(void **state)
{
	struct profile p;
	char *out;

	assert_int_equal(load("profiles/good-loads-only.conf", &p, fake_validate, &out), 0);
	assert_string_equal(out, "");
	free(out);
	assert_null(profile_baseline(&p));
	assert_int_equal(p.phases[1].nloads, 2);
	assert_string_equal(p.phases[1].loads[1], "spin2");
	assert_int_equal(profile_total_ms(&p), 2 * 3000 + 2 * 1000);
	profile_free(&p);
}

/* The profiles the project ships parse cleanly and mean what they say. */
static void test_shipped_profiles(void **state)
{
	static const struct {
		const char *path;
		long rounds;
		int64_t every_ms;
		size_t nphases;
		int64_t total_ms;
	} cases[] = {
		{ "../../config/quick.conf", 1, 500, 3, 3 * (2000 + 12000) },
		{ "../../config/none.conf", 1, 1000, 1, 3000 + 30000 },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		struct profile p;
		char *out;

		if (load(cases[i].path, &p, loader_validate, &out) != 0)
			fail_msg("%s:\n%s", cases[i].path, out);
		free(out);
		assert_int_equal(p.run.rounds, cases[i].rounds);
		assert_int_equal(p.probe.every_ms, cases[i].every_ms);
		assert_int_equal(p.nphases, cases[i].nphases);
		assert_int_equal(profile_total_ms(&p), cases[i].total_ms);
		assert_ptr_equal(profile_baseline(&p), &p.phases[0]);
		profile_free(&p);
	}
}

/* Every profile loadd ships is valid with the real loaders (fs needs dbench,
 * which the test set-up installs). */
static void test_every_shipped_profile(void **state)
{
	static const char *const names[] = { "quick", "none",    "cpu",    "memory",
					     "io",    "desktop", "contest" };
	size_t i;

	for (i = 0; i < NCASES(names); i++) {
		struct profile p;
		char path[64], *out;

		snprintf(path, sizeof path, "../../config/%s.conf", names[i]);
		if (load(path, &p, loader_validate, &out) != 0)
			fail_msg("%s:\n%s", path, out);
		if (strstr(out, "warning") != NULL)
			fail_msg("%s warns:\n%s", path, out);
		free(out);
		assert_true(p.nphases > 0);
		profile_free(&p);
	}
}

/* Without the probe kinds (a report reading a stored profile), [probe NAME]
 * sections keep their type and keys as written, unchecked and unparsed. */
static void test_probes_unchecked(void **state)
{
	struct profile p;
	char *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);

	assert_non_null(fp);
	assert_int_equal(profile_load("profiles/good-probes.conf", &p, NULL, fp), 0);
	fclose(fp);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(p.nprobes, 3);
	assert_ptr_equal(profile_job_probe(&p), &p.probes[0]);
	assert_string_equal(p.probe.job, "ls {tree}");
	assert_string_equal(p.probes[1].type, "wakeup");
	assert_null(p.probes[1].ops);
	assert_null(p.probes[1].config);
	assert_string_equal(p.probes[2].type, "fsync");
	assert_string_equal(p.probes[2].options_text, "size = 8K\n");
	profile_free(&p);
}

/* [probe NAME] sections of several kinds, and phases that run a subset; the
 * old [probe] is the job probe named job (good-full has one). */
static void test_good_probes(void **state)
{
	struct profile p;
	char *out;

	assert_int_equal(load("profiles/good-probes.conf", &p, fake_validate, &out), 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(p.nprobes, 3);
	assert_string_equal(p.probes[0].name, "ls");
	assert_string_equal(p.probes[0].type, "job");
	assert_ptr_equal(p.probes[0].config, &p.probe);
	assert_ptr_equal(profile_job_probe(&p), &p.probes[0]);
	assert_string_equal(p.probe.job, "ls {tree}");
	assert_int_equal(p.probe.every_ms, 500);
	assert_string_equal(p.probes[1].name, "wakeup");
	assert_string_equal(p.probes[1].type, "wakeup");
	assert_string_equal(p.probes[1].options_text, "interval = 2ms\nthreads = cpus\n");
	assert_string_equal(p.probes[2].name, "save");
	assert_string_equal(p.probes[2].type, "fsync");
	assert_true(profile_phase_runs_probe(&p, &p.phases[0], 0));
	assert_true(profile_phase_runs_probe(&p, &p.phases[0], 2));
	assert_false(profile_phase_runs_probe(&p, &p.phases[1], 0));
	assert_true(profile_phase_runs_probe(&p, &p.phases[1], 1));
	assert_true(profile_phase_runs_probe(&p, &p.phases[1], 2));
	assert_int_equal(profile_probe_index(&p, "save"), 2);
	assert_int_equal(profile_probe_index(&p, "nosuch"), -1);
	profile_free(&p);

	/* a first-release profile: one job probe, named job */
	assert_int_equal(load("profiles/good-full.conf", &p, fake_validate, &out), 0);
	free(out);
	assert_int_equal(p.nprobes, 1);
	assert_string_equal(p.probes[0].name, "job");
	assert_ptr_equal(p.probes[0].config, &p.probe);
	profile_free(&p);

	/* no probe section at all: the job probe with its defaults */
	assert_int_equal(load("profiles/good-minimal.conf", &p, fake_validate, &out), 0);
	free(out);
	assert_int_equal(p.nprobes, 1);
	assert_string_equal(p.probes[0].type, "job");
	assert_int_equal(p.probe.every_ms, 1000);
	profile_free(&p);
}

/* want with %K replaced by the probe kinds loadd knows (probe_table[]). */
static char *with_known_probes(const char *want)
{
	char known[256], *out = NULL;
	size_t len = 0;
	FILE *fp = open_memstream(&out, &len);
	const char *at;

	assert_non_null(fp);
	probe_names(known, sizeof known);
	while ((at = strstr(want, "%K")) != NULL) {
		fwrite(want, 1, (size_t)(at - want), fp);
		fputs(known, fp);
		want = at + 2;
	}
	fputs(want, fp);
	fclose(fp);
	return out;
}

static void test_bad_profiles(void **state)
{
	static const struct {
		const char *path;
		int problems;
		const char *want;
	} cases[] = {
		{ "profiles/bad-syntax.conf", 5,
		  "profiles/bad-syntax.conf:1: key 'rounds' comes before any [section]\n"
		  "profiles/bad-syntax.conf:2: section header without a closing ']'\n"
		  "profiles/bad-syntax.conf:4: unexpected text after ']'\n"
		  "profiles/bad-syntax.conf:6: expected 'key = value', a [section] header or a comment\n"
		  "profiles/bad-syntax.conf:7: a key name is missing before '='\n" },
		{ "profiles/bad-sections.conf", 9,
		  "profiles/bad-sections.conf:1: unknown section [frobnicate]; expected [run], [probe NAME], "
		  "[phase NAME] or [load NAME]\n"
		  "profiles/bad-sections.conf:5: section [run] given twice (first at line 3)\n"
		  "profiles/bad-sections.conf:7: [phase] needs a name, as in [phase warm]\n"
		  "profiles/bad-sections.conf:9: [load] needs a name, as in [load cpu]\n"
		  "profiles/bad-sections.conf:10: invalid phase name 'two words': use letters, digits, "
		  "'-', '_' and '.'\n"
		  "profiles/bad-sections.conf:12: section [phase ok] given twice (first at line 11)\n"
		  "profiles/bad-sections.conf:13: [probe extra] has no type; known: %K\n"
		  "profiles/bad-sections.conf:14: invalid load name 'x,y': use letters, digits, '-', "
		  "'_' and '.'\n"
		  "profiles/bad-sections.conf:15: unknown section [Phase up]; expected [run], [probe NAME], "
		  "[phase NAME] or [load NAME]\n" },
		{ "profiles/bad-values.conf", 13,
		  "profiles/bad-values.conf:2: unknown key 'round' in [run]; did you mean 'rounds'?\n"
		  "profiles/bad-values.conf:3: settle = 11m is out of range (0..10m)\n"
		  "profiles/bad-values.conf:4: baseline has no value\n"
		  "profiles/bad-values.conf:7: unknown key 'evrey' in [probe]; did you mean 'every'?\n"
		  "profiles/bad-values.conf:8: every = 5ms is out of range (10ms..1h)\n"
		  "profiles/bad-values.conf:9: timeout: invalid duration 'forever': expected a number\n"
		  "profiles/bad-values.conf:10: tree: invalid value 'depth=3 colour=red': unknown key "
		  "'colour' (keys: depth, fanout, files, size)\n"
		  "profiles/bad-values.conf:15: duplicate key 'duration' in [phase a] (first set at "
		  "line 14)\n"
		  "profiles/bad-values.conf:16: cache: invalid value 'hot': expected warm or cold\n"
		  "profiles/bad-values.conf:17: settle: invalid duration '-1s': expected a number\n"
		  "profiles/bad-values.conf:18: loads: invalid value ',': no load names\n"
		  "profiles/bad-values.conf:21: loads: invalid value 'x x': a load is named twice\n"
		  "profiles/bad-values.conf:22: unknown key 'cahce' in [phase b]; did you mean "
		  "'cache'?\n" },
		/* The unused load is a warning: printed, not counted. */
		{ "profiles/bad-refs.conf", 2,
		  "profiles/bad-refs.conf:2: baseline 'warm' names no phase (the phases are: idle, cpu)\n"
		  "profiles/bad-refs.conf:7: phase 'cpu' names load 'ghost', which no [load ghost] "
		  "section defines\n"
		  "profiles/bad-refs.conf:13: warning: [load spare] is defined but no phase uses it\n" },
		/* The validate callback's lines land in line order among the others. */
		{ "profiles/bad-loads.conf", 7,
		  "profiles/bad-loads.conf:4: [load a] has no type\n"
		  "profiles/bad-loads.conf:9: duplicate key 'type' in [load b] (first set at line 8)\n"
		  "profiles/bad-loads.conf:11: duplicate key 'procs' in [load b] (first set at line 10)\n"
		  "profiles/bad-loads.conf:14: type has no value\n"
		  "profiles/bad-loads.conf:16: unknown loader type 'nosuch'\n"
		  "profiles/bad-loads.conf:18: unknown key 'bad' in [load d]\n"
		  "  (a second line)\n"
		  "profiles/bad-loads.conf:20: unknown key 'bad2' in [load d]\n"
		  "  (a second line)\n" },
		{ "profiles/bad-nophase.conf", 1,
		  "profiles/bad-nophase.conf:3: warning: [load x] is defined but no phase uses it\n"
		  "profiles/bad-nophase.conf: no [phase NAME] section; a profile needs at least one "
		  "phase\n" },
		{ "profiles/bad-job-quote.conf", 1,
		  "profiles/bad-job-quote.conf:2: job: invalid command 'sh -c 'ls {tree}': "
		  "unterminated ' quote\n" },
		{ "profiles/bad-job-empty.conf", 1,
		  "profiles/bad-job-empty.conf:2: job: invalid command ''' -l': the program name is "
		  "empty\n" },
		{ "profiles/bad-long-line.conf", 2,
		  "profiles/bad-long-line.conf:2: line too long (the limit is 198 characters)\n"
		  "profiles/bad-long-line.conf:4: duration: invalid duration '1x': unknown unit (use "
		  "ms, s, m or h)\n" },
		{ "profiles/bad-probes.conf", 7,
		  "profiles/bad-probes.conf:4: probe name 'job' is taken (line 1: [probe] is the job "
		  "probe, named job)\n"
		  "profiles/bad-probes.conf:7: a profile has one job probe; [probe other] is a second "
		  "(the first is at line 1)\n"
		  "profiles/bad-probes.conf:11: unknown probe type 'nosuch'; known: %K\n"
		  "profiles/bad-probes.conf:14: interval = 0ms is out of range (1ms..1s)\n"
		  "profiles/bad-probes.conf:15: threads: invalid value 'many': expected 1..256 or "
		  "'cpus' (one per CPU)\n"
		  "profiles/bad-probes.conf:19: phase 'a' names probe 'ghost', which no [probe ghost] "
		  "section defines\n"
		  "profiles/bad-probes.conf:23: probes: invalid value 'x x': a probe is named twice\n" },
		{ "profiles/nosuch.conf", 1,
		  "profiles/nosuch.conf: cannot read the profile: No such file or directory\n" },
		{ "profiles", 1, "profiles: cannot read the profile: Is a directory\n" },
	};
	size_t i;

	for (i = 0; i < NCASES(cases); i++) {
		struct profile p;
		char *out;
		int n = load(cases[i].path, &p, fake_validate, &out);
		char *want = with_known_probes(cases[i].want);

		if (n != cases[i].problems || strcmp(out, want) != 0)
			fail_msg("%s: %d problem(s):\n%s\nwant %d:\n%s", cases[i].path, n, out,
				 cases[i].problems, want);
		free(want);
		free(out);
		/* A refused profile leaves nothing to free. */
		assert_null(p.path);
		assert_null(p.phases);
		assert_int_equal(p.nphases, 0);
	}
}

/* Files the repository should not hold as fixtures: a NUL byte, CRLF line
 * ends and a BOM, made in a temp dir. */
static void test_odd_bytes(void **state)
{
	static const char nul[] = "[phase a]\nduration = 1s\0junk\n[phase b]\nduration = 2x\n";
	static const char crlf[] = "\xEF\xBB\xBF[run]\r\nrounds = 2\r\n[phase a]\r\n";
	char dir[] = "/tmp/loadd-test-profile.XXXXXX", cwd[4096], *out;
	struct profile p;
	FILE *fp;

	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	fp = fopen("nul.conf", "w");
	assert_non_null(fp);
	fwrite(nul, 1, sizeof nul - 1, fp);
	fclose(fp);
	fp = fopen("crlf.conf", "w");
	assert_non_null(fp);
	fputs(crlf, fp);
	fclose(fp);

	assert_int_equal(load("nul.conf", &p, NULL, &out), 2);
	assert_string_equal(out,
			    "nul.conf:2: NUL byte in the line (is this a text file?)\n"
			    "nul.conf:4: duration: invalid duration '2x': unknown unit (use ms, "
			    "s, m or h)\n");
	free(out);
	assert_int_equal(load("crlf.conf", &p, NULL, &out), 0);
	assert_string_equal(out, "");
	free(out);
	assert_int_equal(p.run.rounds, 2);
	assert_string_equal(p.phases[0].name, "a");
	profile_free(&p);

	unlink("nul.conf");
	unlink("crlf.conf");
	assert_int_equal(chdir(cwd), 0);
	rmdir(dir);
}

/* With the real loaders' validate: the config it parses is kept (and freed
 * by profile_free), and its messages join the profile's. */
static void test_real_loaders(void **state)
{
	struct profile p;
	const struct load_def *ld;
	char *out;

	assert_int_equal(load("profiles/good-cpu.conf", &p, loader_validate, &out), 0);
	assert_string_equal(out, "");
	free(out);
	ld = profile_load_by_name(&p, "cpu");
	assert_non_null(ld);
	assert_ptr_equal(ld->loader, loader_find("cpu"));
	assert_non_null(ld->config);
	assert_non_null(ld->options);
	assert_int_equal(ld->stall_ms, 10000);
	assert_int_equal(p.phases[0].cache, CACHE_COLD);
	assert_int_equal(profile_total_ms(&p), 3 * 2 * 33000);
	profile_free(&p);

	assert_int_equal(load("profiles/bad-cpu.conf", &p, loader_validate, &out), 2);
	/* Which words the loader uses is its own business: check the lines. */
	if (strncmp(out, "profiles/bad-cpu.conf:5: ", 25) != 0 ||
	    strstr(out, "\nprofiles/bad-cpu.conf:6: ") == NULL)
		fail_msg("unexpected messages:\n%s", out);
	free(out);
}

static void test_find(void **state)
{
	char dir[] = "/tmp/loadd-test-find.XXXXXX", cwd[4096], *path, *searched;
	FILE *fp;

	assert_non_null(getcwd(cwd, sizeof cwd));
	assert_non_null(mkdtemp(dir));
	assert_int_equal(chdir(dir), 0);
	assert_int_equal(mkdir("config", 0755), 0);
	fp = fopen("config/demo-h2-test.conf", "w");
	assert_non_null(fp);
	fclose(fp);

	/* Root never takes a profile from the current directory. */
	path = profile_find("demo-h2-test", &searched);
	if (geteuid() == 0) {
		assert_null(path);
		assert_null(strstr(searched, "./config"));
		free(searched);
	} else {
		assert_string_equal(path, "./config/demo-h2-test.conf");
		assert_null(searched);
		free(path);
	}

	/* A slash or a .conf ending make it a path, taken as given. */
	path = profile_find("sub/dir/x", &searched);
	assert_string_equal(path, "sub/dir/x");
	free(path);
	path = profile_find("nothere.conf", &searched);
	assert_string_equal(path, "nothere.conf");
	free(path);

	path = profile_find("nosuch-h2-test", &searched);
	assert_null(path);
	/* The test runs from the build tree: its source's config/ comes last. */
	assert_string_equal(
		searched,
		geteuid() == 0
			? "/etc/loadd/nosuch-h2-test.conf, " LOADD_PROFILE_DIR
			  "/nosuch-h2-test.conf, " LOADD_SOURCE_PROFILE_DIR "/nosuch-h2-test.conf"
			: "./config/nosuch-h2-test.conf, /etc/loadd/nosuch-h2-test.conf, " LOADD_PROFILE_DIR
			  "/nosuch-h2-test.conf, " LOADD_SOURCE_PROFILE_DIR "/nosuch-h2-test.conf");
	free(searched);

	unlink("config/demo-h2-test.conf");
	rmdir("config");
	assert_int_equal(chdir(cwd), 0);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_good_full),    cmocka_unit_test(test_good_minimal),
		cmocka_unit_test(test_no_baseline),  cmocka_unit_test(test_shipped_profiles),
		cmocka_unit_test(test_good_probes),  cmocka_unit_test(test_probes_unchecked),
		cmocka_unit_test(test_bad_profiles), cmocka_unit_test(test_odd_bytes),
		cmocka_unit_test(test_real_loaders), cmocka_unit_test(test_every_shipped_profile),
		cmocka_unit_test(test_find),
	};

	return cmocka_run_group_tests(tests, setup, NULL);
}
