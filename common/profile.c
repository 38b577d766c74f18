// SPDX-License-Identifier: GPL-2.0-or-later
#include "profile.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <limits.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "log.h"
#include "parse.h"
#include "tree_spec.h"
#include "xalloc.h"

static int loads_list_parse(const char *value, void *dst, const char **err);
static int probes_list_parse(const char *value, void *dst, const char **err);

static const char *const cache_choices[] = { "warm", "cold", NULL };

/* clang-format off */
const struct option_def run_options[] = {
	{ "rounds", OPT_INT, offsetof(struct run_def, rounds), "1", 1, 1000, NULL, NULL,
	  "the whole phase list, this many times; the report averages the rounds" },
	{ "settle", OPT_DURATION, offsetof(struct run_def, settle_ms), "3s", 0, 600000, NULL,
	  NULL, "time the loads get to ramp up before the job is timed, in every phase" },
	{ "baseline", OPT_STRING, offsetof(struct run_def, baseline), NULL, 0, 0, NULL, NULL,
	  "the phase whose median time is Ratio's denominator (default: the first phase "
	  "without loads)" },
	{ "user", OPT_STRING, offsetof(struct run_def, user), NULL, 0, 0, NULL, NULL,
	  "as root: the user the loads, dbench, tar and the probe's job run as (default: "
	  "SUDO_USER, else a loadd system user, else nobody)" },
	{ NULL },
};
/* clang-format on */

/* clang-format off */
const struct option_def probe_options[] = {
	{ "job", OPT_STRING, offsetof(struct probe_def, job), "ls -R {tree}", 0, 0, NULL, NULL,
	  "the timed command; {tree} becomes the generated tree's path; '...' and \"...\" "
	  "quote, nothing else is shell syntax" },
	{ "every", OPT_DURATION, offsetof(struct probe_def, every_ms), "1s", 10, 3600000, NULL,
	  NULL, "one job per slot of this length; a slot missed while a job runs is counted" },
	{ "timeout", OPT_DURATION, offsetof(struct probe_def, timeout_ms), "60s", 100, 86400000,
	  NULL, NULL, "a job running longer is killed and recorded as failed" },
	{ "tree", OPT_CUSTOM, offsetof(struct probe_def, tree), "depth=4 fanout=8 files=10 size=0",
	  0, 0, NULL, tree_spec_parse,
	  "the directory tree the job walks: depth, fanout (directories per directory), files "
	  "(per directory), size (bytes per file); missing keys keep their defaults" },
	{ NULL },
};
/* clang-format on */

/* clang-format off */
const struct option_def phase_options[] = {
	{ "duration", OPT_DURATION, offsetof(struct phase_def, duration_ms), "30s", 1000,
	  86400000, NULL, NULL, "probing time, after settle" },
	{ "settle", OPT_DURATION, offsetof(struct phase_def, settle_ms), NULL, 0, 600000, NULL,
	  NULL, "this phase's ramp-up (default: the [run] settle)" },
	{ "settle_max", OPT_DURATION, offsetof(struct phase_def, settle_max_ms), "120s", 0, 3600000,
	  NULL, NULL,
	  "the longest the settle is drawn out while a load still ramps up to a target it "
	  "then holds (the memory load's pressure mode); past it the probe starts and the "
	  "phase is marked weak" },
	{ "cache", OPT_ENUM, offsetof(struct phase_def, cache), "warm", 0, 0, cache_choices, NULL,
	  "warm: the tree stays cached; cold: the page cache is dropped before each job "
	  "(needs root)" },
	{ "loads", OPT_CUSTOM, offsetof(struct phase_def, loads), NULL, 0, 0, NULL,
	  loads_list_parse,
	  "the [load NAME] sections that run during the phase, separated by spaces or commas "
	  "(default: none)" },
	{ "probes", OPT_CUSTOM, offsetof(struct phase_def, probes), NULL, 0, 0, NULL,
	  probes_list_parse,
	  "the probes that run during the phase, by [probe NAME], separated by spaces or commas "
	  "(default: every probe of the profile)" },
	{ "ramp", OPT_STRING, offsetof(struct phase_def, ramp_text), NULL, 0, 0, NULL, NULL,
	  "the knee search: run the phase once per value of one key of one of its loads, "
	  "LOAD.KEY then FROM..TO xFACTOR, FROM..TO +STEP or a list (cpu.procs 2..1024 x2)" },
	{ "until", OPT_STRING, offsetof(struct phase_def, until_text), NULL, 0, 0, NULL, NULL,
	  "with ramp: stop after the first step where this holds: ratio > N, median > Nms, "
	  "p95 > Nms, joined by | (default: run every step)" },
	{ NULL },
};
/* clang-format on */

/* Default tree before "tree =" is applied: a spec may give only some keys. */
static const struct tree_spec default_tree = { .depth = 4, .fanout = 8, .files = 10 };

/* ---- phase loads lists ---- */

static void names_free(char **names)
{
	char **n;

	if (names == NULL)
		return;
	for (n = names; *n != NULL; n++)
		free(*n);
	free(names);
}

