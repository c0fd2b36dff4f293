// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * umlcmd.c - the UML kernel's command line, its process, and how it ended
 */

#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/wait.h>

#include "nosetid.h"
#include "sup.h"
#include "child.h"
#include "disk.h"
#include "log.h"
#include "sharens.h"
#include "supervise.h"
#include "util.h"

/**
 * struct argbuf - a command line being built
 * @argv:	the vector, MAX_UML_ARGS entries
 * @argc:	entries so far
 * @store:	storage for the strings
 * @size:	size of @store
 * @used:	bytes of @store used
 */
struct argbuf {
	char **argv;
	int argc;
	char *store;
	size_t size;
	size_t used;
};

/**
 * arg_add() - append one formatted argument
 * @a:		command line
 * @fmt:	printf() format
 *
 * Return: 0, or -E2BIG when the vector or the storage is full
 */
static int __attribute__((format(printf, 2, 3)))
arg_add(struct argbuf *a, const char *fmt, ...)
{
	va_list ap;
	int n;

	if (a->argc >= MAX_UML_ARGS - 1)
		return -E2BIG;
	va_start(ap, fmt);
	n = vsnprintf(a->store + a->used, a->size - a->used, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= a->size - a->used)
		return -E2BIG;
	a->argv[a->argc++] = a->store + a->used;
	a->used += n + 1;
	return 0;
}

#define ADD(a, ...) do {						\
		if (arg_add(a, __VA_ARGS__))				\
			return -E2BIG;					\
	} while (0)

/**
 * argv_disks() - memory and disks: what the machine is made of
 * @s:		supervisor
 * @a:		command line
 *
 * Return: 0, or -E2BIG
 */
static int argv_disks(struct sup *s, struct argbuf *a)
{
	const struct conf *c = s->c;
	char mem[32];
	int i;

	format_size(c->memory, mem, sizeof(mem));
	ADD(a, "mem=%s", mem);
	for (i = 0; i < CONF_MAX_DISKS; i++) {
		char f[PATH_LEN], b[PATH_LEN];

		if (!c->disk[i].set)
			continue;
		disk_abs(s->in, c->disk[i].file, f);
		if (*c->disk[i].base) {
			disk_abs(s->in, c->disk[i].base, b);
			ADD(a, "ubd%d=%s,%s", i, f, b);
		} else {
			ADD(a, "ubd%d=%s", i, f);
		}
	}
	ADD(a, "root=/dev/ubda");
	return 0;
}

/**
 * argv_channels() - how the supervisor and the guest talk: UML's
 * directory, mconsole, the consoles, the hostfs exchange directory
 * @s:		supervisor
 * @a:		command line
 *
 * Return: 0, -E2BIG, or -EINVAL for a state directory hostfs= cannot take
 *	   (message printed)
 */
static int argv_channels(struct sup *s, struct argbuf *a)
{
	const struct inst *in = s->in;

	/* umid only names UML's directory (and xterm titles); keep the
	 * mconsole path within sun_path, else fall back to a short umid.
	 */
	if (strlen(in->run) + 1 + strlen(in->name) + sizeof("/mconsole") <=
	    SUN_PATH_MAX)
		ADD(a, "umid=%s", in->name);
	else
		ADD(a, "umid=uml");
	ADD(a, "uml_dir=%s/", in->run);
	ADD(a, "mconsole=notify:%s/%s", in->run, NOTIFY_SOCK);
	ADD(a, "con=null");
	ADD(a, "ssl=null");
	ADD(a, "con0=fd:0,fd:1");
	if (s->exec_fd >= 0) {
		/* systemd-debug-generator: a root shell on tty9 = con9 */
		ADD(a, "con9=fd:4");
		ADD(a, "systemd.debug_shell");
	}
	/* UML's hostfs= roots every hostfs mount of the guest at the
	 * exchange directory (not a boundary on its own: see umarmctl(1),
	 * ISOLATION); the image's init mounts its "/" on /host.  UML cuts
	 * the value at the first ',', which would root it higher up.
	 */
	if (strchr(in->state, ',')) {
		err("%s: the state directory %s contains a ',', which UML's hostfs= cannot take: move it (XDG_STATE_HOME, UMARM_STATE_DIR)",
		    in->name, in->state);
		return -EINVAL;
	}
	ADD(a, "hostfs=%s/%s", in->state, EXCHANGE_DIR);
	ADD(a, "umarm.hostfs=/");
	/* the table and the hostfs shares, for the image's init (sharens.c) */
	ADD(a, "umarm.shares=/%s", SHARES_DIR);
	ADD(a, "umarm.name=%s", in->name);
	return 0;
}

/**
 * argv_guest() - CPUs, the network, and the configuration's own cmdline
 * @s:		supervisor
 * @a:		command line
 *
 * Return: 0, or -E2BIG
 */
static int argv_guest(struct sup *s, struct argbuf *a)
{
	char dhcp[32], net[PATH_LEN + 64], *tok, *save;
	char cmdline[CONF_VALUE_MAX];
	int r;

	if (s->c->cpus > 1)
		ADD(a, "ncpus=%u", s->c->cpus);
	r = net_uml_arg(&s->net, net, sizeof(net), dhcp, sizeof(dhcp));
	if (r < 0)
		return -E2BIG;
	if (r > 0) {
		ADD(a, "%s", net);
		ADD(a, "%s", dhcp);
	}
	for (r = 0; r < VFSD_MAX; r++)
		if (vfsd_uml_arg(&s->vfs[r], net, sizeof(net)))
			ADD(a, "%s", net);
	snprintf(cmdline, sizeof(cmdline), "%s", s->c->cmdline);
	for (tok = strtok_r(cmdline, " \t", &save); tok;
	     tok = strtok_r(NULL, " \t", &save))
		ADD(a, "%s", tok);
	return 0;
}

