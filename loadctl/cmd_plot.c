// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl plot: one figure of a run as an SVG or PNG file, for papers and
 * issue trackers; the same figures `report --html` puts in its page. */
#include <errno.h>
#include <stdint.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "figures.h"
#include "gnuplot.h"
#include "loadctl.h"
#include "log.h"
#include "report.h"
#include "xalloc.h"

static int parse_format(const char *s, enum plot_format *f)
{
	if (strcmp(s, "svg") == 0)
		*f = PLOT_SVG;
	else if (strcmp(s, "png") == 0)
		*f = PLOT_PNG;
	else
		return -1;
	return 0;
}

/* The format a file name asks for: .png is PNG, anything else SVG. */
static enum plot_format format_of(const char *path)
{
	size_t n = strlen(path);

	return n > 4 && strcmp(path + n - 4, ".png") == 0 ? PLOT_PNG : PLOT_SVG;
}

static int write_file(const char *path, const char *data, size_t len)
{
	FILE *out = strcmp(path, "-") == 0 ? stdout : fopen(path, "wb");

	if (out == NULL) {
		log_error("%s: %s", path, strerror(errno));
		return -1;
	}
	if (fwrite(data, 1, len, out) != len || (out != stdout && fclose(out) != 0)) {
		log_error("%s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

/* A probe's index by name (NULL: the first, the job); SIZE_MAX for none. */
static size_t probe_index(const struct run_figures *rf, const char *name)
{
	if (name == NULL)
		return 0;
	for (size_t i = 0; i < run_figures_nprobes(rf); i++)
		if (strcmp(run_figures_probe(rf, i), name) == 0)
			return i;
	return SIZE_MAX;
}

/* The figure's script for the run; LOADCTL_OK, or LOADCTL_ERROR after a
 * message (no such run, nothing to draw). */
static int make_script(struct loadctl *lc, int64_t run_id, int kind, const char *probe,
		       char **script, size_t *len)
{
	struct db *db = loadctl_open_db(lc);
	struct run_report rep;
	struct run_figures *rf;
	int rc;

	if (db == NULL)
		return LOADCTL_ERROR;
	if (loadctl_find_run(lc, db, &run_id) != LOADCTL_OK ||
	    report_build(db, run_id, &rep) != 0) {
		db_close(db);
		return LOADCTL_ERROR;
	}
	rf = run_figures_load(db, &rep);
	db_close(db);
	rc = rf != NULL ? figure_script(rf, kind, probe_index(rf, probe), script, len) : -1;
	if (rc == 1 && probe != NULL && probe_index(rf, probe) == SIZE_MAX)
		log_error("run %lld has no probe '%s'", (long long)run_id, probe);
	else if (rc == 1)
		log_error("run %lld has nothing to draw in a %s figure", (long long)run_id,
			  figure_defs[kind].name);
	run_figures_free(rf);
	report_free(&rep);
	return rc == 0 ? LOADCTL_OK : LOADCTL_ERROR;
}

static void list_figures(FILE *fp)
{
	for (int i = 0; i < FIGURE_COUNT; i++)
		fprintf(fp, "  %-13s %s\n", figure_defs[i].name, figure_defs[i].caption);
}

static int cmd_plot_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc, char **argv)
{
	static const struct option longopts[] = {
		{ "format", required_argument, NULL, 'f' },
		{ "probe", required_argument, NULL, 'p' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const char *format = NULL, *probe = NULL;
	enum plot_format fmt;
	int64_t run_id = 0;
	int opt, kind, rc;
	char *script, *image, *err;
	size_t len, image_len;

	while ((opt = getopt_long(argc, argv, "f:p:h", longopts, NULL)) != -1) {
		switch (opt) {
		case 'f': format = optarg; break;
		case 'p': probe = optarg; break;
		case 'h':
			loadctl_usage(self);
			printf("Figures:\n");
			list_figures(stdout);
			return LOADCTL_OK;
		default: return loadctl_usage_error(self, "unknown option '%s'", argv[optind - 1]);
		}
	}
	if (argc - optind < 2)
		return loadctl_usage_error(self, "a FIGURE and a FILE are needed");
	if (argc - optind > 3)
		return loadctl_usage_error(self, "too many arguments");
	if ((kind = figure_find(argv[optind])) < 0) {
		log_error("no figure '%s'; there are:", argv[optind]);
		list_figures(stderr);
		return LOADCTL_USAGE;
	}
	if (format != NULL && parse_format(format, &fmt) < 0)
		return loadctl_usage_error(self, "--format is svg or png, not '%s'", format);
	if (format == NULL)
		fmt = format_of(argv[optind + 1]);
	if (argc - optind == 3 && loadctl_parse_run(argv[optind + 2], &run_id) < 0)
		return loadctl_usage_error(self, "'%s' is not a run id (see loadctl runs)",
					   argv[optind + 2]);
	if ((rc = make_script(lc, run_id, kind, probe, &script, &len)) != LOADCTL_OK)
		return rc;
	rc = gnuplot_render(script, len, fmt, figure_defs[kind].width, figure_defs[kind].height,
			    &image, &image_len, &err);
	free(script);
	if (rc < 0) {
		log_error("%s", err);
		free(err);
		return LOADCTL_ERROR;
	}
	rc = write_file(argv[optind + 1], image, image_len);
	free(image);
	return rc == 0 ? LOADCTL_OK : LOADCTL_ERROR;
}

const struct loadctl_cmd cmd_plot_entry = {
	.name = "plot",
	.args = "[--format svg|png] [--probe NAME] FIGURE FILE|- [RUN]",
	.summary = "one figure of a run (distribution, ecdf, histogram, timeline) as SVG or PNG",
	.exec = cmd_plot_exec,
};
