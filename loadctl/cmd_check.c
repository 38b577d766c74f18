// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl check: did a run regress against a baseline? For a kernel's or a
 * distribution's CI: exit 0 when no figure got worse beyond the band, 1 when
 * one did (listed), 2 when the check could not be made. */
#include <getopt.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "compare_data.h"
#include "json_build.h"
#include "loadctl.h"
#include "log.h"
#include "table.h"
#include "term_escape.h"
#include "xalloc.h"

#define CHECK_OK 0
#define CHECK_REGRESSED 1
#define CHECK_CANNOT 2

/* One figure of one phase, the run against the baseline. */
struct check_item {
	char *phase;
	struct cmp_figure f;
	struct change ch; /* the run (b) against the baseline (a) */
	const char *why;  /* not compared: "missing", "invalid", ... */
	bool regressed;
};

struct check {
	struct cmp_run runs[2]; /* 0: the baseline, 1: the run checked */
	char *against_name;     /* the baseline's name, NULL for a run given as such */
	struct change_opts opts;
	struct check_item *items;
	size_t nitems;
};

/* --against NAME: the run that baseline names in the database; else a run. */
static int resolve_against(struct loadctl *lc, const char *against, struct check *k)
{
	struct db *db;
	void *rows = NULL;
	size_t n = 0, i;
	int rc = -1;

	if (cmp_run_parse(against, lc->db_path, &k->runs[0]) == 0)
		return 0;
	db = loadctl_open_db(lc);
	if (db == NULL)
		return -2;
	if (db_list(db, REC_BASELINE, 0, 0, &rows, &n) == 0) {
		const struct baseline_row *b = rows;

		for (i = 0; i < n && rc < 0; i++) {
			if (strcmp(b[i].name, against) != 0)
				continue;
			k->runs[0].spec = xstrdup(against);
			k->runs[0].db_path = xstrdup(lc->db_path);
			k->runs[0].run_id = b[i].run_id;
			k->against_name = xstrdup(against);
			rc = 0;
		}
		db_rows_free(REC_BASELINE, rows, n);
	}
	db_close(db);
	return rc;
}

static bool regression(const struct change *ch, const struct cmp_figure *f)
{
	return ch->verdict == (f->higher_better ? CHANGE_LOWER : CHANGE_HIGHER);
}

static void add_item(struct check *k, const char *phase, const struct cmp_figure *f)
{
	struct cmp_ranking rk;
	struct check_item *it;

	k->items = xreallocarray(k->items, k->nitems + 1, sizeof *k->items);
	it = &k->items[k->nitems++];
	memset(it, 0, sizeof *it);
	it->phase = xstrdup(phase);
	it->f.higher_better = f->higher_better;
	it->f.load = f->load ? xstrdup(f->load) : NULL;
	it->f.probe = f->probe ? xstrdup(f->probe) : NULL;
	cmp_rank(k->runs, 2, phase, &it->f, &k->opts, &rk);
	it->why = rk.why[1] ? rk.why[1] : rk.why[0];
	if (it->why == NULL) {
		it->ch = cmp_pair(&rk, 0, 1);
		it->regressed = regression(&it->ch, &it->f);
	}
	cmp_ranking_free(&rk);
}

/* Every phase of the run checked: the job's time and each of its loads. */
static void check_all(struct check *k)
{
	const struct run_report *rep = &k->runs[1].rep;
	size_t i, j;

	for (i = 0; i < rep->nphases; i++) {
		const struct report_phase *p = &rep->phases[i];
		struct cmp_figure f = { NULL, NULL, false };

		add_item(k, p->name, &f);
		for (j = 0; j < p->nload; j++) {
			f = (struct cmp_figure){ p->load[j].name, NULL, true };
			add_item(k, p->name, &f);
		}
		for (j = 0; j < p->nprobe; j++) {
			if (!cmp_probe_shown(&p->probe[j]))
				continue;
			f = (struct cmp_figure){ NULL, p->probe[j].name, false };
			add_item(k, p->name, &f);
		}
	}
}

static const char *item_verdict(const struct check_item *it)
{
	if (it->why != NULL)
		return it->why;
	if (it->regressed)
		return "REGRESSED";
	switch (it->ch.verdict) {
	case CHANGE_EQUIVALENT: return "no significant change";
	case CHANGE_INCONCLUSIVE: return "inconclusive";
	case CHANGE_UNTESTABLE: return "no figures";
	default: return "better";
	}
}

