// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl export: every sample of a run (or of all runs) as CSV or JSON,
 * one row per probe operation, streamed from one query so that a million
 * samples take seconds and little memory; or, with --probe NAME of a
 * histogram probe (wakeup), its histograms as one row per non-empty bucket
 * per second. A file is written as FILE.tmp and renamed into place, so FILE
 * is either complete or untouched. */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "csv.h"
#include "hist.h"
#include "json_build.h"
#include "loadctl.h"
#include "log.h"
#include "xalloc.h"

enum format { FORMAT_CSV, FORMAT_JSON };

/* The row's place (with its phase's weak load, if any: what the load
 * reached against its expectation), then every figure of the sample record
 * (records.c). */
static const char *const place_columns[] = {
	"run_id", "round", "phase", "phase_id", "probe", "weak"
};
/* A histogram's rows: its place, then one bucket's range and count. */
static const char *const hist_columns[] = { "run_id",       "round",   "phase", "phase_id",
					    "probe",        "variant", "t",     "bucket_lo_ns",
					    "bucket_hi_ns", "count" };

struct export
{
	struct db *db;
	FILE *fp;
	enum format format;
	struct csv csv;
	size_t rows;
	int64_t phase_id;   /* the phase whose name is in phase_json */
	char *phase_json;   /* its name as a JSON string, quotes included */
	const char *probe;  /* only this probe's rows; NULL: every probe's */
	int64_t probes_run; /* the run whose probes are below */
	struct probe_info *probes;
	size_t nprobes;
	bool failed; /* the database could not be read */
};

/* The probe's name for a sample of run_id ("job" in a run recorded before
 * probes had rows). */
static const char *probe_name(struct export *ex, int64_t run_id, int64_t probe_id)
{
	if (ex->probes == NULL || ex->probes_run != run_id) {
		db_probes_free(ex->probes, ex->nprobes);
		ex->probes = NULL;
		ex->nprobes = 0;
		if (db_probes_list(ex->db, run_id, &ex->probes, &ex->nprobes) < 0) {
			ex->failed = true;
			return "?";
		}
		ex->probes_run = run_id;
	}
	for (size_t i = 0; i < ex->nprobes; i++)
		if (ex->probes[i].id == probe_id)
			return ex->probes[i].name;
	return "?";
}

/* "2026-11-22T01:02:03.456Z" */
static void iso8601_utc(double t, char *buf, size_t len)
{
	long long ms = llround(t * 1000), secs = ms / 1000, frac = ms % 1000;
	time_t tt;
	struct tm tm;
	size_t n;

	if (frac < 0) {
		frac += 1000;
		secs--;
	}
	tt = (time_t)secs;
	gmtime_r(&tt, &tm);
	n = strftime(buf, len, "%Y-%m-%dT%H:%M:%S", &tm);
	snprintf(buf + n, len - n, ".%03lldZ", frac);
}

static void json_number(FILE *fp, double v)
{
	char buf[40];

	if (!isfinite(v)) {
		fputs("null", fp);
		return;
	}
	csv_format_double(buf, sizeof buf, v);
	fputs(buf, fp);
}

/* A name as a JSON string (null when it is not UTF-8). */
static void json_string_out(FILE *fp, const char *s)
{
	json_t *j = json_text(s);
	char *text = j ? json_dumps(j, JSON_ENCODE_ANY) : NULL;

	fputs(text ? text : "null", fp);
	free(text);
	json_decref(j);
}

static const struct record_type *sample_record(void)
{
	return &record_types[REC_SAMPLE];
}

static void write_csv_row(struct export *ex, int64_t run_id, const struct phase_row *ph,
			  const struct sample *s)
{
	const struct record_type *rt = sample_record();
	struct csv *c = &ex->csv;
	char started[40];

	csv_int(c, run_id);
	csv_int(c, ph->round);
	csv_str(c, ph->name);
	csv_int(c, ph->id);
	csv_str(c, probe_name(ex, run_id, s->probe_id));
	csv_str(c, ph->weak != NULL ? ph->weak : "");
	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *col = &rt->columns[i];
		double v = column_number(col, s);

		if (col->flags & COLF_KEY)
			continue;
		if (col->type == COL_TIME) {
			iso8601_utc(v, started, sizeof started);
			csv_str(c, started);
		} else if (column_is_integer(col)) {
			csv_int(c, (long long)column_integer(col, s));
		} else {
			csv_double(c, v);
		}
	}
	csv_end_record(c);
}

