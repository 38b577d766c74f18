// SPDX-License-Identifier: GPL-2.0-or-later
/* Where loadd's control socket lives, one rule for the daemon and its
 * clients: /run/loadd/loadd.sock as root, $XDG_RUNTIME_DIR/loadd.sock
 * otherwise, and <work dir>/loadd.sock when XDG_RUNTIME_DIR is unset. */
#ifndef LOADD_CONTROL_SOCKET_H
#define LOADD_CONTROL_SOCKET_H

#define CONTROL_SOCKET_ROOT_DIR "/run/loadd"
#define CONTROL_SOCKET_NAME "loadd.sock"

/* workdir: the daemon's work dir; NULL means the default one (a client does
 * not know a --workdir the daemon was given). xmalloc'd. */
char *control_socket_default(const char *workdir);
/* How the default is chosen, for --help texts. */
const char *control_socket_default_text(void);

#endif
