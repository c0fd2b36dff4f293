// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * state.c - unit tests of what stands between the guest (or another local
 *	     user) and the host's files: state files, guest text, paths,
 *	     copies, locks
 *
 * Prints "PASS name" or "FAIL name: why" per case, "SKIP name: why" for a
 * case this host cannot run, and "N passed, N failed"; exits 1 on any
 * failure.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/mount.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "lock.h"
#include "paths.h"
#include "state.h"
#include "text.h"
#include "rmtree.h"
#include "util.h"

#include "check.h"

/* A scratch directory for the whole run */
static char tmp[64];

/**
 * json_of() - what json_put() prints for a string
 * @s:		input
 * @out:	output buffer
 * @len:	size of @out
 */
static void json_of(const char *s, char *out, size_t len)
{
	FILE *f = fmemopen(out, len, "w");

	json_put(f, s);
	fclose(f);
}

/**
 * test_guest_text() - guest text cannot add state lines or escapes
 */
static void test_guest_text(void)
{
	struct state w = { .supervisor = 42, .boot = 1234, .ready = 5678 }, r;
	char path[PATH_LEN], *buf, js[256], t[64];
	ssize_t n;
	int lines = 0, i;

	snprintf(w.status, sizeof(w.status), "stopped");
	snprintf(w.exit, sizeof(w.exit),
		 "panic: x\nstatus=running\nsupervisor=1\x1b]0;pwned\x07");
	pathf(path, "%s/state", tmp);
	CHECK("state.write", !state_write(path, &w), "failed");
	n = read_file(path, &buf, 8192);
	for (i = 0; i < n; i++)
		lines += buf[i] == '\n';
	CHECK("state.lines", n > 0 && lines == 10, "%d lines:\n%s", lines,
	      n > 0 ? buf : "");
	free(buf);
	CHECK("state.read", !state_read(path, &r), "failed");
	CHECK("state.boot_kept", r.boot == w.boot && r.ready == w.ready,
	      "boot %llu ready %llu", (unsigned long long)r.boot,
	      (unsigned long long)r.ready);
	CHECK("state.status_kept", !strcmp(r.status, "stopped") &&
	      r.supervisor == 42, "status '%s' supervisor %d", r.status,
	      (int)r.supervisor);
	CHECK("state.exit_clean", !strchr(r.exit, '\n') &&
	      !strchr(r.exit, '\x1b') && !strchr(r.exit, '\x07'),
	      "exit '%s'", r.exit);

	/* an old file with raw escapes: cleaned when read */
	write_file_atomic(path, "status=failed\nexit=\x1b[2J\xc2\x9b" "31m\n",
			  strlen("status=failed\nexit=\x1b[2J\xc2\x9b" "31m\n"),
			  0600);
	state_read(path, &r);
	CHECK("state.read_cleans", !strcmp(r.exit, "?[2J??31m"), "exit '%s'",
	      r.exit);

	snprintf(t, sizeof(t), "caf\xc3\xa9 \xe2\x82\xac ok");
	text_clean(t, 0);
	CHECK("text.utf8_kept", !strcmp(t, "caf\xc3\xa9 \xe2\x82\xac ok"),
	      "'%s'", t);
	snprintf(t, sizeof(t), "a\xff\xc0\xafz\xed\xa0\x80\x7f\tb\nc");
	text_clean(t, TEXT_KEEP_NL);
	CHECK("text.bad_bytes", !strcmp(t, "a???z????\tb\nc"), "'%s'", t);

	json_of("q\"b\\\x1b\xc2\x9b\xff\xc3\xa9", js, sizeof(js));
	CHECK("json.escapes",
	      !strcmp(js, "\"q\\\"b\\\\\\u001b\\u009b\\ufffd\xc3\xa9\""),
	      "got %s", js);
	json_of("\xf4\x90\x80\x80\xe0\x80\xaf", js, sizeof(js));
	CHECK("json.invalid_utf8", !strcmp(js,
	      "\"\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\\ufffd\""),
	      "got %s", js);
}

/**
 * proc_write() - write a string to a /proc file in one write
 * @path:	file
 * @text:	contents
 *
 * Return: 0 on success, -1 on failure
 */
static int proc_write(const char *path, const char *text)
{
	int fd = open(path, O_WRONLY | O_CLOEXEC), rc;

	if (fd < 0)
		return -1;
	rc = write(fd, text, strlen(text)) == (ssize_t)strlen(text) ? 0 : -1;
	close(fd);
	return rc;
}

/**
 * small_fs() - mount a 1000 KiB tmpfs, in a private mount namespace
 * @dir:	mount point, created
 *
 * Called in a child process.  As root the mount namespace alone does; as
 * another user a user namespace too, where the kernel allows them.
 *
 * Return: 0 on success, -1 if this host cannot
 */
