// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * nosetid.c - unit tests of nosetid_install(): under the filter the UML
 *	       kernel and virtiofsd run with, no host call may leave a
 *	       set-user-ID or set-group-ID bit on a file, and every other
 *	       mode still works
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
 * main() - make the directory, install the filter, run the cases, clean up
 *
 * Return: 0 if every case passed, 1 otherwise
 */
int main(void)
{
	char cmd[300];
	int dfd, rc;

	if (!mkdtemp(dir))
		return 1;
	dfd = open(dir, O_RDONLY | O_DIRECTORY);
	umask(022);
	rc = nosetid_install();
	CHECK("nosetid.install", !rc, "%s", strerror(-rc));
	if (!rc && dfd >= 0) {
		test_create(dfd);
		test_chmod(dfd);
	}
	snprintf(cmd, sizeof(cmd), "rm -rf %s", dir);
	if (system(cmd))
		printf("note: could not remove %s\n", dir);
	printf("%d cases, %d failed\n", cases, failures);
	return failures ? 1 : 0;
}
