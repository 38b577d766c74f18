// SPDX-License-Identifier: GPL-2.0-or-later
/* The curses screen: one window per panel, stacked; the lists (phases,
 * events) share the rows the fixed panels leave. A panel is drawn only when
 * its text, its place or its scroll changed, into its window with
 * wnoutrefresh, and the terminal is updated once per frame with doupdate. */
#include "screen.h"

#include <curses.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "xalloc.h"

#define MIN_COLS 50
#define PANELS_MAX 8
#define FOOTER_ROWS 1

chtype tclass_attr[TC_COUNT];

struct slot {
	const struct panel_ops *ops;
	struct text cur;   /* built from the latest snapshot */
	struct text shown; /* what the window shows */
	WINDOW *win;
	int y, rows;
	size_t scroll; /* lines of the list scrolled past */
	bool follow;   /* a tail list stays at its end until scrolled up */
	bool damaged;  /* must be drawn whatever its text */
	size_t shown_scroll;
	bool shown_focus;
};

struct screen {
	struct slot slots[PANELS_MAX];
	size_t n;
	size_t focus; /* the list the arrows scroll */
	const struct snapshot *snap;
	int cols, lines; /* the size the text was built for */
	bool laid_out;
	bool too_small;
	int small_cols, small_lines; /* the size the message was drawn for */
	bool help;
	bool paused;
	char status[256];
	WINDOW *footer;
	struct text footer_cur, footer_shown;
	bool footer_damaged;
	WINDOW *help_win;
	SCREEN *term;
	FILE *log_stream;
};

/* ---- log lines while curses owns the terminal ---- */

static char log_last[512];
static char log_partial[512];
static size_t log_partial_len;
static struct screen *active;

/* A log line is kept for the status bar, without the log's timestamp. */
static ssize_t log_capture_write(void *cookie, const char *buf, size_t size)
{
	for (size_t i = 0; i < size; i++) {
		if (buf[i] != '\n') {
			if (log_partial_len + 1 < sizeof log_partial)
				log_partial[log_partial_len++] = buf[i];
			continue;
		}
		log_partial[log_partial_len] = '\0';
		char prefix[64];
		snprintf(prefix, sizeof prefix, "%s: ", log_progname());
		const char *start = strstr(log_partial, prefix);
		snprintf(log_last, sizeof log_last, "%s", start ? start : log_partial);
		log_partial_len = 0;
	}
	return (ssize_t)size;
}

const char *screen_last_log(void)
{
	return log_last;
}

/* exit() from anywhere (a fatal error deep in a helper) still gives the
 * terminal back, then says why. */
static void screen_atexit(void)
{
	if (active == NULL)
		return;
	screen_stop(active);
	if (log_last[0] != '\0')
		fprintf(stderr, "%s\n", log_last);
}

/* ---- drawing text ---- */

/* One line, each run of bytes of one class in its attribute, plus extra. */
static void draw_line(WINDOW *win, int y, const struct tline *l, chtype extra)
{
	size_t i = 0;

	wmove(win, y, 0);
	while (i < l->len) {
		size_t j = i;
		while (j < l->len && l->cls[j] == l->cls[i])
			j++;
		wattrset(win, tclass_attr[l->cls[i]] | extra);
		waddnstr(win, l->s + i, (int)(j - i));
		i = j;
	}
	if (extra != 0) {
		/* A bar across the whole width. */
		wattrset(win, extra);
		for (int x = l->cols; x < getmaxx(win); x++)
			mvwaddch(win, y, x, ' ');
	}
	wattrset(win, A_NORMAL);
}

static void draw_text(WINDOW *win, const struct text *t, size_t scroll, chtype title_bar)
{
	int rows = getmaxy(win), y = 0;

	for (size_t i = 0; i < t->n && y < rows; i++) {
		if (i >= t->sticky && i < t->sticky + scroll)
			continue;
		draw_line(win, y++, &t->lines[i], i == 0 ? title_bar : 0);
	}
}

void text_draw(WINDOW *win, const struct text *t, size_t scroll)
{
	draw_text(win, t, scroll, 0);
}

void text_draw_titled(WINDOW *win, const struct text *t, size_t scroll)
{
	draw_text(win, t, scroll, A_REVERSE);
}

/* ---- set-up ---- */

