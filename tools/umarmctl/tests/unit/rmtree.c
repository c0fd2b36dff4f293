// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * rmtree.c - unit tests of rmtree_at(), which exec uses in a directory
 *	      the guest controls: symlinks to host files and directories, a
 *	      parent directory swapped for a symlink, deep nesting
 *
 * Prints "PASS name" or "FAIL name: why" per case; exits 1 on any failure.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "rmtree.h"
#include "util.h"

#include "check.h"

/**
 * mkfile() - create a file, for the rmtree cases
 * @path:	where
 *
 * Return: 0 on success
 */
static int mkfile(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0600);

	return fd < 0 ? -1 : close(fd);
}

/**
 * mklink() - create a symlink, saying so if it fails
 * @target:	what it points to
 * @path:	where
 */
static void mklink(const char *target, const char *path)
{
	if (symlink(target, path))
		printf("symlink %s: %s\n", path, strerror(errno));
}

/**
 * test_rmtree() - removal inside a directory someone else controls
 * @base:	scratch directory
 *
 * The "jobs" case is exec's: the guest replaces the directory holding the
 * job by a symlink to a host directory that has an entry of the same
 * name; the removal goes through the descriptor exec opened before, so
 * the host directory keeps its files (a removal by path deletes them).
 */
static void test_rmtree(const char *base)
{
	char p[PATH_LEN], victim[PATH_LEN], jobs[PATH_LEN], moved[PATH_LEN];
	int dfd, i, rc;

	pathf(victim, "%s/victim", base);
	mkdir(victim, 0700);
	pathf(p, "%s/victim/file", base);
	mkfile(p);
	pathf(p, "%s/victim/job1", base);
	mkdir(p, 0700);
	pathf(p, "%s/victim/job1/precious", base);
	mkfile(p);

	/* a tree with symlinks to a host file and a host directory */
	pathf(jobs, "%s/jobs", base);
	mkdir(jobs, 0700);
	pathf(p, "%s/job1", jobs);
	mkdir(p, 0700);
	pathf(p, "%s/job1/sub", jobs);
	mkdir(p, 0700);
	pathf(p, "%s/job1/sub/out", jobs);
	mkfile(p);
	pathf(p, "%s/job1/tofile", jobs);
	mklink("../../victim/file", p);
	pathf(p, "%s/job1/todir", jobs);
	mklink(victim, p);
	dfd = open(jobs, O_RDONLY | O_DIRECTORY | O_NOFOLLOW);
	rc = rmtree_at(dfd, "job1");
	pathf(p, "%s/job1", jobs);
	CHECK("rmtree.removed", !rc && access(p, F_OK), "rc %d", rc);
	pathf(p, "%s/victim/file", base);
	CHECK("rmtree.symlink_file_target_kept", !access(p, F_OK), "gone");
	pathf(p, "%s/victim/job1/precious", base);
	CHECK("rmtree.symlink_dir_target_kept", !access(p, F_OK), "gone");
	CHECK("rmtree.missing_ok", !rmtree_at(dfd, "nothing"), "error");
	CHECK("rmtree.no_paths", rmtree_at(dfd, "../victim") == -EINVAL &&
	      rmtree_at(dfd, "..") == -EINVAL, "accepted");

	/* exec's race: "jobs" moved away and replaced by a symlink */
	pathf(p, "%s/job1", jobs);
	mkdir(p, 0700);
	pathf(moved, "%s/jobs.moved", base);
	rename(jobs, moved);
	mklink(victim, jobs);
	rc = rmtree_at(dfd, "job1");
	close(dfd);
	pathf(p, "%s/victim/job1/precious", base);
	CHECK("rmtree.swapped_parent_victim_kept", !access(p, F_OK),
	      "the victim's job1/precious was deleted");
	pathf(p, "%s/job1", moved);
	CHECK("rmtree.swapped_parent_removed", !rc && access(p, F_OK),
	      "rc %d", rc);

	/* nested deeper than the limit: refused, not a stack overflow */
	pathf(p, "%s/deep", base);
	mkdir(p, 0700);
	for (i = 0; i < 70; i++) {
		size_t l = strlen(p);

		if (l + 3 >= sizeof(p))
			break;
		strcpy(p + l, "/d");
		mkdir(p, 0700);
	}
	dfd = open(base, O_RDONLY | O_DIRECTORY);
	rc = rmtree_at(dfd, "deep");
	close(dfd);
	CHECK("rmtree.depth_limit", rc == -ELOOP, "rc %d", rc);
	/* rm_rf() of the base refuses it too: take it down from the bottom */
	while (strlen(p) > strlen(base) + strlen("/deep")) {
		rmdir(p);
		p[strlen(p) - strlen("/d")] = '\0';
	}
	rmdir(p);
}

/**
 * main() - run the rmtree tests
 *
 * Return: 0 if all passed, 1 otherwise
 */
int main(void)
{
	char tmpl[] = "/tmp/umarm-unit-rmtree.XXXXXX";
	char *base = mkdtemp(tmpl);

	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!base) {
		perror("mkdtemp");
		return 1;
	}
	test_rmtree(base);
	rm_rf(base);
	printf("%d cases, %d failed\n", cases, failures);
	return failures ? 1 : 0;
}
