// SPDX-License-Identifier: GPL-2.0-or-later
/* The fs loader: its [load] sections through loader_validate (values,
 * dbench on PATH, the loadfile, file:line in every message), and the loader
 * run for real against a stand-in dbench (a script on PATH) whose output and
 * exit status the test chooses: counted, stopped, nothing left behind. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "core_exec.h"
#include "loader_test.h"
#include "remove_tree.h"
#include "xalloc.h"

/* Loadfiles the cases name by these tokens: an empty one, and one whose
 * path climbs out of the load's directory. */
#define LOADFILE_EMPTY "@empty"
#define LOADFILE_CLIMBS "@climbs"
static char *loadfile_dir, *loadfile_empty, *loadfile_climbs;

static int loadfiles_make(void **state)
{
	FILE *fp;

	loadfile_dir = make_temp_dir();
	loadfile_empty = xasprintf("%s/empty.txt", loadfile_dir);
	loadfile_climbs = xasprintf("%s/climbs.txt", loadfile_dir);
	fp = fopen(loadfile_empty, "w");
	assert_non_null(fp);
	fclose(fp);
	fp = fopen(loadfile_climbs, "w");
	assert_non_null(fp);
	fputs("0 NTCreateX \"\\clients\\client1\\ok.doc\" 0x1 0x0 0x0 0\n"
	      "0 NTCreateX \"\\..\\..\\escaped\" 0x1 0x0 0x0 0\n",
	      fp);
	fclose(fp);
	return 0;
}

static int loadfiles_remove(void **state)
{
	remove_all(loadfile_dir);
	free(loadfile_dir);
	free(loadfile_empty);
	free(loadfile_climbs);
	return 0;
}

static const char *loadfile_token(const char *value)
{
	if (value != NULL && strcmp(value, LOADFILE_EMPTY) == 0)
		return loadfile_empty;
	if (value != NULL && strcmp(value, LOADFILE_CLIMBS) == 0)
		return loadfile_climbs;
	return value;
}

static void test_listed(void **state)
{
	check_listed("fs", "runs", true);
}

/* Sets PATH to a dir of its own holding a stand-in dbench (the unit tests do
 * not need the real one) followed by the old PATH; returns the old PATH. */
static char *path_with_fake_dbench(char **dir)
{
	char *saved = xstrdup(getenv("PATH") ? getenv("PATH") : "");
	char *prog, *path;
	FILE *fp;

	*dir = make_temp_dir();
	prog = xasprintf("%s/dbench", *dir);
	fp = fopen(prog, "w");
	assert_non_null(fp);
	fputs("#!/bin/sh\nexit 0\n", fp);
	fclose(fp);
	assert_int_equal(chmod(prog, 0755), 0);
	path = xasprintf("%s:%s", *dir, saved);
	setenv("PATH", path, 1);
	free(path);
	free(prog);
	return saved;
}

static void test_valid_sections(void **state)
{
	static const struct section cases[] = {
		{ "fs", { { "loadfile", LOADFILE_EMPTY } } },
		{ "fs",
		  { { "clients", "1" }, { "runtime", "3s" }, { "loadfile", LOADFILE_EMPTY } } },
	};
	char *bin, *saved = path_with_fake_dbench(&bin);

	check_valid(cases, NCASES(cases));
	setenv("PATH", saved, 1);
	remove_all(bin);
	free(bin);
	free(saved);
}

/* Each refused section and the exact place its message names. */
static void test_refused_sections(void **state)
{
	static const struct refused cases[] = {
		{ { "fs", { { "clients", "0" } } }, "t.conf:11:" },
		{ { "fs", { { "runtime", "1500ms" } } },
		  "t.conf:11: runtime: dbench runs for whole seconds; write e.g. 10s\n" },
		{ { "fs", { { "runtime", "500ms" } } }, "t.conf:11:" },
		{ { "fs", { { "clients", "2" }, { "loadfile", "/nonexistent/client.txt" } } },
		  "t.conf:12: loadfile: cannot read /nonexistent/client.txt: No such file or "
		  "directory\n" },
		{ { "fs", { { "clients", "2" }, { "loadfile", LOADFILE_CLIMBS } } },
		  "t.conf:12: loadfile " },
		{ { "fs", { { "threads", "2" } } }, "t.conf:11:" },
	};
	char *bin, *saved = path_with_fake_dbench(&bin);

	check_refused(cases, NCASES(cases));
	setenv("PATH", saved, 1);
	remove_all(bin);
	free(bin);
	free(saved);
}

static void test_programs_on_path(void **state)
{
	check_needs_program("fs",
			    "t.conf:10: load 'x' needs the dbench program (package dbench)\n");
}

/* A stand-in dbench: prints what dbench prints and exits as told; after
 * three runs it hangs without a word, so the counts are exact. */
