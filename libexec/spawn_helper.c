// SPDX-License-Identifier: GPL-2.0-or-later
/* loadd-spawn-helper: the smallest program the spawn probe can exec, as
 * lmbench's lat_proc execs its "hello": it starts and exits at once, so the
 * probe times the kernel's exec and exit, not a program's work. */
int main(void)
{
	return 0;
}
