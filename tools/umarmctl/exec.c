// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * exec.c - run a command in a running guest: exec and shell
 *
 * The guest runs no agent.  What every umarm image has is (1) the hostfs
 * exchange directory STATEDIR/NAME/exchange mounted on /host (the image's
 * init honours umarm.hostfs=DIR) and (2) a root shell on the console.  So
 * a command runs as a job:
 *
 *   1. the client writes /host/jobs/ID/{cmd,in,run}: the quoted command,
 *      its standard input, and a wrapper;
 *   2. it asks the supervisor to type a line on the console (after ^U to
 *      clear any half-typed line) that copies them into a root-only
 *      directory of the guest, checks the copies against their SHA-256
 *      and runs the wrapper in the background (job.c: the exchange
 *      directory is writable by a guest user with the host user's uid);
 *   3. the wrapper touches "started", runs the command with stdin, stdout
 *      and stderr redirected to files of the job directory, and records
 *      $? in "rc" with a write-then-rename, so "rc" appears complete;
 *   4. the client copies out/err to its stdout/stderr as they grow and
 *      exits with the number in "rc".
 *
 * The job directory is the guest's too: the host opens everything in it
 * relative to directory descriptors with O_NOFOLLOW, and removes it with
 * rmtree_at(), never by path.
 *
 * Output and exit status are therefore exact (byte for byte, stdout and
 * stderr kept apart, no terminal in between), several execs can run at
 * once, and nothing is left in the guest.  If no shell picks up the line
 * within the start timeout, the error says so.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>

#include "inst.h"
#include "ctl.h"
#include "job.h"
#include "lock.h"
#include "log.h"
#include "rmtree.h"
#include "state.h"
#include "util.h"

#define START_TIMEOUT_MS 60000
#define POLL_MIN_MS	5
#define POLL_MAX_MS	100

static volatile sig_atomic_t interrupted;

/**
 * on_signal() - remember that the user interrupted us
 * @sig:	signal number
 */
static void on_signal(int sig)
{
	interrupted = sig;
}

/**
 * copy_stdin() - save our standard input into the job's "in" file
 * @jfd:	job directory
 * @pass:	copy stdin (otherwise create the file empty)
 * @hex:	SHA-256 of what was written
 *
 * Return: 0 on success, negative errno on failure
 */
static int copy_stdin(int jfd, int pass, char hex[SHA256_HEX_LEN])
{
	char buf[65536];
	int fd = openat(jfd, "in", O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0600);
	struct sha256 h;
	int rc = 0;
	ssize_t n;

	if (fd < 0)
		return -errno;
	sha256_init(&h);
	while (pass && (n = read(0, buf, sizeof(buf))) != 0) {
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0 || write_all(fd, buf, n)) {
			rc = -EIO;
			break;
		}
		sha256_update(&h, buf, n);
	}
	if (close(fd) && !rc)
		rc = -errno;
	sha256_hex(&h, hex);
	return rc;
}

/**
 * open_guest_file() - open a file the guest wrote in the job directory
 * @jfd:	job directory
 * @name:	file name
 *
 * The guest owns the job directory: it could replace a file with a
 * symlink to anything on the host (O_NOFOLLOW), or with a FIFO, whose
 * open() would wait for a writer forever (O_NONBLOCK, and only regular
 * files are read).
 *
 * Return: descriptor, or -1 if missing or not a regular file
 */
static int open_guest_file(int jfd, const char *name)
{
	int fd = openat(jfd, name, O_RDONLY | O_NOFOLLOW | O_NONBLOCK |
			O_CLOEXEC);
	struct stat st;

	if (fd >= 0 && (fstat(fd, &st) || !S_ISREG(st.st_mode))) {
		close(fd);
		return -1;
	}
	return fd;
}

/**
 * pump() - copy what was appended to a file since last time
 * @jfd:	job directory
 * @name:	file written by the guest
 * @off:	offset copied so far, updated
 * @out:	our descriptor
 */
static void pump(int jfd, const char *name, off_t *off, int out)
{
	char buf[65536];
	int fd = open_guest_file(jfd, name);
	ssize_t n;

	if (fd < 0)
		return;
	while ((n = pread(fd, buf, sizeof(buf), *off)) > 0) {
		write_all(out, buf, n);
		*off += n;
	}
	close(fd);
}

/**
 * put_file() - create a new file in the job directory
 * @jfd:	job directory
 * @name:	file name
 * @buf:	contents
 * @len:	length
 * @hex:	SHA-256 of the contents
 *
 * Return: 0 on success, negative errno on failure
 */
