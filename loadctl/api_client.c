// SPDX-License-Identifier: GPL-2.0-or-later
#include "api_client.h"

#include <curl/curl.h>
#include <errno.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#include "control_socket.h"
#include "log.h"
#include "xalloc.h"

/* loadd's documents are a few KiB; this only stops a runaway peer. */
#define API_MAX_REPLY (16u << 20)

char *api_socket_path(const char *path)
{
	return path != NULL ? xstrdup(path) : control_socket_default(NULL);
}

static size_t on_body(char *data, size_t size, size_t nmemb, void *arg)
{
	struct api_reply *r = arg;
	size_t n = size * nmemb;

	if (r->len + n > API_MAX_REPLY)
		return 0;
	r->body = xrealloc(r->body, r->len + n + 1);
	memcpy(r->body + r->len, data, n);
	r->len += n;
	r->body[r->len] = '\0';
	return n;
}

/* curl says only that it could not connect; connect() itself says why. */
static enum api_outcome why_no_connection(const char *socket_path, char **err)
{
	struct sockaddr_un sun = { .sun_family = AF_UNIX };
	int fd, rc;

	if (strlen(socket_path) >= sizeof sun.sun_path) {
		*err = xasprintf("socket path %s is too long", socket_path);
		return API_FAILED;
	}
	strcpy(sun.sun_path, socket_path);
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
	if (fd < 0) {
		*err = xasprintf("socket: %s", strerror(errno));
		return API_FAILED;
	}
	rc = connect(fd, (struct sockaddr *)&sun, sizeof sun) == 0 ? 0 : errno;
	close(fd);
	if (rc == ENOENT || rc == ECONNREFUSED)
		return API_NO_DAEMON;
	if (rc == 0 || rc == EAGAIN)
		return API_TIMEOUT;
	if (rc == EACCES)
		*err = xasprintf("cannot connect to %s: %s (loadd as root shares its socket with "
				 "group loadd only; use sudo or join that group)",
				 socket_path, strerror(rc));
	else
		*err = xasprintf("cannot connect to %s: %s", socket_path, strerror(rc));
	return API_FAILED;
}

enum api_outcome api_call(const char *socket_path, const char *method, const char *target,
			  long timeout_ms, struct api_reply *reply, char **err)
{
	static bool curl_ready;
	char errbuf[CURL_ERROR_SIZE] = "";
	char *url = xasprintf("http://localhost%s", target);
	enum api_outcome outcome = API_ANSWERED;
	CURLcode rc;
	CURL *curl;

	memset(reply, 0, sizeof *reply);
	*err = NULL;
	if (!curl_ready) {
		if (curl_global_init(CURL_GLOBAL_NOTHING) != CURLE_OK) {
			*err = xstrdup("cannot initialise libcurl");
			free(url);
			return API_FAILED;
		}
		curl_ready = true;
	}
	curl = curl_easy_init();
	if (curl == NULL) {
		*err = xstrdup("cannot initialise libcurl");
		free(url);
		return API_FAILED;
	}
	curl_easy_setopt(curl, CURLOPT_UNIX_SOCKET_PATH, socket_path);
	curl_easy_setopt(curl, CURLOPT_URL, url);
	curl_easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method);
	if (strcmp(method, "POST") == 0) {
		curl_easy_setopt(curl, CURLOPT_POSTFIELDS, "");
		curl_easy_setopt(curl, CURLOPT_POSTFIELDSIZE, 0L);
	}
	curl_easy_setopt(curl, CURLOPT_TIMEOUT_MS, timeout_ms);
	curl_easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(curl, CURLOPT_WRITEFUNCTION, on_body);
	curl_easy_setopt(curl, CURLOPT_WRITEDATA, reply);
	curl_easy_setopt(curl, CURLOPT_ERRORBUFFER, errbuf);
	curl_easy_setopt(curl, CURLOPT_USERAGENT, "loadctl/" LOADD_VERSION);
	rc = curl_easy_perform(curl);
	if (rc == CURLE_OK) {
		curl_easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &reply->code);
		if (reply->body == NULL)
			reply->body = xstrdup("");
	} else if (rc == CURLE_COULDNT_CONNECT) {
		outcome = why_no_connection(socket_path, err);
	} else if (rc == CURLE_OPERATION_TIMEDOUT) {
		outcome = API_TIMEOUT;
	} else if (rc == CURLE_GOT_NOTHING || rc == CURLE_RECV_ERROR || rc == CURLE_SEND_ERROR) {
		outcome = API_DROPPED;
	} else {
		outcome = API_FAILED;
		*err = xasprintf("%s %s on %s: %s", method, target, socket_path,
				 errbuf[0] ? errbuf : curl_easy_strerror(rc));
	}
	if (outcome != API_ANSWERED)
		api_reply_free(reply);
	curl_easy_cleanup(curl);
	free(url);
	return outcome;
}

void api_reply_free(struct api_reply *reply)
{
	free(reply->body);
	memset(reply, 0, sizeof *reply);
}

json_t *api_reply_json(const struct api_reply *reply, char **err)
{
	json_error_t jerr;
	json_t *doc = json_loadb(reply->body, reply->len, 0, &jerr);

	if (doc == NULL) {
		*err = xasprintf("loadd's reply is not JSON: %s (line %d)", jerr.text, jerr.line);
		return NULL;
	}
	if (!json_is_object(doc)) {
		json_decref(doc);
		*err = xstrdup("loadd's reply is not a JSON object");
		return NULL;
	}
	return doc;
}

char *api_reply_error(const struct api_reply *reply)
{
	char *err = NULL;
	json_t *doc = api_reply_json(reply, &err);
	const char *msg = doc != NULL ? json_string_value(json_object_get(doc, "error")) : NULL;
	char *out = msg != NULL ? xasprintf("loadd answered %ld: %s", reply->code, msg)
				: xasprintf("loadd answered %ld", reply->code);

	json_decref(doc);
	free(err);
	return out;
}

static void api_log_unanswered(const char *socket, enum api_outcome outcome, const char *err,
			       long timeout_ms)
{
	if (outcome == API_NO_DAEMON)
		log_error("no loadd running (no answer on %s)", socket);
	else if (outcome == API_TIMEOUT)
		log_error("loadd on %s did not answer within %ld s (still starting up?)", socket,
			  timeout_ms / 1000);
	else if (outcome == API_DROPPED)
		log_error("loadd on %s closed the connection without answering (exiting?)", socket);
	else
		log_error("%s", err != NULL ? err : "the control API failed");
}

bool api_request(const char *socket, const char *method, const char *target, long timeout_ms,
		 long expect, struct api_reply *reply)
{
	char *err = NULL;
	enum api_outcome outcome = api_call(socket, method, target, timeout_ms, reply, &err);

	if (outcome != API_ANSWERED) {
		api_log_unanswered(socket, outcome, err, timeout_ms);
		free(err);
		return false;
	}
	if (reply->code != expect) {
		char *msg = api_reply_error(reply);

		log_error("%s", msg);
		free(msg);
		api_reply_free(reply);
		return false;
	}
	return true;
}
