// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl compare: two runs side by side, phase by phase: the change of the
 * job's median time, each run's own Ratio, and whether the jobs of one run
 * tend to take longer than those of the other (Mann-Whitney U). */
#include <getopt.h>
#include <math.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare_html.h"
#include "loadctl.h"
#include "json_build.h"
#include "term_escape.h"
#include "log.h"
#include "profile.h"
#include "report.h"
#include "stats.h"
#include "table.h"
#include "timeutil.h"
#include "xalloc.h"

/* One of the two runs. */
struct side {
	const char *spec;      /* as given: "3" or "old.db:2" */
	char *db_path;
	int64_t run_id;
	struct run_report rep;
	char *job;             /* the probe's job, from the stored profile */
	double **walls;        /* per report phase, the jobs' wall times */
	size_t *nwalls;
};

/* A phase name both runs have. */
struct phase_cmp {
	const struct report_phase *a, *b;
	struct summary sa, sb; /* of the wall times the test ranks */
	double change_pct;     /* median B / median A - 1, in % */
	bool tested;
	struct rank_test test;
	const char *verdict;
	char *note;
};

/* ---- reading a run ---- */

/* "RUN" in the --db database, or "DB:RUN"; -1 when spec is neither. */
static int parse_spec(const char *spec, const char *default_db, struct side *s)
{
	const char *colon = strrchr(spec, ':');

	if (colon == spec || loadctl_parse_run(colon ? colon + 1 : spec, &s->run_id) < 0)
		return -1;
	s->spec = spec;
	s->db_path = colon ? xstrndup(spec, (size_t)(colon - spec)) : xstrdup(default_db);
	return 0;
}

/* The job a stored profile timed: its [probe] job (the default when it sets
 * none); "?" when the text no longer parses. */
static char *profile_job(const struct run_row *run)
{
	struct profile p;
	char *job;

	if (profile_parse_text(run->profile_path, run->profile_text, &p, NULL, NULL) != 0)
		return xstrdup("?");
	job = xstrdup(p.probe.job);
	profile_free(&p);
	return job;
}

/* The run's report and every phase's wall times, read in one go. */
static int side_load(struct side *s)
{
	struct loadctl lc = { .db_path = s->db_path };
	struct db *db = loadctl_open_db(&lc);
	size_t i;
	int rc;

	if (db == NULL)
		return -1;
	if (loadctl_find_run(&lc, db, &s->run_id) != LOADCTL_OK) {
		db_close(db);
		return -1;
	}
	rc = report_build(db, s->run_id, &s->rep);
	if (rc != 0) {
		if (rc == 1) /* deleted since loadctl_find_run */
			log_error("no run %lld in %s", (long long)s->run_id, s->db_path);
		db_close(db);
		return -1;
	}
	s->walls = xcalloc(s->rep.nphases + 1, sizeof *s->walls);
	s->nwalls = xcalloc(s->rep.nphases + 1, sizeof *s->nwalls);
	for (i = 0; i < s->rep.nphases; i++) {
		if (report_phase_walls(db, &s->rep.phases[i], &s->walls[i], &s->nwalls[i]) < 0) {
			db_close(db);
			return -1;
		}
	}
	db_close(db);
	s->job = profile_job(&s->rep.run);
	return 0;
}

static void side_free(struct side *s)
{
	size_t i;

	for (i = 0; s->walls != NULL && i < s->rep.nphases; i++)
		free(s->walls[i]);
	free(s->walls);
	free(s->nwalls);
	report_free(&s->rep);
	free(s->db_path);
	free(s->job);
}

static const struct report_phase *find_phase(const struct side *s, const char *name, size_t *at)
{
	size_t i;

	for (i = 0; i < s->rep.nphases; i++) {
		if (strcmp(s->rep.phases[i].name, name) == 0) {
			*at = i;
			return &s->rep.phases[i];
		}
	}
	return NULL;
}

/* ---- comparing ---- */