static char *pct(double ratio)
{
	return isfinite(ratio) ? xasprintf("%+.1f%%", (ratio - 1) * 100) : xstrdup("-");
}

static size_t print_text(const struct check *k)
{
	static const char *const head[] = { "Phase",  "Figure",       "Baseline", "Run",
					    "change", "95% interval", "verdict" };
	struct table t;
	size_t i, bad = 0;

	printf("Run       %s (run %lld of %s)\n", k->runs[1].spec, (long long)k->runs[1].rep.run.id,
	       k->runs[1].db_path);
	printf("Against   %s (run %lld of %s)\n", k->runs[0].spec, (long long)k->runs[0].rep.run.id,
	       k->runs[0].db_path);
	printf("Band      ±%g%%\n\n", k->opts.threshold * 100);
	table_init(&t, head, "llrrrrl");
	for (i = 0; i < k->nitems; i++) {
		const struct check_item *it = &k->items[i];
		bool have = it->why == NULL;
		char *row[7];

		row[0] = xstrdup(it->phase);
		row[1] = it->f.load    ? xasprintf("load %s", it->f.load)
			 : it->f.probe ? xasprintf("probe %s", it->f.probe)
				       : xstrdup("job time");
		row[2] = have ? (it->f.load ? fmt_count(it->ch.median_a) : fmt_ms(it->ch.median_a))
			      : xstrdup("-");
		row[3] = have ? (it->f.load ? fmt_count(it->ch.median_b) : fmt_ms(it->ch.median_b))
			      : xstrdup("-");
		row[4] = have ? pct(it->ch.ratio) : xstrdup("-");
		if (have && isfinite(it->ch.ci_low) && isfinite(it->ch.ci_high)) {
			char *lo = pct(it->ch.ci_low), *hi = pct(it->ch.ci_high);

			row[5] = xasprintf("%s .. %s", lo, hi);
			free(lo);
			free(hi);
		} else {
			row[5] = xstrdup("-");
		}
		row[6] = xstrdup(item_verdict(it));
		table_row(&t, row);
		bad += it->regressed;
	}
	table_print(&t, stdout);
	table_free(&t);
	printf("(job time and probes: median ms, worse when higher (a histogram probe: of each "
	       "second's p99);\n load: cycles per second, worse when lower)\n\n");
	if (bad == 0) {
		printf("OK: nothing regressed beyond ±%g%%\n", k->opts.threshold * 100);
		return 0;
	}
	for (i = 0; i < k->nitems; i++)
		if (k->items[i].regressed)
			printf("REGRESSED: %s, %s%s %+.1f%%\n", k->items[i].phase,
			       k->items[i].f.load    ? "load "
			       : k->items[i].f.probe ? "probe "
						     : "job time",
			       k->items[i].f.load    ? k->items[i].f.load
			       : k->items[i].f.probe ? k->items[i].f.probe
						     : "",
			       (k->items[i].ch.ratio - 1) * 100);
	return bad;
}

static size_t print_json(const struct check *k)
{
	json_t *root = json_object(), *items = json_array();
	size_t i, bad = 0;

	for (i = 0; i < k->nitems; i++) {
		const struct check_item *it = &k->items[i];
		json_t *o = json_object();
		bool have = it->why == NULL;

		json_set(o, "phase", json_text(it->phase));
		json_set(o, "figure",
			 json_string(it->f.load    ? "load"
				     : it->f.probe ? "probe"
						   : "time"));
		json_set(o, "load", it->f.load ? json_text(it->f.load) : json_null());
		json_set(o, "probe", it->f.probe ? json_text(it->f.probe) : json_null());
		json_set(o, "baseline_median", json_real_or_null(have ? it->ch.median_a : NAN));
		json_set(o, "median", json_real_or_null(have ? it->ch.median_b : NAN));
		json_set(o, "ratio", json_real_or_null(have ? it->ch.ratio : NAN));
		json_set(o, "ci_low", json_real_or_null(have ? it->ch.ci_low : NAN));
		json_set(o, "ci_high", json_real_or_null(have ? it->ch.ci_high : NAN));
		json_set(o, "verdict", json_string(item_verdict(it)));
		json_set(o, "regressed", json_boolean(it->regressed));
		json_array_append_new(items, o);
		bad += it->regressed;
	}
	json_set(root, "run", json_text(k->runs[1].spec));
	json_set(root, "run_id", json_integer(k->runs[1].rep.run.id));
	json_set(root, "db", json_text(k->runs[1].db_path));
	json_set(root, "against", json_text(k->runs[0].spec));
	json_set(root, "against_run_id", json_integer(k->runs[0].rep.run.id));
	json_set(root, "against_db", json_text(k->runs[0].db_path));
	json_set(root, "baseline", k->against_name ? json_text(k->against_name) : json_null());
	json_set(root, "threshold", json_real(k->opts.threshold));
	json_set(root, "regressed", json_boolean(bad > 0));
	json_set(root, "figures", items);
	json_dumpf(root, stdout, JSON_INDENT(2) | JSON_REAL_PRECISION(15));
	putchar('\n');
	json_decref(root);
	return bad;
}

