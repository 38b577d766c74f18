// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe's directory tree: generated from its spec, the same on every
 * machine, and fingerprinted so that only runs over equal trees are compared. */
#ifndef LOADD_TREE_H
#define LOADD_TREE_H

#include <signal.h>
#include <stdint.h>

#include "tree_spec.h"

/* Makes sure <workdir>/tree-<fingerprint> holds the complete tree: reuses it
 * when its stamp file says it is complete, else (re)builds it. Returns an
 * xmalloc'd path, or NULL with an xmalloc'd message in *err. */
char *tree_ensure(const char *workdir, const struct tree_spec *spec, char **err);
/* A build in progress stops (and removes what it made) once *flag is
 * non-zero, e.g. set by a signal handler. */
void tree_set_cancel(volatile sig_atomic_t *flag);

#endif
