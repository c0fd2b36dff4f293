// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * sysacct.c - a system instance that root supervises without systemd runs
 *	       as the system instances' account, as umarm@.service runs it
 *
 * Under systemd, umarm@.service starts the supervisor as _umarm and hands
 * it the instance's files (ExecStartPre=+chown).  Where there is no
 * systemd (a container, --no-systemd), "umarmctl start" as root forks the
 * supervisor itself; it used to stay root, and so did UML and passt: a
 * guest that took over its kernel (guest root can load modules) was root
 * on the host.  The supervisor now does what the unit does before it
 * starts anything: it hands what root made in the instance's state
 * directory to the account, makes the runtime directory the account's,
 * and drops root for good.  Without the account (umarmctl not installed
 * from the package) it stays root, and says what that means.
 * UMARM_SYSTEM_ACCOUNT names another account (the tests use nobody).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <grp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "log.h"
#include "sysacct.h"
#include "util.h"

/**
 * hand_over() - give the account the instance's directories
 * @in:		instance
 * @pw:		account
 *
 * What root made in the state directory (disks, clones, locks) goes to
 * the account, as "chown -R --no-dereference --from=0" in the unit does:
 * only root's files, never through a symbolic link.  The runtime
 * directory is made here, below root's RUNDIR, and given to the account.
 *
 * Return: 0 or negative errno
 */
static int hand_over(const struct inst *in, const struct passwd *pw)
{
	char owner[64];
	char *chown_argv[] = { "chown", "-R", "--no-dereference", "--from=0",
			       owner, (char *)in->state, NULL };
	int rc;

	snprintf(owner, sizeof(owner), "%u:%u", (unsigned)pw->pw_uid,
		 (unsigned)pw->pw_gid);
	if (run_argv(chown_argv))
		return -EPERM;
	rc = mkdir_p(in->sc->rundir, 0755);
	if (!rc && mkdir(in->run, 0700) && errno != EEXIST)
		rc = -errno;
	if (!rc && lchown(in->run, pw->pw_uid, pw->pw_gid))
		rc = -errno;
	return rc;
}

/**
 * sysacct_name() - the account's name: UMARM_SYSTEM_ACCOUNT or _umarm
 */
const char *sysacct_name(void)
{
	const char *name = getenv("UMARM_SYSTEM_ACCOUNT");

	return name && *name ? name : SYSACCT_DEFAULT;
}

/**
 * sysacct_warn_root() - say so where a system instance will run as root
 * @in:		instance about to be started by root without systemd
 *
 * Return: 1 if it will (warning printed), 0 otherwise
 */
int sysacct_warn_root(const struct inst *in)
{
	const char *name = sysacct_name();

	if (in->sc->user || geteuid() || getpwnam(name))
		return 0;
	warn("%s: there is no account %s, so this system instance runs as root: a guest that takes over its kernel is root on the host; create it (adduser --system --group %s) or use a per-user instance",
	     in->name, name, name);
	return 1;
}

/**
 * access_as() - can an account read and search a directory?
 * @pw:		the account
 * @dir:	the directory
 *
 * A child takes the account's credentials, its groups included, as
 * umarm@.service's User= gives them, and asks access(): the same answer
 * the kernel gives the account, ACLs and every parent directory included.
 *
 * Return: 0 if it can, negative errno (-EACCES, ...) if not
 */
static int access_as(const struct passwd *pw, const char *dir)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (!pid) {
		if (initgroups(pw->pw_name, pw->pw_gid) ||
		    setgid(pw->pw_gid) || setuid(pw->pw_uid))
			_exit(EPERM);
		_exit(access(dir, R_OK | X_OK) ? errno : 0);
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st))
		return -ECHILD;
	return -WEXITSTATUS(st);
}

/**
 * sysacct_dir_access() - can whoever runs the instance use a directory?
 * @in:		instance
 * @dir:	host directory, resolved
 * @who:	set to the name of the account that was asked about, or
 *		NULL for the caller
 *
 * A host directory shared into the guest is read by the instance's
 * kernel or virtiofsd: a per-user instance's are the caller's, a system
 * instance's run as the system instances' account (umarm@.service, or
 * sysacct_drop() without systemd), or as root where there is none.
 * Asked at "share add", so that a directory they cannot read is refused
 * with its fix, not mounted in the guest and failing there.
 *
 * Return: 0 if it can read and search @dir (or that cannot be told: a
 *	   system instance handled by neither root nor the account),
 *	   negative errno if it cannot
 */
int sysacct_dir_access(const struct inst *in, const char *dir,
		       const char **who)
{
	struct passwd *pw;

	*who = NULL;
	if (in->sc->user)
		return access(dir, R_OK | X_OK) ? -errno : 0;
	pw = getpwnam(sysacct_name());
	if (!pw || !pw->pw_uid)
		return 0;	/* it runs as root */
	*who = sysacct_name();
	if (geteuid() == pw->pw_uid)
		return access(dir, R_OK | X_OK) ? -errno : 0;
	return geteuid() ? 0 : access_as(pw, dir);
}

/**
 * sysacct_drop() - run the rest of a root supervisor as the account
 * @in:		system instance, supervised by root without systemd
 *
 * Nothing to do for per-user instances or a supervisor that is not root.
 *
 * Return: 0 (dropped, or nothing to drop, or no account: warned), negative
 *	   errno if the hand-over or the drop failed (the supervisor must
 *	   not go on as root then)
 */
int sysacct_drop(const struct inst *in)
{
	const char *name = sysacct_name();
	struct passwd *pw;
	int rc;

	if (sysacct_warn_root(in) || in->sc->user || geteuid())
		return 0;
	pw = getpwnam(name);
	if (!pw)
		return -errno ? -errno : -ENOENT;
	if (!pw->pw_uid) {
		err("%s: the account %s is root", in->name, name);
		return -EPERM;
	}
	rc = hand_over(in, pw);
	if (rc) {
		err("%s: cannot hand %s to %s: %s", in->name, in->state, name,
		    strerror(-rc));
		return rc;
	}
	if (setgroups(0, NULL) || setgid(pw->pw_gid) || setuid(pw->pw_uid) ||
	    !setuid(0) || prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0)) {
		err("%s: cannot run as %s: %s", in->name, name,
		    strerror(errno));
		return -EPERM;
	}
	return 0;
}
