// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * instance.c - the instance model: open one (its configuration through
 *		conffile.c), and whether systemd runs it
 *
 * The verbs (create.c, manage.c, show.c, lifecycle.c, ...) call down into
 * this file and runctl.c; nothing here calls a verb.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "inst.h"
#include "log.h"
#include "sdnotify.h"
#include "util.h"

/**
 * state_repair() - remake the state directory of a configured instance
 * @in:		instance, whose configuration exists
 *
 * Somebody removed STATEDIR/NAME (or never restored it with the
 * configuration): every command would fail on its locks, and list would
 * still show the instance.  Made anew, empty, and said so: a
 * copy-on-write root starts afresh from its base; a private disk that
 * was in it is gone, which start then names.
 */
static void state_repair(const struct inst *in)
{
	int rc;

	if (!inst_state_missing(in))
		return;
	rc = inst_mkdir_state(in);
	if (rc)
		err("%s: its state directory %s is missing, and cannot be made: %s",
		    in->name, in->state, strerror(-rc));
	else
		warn("%s: its state directory %s was missing: made it anew, empty (disks that were in it are gone)",
		     in->name, in->state);
}

/**
 * inst_open() - validate a name, and load its configuration
 * @x:		global options
 * @name:	instance name
 * @in:		instance paths
 * @c:		configuration, or NULL not to load it
 *
 * Return: 0 on success, an exit code otherwise (message printed)
 */
int inst_open(struct ctx *x, const char *name, struct inst *in,
	      struct conf *c)
{
	int rc;

	if (inst_init(in, &x->sc, name))
		return EX_USAGE;
	rc = c ? conf_load(in, c) : (inst_exists(in) ? 0 : EX_NOINST);
	if (rc == EX_NOINST && !c)
		conf_missing(in);	/* conf_load() said it */
	if (rc != EX_NOINST)
		state_repair(in);
	return rc;
}

/**
 * unit_installed() - whether umarm@.service is installed for a manager
 * @user:	user manager
 *
 * Return: 1 if found
 */
static int unit_installed(int user)
{
	static const char *sys[] = { "/etc/systemd/system",
				     "/usr/lib/systemd/system",
				     "/lib/systemd/system" };
	static const char *usr[] = { "/etc/systemd/user",
				     "/usr/lib/systemd/user" };
	const char **d = user ? usr : sys;
	size_t n = user ? ARRAY_SIZE(usr) : ARRAY_SIZE(sys), i;
	char p[PATH_LEN];

	for (i = 0; i < n; i++)
		if (!pathf(p, "%s/umarm@.service", d[i]) && !access(p, R_OK))
			return 1;
	return 0;
}

/**
 * use_systemd() - whether start/stop go through the service manager
 * @x:		global options
 *
 * Yes when systemd is running, the unit is installed, and (for per-user
 * instances) the user manager is reachable; never with --no-systemd, and
 * never when the directories are overridden (tests).
 *
 * Return: 1 or 0
 */
int use_systemd(struct ctx *x)
{
	const char *rt = getenv("XDG_RUNTIME_DIR");
	char p[PATH_LEN];

	if (x->no_systemd || !under_systemd() ||
	    getenv("UMARM_STATE_DIR") || !unit_installed(x->sc.user))
		return 0;
	if (!x->sc.user)
		return !getuid();
	return rt && !pathf(p, "%s/systemd/private", rt) && !access(p, F_OK);
}

/**
 * systemctl() - run "systemctl [--user] VERB umarm@NAME.service"
 * @x:		global options
 * @verb:	systemctl verb
 * @name:	instance name
 *
 * Return: exit code of systemctl, or EX_FAIL
 */
int systemctl(struct ctx *x, const char *verb, const char *name)
{
	char unit[NAME_MAX_LEN + 32];
	int st;
	pid_t pid;

	snprintf(unit, sizeof(unit), "umarm@%s.service", name);
	pid = fork();
	if (pid < 0)
		return EX_FAIL;
	if (!pid) {
		if (x->sc.user)
			execlp("systemctl", "systemctl", "--user", verb, unit,
			       (char *)NULL);
		else
			execlp("systemctl", "systemctl", verb, unit,
			       (char *)NULL);
		_exit(127);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return EX_FAIL;
	return WEXITSTATUS(st);
}
