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

/* What a word of the command line is to main(): see verb_word() */
enum word_kind {
	WORD_ANY,	/* a global option, or the verb's */
	WORD_VERB,	/* the verb's: the value of one of its options */
	WORD_REST,	/* it and every word after it are the verb's */
};

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
 * verb_target() - the verb a name stands for, an alias resolved
 * @name:	what the user typed
 *
 * Return: its entry (the aliased verb's for an alias), NULL if none
 */
static const struct verb *verb_target(const char *name)
{
	const struct verb *v = verb_find(name);

	return v && v->alias_of ? verb_find(v->alias_of) : v;
}

/**
 * struct scan - where main() is on the command line
 * @verb:	the verb, once it has been seen (its target for an alias)
 * @words:	words after the verb that are not options or their values
 * @value_next:	the next word is the value of one of the verb's options
 */
struct scan {
	const struct verb *verb;
	int words;
	int value_next;
};

/**
 * verb_word() - is this word the verb's own, or the start of a command
 *		 line that belongs to the guest?
 * @sc:		scan state, advanced past the word
 * @a:		the word
 *
 * After "--", and from the command word of exec, shell and mconsole on,
 * every word is the guest's (or UML's): "exec NAME ls -v" runs "ls -v",
 * and -v is no global option there.  The value of one of the verb's own
 * options ("create --cmdline -v") is that option's.
 *
 * Return: WORD_REST if the rest of the line is the guest's, WORD_VERB
 *	   if the word is the verb's as it stands, WORD_ANY if it may be a
 *	   global option
 */
static enum word_kind verb_word(struct scan *sc, const char *a)
{
	const struct verb *v = sc->verb;
	char opt[64];

	if (!strcmp(a, "--"))
		return WORD_REST;
	if (!v)
		return WORD_ANY;
	if (sc->value_next) {
		sc->value_next = 0;
		return WORD_VERB;
	}
	if (a[0] == '-') {
		snprintf(opt, sizeof(opt), " %s ", a);
		sc->value_next = v->valued && strlen(a) < sizeof(opt) - 2 &&
				 strstr(v->valued, opt);
		return WORD_ANY;
	}
	if (v->guest_cmd && ++sc->words == v->guest_cmd)
		return WORD_REST;
	return WORD_ANY;
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
 * Global options may appear anywhere before a "--" and before the command
 * line exec, shell and mconsole pass on (verb_word()); they are removed
 * from the vector the verb sees.  -h/--help before the verb is the summary of
 * all verbs, after it that verb's usage.
 *
 * Return: exit code, see umarmctl(1) EXIT STATUS
 */
int main(int argc, char **argv)
{
	int user = getuid() != 0, i, n = 0, help = 0, bad = 0, r;
	struct ctx x = { .argv0 = argv[0] };
	struct scan sc = { 0 };
	char **args = calloc(argc + 1, sizeof(char *));
	const struct verb *v;
	const char *e;

	if (!args)
		return EX_FAIL;
	if ((e = getenv("UMARM_NO_SYSTEMD")) && *e && strcmp(e, "0"))
		x.no_systemd = 1;
	for (i = 1; i < argc; i++) {
		enum word_kind k = verb_word(&sc, argv[i]);

		if (k == WORD_REST) {
			for (; i < argc; i++)
				args[n++] = argv[i];
			break;
		}
		if (k == WORD_VERB) {
			args[n++] = argv[i];
			continue;
		}
		r = global_opt(&x, argc, argv, &i, &user);
		bad |= r < 0;
		if (r)
			continue;
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help"))
			help = n ? 2 : 1;
		else if (!strcmp(argv[i], "--version") && !n)
			return printf("umarmctl %s\n", VERSION) < 0;
		else if (n)
			args[n++] = argv[i];
		else
			sc.verb = verb_target(args[n++] = argv[i]);
	}
	if (bad)
		return verb_bad_usage(n ? verb_find(args[0]) : NULL);
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
		return verb_bad_usage(v);
	if (scope_init(&x.sc, user))
		return EX_FAIL;
	return v->fn(&x, n - 1, args + 1);
}