/* The phase name is the one free-text field: jansson escapes it, once per
 * phase. */
static const char *phase_name_json(struct export *ex, const struct phase_row *ph)
{
	if (ph->id != ex->phase_id || ex->phase_json == NULL) {
		json_t *name = json_text(ph->name);

		free(ex->phase_json);
		ex->phase_json = name ? json_dumps(name, JSON_ENCODE_ANY) : NULL;
		json_decref(name);
		if (ex->phase_json == NULL) /* not UTF-8: keep the row, drop the name */
			ex->phase_json = xstrdup("null");
		ex->phase_id = ph->id;
	}
	return ex->phase_json;
}

static void json_string_or_null(FILE *fp, const char *s)
{
	if (s == NULL || *s == '\0')
		fputs("null", fp);
	else
		json_string_out(fp, s);
}

/* Numbers are written as the CSV writes them. */
static void write_json_row(struct export *ex, int64_t run_id, const struct phase_row *ph,
			   const struct sample *s)
{
	const struct record_type *rt = sample_record();
	FILE *fp = ex->fp;
	char started[40];

	fprintf(fp,
		"%s\n{\"run_id\":%lld,\"round\":%ld,\"phase\":%s,\"phase_id\":%lld,"
		"\"probe\":",
		ex->rows ? "," : "", (long long)run_id, ph->round, phase_name_json(ex, ph),
		(long long)ph->id);
	json_string_out(fp, probe_name(ex, run_id, s->probe_id));
	fputs(",\"weak\":", fp);
	json_string_or_null(fp, ph->weak);
	for (size_t i = 0; i < rt->ncolumns; i++) {
		const struct column *col = &rt->columns[i];
		double v = column_number(col, s);

		if (col->flags & COLF_KEY)
			continue;
		fprintf(fp, ",\"%s\":", col->name);
		if (col->type == COL_TIME) {
			iso8601_utc(v, started, sizeof started);
			fprintf(fp, "\"%s\"", started);
		} else if (column_is_integer(col)) {
			fprintf(fp, "%lld", (long long)column_integer(col, s));
		} else {
			json_number(fp, v);
		}
	}
	fputc('}', fp);
}

static int export_row(void *arg, int64_t run_id, const struct phase_row *ph, const struct sample *s)
{
	struct export *ex = arg;

	if (ex->probe != NULL && strcmp(probe_name(ex, run_id, s->probe_id), ex->probe) != 0)
		return ex->failed ? -1 : 0;

	if (ex->format == FORMAT_CSV)
		write_csv_row(ex, run_id, ph, s);
	else
		write_json_row(ex, run_id, ph, s);
	ex->rows++;
	/* Stop at the first failed write (a full disk), not a million later. */
	return ferror(ex->fp) ? -1 : 0;
}

static void export_begin(struct export *ex, bool hists)
{
	size_t i;

	if (ex->format == FORMAT_JSON) {
		fputc('[', ex->fp);
		return;
	}
	csv_init(&ex->csv, ex->fp);
	if (hists) {
		for (i = 0; i < sizeof hist_columns / sizeof hist_columns[0]; i++)
			csv_str(&ex->csv, hist_columns[i]);
		csv_end_record(&ex->csv);
		return;
	}
	for (i = 0; i < sizeof place_columns / sizeof place_columns[0]; i++)
		csv_str(&ex->csv, place_columns[i]);
	for (i = 0; i < sample_record()->ncolumns; i++)
		if (!(sample_record()->columns[i].flags & COLF_KEY))
			csv_str(&ex->csv, sample_record()->columns[i].name);
	csv_end_record(&ex->csv);
}

/* ---- histograms, one row per non-empty bucket of each second ---- */

