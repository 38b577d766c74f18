// SPDX-License-Identifier: GPL-2.0-or-later
/* loadtop's views: a snapshot of one run as read from the database, and the
 * panels that show it. Each panel is one const struct panel_ops (update its
 * text from a snapshot, draw that text), gathered in panel_table[]. The same
 * text serves the curses screen and the plain batch output. */
#ifndef LOADTOP_VIEW_H
#define LOADTOP_VIEW_H

#include <curses.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "db.h"

/* ---- text: lines of bytes, each byte with a style class ---- */

#define TLINE_BYTES 480

enum tclass {
	TC_NORMAL,
	TC_TITLE, /* a panel's name */
	TC_HEAD,  /* column heads, labels */
	TC_VALUE, /* a figure worth the eye */
	TC_GOOD,
	TC_WARN,
	TC_BAD,
	TC_DIM,
	TC_SPARK,
	TC_COUNT
};

struct tline {
	unsigned short len;  /* bytes used in s */
	unsigned short cols; /* terminal columns they take */
	char s[TLINE_BYTES];
	unsigned char cls[TLINE_BYTES];
};

struct text {
	struct tline *lines;
	size_t n, cap;
	size_t sticky; /* leading lines that stay put while the rest scrolls */
	int width;     /* columns a line may take */
};

void text_reset(struct text *t, int width);
void text_free(struct text *t);
/* Starts a new line and returns it; later appends go to it. */
struct tline *text_line(struct text *t);
/* Appends to the current line, cut at the text's width. Control characters
 * become '?', so a message from the database cannot move the cursor. */
void text_add(struct text *t, enum tclass cls, const char *s);
void text_addf(struct text *t, enum tclass cls, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Pads the current line with blanks up to column col, or with one blank
 * when a wide field already reaches it, so columns never run together. */
void text_pad(struct text *t, int col);
bool text_equal(const struct text *a, const struct text *b);
void text_copy(struct text *dst, const struct text *src);

/* ---- the snapshot ---- */

#define RECENT_MAX 200

/* One phase of the run with its probe figures (successful jobs only). */
struct phase_view {
	int64_t id;
	long round;
	long seq;
	char *name;
	char *loads;
	char *invalid_reason;
	char *weak; /* what a load that fell short reached; "" when none */
	double started_at, probe_start, ended_at;
	bool valid;
	bool done;
	size_t n; /* successful jobs */
	size_t failed;
	int64_t missed;
	double last_ms; /* NaN before the first job */
	double median;
	double p95;
	double cpu_pct; /* mean of the successful jobs' CPU% */
	double ratio;   /* median / the baseline phase's median; NaN: unknown */
};

enum load_state { LOAD_STARTING, LOAD_RUNNING, LOAD_STALLED, LOAD_STOPPED };

/* One load of the shown phase, from its last two counter rows. */
struct load_view {
	char *name;
	char *type; /* as the run recorded the load; "" when it did not */
	enum load_state state;
	int procs;
	int restarts;
	uint64_t errors;
	bool stalled;
	double rate;    /* per second in unit; NaN with fewer than two rows */
	char *unit;     /* "MiB/s", or the loader's own ("passes/s"); "" when unknown */
	double cpu_pct; /* % of one core; NaN with fewer than two rows */
};

struct hist;

/* A probe other than the job, over the current phase. */
struct probe_line {
	char *name;
	char *type;
	char *units; /* of the figures below: ms for histograms and the job */
	bool histogram;
	size_t n; /* operations, or wake-ups */
	size_t failed;
	double last_ms; /* sample probes: the newest; NaN before the first */
	double p50, p99, max;
	double recent[RECENT_MAX]; /* the newest times, or each second's p99, oldest first */
	bool recent_failed[RECENT_MAX];
	size_t nrecent;
	struct hist *hist_acc; /* while reading */
};

struct snapshot {
	double now; /* the instant shown: now while running, the end after */
	struct run_row run;
	size_t phases_per_round; /* from the stored profile; 0 when unknown */
	struct phase_view *phases;
	size_t nphases;
	long current;              /* index of the phase the probe and loads show; -1 none */
	double recent[RECENT_MAX]; /* the current phase's last jobs, oldest first */
	bool recent_failed[RECENT_MAX];
	size_t nrecent;
	struct probe_line *probes; /* the current phase's other probes */
	size_t nprobes;
	struct load_view *loads;
	size_t nloads;
	struct sys_sample sys;
	bool have_sys;
	struct event *events; /* newest first */
	size_t nevents;
	double last_data; /* newest stamp in the database, for staleness */
};

void snapshot_free(struct snapshot *s);
bool snapshot_running(const struct snapshot *s);
const struct phase_view *snapshot_phase(const struct snapshot *s);
const char *load_state_name(enum load_state st);

/* Reads snapshots of one run (or of the latest, following new runs). */
struct source;

struct source *source_new(struct db *db, int64_t run_id);
void source_free(struct source *src);
enum source_result { SOURCE_OK, SOURCE_NO_RUN, SOURCE_RUN_NOT_FOUND, SOURCE_ERROR };
/* Fills out (freed first) with the run's state now. Nothing is read again
 * while the database has not changed and the run is over. */
enum source_result source_read(struct source *src, struct snapshot *out);
int64_t source_run_id(const struct source *src);

/* ---- formatting shared by the panels ---- */

/* "1.23", "n/a" for NaN, with the given decimals. */
void fmt_num(char *buf, size_t len, double v, int decimals);
/* Whether the locale's charset is UTF-8 (set once by the caller). */
extern bool view_utf8;
/* Recent response times as a sparkline of `cols` columns (the newest last),
 * Unicode blocks in a UTF-8 locale, ASCII otherwise. */
void sparkline(struct text *t, const struct snapshot *s, int cols);
/* The same for any series. */
void sparkline_values(struct text *t, const double *v, const bool *failed, size_t n, int cols);

/* ---- panels ---- */

struct panel_ops {
	const char *name;
	/* A list: it takes the rows the fixed panels leave, arrows scroll it. */
	bool scrolls;
	/* Its newest lines are at the bottom: it starts scrolled to the end. */
	bool tail;
	void (*update)(const struct snapshot *s, struct text *out);
	/* Draws text (its sticky lines, then from line `scroll` on) in win. */
	void (*draw)(WINDOW *win, const struct text *t, size_t scroll);
};

extern const struct panel_ops panel_header_ops;
extern const struct panel_ops panel_probe_ops;
extern const struct panel_ops panel_loads_ops;
extern const struct panel_ops panel_system_ops;
extern const struct panel_ops panel_phases_ops;
extern const struct panel_ops panel_events_ops;

/* Top to bottom. */
extern const struct panel_ops *const panel_table[];
extern const size_t panel_count;

/* The draws the panels use: the text with its classes as curses attributes;
 * the titled one shows the first line as a bar across the window. */
void text_draw(WINDOW *win, const struct text *t, size_t scroll);
void text_draw_titled(WINDOW *win, const struct text *t, size_t scroll);
/* Curses attribute for each class (set up by the screen). */
extern chtype tclass_attr[TC_COUNT];

#endif
