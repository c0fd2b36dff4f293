// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * umarmctl.c - command line: global options and verb dispatch
 *
 * Copyright the linux-uml-arm64 authors.  See umarmctl(1).
 */

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cmd.h"
#include "log.h"

#define VERSION "0.1"

/**
 * struct verb - a command
 * @name:	verb
 * @fn:		implementation, gets the arguments after the verb
 * @help:	one-line usage
 */
struct verb {
	const char *name;
	int (*fn)(struct ctx *x, int argc, char **argv);
	const char *help;
};

static const struct verb verbs[] = {
	{ "create",	cmd_create,	"create NAME [--image debian|minimal|musl|FILE] [--flavour 4k|16k] [--mem SIZE] [--cpus N] [--disk SIZE] [--network passt|none] [--port HOST:GUEST]" },
	{ "start",	cmd_start,	"start NAME... [--attach]" },
	{ "stop",	cmd_stop,	"stop NAME... [--timeout SEC]" },
	{ "poweroff",	cmd_stop,	NULL },
	{ "kill",	cmd_kill,	"kill NAME..." },
	{ "terminate",	cmd_kill,	NULL },
	{ "restart",	cmd_restart,	"restart NAME..." },
	{ "reboot",	cmd_restart,	NULL },
	{ "pause",	cmd_pause,	"pause NAME..." },
	{ "resume",	cmd_resume,	"resume NAME..." },
	{ "status",	cmd_status,	"status NAME... [--json]" },
	{ "list",	cmd_list,	"list [--json]" },
	{ "console",	cmd_console,	"console NAME" },
	{ "login",	cmd_console,	NULL },
	{ "shell",	cmd_shell,	"shell NAME [-- CMD [ARG...]]" },
	{ "exec",	cmd_exec,	"exec NAME [--timeout SEC] -- CMD [ARG...]" },
	{ "logs",	cmd_logs,	"logs NAME [-n LINES] [-f]" },
	{ "rm",		cmd_rm,		"rm NAME... [--force]" },
	{ "remove",	cmd_rm,		NULL },
	{ "rename",	cmd_rename,	"rename NAME NEWNAME" },
	{ "clone",	cmd_clone,	"clone NAME NEWNAME" },
	{ "config",	cmd_config,	"config NAME" },
	{ "disk",	cmd_disk,	"disk add NAME SIZE | disk rm NAME N | disk resize NAME N SIZE | disk list NAME" },
	{ "port-forward", cmd_port_forward, "port-forward NAME [tcp:|udp:][ADDR:]HOST:GUEST [--remove]" },
	{ "net",	cmd_net,	"net add NAME [--port HOST:GUEST]... | net rm NAME [netN] | net list NAME" },
	{ "usb",	cmd_usb,	"usb list | usb attach NAME BUSID | usb detach NAME BUSID" },
	{ "mconsole",	cmd_mconsole,	"mconsole NAME COMMAND..." },
	{ "enable",	cmd_enable,	"enable NAME..." },
	{ "disable",	cmd_disable,	"disable NAME..." },
	{ "autostart",	cmd_autostart,	"autostart" },
	{ "check",	cmd_check,	"check [NAME]" },
	{ "run",	cmd_run,	"run NAME   (supervisor, used by umarm@.service)" },
};

/**
 * usage() - print the usage summary
 * @f:		stream
 */
static void usage(FILE *f)
{
	size_t i;

	fprintf(f, "Usage: umarmctl [--user|--system] [-q] [-v] [--json] COMMAND ...\n\n");
	for (i = 0; i < sizeof(verbs) / sizeof(verbs[0]); i++)
		if (verbs[i].help)
			fprintf(f, "  umarmctl %s\n", verbs[i].help);
	fprintf(f, "\nSee umarmctl(1) and umarm.conf(5).\n");
}

/**
 * main() - parse global options, pick the scope, run the verb
 * @argc:	argument count
 * @argv:	arguments
 *
 * Global options may appear anywhere before a "--"; they are removed from
 * the vector the verb sees.
 *
 * Return: exit code, see umarmctl(1) EXIT STATUS
 */
int main(int argc, char **argv)
{
	int user = getuid() != 0, i, n = 0;
	struct ctx x = { .argv0 = argv[0] };
	char **args = calloc(argc + 1, sizeof(char *));
	const char *e;
	size_t v;

	if (!args)
		return EX_FAIL;
	if ((e = getenv("UMARM_NO_SYSTEMD")) && *e && strcmp(e, "0"))
		x.no_systemd = 1;
	for (i = 1; i < argc; i++) {
		const char *a = argv[i];

		if (!strcmp(a, "--")) {
			for (; i < argc; i++)
				args[n++] = argv[i];
			break;
		}
		if (!strcmp(a, "--user")) {
			user = 1;
		} else if (!strcmp(a, "--system")) {
			user = 0;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			log_quiet = 1;
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			log_verbose = 1;
		} else if (!strcmp(a, "--json") || !strcmp(a, "-o=json") ||
			   !strcmp(a, "--output=json")) {
			x.json = 1;
		} else if (!strcmp(a, "--no-systemd")) {
			x.no_systemd = 1;
		} else if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			usage(stdout);
			return EX_OK;
		} else if (!strcmp(a, "--version")) {
			printf("umarmctl %s\n", VERSION);
			return EX_OK;
		} else {
			args[n++] = argv[i];
		}
	}
	if (!n) {
		usage(stderr);
		return EX_USAGE;
	}
	if (scope_init(&x.sc, user))
		return EX_FAIL;

	for (v = 0; v < sizeof(verbs) / sizeof(verbs[0]); v++)
		if (!strcmp(args[0], verbs[v].name))
			return verbs[v].fn(&x, n - 1, args + 1);

	err("unknown command '%s'; see 'umarmctl --help'", args[0]);
	return EX_USAGE;
}
