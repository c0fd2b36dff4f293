// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * lock.c - per-instance locks
 *
 * Two flock(2) locks live in the state directory of each instance:
 *
 * - LOCK_OPS serialises commands that change an instance (create, start,
 *   stop, rm, rename, clone, disk, port-forward...).  It is held for the
 *   duration of the command only.
 * - LOCK_RUN is held exclusively by the supervisor for as long as the
 *   instance runs.  It is the single source of truth for "is it running":
 *   the kernel drops it when the supervisor dies, even by SIGKILL, so a
 *   stale pid or state file can never make a dead instance look alive (or
 *   the other way round).
 *
 * flock() locks belong to the open file description, are not inherited
 * across our execs (O_CLOEXEC) and work on every local filesystem.
 *
 * Lock files are removed (rm, a failed clone) or moved (rename) while
 * held.  That is safe because a lock counts only if, once it is taken,
 * the path still names the locked file (lock_valid()): a command that
 * opened the old file and waited retries on whatever the path names now
 * (nothing, after rm: "no such instance"), so two processes never both
 * hold "the" lock of a name.  The holder removes or moves the file first
 * and closes it last.
 *
 * Lock files are 0600 in a 0700 directory: a shared lock taken by another
 * user would keep the supervisor from starting.  So another user cannot
 * tell whether an instance runs: inst_running() says so (-EACCES) instead
 * of "stopped".
 */

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/file.h>
#include <sys/stat.h>

#include "lock.h"
#include "log.h"
#include "util.h"

/* How often to retry a contended lock while waiting */
#define LOCK_POLL_MS	20

/**
 * lock_valid() - whether a lock just taken is still the lock of its path
 * @fd:		locked file
 * @path:	its path
 *
 * Return: 1 if @path names the file @fd has open, 0 if it was removed or
 *	   replaced while we waited
 */
static int lock_valid(int fd, const char *path)
{
	struct stat a, b;

	if (fstat(fd, &a) || !a.st_nlink || stat(path, &b))
		return 0;
	return a.st_dev == b.st_dev && a.st_ino == b.st_ino;
}

/**
 * lock_take() - open and lock a lock file of an instance
 * @in:		instance
 * @file:	LOCK_OPS or LOCK_RUN
 * @excl:	exclusive (else shared)
 * @timeout_ms:	how long to wait, 0 to try once, -1 forever
 *
 * Return: fd holding the lock, -EWOULDBLOCK if held elsewhere, -ENOENT if
 *	   the state directory doesn't exist, other negative errno
 */
int lock_take(const struct inst *in, const char *file, int excl,
	      int timeout_ms)
{
	uint64_t deadline = boot_ms() + (timeout_ms > 0 ? timeout_ms : 0);
	char path[PATH_LEN];
	int fd = -1;

	if (inst_path(in, path, 0, file))
		return -ENAMETOOLONG;
	for (;;) {
		if (fd < 0)
			fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC |
				  O_NOFOLLOW, 0600);
		if (fd < 0)
			return -errno;
		if (!flock(fd, (excl ? LOCK_EX : LOCK_SH) | LOCK_NB)) {
			if (lock_valid(fd, path))
				return fd;
			/* removed or moved by its holder: the path's now */
			close(fd);
			fd = -1;
			continue;
		}
		if (errno != EWOULDBLOCK && errno != EINTR) {
			int rc = -errno;

			close(fd);
			return rc;
		}
		if (!timeout_ms || (timeout_ms > 0 && boot_ms() >= deadline))
			break;
		sleep_ms(LOCK_POLL_MS);
	}
	close(fd);
	return -EWOULDBLOCK;
}

/**
 * lock_ops_error() - say why the operations lock could not be taken
 * @in:		instance
 * @fd:		what lock_take() returned
 *
 * A configuration without its state directory is named as such: list
 * shows that instance, so it is not "nonexistent".
 */
void lock_ops_error(const struct inst *in, int fd)
{
	if (fd == -ENOENT && inst_exists(in))
		err("%s: its state directory %s is missing (its disks with it); recreate it with 'mkdir -m 0700 %s', or remove the instance with 'umarmctl rm %s'",
		    in->name, in->state, in->state, in->name);
	else if (fd == -ENOENT)
		err("%s: instance does not exist (no %s); see 'umarmctl list'",
		    in->name, in->state);
	else if (fd == -EWOULDBLOCK)
		err("%s: another umarmctl command holds %s/%s for more than 60s; retry later",
		    in->name, in->state, LOCK_OPS);
	else if (fd < 0)
		err("%s: cannot lock %s/%s: %s", in->name, in->state, LOCK_OPS,
		    strerror(-fd));
}

/**
 * lock_ops() - take the operations lock, waiting for other commands
 * @in:		instance
 *
 * Waits up to 60 seconds (a concurrent start may be booting a guest), then
 * reports which instance is busy.
 *
 * Return: fd holding the lock, negative errno on failure (message printed)
 */
int lock_ops(const struct inst *in)
{
	int fd = lock_take(in, LOCK_OPS, 1, 60000);

	lock_ops_error(in, fd);
	return fd;
}

/**
 * inst_running() - whether the supervisor of an instance is alive
 * @in:		instance
 *
 * Probes LOCK_RUN read-only, without creating it: a missing lock file
 * means never started here.  A file we may not open (another user's
 * instance) means we cannot tell, which is not "stopped".
 *
 * Return: 1 if running, 0 if not, negative errno if unknown (-EACCES)
 */
int inst_running(const struct inst *in)
{
	char path[PATH_LEN];
	int fd, rc = 0;

	if (inst_path(in, path, 0, LOCK_RUN))
		return -ENAMETOOLONG;
	fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	if (flock(fd, LOCK_SH | LOCK_NB))
		rc = errno == EWOULDBLOCK ? 1 : -errno;
	close(fd);
	return rc;
}

/**
 * lock_release() - drop a lock taken by lock_take()
 * @fd:		lock file descriptor, ignored if negative
 */
void lock_release(int fd)
{
	if (fd >= 0)
		close(fd);
}