static int put_file(int jfd, const char *name, const char *buf, size_t len,
		    char hex[SHA256_HEX_LEN])
{
	int fd = openat(jfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
			O_CLOEXEC, 0600);
	struct sha256 h;
	int rc;

	if (fd < 0)
		return -errno;
	rc = write_all(fd, buf, len);
	if (close(fd) && !rc)
		rc = -errno;
	sha256_init(&h);
	sha256_update(&h, buf, len);
	sha256_hex(&h, hex);
	return rc;
}

/**
 * read_rc() - read the exit status file, if the guest wrote it
 * @jfd:	job directory
 * @rc:	status
 *
 * Return: 1 if present, 0 if not yet
 */
static int read_rc(int jfd, int *rc)
{
	char buf[16];
	int fd = open_guest_file(jfd, "rc");
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = 0;
	*rc = atoi(buf);
	if (*rc < 0 || *rc > 255)
		*rc = EX_EXEC;
	return 1;
}

/**
 * write_job() - write the job files
 * @jfd:	job directory
 * @gdir:	the same directory as the guest sees it
 * @cmd:	command and arguments
 * @ncmd:	number of them
 * @dg:		their digests (dg->in is set by copy_stdin())
 *
 * Return: 0 on success, negative errno on failure
 */
static int write_job(int jfd, const char *gdir, char **cmd, int ncmd,
		     struct job_digests *dg)
{
	size_t len;
	char *buf;
	int rc;

	buf = job_cmd_text(cmd, ncmd, &len);
	if (!buf)
		return -errno;
	rc = put_file(jfd, "cmd", buf, len, dg->cmd);
	free(buf);
	if (rc)
		return rc;
	buf = job_run_text(gdir);
	rc = put_file(jfd, "run", buf, strlen(buf), dg->run);
	free(buf);
	return rc;
}

/**
 * job_refused() - whether the guest's root shell refused the job
 * @jfd:	job directory
 * @why:	"copy" or "digest" (what the guest wrote), if refused
 * @len:	size of @why
 *
 * Return: 1 if refused
 */
static int job_refused(int jfd, char *why, size_t len)
{
	int fd = open_guest_file(jfd, "refused");
	ssize_t n;

	if (fd < 0)
		return 0;
	n = read(fd, why, len - 1);
	close(fd);
	why[n > 0 ? n : 0] = 0;
	why[strcspn(why, "\n")] = 0;
	/* guest text: only the words job_line() writes */
	if (strcmp(why, "copy") && strcmp(why, "digest"))
		snprintf(why, len, "?");
	return 1;
}

/**
 * job_gone() - whether the guest removed the job directory
 * @jfd:	job directory
 *
 * Return: 1 if it no longer has a name on the host
 */
static int job_gone(int jfd)
{
	struct stat st;

	return fstat(jfd, &st) || !st.st_nlink;
}

/**
 * job_dir() - create a job directory without following guest symlinks
 * @in:		instance
 * @id:		job id
 * @dir:	host path of the job directory, PATH_LEN bytes
 * @jobs:	descriptor of its parent "jobs", for rmtree_at() at the end
 *
 * Return: descriptor of the new directory, negative errno on failure
 */
