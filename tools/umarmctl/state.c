// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * state.c - runtime state of an instance
 *
 * The supervisor is the only writer of RUNDIR/NAME/state (and of
 * STATEDIR/NAME/last-run when it exits); every write replaces the whole file
 * atomically (write_file_atomic()).  Readers treat the file as a
 * description only: whether the instance is up is decided by LOCK_RUN.
 *
 * Values can carry guest text (the exit reason of a panic, a line written
 * to /proc/mconsole): they are written and read through text_clean(), so
 * that no value holds a newline (which would add a "status=" line of the
 * guest's choosing) or a control character that reaches a terminal.
 */

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "state.h"
#include "text.h"
#include "util.h"

/**
 * state_write() - atomically replace a state file
 * @path:	file
 * @s:		state
 *
 * Return: 0 on success, negative errno on failure
 */
int state_write(const char *path, const struct state *s)
{
	struct state c = *s;
	char buf[2048];
	int n;

	text_clean(c.status, 0);
	text_clean(c.mconsole, 0);
	text_clean(c.net, 0);
	text_clean(c.exit, 0);
	s = &c;
	n = snprintf(buf, sizeof(buf),
		     "status=%s\nsupervisor=%d\numl=%d\npasst=%d\n"
		     "mconsole=%s\nnet=%s\nstarted=%llu\nboot=%llu\n"
		     "ready=%llu\nexit=%s\n",
		     s->status, (int)s->supervisor, (int)s->uml, (int)s->passt,
		     s->mconsole, s->net, (unsigned long long)s->started,
		     (unsigned long long)s->boot, (unsigned long long)s->ready,
		     s->exit);
	if (n < 0 || n >= (int)sizeof(buf))
		return -ENOSPC;
	return write_file_atomic(path, buf, n, 0600);
}

/**
 * state_read() - read a state file; unknown keys are ignored
 * @path:	file
 * @s:		state, zeroed first
 *
 * Values are cleaned again: a file written by an older umarmctl may hold
 * raw guest text.
 *
 * Return: 0 on success, negative errno on failure
 */
int state_read(const char *path, struct state *s)
{
	char *buf, *line, *save;
	ssize_t n;

	memset(s, 0, sizeof(*s));
	n = read_file(path, &buf, 8192);
	if (n < 0)
		return n;
	for (line = strtok_r(buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *v = strchr(line, '=');

		if (!v)
			continue;
		*v++ = 0;
#define STR(k, f) if (!strcmp(line, k)) \
		{ snprintf(f, sizeof(f), "%s", v); text_clean(f, 0); }
		STR("status", s->status);
		STR("mconsole", s->mconsole);
		STR("net", s->net);
		STR("exit", s->exit);
#undef STR
		if (!strcmp(line, "supervisor"))
			s->supervisor = atoi(v);
		if (!strcmp(line, "uml"))
			s->uml = atoi(v);
		if (!strcmp(line, "passt"))
			s->passt = atoi(v);
		if (!strcmp(line, "started"))
			s->started = strtoull(v, NULL, 10);
		if (!strcmp(line, "boot"))
			s->boot = strtoull(v, NULL, 10);
		if (!strcmp(line, "ready"))
			s->ready = strtoull(v, NULL, 10);
	}
	free(buf);
	return 0;
}
