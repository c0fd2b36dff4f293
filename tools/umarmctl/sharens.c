// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * sharens.c - hostfs shares: the kernel's own mount namespace
 *
 * UML's hostfs= roots every hostfs mount of the guest at one host
 * directory, the exchange directory, and our kernels refuse mounts whose
 * path leaves it through ".." or a host symlink (kernel/patches: "hostfs:
 * refuse mounts that leave the hostfs= directory").  Shares live in
 * unrelated host directories, so the kernel runs in a mount namespace of
 * its own (in a user namespace of its own unless the supervisor is root:
 * unprivileged) in which
 *
 *	STATE/shares		(the supervisor's: the table, one empty
 *				 directory per share)
 *	is bind-mounted read-only on	STATE/exchange/shares
 *	and each HOSTDIR on		STATE/exchange/shares/NAME
 *				(read-only too for a read-only share).
 *
 * The guest's init mounts the hostfs path /shares/NAME on GUESTDIR, as
 * the table says (umarm.shares=/shares on the command line).  Outside
 * the namespace nothing is mounted: the host sees empty directories.
 * Symlinks that the guest follows are resolved by the guest (hostfs's
 * get_link hands it the target), so one inside a share that points out
 * of it leads into the guest's own tree, not the host's.
 *
 * A share added to a running instance is bind-mounted by a child that
 * joins the kernel's namespaces (setns: the supervisor's account owns the
 * user namespace it made).  The control request that asks for it
 * (control.c) hands this file the configuration: nothing here reads it.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>

#include "sup.h"
#include "log.h"
#include "rmtree.h"
#include "sharens.h"
#include "util.h"

#ifndef MOUNT_ATTR_RDONLY
#define MOUNT_ATTR_RDONLY	0x00000001
#endif
#ifndef AT_RECURSIVE
#define AT_RECURSIVE		0x8000
#endif

/**
 * struct mount_attr_ro - struct mount_attr of mount_setattr(2), which
 *			  older C libraries do not declare
 */
struct mount_attr_ro {
	uint64_t attr_set, attr_clr, propagation, userns_fd;
};

/**
 * shares_table() - write STATE/shares/table, what the guest's init mounts
 * @in:		instance
 * @c:		configuration
 *
 * One line per share: "NAME hostfs|virtiofs ro|rw GUESTDIR".
 *
 * Return: 0, or negative errno
 */
int shares_table(const struct inst *in, const struct conf *c)
{
	size_t size = c->nshares * (CONF_VALUE_MAX + 64) + 1, o = 0;
	char path[PATH_LEN], *buf = malloc(size);
	int i, rc;

	if (!buf)
		return -ENOMEM;
	for (i = 0; i < c->nshares; i++) {
		const struct conf_share *sh = &c->share[i];

		o += snprintf(buf + o, size - o, "%s %s %s %s\n",
			      conf_str(c, sh->name), conf_share_fs_name(sh->fs),
			      sh->ro ? "ro" : "rw", conf_str(c, sh->guest));
	}
	pathf(path, "%s/%s/%s", in->state, SHARES_DIR, SHARES_TABLE);
	rc = write_file_atomic(path, buf, o, 0644);
	free(buf);
	return rc;
}

/**
 * shares_prepare() - before the kernel starts: the directories and table
 * @in:		instance
 * @c:		configuration
 *
 * STATE/shares is made afresh (it is the supervisor's: the guest reaches
 * it only read-only).  STATE/exchange/shares is the guest's, and a guest
 * of a previous run may have put a symlink there: it must be a plain
 * directory before anything is mounted on it.
 *
 * Return: 0, or negative errno (message printed)
 */
int shares_prepare(const struct inst *in, const struct conf *c)
{
	char dir[PATH_LEN], path[PATH_LEN];
	struct stat st;
	int i, rc;

	inst_path(in, dir, 0, SHARES_DIR);
	rm_rf(dir);
	rc = mkdir(dir, 0755) ? -errno : 0;
	for (i = 0; !rc && i < c->nshares; i++) {
		pathf(path, "%s/%s", dir, conf_str(c, c->share[i].name));
		if (mkdir(path, 0755))
			rc = -errno;
	}
	if (!rc)
		rc = shares_table(in, c);
	pathf(path, "%s/%s/%s", in->state, EXCHANGE_DIR, SHARES_DIR);
	if (!rc && !lstat(path, &st) && !S_ISDIR(st.st_mode) && unlink(path))
		rc = -errno;
	if (!rc && mkdir(path, 0755) && errno != EEXIST)
		rc = -errno;
	if (rc)
		err("%s: cannot prepare %s for the shares: %s", in->name, dir,
		    strerror(-rc));
	return rc;
}

