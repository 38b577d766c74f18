// SPDX-License-Identifier: GPL-2.0-or-later
#include "control_socket.h"

#include <stdlib.h>
#include <unistd.h>

#include "paths.h"
#include "xalloc.h"

char *control_socket_default(const char *workdir)
{
	const char *runtime = getenv("XDG_RUNTIME_DIR");
	char *dir, *path;

	if (geteuid() == 0)
		return xstrdup(CONTROL_SOCKET_ROOT_DIR "/" CONTROL_SOCKET_NAME);
	if (runtime != NULL && runtime[0] == '/')
		return xasprintf("%s/%s", runtime, CONTROL_SOCKET_NAME);
	if (workdir != NULL)
		return xasprintf("%s/%s", workdir, CONTROL_SOCKET_NAME);
	dir = workdir_default();
	path = xasprintf("%s/%s", dir, CONTROL_SOCKET_NAME);
	free(dir);
	return path;
}

const char *control_socket_default_text(void)
{
	return geteuid() == 0 ? CONTROL_SOCKET_ROOT_DIR "/" CONTROL_SOCKET_NAME
			      : "$XDG_RUNTIME_DIR/" CONTROL_SOCKET_NAME ", else in the work dir";
}