static int job_dir(const struct inst *in, const char *id, char *dir,
		   int *jobs)
{
	char path[PATH_LEN];
	int dfd, jfd;

	if (pathf(path, "%s/%s/%s", in->state, EXCHANGE_DIR, JOBS_DIR) ||
	    pathf(dir, "%s/%s", path, id))
		return -ENAMETOOLONG;
	/* "exchange" is the hostfs root, which the guest cannot replace;
	 * "jobs" inside it could have become a symlink.
	 */
	dfd = open(path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0)
		return -errno;
	if (mkdirat(dfd, id, 0700)) {
		int rc = -errno;

		close(dfd);
		return rc;
	}
	jfd = openat(dfd, id, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (jfd < 0) {
		jfd = -errno;
		rmtree_at(dfd, id);
		close(dfd);
		return jfd;
	}
	*jobs = dfd;
	return jfd;
}

/* One exec's job, as the steps of exec_job() hand it on */
struct guest_job {
	const struct inst *in;
	char id[64];		/* its directory's name under jobs/ */
	char dir[PATH_LEN];	/* that directory on the host */
	char gdir[PATH_LEN];	/* and in the guest */
	int jfd;		/* descriptor of the directory */
	int jobs;		/* of its parent, for rmtree_at() */
	off_t ooff, eoff;	/* how much of out and err we copied */
	uint64_t t0;		/* boot_ms() when we began */
	uint64_t started;	/* boot_ms() when the guest began, or 0 */
};

/**
 * exec_ready() - whether the instance runs a booted guest to exec in
 * @in:		instance
 *
 * Return: 0 if it does, EX_EXEC if not (message printed)
 */
static int exec_ready(const struct inst *in)
{
	char sp[PATH_LEN];
	struct state st;

	inst_path(in, sp, 1, STATE_FILE);
	if (!inst_running(in) || state_read(sp, &st)) {
		err("%s: not running; 'umarmctl start %s' first", in->name,
		    in->name);
		return EX_EXEC;
	}
	if (strcmp(st.status, "running")) {
		err("%s: is %s, not running: exec needs a booted guest",
		    in->name, st.status);
		return EX_EXEC;
	}
	return 0;
}

/**
 * job_create() - name a new job and make its directory
 * @j:		job, @j->in set; the rest is filled
 *
 * The id is unique among the execs of this host: our pid, the time, and
 * a counter for the execs of one process.
 *
 * Return: 0 on success, -1 on failure, with nothing made (message printed)
 */
static int job_create(struct guest_job *j)
{
	static unsigned int seq;

	snprintf(j->id, sizeof(j->id), "%d-%llx-%u", (int)getpid(),
		 (unsigned long long)now_ms(), seq++);
	if (pathf(j->gdir, "%s/%s/%s", GUEST_EXCHANGE, JOBS_DIR, j->id))
		return -1;
	j->jfd = job_dir(j->in, j->id, j->dir, &j->jobs);
	if (j->jfd < 0) {
		err("%s: cannot create the job directory %s: %s", j->in->name,
		    j->dir, strerror(-j->jfd));
		return -1;
	}
	return 0;
}

/**
 * job_write() - write the command, its input and its wrapper in the job
 * @j:		job
 * @cmd:	command and arguments
 * @ncmd:	number of them
 * @pass_stdin:	send our stdin to the command
 * @dg:		the files' digests, for the line that starts the job
 *
 * Return: 0 on success, -1 on failure (message printed)
 */
static int job_write(const struct guest_job *j, char **cmd, int ncmd,
		     int pass_stdin, struct job_digests *dg)
{
	int r = copy_stdin(j->jfd, pass_stdin, dg->in);

	if (!r)
		r = write_job(j->jfd, j->gdir, cmd, ncmd, dg);
	if (r) {
		err("%s: cannot write the job in %s: %s", j->in->name, j->dir,
		    strerror(-r));
		return -1;
	}
	return 0;
}

/**
 * job_send() - have the supervisor type the line that starts the job
 * @j:		job
 * @dg:		digests of the job's files, which the guest checks
 *
 * From here on, an interruption leaves the command running in the guest:
 * SIGINT, SIGTERM and SIGHUP are caught so that exec says so.
 *
 * Return: 0 on success, -1 on failure (message printed)
 */
static int job_send(const struct guest_job *j, const struct job_digests *dg)
{
	struct sigaction sa = { .sa_handler = on_signal };
	char line[JOB_LINE_MAX + 8], reply[600];
	int r;

	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGHUP, &sa, NULL);

	memcpy(line, "type ", 5);
	if (job_line(j->gdir, dg, line + 5, sizeof(line) - 5)) {
		err("%s: job path %s too long", j->in->name, j->gdir);
		return -1;
	}
	r = ctl_request(j->in, line, reply, sizeof(reply));
	if (r) {
		err("%s: cannot reach the supervisor: %s", j->in->name,
		    ctl_why(r, reply));
		return -1;
	}
	return 0;
}

/**
 * job_not_started() - whether the guest refused the job or never began it
 * @j:		job, @j->started set when the guest's wrapper began
 *
 * Return: 1 if the job will not run (message printed), 0 if it may
 */
