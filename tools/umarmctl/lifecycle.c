// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * lifecycle.c - verbs: start, run, stop, kill, restart, reboot, pause,
 *		 resume, mconsole, enable, disable, autostart
 *
 * With systemd running and umarm@.service installed, start, stop, restart
 * and kill go through "systemctl [--user]", so that the unit's state, the
 * journal and dependencies stay right; "umarmctl run NAME" is then the
 * unit's main process.  Without systemd (a phone, a container, or
 * --no-systemd), "start" forks the same supervisor as a daemon and waits
 * for it to report the guest booted, or why not (runctl.c).
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
#include "ctl.h"
#include "lock.h"
#include "log.h"
#include "mconsole.h"
#include "state.h"
#include "text.h"
#include "util.h"

/**
 * start_verb_one() - open, start and maybe attach to one instance
 * @x:		global options
 * @name:	instance name
 * @attach:	attach to the console once booted
 *
 * Return: exit code
 */
static int start_verb_one(struct ctx *x, const char *name, int attach)
{
	struct inst in;
	struct conf c;
	int rc;

	rc = inst_open(x, name, &in, &c);
	if (!rc)
		rc = inst_start(x, &in, &c);
	if (!rc && attach)
		rc = console_attach(&in, 0);
	return rc;
}

/**
 * stop_verb_one() - open and stop (or kill) one instance
 * @x:		global options
 * @name:	instance name
 * @hard:	kill
 * @timeout:	seconds, 0 for the configuration's stop-timeout
 *
 * Return: exit code
 */
static int stop_verb_one(struct ctx *x, const char *name, int hard,
			 unsigned int timeout)
{
	struct inst in;
	int rc = inst_open(x, name, &in, NULL);

	return rc ? rc : inst_stop(x, &in, hard, timeout);
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
		r = start_verb_one(x, argv[i], attach);
		if (r && !rc)
			rc = r;
	}
	if (!n) {
		return usage_error("start");
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
		return usage_error("run");
	}
	rc = inst_open(x, argv[0], &in, &c);
	return rc ? rc : inst_run(&in, &c);
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
		r = stop_verb_one(x, argv[i], hard, timeout);
		if (r && !rc)
			rc = r;
	}
	if (!n) {
		return usage_error(hard ? "kill" : "stop");
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
		return usage_error("restart");
	}
	for (i = 0; i < argc; i++) {
		int r;

		if (use_systemd(x)) {
			r = systemctl(x, "restart", argv[i]) ? EX_FAIL : 0;
		} else {
			r = stop_verb_one(x, argv[i], 0, 0);
			if (!r)
				r = start_verb_one(x, argv[i], 0);
		}
		if (r && !rc)
			rc = r;
	}
	return rc;
}

/**
 * cmd_reboot() - umarmctl reboot NAME...: reboot the guests, kernel and all
 * @x:		global options
 * @argc:	arguments after the verb
 * @argv:	arguments
 *
 * Unlike restart, the supervisor stays: so do its sockets, the guest's
 * network (passt) and an attached console.  Hot-plugged interfaces and
 * disks are gone, as from any fresh kernel.
 *
 * Return: exit code (the first failure's)
 */
int cmd_reboot(struct ctx *x, int argc, char **argv)
{
	int i, rc = 0;

	if (!argc)
		return usage_error("reboot");
	for (i = 0; i < argc; i++) {
		struct inst in;
		int r = inst_open(x, argv[i], &in, NULL);

		if (!r)
			r = inst_reboot(x, &in);
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
		return usage_error(req);
	}
	for (i = 0; i < argc; i++) {
		char reply[600];
		struct inst in;
		int r = inst_open(x, argv[i], &in, NULL);

		if (!r && !inst_running(&in)) {
			err("%s: not running", in.name);
			r = EX_STATE;
		}
		if (!r)
			r = ctl_request(&in, req, reply, sizeof(reply));
		if (r < 0) {
			err("%s: %s failed: %s", in.name, req,
			    ctl_why(r, reply));
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
		return usage_error("mconsole");
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
		return usage_error(on ? "enable" : "disable");
	}
	for (i = 0; i < argc; i++) {
		char path[PATH_LEN];
		struct inst in;
		int r = inst_open(x, argv[i], &in, NULL);

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

	(void)argv;
	if (argc)
		return usage_error("autostart");
	pathf(dir, "%s/" INSTANCES_DIR, x->sc.confdir);
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
		r = start_verb_one(x, name, 0);
		if (r && !rc)
			rc = r;
	}
	if (d)
		closedir(d);
	return rc;
}