static void colours_init(bool colour)
{
	if (colour) {
		short bg = -1;
		start_color();
		if (use_default_colors() == ERR)
			bg = COLOR_BLACK;
		init_pair(1, COLOR_CYAN, bg);
		init_pair(2, COLOR_GREEN, bg);
		init_pair(3, COLOR_YELLOW, bg);
		init_pair(4, COLOR_RED, bg);
		init_pair(5, COLOR_BLUE, bg);
		tclass_attr[TC_NORMAL] = A_NORMAL;
		tclass_attr[TC_TITLE] = A_BOLD | COLOR_PAIR(1);
		tclass_attr[TC_HEAD] = COLOR_PAIR(5);
		tclass_attr[TC_VALUE] = A_BOLD;
		tclass_attr[TC_GOOD] = COLOR_PAIR(2);
		tclass_attr[TC_WARN] = A_BOLD | COLOR_PAIR(3);
		tclass_attr[TC_BAD] = A_BOLD | COLOR_PAIR(4);
		tclass_attr[TC_DIM] = A_DIM;
		tclass_attr[TC_SPARK] = COLOR_PAIR(1);
		return;
	}
	/* No colour: weight and video attributes only. */
	tclass_attr[TC_NORMAL] = A_NORMAL;
	tclass_attr[TC_TITLE] = A_BOLD | A_UNDERLINE;
	tclass_attr[TC_HEAD] = A_NORMAL;
	tclass_attr[TC_VALUE] = A_BOLD;
	tclass_attr[TC_GOOD] = A_NORMAL;
	tclass_attr[TC_WARN] = A_BOLD;
	tclass_attr[TC_BAD] = A_BOLD | A_REVERSE;
	tclass_attr[TC_DIM] = A_DIM;
	tclass_attr[TC_SPARK] = A_NORMAL;
}

struct screen *screen_start(bool colour, char **err)
{
	struct screen *scr = xcalloc(1, sizeof *scr);
	static bool atexit_set;
	cookie_io_functions_t io = { .write = log_capture_write };

	scr->term = newterm(NULL, stdout, stdin);
	if (scr->term == NULL) {
		const char *term = getenv("TERM");
		*err = xasprintf("cannot drive the terminal (TERM=%s); use -b for text output",
				 term ? term : "unset");
		free(scr);
		return NULL;
	}
	active = scr;
	if (!atexit_set) {
		atexit(screen_atexit);
		atexit_set = true;
	}
	scr->log_stream = fopencookie(NULL, "w", io);
	if (scr->log_stream != NULL) {
		setvbuf(scr->log_stream, NULL, _IOLBF, 0);
		log_set_file(scr->log_stream);
	}
	cbreak();
	noecho();
	nonl();
	keypad(stdscr, TRUE);
	set_escdelay(25);
	curs_set(0);
	colours_init(colour && has_colors());
	/* stdscr is never drawn on in normal mode; marking it refreshed keeps
	 * getch from painting it blank over the panels. */
	wnoutrefresh(stdscr);

	for (size_t i = 0; i < panel_count && i < PANELS_MAX; i++) {
		struct slot *sl = &scr->slots[scr->n++];
		sl->ops = panel_table[i];
		sl->follow = sl->ops->tail;
		sl->damaged = true;
	}
	/* Arrows scroll the last list (the events) until Tab says otherwise. */
	for (size_t i = 0; i < scr->n; i++)
		if (scr->slots[i].ops->scrolls)
			scr->focus = i;
	return scr;
}

static void windows_free(struct screen *scr)
{
	for (size_t i = 0; i < scr->n; i++) {
		if (scr->slots[i].win != NULL)
			delwin(scr->slots[i].win);
		scr->slots[i].win = NULL;
		scr->slots[i].y = scr->slots[i].rows = -1;
	}
	if (scr->footer != NULL)
		delwin(scr->footer);
	if (scr->help_win != NULL)
		delwin(scr->help_win);
	scr->footer = NULL;
	scr->help_win = NULL;
}

void screen_stop(struct screen *scr)
{
	if (scr == NULL || active != scr)
		return;
	active = NULL;
	windows_free(scr);
	endwin();
	delscreen(scr->term);
	log_set_file(NULL);
	if (scr->log_stream != NULL)
		fclose(scr->log_stream);
	for (size_t i = 0; i < scr->n; i++) {
		text_free(&scr->slots[i].cur);
		text_free(&scr->slots[i].shown);
	}
	text_free(&scr->footer_cur);
	text_free(&scr->footer_shown);
	free(scr);
}

/* ---- building ---- */

