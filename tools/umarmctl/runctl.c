// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * runctl.c - start and stop an instance: the supervisor as a daemon, in
 *	      the foreground (run), or systemd
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "child.h"
#include "inst.h"
#include "ctl.h"
#include "disk.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "state.h"
#include "supervise.h"
#include "sysacct.h"
#include "text.h"
#include "util.h"

/* Slack over ready-timeout/stop-timeout before the client gives up */
#define WAIT_SLACK_MS	15000
/* How long a start waits for another command's operations lock */
#define START_LOCK_WAIT_MS	60000
#define START_LOCK_POLL_MS	50

/**
 * daemonize_supervisor() - fork the supervisor, detached from us
 * @in:		instance
 * @c:		configuration
 * @ready_w:	write end of the readiness pipe (kept in the daemon)
 * @ready_r:	read end (closed in the daemon)
 * @lock:	the operations lock, which the daemon must not keep
 *
 * Double fork and setsid(), stdin from /dev/null, stdout and stderr to
 * STATEDIR/NAME/supervisor.log, the readiness pipe on descriptor 3 and
 * nothing else of the caller's (close_from()), the root directory as the
 * working directory (the caller's may be unmounted, or deleted).
 *
 * Return: 0 in the parent, negative errno on failure; never returns in
 *	   the daemon
 */
static int daemonize_supervisor(const struct inst *in, const struct conf *c,
				int ready_w, int ready_r, int lock)
{
	pid_t pid = fork();
	int st;

	if (pid < 0)
		return -errno;
	if (!pid) {
		char path[PATH_LEN];
		int fd;

		close(ready_r);
		close(lock);
		setsid();
		pid = fork();
		if (pid)
			_exit(pid < 0);
		fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
		if (fd >= 0)
			dup2(fd, 0);
		/* what the supervisor, UML and passt create (root.cow,
		 * logs) is the owner's alone; the guest's files in shares
		 * get the caller's umask back (child_umask_restore())
		 */
		child_umask_keep();
		umask(077);
		inst_path(in, path, 0, SUPERVISOR_LOG);
		fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC,
			  0600);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		if (ready_w != 3 && dup3(ready_w, 3, O_CLOEXEC) == 3)
			ready_w = 3;
		close_from(ready_w + 1);
		if (chdir("/"))
			_exit(EX_FAIL);
		_exit(supervise(in, c, ready_w));
	}
	if (waitpid(pid, &st, 0) < 0 || !WIFEXITED(st) || WEXITSTATUS(st))
		return -ECHILD;
	return 0;
}

/**
 * wait_ready() - read the supervisor's verdict from the readiness pipe
 * @in:		instance
 * @fd:		read end
 * @timeout_ms:	how long to wait
 *
 * Return: 0 if the guest booted, an exit code otherwise (message printed)
 */
static int wait_ready(const struct inst *in, int fd, int timeout_ms)
{
	char buf[600];
	size_t o = 0;
	uint64_t deadline = boot_ms() + timeout_ms;

	while (o < sizeof(buf) - 1) {
		struct pollfd p = { .fd = fd, .events = POLLIN };
		uint64_t now = boot_ms();
		ssize_t n;

		if (now >= deadline ||
		    poll(&p, 1, (int)(deadline - now)) == 0) {
			err("%s: no answer from the supervisor within %ds; see 'umarmctl logs %s' and %s/%s",
			    in->name, timeout_ms / 1000, in->name, in->state,
			    SUPERVISOR_LOG);
			return EX_TIMEOUT;
		}
		n = read(fd, buf + o, sizeof(buf) - 1 - o);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		o += n;
		buf[o] = 0;
		if (strchr(buf, '\n'))
			break;
	}
	buf[o] = 0;
	buf[strcspn(buf, "\n")] = 0;
	/* the reason can quote the guest's console: no terminal escapes */
	text_clean(buf, 0);
	if (!strcmp(buf, "READY"))
		return 0;
	if (!strncmp(buf, "FAIL ", 5)) {
		char *msg;
		long code = strtol(buf + 5, &msg, 10);

		while (*msg == ' ')
			msg++;
		/* The supervisor's messages name the instance already */
		if (strncmp(msg, in->name, strlen(in->name)))
			err("%s: %s; see %s/%s", in->name, msg, in->state,
			    SUPERVISOR_LOG);
		else
			err("%s", msg);
		return code > 0 && code < 256 ? (int)code : EX_FAIL;
	}
	err("%s: the supervisor exited without reporting; see %s/%s",
	    in->name, in->state, SUPERVISOR_LOG);
	return EX_FAIL;
}

/**
 * wait_stopped() - wait until the supervisor released LOCK_RUN
 * @in:		instance
 * @timeout_ms:	how long
 *
 * Return: 0 once stopped, -ETIMEDOUT
 */
static int wait_stopped(const struct inst *in, int timeout_ms)
{
	int fd = lock_take(in, LOCK_RUN, 0, timeout_ms);

	if (fd < 0)
		return fd == -ENOENT ? 0 : -ETIMEDOUT;
	lock_release(fd);
	return 0;
}

