// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl's side of the control API: HTTP over loadd's Unix socket, with
 * libcurl. */
#ifndef LOADCTL_API_CLIENT_H
#define LOADCTL_API_CLIENT_H

#include <jansson.h>
#include <stdbool.h>
#include <stddef.h>

enum api_outcome {
	API_ANSWERED,  /* a reply came, whatever its status code */
	API_NO_DAEMON, /* no socket, or nobody listening on it */
	API_TIMEOUT,   /* connected, but no whole reply in time */
	API_DROPPED,   /* the connection closed without a reply (loadd exiting) */
	API_FAILED,    /* anything else; *err says what */
};

struct api_reply {
	long code;
	char *body; /* NUL-terminated */
	size_t len;
};

/* The socket loadctl talks to: path if given, else the default. xmalloc'd. */
char *api_socket_path(const char *path);
/* One request; method "GET" or "POST", target "/v1/status". On API_FAILED
 * *err is an xmalloc'd message; reply is filled on API_ANSWERED only. */
enum api_outcome api_call(const char *socket, const char *method, const char *target,
			  long timeout_ms, struct api_reply *reply, char **err);
void api_reply_free(struct api_reply *reply);
/* The body parsed as a JSON object; NULL with an xmalloc'd message. */
json_t *api_reply_json(const struct api_reply *reply, char **err);
/* "loadd answered CODE: its error message", xmalloc'd. */
char *api_reply_error(const struct api_reply *reply);
/* One request that must get the status code `expect`: true with reply
 * filled; false after one line on stderr saying why not (no daemon, a
 * timeout, the API's own error message). */
bool api_request(const char *socket, const char *method, const char *target, long timeout_ms,
		 long expect, struct api_reply *reply);

struct loadctl_cmd;
/* The options of a command that talks to loadd: --socket PATH (into
 * *socket_arg), --help, and --json when json is not NULL. Returns -1 when the
 * command goes on, else the exit status to return (usage printed). */
int api_command_options(const struct loadctl_cmd *self, int argc, char **argv,
			const char **socket_arg, bool *json);

#endif
