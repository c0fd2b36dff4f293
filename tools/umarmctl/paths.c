// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * paths.c - where system and per-user instances live
 *
 * System instances (the default for root): /etc/umarm/instances/NAME.conf,
 * /var/lib/umarm/NAME/, /run/umarm/NAME/.  Per-user instances (the default
 * for everybody else, --user for root): the same under $XDG_CONFIG_HOME,
 * $XDG_STATE_HOME and $XDG_RUNTIME_DIR, with the XDG Base Directory
 * defaults (~/.config, ~/.local/state): the directories systemd's user
 * manager gives umarm@.service as ConfigurationDirectory= (%E),
 * StateDirectory= (%S) and RuntimeDirectory= (%t).  Without $XDG_RUNTIME_DIR (su, runuser, cron,
 * a phone) the runtime directory is /tmp/umarm-UID, created 0700 and
 * verified to be ours.  UMARM_CONFIG_DIR, UMARM_STATE_DIR, UMARM_RUNTIME_DIR
 * override the three for either scope (used by the tests).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <pwd.h>
#include <sys/fsuid.h>
#include <sys/stat.h>

#include "paths.h"
#include "log.h"

/**
 * home_dir() - the user's home directory
 *
 * Return: $HOME, else the passwd entry, else NULL
 */
static const char *home_dir(void)
{
	const char *h = getenv("HOME");
	struct passwd *pw;

	if (h && *h == '/')
		return h;
	pw = getpwuid(getuid());
	return pw ? pw->pw_dir : NULL;
}

/**
 * xdg_dir() - resolve an XDG base directory plus "/umarm"
 * @buf:	output, PATH_LEN bytes
 * @env:	variable name, e.g. "XDG_CONFIG_HOME"
 * @fallback:	path below $HOME if unset, e.g. ".config"
 *
 * Return: 0 on success, -ENOENT if there is no home directory
 */
static int xdg_dir(char *buf, const char *env, const char *fallback)
{
	const char *v = getenv(env), *h;

	/* The spec says relative values are invalid and must be ignored */
	if (v && *v == '/')
		return pathf(buf, "%s/umarm", v);
	h = home_dir();
	if (!h)
		return -ENOENT;
	return pathf(buf, "%s/%s/umarm", h, fallback);
}

/**
 * user_rundir() - per-user runtime directory
 * @buf:	output, PATH_LEN bytes
 *
 * Return: 0 on success, negative errno if no safe directory exists
 */
static int user_rundir(char *buf)
{
	const char *v = getenv("XDG_RUNTIME_DIR");
	char tmp[PATH_LEN];
	struct stat st;

	if (v && *v == '/')
		return pathf(buf, "%s/umarm", v);

	pathf(tmp, "/tmp/umarm-%u", (unsigned int)getuid());
	if (mkdir(tmp, 0700) && errno != EEXIST)
		return -errno;
	if (lstat(tmp, &st))
		return -errno;
	if (!S_ISDIR(st.st_mode) || st.st_uid != getuid() ||
	    (st.st_mode & 077)) {
		err("%s is not a private directory owned by uid %u: set XDG_RUNTIME_DIR or remove it",
		    tmp, (unsigned int)getuid());
		return -EPERM;
	}
	return pathf(buf, "%s", tmp);
}

/**
 * scope_init() - compute the directories of a scope
 * @sc:		scope to fill
 * @user:	non-zero for per-user instances
 *
 * Return: 0 on success, negative errno on failure (message printed)
 */
int scope_init(struct scope *sc, int user)
{
	const char *o;
	int rc;

	memset(sc, 0, sizeof(*sc));
	sc->user = user;
	if (user) {
		rc = xdg_dir(sc->confdir, "XDG_CONFIG_HOME", ".config");
		if (!rc)
			rc = xdg_dir(sc->statedir, "XDG_STATE_HOME",
				     ".local/state");
		if (!rc)
			rc = user_rundir(sc->rundir);
		if (rc) {
			err("cannot find per-user directories (is HOME set?)");
			return rc;
		}
	} else {
		strcpy(sc->confdir, "/etc/umarm");
		strcpy(sc->statedir, "/var/lib/umarm");
		strcpy(sc->rundir, "/run/umarm");
	}
	if ((o = getenv("UMARM_CONFIG_DIR")) && *o == '/')
		pathf(sc->confdir, "%s", o);
	if ((o = getenv("UMARM_STATE_DIR")) && *o == '/')
		pathf(sc->statedir, "%s", o);
	if ((o = getenv("UMARM_RUNTIME_DIR")) && *o == '/')
		pathf(sc->rundir, "%s", o);
	return 0;
}

/**
 * inst_init() - validate a name and compute the paths of its instance
 * @in:		instance to fill
 * @sc:		scope
 * @name:	instance name
 *
 * Return: 0 on success, -EINVAL for a bad name (message printed)
 */
int inst_init(struct inst *in, const struct scope *sc, const char *name)
{
	const char *why = name_check(name);

	memset(in, 0, sizeof(*in));
	if (why) {
		err("invalid instance name '%.80s': it %s", name, why);
		return -EINVAL;
	}
	in->sc = sc;
	strcpy(in->name, name);
	if (pathf(in->conf, "%s/" INSTANCES_DIR "/%s.conf", sc->confdir, name) ||
	    pathf(in->state, "%s/%s", sc->statedir, name) ||
	    pathf(in->run, "%s/%s", sc->rundir, name)) {
		err("%s: paths too long", name);
		return -ENAMETOOLONG;
	}
	return 0;
}

/**
 * inst_path() - path of a file of an instance
 * @in:		instance
 * @buf:	output, PATH_LEN bytes
 * @run:	non-zero for the runtime directory, zero for the state one
 * @file:	file name
 *
 * Return: 0 on success, -ENAMETOOLONG
 */
