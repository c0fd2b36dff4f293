// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * manage.c - verbs: rm, rename, clone
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "cmd.h"
#include "disk.h"
#include "lock.h"
#include "log.h"
#include "rmtree.h"
#include "util.h"

/**
 * cmd_rm() - umarmctl rm NAME... [--force]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_rm(struct ctx *x, int argc, char **argv)
{
	int i, force = 0, rc = 0, n = 0;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "-f") || !strcmp(argv[i], "--force"))
			force = 1;
	for (i = 0; i < argc; i++) {
		struct inst in;
		int lock, run, r;

		if (argv[i][0] == '-')
			continue;
		n++;
		if (inst_init(&in, &x->sc, argv[i])) {
			rc = EX_USAGE;
			continue;
		}
		if (access(in.state, F_OK) && !inst_exists(&in)) {
			err("%s: no such instance", in.name);
			rc = EX_NOINST;
			continue;
		}
		inst_mkdir_state(&in);
		if (force && inst_running(&in))
			inst_stop(x, &in, 1, 0);
		lock = lock_ops(&in);
		if (lock < 0) {
			rc = EX_STATE;
			continue;
		}
		/* Hold the run lock so that nobody starts it meanwhile */
		run = lock_take(&in, LOCK_RUN, 1, 0);
		if (run < 0) {
			err("%s: is running; 'umarmctl stop %s' first, or rm --force",
			    in.name, in.name);
			lock_release(lock);
			rc = EX_STATE;
			continue;
		}
		/* Config first: the instance is gone once it is */
		if (unlink(in.conf) && errno != ENOENT) {
			err("%s: cannot remove %s: %s", in.name, in.conf,
			    strerror(errno));
			rc = EX_FAIL;
		} else {
			fsync_dir_of(in.conf);
			/* the lock files go while we hold them: a waiter
			 * finds them gone (lock_valid() in lock.c)
			 */
			r = rm_rf(in.state);
			if (r) {
				err("%s: cannot remove %s: %s", in.name,
				    in.state, strerror(-r));
				rc = EX_FAIL;
			}
		}
		lock_release(run);
		lock_release(lock);
	}
	if (!n) {
		return usage_error("rm");
	}
	return rc;
}

/**
 * relocate() - rewrite disk paths that pointed into the old state dir
 * @c:		configuration
 * @from:	old state directory
 * @to:		new state directory
 */
static void relocate(struct conf *c, const char *from, const char *to)
{
	size_t n = strlen(from);
	int i;

	for (i = 0; i < CONF_MAX_DISKS; i++) {
		char *f[2] = { c->disk[i].file, c->disk[i].base };
		int j;

		for (j = 0; j < 2; j++) {
			char tmp[CONF_VALUE_MAX];

			if (strncmp(f[j], from, n) || f[j][n] != '/')
				continue;
			snprintf(tmp, sizeof(tmp), "%s%s", to, f[j] + n);
			strcpy(f[j], tmp);
		}
	}
}

/**
 * two_names() - open NAME (stopped, locked) and validate NEWNAME
 * @x:		global options
 * @argc:	argument count
 * @argv:	NAME NEWNAME
 * @a:		old instance
 * @b:		new instance
 * @c:		configuration of @a
 * @locks:	three slots: the ops and run locks of @a taken here, and
 *		-1 for the ops lock of @b (taken by clone; rename moves
 *		@a's to @b)
 * @verb:	for messages
 *
 * Return: 0, or an exit code (locks released)
 */
static int two_names(struct ctx *x, int argc, char **argv, struct inst *a,
		     struct inst *b, struct conf *c, int *locks,
		     const char *verb)
{
	int rc;

	locks[0] = locks[1] = locks[2] = -1;
	if (argc != 2) {
		return usage_error(verb);
	}
	rc = inst_open(x, argv[0], a, c);
	if (rc)
		return rc;
	if (inst_init(b, &x->sc, argv[1]))
		return EX_USAGE;
	if (inst_exists(b) || !access(b->state, F_OK)) {
		err("%s: '%s' already exists", a->name, b->name);
		return EX_STATE;
	}
	locks[0] = lock_ops(a);
	if (locks[0] < 0)
		return EX_STATE;
	locks[1] = lock_take(a, LOCK_RUN, 1, 0);
	if (locks[1] < 0) {
		err("%s: is running; 'umarmctl stop %s' first", a->name,
		    a->name);
		lock_release(locks[0]);
		return EX_STATE;
	}
	return 0;
}