static int small_fs(const char *dir)
{
	unsigned int uid = geteuid(), gid = getegid();
	char map[64];

	if (mkdir(dir, 0700) ||
	    unshare(CLONE_NEWNS | (uid ? CLONE_NEWUSER : 0)))
		return -1;
	/* ourselves inside too: an unmapped owner can create no file */
	snprintf(map, sizeof(map), "%u %u 1\n", uid, uid);
	if (uid && (proc_write("/proc/self/setgroups", "deny") ||
		    proc_write("/proc/self/uid_map", map)))
		return -1;
	snprintf(map, sizeof(map), "%u %u 1\n", gid, gid);
	if (uid && proc_write("/proc/self/gid_map", map))
		return -1;
	if (mount(NULL, "/", NULL, MS_REC | MS_PRIVATE, NULL))
		return -1;
	/* 250 pages: not a multiple of the copy's 64 KiB chunks */
	return mount("tmpfs", dir, "tmpfs", 0, "size=1000k") ? -1 : 0;
}

/**
 * copy_to_full_fs() - child: copy 2 MiB of data into the small tmpfs
 * @src:	source file
 * @dir:	mount point
 *
 * Return: exit code: 0 copy reported ENOSPC and left nothing behind,
 *	   1 it did not, 77 no tmpfs could be mounted
 */
static int copy_to_full_fs(const char *src, const char *dir)
{
	char dst[PATH_LEN];
	int rc;

	if (small_fs(dir))
		return 77;
	pathf(dst, "%s/copy.img", dir);
	rc = copy_file_sparse(src, dst, 0600, 0);
	printf("       copy_file_sparse() to a full tmpfs: %d (%s), copy %s\n",
	       rc, strerror(-rc), access(dst, F_OK) ? "removed" : "left");
	return rc == -ENOSPC && access(dst, F_OK) ? 0 : 1;
}

/**
 * test_copy_full() - a copy that runs out of space fails, and is removed
 */
