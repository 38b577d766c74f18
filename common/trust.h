// SPDX-License-Identifier: GPL-2.0-or-later
/* What loadd may trust: files it reads as instructions (profiles, dbench
 * loadfiles) and directories it creates files in (database, socket, log,
 * pid file) must be out of reach of anyone but root, the user running loadd
 * and the owner of the loadd binary (who controls loadd anyway). */
#ifndef LOADD_TRUST_H
#define LOADD_TRUST_H

#include <stdbool.h>
#include <sys/types.h>

/* The PATH programs get when loadd runs as root: no empty or relative entry. */
#define TRUST_SAFE_PATH "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

/* uid is root, loadd's own user, or the owner of the running binary. */
bool trust_owner(uid_t uid);
/* dir and every directory above it are owned by a trusted user and not
 * writable by anyone else (a sticky directory like /tmp may be). 0, or -1
 * with *err saying which directory and what to fix. */
int trust_dir_chain(const char *dir, char **err);
/* A file loadd reads as instructions: a regular file owned by a trusted
 * user, not writable by others, in a trusted directory chain (symbolic
 * links resolved first). what names it in messages ("profile"). */
int trust_file(const char *path, const char *what, char **err);
/* mkdir -p of the directory that will hold path, after checking the part
 * that exists; then checks the whole chain. 0, or -1 with *err. what names
 * the file in messages ("control socket"). */
int trust_make_parent_dirs(const char *path, mode_t mode, const char *what, char **err);
/* Root's programs find nothing in the current or a relative directory. */
void trust_safe_path(void);

#endif
