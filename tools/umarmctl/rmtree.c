// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * rmtree.c - remove a tree that someone else may be changing
 *
 * The exchange directory is the guest's: while the host removes a job
 * directory, the guest can replace any directory in it by a symlink.  A
 * removal by path (lstat(), then opendir() of the same path) follows
 * such a symlink, and the host deletes whatever the UML user may delete.
 * Here every step is relative to a descriptor of a directory opened with
 * O_NOFOLLOW: a name swapped for a symlink is unlinked, never followed,
 * and a directory moved away while we are in it is emptied where it now
 * is, which is still inside the guest's exchange directory.  rm_rf() and
 * rm_contents() are the same for paths: the parent named by the caller is
 * trusted, nothing below it is followed (an instance's directory belongs
 * to the account that runs it, not to root, which removes it).
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "rmtree.h"
#include "util.h"

/* deeper than this, give up: each level holds a descriptor */
#define RMTREE_MAX_DEPTH	64

static int rmtree_depth(int dfd, const char *name, int depth);

/**
 * rm_entries() - remove everything in an open directory
 * @fd:		directory, consumed (closed)
 * @depth:	its depth below the first rmtree_at() call
 *
 * Return: 0 on success, negative errno of the first failure
 */
static int rm_entries(int fd, int depth)
{
	struct dirent *de;
	DIR *d = fdopendir(fd);
	int rc = 0;

	if (!d) {
		rc = -errno;
		close(fd);
		return rc;
	}
	while ((de = readdir(d))) {
		int r;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		r = rmtree_depth(dirfd(d), de->d_name, depth + 1);
		if (r && !rc)
			rc = r;
	}
	closedir(d);
	return rc;
}

/**
 * rmtree_depth() - rmtree_at() with a depth limit
 * @dfd:	directory holding @name
 * @name:	entry to remove, a single path component
 * @depth:	how deep we are
 *
 * Return: 0 on success or if @name did not exist, negative errno
 */
static int rmtree_depth(int dfd, const char *name, int depth)
{
	struct stat st;
	int fd, rc;

	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, ".."))
		return -EINVAL;
	if (fstatat(dfd, name, &st, AT_SYMLINK_NOFOLLOW))
		return errno == ENOENT ? 0 : -errno;
	if (!S_ISDIR(st.st_mode))
		return unlinkat(dfd, name, 0) && errno != ENOENT ? -errno : 0;
	if (depth >= RMTREE_MAX_DEPTH)
		return -ELOOP;

	fd = openat(dfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW |
		    O_CLOEXEC);
	if (fd < 0) {
		/* swapped for a symlink or a file since fstatat(): that
		 * is what goes, not what it points to
		 */
		if (errno == ELOOP || errno == ENOTDIR)
			return unlinkat(dfd, name, 0) && errno != ENOENT ?
			       -errno : 0;
		return errno == ENOENT ? 0 : -errno;
	}
	rc = rm_entries(fd, depth);
	if (unlinkat(dfd, name, AT_REMOVEDIR) && errno != ENOENT && !rc)
		rc = -errno;
	return rc;
}

/**
 * rmtree_at() - remove a file or directory tree, never following symlinks
 * @dfd:	directory holding @name, opened with O_NOFOLLOW by the caller
 * @name:	entry to remove, a single path component
 *
 * Return: 0 on success or if @name did not exist, negative errno of the
 *	   first failure (-ELOOP: nested deeper than RMTREE_MAX_DEPTH)
 */
int rmtree_at(int dfd, const char *name)
{
	return rmtree_depth(dfd, name, 0);
}

/**
 * rm_rf() - remove a file or a directory tree, not following symlinks
 * @path:	what to remove; its parent directory is opened as named
 *
 * Return: 0 on success or if it didn't exist, negative errno on failure
 */
int rm_rf(const char *path)
{
	const char *slash = strrchr(path, '/');
	const char *name = slash ? slash + 1 : path;
	char parent[PATH_LEN];
	int dfd, rc;

	if (!slash)
		rc = pathf(parent, ".");
	else if (slash == path)
		rc = pathf(parent, "/");
	else
		rc = pathf(parent, "%.*s", (int)(slash - path), path);
	if (rc)
		return -ENAMETOOLONG;
	dfd = open(parent, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0)
		return errno == ENOENT ? 0 : -errno;
	rc = rmtree_at(dfd, name);
	close(dfd);
	return rc;
}

/**
 * rm_contents() - remove everything inside a directory, keeping it
 * @path:	directory (not followed if it is a symlink)
 *
 * Return: 0 on success, negative errno of the first failure
 */
int rm_contents(const char *path)
{
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);

	if (fd < 0)
		return errno == ENOENT ? 0 : -errno;
	return rm_entries(fd, 0);
}
