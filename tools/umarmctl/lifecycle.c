// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * lifecycle.c - start, run, stop, kill, restart, pause, resume, mconsole,
 *		 enable, disable, autostart
 *
 * With systemd running and umarm@.service installed, start, stop, restart
 * and kill go through "systemctl [--user]", so that the unit's state, the
 * journal and dependencies stay right; "umarmctl run NAME" is then the
 * unit's main process.  Without systemd (a phone, a container, or
 * --no-systemd), "start" forks the same supervisor as a daemon and waits
 * for it to report the guest booted, or why not.
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "cmd.h"
#include "disk.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "mconsole.h"
#include "state.h"
#include "supervise.h"
#include "sysacct.h"
#include "text.h"
#include "util.h"

#define SUPERVISOR_LOG	"supervisor.log"
#define AUTOSTART_FILE	"autostart"
/* Slack over ready-timeout/stop-timeout before the client gives up */
#define WAIT_SLACK_MS	15000

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
		 * logs) is the owner's alone
		 */
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

static int wait_stopped(const struct inst *in, int timeout_ms);

/**
 * start_one() - start one instance
 * @x:		global options
 * @name:	instance name
 * @attach:	attach to the console once booted
 *
 * Return: exit code
 */
static int start_one(struct ctx *x, const char *name, int attach)
{
	char k[PATH_LEN];
	struct inst in;
	struct conf c;
	int rc, lock, run, p[2];

	rc = inst_open(x, name, &in, &c);
	if (rc)
		return rc;
	if (flavour_check(in.name, c.flavour) || kernel_check(in.name, &c, k))
		return EX_HOST;

	if (use_systemd(x)) {
		rc = systemctl(x, "start", in.name);
		if (rc) {
			err("%s: 'systemctl%s start umarm@%s.service' failed; see 'umarmctl logs %s' and 'journalctl%s -u umarm@%s'",
			    in.name, x->sc.user ? " --user" : "", in.name,
			    in.name, x->sc.user ? " --user" : "", in.name);
			return EX_FAIL;
		}
		return attach ? console_attach(&in, 0) : 0;
	}

	lock = lock_ops(&in);
	if (lock < 0)
		return EX_STATE;
	if (!inst_exists(&in)) {
		err("%s: removed meanwhile", in.name);
		lock_release(lock);
		return EX_NOINST;
	}
	/* The run lock, while leftovers are killed: a concurrent 'run'
	 * (systemd's, which takes no operations lock) cannot start a
	 * kernel that reap_orphans() would take for one.
	 */
	run = lock_take(&in, LOCK_RUN, 1, 0);
	if (run == -EWOULDBLOCK) {
		info("%s: already running", in.name);
		lock_release(lock);
		return attach ? console_attach(&in, 0) : 0;
	}
	if (run < 0) {
		err("%s: cannot lock %s/%s: %s", in.name, in.state, LOCK_RUN,
		    strerror(-run));
		lock_release(lock);
		return EX_STATE;
	}
	inst_tighten(&in);
	sysacct_warn_root(&in);
	reap_orphans(&in);
	rc = disk_check(&in, &c, 1);
	/* the supervisor takes it again, as under systemd */
	lock_release(run);
	if (rc) {
		lock_release(lock);
		return EX_STATE;
	}
	if (pipe2(p, O_CLOEXEC)) {
		lock_release(lock);
		return EX_FAIL;
	}
	rc = daemonize_supervisor(&in, &c, p[1], p[0], lock);
	close(p[1]);
	if (rc) {
		err("%s: cannot start the supervisor: %s", in.name,
		    strerror(-rc));
		rc = EX_FAIL;
	} else {
		rc = wait_ready(&in, p[0],
				c.ready_timeout * 1000 + WAIT_SLACK_MS);
	}
	close(p[0]);
	/* A failed start leaves nothing running behind it */
	if (rc && wait_stopped(&in, c.stop_timeout * 1000 + WAIT_SLACK_MS))
		warn("%s: still shutting down the failed guest", in.name);
	lock_release(lock);
	if (!rc && attach)
		return console_attach(&in, 0);
	return rc;
}

