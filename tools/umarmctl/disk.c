// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * disk.c - ubd images, COW overlays, locks held by UML
 *
 * UML's ubd driver takes a POSIX record lock (fcntl F_SETLK) on every image
 * it opens: F_WRLCK on writable ones, F_RDLCK on read-only ones such as
 * the backing file of a COW overlay (arch/um/os-Linux/file.c,
 * os_lock_file()).  A second kernel on the same writable image fails its
 * root mount and panics.  So before booting, every disk is probed with
 * F_GETLK, which also names the pid holding it, and the pid is mapped back
 * to an instance through the runtime state files.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "disk.h"
#include "log.h"
#include "state.h"
#include "util.h"

/**
 * disk_abs() - absolute path of a disk file named in a configuration
 * @in:		instance, relative names are in its state directory
 * @file:	name from the configuration
 * @out:	output, PATH_LEN bytes
 */
void disk_abs(const struct inst *in, const char *file, char *out)
{
	if (*file == '/')
		pathf(out, "%s", file);
	else
		pathf(out, "%s/%s", in->state, file);
}

/**
 * disk_locked_by() - which process holds a lock UML would conflict with
 * @path:	image file
 *
 * Return: pid of the holder, 0 if free (or missing), -1 on other errors
 */
pid_t disk_locked_by(const char *path)
{
	struct flock fl = { .l_type = F_WRLCK, .l_whence = SEEK_SET };
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -1;
	if (fcntl(fd, F_GETLK, &fl)) {
		close(fd);
		return -1;
	}
	close(fd);
	return fl.l_type == F_UNLCK ? 0 : fl.l_pid;
}

/**
 * owner_of_pid() - find the instance whose kernel has a given pid
 * @sc:		scope to search
 * @pid:	process id
 * @name:	instance name, if found
 * @len:	size of @name
 *
 * Return: 1 if found, 0 otherwise
 */
int owner_of_pid(const struct scope *sc, pid_t pid, char *name, size_t len)
{
	struct dirent *de;
	DIR *d = opendir(sc->rundir);
	int found = 0;

	if (!d)
		return 0;
	while (!found && (de = readdir(d))) {
		char path[PATH_LEN];
		struct state st;

		if (de->d_name[0] == '.')
			continue;
		if (pathf(path, "%s/%s/state", sc->rundir, de->d_name))
			continue;
		if (state_read(path, &st))
			continue;
		if (st.uml == pid || st.supervisor == pid) {
			snprintf(name, len, "%s", de->d_name);
			found = 1;
		}
	}
	closedir(d);
	return found;
}

/**
 * disk_owner_msg() - explain that a disk is in use by some process
 * @in:		instance that wanted the disk
 * @pid:	holder of the lock
 * @msg:	output message
 * @len:	size of @msg
 */
void disk_owner_msg(const struct inst *in, pid_t pid, char *msg, size_t len)
{
	char owner[NAME_MAX_LEN + 1];

	if (owner_of_pid(in->sc, pid, owner, sizeof(owner)))
		snprintf(msg, len,
			 "%s: a disk image is in use by instance '%s' (pid %d): stop it first ('umarmctl stop %s'), or give this instance its own overlay ('umarmctl clone')",
			 in->name, owner, (int)pid, owner);
	else
		snprintf(msg, len,
			 "%s: a disk image is in use by another UML kernel (pid %d): stop that process first",
			 in->name, (int)pid);
}

/**
 * disk_check() - make sure the disks exist and no other kernel holds them
 * @in:		instance
 * @c:		configuration
 * @report:	print errors
 *
 * Return: 0 if the instance can boot, -ENOENT or -EBUSY otherwise
 */
int disk_check(const struct inst *in, const struct conf *c, int report)
{
	int i;

	for (i = 0; i < CONF_MAX_DISKS; i++) {
		const struct conf_disk *d = &c->disk[i];
		char f[PATH_LEN], b[PATH_LEN], msg[512];
		pid_t pid;

		if (!d->set)
			continue;
		disk_abs(in, d->file, f);
		if (*d->base) {
			disk_abs(in, d->base, b);
			if (access(b, R_OK)) {
				if (report)
					err("%s: disk%d: base image %s: %s; recreate the instance or fix 'disk%d =' in %s",
					    in->name, i, b, strerror(errno), i,
					    in->conf);
				return -ENOENT;
			}
		} else if (access(f, R_OK)) {
			if (report)
				err("%s: disk%d: image %s: %s; fix 'disk%d =' in %s",
				    in->name, i, f, strerror(errno), i,
				    in->conf);
			return -ENOENT;
		}
		pid = disk_locked_by(f);
		if (pid > 0) {
			disk_owner_msg(in, pid, msg, sizeof(msg));
			if (report)
				err("%s (disk%d: %s)", msg, i, f);
			return -EBUSY;
		}
	}
	return 0;
}

/**
 * disk_create() - create a sparse raw image
 * @path:	new file, must not exist
 * @size:	size in bytes
 *
 * Return: 0 on success, negative errno on failure
 */
int disk_create(const char *path, uint64_t size)
{
	/* the guest's data: the owner's alone */
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	int rc = 0;

	if (fd < 0)
		return -errno;
	if (ftruncate(fd, size) || fsync(fd))
		rc = -errno;
	close(fd);
	if (rc)
		unlink(path);
	return rc;
}
