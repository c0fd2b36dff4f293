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
#include "verbs.h"

#define VERSION "0.1"

/**
 * output_mode() - set the output mode from -o/--output's value
 * @x:		global options
 * @mode:	"json" or "table"
 *
 * Return: 0, or EX_USAGE (message printed)
 */
static int output_mode(struct ctx *x, const char *mode)
{
	if (!strcmp(mode, "json")) {
		x->json = 1;
	} else if (!strcmp(mode, "table")) {
		x->json = 0;
	} else {
		err("--output: '%s' is not an output mode: use json or table",
		    mode);
		return EX_USAGE;
	}
	return 0;
}

/**
 * global_opt() - take a global option, wherever it stands before "--"
 * @x:		global options, set
 * @argc:	argument count
 * @argv:	arguments
 * @i:		index of the argument, advanced past a separate value
 * @user:	scope, set by --user and --system
 *
 * Return: 1 if it was one, 0 if not, -1 for a bad value (message printed)
 */
static int global_opt(struct ctx *x, int argc, char **argv, int *i,
		      int *user)
{
	const char *a = argv[*i];

	if (!strcmp(a, "--user") || !strcmp(a, "--system"))
		*user = a[2] == 'u';
	else if (!strcmp(a, "-q") || !strcmp(a, "--quiet"))
		log_quiet = 1;
	else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
		log_verbose = 1;
	else if (!strcmp(a, "--json"))
		x->json = 1;
	else if (!strcmp(a, "--no-systemd"))
		x->no_systemd = 1;
	else if (!strncmp(a, "--output=", 9) || !strncmp(a, "-o=", 3))
		return output_mode(x, strchr(a, '=') + 1) ? -1 : 1;
	else if (!strncmp(a, "-o", 2) && a[2])
		return output_mode(x, a + 2) ? -1 : 1;
	else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
		if (*i + 1 >= argc) {
			err("%s needs a mode: json or table", a);
			return -1;
		}
		return output_mode(x, argv[++*i]) ? -1 : 1;
	} else
		return 0;
	return 1;
}

/**
 * json_refused() - refuse -o json for what prints no JSON, not ignore it
 * @v:		the verb
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * A script that asks for JSON must not be handed a table to parse.
 *
 * Return: 1 if refused (message printed), 0 if the verb prints JSON
 */
static int json_refused(const struct verb *v, int argc, char **argv)
{
	const char *name = v->alias_of ? v->alias_of : v->name;

	if (v->json == JSON_ALL ||
	    (v->json == JSON_LIST && argc && !strcmp(argv[0], "list")))
		return 0;
	if (v->json == JSON_LIST)
		err("-o json: only '%s list' prints JSON; drop -o json", name);
	else
		err("-o json: '%s' has no JSON output; drop -o json", name);
	return 1;
}

/**
 * main() - parse global options, pick the scope, run the verb
 * @argc:	argument count
 * @argv:	arguments
 *
 * Global options may appear anywhere before a "--"; they are removed from
 * the vector the verb sees.  -h/--help before the verb is the summary of
 * all verbs, after it that verb's usage.
 *
 * Return: exit code, see umarmctl(1) EXIT STATUS
 */
int main(int argc, char **argv)
{
	int user = getuid() != 0, i, n = 0, help = 0, r;
	struct ctx x = { .argv0 = argv[0] };
	char **args = calloc(argc + 1, sizeof(char *));
	const struct verb *v;
	const char *e;

	if (!args)
		return EX_FAIL;
	if ((e = getenv("UMARM_NO_SYSTEMD")) && *e && strcmp(e, "0"))
		x.no_systemd = 1;
	for (i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--")) {
			for (; i < argc; i++)
				args[n++] = argv[i];
			break;
		}
		r = global_opt(&x, argc, argv, &i, &user);
		if (r < 0)
			return EX_USAGE;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			help = n ? 2 : 1;
		else if (!strcmp(argv[i], "--version") && !n)
			return printf("umarmctl %s\n", VERSION) < 0;
		else
			args[n++] = argv[i];
	}
	if (help == 1 || (!n && help)) {
		usage_all(stdout);
		return EX_OK;
	}
	if (!n) {
		usage_all(stderr);
		return EX_USAGE;
	}
	v = verb_find(args[0]);
	if (!v) {
		err("unknown command '%s'; see 'umarmctl --help'", args[0]);
		return EX_USAGE;
	}
	if (help) {
		verb_usage(stdout, args[0], "Usage:");
		return EX_OK;
	}
	if (x.json && json_refused(v, n - 1, args + 1))
		return EX_USAGE;
	if (scope_init(&x.sc, user))
		return EX_FAIL;
	return v->fn(&x, n - 1, args + 1);
}