/**
 * cmd_start() - umarmctl start NAME... [--attach]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code (the first failure's)
 */
int cmd_start(struct ctx *x, int argc, char **argv)
{
	int i, attach = 0, rc = 0, n = 0;

	for (i = 0; i < argc; i++)
		if (!strcmp(argv[i], "--attach") || !strcmp(argv[i], "-a"))
			attach = 1;
	for (i = 0; i < argc; i++) {
		int r;

		if (argv[i][0] == '-')
			continue;
		n++;
		r = start_one(x, argv[i], attach);
		if (r && !rc)
			rc = r;
	}
	if (!n) {
		err("usage: umarmctl start NAME... [--attach]");
		return EX_USAGE;
	}
	return rc;
}

/**
 * cmd_run() - umarmctl run NAME: the supervisor in the foreground
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_run(struct ctx *x, int argc, char **argv)
{
	struct inst in;
	struct conf c;
	int rc;

	if (argc != 1) {
		err("usage: umarmctl run NAME");
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, &c);
	if (rc)
		return rc;
	rc = inst_mkdir_state(&in);
	if (rc) {
		err("%s: cannot create %s: %s", in.name, in.state,
		    strerror(-rc));
		return EX_FAIL;
	}
	return supervise(&in, &c, -1);
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
 * stop_one() - stop (or kill) one instance and wait for it
 * @x:		global options
 * @name:	instance name
 * @hard:	kill instead of a clean shutdown
 * @timeout:	seconds to wait, 0 for the configuration's stop-timeout
 *
 * Return: exit code
 */
static int stop_one(struct ctx *x, const char *name, int hard,
		    unsigned int timeout)
{
	char reply[600], path[PATH_LEN];
	struct state last;
	struct inst in;
	struct conf c;
	int rc;

	rc = inst_open(x, name, &in, &c);
	if (rc == EX_CONFIG) {
		/* a broken file must not keep a running guest alive */
		conf_defaults(&c);
	} else if (rc) {
		return rc;
	}
	if (use_systemd(x) && !hard)
		return systemctl(x, "stop", in.name) ? EX_FAIL : 0;
	if (!inst_running(&in)) {
		info("%s: not running", in.name);
		return 0;
	}
	if (timeout)
		c.stop_timeout = timeout;
	rc = ctl_request(&in, hard ? "kill" : "stop", reply, sizeof(reply));
	if (rc && inst_running(&in)) {
		err("%s: the supervisor does not answer on %s/%s (%s); 'umarmctl kill %s' or kill its pid",
		    in.name, in.run, CONTROL_SOCK,
		    rc == -EIO ? reply : strerror(-rc), in.name);
		return EX_FAIL;
	}
	if (wait_stopped(&in, c.stop_timeout * 1000 + WAIT_SLACK_MS)) {
		err("%s: still running after %us; try 'umarmctl kill %s'",
		    in.name, c.stop_timeout + WAIT_SLACK_MS / 1000, in.name);
		return EX_TIMEOUT;
	}
	inst_path(&in, path, 0, LAST_FILE);
	if (!state_read(path, &last) && !strcmp(last.status, "failed") &&
	    !hard) {
		warn("%s: %s", in.name, last.exit);
	}
	return 0;
}

/**
 * stop_verb() - shared body of stop and kill
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 * @hard:	kill
 *
 * Return: exit code
 */