int inst_path(const struct inst *in, char *buf, int run, const char *file)
{
	return pathf(buf, "%s/%s", run ? in->run : in->state, file);
}

/**
 * inst_exists() - whether an instance has been created
 * @in:		instance
 *
 * Return: 1 if its configuration file exists, 0 otherwise
 */
int inst_exists(const struct inst *in)
{
	return !access(in->conf, F_OK);
}

/**
 * inst_state_missing() - the instance's state directory is gone
 * @in:		instance
 *
 * Return: 1 if nothing is at its path (ENOENT), 0 otherwise
 */
int inst_state_missing(const struct inst *in)
{
	return access(in->state, F_OK) && errno == ENOENT;
}

/**
 * inst_fs_owner() - as root, act on files as the instance's owner
 * @in:		instance
 * @saved:	the identity to restore with inst_fs_restore()
 *
 * A system instance under umarm@.service runs as its own account
 * (_umarm), which owns its state directory: its UML opens the disks and
 * reads the exchange directory with that account's rights only, and a
 * guest that took over its kernel controls everything below that
 * directory (symbolic links included).  So root makes files there for a
 * running instance (exec jobs, hot-plugged disks) as that account:
 * setfsuid() takes root's rights on the file system away meanwhile and
 * leaves the process as it is otherwise.  The state directory itself
 * sits in root's directory, out of the guest's reach.  Nothing changes
 * for other callers, or for an instance root owns (supervised without
 * systemd).
 */
void inst_fs_owner(const struct inst *in, struct fs_id *saved)
{
	struct stat st;

	saved->set = 0;
	if (geteuid() || lstat(in->state, &st) || !S_ISDIR(st.st_mode) ||
	    !st.st_uid)
		return;
	saved->gid = setfsgid(st.st_gid);
	saved->uid = setfsuid(st.st_uid);
	saved->set = 1;
}

/**
 * inst_fs_restore() - undo inst_fs_owner()
 * @saved:	what it saved
 */
void inst_fs_restore(const struct fs_id *saved)
{
	if (!saved->set)
		return;
	setfsuid(saved->uid);
	setfsgid(saved->gid);
}

/**
 * path_inside() - whether a file is in a directory (or below it)
 * @dir:	directory, e.g. the state directory of an instance
 * @path:	file, e.g. a disk from a configuration
 * @real:	@path with its directory resolved, PATH_LEN bytes: what to
 *		unlink() (the last component is not followed: a symbolic
 *		link inside @dir is itself inside)
 *
 * Compares resolved paths component-wise: "STATE/../../x.img" is not in
 * STATE, and STATEDIR/vm2/x.img is not in STATEDIR/vm.
 *
 * Return: 1 if inside, 0 if not, negative errno if @dir or the directory
 *	   of @path cannot be resolved
 */
int path_inside(const char *dir, const char *path, char *real)
{
	char rdir[PATH_MAX], rparent[PATH_MAX], parent[PATH_LEN];
	const char *base = strrchr(path, '/');
	size_t n;

	if (!base || base == path || !base[1] || !strcmp(base, "/.") ||
	    !strcmp(base, "/.."))
		return 0;
	if (pathf(parent, "%.*s", (int)(base - path), path))
		return -ENAMETOOLONG;
	if (!realpath(dir, rdir) || !realpath(parent, rparent))
		return -errno;
	if (pathf(real, "%s%s", rparent, base))
		return -ENAMETOOLONG;
	n = strlen(rdir);
	return !strncmp(rparent, rdir, n) &&
	       (rparent[n] == '/' || !rparent[n]);
}

/**
 * inst_tighten() - make an instance's state directory private again
 * @in:		instance
 *
 * Versions before 0600/0700 created disks 0644 and directories 0755: any
 * local user could read the guest's disks.  The owner's commands take
 * the group and other bits away from the directory and from the files
 * directly in it (disks, logs, last-run), owned by the caller only: root
 * never changes a file of the account that runs an instance.  Symbolic
 * links are not followed.
 */
void inst_tighten(const struct inst *in)
{
	struct dirent *de;
	struct stat st;
	int dfd;
	DIR *d;

	dfd = open(in->state, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		   O_CLOEXEC);
	if (dfd < 0)
		return;
	if (!fstat(dfd, &st) && st.st_uid == geteuid() && (st.st_mode & 077))
		fchmod(dfd, st.st_mode & 0700);
	d = fdopendir(dfd);
	if (!d) {
		close(dfd);
		return;
	}
	while ((de = readdir(d))) {
		int fd = openat(dfd, de->d_name, O_RDONLY | O_NOFOLLOW |
				O_NONBLOCK | O_NOCTTY | O_CLOEXEC);

		if (fd < 0)
			continue;
		if (!fstat(fd, &st) && S_ISREG(st.st_mode) &&
		    st.st_uid == geteuid() && (st.st_mode & 077))
			fchmod(fd, st.st_mode & 0700);
		close(fd);
	}
	closedir(d);
}

/**
 * inst_mkdir_state() - create an instance's state directory, private
 * @in:		instance
 *
 * The scope's directory stays traversable for system instances
 * (/var/lib/umarm 0755: each instance may run under its own account and
 * must reach its directory); the instance's directory is 0700, its files
 * 0600.  An existing one is tightened (inst_tighten()).
 *
 * Return: 0 on success, negative errno on failure
 */
int inst_mkdir_state(const struct inst *in)
{
	int rc = mkdir_p(in->sc->statedir, in->sc->user ? 0700 : 0755);

	if (!rc && mkdir(in->state, 0700) && errno != EEXIST)
		rc = -errno;
	if (!rc)
		inst_tighten(in);
	return rc;
}