static void check_free(struct check *k)
{
	size_t i;

	for (i = 0; i < k->nitems; i++) {
		free(k->items[i].phase);
		free((char *)k->items[i].f.load);
		free((char *)k->items[i].f.probe);
	}
	free(k->items);
	cmp_run_free(&k->runs[0]);
	cmp_run_free(&k->runs[1]);
	free(k->against_name);
}

/* Both runs read and over one tree; CHECK_CANNOT after a message if not. */
static int load_both(struct check *k)
{
	const char *fa, *fb;

	if (cmp_run_load(&k->runs[0]) < 0 || cmp_run_load(&k->runs[1]) < 0)
		return CHECK_CANNOT;
	fa = k->runs[0].rep.run.tree_fingerprint;
	fb = k->runs[1].rep.run.tree_fingerprint;
	if (strcmp(fa, fb) != 0) {
		log_error("%s and %s timed different trees (fingerprints %s and %s): nothing to "
			  "check",
			  k->runs[0].spec, k->runs[1].spec, fa[0] ? fa : "none",
			  fb[0] ? fb : "none");
		return CHECK_CANNOT;
	}
	return CHECK_OK;
}

static int cmd_check_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "against", required_argument, NULL, 'a' },
		{ "threshold", required_argument, NULL, 't' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	struct check k = { 0 };
	const char *against = NULL, *run = "0";
	bool json = false;
	int opt, status;

	change_opts_default(&k.opts);
	while ((opt = getopt_long(argc, argv, "a:t:jh", longopts, NULL)) != -1) {
		switch (opt) {
		case 'a': against = optarg; break;
		case 't':
			k.opts.threshold = cmp_parse_threshold(optarg);
			if (k.opts.threshold < 0)
				return loadctl_usage_error(self,
							   "--threshold '%s' is not a "
							   "percentage between 0 and 100",
							   optarg);
			break;
		case 'j': json = true; break;
		case 'h': return loadctl_usage(self);
		default: return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (against == NULL)
		return loadctl_usage_error(self, "against what? give --against NAME|RUN");
	if (argc - optind > 1)
		return loadctl_usage_error(self, "too many arguments");
	if (argc - optind == 1)
		run = argv[optind];
	/* "0" is the latest run of --db, as loadctl_find_run takes it. */
	if (strcmp(run, "0") == 0) {
		k.runs[1].spec = xstrdup("latest");
		k.runs[1].db_path = xstrdup(lc->db_path);
	} else if (cmp_run_parse(run, lc->db_path, &k.runs[1]) < 0) {
		return loadctl_usage_error(self, "'%s' is not a run: give RUN or DB:RUN", run);
	}
	switch (resolve_against(lc, against, &k)) {
	case 0: break;
	case -1:
		log_error("'%s' is neither a baseline of %s nor a run (loadctl baseline list)",
			  against, lc->db_path);
		check_free(&k);
		return CHECK_CANNOT;
	default: check_free(&k); return CHECK_CANNOT;
	}
	status = load_both(&k);
	if (status == CHECK_OK) {
		if (!json)
			term_guard_stdout();
		check_all(&k);
		status = (json ? print_json(&k) : print_text(&k)) > 0 ? CHECK_REGRESSED : CHECK_OK;
	}
	check_free(&k);
	return status;
}

const struct loadctl_cmd cmd_check_entry = {
	.name = "check",
	.args = "[RUN] --against NAME|RUN [--threshold PCT] [--json]",
	.summary = "exit 1 if RUN (default: the latest) regressed against a baseline, 0 if not",
	.exec = cmd_check_exec,
};