/* b / a - 1, in %; NaN when either is missing */
static double change_pct(double a, double b)
{
	return a > 0 && isfinite(b) ? (b / a - 1) * 100 : NAN;
}

static void note_add(char **note, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void note_add(char **note, const char *fmt, ...)
{
	va_list ap;
	char *add, *joined;

	va_start(ap, fmt);
	if (vasprintf(&add, fmt, ap) < 0)
		fatalx("out of memory formatting a string");
	va_end(ap);
	joined = *note ? xasprintf("%s; %s", *note, add) : xstrdup(add);
	free(add);
	free(*note);
	*note = joined;
}

static void compare_phase(const struct side *a, size_t ia, const struct side *b, size_t ib,
			  struct phase_cmp *c)
{
	const struct report_phase *pa = &a->rep.phases[ia], *pb = &b->rep.phases[ib];
	/* summarize sorts; the rank test does not mind the order */
	double *wa = a->walls[ia], *wb = b->walls[ib];

	memset(c, 0, sizeof *c);
	c->a = pa;
	c->b = pb;
	summarize(wa, a->nwalls[ia], &c->sa);
	summarize(wb, b->nwalls[ib], &c->sb);
	c->change_pct = change_pct(c->sa.median, c->sb.median);

	if (strcmp(pa->cache, pb->cache) != 0)
		note_add(&c->note, "cache %s/%s", pa->cache, pb->cache);
	if (strcmp(pa->loads, pb->loads) != 0)
		note_add(&c->note, "loads '%s'/'%s'", pa->loads, pb->loads);
	if (pa->note[0] != '\0')
		note_add(&c->note, "A: %s", pa->note);
	if (pb->note[0] != '\0')
		note_add(&c->note, "B: %s", pb->note);

	/* A round loadd marked invalid never counts: with none valid left,
	 * there is nothing to compare. */
	if (pa->valid_rounds == 0 || pb->valid_rounds == 0) {
		c->verdict = pb->valid_rounds ? "invalid in A"
			   : pa->valid_rounds ? "invalid in B" : "invalid in both";
		return;
	}
	c->tested = mann_whitney(wa, c->sa.n, wb, c->sb.n, &c->test) == 0;
	if (!c->tested)
		c->verdict = c->sa.n ? "no samples in B" : "no samples in A";
	else if (c->test.shift > 0)
		c->verdict = "slower";
	else if (c->test.shift < 0)
		c->verdict = "faster";
	else
		c->verdict = "no significant change";
}

static bool loads_comparable(const struct phase_cmp *c)
{
	return c->a->nload > 0 && c->b->nload > 0;
}

/* ---- text ---- */

static char *fmt_change(double pct)
{
	return isfinite(pct) ? xasprintf("%+.1f%%", pct) : xstrdup("-");
}

static char *fmt_p(const struct phase_cmp *c)
{
	if (!c->tested)
		return xstrdup("-");
	return c->test.p < 0.001 ? xstrdup("<0.001") : xasprintf("%.3f", c->test.p);
}

static void print_side(const char *which, const struct side *s)
{
	const struct run_row *r = &s->rep.run;
	char started[64];

	format_wall(r->started_at, started, sizeof started);
	printf("%s     run %lld in %s (%s), profile %s, started %s\n", which, (long long)r->id,
	       s->db_path, r->status, r->profile_name, started);
	printf("      host %s, kernel %s\n", r->host, r->kernel);
}

/* "Only in A: cold, mem", when there are such phases. */
static void print_only(const char *which, const struct side *s, const struct side *other)
{
	size_t i, at;
	bool any = false;

	for (i = 0; i < s->rep.nphases; i++) {
		const char *name = s->rep.phases[i].name;

		if (find_phase(other, name, &at) != NULL)
			continue;
		if (any)
			printf(", %s", name);
		else
			printf("\nOnly in %s: %s", which, name);
		any = true;
	}
	if (any)
		putchar('\n');
}

/* The main table: one row per phase both runs have. */
static void print_phases(const struct phase_cmp *cmp, size_t ncmp)
{
	static const char *const head[] = {
		"Phase", "Time A", "Time B", "change", "Ratio A", "Ratio B", "n A", "n B",
		"p", "B vs A", "",
	};
	enum { NCOLS = sizeof head / sizeof head[0] };
	static const char align[] = "lrrrrrrrrll";
	_Static_assert(sizeof align - 1 == NCOLS, "one alignment per column");
	struct table t;
	size_t i;

	table_init(&t, head, align);
	for (i = 0; i < ncmp; i++) {
		const struct phase_cmp *c = &cmp[i];
		char *row[NCOLS];

		row[0] = xstrdup(c->a->name);
		row[1] = fmt_ms(c->sa.median);
		row[2] = fmt_ms(c->sb.median);
		row[3] = fmt_change(c->change_pct);
		row[4] = fmt_fixed(c->a->ratio, 2);
		row[5] = fmt_fixed(c->b->ratio, 2);
		row[6] = xasprintf("%zu", c->sa.n);
		row[7] = xasprintf("%zu", c->sb.n);
		row[8] = fmt_p(c);
		row[9] = xstrdup(c->verdict);
		row[10] = xstrdup(c->note ? c->note : "");
		table_row(&t, row);
	}
	table_print(&t, stdout);
	table_free(&t);
	printf("(Time: median job wall time, ms; change: B / A - 1; Ratio: to the run's own "
	       "no-load phase;\n p: Mann-Whitney U, two-sided; significant below 0.05)\n");
}

/* The loads' work and CPU%, for the phases with loads in both runs. */
static void print_loads(const struct phase_cmp *cmp, size_t ncmp)
{
	static const char *const head[] = {
		"Phase", "Loads A", "Loads B", "change", "LCPU% A", "LCPU% B",
	};
	enum { NCOLS = sizeof head / sizeof head[0] };
	static const char align[] = "lrrrrr";
	_Static_assert(sizeof align - 1 == NCOLS, "one alignment per column");
	struct table t;
	size_t i;

	table_init(&t, head, align);
	for (i = 0; i < ncmp; i++) {
		const struct phase_cmp *c = &cmp[i];
		char *row[NCOLS];

		if (!loads_comparable(c))
			continue;
		row[0] = xstrdup(c->a->name);
		row[1] = fmt_count(c->a->load_cycles);
		row[2] = fmt_count(c->b->load_cycles);
		row[3] = fmt_change(change_pct(c->a->load_cycles, c->b->load_cycles));
		row[4] = fmt_fixed(c->a->lcpu_pct, 1);
		row[5] = fmt_fixed(c->b->lcpu_pct, 1);
		table_row(&t, row);
	}
	if (t.nrows > 1) {
		printf("\nLoads over the probe window (load cycles and the loads' CPU%%, "
		       "mean per round)\n");
		table_print(&t, stdout);
	}
	table_free(&t);
}

static int print_text(const struct side *a, const struct side *b, const struct phase_cmp *cmp,
		      size_t ncmp, bool same_tree)
{
	const char *fa = a->rep.run.tree_fingerprint, *fb = b->rep.run.tree_fingerprint;

	print_side("A", a);
	print_side("B", b);
	if (same_tree)
		printf("Tree  %s\n", fa[0] ? fa : "-");
	else
		printf("Tree  A %s, B %s: compared anyway (--force)\n", fa[0] ? fa : "none",
		       fb[0] ? fb : "none");
	if (strcmp(a->job, b->job) == 0)
		printf("Job   %s\n", a->job);
	else
		printf("Job   A %s, B %s\n", a->job, b->job);
	putchar('\n');
	if (ncmp == 0)
		printf("No phase name in both runs.\n");
	else
		print_phases(cmp, ncmp);
	print_loads(cmp, ncmp);
	print_only("A", a, b);
	print_only("B", b, a);
	return 0;
}

/* ---- JSON ---- */

static json_t *json_side(const struct side *s)
{
	const struct run_row *r = &s->rep.run;
	json_t *o = json_object();

	json_set(o, "spec", json_text(s->spec));
	json_set(o, "db", json_text(s->db_path));
	json_set(o, "id", json_integer(r->id));
	json_set(o, "status", json_text(r->status));
	json_set(o, "profile", json_text(r->profile_name));
	json_set(o, "host", json_text(r->host));
	json_set(o, "kernel", json_text(r->kernel));
	json_set(o, "started_at", json_real_or_null(r->started_at));
	json_set(o, "tree_fingerprint", json_text(r->tree_fingerprint));
	json_set(o, "job", json_text(s->job));
	json_set(o, "baseline", s->rep.baseline ? json_text(s->rep.baseline) : json_null());
	return o;
}

static json_t *json_phase_side(const struct report_phase *p, const struct summary *s)
{
	json_t *o = json_object();

	json_set(o, "n", json_integer((json_int_t)s->n));
	json_set(o, "median_ms", json_real_or_null(s->median));
	json_set(o, "mean_ms", json_real_or_null(s->mean));
	json_set(o, "ratio", json_real_or_null(p->ratio));
	json_set(o, "valid_rounds", json_integer((json_int_t)p->valid_rounds));
	json_set(o, "rounds", json_integer((json_int_t)p->nrounds));
	json_set(o, "note", p->note[0] ? json_text(p->note) : json_null());
	json_set(o, "cache", json_text(p->cache));
	json_set(o, "loads", json_text(p->loads));
	json_set(o, "load_cycles", json_real_or_null(p->load_cycles));
	json_set(o, "lcpu_pct", json_real_or_null(p->lcpu_pct));
	return o;
}

static json_t *json_phase_cmp(const struct phase_cmp *c)
{
	json_t *o = json_object(), *test = json_null();

	if (c->tested) {
		test = json_object();
		json_set(test, "u", json_real_or_null(c->test.u));
		json_set(test, "z", json_real_or_null(c->test.z));
		json_set(test, "p", json_real_or_null(c->test.p));
		json_set(test, "significant", json_boolean(c->test.shift != 0));
	}
	json_set(o, "name", json_text(c->a->name));
	json_set(o, "a", json_phase_side(c->a, &c->sa));
	json_set(o, "b", json_phase_side(c->b, &c->sb));
	json_set(o, "change_pct", json_real_or_null(c->change_pct));
	json_set(o, "test", test);
	json_set(o, "verdict", json_text(c->verdict));
	json_set(o, "note", c->note ? json_text(c->note) : json_null());
	json_set(o, "load_cycles_change_pct",
	     loads_comparable(c) ? json_real_or_null(change_pct(c->a->load_cycles, c->b->load_cycles))
				 : json_null());
	return o;
}

static json_t *json_only(const struct side *s, const struct side *other)
{
	json_t *names = json_array();
	size_t i, at;

	for (i = 0; i < s->rep.nphases; i++)
		if (find_phase(other, s->rep.phases[i].name, &at) == NULL)
			json_array_append_new(names, json_text(s->rep.phases[i].name));
	return names;
}

static json_t *build_json(const struct side *a, const struct side *b, const struct phase_cmp *cmp,
			  size_t ncmp, bool same_tree)
{
	json_t *root = json_object(), *phases = json_array();
	size_t i;

	for (i = 0; i < ncmp; i++)
		json_array_append_new(phases, json_phase_cmp(&cmp[i]));
	json_set(root, "a", json_side(a));
	json_set(root, "b", json_side(b));
	json_set(root, "same_tree", json_boolean(same_tree));
	json_set(root, "same_job", json_boolean(strcmp(a->job, b->job) == 0));
	json_set(root, "test", json_text("Mann-Whitney U, two-sided, normal approximation"));
	json_set(root, "alpha", json_real(0.05));
	json_set(root, "phases", phases);
	json_set(root, "only_in_a", json_only(a, b));
	json_set(root, "only_in_b", json_only(b, a));
	return root;
}

static int print_json(const struct side *a, const struct side *b, const struct phase_cmp *cmp,
		      size_t ncmp, bool same_tree)
{
	json_t *root = build_json(a, b, cmp, ncmp, same_tree);
	int rc = json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));

	json_decref(root);
	if (rc == 0)
		putchar('\n');
	return rc;
}