static void test_copy_full(void)
{
	char src[PATH_LEN], dir[PATH_LEN], buf[4096];
	int fd, i, st;
	pid_t pid;

	pathf(src, "%s/src.img", tmp);
	pathf(dir, "%s/small", tmp);
	fd = open(src, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	memset(buf, 0x5a, sizeof(buf));
	for (i = 0; i < 512; i++)
		write_all(fd, buf, sizeof(buf));
	close(fd);
	pid = fork();
	if (!pid)
		_exit(copy_to_full_fs(src, dir));
	waitpid(pid, &st, 0);
	if (WIFEXITED(st) && WEXITSTATUS(st) == 77) {
		printf("SKIP copy.enospc: cannot mount a tmpfs here\n");
		return;
	}
	CHECK("copy.enospc", WIFEXITED(st) && !WEXITSTATUS(st),
	      "a copy to a full file system succeeded, or left a file");
}

/**
 * test_busid() - USB bus ids: BUS-PORT(.PORT)*, nothing else
 */
static void test_busid(void)
{
	static const char *good[] = { "1-2", "3-1.4.2", "10-11" };
	static const char *bad[] = { "", "1", "-2", "1-", "1-2.", "1.2-3",
		"1-2-3", "1-.2", "1-2/x", "1-2$(reboot)",
		"1-1/{system(\"id\")}", "1-2 ", "1-2\n" };
	unsigned int i, ok = 1;

	for (i = 0; i < ARRAY_SIZE(good); i++)
		if (busid_check(good[i])) {
			printf("       rejected '%s'\n", good[i]);
			ok = 0;
		}
	for (i = 0; i < ARRAY_SIZE(bad); i++)
		if (!busid_check(bad[i])) {
			printf("       accepted '%s'\n", bad[i]);
			ok = 0;
		}
	CHECK("usb.busid", ok, "see above");
}

/**
 * test_atomic_race() - concurrent writers of one file never mix
 *
 * Three writers replace the same file 300 times each with 2000 bytes of
 * their own letter, while we read it: every read must be one writer's
 * complete file, and every write must succeed.
 */
static void test_atomic_race(void)
{
	char path[PATH_LEN], *buf;
	int i, torn = 0, st, failed = 0;
	pid_t pid[3];

	pathf(path, "%s/racy", tmp);
	for (i = 0; i < 3; i++) {
		pid[i] = fork();
		if (!pid[i]) {
			char data[2000];
			int j, bad = 0;

			memset(data, 'a' + i, sizeof(data));
			for (j = 0; j < 300; j++)
				bad |= !!write_file_atomic(path, data,
							   sizeof(data), 0600);
			_exit(bad);
		}
	}
	for (i = 0; i < 300; i++) {
		ssize_t n = read_file(path, &buf, 4096);

		if (n < 0)
			continue;
		if (n != 2000 || (size_t)n != strspn(buf, (char[]){ buf[0], 0 }))
			torn++;
		free(buf);
	}
	for (i = 0; i < 3; i++) {
		waitpid(pid[i], &st, 0);
		failed += !WIFEXITED(st) || WEXITSTATUS(st);
	}
	CHECK("atomic.concurrent", !torn && !failed,
	      "%d torn reads, %d writers saw an error", torn, failed);
}

/**
 * test_inst() - an instance in the scratch directory, state dir made
 * @sc:		scope to fill
 * @in:		instance to fill
 * @name:	its name
 * @mode:	mode of its state directory
 */
static void test_inst(struct scope *sc, struct inst *in, const char *name,
		      mode_t mode)
{
	memset(sc, 0, sizeof(*sc));
	pathf(sc->statedir, "%s/lib", tmp);
	pathf(sc->rundir, "%s/run", tmp);
	pathf(sc->confdir, "%s/etc", tmp);
	inst_init(in, sc, name);
	mkdir_p(in->state, 0755);
	chmod(in->state, mode);
}

/**
 * waiter() - child: wait for the ops lock that rm is about to remove
 * @in:		instance
 *
 * Return: exit code: 0 if it got no lock, or a lock its path still names;
 *	   1 if it got the lock of a removed file (two holders)
 */
static int waiter(const struct inst *in)
{
	int fd = lock_take(in, LOCK_OPS, 1, 800);
	struct stat st;

	if (fd < 0)
		return 0;
	if (fstat(fd, &st) || !st.st_nlink) {
		printf("       got the lock of a removed file\n");
		return 1;
	}
	return 0;
}

/**
 * test_lock_removed() - a lock file removed while held is not "the" lock
 *
 * As rm does: we hold the ops lock, remove the lock file, and a new
 * command takes a fresh lock on the same path.  A command that was
 * waiting on the old file must not believe it holds the lock as well.
 */
static void test_lock_removed(void)
{
	char path[PATH_LEN], c;
	struct scope sc;
	struct inst in;
	int fd, p[2], st;
	pid_t w, n;

	test_inst(&sc, &in, "lk", 0700);
	inst_path(&in, path, 0, LOCK_OPS);
	fd = lock_take(&in, LOCK_OPS, 1, 0);
	/* children close our lock: flock() locks belong to the open file */
	w = fork();
	if (!w) {
		close(fd);
		_exit(waiter(&in));
	}
	sleep_ms(200);
	unlink(path);
	if (pipe(p))
		return;
	n = fork();
	if (!n) {
		int nfd;

		close(fd);
		nfd = lock_take(&in, LOCK_OPS, 1, 0);

		if (write(p[1], nfd >= 0 ? "y" : "n", 1) < 0 || nfd < 0)
			_exit(1);
		pause();
		_exit(0);
	}
	if (read(p[0], &c, 1) != 1)
		c = 'n';
	close(fd);
	waitpid(w, &st, 0);
	kill(n, SIGKILL);
	waitpid(n, NULL, 0);
	close(p[0]);
	close(p[1]);
	CHECK("lock.removed_while_held", c == 'y' && WIFEXITED(st) &&
	      !WEXITSTATUS(st), "new holder %c, waiter status %d", c, st);
}

/**
 * test_running_other_user() - another user is told "unknown", not stopped
 */
static void test_running_other_user(void)
{
	struct scope sc;
	struct inst in;
	int fd, st;
	pid_t pid;

	if (geteuid()) {
		printf("SKIP lock.running_other_user: needs root to be someone else\n");
		return;
	}
	test_inst(&sc, &in, "ru", 0700);
	fd = lock_take(&in, LOCK_RUN, 1, 0);
	pid = fork();
	if (!pid) {
		int r;

		if (setgid(65534) || setuid(65534))
			_exit(3);
		r = inst_running(&in);
		printf("       inst_running() as uid 65534: %d\n", r);
		_exit(r < 0 ? 0 : r ? 2 : 1);
	}
	waitpid(pid, &st, 0);
	close(fd);
	CHECK("lock.running_other_user", WIFEXITED(st) && !WEXITSTATUS(st),
	      "a running instance looked %s", WEXITSTATUS(st) == 1 ?
	      "stopped" : "running, or the test could not switch users");
}

/**
 * main() - run the tests in a scratch directory
 *
 * Return: 0 if all passed, 1 otherwise
 */
int main(void)
{
	setvbuf(stdout, NULL, _IOLBF, 0);
	snprintf(tmp, sizeof(tmp), "/tmp/umarm-unit-state.XXXXXX");
	if (!mkdtemp(tmp) || chmod(tmp, 0755)) {
		perror("mkdtemp");
		return 1;
	}
	test_guest_text();
	test_copy_full();
	test_busid();
	test_atomic_race();
	test_lock_removed();
	test_running_other_user();
	rm_rf(tmp);
	printf("%d passed, %d failed\n", cases - failures, failures);
	return failures ? 1 : 0;
}