static size_t names_count(char *const *names)
{
	size_t n = 0;

	while (names != NULL && names[n] != NULL)
		n++;
	return n;
}

static int names_list_parse(const char *value, void *dst, const char **err, const char *twice,
			    const char *none)
{
	char ***out = dst;
	char **names = NULL;
	size_t n = 0, i;
	const char *p = value;

	while (*p != '\0') {
		size_t len;

		p += strspn(p, " \t,");
		len = strcspn(p, " \t,");
		if (len == 0)
			break;
		for (i = 0; i < n; i++) {
			if (strlen(names[i]) == len && strncmp(names[i], p, len) == 0) {
				names[n] = NULL;
				names_free(names);
				*err = twice;
				return -1;
			}
		}
		names = xreallocarray(names, n + 2, sizeof *names);
		names[n++] = xstrndup(p, len);
		p += len;
	}
	if (n == 0) {
		*err = none;
		return -1;
	}
	names[n] = NULL;
	names_free(*out);
	*out = names;
	return 0;
}

static int loads_list_parse(const char *value, void *dst, const char **err)
{
	return names_list_parse(value, dst, err, "a load is named twice", "no load names");
}

static int probes_list_parse(const char *value, void *dst, const char **err)
{
	return names_list_parse(value, dst, err, "a probe is named twice", "no probe names");
}

/* ---- problems, sorted by line before they are printed ---- */

struct problem {
	int line;   /* INT_MAX: about the whole file */
	size_t seq; /* keeps the order of problems on one line */
	char *text; /* the whole message, without the final newline */
};

struct problems {
	struct problem *v;
	size_t n, cap;
};

static void problem_add_text(struct problems *pr, int line, char *text)
{
	if (pr->n == pr->cap) {
		pr->cap = pr->cap ? pr->cap * 2 : 16;
		pr->v = xreallocarray(pr->v, pr->cap, sizeof *pr->v);
	}
	pr->v[pr->n] = (struct problem){ .line = line, .seq = pr->n, .text = text };
	pr->n++;
}