/* ---- the command ---- */

static int cmd_compare_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc,
			    char **argv)
{
	static const struct option longopts[] = {
		{ "json", no_argument, NULL, 'j' },
		{ "html", required_argument, NULL, 'H' },
		{ "force", no_argument, NULL, 'f' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct side a = { 0 }, b = { 0 };
	struct phase_cmp *cmp = NULL;
	size_t ncmp = 0, i, ib;
	bool json = false, force = false, same_tree;
	const char *html = NULL;
	int opt, status = LOADCTL_ERROR;

	while ((opt = getopt_long(argc, argv, "jfh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'j':
			json = true;
			break;
		case 'f':
			force = true;
			break;
		case 'H':
			html = optarg;
			break;
		case 'h':
			return loadctl_usage(self);
		default:
			return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind != 2)
		return loadctl_usage_error(self, argc - optind < 2 ? "which two runs?"
								     : "too many arguments");
	if (json && html != NULL)
		return loadctl_usage_error(self, "--json and --html exclude each other");
	for (i = 0; i < 2; i++) {
		const char *spec = argv[optind + i];

		if (parse_spec(spec, lc->db_path, i ? &b : &a) < 0) {
			free(a.db_path);
			return loadctl_usage_error(self, "'%s' is not a run: give RUN or DB:RUN "
							 "(see loadctl runs)", spec);
		}
	}
	if (!json && html == NULL) /* a page is machine output, escaped as HTML */
		term_guard_stdout();
	if (side_load(&a) < 0 || side_load(&b) < 0)
		goto out;

	same_tree = strcmp(a.rep.run.tree_fingerprint, b.rep.run.tree_fingerprint) == 0;
	if (!same_tree) {
		const char *fa = a.rep.run.tree_fingerprint, *fb = b.rep.run.tree_fingerprint;

		if (!force) {
			log_error("runs %s and %s timed different trees (fingerprints %s and %s): "
				  "their times are not comparable (--force compares them anyway)",
				  a.spec, b.spec, fa[0] ? fa : "none", fb[0] ? fb : "none");
			goto out;
		}
		log_warn("runs %s and %s timed different trees (fingerprints %s and %s): "
			 "compared anyway, as --force asks", a.spec, b.spec, fa[0] ? fa : "none",
			 fb[0] ? fb : "none");
	}
	if (strcmp(a.job, b.job) != 0)
		log_warn("runs %s and %s timed different jobs ('%s' and '%s')", a.spec, b.spec,
			 a.job, b.job);

	cmp = xcalloc(a.rep.nphases + 1, sizeof *cmp);
	for (i = 0; i < a.rep.nphases; i++)
		if (find_phase(&b, a.rep.phases[i].name, &ib) != NULL)
			compare_phase(&a, i, &b, ib, &cmp[ncmp++]);
	if (html != NULL) {
		json_t *root = build_json(&a, &b, cmp, ncmp, same_tree);

		if (compare_html(html, root) == 0)
			status = LOADCTL_OK;
		json_decref(root);
	} else if ((json ? print_json : print_text)(&a, &b, cmp, ncmp, same_tree) == 0) {
		status = LOADCTL_OK;
	}
	for (i = 0; i < ncmp; i++)
		free(cmp[i].note);
	free(cmp);
out:
	side_free(&a);
	side_free(&b);
	return status;
}

const struct loadctl_cmd cmd_compare_entry = {
	.name = "compare",
	.args = "A B [--json] [--force] [--html FILE]",
	.summary = "two runs (RUN or DB:RUN) side by side, phase by phase",
	.exec = cmd_compare_exec,
};