#undef ADD

/**
 * build_argv() - the UML kernel command line
 * @s:		supervisor
 * @kernel:	kernel path
 * @argv:	output vector, MAX_UML_ARGS entries
 * @store:	storage for the strings
 * @size:	size of @store
 *
 * Return: number of arguments, negative errno on failure
 */
int build_argv(struct sup *s, const char *kernel, char **argv,
	       char *store, size_t size)
{
	struct argbuf a = { .argv = argv, .store = store, .size = size };
	int rc;

	rc = arg_add(&a, "%s", kernel);
	if (!rc)
		rc = argv_disks(s, &a);
	if (!rc)
		rc = argv_channels(s, &a);
	if (!rc)
		rc = argv_guest(s, &a);
	if (rc)
		return rc;
	argv[a.argc] = NULL;
	return a.argc;
}

/**
 * spawn_uml() - start the kernel
 * @s:		supervisor
 * @argv:	command line
 * @cons:	UML's end of the console socketpair
 * @exec:	UML's end of the exec channel socketpair, or -1
 *
 * Return: 0 on success, negative errno on failure
 */
int spawn_uml(struct sup *s, char **argv, int cons, int exec)
{
	pid_t self = getpid(), pid = fork();

	if (pid < 0)
		return -errno;
	if (!pid) {
		/* Own process group: a terminal's ^C reaches us, not UML */
		setpgid(0, 0);
		/* SIGKILL, not SIGTERM: UML's SIGTERM handler (last_ditch_exit
		 * -> uml_cleanup -> free_irq) can spin for ever in
		 * __synchronize_hardirq when it interrupted the console's
		 * interrupt handler (seen on x86_64 7.2, 1 in 3 kill -9s of
		 * the supervisor).  Nothing is lost: without its supervisor
		 * the guest has no console, and the next start cleans up
		 * after a SIGKILLed kernel anyway.
		 */
		child_signals_reset();
		child_die_with(self, SIGKILL);
		dup2(cons, 0);
		dup2(cons, 1);
		dup2(cons, 2);
		if (s->net.uml_fd >= 0) {
			dup2(s->net.uml_fd, 3);
			set_cloexec(3, 0);
		}
		if (exec >= 0) {
			dup2(exec, 4);
			set_cloexec(4, 0);
		}
		if (shares_enter(s->in, s->c))
			_exit(125);
		child_umask_restore();
		child_nofile_raise();
		nosetid_or_exit();
		if (chdir(s->in->state))
			_exit(126);
		execv(argv[0], argv);
		dprintf(2, "umarmctl: exec %s: %s\n", argv[0],
			strerror(errno));
		_exit(127);
	}
	setpgid(pid, pid);
	s->uml = pid;
	return 0;
}

/**
 * exit_text() - describe how UML ended
 * @s:		supervisor
 * @buf:	output
 * @len:	size of @buf
 */
void exit_text(struct sup *s, char *buf, size_t len)
{
	int st = s->uml_status;

	if (WIFEXITED(st))
		snprintf(buf, len, "exit code %d", WEXITSTATUS(st));
	else if (WIFSIGNALED(st))
		snprintf(buf, len, "killed by signal %d (%s)", WTERMSIG(st),
			 strsignal(WTERMSIG(st)));
	else
		snprintf(buf, len, "status %d", st);
}

/**
 * reap_orphans() - kill kernel processes left over by a previous run
 * @in:		instance, whose supervisor is known not to run
 *
 * UML's helpers (the ubd I/O thread, stubs) are separate processes that
 * share the kernel's descriptor table, so they keep its disk locks after
 * the kernel process itself was SIGKILLed by someone else.  Any process
 * whose command line carries this instance's "uml_dir=RUNDIR/NAME/" is
 * such a leftover once LOCK_RUN is free; so is a passt serving a socket
 * in RUNDIR/NAME/ (its watcher, see net_spawn_vhost_user(), stops it
 * when the supervisor is SIGKILLed, unless that was killed too).
 *
 * Return: number of processes killed
 */
int reap_orphans(const struct inst *in)
{
	char want[PATH_LEN + 16], sock[PATH_LEN + 2];
	struct dirent *de;
	int n = 0;
	DIR *d;

	if (pathf(want, "uml_dir=%s/", in->run) || pathf(sock, "%s/", in->run))
		return 0;
	d = opendir("/proc");
	while (d && (de = readdir(d))) {
		char path[64], *cmd, *p;
		pid_t pid = atoi(de->d_name);
		ssize_t len;

		if (pid <= 1 || pid == getpid())
			continue;
		snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)pid);
		len = read_file(path, &cmd, 1 << 16);
		if (len <= 0)
			continue;
		for (p = cmd; p < cmd + len; p += strlen(p) + 1) {
			char *next = p + strlen(p) + 1;

			if (!strcmp(p, want) ||
			    (!strcmp(cmd, "passt") && !strcmp(p, "--socket") &&
			     next < cmd + len &&
			     !strncmp(next, sock, strlen(sock)))) {
				kill(pid, SIGKILL);
				n++;
				break;
			}
		}
		free(cmd);
	}
	if (d)
		closedir(d);
	if (n) {
		warn("%s: killed %d process%s (UML, passt) left over by a previous run",
		     in->name, n, n == 1 ? "" : "es");
		/* let the kernel drop their locks */
		sleep_ms(100);
	}
	return n;
}
