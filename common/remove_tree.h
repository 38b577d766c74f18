// SPDX-License-Identifier: GPL-2.0-or-later
/* The one way loadd removes a tree (a load's scratch dir, the probe's tree,
 * what a crashed run left): every level opened relative to a descriptor it
 * holds, with O_NOFOLLOW, so a symbolic link is removed and never followed,
 * and never below a mount point: a file system mounted inside the tree is
 * left alone (EXDEV). */
#ifndef LOADD_REMOVE_TREE_H
#define LOADD_REMOVE_TREE_H

/* Removes name (below the directory dir_fd, or AT_FDCWD) and all it holds,
 * staying on name's own device. 0 when it is gone (or never was), else -1
 * with errno set from the first thing that held it up. */
int remove_tree_at(int dir_fd, const char *name);
/* The same for a path: its last component is name, its parent dir_fd. */
int remove_tree(const char *path);

#endif