static int job_not_started(struct guest_job *j)
{
	char why[16];

	if (j->started)
		return 0;
	if (job_refused(j->jfd, why, sizeof(why))) {
		if (!strcmp(why, "copy"))
			err("%s: the guest's root shell could not copy the job into a new directory under /tmp (mktemp -d, cp): the command did not run",
			    j->in->name);
		else
			err("%s: the job files were changed in the guest before its root shell copied them, which a guest process with uid %u (the host user's) can do in %s: the command did not run",
			    j->in->name, (unsigned int)getuid(),
			    GUEST_EXCHANGE);
		return 1;
	}
	if (!faccessat(j->jfd, "started", F_OK, AT_SYMLINK_NOFOLLOW)) {
		j->started = boot_ms();
	} else if (boot_ms() - j->t0 > START_TIMEOUT_MS) {
		err("%s: no shell on the guest console picked up the command within %ds; exec needs a root shell on the console and %s mounted (see umarmctl(1), EXEC)",
		    j->in->name, START_TIMEOUT_MS / 1000, GUEST_EXCHANGE);
		return 1;
	}
	return 0;
}

/**
 * job_poll() - copy the job's output so far, and see whether it ended
 * @j:		job
 * @timeout_s:	give up after this many seconds, 0 for never
 *
 * Return: the command's exit status, 128 + signal if we were interrupted,
 *	   EX_TIMEOUT or EX_EXEC (message printed), or -1 while it runs
 */
static int job_poll(struct guest_job *j, int timeout_s)
{
	const char *name = j->in->name;
	int done, status;

	/* check rc first: out and err are complete once it exists */
	done = read_rc(j->jfd, &status);
	pump(j->jfd, "out", &j->ooff, 1);
	pump(j->jfd, "err", &j->eoff, 2);
	if (done)
		return status;
	if (interrupted) {
		err("%s: interrupted; the command may still run in the guest",
		    name);
		return 128 + interrupted;
	}
	if (job_not_started(j))
		return EX_EXEC;
	if (timeout_s && boot_ms() - j->t0 > timeout_s * 1000ULL) {
		err("%s: command still running after %ds (--timeout); it keeps running in the guest",
		    name, timeout_s);
		return EX_TIMEOUT;
	}
	if (!inst_running(j->in)) {
		err("%s: stopped while the command ran", name);
		return EX_EXEC;
	}
	if (job_gone(j->jfd)) {
		err("%s: the job directory %s was removed in the guest; the command's status is lost",
		    name, j->dir);
		return EX_EXEC;
	}
	return -1;
}

/**
 * job_wait() - poll the job until it ends, more slowly as it runs longer
 * @j:		job
 * @timeout_s:	give up after this many seconds, 0 for never
 *
 * Return: as job_poll(), but never -1
 */
static int job_wait(struct guest_job *j, int timeout_s)
{
	unsigned int wait = POLL_MIN_MS;
	int rc;

	while ((rc = job_poll(j, timeout_s)) < 0) {
		sleep_ms(wait);
		if (wait < POLL_MAX_MS && j->started &&
		    boot_ms() - j->started > 200)
			wait *= 2;
	}
	return rc;
}

/**
 * exec_job() - exec_in_guest() with the file identity set
 * @in:		instance
 * @cmd:	command and arguments
 * @ncmd:	number of them
 * @pass_stdin:	send our stdin to the command
 * @timeout_s:	give up after this many seconds, 0 for never
 *
 * Return: the command's exit status (0..255), or EX_EXEC if umarmctl
 *	   failed (message printed)
 */
static int exec_job(const struct inst *in, char **cmd, int ncmd,
		    int pass_stdin, int timeout_s)
{
	struct guest_job j = { .in = in, .t0 = boot_ms() };
	struct job_digests dg;
	int rc = EX_EXEC;

	if (exec_ready(in) || job_create(&j))
		return EX_EXEC;
	if (!job_write(&j, cmd, ncmd, pass_stdin, &dg) && !job_send(&j, &dg))
		rc = job_wait(&j, timeout_s);
	close(j.jfd);
	rmtree_at(j.jobs, j.id);
	close(j.jobs);
	return rc;
}

/**
 * exec_in_guest() - run a command in a running instance
 * @in:		instance
 * @cmd:	command and arguments
 * @ncmd:	number of them
 * @pass_stdin:	send our stdin to the command
 * @timeout_s:	give up after this many seconds, 0 for never
 *
 * Return: the command's exit status (0..255), or EX_EXEC if umarmctl
 *	   failed (message printed)
 */
int exec_in_guest(const struct inst *in, char **cmd, int ncmd,
		  int pass_stdin, int timeout_s)
{
	struct fs_id saved;
	int rc;

	/* the job files are the instance account's (see inst_fs_owner) */
	inst_fs_owner(in, &saved);
	rc = exec_job(in, cmd, ncmd, pass_stdin, timeout_s);
	inst_fs_restore(&saved);
	return rc;
}
