// SPDX-License-Identifier: GPL-2.0-or-later
/* The options every loadctl command that talks to loadd takes (status,
 * stop), apart from the API client so that the client links without the
 * command line (the fuzzers use it alone). */
#include "api_client.h"

#include <getopt.h>
#include <stdbool.h>

#include "loadctl.h"

int api_command_options(const struct loadctl_cmd *self, int argc, char **argv,
			const char **socket_arg, bool *json)
{
	static const struct option longopts[] = {
		{ "socket", required_argument, NULL, 's' },
		{ "help", no_argument, NULL, 'h' },
		{ "json", no_argument, NULL, 'j' },
		{ NULL, 0, NULL, 0 },
	};
	int opt;

	while ((opt = getopt_long(argc, argv, "h", longopts, NULL)) != -1) {
		switch (opt) {
		case 's': *socket_arg = optarg; break;
		case 'h': return loadctl_usage(self);
		case 'j':
			if (json == NULL)
				return loadctl_usage_error(self, "unknown option '--json'");
			*json = true;
			break;
		default:
			return loadctl_usage_error(self, "unknown option or missing value: '%s'",
						   argv[optind - 1]);
		}
	}
	if (optind < argc)
		return loadctl_usage_error(self, "unexpected argument '%s'", argv[optind]);
	return -1;
}