static void problem_add(struct problems *pr, const char *file, int line, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

static void problem_add(struct problems *pr, const char *file, int line, const char *fmt, ...)
{
	char *msg;
	va_list ap;

	va_start(ap, fmt);
	if (vasprintf(&msg, fmt, ap) < 0)
		msg = NULL;
	va_end(ap);
	if (msg == NULL)
		fatalx("out of memory formatting a message");
	if (line == INT_MAX)
		problem_add_text(pr, line, xasprintf("%s: %s", file, msg));
	else
		problem_add_text(pr, line, xasprintf("%s:%d: %s", file, line, msg));
	free(msg);
}

/* Takes what a checker printed as "file:line: ..." lines and files each
 * under its line; a line without that prefix continues the one before. */
static void problems_take(struct problems *pr, const char *file, int fallback_line, const char *out)
{
	size_t flen = strlen(file), first = pr->n;
	const char *p = out;

	while (*p != '\0') {
		size_t len = strcspn(p, "\n");
		int line = -1;

		if (strncmp(p, file, flen) == 0 && p[flen] == ':' &&
		    isdigit((unsigned char)p[flen + 1]))
			line = atoi(p + flen + 1);
		if (line < 0 && pr->n > first) {
			struct problem *last = &pr->v[pr->n - 1];
			char *joined = xasprintf("%s\n%.*s", last->text, (int)len, p);

			free(last->text);
			last->text = joined;
		} else {
			problem_add_text(pr, line < 0 ? fallback_line : line, xstrndup(p, len));
		}
		p += len;
		if (*p == '\n')
			p++;
	}
}

static int problem_cmp(const void *a, const void *b)
{
	const struct problem *x = a, *y = b;

	if (x->line != y->line)
		return x->line < y->line ? -1 : 1;
	return x->seq < y->seq ? -1 : x->seq > y->seq;
}

static void problems_flush(struct problems *pr, FILE *errs)
{
	size_t i;

	if (pr->n > 1)
		qsort(pr->v, pr->n, sizeof *pr->v, problem_cmp);
	for (i = 0; i < pr->n; i++) {
		if (errs != NULL)
			fprintf(errs, "%s\n", pr->v[i].text);
		free(pr->v[i].text);
	}
	free(pr->v);
	*pr = (struct problems){ 0 };
}

/* Runs a checker that prints to a FILE and files what it printed. */
struct capture {
	char *buf;
	size_t len;
	FILE *fp;
};

static FILE *capture_start(struct capture *c)
{
	c->buf = NULL;
	c->len = 0;
	c->fp = open_memstream(&c->buf, &c->len);
	if (c->fp == NULL)
		fatal("open_memstream");
	return c->fp;
}

static void capture_end(struct capture *c, struct problems *pr, const char *file, int line)
{
	fclose(c->fp);
	problems_take(pr, file, line, c->buf);
	free(c->buf);
}

/* ---- reading the INI file ---- */

enum section_kind { SEC_RUN, SEC_PROBE, SEC_PHASE, SEC_LOAD };

struct section {
	enum section_kind kind;
	char *name; /* [phase NAME], [load NAME]; NULL for [run], [probe] */
	int line;
	struct kv *kvs;
	size_t nkv, cap;
};

struct reader {
	const char *file;
	const char *text;
	size_t len, pos;
	int line; /* of the line last handed to inih */
	struct section *secs;
	size_t nsecs;
	struct section *cur;   /* where keys go; NULL: nowhere */
	bool ignoring;         /* in a section that was refused: its keys too */
	int first_syntax_line; /* 0 or the first line the reader found malformed */
	struct problems *pr;
	const struct profile_checks *checks; /* never NULL; its members may be */
};

static const char *kind_word(int kind)
{
	static const char *const words[] = { "run", "probe", "phase", "load" };

	return words[kind];
}

/* Names go into reports, the database and loads = lists: keep them plain. */
static bool valid_name(const char *s)
{
	if (*s == '\0')
		return false;
	for (; *s != '\0'; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_' && *s != '.')
			return false;
	return true;
}

static char *trim(char *s)
{
	char *end;

	while (isspace((unsigned char)*s))
		s++;
	end = s + strlen(s);
	while (end > s && isspace((unsigned char)end[-1]))
		*--end = '\0';
	return s;
}

/* A "[...]" line, seen by the reader so that sections without keys count
 * and every header has its line. */
static void section_begin(struct reader *r, const char *inside)
{
	char *copy = xstrdup(inside), *word, *name;
	struct section *s;
	size_t i;
	int k;

	r->cur = NULL;
	r->ignoring = true;
	word = trim(copy);
	name = word + strcspn(word, " \t");
	if (*name != '\0')
		*name++ = '\0';
	name = trim(name);
	for (k = SEC_RUN; k <= SEC_LOAD; k++)
		if (strcmp(word, kind_word(k)) == 0)
			break;
	if (k > SEC_LOAD) {
		problem_add(r->pr, r->file, r->line,
			    "unknown section [%s]; expected [run], [probe NAME], [phase NAME] or "
			    "[load NAME]",
			    inside);
	} else if (k == SEC_RUN && *name != '\0') {
		problem_add(r->pr, r->file, r->line, "[%s] takes no name", word);
	} else if ((k == SEC_PHASE || k == SEC_LOAD) && *name == '\0') {
		problem_add(r->pr, r->file, r->line, "[%s] needs a name, as in [%s %s]", word, word,
			    k == SEC_PHASE ? "warm" : "cpu");
	} else if (k != SEC_RUN && *name != '\0' && !valid_name(name)) {
		problem_add(r->pr, r->file, r->line,
			    "invalid %s name '%s': use letters, digits, '-', '_' and '.'", word,
			    name);
	} else {
		for (i = 0; i < r->nsecs; i++) {
			s = &r->secs[i];
			if ((int)s->kind == k &&
			    (s->name == NULL ? *name == '\0' : strcmp(s->name, name) == 0))
				break;
		}
		if (i < r->nsecs) {
			problem_add(r->pr, r->file, r->line,
				    "section [%s%s%s] given twice (first at line %d)", word,
				    *name ? " " : "", name, r->secs[i].line);
		} else {
			r->secs = xreallocarray(r->secs, r->nsecs + 1, sizeof *r->secs);
			s = &r->secs[r->nsecs++];
			*s = (struct section){ .kind = (enum section_kind)k,
					       .line = r->line,
					       .name = *name ? xstrdup(name) : NULL };
			r->cur = s;
			r->ignoring = false;
		}
	}
	free(copy);
}

/* Where inih would end a name or a section name: at one of chars, or at an
 * inline ';' comment (one that follows a blank). */
static char *find_chars_or_comment(char *s, const char *chars)
{
	bool was_space = false;

	for (; *s != '\0'; s++) {
		if (strchr(chars, *s) != NULL || (was_space && *s == ';'))
			break;
		was_space = isspace((unsigned char)*s);
	}
	return s;
}

/* Looks at one line the way inih will, to see section headers and report
 * every malformed line (inih's return value names only the first). */
static void classify_line(struct reader *r, char *line)
{
	char *end;

	line = trim(line);
	if (*line == '\0' || *line == ';' || *line == '#')
		return;
	if (*line == '[') {
		end = find_chars_or_comment(line + 1, "]");
		if (*end != ']') {
			problem_add(r->pr, r->file, r->line,
				    "section header without a closing ']'");
			r->cur = NULL;
			r->ignoring = true;
			if (r->first_syntax_line == 0)
				r->first_syntax_line = r->line;
			return;
		}
		*end = '\0';
		section_begin(r, trim(line + 1));
		end = trim(end + 1);
		if (*end != '\0' && *end != ';')
			problem_add(r->pr, r->file, r->line, "unexpected text after ']'");
		return;
	}
	end = find_chars_or_comment(line, "=:");
	if (*end != '=' && *end != ':') {
		problem_add(r->pr, r->file, r->line,
			    "expected 'key = value', a [section] header or a comment");
		if (r->first_syntax_line == 0)
			r->first_syntax_line = r->line;
	}
}

/* inih's reader: hands over one line at a time, without its leading blanks
 * (so inih never takes an indented line as a continuation), and looks at it
 * first. */
static char *reader_next(char *str, int num, void *stream)
{
	struct reader *r = stream;
	const char *start, *nl, *p;
	size_t len, max = num > 2 ? (size_t)num - 2 : 0;

	if (r->pos >= r->len)
		return NULL;
	start = r->text + r->pos;
	nl = memchr(start, '\n', r->len - r->pos);
	len = nl ? (size_t)(nl - start) : r->len - r->pos;
	r->pos += len + (nl != NULL);
	r->line++;
	if (r->line == 1 && len >= 3 && memcmp(start, "\xEF\xBB\xBF", 3) == 0) {
		start += 3;
		len -= 3;
	}
	for (p = start; p < start + len && (*p == ' ' || *p == '\t'); p++)
		;
	len -= (size_t)(p - start);
	if (len > 0 && p[len - 1] == '\r')
		len--;
	if (memchr(p, '\0', len) != NULL) {
		problem_add(r->pr, r->file, r->line, "NUL byte in the line (is this a text file?)");
		len = 0;
	} else if (len > max) {
		problem_add(r->pr, r->file, r->line, "line too long (the limit is %zu characters)",
			    max);
		len = 0;
	}
	memcpy(str, p, len);
	str[len] = '\0';
	classify_line(r, str);
	/* classify_line cut str up: hand inih a fresh copy. */
	memcpy(str, p, len);
	memcpy(str + len, "\n", 2);
	return str;
}

static int on_key(void *user, const char *section, const char *key, const char *value)
{
	struct reader *r = user;
	struct section *s = r->cur;

	(void)section; /* inih's copy is cut at 50 bytes; the reader's is whole */
	if (key == NULL || value == NULL)
		return 1; /* not a key = value line: the reader reported it */
	if (s == NULL) {
		if (!r->ignoring)
			problem_add(r->pr, r->file, r->line, "key '%s' comes before any [section]",
				    key);
		return 1;
	}
	if (*key == '\0') {
		problem_add(r->pr, r->file, r->line, "a key name is missing before '='");
		return 1;
	}
	if (s->nkv == s->cap) {
		s->cap = s->cap ? s->cap * 2 : 8;
		s->kvs = xreallocarray(s->kvs, s->cap, sizeof *s->kvs);
	}
	s->kvs[s->nkv++] = (struct kv){ .key = xstrdup(key),
					.value = xstrdup(value),
					.line = r->line };
	return 1;
}

static void kvs_free(struct kv *kvs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(kvs[i].key);
		free(kvs[i].value);
	}
	free(kvs);
}

static void sections_free(struct section *secs, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++) {
		free(secs[i].name);
		kvs_free(secs[i].kvs, secs[i].nkv);
	}
	free(secs);
}