/**
 * say_running() - tell the user an instance runs already, and how far
 * @in:		instance, whose supervisor runs
 *
 * A second start of a guest that is still booting must say so at once,
 * not wait behind the first start's operations lock.  A supervisor that
 * has published no state yet is in its host checks: starting too.
 */
static void say_running(const struct inst *in)
{
	char path[PATH_LEN];
	struct state st;

	inst_path(in, path, 1, STATE_FILE);
	if (state_read(path, &st))
		info("%s: already starting (its supervisor checks the host); see 'umarmctl status %s'",
		     in->name, in->name);
	else if (!strcmp(st.status, "starting") ||
		 !strcmp(st.status, "booting"))
		info("%s: already starting (the guest is booting); see 'umarmctl status %s'",
		     in->name, in->name);
	else
		info("%s: already running", in->name);
}

/**
 * start_lock() - take the operations lock for a start, unless it runs
 * @in:		instance
 *
 * Another command may hold the lock for long: a start waits for its
 * guest to boot.  While we wait, an instance that turns out to run (its
 * supervisor holds the run lock) ends the wait.
 *
 * Return: the lock, -EALREADY if it runs (said so), another negative
 *	   errno (message printed)
 */
static int start_lock(const struct inst *in)
{
	uint64_t deadline = boot_ms() + START_LOCK_WAIT_MS;
	int fd;

	for (;;) {
		fd = lock_take(in, LOCK_OPS, 1, 0);
		if (fd != -EWOULDBLOCK)
			break;
		if (inst_running(in) > 0) {
			say_running(in);
			return -EALREADY;
		}
		if (boot_ms() >= deadline)
			break;
		sleep_ms(START_LOCK_POLL_MS);
	}
	if (fd < 0)
		lock_ops_error(in, fd);
	return fd;
}

/**
 * start_daemon() - fork the supervisor and wait for its verdict
 * @in:		instance, checked, its operations lock held
 * @c:		configuration
 * @lock:	the operations lock, which the daemon must not keep
 *
 * Return: exit code; a failed start leaves nothing running behind it
 */
static int start_daemon(const struct inst *in, const struct conf *c, int lock)
{
	int rc, p[2];

	if (pipe2(p, O_CLOEXEC))
		return EX_FAIL;
	rc = daemonize_supervisor(in, c, p[1], p[0], lock);
	close(p[1]);
	if (rc) {
		err("%s: cannot start the supervisor: %s", in->name,
		    strerror(-rc));
		rc = EX_FAIL;
	} else {
		rc = wait_ready(in, p[0], c->ready_timeout * 1000 +
				WAIT_SLACK_MS);
	}
	close(p[0]);
	if (rc && wait_stopped(in, c->stop_timeout * 1000 + WAIT_SLACK_MS))
		warn("%s: still shutting down the failed guest", in->name);
	return rc;
}

/**
 * start_systemd() - systemctl start umarm@NAME.service
 * @x:		global options
 * @in:		instance
 *
 * Return: exit code
 */
static int start_systemd(struct ctx *x, const struct inst *in)
{
	const char *u = x->sc.user ? " --user" : "";

	if (!systemctl(x, "start", in->name))
		return 0;
	err("%s: 'systemctl%s start umarm@%s.service' failed; see 'umarmctl logs %s' and 'journalctl%s -u umarm@%s'",
	    in->name, u, in->name, in->name, u, in->name);
	return EX_FAIL;
}

/**
 * inst_start() - start an instance and wait until its guest has booted
 * @x:		global options
 * @in:		instance
 * @c:		its configuration
 *
 * Return: exit code; 0 also if it runs already (said so)
 */
int inst_start(struct ctx *x, const struct inst *in, const struct conf *c)
{
	char k[PATH_LEN];
	int rc, lock, run;

	if (flavour_check(in->name, conf_flavour(c)) ||
	    kernel_check(in->name, c, k))
		return EX_HOST;
	cpus_warn(in->name, in->conf, c);
	if (use_systemd(x))
		return start_systemd(x, in);
	lock = start_lock(in);
	if (lock < 0)
		return lock == -EALREADY ? 0 : EX_STATE;
	if (!inst_exists(in)) {
		err("%s: removed meanwhile", in->name);
		lock_release(lock);
		return EX_NOINST;
	}
	/* The run lock, while leftovers are killed: a concurrent 'run'
	 * (systemd's, which takes no operations lock) cannot start a
	 * kernel that reap_orphans() would take for one.
	 */
	run = lock_take(in, LOCK_RUN, 1, 0);
	if (run == -EWOULDBLOCK) {
		say_running(in);
		lock_release(lock);
		return 0;
	}
	if (run < 0) {
		err("%s: cannot lock %s/%s: %s", in->name, in->state,
		    LOCK_RUN, strerror(-run));
		lock_release(lock);
		return EX_STATE;
	}
	inst_tighten(in);
	sysacct_warn_root(in);
	reap_orphans(in);
	rc = disk_check(in, c, 1) ? EX_STATE : 0;
	/* the supervisor takes it again, as under systemd */
	lock_release(run);
	if (!rc)
		rc = start_daemon(in, c, lock);
	lock_release(lock);
	return rc;
}

