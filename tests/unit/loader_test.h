// SPDX-License-Identifier: GPL-2.0-or-later
/* Helpers of the loaders' unit tests (tests/unit/test_loader_*.c). */
#ifndef LOADD_LOADER_TEST_H
#define LOADD_LOADER_TEST_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "loader.h"

#define NCASES(a) (sizeof(a) / sizeof((a)[0]))
/* How long a loader may take to count what a test waits for. Generous: the
 * tests wait for counts, never for a time. */
#define COUNT_TIMEOUT_S 30

/* A [load x] section: its type and up to three keys (lines 11, 12, 13; the
 * section's own line is 10). */
struct section {
	const char *type;
	const char *keys[3][2];
};

/* A test may map the values it writes to others (a token to a temp file's
 * path) before they are validated. NULL: as written. */
extern const char *(*section_value)(const char *value);

char *make_temp_dir(void);
void remove_all(const char *dir);
/* loader_validate on the section ("t.conf"); *msgs gets what it printed. */
int validate(const struct section *sec, struct load_def *def, char **msgs);
void release(struct load_def *def);
struct loader_shm *shm_new(void);
void check_listed(const char *name, const char *cycle_unit, bool has_ops);

/* A section loader_validate refuses, and how its message must begin. */
struct refused {
	struct section sec;
	const char *message;
};

/* Every section validates with no problem and a config. */
void check_valid(const struct section *cases, size_t n);
/* Every section is refused, its message beginning as given, with no config. */
void check_refused(const struct refused *cases, size_t n);
/* With an empty PATH, a load of type is refused with exactly message. */
void check_needs_program(const char *type, const char *message);

/* ---- the loaders run for real ---- */

struct child_run {
	pid_t pid;
	int events; /* read end of the event pipe */
	struct loader_shm *shm;
	char *dir; /* the load's scratch dir, <workdir>/load-x */
	char *workdir;
};

void child_start(struct child_run *r, const struct load_def *def, const char *workdir);
bool wait_cycles(struct child_run *r, uint64_t cycles);
/* Everything the loader wrote to its event pipe. */
char *child_events(struct child_run *r);
/* SIGTERM to the group as loadd sends it; returns the loader's wait status.
 * Then no process of the group may be left. */
int child_stop(struct child_run *r);
void child_free(struct child_run *r);
bool dir_empty(const char *dir);

#endif