/* ---- from sections to the profile ---- */

static const struct kv *section_key(const struct section *s, const char *key);

/* A phase's ramp and until: their syntax, and a ramped load that the phase runs. */
static int check_ramp(struct reader *r, const struct section *s, struct phase_def *ph)
{
	const struct kv *ramp = section_key(s, "ramp"), *until = section_key(s, "until");
	const char *err;
	bool in_phase = false;

	if (until != NULL && ramp == NULL) {
		problem_add(r->pr, r->file, until->line, "until needs a ramp in the same phase");
		return 1;
	}
	if (ramp == NULL)
		return 0;
	if (ramp_parse(ph->ramp_text, &ph->ramp, &err) < 0) {
		problem_add(r->pr, r->file, ramp->line, "ramp: %s", err);
		return 1;
	}
	for (size_t j = 0; j < ph->nloads; j++)
		in_phase = in_phase || strcmp(ph->loads[j], ph->ramp.load) == 0;
	if (!in_phase) {
		problem_add(r->pr, r->file, ramp->line, "ramp: phase '%s' does not run load '%s'",
			    ph->name, ph->ramp.load);
		return 1;
	}
	if (until != NULL && until_parse(ph->until_text, &ph->until, &err) < 0) {
		problem_add(r->pr, r->file, until->line, "until: %s", err);
		return 1;
	}
	return 0;
}

static const struct kv *section_key(const struct section *s, const char *key)
{
	size_t i;

	for (i = 0; s != NULL && i < s->nkv; i++)
		if (strcmp(s->kvs[i].key, key) == 0)
			return &s->kvs[i];
	return NULL;
}

static struct section *find_section(struct reader *r, enum section_kind kind)
{
	size_t i;

	for (i = 0; i < r->nsecs; i++)
		if (r->secs[i].kind == kind && r->secs[i].name == NULL)
			return &r->secs[i];
	return NULL;
}

/* Applies an options table, filing what it prints; returns the count. */
static int apply_section(const struct option_def *table, void *cfg, const struct section *s,
			 const char *label, struct reader *r)
{
	struct capture c;
	int n;

	n = options_apply(table, cfg, s ? s->kvs : NULL, s ? s->nkv : 0, r->file, label,
			  capture_start(&c));
	capture_end(&c, r->pr, r->file, s ? s->line : INT_MAX);
	return n;
}