/**
 * inst_run() - run an instance's supervisor in this process, until the
 *		kernel exits (what umarm@.service runs, through "run")
 * @in:		instance
 * @c:		its configuration
 *
 * Return: exit code
 */
int inst_run(const struct inst *in, const struct conf *c)
{
	int rc = inst_mkdir_state(in);

	if (rc) {
		err("%s: cannot create %s: %s", in->name, in->state,
		    strerror(-rc));
		return EX_FAIL;
	}
	return supervise(in, c, -1);
}

/**
 * warn_exit() - say how the last run failed, once with the instance's name
 * @in:		instance
 * @exit:	the last-run file's exit text
 *
 * The supervisor's failure messages start with "NAME: " already; how a
 * kernel exited ("exit code 1") does not.
 */
static void warn_exit(const struct inst *in, const char *exit)
{
	size_t n = strlen(in->name);

	if (!strncmp(exit, in->name, n) && !strncmp(exit + n, ": ", 2))
		warn("%s", exit);
	else
		warn("%s: %s", in->name, exit);
}

/**
 * inst_stop() - stop (or kill) an instance and wait for it
 * @x:		global options
 * @in:		instance
 * @hard:	kill instead of a clean shutdown
 * @timeout:	seconds to wait, 0 for the configuration's stop-timeout
 *
 * A broken configuration must not keep a running guest alive: its
 * defaults stand in.
 *
 * Return: exit code; 0 also if it was not running (said so)
 */
int inst_stop(struct ctx *x, const struct inst *in, int hard,
	      unsigned int timeout)
{
	char reply[600], path[PATH_LEN];
	struct state last;
	struct conf c;
	int rc;

	log_mute = 1;
	if (conf_load(in, &c))
		conf_defaults(&c);
	log_mute = 0;
	if (use_systemd(x) && !hard)
		return systemctl(x, "stop", in->name) ? EX_FAIL : 0;
	if (!inst_running(in)) {
		info("%s: not running", in->name);
		return 0;
	}
	if (timeout)
		c.stop_timeout = timeout;
	rc = ctl_request(in, hard ? "kill" : "stop", reply, sizeof(reply));
	if (rc && inst_running(in)) {
		err("%s: cannot reach the supervisor on %s/%s: %s; %s%s%skill its pid",
		    in->name, in->run, CONTROL_SOCK, ctl_why(rc, reply),
		    hard ? "" : "'umarmctl kill ", hard ? "" : in->name,
		    hard ? "" : "' or ");
		return EX_FAIL;
	}
	/* stopped all the same: what was asked */
	if (rc == -ESRCH)
		warn("%s: %s; see 'umarmctl status %s'", in->name,
		     ctl_why(rc, reply), in->name);
	if (wait_stopped(in, c.stop_timeout * 1000 + WAIT_SLACK_MS)) {
		err("%s: still running after %us; try 'umarmctl kill %s'",
		    in->name, c.stop_timeout + WAIT_SLACK_MS / 1000, in->name);
		return EX_TIMEOUT;
	}
	inst_path(in, path, 0, LAST_FILE);
	if (!state_read(path, &last) && !strcmp(last.status, "failed") &&
	    !hard)
		warn_exit(in, last.exit);
	return 0;
}

/**
 * inst_reboot() - reboot a running guest and wait until it has booted
 * @x:		global options
 * @in:		instance
 *
 * The supervisor syncs the guest's file systems and resets its kernel
 * (reboot_start() in loop.c); UML re-executes itself, so the supervisor,
 * its sockets and the guest's network stay.
 *
 * Return: exit code
 */
int inst_reboot(struct ctx *x, const struct inst *in)
{
	char reply[600], path[PATH_LEN];
	struct state st;
	struct conf c;
	uint64_t deadline;
	int rc;

	rc = conf_load(in, &c);
	if (rc)
		return rc;
	if (inst_running(in) <= 0) {
		err("%s: not running; 'umarmctl start %s'", in->name, in->name);
		return EX_STATE;
	}
	(void)x;
	rc = ctl_request(in, "reboot", reply, sizeof(reply));
	if (rc) {
		err("%s: reboot failed: %s", in->name, ctl_why(rc, reply));
		return EX_STATE;
	}
	deadline = boot_ms() + c.ready_timeout * 1000ULL + WAIT_SLACK_MS;
	inst_path(in, path, 1, STATE_FILE);
	while (boot_ms() < deadline) {
		sleep_ms(100);
		if (inst_running(in) <= 0) {
			err("%s: stopped while rebooting; see 'umarmctl status %s'",
			    in->name, in->name);
			return EX_BOOT;
		}
		if (!state_read(path, &st) && !strcmp(st.status, "running"))
			return 0;
	}
	err("%s: not booted again within %us; see 'umarmctl logs %s'",
	    in->name, c.ready_timeout + WAIT_SLACK_MS / 1000, in->name);
	return EX_TIMEOUT;
}
