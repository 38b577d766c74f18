// SPDX-License-Identifier: GPL-2.0-or-later
#include "run_user.h"

#include <errno.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "xalloc.h"

static struct run_user current;

void run_user_set(const struct run_user *u)
{
	current = *u;
}

const struct run_user *run_user_get(void)
{
	return &current;
}

/* A name or a number; NULL when there is no such user. */
static struct passwd *find_user(const char *name)
{
	char *end;
	unsigned long uid;

	struct passwd *pw = getpwnam(name);
	if (pw != NULL)
		return pw;
	errno = 0;
	uid = strtoul(name, &end, 10);
	if (errno == 0 && end != name && *end == '\0')
		return getpwuid((uid_t)uid);
	return NULL;
}

static void fill(struct run_user *u, const struct passwd *pw, const char *why)
{
	u->uid = pw->pw_uid;
	u->gid = pw->pw_gid;
	snprintf(u->name, sizeof u->name, "%s", pw->pw_name);
	u->why = why;
	u->drop = geteuid() == 0 && pw->pw_uid != 0;
}

int run_user_resolve(const char *configured, struct run_user *u, char **err)
{
	const char *sudo_user = getenv("SUDO_USER");
	struct passwd *pw;

	memset(u, 0, sizeof *u);
	if (configured != NULL) {
		if ((pw = find_user(configured)) == NULL) {
			*err = xasprintf("[run] user = %s: no such user", configured);
			return -1;
		}
		if (geteuid() != 0 && pw->pw_uid != geteuid()) {
			*err = xasprintf("[run] user = %s needs root: loadd runs as uid %u and "
					 "cannot start loads as another user",
					 configured, (unsigned)geteuid());
			return -1;
		}
		fill(u, pw, "[run] user");
		return 0;
	}
	if (geteuid() != 0) {
		pw = getpwuid(geteuid());
		u->uid = geteuid();
		u->gid = getegid();
		snprintf(u->name, sizeof u->name, "%s", pw ? pw->pw_name : "?");
		u->why = "loadd's own user";
		return 0;
	}
	if (sudo_user != NULL && sudo_user[0] != '\0' && (pw = getpwnam(sudo_user)) != NULL &&
	    pw->pw_uid != 0) {
		fill(u, pw, "SUDO_USER");
		return 0;
	}
	if ((pw = getpwnam("loadd")) != NULL && pw->pw_uid != 0) {
		fill(u, pw, "the loadd system user");
		return 0;
	}
	if ((pw = getpwnam("nobody")) != NULL) {
		fill(u, pw, "nobody: neither SUDO_USER nor a loadd user");
		return 0;
	}
	*err = xstrdup("no user to run the loads as: set [run] user, or create a 'loadd' "
		       "system user (useradd --system loadd)");
	return -1;
}

int run_user_enter(void)
{
	/* Raw system calls: they change only this task, which is the whole
	 * child, and are safe after vfork() (glibc's wrappers would signal the
	 * parent's threads, whose memory a vfork child shares). */
	if (current.drop) {
		if (syscall(SYS_setgroups, 0, NULL) < 0 ||
		    syscall(SYS_setresgid, current.gid, current.gid, current.gid) < 0 ||
		    syscall(SYS_setresuid, current.uid, current.uid, current.uid) < 0)
			return -1;
		/* Root must be gone for good: no way back to uid 0. */
		if (syscall(SYS_setuid, 0) == 0 || syscall(SYS_geteuid) != (long)current.uid) {
			errno = EPERM;
			return -1;
		}
	}
	return prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0);
}