/* The job probe's options go into p->probe (defaults when s is NULL). */
static int build_job(struct reader *r, struct profile *p, const struct section *s,
		     const char *label)
{
	const struct kv *job = section_key(s, "job");
	int job_line = job ? job->line : s ? s->line : INT_MAX;
	const char *err;
	int problems = 0;

	p->probe.tree = default_tree;
	problems += apply_section(probe_options, &p->probe, s, label, r);
	p->probe.argv = argv_split(p->probe.job, &err);
	if (p->probe.argv == NULL) {
		problem_add(r->pr, r->file, job_line, "job: invalid command '%s': %s", p->probe.job,
			    err);
		problems++;
	} else if (p->probe.argv[0][0] == '\0') {
		problem_add(r->pr, r->file, job_line,
			    "job: invalid command '%s': the program name is empty", p->probe.job);
		problems++;
	}
	return problems;
}

/* A [probe NAME] section's keys but type, as a section of their own (the
 * kvs array is new; its strings are the section's). */
static struct section section_without_type(const struct section *s)
{
	struct section out = *s;

	out.kvs = xcalloc(s->nkv + 1, sizeof *out.kvs);
	out.nkv = 0;
	for (size_t i = 0; i < s->nkv; i++)
		if (strcmp(s->kvs[i].key, "type") != 0)
			out.kvs[out.nkv++] = s->kvs[i];
	return out;
}

static char *section_text(const struct section *s)
{
	char *text = xstrdup("");

	for (size_t i = 0; i < s->nkv; i++) {
		char *more = xasprintf("%s%s = %s\n", text, s->kvs[i].key, s->kvs[i].value);

		free(text);
		text = more;
	}
	return text;
}

/* type = KIND, or the section's name when that is a kind: [probe wakeup]
 * (any name when kinds are not checked). */
static const char *probe_section_type(const struct reader *r, const struct section *s)
{
	const struct kv *type = section_key(s, "type");
	struct probe_kind k;

	if (type != NULL)
		return type->value;
	if (r->checks->probe_kind == NULL || r->checks->probe_kind(s->name, &k))
		return s->name;
	return NULL;
}

/* The kind of a [probe NAME] section into *k; problems printed, counted. */
static int probe_section_kind(struct reader *r, const struct section *s, const char *name,
			      struct probe_kind *k)
{
	const char *type = s->name ? probe_section_type(r, s) : "job";
	const struct kv *type_kv = section_key(s, "type");
	char known[128] = "";

	if (r->checks->probe_names != NULL)
		r->checks->probe_names(known, sizeof known);
	if (type == NULL || *type == '\0') {
		problem_add(r->pr, r->file, s->line, "[probe %s] has no type; known: %s", name,
			    known);
		return 1;
	}
	*k = (struct probe_kind){ .name = type };
	if (r->checks->probe_kind != NULL && !r->checks->probe_kind(type, k)) {
		problem_add(r->pr, r->file, type_kv ? type_kv->line : s->line,
			    "unknown probe type '%s'; known: %s", type, known);
		return 1;
	}
	return 0;
}

static int build_probe(struct reader *r, struct profile *p, const struct section *s,
		       const struct section **job)
{
	const char *name = s->name ? s->name : "job";
	struct probe_inst_def *inst;
	struct probe_kind k;
	struct section own;
	char *label;
	int problems = 0;

	if (probe_section_kind(r, s, name, &k) > 0)
		return 1;
	for (size_t i = 0; i < p->nprobes; i++) {
		if (strcmp(p->probes[i].name, name) == 0) {
			problem_add(r->pr, r->file, s->line,
				    "probe name '%s' is taken (line %d: [probe] is the job probe, "
				    "named job)",
				    name, p->probes[i].line);
			return 1;
		}
	}
	if (strcmp(k.name, "job") == 0 && *job != NULL) {
		problem_add(r->pr, r->file, s->line,
			    "a profile has one job probe; [probe %s] is a second (the first is at "
			    "line %d)",
			    name, (*job)->line);
		return 1;
	}
	inst = &p->probes[p->nprobes++];
	*inst = (struct probe_inst_def){
		.name = xstrdup(name), .line = s->line, .type = xstrdup(k.name), .ops = k.ops
	};
	own = section_without_type(s);
	inst->options_text = section_text(&own);
	if (strcmp(k.name, "job") == 0) {
		*job = s;
		inst->config = &p->probe;
	} else if (k.options != NULL) {
		label = xasprintf("probe %s", name);
		inst->options = k.options;
		inst->config = xcalloc(1, k.config_size);
		problems += apply_section(k.options, inst->config, &own, label, r);
		free(label);
	}
	free(own.kvs);
	return problems;
}

