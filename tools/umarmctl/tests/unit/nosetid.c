// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * nosetid.c - unit tests of nosetid_install(): under the filter the UML
 *	       kernel and virtiofsd run with, no host call may leave a
 *	       set-user-ID or set-group-ID bit on a file or make a device
 *	       node, and every other mode still works
 *
 * The filter is installed in this process (it cannot be taken off) after
 * the directory is made.  Prints "PASS name" or "FAIL name: why" per case;
 * exits 1 on any failure.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/sysmacros.h>

#include <linux/openat2.h>

#include "nosetid.h"

#include "check.h"

static char dir[] = "/tmp/umarm-nosetid-XXXXXX";

/**
 * mode_of() - a file's permission and set-ID bits
 * @name:	file in the test directory
 *
 * Return: the bits, or -1 if it does not exist
 */
static int mode_of(const char *name)
{
	char path[256];
	struct stat st;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (lstat(path, &st))
		return -1;
	return st.st_mode & 07777;
}

/**
 * test_create() - files created with a set-ID mode are refused, others not
 * @dfd:	the test directory
 */
static void test_create(int dfd)
{
	int fd;

	fd = openat(dfd, "plain", O_CREAT | O_WRONLY | O_EXCL, 0644);
	CHECK("nosetid.create_plain", fd >= 0 && mode_of("plain") == 0644,
	      "fd %d errno %d mode %o", fd, errno, mode_of("plain"));
	if (fd >= 0)
		close(fd);
	errno = 0;
	fd = openat(dfd, "suid", O_CREAT | O_WRONLY | O_EXCL, 04755);
	CHECK("nosetid.create_suid", fd < 0 && errno == EPERM &&
	      mode_of("suid") == -1, "fd %d errno %d mode %o", fd, errno,
	      mode_of("suid"));
	errno = 0;
	fd = openat(dfd, "sgid", O_CREAT | O_WRONLY | O_EXCL, 02755);
	CHECK("nosetid.create_sgid", fd < 0 && errno == EPERM,
	      "fd %d errno %d", fd, errno);
	/* without O_CREAT the mode argument means nothing */
	fd = openat(dfd, "plain", O_RDONLY, 04755);
	CHECK("nosetid.open_existing", fd >= 0, "errno %d", errno);
	if (fd >= 0)
		close(fd);
	errno = 0;
	CHECK("nosetid.mknod_suid", mknodat(dfd, "node", S_IFREG | 04644, 0) &&
	      errno == EPERM, "errno %d", errno);
}

/**
 * test_chmod() - chmod to a set-ID mode is refused, by name and by fd
 * @dfd:	the test directory
 */
static void test_chmod(int dfd)
{
	int fd = openat(dfd, "plain", O_RDONLY);

	CHECK("nosetid.chmod_plain", !fchmodat(dfd, "plain", 0755, 0) &&
	      mode_of("plain") == 0755, "errno %d", errno);
	errno = 0;
	CHECK("nosetid.chmod_suid", fchmodat(dfd, "plain", 04755, 0) &&
	      errno == EPERM && mode_of("plain") == 0755, "errno %d mode %o",
	      errno, mode_of("plain"));
	errno = 0;
	CHECK("nosetid.fchmod_sgid", fd >= 0 && fchmod(fd, 02755) &&
	      errno == EPERM && mode_of("plain") == 0755, "errno %d mode %o",
	      errno, mode_of("plain"));
	errno = 0;
	CHECK("nosetid.fchmodat2_suid",
	      syscall(452, dfd, "plain", 04755, 0) && mode_of("plain") == 0755,
	      "errno %d mode %o", errno, mode_of("plain"));
	CHECK("nosetid.mkdir_sgid", !mkdirat(dfd, "d", 02755),
	      "errno %d", errno);
	if (fd >= 0)
		close(fd);
}

/**
 * test_devices() - device nodes are refused, FIFOs are not
 * @dfd:	the test directory
 *
 * Run as root, the character device would be made without the filter.
 */