static void footer_build(struct screen *scr)
{
	struct text *t = &scr->footer_cur;

	text_reset(t, COLS);
	text_line(t);
	text_add(t, TC_VALUE, "q");
	text_add(t, TC_HEAD, " quit  ");
	text_add(t, TC_VALUE, "p");
	text_add(t, TC_HEAD, scr->paused ? " resume  " : " pause  ");
	text_add(t, TC_VALUE, "h");
	text_add(t, TC_HEAD, " help  ");
	text_add(t, TC_VALUE, "Tab");
	text_add(t, TC_HEAD, " list  ");
	text_add(t, TC_VALUE, view_utf8 ? "\u2191\u2193 PgUp PgDn" : "Up Down PgUp PgDn");
	text_add(t, TC_HEAD, " scroll");
	if (scr->paused)
		text_add(t, TC_WARN, "  PAUSED");
	if (scr->status[0] != '\0') {
		text_add(t, TC_NORMAL, "  ");
		text_add(t, TC_BAD, scr->status);
	}
}

void screen_update(struct screen *scr, const struct snapshot *s)
{
	scr->snap = s;
	scr->cols = COLS;
	scr->lines = LINES;
	for (size_t i = 0; i < scr->n; i++) {
		struct slot *sl = &scr->slots[i];
		text_reset(&sl->cur, COLS);
		sl->ops->update(s, &sl->cur);
	}
}

/* ---- layout ---- */

/* Rows for each panel: fixed panels their whole text, lists what is left,
 * each at least its sticky lines and one more. false: the terminal is too
 * small for that. */
static bool layout_compute(struct screen *scr, int *rows)
{
	int avail = LINES - FOOTER_ROWS, want_more;

	for (size_t i = 0; i < scr->n; i++) {
		struct slot *sl = &scr->slots[i];
		if (sl->ops->scrolls) {
			rows[i] = (int)sl->cur.sticky + 1;
		} else {
			rows[i] = (int)sl->cur.n;
		}
		avail -= rows[i];
	}
	if (COLS < MIN_COLS || avail < 0)
		return false;
	/* Hand out the rest a row at a time to the lists that want more, so
	 * a short list leaves room to a long one. */
	do {
		want_more = 0;
		for (size_t i = 0; i < scr->n && avail > 0; i++) {
			struct slot *sl = &scr->slots[i];
			if (!sl->ops->scrolls || rows[i] >= (int)sl->cur.n)
				continue;
			rows[i]++;
			avail--;
			want_more++;
		}
	} while (want_more > 0 && avail > 0);
	/* Rows nobody wants go to the last list. */
	for (size_t i = scr->n; i-- > 0;) {
		if (scr->slots[i].ops->scrolls) {
			rows[i] += avail;
			break;
		}
	}
	return true;
}

static int min_lines(const struct screen *scr)
{
	int need = FOOTER_ROWS;

	for (size_t i = 0; i < scr->n; i++) {
		const struct slot *sl = &scr->slots[i];
		need += sl->ops->scrolls ? (int)sl->cur.sticky + 1 : (int)sl->cur.n;
	}
	return need;
}

static void too_small_draw(struct screen *scr)
{
	char msg[160];
	int y = LINES / 2 - 1;

	windows_free(scr);
	werase(stdscr);
	snprintf(msg, sizeof msg, "terminal too small: %dx%d", COLS, LINES);
	mvwaddnstr(stdscr, y > 0 ? y : 0, 0, msg, COLS);
	snprintf(msg, sizeof msg, "enlarge it to at least %dx%d (q quits)", MIN_COLS,
		 min_lines(scr));
	mvwaddnstr(stdscr, y + 1 > 0 ? y + 1 : 0, 0, msg, COLS);
	wnoutrefresh(stdscr);
}

/* (Re)creates the windows whose place changed; marks them damaged. */
static bool layout_apply(struct screen *scr)
{
	int rows[PANELS_MAX], y = 0;

	if (!layout_compute(scr, rows))
		return false;
	for (size_t i = 0; i < scr->n; i++) {
		struct slot *sl = &scr->slots[i];
		if (sl->win == NULL || sl->y != y || sl->rows != rows[i] ||
		    getmaxx(sl->win) != COLS) {
			if (sl->win != NULL)
				delwin(sl->win);
			sl->win = rows[i] > 0 ? newwin(rows[i], COLS, y, 0) : NULL;
			if (rows[i] > 0 && sl->win == NULL)
				return false;
			sl->y = y;
			sl->rows = rows[i];
			sl->damaged = true;
		}
		y += rows[i];
	}
	if (scr->footer == NULL || getbegy(scr->footer) != y || getmaxx(scr->footer) != COLS) {
		if (scr->footer != NULL)
			delwin(scr->footer);
		scr->footer = newwin(FOOTER_ROWS, COLS, y, 0);
		if (scr->footer == NULL)
			return false;
		scr->footer_damaged = true;
	}
	return true;
}