static int build_run_probes(struct reader *r, struct profile *p)
{
	struct section *run = find_section(r, SEC_RUN);
	const struct section *job = NULL;
	int problems = 0;
	bool any = false;

	problems += apply_section(run_options, &p->run, run, "run", r);
	p->probes = xcalloc(r->nsecs + 1, sizeof *p->probes);
	for (size_t i = 0; i < r->nsecs; i++) {
		if (r->secs[i].kind != SEC_PROBE)
			continue;
		any = true;
		problems += build_probe(r, p, &r->secs[i], &job);
	}
	if (job != NULL) {
		struct section own = section_without_type(job);
		char *label = job->name ? xasprintf("probe %s", job->name) : xstrdup("probe");

		problems += build_job(r, p, &own, label);
		free(label);
		free(own.kvs);
	} else {
		problems += build_job(r, p, NULL, "probe");
	}
	/* No probe section at all: the job probe with its defaults, as ever. */
	if (!any) {
		struct probe_kind k = { 0 };

		if (r->checks->probe_kind != NULL)
			r->checks->probe_kind("job", &k);
		p->probes[p->nprobes++] = (struct probe_inst_def){
			.name = xstrdup("job"),
			.type = xstrdup("job"),
			.ops = k.ops,
			.config = &p->probe,
			.options_text = xstrdup(""),
		};
	}
	return problems;
}

static int build_phases(struct reader *r, struct profile *p)
{
	int problems = 0;
	size_t i;

	p->phases = xcalloc(r->nsecs, sizeof *p->phases);
	for (i = 0; i < r->nsecs; i++) {
		struct section *s = &r->secs[i];
		struct phase_def *ph;
		char *label;

		if (s->kind != SEC_PHASE)
			continue;
		ph = &p->phases[p->nphases++];
		ph->name = xstrdup(s->name);
		ph->line = s->line;
		ph->settle_ms = -1;
		label = xasprintf("phase %s", s->name);
		problems += apply_section(phase_options, ph, s, label, r);
		free(label);
		ph->nloads = names_count(ph->loads);
	}
	return problems;
}

/* A load's keys are the loader's business, but type, and keys given twice,
 * are checked here so that a NULL validate still sees them. */
static int build_load(struct reader *r, const struct section *s, struct load_def *def,
		      load_validate_fn validate)
{
	int problems = 0;
	size_t i, j;

	def->name = xstrdup(s->name);
	def->line = s->line;
	def->kvs = xcalloc(s->nkv, sizeof *def->kvs);
	for (i = 0; i < s->nkv; i++) {
		const struct kv *kv = &s->kvs[i];
		bool dup = false;

		for (j = 0; j < i && !dup; j++) {
			if (strcmp(s->kvs[j].key, kv->key) == 0) {
				problem_add(
					r->pr, r->file, kv->line,
					"duplicate key '%s' in [load %s] (first set at line %d)",
					kv->key, s->name, s->kvs[j].line);
				problems++;
				dup = true;
			}
		}
		if (dup)
			continue;
		if (strcmp(kv->key, "type") == 0) {
			if (kv->value[0] == '\0') {
				problem_add(r->pr, r->file, kv->line, "type has no value");
				problems++;
			} else {
				def->type = xstrdup(kv->value);
			}
			continue;
		}
		def->kvs[def->nkv++] = (struct kv){ .key = xstrdup(kv->key),
						    .value = xstrdup(kv->value),
						    .line = kv->line };
	}
	if (def->type == NULL) {
		if (section_key(s, "type") == NULL) {
			problem_add(r->pr, r->file, s->line, "[load %s] has no type", s->name);
			problems++;
		}
		return problems;
	}
	if (validate != NULL) {
		struct capture c;

		problems += validate(def, r->file, capture_start(&c));
		capture_end(&c, r->pr, r->file, s->line);
	}
	return problems;
}

static int build_loads(struct reader *r, struct profile *p)
{
	int problems = 0;
	size_t i;

	p->loads = xcalloc(r->nsecs, sizeof *p->loads);
	for (i = 0; i < r->nsecs; i++)
		if (r->secs[i].kind == SEC_LOAD)
			problems += build_load(r, &r->secs[i], &p->loads[p->nloads++],
					       r->checks->load);
	return problems;
}