static void test_devices(int dfd)
{
	errno = 0;
	CHECK("nosetid.mknod_char", mknodat(dfd, "null", S_IFCHR | 0666,
					    makedev(1, 3)) &&
	      errno == EPERM && mode_of("null") == -1, "errno %d", errno);
	errno = 0;
	CHECK("nosetid.mknod_block", mknodat(dfd, "blk", S_IFBLK | 0600,
					     makedev(7, 0)) &&
	      errno == EPERM && mode_of("blk") == -1, "errno %d", errno);
	CHECK("nosetid.mknod_fifo", !mknodat(dfd, "fifo", S_IFIFO | 0644, 0),
	      "errno %d", errno);
}

/**
 * test_unseen() - the calls whose mode the filter cannot read fail
 * @dfd:	the test directory
 *
 * openat2() keeps the mode in a struct, io_uring's opens are no syscalls.
 */
static void test_unseen(int dfd)
{
	struct open_how how = {
		.flags = O_CREAT | O_WRONLY | O_EXCL,
		.mode = 04755,
	};
	long rc;

	errno = 0;
	rc = syscall(SYS_openat2, dfd, "suid2", &how, sizeof(how));
	CHECK("nosetid.openat2", rc < 0 && errno == ENOSYS &&
	      mode_of("suid2") == -1, "rc %ld errno %d mode %o", rc, errno,
	      mode_of("suid2"));
	errno = 0;
	rc = syscall(SYS_io_uring_setup, 4, NULL);
	CHECK("nosetid.io_uring", rc < 0 && errno == ENOSYS, "rc %ld errno %d",
	      rc, errno);
}

#ifdef __x86_64__
#define X32_BIT		0x40000000
#define X32_GETPID	39
#define X32_CHMOD	90
/* x32_usable() - does the host run x32 calls (before the filter)? */
static int x32_usable(void)
{
	return syscall(X32_BIT | X32_GETPID) == getpid();
}

/**
 * test_x32() - x32's chmod, the native arch with other numbers, fails
 * @usable:	the host runs x32 calls (else there is nothing to show)
 */
static void test_x32(int usable)
{
	char path[256];
	long rc;

	if (!usable) {
		printf("SKIP nosetid.x32: the host kernel runs no x32 calls\n");
		return;
	}
	snprintf(path, sizeof(path), "%s/plain", dir);
	errno = 0;
	rc = syscall(X32_BIT | X32_CHMOD, path, 04755);
	CHECK("nosetid.x32", rc < 0 && errno == ENOSYS &&
	      !(mode_of("plain") & 06000), "rc %ld errno %d mode %o", rc,
	      errno, mode_of("plain"));
}
#else
static int x32_usable(void)
{
	return 0;
}

static void test_x32(int usable)
{
	(void)usable;
}
#endif

/**
 * main() - make the directory, install the filter, run the cases, clean up
 *
 * Return: 0 if every case passed, 1 otherwise
 */
int main(void)
{
	char cmd[300];
	int dfd, rc, x32;

	if (!mkdtemp(dir))
		return 1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	umask(022);
	x32 = x32_usable();
	rc = nosetid_install();
	/* qemu-user, or a host kernel without seccomp: nothing to test (and
	 * umarmctl will not start a kernel there, nosetid_or_exit())
	 */
	if (rc == -ENOSYS || rc == -EINVAL)
		printf("SKIP nosetid: no seccomp filters here: %s\n",
		       strerror(-rc));
	else
		CHECK("nosetid.install", !rc, "%s", strerror(-rc));
	if (!rc && dfd >= 0) {
		test_create(dfd);
		test_chmod(dfd);
		test_devices(dfd);
		test_unseen(dfd);
		test_x32(x32);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("note: could not remove %s\n", dir);
	printf("%d cases, %d failed\n", cases, failures);
	return failures ? 1 : 0;
}