/* ---- drawing ---- */

static size_t scroll_max(const struct slot *sl)
{
	size_t body = sl->cur.n - sl->cur.sticky;
	size_t room = (size_t)sl->rows - sl->cur.sticky;

	return body > room ? body - room : 0;
}

/* The list's place, on its title row: "12-20/40". */
static void scroll_mark(const struct slot *sl)
{
	size_t body = sl->cur.n - sl->cur.sticky;
	size_t room = (size_t)sl->rows - sl->cur.sticky;
	char mark[48];
	int x;

	if (body <= room)
		return;
	snprintf(mark, sizeof mark, " %zu-%zu/%zu ", sl->scroll + 1, sl->scroll + room, body);
	x = getmaxx(sl->win) - (int)strlen(mark);
	if (x > 0) {
		wattrset(sl->win, A_REVERSE);
		mvwaddstr(sl->win, 0, x, mark);
		wattrset(sl->win, A_NORMAL);
	}
}

/* The list the arrows scroll: its name stands out of the title bar. */
static void focus_mark(const struct slot *sl)
{
	const struct tline *title = &sl->cur.lines[0];
	int len = 0;

	while (len < title->len && title->cls[len] == TC_TITLE)
		len++;
	mvwchgat(sl->win, 0, 0, len, A_BOLD, (short)PAIR_NUMBER(tclass_attr[TC_TITLE]), NULL);
}

static bool slot_draw(struct screen *scr, size_t i)
{
	struct slot *sl = &scr->slots[i];
	bool focus = sl->ops->scrolls && scr->focus == i;

	if (sl->win == NULL)
		return false;
	if (sl->follow || sl->scroll > scroll_max(sl))
		sl->scroll = scroll_max(sl);
	if (!sl->damaged && sl->scroll == sl->shown_scroll && focus == sl->shown_focus &&
	    text_equal(&sl->cur, &sl->shown))
		return false;
	werase(sl->win);
	sl->ops->draw(sl->win, &sl->cur, sl->scroll);
	if (sl->ops->scrolls && sl->cur.n > 0) {
		scroll_mark(sl);
		if (focus)
			focus_mark(sl);
	}
	wnoutrefresh(sl->win);
	text_copy(&sl->shown, &sl->cur);
	sl->shown_scroll = sl->scroll;
	sl->shown_focus = focus;
	sl->damaged = false;
	return true;
}

static void help_draw(struct screen *scr)
{
	static const char *const lines[] = {
		"q          quit",
		"p, Space   pause or resume the refresh",
		"h, ?       this help (any key closes it)",
		"Tab        switch between the phases and events",
		"Up, Down   scroll the list a line",
		"PgUp, PgDn scroll it a page",
		"Home, End  to its top, to its end",
		"Ctrl-L     draw the whole screen again",
	};
	int n = (int)(sizeof lines / sizeof lines[0]);
	int h = n + 4, w = 54;

	if (w > COLS)
		w = COLS;
	if (h > LINES)
		h = LINES;
	if (scr->help_win == NULL) {
		scr->help_win = newwin(h, w, (LINES - h) / 2, (COLS - w) / 2);
		if (scr->help_win == NULL)
			return;
		werase(scr->help_win);
		box(scr->help_win, 0, 0);
		wattrset(scr->help_win, tclass_attr[TC_TITLE]);
		mvwaddnstr(scr->help_win, 0, 2, " loadtop keys ", w - 4);
		wattrset(scr->help_win, A_NORMAL);
		for (int i = 0; i < n && i + 2 < h - 1; i++)
			mvwaddnstr(scr->help_win, i + 2, 2, lines[i], w - 4);
	}
	touchwin(scr->help_win);
	wnoutrefresh(scr->help_win);
}

