// SPDX-License-Identifier: GPL-2.0-or-later
/* libFuzzer: the control API's own handling of what a peer sends: the query
 * string (parsed as the daemon parses it, with its limit), and a reply body
 * as loadctl reads it (JSON, error message). Input: query, NUL, body. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/queue.h>

#include <event2/http.h>
#include <event2/keyvalq_struct.h>
#include <jansson.h>

#include "api_client.h"
#include "log.h"
#include "parse.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static int quiet;
	char *buf = malloc(size + 1), *body, *msg, *err = NULL;
	struct evkeyvalq query;
	struct api_reply reply;
	const char *limit_text, *why;
	json_t *doc;
	long limit;

	if (!quiet) {
		log_init("fuzz_api", -1);
		quiet = 1;
	}
	if (buf == NULL)
		return 0;
	memcpy(buf, data, size);
	buf[size] = '\0';
	body = buf + strlen(buf) + (strlen(buf) < size ? 1 : 0);

	TAILQ_INIT(&query);
	if (evhttp_parse_query_str(buf, &query) == 0) {
		limit_text = evhttp_find_header(&query, "limit");
		if (limit_text != NULL)
			parse_long(limit_text, &limit, &why);
	}
	evhttp_clear_headers(&query);

	reply = (struct api_reply){ .code = body[0] % 2 ? 200 : 400,
				    .body = strdup(body),
				    .len = strlen(body) };
	doc = api_reply_json(&reply, &err);
	json_decref(doc);
	free(err);
	msg = api_reply_error(&reply);
	free(msg);
	free(reply.body);
	free(buf);
	return 0;
}
