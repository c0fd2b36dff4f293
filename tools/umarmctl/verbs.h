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
 * struct verb - a command
 * @name:	verb
 * @fn:		implementation, gets the arguments after the verb
 * @alias_of:	the verb this one is another name for, or NULL
 * @usage:	usage lines without "umarmctl ", '\n' between forms (NULL
 *		for an alias)
 */
struct verb {
	const char *name;
	int (*fn)(struct ctx *x, int argc, char **argv);
	const char *alias_of;
	const char *usage;
};

const struct verb *verb_find(const char *name);
void verb_usage(FILE *f, const char *name, const char *first);
void usage_all(FILE *f);

#endif /* UMARM_VERBS_H */
