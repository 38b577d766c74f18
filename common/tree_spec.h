// SPDX-License-Identifier: GPL-2.0-or-later
/* The probe tree's spec: parsing, fingerprint and size. The tree itself is
 * built by the probe (probe/tree.h). */
#ifndef LOADD_TREE_SPEC_H
#define LOADD_TREE_SPEC_H

#include <stddef.h>
#include <stdint.h>

#include "profile.h"

#define TREE_FINGERPRINT_LEN 16

/* "depth=4 fanout=8 files=10 size=512": missing keys keep the defaults
 * already in *spec. For OPT_CUSTOM (dst is a struct tree_spec *). */
int tree_spec_parse(const char *s, void *dst, const char **err);
/* Ranges and the size of the whole tree: 0, or -1 with a static message. */
int tree_spec_check(const struct tree_spec *spec, const char **err);
/* Hex digest of the spec and the generator's version. */
void tree_fingerprint(const struct tree_spec *spec, char out[TREE_FINGERPRINT_LEN + 1]);
/* Directories and files the spec makes, the root included. */
uint64_t tree_entries(const struct tree_spec *spec);

/* The spec as the fingerprint and the tree's stamp file spell it. */
void tree_spec_canonical(const struct tree_spec *spec, char *buf, size_t len);
/* FNV-1a of a string: the fingerprint's hash, and the builder's seed for a
 * file's contents. */
uint64_t tree_hash(const char *s, size_t len);

#endif