/* What needs the whole file: names that refer to other sections. */
static int check_references(struct reader *r, struct profile *p)
{
	const struct section *run = find_section(r, SEC_RUN);
	int problems = 0;
	size_t i, j, k;

	bool lists_ok = true;

	for (i = 0, k = 0; i < r->nsecs; i++) {
		const struct section *s = &r->secs[i];
		const struct phase_def *ph;
		const struct kv *loads;

		if (s->kind != SEC_PHASE)
			continue;
		ph = &p->phases[k++];
		loads = section_key(s, "loads");
		if (loads != NULL && ph->nloads == 0)
			lists_ok = false;
		for (j = 0; j < ph->nloads; j++) {
			if (profile_load_by_name(p, ph->loads[j]) != NULL)
				continue;
			problem_add(
				r->pr, r->file, loads->line,
				"phase '%s' names load '%s', which no [load %s] section defines",
				ph->name, ph->loads[j], ph->loads[j]);
			problems++;
		}
		problems += check_ramp(r, s, &p->phases[k - 1]);
	}
	for (i = 0, k = 0; i < r->nsecs; i++) {
		const struct section *s = &r->secs[i];
		const struct phase_def *ph;
		const struct kv *probes;

		if (s->kind != SEC_PHASE)
			continue;
		ph = &p->phases[k++];
		probes = section_key(s, "probes");
		for (j = 0; ph->probes != NULL && ph->probes[j] != NULL; j++) {
			if (profile_probe_index(p, ph->probes[j]) >= 0)
				continue;
			problem_add(r->pr, r->file, probes->line,
				    "phase '%s' names probe '%s', which no [probe %s] section "
				    "defines",
				    ph->name, ph->probes[j], ph->probes[j]);
			problems++;
		}
	}
	/* An unused load is worth a word only when every loads list was read. */
	for (i = 0; i < p->nloads && lists_ok; i++) {
		bool used = false;

		for (j = 0; j < p->nphases && !used; j++)
			for (k = 0; k < p->phases[j].nloads && !used; k++)
				used = strcmp(p->phases[j].loads[k], p->loads[i].name) == 0;
		if (!used)
			problem_add(r->pr, r->file, p->loads[i].line,
				    "warning: [load %s] is defined but no phase uses it",
				    p->loads[i].name);
	}
	if (p->nphases == 0) {
		problem_add(r->pr, r->file, INT_MAX,
			    "no [phase NAME] section; a profile needs at least one phase");
		return problems + 1;
	}
	if (p->run.baseline != NULL) {
		for (i = 0; i < p->nphases; i++)
			if (strcmp(p->phases[i].name, p->run.baseline) == 0)
				break;
		if (i == p->nphases) {
			const struct kv *kv = section_key(run, "baseline");
			char *names = xstrdup("");

			for (j = 0; j < p->nphases; j++) {
				char *more = xasprintf("%s%s%s", names, j ? ", " : "",
						       p->phases[j].name);
				free(names);
				names = more;
			}
			problem_add(r->pr, r->file, kv->line,
				    "baseline '%s' names no phase (the phases are: %s)",
				    p->run.baseline, names);
			free(names);
			problems++;
		}
	}
	return problems;
}

/* The whole file, NUL-terminated; NULL with errno set. */
static char *read_file(const char *path, size_t *len)
{
	FILE *fp = fopen(path, "r");
	char *buf = NULL;
	size_t cap = 0, n = 0, got;
	int saved;

	if (fp == NULL)
		return NULL;
	do {
		if (cap - n < 4096) {
			cap = cap ? cap * 2 : 8192;
			buf = xrealloc(buf, cap + 1);
		}
		got = fread(buf + n, 1, cap - n, fp);
		n += got;
	} while (got > 0);
	if (ferror(fp)) {
		saved = errno;
		fclose(fp);
		free(buf);
		errno = saved;
		return NULL;
	}
	fclose(fp);
	buf[n] = '\0';
	*len = n;
	return buf;
}

static int parse_text(const char *path, char *text, size_t len, struct profile *p,
		      const struct profile_checks *checks, FILE *errs);

static char *name_from_path(const char *path)
{
	const char *base = strrchr(path, '/');
	size_t len;

	base = base ? base + 1 : path;
	len = strlen(base);
	if (len > 5 && strcmp(base + len - 5, ".conf") == 0)
		len -= 5;
	return xstrndup(base, len);
}

int profile_load(const char *path, struct profile *p, const struct profile_checks *checks,
		 FILE *errs)
{
	size_t len = 0;
	char *text = read_file(path, &len);

	if (text == NULL) {
		*p = (struct profile){ 0 };
		fprintf(errs, "%s: cannot read the profile: %s\n", path, strerror(errno));
		return 1;
	}
	return parse_text(path, text, len, p, checks, errs);
}

int profile_parse_text(const char *path, const char *text, struct profile *p,
		       const struct profile_checks *checks, FILE *errs)
{
	return parse_text(path, xstrdup(text), strlen(text), p, checks, errs);
}

/* Takes text, which becomes p->text. */
static int parse_text(const char *path, char *text, size_t len, struct profile *p,
		      const struct profile_checks *checks, FILE *errs)
{
	static const struct profile_checks unchecked = { 0 };
	struct problems pr = { 0 };
	struct reader r = { .file = path, .pr = &pr, .checks = checks ? checks : &unchecked };
	int problems = 0, ini_line;

	*p = (struct profile){ 0 };
	p->text = text;
	p->path = xstrdup(path);
	p->name = name_from_path(path);
	r.text = p->text;
	r.len = len;

	ini_line = ini_parse_stream(reader_next, &r, on_key, &r);
	/* The reader has reported every malformed line already (inih returns
	 * only the first); should inih ever find one the reader missed, say so
	 * rather than accept the file. */
	problems = (int)pr.n;
	if (ini_line > 0 && r.first_syntax_line == 0) {
		problem_add(&pr, path, ini_line, "syntax error");
		problems++;
	} else if (ini_line < 0) {
		problem_add(&pr, path, INT_MAX, "the INI parser failed (%d)", ini_line);
		problems++;
	}

	problems += build_run_probes(&r, p);
	problems += build_phases(&r, p);
	problems += build_loads(&r, p);
	problems += check_references(&r, p);

	sections_free(r.secs, r.nsecs);
	problems_flush(&pr, errs);
	if (problems > 0)
		profile_free(p);
	return problems;
}

