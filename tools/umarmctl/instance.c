// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * instance.c - the instance model: open one, load and save its
 *		configuration, and whether systemd runs it
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
 * conf_load() - read and validate the configuration of an instance
 * @in:		instance
 * @c:		parsed configuration
 *
 * Return: 0 on success, EX_NOINST or EX_CONFIG (message printed)
 */
int conf_load(const struct inst *in, struct conf *c)
{
	struct conf_error e = { 0 };
	char *text;
	ssize_t n;

	conf_defaults(c);
	n = read_file(in->conf, &text, CONF_MAX_SIZE);
	if (n == -ENOENT) {
		err("%s: no such instance (no %s); see 'umarmctl list'%s",
		    in->name, in->conf,
		    in->sc->user && !getuid() ? ", or try --system" :
		    !in->sc->user ? ", or try --user" : "");
		return EX_NOINST;
	}
	if (n < 0) {
		err("%s: cannot read %s: %s", in->name, in->conf,
		    strerror(-n));
		return n == -EFBIG ? EX_CONFIG : EX_FAIL;
	}
	if (conf_parse(c, text, n, &e)) {
		if (e.line)
			err("%s: %s:%d: %s; fix the file (see umarm.conf(5))",
			    in->name, in->conf, e.line, e.msg);
		else
			err("%s: %s: %s; fix the file (see umarm.conf(5))",
			    in->name, in->conf, e.msg);
		free(text);
		return EX_CONFIG;
	}
	free(text);
	return 0;
}

/**
 * conf_save() - atomically write the configuration of an instance
 * @in:		instance
 * @c:		configuration
 *
 * Return: 0 on success, EX_FAIL (message printed)
 */
int conf_save(const struct inst *in, const struct conf *c)
{
	char *buf = malloc(CONF_MAX_SIZE), dir[PATH_LEN];
	int n, rc;

	n = buf ? conf_format(c, buf, CONF_MAX_SIZE) : -ENOMEM;
	if (n < 0) {
		err("%s: configuration too large", in->name);
		free(buf);
		return EX_FAIL;
	}
	/* System instances may run under their own account, which reads
	 * its configuration; a user's are the user's alone.
	 */
	pathf(dir, "%s/" INSTANCES_DIR, in->sc->confdir);
	rc = mkdir_p(dir, in->sc->user ? 0700 : 0755);
	if (!rc)
		rc = write_file_atomic(in->conf, buf, n,
				       in->sc->user ? 0600 : 0644);
	free(buf);
	if (rc) {
		err("%s: cannot write %s: %s", in->name, in->conf,
		    strerror(-rc));
		return EX_FAIL;
	}
	return 0;
}

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

	if (!access(in->state, F_OK) || errno != ENOENT)
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