/**
 * cmd_rename() - umarmctl rename NAME NEWNAME
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Order for crash safety: move the state directory, write the new
 * configuration, remove the old one.  A crash in between leaves the old
 * configuration pointing at a missing directory (reported by start) or two
 * configurations, never lost disks.
 *
 * Return: exit code
 */
int cmd_rename(struct ctx *x, int argc, char **argv)
{
	struct inst a, b;
	struct conf c;
	int locks[3], rc;

	rc = two_names(x, argc, argv, &a, &b, &c, locks, "rename");
	if (rc)
		return rc;
	/* Never over a directory made meanwhile (even empty: a create of
	 * NEWNAME in progress).  Our locks move with the directory: from
	 * now on they are NEWNAME's (see lock.c).
	 */
	rc = renameat2(AT_FDCWD, a.state, AT_FDCWD, b.state, RENAME_NOREPLACE);
	/* file systems without it (EINVAL): check, then rename */
	if (rc && errno == EINVAL)
		rc = !access(b.state, F_OK) ? (errno = EEXIST, -1) :
		     rename(a.state, b.state);
	if (rc) {
		int e = errno;

		if (e == EEXIST)
			err("%s: '%s' already exists", a.name, b.name);
		else
			err("%s: cannot rename %s to %s: %s", a.name, a.state,
			    b.state, strerror(e));
		rc = e == EEXIST ? EX_STATE : EX_FAIL;
		goto out;
	}
	fsync_dir_of(b.state);
	relocate(&c, a.state, b.state);
	rc = conf_save(&b, &c);
	if (!rc && unlink(a.conf))
		warn("%s: cannot remove %s: %s", a.name, a.conf,
		     strerror(errno));
	if (use_systemd(x))
		info("%s: if it was enabled, run 'umarmctl enable %s'",
		     b.name, b.name);
out:
	lock_release(locks[1]);
	lock_release(locks[0]);
	return rc;
}

/**
 * cmd_clone() - umarmctl clone NAME NEWNAME
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Copies the disks in the state directory (sparse), keeps shared base
 * images shared, writes the new configuration last.
 *
 * Return: exit code
 */
int cmd_clone(struct ctx *x, int argc, char **argv)
{
	struct inst a, b;
	struct conf c;
	int locks[3], rc, i;

	rc = two_names(x, argc, argv, &a, &b, &c, locks, "clone");
	if (rc)
		return rc;
	/* NEWNAME is ours if we make its directory, and locked by us
	 * before anything goes in (another create or clone of it waits,
	 * then finds it exists)
	 */
	if (mkdir(b.state, 0700)) {
		err("%s: cannot create %s: %s", a.name, b.state,
		    errno == EEXIST ? "another command made it meanwhile" :
		    strerror(errno));
		rc = EX_STATE;
		goto out;
	}
	locks[2] = lock_ops(&b);
	if (locks[2] < 0 || inst_exists(&b)) {
		err("%s: '%s' was created meanwhile", a.name, b.name);
		rc = EX_STATE;
		goto out;
	}
	for (i = 0; !rc && i < CONF_MAX_DISKS; i++) {
		char f[PATH_LEN], g[PATH_LEN];
		const char *file = c.disk[i].file;

		if (!c.disk[i].set)
			continue;
		disk_abs(&a, file, f);
		if (path_inside(a.state, f, g) != 1)
			continue;	/* outside the instance: shared */
		if (access(f, F_OK))
			continue;	/* overlay not created yet */
		if (*file == '/') {
			relocate(&c, a.state, b.state);
			disk_abs(&b, c.disk[i].file, g);
		} else {
			disk_abs(&b, file, g);
		}
		/* the instance's account controls its directory */
		rc = copy_file_sparse(f, g, 0600, O_NOFOLLOW);
		if (rc)
			err("%s: cannot copy %s to %s: %s", a.name, f, g,
			    strerror(-rc));
	}
	if (!rc)
		rc = conf_save(&b, &c);
	else
		rm_rf(b.state);	/* lock files too: see lock.c */
	rc = rc ? EX_FAIL : 0;
out:
	lock_release(locks[2]);
	lock_release(locks[1]);
	lock_release(locks[0]);
	return rc;
}