void profile_free(struct profile *p)
{
	size_t i;

	free(p->path);
	free(p->name);
	free(p->text);
	options_free(run_options, &p->run);
	options_free(probe_options, &p->probe);
	argv_free(p->probe.argv);
	for (i = 0; i < p->nphases; i++) {
		free(p->phases[i].name);
		names_free(p->phases[i].loads);
		names_free(p->phases[i].probes);
		free(p->phases[i].ramp_text);
		free(p->phases[i].until_text);
		ramp_free(&p->phases[i].ramp);
	}
	for (i = 0; i < p->nprobes; i++) {
		struct probe_inst_def *pi = &p->probes[i];

		if (pi->config != NULL && pi->config != &p->probe) {
			options_free(pi->options, pi->config);
			free(pi->config);
		}
		free(pi->name);
		free(pi->type);
		free(pi->options_text);
	}
	free(p->probes);
	free(p->phases);
	for (i = 0; i < p->nloads; i++) {
		struct load_def *ld = &p->loads[i];

		free(ld->name);
		free(ld->type);
		kvs_free(ld->kvs, ld->nkv);
		if (ld->config != NULL && ld->options != NULL)
			options_free(ld->options, ld->config);
		free(ld->config);
	}
	free(p->loads);
	*p = (struct profile){ 0 };
}

/* The source tree's config/ when loadd runs from its build tree, so that
 * `sudo build/loadd --profile desktop` works before any install; NULL for
 * an installed loadd. */
static const char *source_profile_dir(void)
{
#if defined(LOADD_BUILD_DIR) && defined(LOADD_SOURCE_PROFILE_DIR)
	char exe[PATH_MAX];
	size_t blen = strlen(LOADD_BUILD_DIR);

	if (realpath("/proc/self/exe", exe) != NULL && strncmp(exe, LOADD_BUILD_DIR, blen) == 0 &&
	    exe[blen] == '/')
		return LOADD_SOURCE_PROFILE_DIR;
#endif
	return NULL;
}

char *profile_find(const char *name_or_path, char **searched)
{
	/* Root never looks in the current directory: whoever owns it would
	 * choose the commands root runs. */
	const char *dirs[] = { geteuid() == 0 ? NULL : "./config", "/etc/loadd", LOADD_PROFILE_DIR,
			       source_profile_dir() };
	size_t len = strlen(name_or_path), i;
	char *list = NULL;

	*searched = NULL;
	if (strchr(name_or_path, '/') != NULL ||
	    (len >= 5 && strcmp(name_or_path + len - 5, ".conf") == 0))
		return xstrdup(name_or_path);
	for (i = 0; i < sizeof dirs / sizeof dirs[0]; i++) {
		char *path, *more;

		if (dirs[i] == NULL)
			continue;
		path = xasprintf("%s/%s.conf", dirs[i], name_or_path);
		/* Found even when unreadable: profile_load then says why. */
		if (len > 0 && access(path, F_OK) == 0) {
			free(list);
			return path;
		}
		more = xasprintf("%s%s%s", list ? list : "", list ? ", " : "", path);
		free(list);
		free(path);
		list = more;
	}
	*searched = list;
	return NULL;
}

int profile_probe_index(const struct profile *p, const char *name)
{
	for (size_t i = 0; i < p->nprobes; i++)
		if (strcmp(p->probes[i].name, name) == 0)
			return (int)i;
	return -1;
}

bool profile_phase_runs_probe(const struct profile *p, const struct phase_def *ph, size_t i)
{
	if (ph->probes == NULL)
		return true;
	for (size_t j = 0; ph->probes[j] != NULL; j++)
		if (strcmp(ph->probes[j], p->probes[i].name) == 0)
			return true;
	return false;
}

const struct probe_inst_def *profile_job_probe(const struct profile *p)
{
	for (size_t i = 0; i < p->nprobes; i++)
		if (p->probes[i].config == &p->probe)
			return &p->probes[i];
	return NULL;
}

const struct load_def *profile_load_by_name(const struct profile *p, const char *name)
{
	size_t i;

	for (i = 0; i < p->nloads; i++)
		if (strcmp(p->loads[i].name, name) == 0)
			return &p->loads[i];
	return NULL;
}

const struct phase_def *profile_baseline(const struct profile *p)
{
	size_t i;

	for (i = 0; i < p->nphases; i++) {
		if (p->run.baseline != NULL ? strcmp(p->phases[i].name, p->run.baseline) == 0
					    : p->phases[i].nloads == 0)
			return &p->phases[i];
	}
	return NULL;
}

int64_t profile_total_ms(const struct profile *p)
{
	int64_t round = 0;
	size_t i;

	for (i = 0; i < p->nphases; i++) {
		const struct phase_def *ph = &p->phases[i];
		/* a knee search at its longest: every step runs */
		int64_t steps = ph->ramp.nsteps > 0 ? (int64_t)ph->ramp.nsteps : 1;

		round += steps * ((ph->settle_ms >= 0 ? ph->settle_ms : p->run.settle_ms) +
				  ph->duration_ms);
	}
	return round * p->run.rounds;
}
