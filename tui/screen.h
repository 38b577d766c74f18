// SPDX-License-Identifier: GPL-2.0-or-later
/* The curses side of loadtop: panels laid out top to bottom, each in its own
 * window, drawn only when its text changed; the key bindings; the help
 * overlay; the message when the terminal is too small. */
#ifndef LOADTOP_SCREEN_H
#define LOADTOP_SCREEN_H

#include <stdbool.h>

#include "view.h"

struct screen;

enum screen_action { ACT_NONE, ACT_QUIT, ACT_PAUSE };

/* Takes over the terminal (NULL with a message when it cannot). Colour is
 * used when allowed and the terminal has it. While the screen is up, log
 * messages are kept for the status line instead of written over it. */
struct screen *screen_start(bool colour, char **err);
/* Gives the terminal back; safe to call twice and from exit paths. */
void screen_stop(struct screen *scr);
/* Builds every panel's text from s, which must live until the next call. */
void screen_update(struct screen *scr, const struct snapshot *s);
/* Draws what changed since the last call and updates the terminal once. */
void screen_render(struct screen *scr);
/* Waits up to ms for a key; returns what it asks for. */
enum screen_action screen_wait_key(struct screen *scr, int ms);
void screen_set_paused(struct screen *scr, bool paused);
/* A line for the status bar ("" clears it): read errors, a vanished run. */
void screen_set_status(struct screen *scr, const char *msg);
/* The last log line written while the screen was up ("" when none). */
const char *screen_last_log(void);

#endif
