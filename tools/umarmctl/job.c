// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * job.c - the files and the console line of an exec job
 *
 * The job files reach the guest through the exchange directory (hostfs),
 * where they carry the host user's uid and mode: a guest process running
 * with that uid can rewrite them before the guest's root shell runs them,
 * and would run its own commands as guest root.  So the line typed on
 * the console, which only the host writes, carries their SHA-256: the
 * root shell first copies them into a directory of its own (mktemp -d,
 * mode 0700 under /tmp), checks the copies with sha256sum -c (busybox and
 * coreutils have it) and runs only those.  A file changed before the copy
 * fails the check, one changed after it is no longer read.  The job then
 * writes "started", "out", "err" and "rc" back to the exchange directory;
 * on a failed copy or check it writes "refused" (copy or digest) instead.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "job.h"
#include "util.h"

/**
 * job_cmd_text() - the "cmd" file: exec and the quoted command
 * @cmd:	command and arguments
 * @ncmd:	number of them
 * @len:	length of the result
 *
 * Return: allocated text, NULL on failure (errno set)
 */
char *job_cmd_text(char **cmd, int ncmd, size_t *len)
{
	size_t size = 256, o;
	char *buf;
	int i;

	for (i = 0; i < ncmd; i++)
		size += 4 * strlen(cmd[i]) + 3;
	buf = malloc(size);
	if (!buf)
		return NULL;
	o = snprintf(buf, size, "exec");
	for (i = 0; i < ncmd; i++) {
		buf[o++] = ' ';
		if (sh_quote(cmd[i], buf + o, size - o)) {
			free(buf);
			errno = E2BIG;
			return NULL;
		}
		o += strlen(buf + o);
	}
	buf[o++] = '\n';
	buf[o] = 0;
	*len = o;
	return buf;
}

/**
 * job_run_text() - the "run" wrapper, started as "sh run COPYDIR UMASK"
 * @gdir:	the job directory as the guest sees it (no quotes in it)
 *
 * It runs the checked copies of "cmd" and "in" from COPYDIR and writes
 * its results into @gdir; "rc" appears complete (write, then rename).
 * The command gets back the umask of the shell that ran the line, not
 * the 077 the copies are made under: what it creates has the modes it
 * would have from that shell (the results stay 077).
 *
 * Return: allocated text, NULL on failure
 */
char *job_run_text(const char *gdir)
{
	return xasprintf("J=%s\n"
			 "D=$1\n"
			 ": > \"$J/started\"\n"
			 "cd / 2>/dev/null\n"
			 "(umask \"${2:-077}\"; exec sh \"$D/cmd\") < \"$D/in\" > \"$J/out\" 2> \"$J/err\"\n"
			 "echo $? > \"$J/rc.tmp\" && mv \"$J/rc.tmp\" \"$J/rc\"\n",
			 gdir);
}

/**
 * job_line() - the line typed on the guest's root shell to run a job
 * @gdir:	the job directory as the guest sees it (no quotes in it)
 * @dg:		digests of the job files
 * @buf:	the line, without newline
 * @len:	size of @buf
 *
 * In the background, so that the console shell is free at once.
 *
 * Return: 0, -ENAMETOOLONG if it does not fit in @buf
 */
int job_line(const char *gdir, const struct job_digests *dg, char *buf,
	     size_t len)
{
	int n;

	n = snprintf(buf, len,
		     "( (U=$(umask); J=%s; umask 077; "
		     "if ! d=$(mktemp -d /tmp/umarm-job.XXXXXX) || ! cp \"$J/cmd\" \"$J/in\" \"$J/run\" \"$d/\"; then echo copy > \"$J/refused\"; "
		     "elif ! printf '%%s  %%s\\n' %s \"$d/cmd\" %s \"$d/in\" %s \"$d/run\" | sha256sum -c >/dev/null 2>&1; then echo digest > \"$J/refused\"; "
		     "else sh \"$d/run\" \"$d\" \"$U\"; fi; rm -rf \"$d\") >/dev/null 2>&1 & )",
		     gdir, dg->cmd, dg->in, dg->run);
	return n < 0 || (size_t)n >= len ? -ENAMETOOLONG : 0;
}
