// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe's directory tree: generated from its spec, the same on every
 * machine, and fingerprinted so that only runs over equal trees are compared. */
#ifndef LOADD_TREE_H
#define LOADD_TREE_H

#include <signal.h>
#include <stdint.h>

#include "profile.h"

#define TREE_FINGERPRINT_LEN 16

/* "depth=4 fanout=8 files=10 size=512": missing keys keep the defaults
 * already in *spec. For OPT_CUSTOM (dst is a struct tree_spec *). */
int tree_spec_parse(const char *s, void *dst, const char **err);
/* Hex digest of the spec and the generator's version. */
void tree_fingerprint(const struct tree_spec *spec, char out[TREE_FINGERPRINT_LEN + 1]);
/* Directories and files the spec makes, the root included. */
uint64_t tree_entries(const struct tree_spec *spec);

/* Makes sure <workdir>/tree-<fingerprint> holds the complete tree: reuses it
 * when its stamp file says it is complete, else (re)builds it. Returns an
 * xmalloc'd path, or NULL with an xmalloc'd message in *err. */
char *tree_ensure(const char *workdir, const struct tree_spec *spec, char **err);
/* A build in progress stops (and removes what it made) once *flag is
 * non-zero, e.g. set by a signal handler. */
void tree_set_cancel(volatile sig_atomic_t *flag);

#endif
