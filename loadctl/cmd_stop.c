// SPDX-License-Identifier: GPL-2.0-or-later
/* loadctl stop: asks the running loadd to end its run (POST /v1/stop) and
 * returns once it has: the run is kept as 'aborted' with every sample taken
 * so far. loadd removes its socket only after it has recorded the run's
 * end, so a socket that no longer answers means the run has ended. */
#include <stdio.h>
#include <stdlib.h>

#include "api_client.h"
#include "loadctl.h"
#include "log.h"
#include "timeutil.h"
#include "xalloc.h"

#define STOP_REQUEST_TIMEOUT_MS 5000
#define STOP_POLL_TIMEOUT_MS 1000
#define STOP_POLL_EVERY_MS 200
/* Loads get a grace period, then SIGKILL; a cold-cache job is killed: this
 * is far more than stopping ever takes. */
#define STOP_WAIT_S 120

/* Polls until the socket stops answering. LOADCTL_OK once it has. */
static int wait_for_exit(const char *socket)
{
	int64_t deadline = mono_ns() + STOP_WAIT_S * NSEC_PER_SEC;
	struct api_reply reply;
	char *err = NULL;

	while (mono_ns() < deadline) {
		sleep_until_ns(mono_ns() + STOP_POLL_EVERY_MS * NSEC_PER_MSEC);
		/* While loadd stops its loads its loop does not serve: a timeout
		 * means "still stopping", not an error. */
		switch (api_call(socket, "GET", "/v1/status", STOP_POLL_TIMEOUT_MS, &reply, &err)) {
		case API_NO_DAEMON: return LOADCTL_OK;
		case API_ANSWERED: api_reply_free(&reply); break;
		case API_TIMEOUT:
		case API_DROPPED: break;
		case API_FAILED:
			log_error("%s", err);
			free(err);
			return LOADCTL_ERROR;
		}
	}
	log_error("loadd still answers on %s %d s after the stop request; see its log", socket,
		  STOP_WAIT_S);
	return LOADCTL_ERROR;
}

static int cmd_stop_exec(struct loadctl *lc, const struct loadctl_cmd *self, int argc, char **argv)
{
	const char *socket_arg = NULL;
	struct api_reply reply;
	char *socket, *err = NULL;
	json_t *doc;
	json_int_t run_id = 0;
	int status = api_command_options(self, argc, argv, &socket_arg, NULL);

	if (status >= 0)
		return status;
	socket = api_socket_path(socket_arg);
	if (!api_request(socket, "POST", "/v1/stop", STOP_REQUEST_TIMEOUT_MS, 202, &reply)) {
		status = LOADCTL_ERROR;
		goto out;
	}
	if ((doc = api_reply_json(&reply, &err)) != NULL) {
		run_id = json_integer_value(json_object_get(doc, "run_id"));
		json_decref(doc);
	}
	api_reply_free(&reply);
	printf("stopping run %lld ...\n", (long long)run_id);
	fflush(stdout);
	status = wait_for_exit(socket);
	if (status == LOADCTL_OK)
		printf("run %lld stopped; what it measured is kept: loadctl report %lld\n",
		       (long long)run_id, (long long)run_id);
out:
	free(err);
	free(socket);
	return status;
}

const struct loadctl_cmd cmd_stop_entry = {
	.name = "stop",
	.args = "[--socket PATH]",
	.summary = "end the running loadd's run (kept as aborted)",
	.exec = cmd_stop_exec,
};