/**
 * shares_check() - before the kernel starts: every HOSTDIR is a directory
 * @in:		instance
 * @c:		configuration
 *
 * Return: 0, or -ENOENT / -ENOTDIR (message printed, naming the fix)
 */
int shares_check(const struct inst *in, const struct conf *c)
{
	int i;

	for (i = 0; i < c->nshares; i++) {
		const char *host = conf_str(c, c->share[i].host);
		struct stat st;

		if (!stat(host, &st) && S_ISDIR(st.st_mode))
			continue;
		err("%s: share %s: %s is %s: create it, or 'umarmctl share rm %s %s'",
		    in->name, conf_str(c, c->share[i].name), host,
		    errno == ENOENT ? "missing" : "not a directory",
		    in->name, conf_str(c, c->share[i].name));
		return -ENOENT;
	}
	return 0;
}

/**
 * write_map() - write one line to a /proc/self map file
 * @file:	"uid_map", "gid_map" or "setgroups"
 * @line:	its contents
 *
 * Return: 0, or negative errno
 */
static int write_map(const char *file, const char *line)
{
	char path[64];
	int fd, rc;

	snprintf(path, sizeof(path), "/proc/self/%s", file);
	fd = open(path, O_WRONLY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	rc = write_all(fd, line, strlen(line));
	close(fd);
	return rc;
}

/**
 * ns_unshare() - a mount namespace of our own, in a user namespace of our
 *		  own unless we are root, that mounts do not leave
 *
 * The user namespace maps our uid and gid to themselves only: the kernel
 * keeps its host identity; files of other owners show as the overflow
 * uid (nobody) through hostfs.
 *
 * Return: 0, or negative errno
 */
static int ns_unshare(void)
{
	uid_t uid = geteuid();
	gid_t gid = getegid();
	char map[64];

	if (unshare(uid ? CLONE_NEWUSER | CLONE_NEWNS : CLONE_NEWNS))
		return -errno;
	if (uid) {
		snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
		if (write_map("uid_map", map) ||
		    write_map("setgroups", "deny\n"))
			return -EPERM;
		snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
		if (write_map("gid_map", map))
			return -EPERM;
	}
	/* host mounts still come in (a disk plugged later); ours stay */
	if (mount(NULL, "/", NULL, MS_REC | MS_SLAVE, NULL))
		return -errno;
	return 0;
}

/**
 * bind_at() - bind-mount a directory on a directory, maybe read-only
 * @src:	source, followed as the user gave it
 * @dst:	mount point, a directory that must not be a symlink
 * @ro:		read-only, submounts too
 *
 * Return: 0, or negative errno
 */
static int bind_at(const char *src, const char *dst, int ro)
{
	struct mount_attr_ro attr = { .attr_set = MOUNT_ATTR_RDONLY };
	char target[64];
	int fd, rc = 0;

	fd = open(dst, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	if (mount(src, target, NULL, MS_BIND | MS_REC, NULL)) {
		rc = -errno;
		goto out;
	}
	if (!ro)
		goto out;
	/* the new mount, not the directory under it */
	close(fd);
	fd = open(dst, O_PATH | O_NOFOLLOW | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	snprintf(target, sizeof(target), "/proc/self/fd/%d", fd);
	/* mount_setattr(2) since Linux 5.12: submounts read-only too */
	if (syscall(SYS_mount_setattr, fd, "", AT_EMPTY_PATH | AT_RECURSIVE,
		    &attr, sizeof(attr)) &&
	    mount(NULL, target, NULL, MS_REMOUNT | MS_BIND | MS_RDONLY, NULL))
		rc = -errno;
out:
	close(fd);
	return rc;
}

/**
 * share_mount_point() - STATE/exchange/shares/NAME
 * @in:		instance
 * @name:	share name
 * @buf:	output, PATH_LEN
 */
static void share_mount_point(const struct inst *in, const char *name,
			      char *buf)
{
	pathf(buf, "%s/%s/%s/%s", in->state, EXCHANGE_DIR, SHARES_DIR, name);
}

/**
 * shares_enter() - in the kernel's child, before exec: the namespace and
 *		    every hostfs share mounted in it
 * @in:		instance
 * @c:		configuration
 *
 * Without hostfs shares, a host that refuses the namespaces is no error:
 * the kernel runs without, and "share add" then says to restart.
 *
 * Return: 0, or negative errno (message on stderr, the console log)
 */
int shares_enter(const struct inst *in, const struct conf *c)
{
	char src[PATH_LEN], dst[PATH_LEN];
	int i, rc;

	rc = ns_unshare();
	if (rc) {
		if (!conf_hostfs_shares(c))
			return 0;
		dprintf(2, "umarmctl: %s: hostfs shares need a mount namespace, and unshare() says: %s; allow unprivileged user namespaces (sysctl kernel.unprivileged_userns_clone=1, or kernel.apparmor_restrict_unprivileged_userns=0), or make the shares virtiofs\n",
			in->name, strerror(-rc));
		return rc;
	}
	inst_path(in, src, 0, SHARES_DIR);
	pathf(dst, "%s/%s/%s", in->state, EXCHANGE_DIR, SHARES_DIR);
	rc = bind_at(src, dst, 1);
	for (i = 0; !rc && i < c->nshares; i++) {
		const struct conf_share *sh = &c->share[i];

		if (sh->fs != SHARE_HOSTFS)
			continue;
		share_mount_point(in, conf_str(c, sh->name), dst);
		rc = bind_at(conf_str(c, sh->host), dst, sh->ro);
		if (rc)
			dprintf(2, "umarmctl: %s: share %s: cannot mount %s: %s\n",
				in->name, conf_str(c, sh->name),
				conf_str(c, sh->host), strerror(-rc));
	}
	if (rc && !i)
		dprintf(2, "umarmctl: %s: cannot mount %s on %s: %s\n",
			in->name, src, dst, strerror(-rc));
	return rc;
}

/**
 * ns_join() - join the kernel's user and mount namespaces (in a child)
 * @uml:	kernel pid
 *
 * Return: 0, or negative errno
 */
static int ns_join(pid_t uml)
{
	static const char *const ns[] = { "user", "mnt" };
	char path[64], self[64], them[64];
	unsigned int i;

	for (i = 0; i < 2; i++) {
		ssize_t a, b;
		int fd;

		snprintf(path, sizeof(path), "/proc/self/ns/%s", ns[i]);
		a = readlink(path, self, sizeof(self) - 1);
		snprintf(path, sizeof(path), "/proc/%d/ns/%s", (int)uml, ns[i]);
		b = readlink(path, them, sizeof(them) - 1);
		if (a < 0 || b < 0)
			return -errno;
		if (a == b && !memcmp(self, them, a)) {
			/* root makes no user namespace; no mount namespace
			 * at all: the host refused it at start
			 */
			if (i)
				return -ENOTSUP;
			continue;
		}
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0 || setns(fd, 0))
			return -errno;
		close(fd);
	}
	return 0;
}

/**
 * shares_hot() - mount or unmount one hostfs share in the running kernel's
 *		  namespace
 * @s:		supervisor
 * @c:		configuration with the share
 * @i:		its index
 * @add:	mount (1) or unmount (0)
 * @why:	what failed, for the reply
 * @len:	size of @why
 *
 * Return: 0, or negative errno with @why set
 */
int shares_hot(struct sup *s, const struct conf *c, int i, int add,
	       char *why, size_t len)
{
	const struct conf_share *sh = &c->share[i];
	char dst[PATH_LEN], dir[PATH_LEN];
	int status, rc;
	pid_t pid;

	pathf(dir, "%s/%s/%s", s->in->state, SHARES_DIR,
	      conf_str(c, sh->name));
	if (add && mkdir(dir, 0755) && errno != EEXIST) {
		snprintf(why, len, "mkdir %.200s: %s", dir, strerror(errno));
		return -errno;
	}
	share_mount_point(s->in, conf_str(c, sh->name), dst);
	pid = fork();
	if (pid < 0)
		return -errno;
	if (!pid) {
		rc = ns_join(s->uml);
		if (!rc && add)
			rc = bind_at(conf_str(c, sh->host), dst, sh->ro);
		else if (!rc && umount2(dst, MNT_DETACH | UMOUNT_NOFOLLOW))
			rc = -errno;
		_exit(-rc);
	}
	if (waitpid(pid, &status, 0) != pid || !WIFEXITED(status))
		return -ECHILD;
	rc = -WEXITSTATUS(status);
	if (rc == -ENOTSUP)
		snprintf(why, len, "the kernel runs without a mount namespace of its own (the host refused it at start): restart the instance");
	else if (rc)
		snprintf(why, len, "%s %.200s: %s", add ? "mount" : "umount",
			 add ? conf_str(c, sh->host) : dst, strerror(-rc));
	if (!add && (!rc || rc == -EINVAL))
		rmdir(dir);
	return rc;
}