struct hist_export {
	struct export *ex;
	int64_t run_id;
	struct phase_row *phases;
	size_t nphases;
};

static const struct phase_row *phase_of(const struct hist_export *he, int64_t id)
{
	for (size_t i = 0; i < he->nphases; i++)
		if (he->phases[i].id == id)
			return &he->phases[i];
	return NULL;
}

static void hist_bucket_row(struct export *ex, int64_t run_id, const struct phase_row *ph,
			    const struct hist_record *h, size_t b)
{
	char t[40];

	iso8601_utc(h->t, t, sizeof t);
	if (ex->format == FORMAT_CSV) {
		csv_int(&ex->csv, run_id);
		csv_int(&ex->csv, ph->round);
		csv_str(&ex->csv, ph->name);
		csv_int(&ex->csv, ph->id);
		csv_str(&ex->csv, ex->probe);
		csv_int(&ex->csv, h->variant);
		csv_str(&ex->csv, t);
		csv_int(&ex->csv, (long long)hist_bucket_lo(b));
		csv_int(&ex->csv, (long long)hist_bucket_hi(b));
		csv_int(&ex->csv, h->hist->bucket[b]);
		csv_end_record(&ex->csv);
	} else {
		fprintf(ex->fp,
			"%s\n{\"run_id\":%lld,\"round\":%ld,\"phase\":%s,"
			"\"phase_id\":%lld,\"probe\":",
			ex->rows ? "," : "", (long long)run_id, ph->round, phase_name_json(ex, ph),
			(long long)ph->id);
		json_string_out(ex->fp, ex->probe);
		fprintf(ex->fp,
			",\"variant\":%d,\"t\":\"%s\",\"bucket_lo_ns\":%llu,"
			"\"bucket_hi_ns\":%llu,\"count\":%u}",
			h->variant, t, (unsigned long long)hist_bucket_lo(b),
			(unsigned long long)hist_bucket_hi(b), h->hist->bucket[b]);
	}
	ex->rows++;
}

static int export_hist(void *arg, const struct hist_record *h)
{
	struct hist_export *he = arg;
	const struct phase_row *ph = phase_of(he, h->phase_id);

	if (ph == NULL)
		return 0;
	for (size_t b = 0; b < HIST_BUCKETS; b++)
		if (h->hist->bucket[b] != 0)
			hist_bucket_row(he->ex, he->run_id, ph, h, b);
	return ferror(he->ex->fp) ? -1 : 0;
}

/* The histograms of ex->probe in one run (none when it has no such
 * histogram probe). */
static int export_run_hists(struct export *ex, int64_t run_id)
{
	struct hist_export he = { .ex = ex, .run_id = run_id };
	int64_t probe_id = -1;
	int rc;

	probe_name(ex, run_id, 0);
	for (size_t i = 0; i < ex->nprobes; i++)
		if (ex->probes[i].histogram && strcmp(ex->probes[i].name, ex->probe) == 0)
			probe_id = ex->probes[i].id;
	if (ex->failed)
		return -1;
	if (probe_id < 0)
		return 0;
	if (db_phases_list(ex->db, run_id, &he.phases, &he.nphases) < 0)
		return -1;
	rc = db_hists_foreach(ex->db, run_id, 0, probe_id, export_hist, &he);
	db_phase_rows_free(he.phases, he.nphases);
	return rc;
}

/* Is NAME a histogram probe of the run (or of any run)? */
static bool probe_is_histogram(struct export *ex, int64_t run_id, const char *name)
{
	struct run_row *runs = NULL;
	size_t nruns = 0;
	bool found = false;

	if (run_id != 0) {
		probe_name(ex, run_id, 0);
		for (size_t i = 0; i < ex->nprobes; i++)
			found |= ex->probes[i].histogram && strcmp(ex->probes[i].name, name) == 0;
		return found;
	}
	if (db_runs_list(ex->db, &runs, &nruns) < 0)
		return false;
	for (size_t r = 0; r < nruns && !found; r++)
		found = probe_is_histogram(ex, runs[r].id, name);
	db_rows_free(REC_RUN, runs, nruns);
	return found;
}