static int stop_verb(struct ctx *x, int argc, char **argv, int hard)
{
	unsigned long timeout = 0;
	int i, rc = 0, n = 0;

	for (i = 0; i < argc; i++) {
		int r;

		if (!strcmp(argv[i], "--timeout") || !strcmp(argv[i], "-t")) {
			if (i + 1 >= argc || parse_uint(argv[++i], 86400,
							&timeout)) {
				err("--timeout needs a number of seconds");
				return EX_USAGE;
			}
			continue;
		}
		if (argv[i][0] == '-')
			continue;
		n++;
		r = stop_one(x, argv[i], hard, timeout);
		if (r && !rc)
			rc = r;
	}
	if (!n) {
		err("usage: umarmctl %s NAME...", hard ? "kill" : "stop");
		return EX_USAGE;
	}
	return rc;
}

/**
 * cmd_stop() - umarmctl stop NAME... [--timeout SEC]
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_stop(struct ctx *x, int argc, char **argv)
{
	return stop_verb(x, argc, argv, 0);
}

/**
 * cmd_kill() - umarmctl kill NAME...
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_kill(struct ctx *x, int argc, char **argv)
{
	return stop_verb(x, argc, argv, 1);
}

/**
 * cmd_restart() - umarmctl restart NAME...
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_restart(struct ctx *x, int argc, char **argv)
{
	int i, rc = 0;

	if (!argc) {
		err("usage: umarmctl restart NAME...");
		return EX_USAGE;
	}
	for (i = 0; i < argc; i++) {
		int r;

		if (use_systemd(x)) {
			r = systemctl(x, "restart", argv[i]) ? EX_FAIL : 0;
		} else {
			r = stop_one(x, argv[i], 0, 0);
			if (!r)
				r = start_one(x, argv[i], 0);
		}
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/**
 * pause_verb() - shared body of pause and resume
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 * @req:	"pause" or "resume"
 *
 * Return: exit code
 */
