/* SPDX-License-Identifier: GPL-2.0-or-later
 * umarmctl - manage User-Mode Linux instances
 *
 * verbs.h - the table of verbs, for the dispatcher and for usage messages
 */

#ifndef UMARM_VERBS_H
#define UMARM_VERBS_H

#include <stdio.h>

#include "cmd.h"

/**
 * enum verb_json - which forms of a verb have a JSON output
 * @JSON_NONE:	none: "-o json" is refused
 * @JSON_ALL:	every form (list, status, config, check)
 * @JSON_LIST:	its "list" form only (disk, net, share, usb)
 */
enum verb_json {
	JSON_NONE,
	JSON_ALL,
	JSON_LIST,
};

/**
 * struct verb - a command
 * @name:	verb
 * @fn:		implementation, gets the arguments after the verb
 * @alias_of:	the verb this one is another name for, or NULL
 * @usage:	usage lines without "umarmctl ", '\n' between forms (NULL
 *		for an alias)
 * @valued:	the verb's options whose value is the next word, between
 *		spaces (" --timeout -t "): that word is the option's, never
 *		a global option; NULL if none
 * @guest_cmd:	for a verb that passes a command line on (exec, shell,
 *		mconsole): which word after the verb, not counting options
 *		and their values, is that command's first (2: after NAME);
 *		from it on every word is the command's; 0 for other verbs
 * @json:	which of its forms print JSON for -o json (JSON_ALL, JSON_LIST:
 *		its "list" only); -o json is refused for the others
 * @bad_usage:	its exit status for a bad command line, global options
 *		included: 0 for EX_USAGE; EX_EXEC for exec and shell, whose
 *		own status is the guest command's
 */
struct verb {
	const char *name;
	int (*fn)(struct ctx *x, int argc, char **argv);
	const char *alias_of;
	const char *usage;
	const char *valued;
	int guest_cmd;
	enum verb_json json;
	int bad_usage;
};

const struct verb *verb_find(const char *name);
void verb_usage(FILE *f, const char *name, const char *first);
void usage_all(FILE *f);
int verb_bad_usage(const struct verb *v);

#endif /* UMARM_VERBS_H */