static int export_hists(struct export *ex, int64_t run_id)
{
	struct run_row *runs = NULL;
	size_t nruns = 0;
	int rc = 0;

	if (run_id != 0)
		return export_run_hists(ex, run_id);
	if (db_runs_list(ex->db, &runs, &nruns) < 0)
		return -1;
	/* oldest first, as the samples */
	for (size_t r = nruns; r-- > 0 && rc == 0;)
		rc = export_run_hists(ex, runs[r].id);
	db_rows_free(REC_RUN, runs, nruns);
	return rc;
}

static void export_end(struct export *ex)
{
	if (ex->format == FORMAT_JSON)
		fputs(ex->rows ? "\n]\n" : "]\n", ex->fp);
}

/* The temp file to remove if a signal ends the export half-way. */
static char *volatile tmp_path;

static void remove_tmp_and_die(int sig)
{
	if (tmp_path != NULL)
		unlink(tmp_path);
	signal(sig, SIG_DFL);
	raise(sig);
}

static void catch_signals(void (*handler)(int))
{
	static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
	struct sigaction sa;
	size_t i;

	memset(&sa, 0, sizeof sa);
	sa.sa_handler = handler;
	sigemptyset(&sa.sa_mask);
	for (i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
		sigaction(sigs[i], &sa, NULL);
}

static bool ends_with_ci(const char *s, const char *suffix)
{
	size_t ls = strlen(s), lx = strlen(suffix);

	return ls >= lx && strcasecmp(s + ls - lx, suffix) == 0;
}

/* Where the rows go: standard output, a device or FIFO written in place
 * (renaming over /dev/stdout would replace the device), or a regular file
 * written whole beside its target and renamed over it. */
enum dest { DEST_STDOUT, DEST_SPECIAL, DEST_FILE };

static int finish_file(FILE *fp, const char *path)
{
	int err = 0;

	if (fflush(fp) != 0 || ferror(fp) || fsync(fileno(fp)) < 0)
		err = errno ? errno : EIO;
	if (fclose(fp) != 0 && err == 0)
		err = errno;
	if (err != 0) {
		log_error("cannot write %s: %s", path, strerror(err));
		return -1;
	}
	return 0;
}

/* Writes the export to path ("-": stdout). Returns an exit status. */
static int export_to(struct db *db, int64_t run_id, enum format format, const char *path,
		     const char *probe)
{
	struct export ex = { .db = db, .format = format, .probe = probe };
	bool hists = probe != NULL && probe_is_histogram(&ex, run_id, probe);
	enum dest dest = DEST_FILE;
	char *target = NULL, *tmp = NULL;
	struct stat sb;
	int rc;

	if (strcmp(path, "-") == 0) {
		dest = DEST_STDOUT;
		ex.fp = stdout;
	} else if (stat(path, &sb) == 0 && S_ISDIR(sb.st_mode)) {
		log_error("cannot write %s: %s", path, strerror(EISDIR));
		return LOADCTL_ERROR;
	} else if (stat(path, &sb) == 0 && !S_ISREG(sb.st_mode)) {
		dest = DEST_SPECIAL;
		if ((ex.fp = fopen(path, "w")) == NULL) {
			log_error("cannot write %s: %s", path, strerror(errno));
			return LOADCTL_ERROR;
		}
	} else {
		/* Through a symlink, replace the file it points to. */
		target = realpath(path, NULL);
		if (target == NULL)
			target = xstrdup(path);
		tmp = xasprintf("%s.tmp", target);
		tmp_path = tmp;
		catch_signals(remove_tmp_and_die);
		if ((ex.fp = fopen(tmp, "w")) == NULL) {
			log_error("cannot write %s: %s", errno == EISDIR ? tmp : path,
				  strerror(errno));
			goto fail;
		}
	}
	/* Big writes: a million rows are ~100 MB. */
	setvbuf(ex.fp, NULL, _IOFBF, 1 << 20);
	export_begin(&ex, hists);
	if (hists)
		rc = export_hists(&ex, run_id);
	else
		rc = db_samples_foreach(db, run_id, export_row, &ex);
	if (ex.failed)
		rc = -1;
	export_end(&ex);
	free(ex.phase_json);
	db_probes_free(ex.probes, ex.nprobes);
	if (rc < 0 && !ferror(ex.fp)) {
		/* the database's own message is already out */
		log_error("export to %s stopped: the database could not be read", path);
		goto fail;
	}
	switch (dest) {
	case DEST_STDOUT: /* main() reports a failed write to stdout */
		return rc == 0 && fflush(stdout) == 0 ? LOADCTL_OK : LOADCTL_ERROR;
	case DEST_SPECIAL:
		if (fflush(ex.fp) != 0 || ferror(ex.fp)) {
			log_error("cannot write %s: %s", path, strerror(errno ? errno : EIO));
			fclose(ex.fp);
			return LOADCTL_ERROR;
		}
		fclose(ex.fp);
		return LOADCTL_OK;
	case DEST_FILE: break;
	}
	rc = finish_file(ex.fp, path);
	ex.fp = NULL;
	if (rc < 0)
		goto fail;
	if (rename(tmp, target) < 0) {
		log_error("cannot write %s: %s", path, strerror(errno));
		goto fail;
	}
	catch_signals(SIG_DFL);
	tmp_path = NULL;
	free(tmp);
	free(target);
	return LOADCTL_OK;
fail:
	if (ex.fp != NULL && dest != DEST_STDOUT)
		fclose(ex.fp);
	if (tmp != NULL) {
		unlink(tmp);
		catch_signals(SIG_DFL);
		tmp_path = NULL;
	}
	free(tmp);
	free(target);
	return LOADCTL_ERROR;
}

static int cmd_export_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc,
			   char **argv)
{
	static const struct option longopts[] = {
		{ "run", required_argument, NULL, 'r' },
		{ "format", required_argument, NULL, 'f' },
		{ "probe", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format_arg = NULL, *path, *probe = NULL;
	enum format format;
	bool all = false;
	int64_t run_id = 0;
	struct db *db;
	int opt, status;

	while ((opt = getopt_long(argc, argv, ":r:f:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'r':
			if (strcmp(optarg, "all") == 0)
				all = true;
			else if (loadctl_parse_run(optarg, &run_id) < 0)
				return loadctl_usage_error(
					self, "--run takes a run id or 'all', not '%s'", optarg);
			else
				all = false;
			break;
		case 'f': format_arg = optarg; break;
		case 'p': probe = optarg; break;
		case 'h': return loadctl_usage(self);
		case ':': return loadctl_usage_error(self, "%s needs a value", argv[optind - 1]);
		default: return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind >= argc)
		return loadctl_usage_error(self, "which FILE? ('-' for standard output)");
	if (argc - optind > 1)
		return loadctl_usage_error(self, "too many arguments");
	path = argv[optind];
	if (format_arg == NULL)
		format = ends_with_ci(path, ".json") ? FORMAT_JSON : FORMAT_CSV;
	else if (strcmp(format_arg, "csv") == 0)
		format = FORMAT_CSV;
	else if (strcmp(format_arg, "json") == 0)
		format = FORMAT_JSON;
	else
		return loadctl_usage_error(self, "--format is csv or json, not '%s'", format_arg);
	if (path[0] == '\0')
		return loadctl_usage_error(self, "FILE is empty");

	if ((db = loadctl_open_db(lc)) == NULL)
		return LOADCTL_ERROR;
	if (!all && loadctl_find_run(lc, db, &run_id) != LOADCTL_OK) {
		db_close(db);
		return LOADCTL_ERROR;
	}
	status = export_to(db, all ? 0 : run_id, format, path, probe);
	db_close(db);
	return status;
}

const struct loadctl_cmd cmd_export_entry = {
	.name = "export",
	.args = "[--run ID|all] [--format csv|json] [--probe NAME] FILE",
	.summary = "a run's samples as CSV or JSON (FILE '-': stdout); --probe: one probe's, "
		   "a histogram probe's as bucket rows",
	.exec = cmd_export_exec,
};