static const char fake_dbench_ok[] =
	"#!/bin/sh\n"
	"d=$(dirname \"$0\")\n"
	"echo \"args: $*\" >> \"$d/args\"\n"
	"n=$(($(cat \"$d/runs\" 2>/dev/null || echo 0) + 1))\n"
	"echo $n > \"$d/runs\"\n"
	"[ $n -le 3 ] || exec sleep 1000\n"
	"echo 'dbench version 4.00 - Copyright Andrew Tridgell 1999-2004'\n"
	"echo '   2      1000   900.00 MB/sec  warmup   2 sec  latency 1.000 ms'\n"
	"echo '   2      3000   150.00 MB/sec  execute   1 sec  latency 1.000 ms'\n"
	"echo '   2      5000   200.00 MB/sec  execute   2 sec  latency 1.000 ms'\n"
	"echo '   2  cleanup   3 sec'\n"
	"echo 'Throughput 210 MB/sec  2 clients  2 procs  max_latency=1.000 ms'\n";

static const char fake_dbench_fails[] =
	"#!/bin/sh\n"
	"echo '   2      1000   100.00 MB/sec  warmup   1 sec  latency 1.000 ms'\n"
	"echo 'ERROR: no space left on device' >&2\n"
	"exit 3\n";

static void write_script(const char *path, const char *text)
{
	FILE *fp = fopen(path, "w");

	assert_non_null(fp);
	fputs(text, fp);
	fclose(fp);
	assert_int_equal(chmod(path, 0755), 0);
}

static void test_fs_runs(void **state)
{
	char *work = make_temp_dir(), *bin = xasprintf("%s/bin", work);
	char *dbench = xasprintf("%s/dbench", bin), *args_path = xasprintf("%s/args", bin);
	char *saved = xstrdup(getenv("PATH")), *path, *msgs, *events, args[512];
	struct child_run r;
	struct load_def def;
	FILE *fp;
	size_t n;

	assert_int_equal(mkdir(bin, 0755), 0);
	write_script(dbench, fake_dbench_ok);
	path = xasprintf("%s:%s", bin, saved);
	setenv("PATH", path, 1);

	struct section sec = {
		"fs", { { "clients", "2" }, { "runtime", "3s" }, { "loadfile", LOADFILE_EMPTY } }
	};
	assert_int_equal(validate(&sec, &def, &msgs), 0);
	free(msgs);
	child_start(&r, &def, work);
	assert_true(wait_cycles(&r, 3));
	assert_int_equal(child_stop(&r), 0);
	/* 5000 operations a run; bytes from the execute period only: 210 MB/s
	 * over its 2 s (the Throughput line corrects the per-second lines). */
	assert_int_equal(atomic_load(&r.shm->cycles), 3);
	assert_int_equal(atomic_load(&r.shm->ops), 3 * 5000);
	assert_int_equal(atomic_load(&r.shm->bytes), 3 * 420000000ULL);
	assert_int_equal(atomic_load(&r.shm->errors), 0);
	fp = fopen(args_path, "r");
	assert_non_null(fp);
	n = fread(args, 1, sizeof args - 1, fp);
	args[n] = '\0';
	fclose(fp);
	char *expect = xasprintf("args: -c %s -D %s -t 3 2\n", loadfile_empty, r.dir);
	assert_true(strncmp(args, expect, strlen(expect)) == 0);
	free(expect);
	assert_int_equal(remove_tree(r.dir), 0);
	child_free(&r);
	release(&def);

	/* A failed run: counted, told as an event with dbench's last words,
	 * and the loader ends (loadd restarts it with back-off). */
	write_script(dbench, fake_dbench_fails);
	assert_int_equal(validate(&sec, &def, &msgs), 0);
	free(msgs);
	child_start(&r, &def, work);
	{
		int status;

		assert_int_equal(waitpid(r.pid, &status, 0), r.pid);
		assert_true(WIFEXITED(status));
		assert_int_equal(WEXITSTATUS(status), 1);
	}
	assert_int_equal(atomic_load(&r.shm->errors), 1);
	assert_int_equal(atomic_load(&r.shm->cycles), 0);
	events = child_events(&r);
	assert_string_equal(events, "error dbench ended with exit status 3: ERROR: no space left "
				    "on device\n");
	free(events);
	child_free(&r);
	release(&def);

	setenv("PATH", saved, 1);
	remove_all(work);
	free(work);
	free(bin);
	free(dbench);
	free(args_path);
	free(saved);
	free(path);
}

/* A child's last line goes into events and the log escaped: its escape
 * sequences cannot reach a terminal that shows them (core_exec runs dbench). */
static void test_exec_output_escaped(void **state)
{
	char *const argv[] = { "/bin/sh", "-c", "printf 'plain\\n\\033[31mred\\a\\n'", NULL };
	struct exec_child c;
	char *err = NULL;

	assert_int_equal(exec_start(argv, &c, &err), 0);
	assert_true(exec_finish(&c, NULL, NULL) >= 0);
	assert_non_null(strstr(c.last_line, "\\x1b[31mred"));
	for (const char *p = c.last_line; *p != '\0'; p++)
		assert_true((unsigned char)*p >= 0x20 && *p != 0x7f);
}

static int setup(void **state)
{
	section_value = loadfile_token;
	return loadfiles_make(state);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_listed),           cmocka_unit_test(test_valid_sections),
		cmocka_unit_test(test_refused_sections), cmocka_unit_test(test_programs_on_path),
		cmocka_unit_test(test_fs_runs),          cmocka_unit_test(test_exec_output_escaped),
	};

	return cmocka_run_group_tests(tests, setup, loadfiles_remove);
}
