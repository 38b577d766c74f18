/* The run's plan, read back from the profile text stored with the run: the
 * phases of a round, each load's type, the baseline. The profile was
 * validated when the run started, so this reads only the few keys it needs
 * and skips everything else. */
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "view.h"
#include "xalloc.h"

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

/* An inline comment starts with ';' or '#' after a blank, as in inih. */
static void strip_comment(char *s)
{
	for (char *p = s; *p != '\0'; p++) {
		if ((*p == ';' || *p == '#') && (p == s || isspace((unsigned char)p[-1]))) {
			*p = '\0';
			return;
		}
	}
}

static void push(char ***arr, size_t n, char *s)
{
	*arr = xreallocarray(*arr, n + 1, sizeof **arr);
	(*arr)[n] = s;
}

enum section { SEC_OTHER, SEC_RUN, SEC_PHASE, SEC_LOAD };

int plan_parse(const char *profile_text, struct plan *p)
{
	char *copy = xstrdup(profile_text ? profile_text : "");
	char *line, *save = NULL;
	enum section sec = SEC_OTHER;
	int ret = 0;

	memset(p, 0, sizeof *p);
	for (line = strtok_r(copy, "\n", &save); line != NULL; line = strtok_r(NULL, "\n", &save)) {
		char *s = trim(line), *eq;

		if (*s == ';' || *s == '#' || *s == '\0')
			continue;
		if (*s == '[') {
			char *close = strchr(s, ']');
			if (close == NULL) {
				ret = -1;
				break;
			}
			*close = '\0';
			s = trim(s + 1);
			if (strcmp(s, "run") == 0) {
				sec = SEC_RUN;
			} else if (strncmp(s, "phase", 5) == 0 && isspace((unsigned char)s[5])) {
				sec = SEC_PHASE;
				push(&p->phase_names, p->nphases, xstrdup(trim(s + 5)));
				push(&p->phase_loads, p->nphases, xstrdup(""));
				p->nphases++;
			} else if (strncmp(s, "load", 4) == 0 && isspace((unsigned char)s[4])) {
				sec = SEC_LOAD;
				push(&p->load_names, p->nloads, xstrdup(trim(s + 4)));
				push(&p->load_types, p->nloads, xstrdup(""));
				p->nloads++;
			} else {
				sec = SEC_OTHER;
			}
			continue;
		}
		strip_comment(s);
		eq = strpbrk(s, "=:");
		if (eq == NULL)
			continue;
		*eq = '\0';
		char *key = trim(s), *value = trim(eq + 1);
		char **slot = NULL;
		if (sec == SEC_RUN && strcmp(key, "baseline") == 0)
			slot = &p->baseline;
		else if (sec == SEC_PHASE && strcmp(key, "loads") == 0)
			slot = &p->phase_loads[p->nphases - 1];
		else if (sec == SEC_LOAD && strcmp(key, "type") == 0)
			slot = &p->load_types[p->nloads - 1];
		if (slot != NULL) {
			free(*slot);
			*slot = xstrdup(value);
		}
	}
	free(copy);
	if (ret < 0)
		plan_free(p);
	return ret;
}

void plan_free(struct plan *p)
{
	for (size_t i = 0; i < p->nphases; i++) {
		free(p->phase_names[i]);
		free(p->phase_loads[i]);
	}
	for (size_t i = 0; i < p->nloads; i++) {
		free(p->load_names[i]);
		free(p->load_types[i]);
	}
	free(p->phase_names);
	free(p->phase_loads);
	free(p->load_names);
	free(p->load_types);
	free(p->baseline);
	memset(p, 0, sizeof *p);
}

const char *plan_load_type(const struct plan *p, const char *load)
{
	for (size_t i = 0; i < p->nloads; i++)
		if (strcmp(p->load_names[i], load) == 0)
			return p->load_types[i];
	return "";
}

const char *plan_baseline(const struct plan *p)
{
	if (p->baseline != NULL && p->baseline[0] != '\0')
		return p->baseline;
	for (size_t i = 0; i < p->nphases; i++)
		if (strspn(p->phase_loads[i], " \t,") == strlen(p->phase_loads[i]))
			return p->phase_names[i];
	return NULL;
}