void screen_render(struct screen *scr)
{
	bool drawn = false;

	if (scr->snap == NULL)
		return;
	if (scr->cols != COLS || scr->lines != LINES)
		screen_update(scr, scr->snap);
	if (!layout_apply(scr)) {
		if (!scr->too_small || scr->small_cols != COLS || scr->small_lines != LINES)
			too_small_draw(scr);
		scr->too_small = true;
		scr->small_cols = COLS;
		scr->small_lines = LINES;
		doupdate();
		return;
	}
	if (scr->too_small || is_wintouched(stdscr)) {
		/* Coming back from the message: blank what is not a panel. */
		werase(stdscr);
		wnoutrefresh(stdscr);
		for (size_t i = 0; i < scr->n; i++)
			scr->slots[i].damaged = true;
		scr->footer_damaged = true;
		scr->too_small = false;
	}
	for (size_t i = 0; i < scr->n; i++)
		drawn |= slot_draw(scr, i);

	footer_build(scr);
	if (scr->footer_damaged || !text_equal(&scr->footer_cur, &scr->footer_shown)) {
		werase(scr->footer);
		text_draw(scr->footer, &scr->footer_cur, 0);
		wnoutrefresh(scr->footer);
		text_copy(&scr->footer_shown, &scr->footer_cur);
		scr->footer_damaged = false;
		drawn = true;
	}
	if (scr->help && (drawn || scr->help_win == NULL))
		help_draw(scr);
	doupdate();
}

/* ---- keys ---- */

static void damage_all(struct screen *scr)
{
	for (size_t i = 0; i < scr->n; i++)
		scr->slots[i].damaged = true;
	scr->footer_damaged = true;
}

static void scroll_by(struct screen *scr, long lines)
{
	struct slot *sl = &scr->slots[scr->focus];
	size_t max;

	if (sl->win == NULL)
		return;
	max = scroll_max(sl);
	if (lines < 0)
		sl->scroll = (size_t)-lines > sl->scroll ? 0 : sl->scroll - (size_t)-lines;
	else
		sl->scroll = sl->scroll + (size_t)lines > max ? max : sl->scroll + (size_t)lines;
	/* A tail list follows new lines again once scrolled to its end. */
	sl->follow = sl->ops->tail && sl->scroll == max;
}

static void focus_next(struct screen *scr)
{
	for (size_t k = 1; k <= scr->n; k++) {
		size_t i = (scr->focus + k) % scr->n;
		if (scr->slots[i].ops->scrolls) {
			scr->focus = i;
			return;
		}
	}
}

enum screen_action screen_wait_key(struct screen *scr, int ms)
{
	struct slot *sl = &scr->slots[scr->focus];
	long page = sl->rows - (long)sl->cur.sticky - 1;
	int ch;

	timeout(ms);
	ch = getch();
	if (ch == ERR)
		return ACT_NONE;
	if (page < 1)
		page = 1;
	if (scr->help && ch != KEY_RESIZE) {
		/* Any key closes the help; what lay under it is drawn again. */
		scr->help = false;
		if (scr->help_win != NULL)
			delwin(scr->help_win);
		scr->help_win = NULL;
		damage_all(scr);
		return ch == 'q' || ch == 'Q' ? ACT_QUIT : ACT_NONE;
	}
	switch (ch) {
	case 'q':
	case 'Q': return ACT_QUIT;
	case 'p':
	case 'P':
	case ' ': return ACT_PAUSE;
	case 'h':
	case 'H':
	case '?': scr->help = true; break;
	case '\t':
	case KEY_BTAB: focus_next(scr); break;
	case KEY_UP:
	case 'k': scroll_by(scr, -1); break;
	case KEY_DOWN:
	case 'j': scroll_by(scr, 1); break;
	case KEY_PPAGE: scroll_by(scr, -page); break;
	case KEY_NPAGE: scroll_by(scr, page); break;
	case KEY_HOME: scroll_by(scr, -(long)sl->cur.n); break;
	case KEY_END: scroll_by(scr, (long)sl->cur.n); break;
	case KEY_RESIZE:
		/* The next render rebuilds the text for the new width. */
		if (scr->help_win != NULL)
			delwin(scr->help_win);
		scr->help_win = NULL;
		damage_all(scr);
		break;
	case 12: /* Ctrl-L */
		clearok(curscr, TRUE);
		damage_all(scr);
		break;
	default: break;
	}
	return ACT_NONE;
}

void screen_set_paused(struct screen *scr, bool paused)
{
	scr->paused = paused;
}

void screen_set_status(struct screen *scr, const char *msg)
{
	snprintf(scr->status, sizeof scr->status, "%s", msg);
}
