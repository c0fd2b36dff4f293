// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * name.c - instance name rules
 *
 * A name becomes a directory name, a UML umid, a systemd instance string
 * (umarm@NAME.service) and a guest hostname, so it has to be valid as all
 * of them: hostname-like, 1 to 63 characters.
 */

#include <string.h>

#include "name.h"

/**
 * name_check() - validate an instance name
 * @name:	candidate name
 *
 * Allowed: ASCII letters, digits, '-', '_' and '.'; starts with a letter or
 * digit; at most NAME_MAX_LEN characters; not "." or ".." (no path
 * components can appear since '/' is not allowed).
 *
 * Return: NULL if valid, otherwise a static string saying what is wrong
 */
const char *name_check(const char *name)
{
	size_t len = strlen(name), i;

	if (!len)
		return "is empty";
	if (len > NAME_MAX_LEN)
		return "is longer than 63 characters (the UML umid limit)";
	if (!((name[0] >= 'a' && name[0] <= 'z') ||
	      (name[0] >= 'A' && name[0] <= 'Z') ||
	      (name[0] >= '0' && name[0] <= '9')))
		return "must start with a letter or a digit";
	for (i = 0; i < len; i++) {
		char c = name[i];

		if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		    (c >= '0' && c <= '9') || c == '-' || c == '_' || c == '.')
			continue;
		if (c == '/')
			return "must not contain '/'";
		return "may only contain letters, digits, '-', '_' and '.'";
	}
	if (strstr(name, ".."))
		return "must not contain \"..\"";
	return NULL;
}