static int pause_verb(struct ctx *x, int argc, char **argv, const char *req)
{
	int i, rc = 0;

	if (!argc) {
		err("usage: umarmctl %s NAME...", req);
		return EX_USAGE;
	}
	for (i = 0; i < argc; i++) {
		char reply[600];
		struct inst in;
		int r = inst_open(x, argv[i], &in, NULL);

		if (!r && !inst_running(&in)) {
			err("%s: not running", in.name);
			r = EX_STATE;
		}
		if (!r && ctl_request(&in, req, reply, sizeof(reply))) {
			err("%s: %s failed: %s", in.name, req, reply);
			r = EX_FAIL;
		}
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/**
 * cmd_pause() - umarmctl pause NAME...: freeze the guest (mconsole stop)
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_pause(struct ctx *x, int argc, char **argv)
{
	return pause_verb(x, argc, argv, "pause");
}

/**
 * cmd_resume() - umarmctl resume NAME...: thaw the guest (mconsole go)
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_resume(struct ctx *x, int argc, char **argv)
{
	return pause_verb(x, argc, argv, "resume");
}

/**
 * cmd_mconsole() - umarmctl mconsole NAME COMMAND...: a raw mconsole verb
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: 0 if UML accepted the command, EX_FAIL if it reported an error
 */
int cmd_mconsole(struct ctx *x, int argc, char **argv)
{
	char cmd[MC_MAX_DATA], out[65536], path[PATH_LEN];
	struct state st;
	struct inst in;
	size_t o = 0;
	int i, rc, e;

	if (argc < 2) {
		err("usage: umarmctl mconsole NAME COMMAND... (e.g. version, proc meminfo, sysrq s, config ubd1=FILE)");
		return EX_USAGE;
	}
	rc = inst_open(x, argv[0], &in, NULL);
	if (rc)
		return rc;
	inst_path(&in, path, 1, STATE_FILE);
	if (!inst_running(&in) || state_read(path, &st) || !*st.mconsole) {
		err("%s: not running (or its mconsole is not up yet)", in.name);
		return EX_STATE;
	}
	for (i = 1; i < argc; i++) {
		int n = snprintf(cmd + o, sizeof(cmd) - o, "%s%s",
				 i > 1 ? " " : "", argv[i]);

		if (n < 0 || (size_t)n >= sizeof(cmd) - o) {
			err("mconsole command longer than %d bytes",
			    MC_MAX_DATA - 1);
			return EX_USAGE;
		}
		o += n;
	}
	rc = mc_command(st.mconsole, cmd, out, sizeof(out), 5000, &e);
	if (rc) {
		err("%s: mconsole %s: %s", in.name, st.mconsole, strerror(-rc));
		return rc == -ETIMEDOUT ? EX_TIMEOUT : EX_FAIL;
	}
	/* the guest's kernel answers: lines, but no terminal escapes */
	text_clean(out, TEXT_KEEP_NL);
	if (*out)
		printf("%s%s", out, out[strlen(out) - 1] == '\n' ? "" : "\n");
	if (e) {
		err("%s: mconsole reported an error for '%s'", in.name, cmd);
		return EX_FAIL;
	}
	return 0;
}

/**
 * enable_verb() - shared body of enable and disable
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 * @on:		enable
 *
 * Under systemd: "systemctl enable umarm@NAME.service".  Without it: an
 * "autostart" flag file in the state directory, which "umarmctl
 * autostart" (run from a boot script, e.g. Termux:Boot) honours.
 *
 * Return: exit code
 */
static int enable_verb(struct ctx *x, int argc, char **argv, int on)
{
	int i, rc = 0;

	if (!argc) {
		err("usage: umarmctl %s NAME...", on ? "enable" : "disable");
		return EX_USAGE;
	}
	for (i = 0; i < argc; i++) {
		char path[PATH_LEN];
		struct inst in;
		int r = inst_open(x, argv[i], &in, NULL);

		if (r == EX_NOINST)
			err("%s: no such instance", argv[i]);
		if (!r && use_systemd(x)) {
			r = systemctl(x, on ? "enable" : "disable", in.name) ?
			    EX_FAIL : 0;
		} else if (!r) {
			inst_path(&in, path, 0, AUTOSTART_FILE);
			if (on)
				r = write_file_atomic(path, "1\n", 2, 0600) ?
				    EX_FAIL : 0;
			else if (unlink(path) && errno != ENOENT)
				r = EX_FAIL;
			if (!r && on)
				info("%s: enabled; without systemd, run 'umarmctl%s autostart' at boot",
				     in.name, x->sc.user ? " --user" : "");
		}
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/**
 * cmd_enable() - umarmctl enable NAME...
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_enable(struct ctx *x, int argc, char **argv)
{
	return enable_verb(x, argc, argv, 1);
}

/**
 * cmd_disable() - umarmctl disable NAME...
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code
 */
int cmd_disable(struct ctx *x, int argc, char **argv)
{
	return enable_verb(x, argc, argv, 0);
}

/**
 * cmd_autostart() - umarmctl autostart: start every enabled instance
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Return: exit code (the first failure's)
 */
int cmd_autostart(struct ctx *x, int argc, char **argv)
{
	char dir[PATH_LEN];
	struct dirent *de;
	int rc = 0;
	DIR *d;

	(void)argc;
	(void)argv;
	pathf(dir, "%s/instances", x->sc.confdir);
	d = opendir(dir);
	while (d && (de = readdir(d))) {
		char name[NAME_MAX_LEN + 1], path[PATH_LEN];
		size_t l = strlen(de->d_name);
		struct inst in;
		int r;

		if (l < 6 || l - 5 > NAME_MAX_LEN ||
		    strcmp(de->d_name + l - 5, ".conf"))
			continue;
		memcpy(name, de->d_name, l - 5);
		name[l - 5] = 0;
		if (inst_init(&in, &x->sc, name))
			continue;
		inst_path(&in, path, 0, AUTOSTART_FILE);
		if (access(path, F_OK))
			continue;
		r = start_one(x, name, 0);
		if (r && !rc)
			rc = r;
	}
	if (d)
		closedir(d);
	return rc;
}
