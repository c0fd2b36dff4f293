// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * supervise.c - run one instance: UML, passt, console, readiness
 *
 * "umarmctl run NAME" is the supervisor: the main process of
 * umarm@NAME.service under systemd, or the daemon "umarmctl start" forks
 * without it.  It holds LOCK_RUN for its whole life, starts passt and the
 * UML kernel (in its own process group, killed if we die), and then serves
 * one poll() loop:
 *
 * - the console: UML's con0 is one end of a socketpair; everything the
 *   guest prints is appended to STATEDIR/NAME/console.log, scanned for the
 *   readiness markers, and copied to attached "umarmctl console" clients;
 * - mconsole notifications (mconsole=notify:RUNDIR/NAME/notify): the
 *   mconsole socket path, guest panics, and /proc/mconsole writes;
 * - the control socket RUNDIR/NAME/control, a line protocol for the other
 *   umarmctl verbs: console, stop, kill, pause, resume, type TEXT;
 * - the network relay, when passt runs in --fd mode;
 * - hot-plugged interfaces ("umarmctl net add"): a passt --vhost-user
 *   each, plugged with mconsole "config virtio_uml.device=SOCK:1:ID",
 *   listed in RUNDIR/NAME/net and stopped with the instance;
 * - signals, through a signalfd: SIGTERM/SIGINT start a clean stop
 *   (mconsole "cad", then "halt" after stop-timeout, then SIGKILL),
 *   SIGCHLD reaps UML and passt.
 *
 * Readiness ("READY=1" to systemd, "READY" on the pipe to "umarmctl start")
 * is declared when a marker from 'ready =' (default UMARM_BOOT_OK or
 * UMARM_MULTI_USER_OK) shows up on the console or through /proc/mconsole,
 * or, for 'ready = mconsole', as soon as the mconsole socket is up.
 *
 * This file sets the run up, tears it down, and holds what the parts
 * share (the state file, readiness, mconsole); the parts are listed in
 * sup.h.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/resource.h>
#include <sys/signalfd.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "child.h"
#include "sup.h"
#include "supervise.h"
#include "ctl.h"
#include "sharens.h"
#include "sysacct.h"
#include "disk.h"
#include "host.h"
#include "lock.h"
#include "log.h"
#include "mconsole.h"
#include "sdnotify.h"
#include "text.h"
#include "rmtree.h"
#include "util.h"

/**
 * publish() - write the runtime state file
 * @s:		supervisor
 * @status:	new status, or NULL to keep it
 */
void publish(struct sup *s, const char *status)
{
	if (status)
		snprintf(s->st.status, sizeof(s->st.status), "%s", status);
	if (state_write(s->state_path, &s->st))
		warn("%s: cannot write %s: %s", s->in->name, s->state_path,
		     strerror(errno));
}

/**
 * notify_extend() - tell systemd how long the current phase may still take
 * @ms:		milliseconds from now, our own deadline included
 * @what:	the rest of the message ("READY=1", "STOPPING=1", ...)
 *
 * The unit's TimeoutStartSec= and TimeoutStopSec= are fixed, while
 * ready-timeout and stop-timeout come from the instance's configuration:
 * EXTEND_TIMEOUT_USEC= (systemd 236) makes systemd wait as long as the
 * configuration says (it never shortens the unit's own timeout).  One
 * message per phase is enough: our deadline is fixed when it is sent.
 */
void notify_extend(uint64_t ms, const char *what)
{
	char msg[160];

	snprintf(msg, sizeof(msg), "%s\nEXTEND_TIMEOUT_USEC=%llu", what,
		 (unsigned long long)(ms + EXTEND_MARGIN_MS) * 1000);
	sd_notify_msg(msg);
}

/**
 * tell_starter() - report the outcome of the start to "umarmctl start"
 * @s:		supervisor
 * @ok:		booted
 * @code:	exit code for the starter if not @ok
 * @msg:	failure message if not @ok
 */
void tell_starter(struct sup *s, int ok, int code, const char *msg)
{
	char buf[600];

	if (s->ready_fd < 0)
		return;
	if (ok)
		snprintf(buf, sizeof(buf), "READY\n");
	else
		snprintf(buf, sizeof(buf), "FAIL %d %s\n", code, msg);
	write_all(s->ready_fd, buf, strlen(buf));
	close(s->ready_fd);
	s->ready_fd = -1;
}

/**
 * set_ready() - the guest has booted
 * @s:		supervisor
 * @how:	what told us, for the log
 */
void set_ready(struct sup *s, const char *how)
{
	char msg[160];
	uint64_t ms;

	if (s->ready)
		return;
	s->ready = 1;
	s->st.ready = now_ms();
	ms = boot_ms() - s->t0;
	publish(s, "running");
	snprintf(msg, sizeof(msg),
		 "READY=1\nSTATUS=Guest booted in %llu.%03llus (%s)",
		 (unsigned long long)ms / 1000,
		 (unsigned long long)ms % 1000, how);
	sd_notify_msg(msg);
	dbg("%s: ready after %llu ms (%s)", s->in->name,
	    (unsigned long long)ms, how);
	/* the kernel made root.cow under the caller's umask: 0600 again */
	inst_tighten(s->in);
	tell_starter(s, 1, 0, NULL);
}

/**
 * fail_boot() - the guest did not boot: tell the starter, stop the kernel
 * @s:		supervisor
 * @code:	exit code
 * @msg:	what went wrong
 */
void fail_boot(struct sup *s, int code, const char *msg)
{
	char clean[sizeof(s->fail)];

	/* a console line of the guest's: no escapes to the user's terminal */
	snprintf(clean, sizeof(clean), "%s", msg);
	text_clean(clean, 0);
	if (!*s->fail) {
		snprintf(s->fail, sizeof(s->fail), "%s", clean);
		s->exit_code = code;
	}
	err("%s", clean);
	tell_starter(s, 0, code, clean);
}

/**
 * mc() - send an mconsole command to our UML
 * @s:		supervisor
 * @cmd:	command
 * @reply:	reply text, may be NULL
 * @len:	size of @reply
 *
 * Return: 0 if UML accepted it, negative errno or -EIO
 */
int mc(struct sup *s, const char *cmd, char *reply, size_t len)
{
	char tmp[MC_MAX_DATA];
	int e, rc;

	if (!*s->st.mconsole)
		return -ENOTCONN;
	if (!reply) {
		reply = tmp;
		len = sizeof(tmp);
	}
	rc = mc_command(s->st.mconsole, cmd, reply, len, MC_TIMEOUT_MS, &e);
	if (rc)
		return rc;
	return e ? -EIO : 0;
}

/**
 * sup_new() - a supervisor with nothing open yet
 * @in:		instance
 * @c:		its configuration
 * @ready_fd:	pipe to "umarmctl start", or -1
 *
 * Return: the supervisor, NULL if out of memory
 */
static struct sup *sup_new(const struct inst *in, const struct conf *c,
			   int ready_fd)
{
	struct sup *s = calloc(1, sizeof(*s));
	int i;

	if (!s)
		return NULL;
	s->in = in;
	s->c = c;
	s->ready_fd = ready_fd;
	s->sigfd = s->notify_fd = s->listen_fd = s->cons_fd = s->log_fd = -1;
	s->exec_fd = -1;
	s->net.ufd = s->net.pfd = s->net.uml_fd = -1;
	for (i = 0; i < MAX_CLIENTS; i++)
		s->cl[i].fd = -1;
	return s;
}

/* host descriptors the kernel needs besides its hostfs mounts' (disks,
 * consoles, stubs of the guest's processes)
 */
#define NOFILE_SPARE	512

/**
 * nofile_check() - can the kernel hold a descriptor for each hostfs share?
 * @s:		supervisor
 *
 * The kernel raises its soft limit to the hard one (child_nofile_raise());
 * a hard limit below what the shares take would leave the guest unable to
 * start processes, far from the cause.
 *
 * Return: 0, or -EMFILE (the starter told)
 */
static int nofile_check(struct sup *s)
{
	unsigned long nhostfs = conf_hostfs_shares(s->c);
	char msg[256];
	struct rlimit r;

	if (getrlimit(RLIMIT_NOFILE, &r) ||
	    r.rlim_max >= nhostfs + NOFILE_SPARE)
		return 0;
	snprintf(msg, sizeof(msg),
		 "%lu hostfs shares need %lu open files, and the hard limit is %llu: raise it (LimitNOFILE= in a drop-in of the unit, or ulimit -Hn as root) or remove shares",
		 nhostfs, nhostfs + NOFILE_SPARE,
		 (unsigned long long)r.rlim_max);
	err("%s: %s", s->in->name, msg);
	tell_starter(s, 0, EX_HOST, msg);
	return -EMFILE;
}

/**
 * sup_check() - can this host boot the instance: kernel, flavour, disks
 * @s:		supervisor
 * @kernel:	set to the kernel's path, PATH_LEN bytes
 *
 * Checked here as well as by "umarmctl start": systemd starts us directly.
 *
 * Return: 0, or the exit code (the starter told)
 */
static int sup_check(struct sup *s, char *kernel)
{
	if (kernel_check(s->in->name, s->c, kernel) ||
	    flavour_check(s->in->name, conf_flavour(s->c))) {
		tell_starter(s, 0, EX_HOST, "host check failed");
		return EX_HOST;
	}
	if (disk_check(s->in, s->c, 1)) {
		tell_starter(s, 0, EX_STATE, "disk check failed");
		return EX_STATE;
	}
	if (nofile_check(s))
		return EX_HOST;
	return 0;
}

/**
 * sup_dirs() - make the runtime directory and the exchange directory
 * @s:		supervisor
 *
 * The runtime directory is ours alone, and stale files of a crash go.
 * Under systemd it is the unit's RuntimeDirectory=, maybe a mount point:
 * it is emptied rather than replaced.  Jobs of a previous run are gone.
 *
 * Return: 0, or the exit code (the starter told)
 */
static int sup_dirs(struct sup *s)
{
	const struct inst *in = s->in;
	char path[PATH_LEN];
	int rc;

	rc = mkdir_p(in->sc->rundir, in->sc->user ? 0700 : 0755);
	if (!rc && mkdir(in->run, 0700) && errno != EEXIST)
		rc = -errno;
	if (!rc) {
		rm_contents(in->run);
		chmod(in->run, 0700);
	}
	if (rc) {
		err("%s: cannot create %s: %s", in->name, in->run,
		    strerror(-rc));
		tell_starter(s, 0, EX_FAIL, "cannot create runtime directory");
		return EX_FAIL;
	}
	inst_path(in, path, 0, EXCHANGE_DIR);
	mkdir_p(path, 0700);
	pathf(path, "%s/%s/%s", in->state, EXCHANGE_DIR, JOBS_DIR);
	rm_rf(path);
	mkdir_p(path, 0700);
	inst_path(in, s->state_path, 1, STATE_FILE);
	if (shares_check(in, s->c)) {
		tell_starter(s, 0, EX_CONFIG, "a shared directory is missing");
		return EX_CONFIG;
	}
	if (shares_prepare(in, s->c)) {
		tell_starter(s, 0, EX_FAIL, "cannot prepare the shares");
		return EX_FAIL;
	}
	return 0;
}

/**
 * sup_sockets() - the signalfd, the sockets, the console's socketpair
 * @s:		supervisor
 * @sp:		set to the console socketpair; sp[1] is UML's end
 * @ex:		set to the debug shell's socketpair, if 'exec = debug-shell'
 *		({ -1, -1 } otherwise); ex[1] is UML's end
 *
 * Return: 0, or the exit code (the starter told)
 */
static int sup_sockets(struct sup *s, int sp[2], int ex[2])
{
	char path[PATH_LEN];
	sigset_t mask;

	sigemptyset(&mask);
	sigaddset(&mask, SIGCHLD);
	sigaddset(&mask, SIGTERM);
	sigaddset(&mask, SIGINT);
	sigaddset(&mask, SIGHUP);
	sigprocmask(SIG_BLOCK, &mask, NULL);
	signal(SIGPIPE, SIG_IGN);
	s->sigfd = signalfd(-1, &mask, SFD_CLOEXEC | SFD_NONBLOCK);

	inst_path(s->in, path, 1, NOTIFY_SOCK);
	s->notify_fd = mc_bind_notify(path);
	inst_path(s->in, path, 1, CONTROL_SOCK);
	s->listen_fd = listen_unix(path);
	if (s->sigfd < 0 || s->notify_fd < 0 || s->listen_fd < 0 ||
	    socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sp)) {
		err("%s: cannot create sockets in %s: %s", s->in->name,
		    s->in->run, strerror(errno));
		tell_starter(s, 0, EX_FAIL, "cannot create sockets");
		return EX_FAIL;
	}
	s->cons_fd = sp[0];
	set_nonblock(s->cons_fd);
	if (s->c->exec == EXEC_DEBUG_SHELL &&
	    !socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, ex)) {
		s->exec_fd = ex[0];
		set_nonblock(s->exec_fd);
	}
	return 0;
}

/**
 * sup_network() - start the configured interface's passt
 * @s:		supervisor
 * @kernel:	the kernel, whose drivers decide the backend
 *
 * Return: 0, or the exit code (the starter told)
 */
static int sup_network(struct sup *s, const char *kernel)
{
	if (net_start(&s->net, s->in, s->c, kernel)) {
		tell_starter(s, 0, EX_FAIL, *s->net.why ? s->net.why :
			     "network setup failed");
		return EX_FAIL;
	}
	s->st.passt = s->net.passt;
	snprintf(s->st.net, sizeof(s->st.net), "%s",
		 net_backend_name(&s->net));
	/* virtio-uml.0 is the configured vhost-user interface, if any */
	s->next_plat = 1;
	publish_nif(s);
	if (vfsd_start_all(s)) {
		tell_starter(s, 0, EX_FAIL, "virtiofsd did not start");
		return EX_FAIL;
	}
	return 0;
}

/**
 * sup_boot() - build the kernel's command line and start it
 * @s:		supervisor
 * @kernel:	kernel path
 * @cons:	UML's end of the console socketpair (closed here)
 * @exec:	UML's end of the debug shell's socketpair, or -1 (closed here)
 *
 * Return: 0 once the kernel runs, or the exit code (the starter told)
 */
static int sup_boot(struct sup *s, const char *kernel, int cons, int exec)
{
	char *argv[MAX_UML_ARGS], *store = malloc(UML_ARGS_STORE);
	int rc, i;

	rc = store ? build_argv(s, kernel, argv, store, UML_ARGS_STORE)
		   : -ENOMEM;
	if (rc >= 0 && log_verbose) {
		for (i = 0; argv[i]; i++)
			fprintf(stderr, "%s%s", i ? " " : "umarmctl: exec ",
				argv[i]);
		fputc('\n', stderr);
	}
	if (rc >= 0) {
		s->t0 = boot_ms();
		s->ready_deadline = s->t0 + s->c->ready_timeout * 1000ULL;
		s->st.started = now_ms();
		s->st.boot = s->st.started;
		rc = spawn_uml(s, argv, cons, exec);
		if (rc) {
			err("%s: cannot start %s: %s", s->in->name, kernel,
			    strerror(-rc));
			tell_starter(s, 0, EX_FAIL, "fork failed");
		}
		rc = rc ? EX_FAIL : 0;
	} else {
		if (rc != -EINVAL)
			err("%s: kernel command line too long", s->in->name);
		tell_starter(s, 0, EX_CONFIG, rc == -EINVAL ?
			     "bad state directory" : "kernel command line too long");
		rc = EX_CONFIG;
	}
	free(store);
	close(cons);
	if (exec >= 0)
		close(exec);
	if (s->net.uml_fd >= 0) {
		close(s->net.uml_fd);
		s->net.uml_fd = -1;
	}
	return rc;
}

/**
 * sup_verdict() - how the run ended, into the state and the exit code
 * @s:		supervisor, its kernel reaped
 *
 * Return: 0 if the guest ran and stopped cleanly, an exit code otherwise
 */
static int sup_verdict(struct sup *s)
{
	char how[96];
	int rc;

	exit_text(s, how, sizeof(how));
	/* stopped while booting is what was asked: no failure (the start
	 * that waits has been told, stop_start())
	 */
	if (!s->ready && !*s->fail && s->stop == STOP_NONE) {
		char msg[384];

		snprintf(msg, sizeof(msg),
			 "%s: kernel exited before the guest booted (%s); see 'umarmctl logs %s'",
			 s->in->name, how, s->in->name);
		fail_boot(s, EX_BOOT, msg);
	}
	if (*s->fail) {
		rc = s->exit_code;
		snprintf(s->st.exit, sizeof(s->st.exit), "%.127s", s->fail);
		snprintf(s->st.status, sizeof(s->st.status), "failed");
	} else if (s->stop != STOP_NONE || (WIFEXITED(s->uml_status) &&
					   !WEXITSTATUS(s->uml_status))) {
		/* stopped by us, or the guest powered itself off */
		rc = 0;
		snprintf(s->st.exit, sizeof(s->st.exit), "%s", how);
		snprintf(s->st.status, sizeof(s->st.status), "stopped");
	} else {
		rc = EX_FAIL;
		snprintf(s->st.exit, sizeof(s->st.exit), "%s", how);
		snprintf(s->st.status, sizeof(s->st.status), "failed");
	}
	info("%s (%s)", s->st.status, how);
	return rc;
}

/**
 * sup_teardown() - stop what still runs, record the run, close everything
 * @s:		supervisor
 * @rc:		exit code so far
 */
static void sup_teardown(struct sup *s, int rc)
{
	char path[PATH_LEN];
	int i;

	net_stop(&s->net);
	hotplug_stop_all(s);
	vfsd_stop_all(s);
	if (s->uml > 0 && !s->uml_done) {
		kill(-s->uml, SIGKILL);
		waitpid(s->uml, NULL, 0);
	}
	for (i = 0; i < MAX_CLIENTS; i++)
		if (s->cl[i].fd >= 0)
			close(s->cl[i].fd);
	if (s->log_fd >= 0)
		close(s->log_fd);
	if (s->exec_fd >= 0)
		close(s->exec_fd);
	if (!*s->st.status || !strcmp(s->st.status, "starting"))
		snprintf(s->st.status, sizeof(s->st.status), "failed");
	s->st.passt = 0;
	inst_tighten(s->in);
	inst_path(s->in, path, 0, LAST_FILE);
	state_write(path, &s->st);
	rm_contents(s->in->run);
	rmdir(s->in->run);
	tell_starter(s, 0, rc ? rc : EX_BOOT, "stopped");
}

/**
 * sup_run() - from the locked, checked instance to its kernel's end
 * @s:		supervisor
 * @kernel:	kernel path
 *
 * Return: exit code for umarmctl
 */
static int sup_run(struct sup *s, const char *kernel)
{
	int sp[2] = { -1, -1 }, ex[2] = { -1, -1 }, rc;

	rc = sup_dirs(s);
	if (rc)
		return rc;
	rc = sup_sockets(s, sp, ex);
	if (!rc) {
		conslog_open(s);
		s->st.supervisor = getpid();
		snprintf(s->st.net, sizeof(s->st.net), "none");
		publish(s, "starting");
		rc = sup_network(s, kernel);
	}
	if (rc) {
		if (sp[1] >= 0)
			close(sp[1]);
		if (ex[1] >= 0)
			close(ex[1]);
	} else {
		rc = sup_boot(s, kernel, sp[1], ex[1]);
	}
	if (!rc) {
		s->st.uml = s->uml;
		publish(s, "booting");
		/* a guest that never boots is SIGKILLed at ready_deadline */
		notify_extend(s->ready_deadline > boot_ms() ?
			      s->ready_deadline - boot_ms() + KILL_TIMEOUT_MS :
			      KILL_TIMEOUT_MS, "STATUS=Booting the guest");
		loop(s);
		/* helpers of a kernel killed from outside would keep its
		 * disks
		 */
		kill(-s->uml, SIGKILL);
		rc = sup_verdict(s);
	}
	sup_teardown(s, rc);
	return rc;
}

/**
 * supervise() - run an instance until its kernel exits
 * @in:		instance
 * @c:		its configuration (validated)
 * @ready_fd:	pipe to "umarmctl start", or -1
 *
 * Return: exit code for umarmctl: 0 if the guest ran and stopped cleanly
 */
int supervise(const struct inst *in, const struct conf *c, int ready_fd)
{
	char kernel[PATH_LEN], prefix[96];
	int runlock, rc;
	struct sup *s;

	snprintf(prefix, sizeof(prefix), "umarmctl[%s]", in->name);
	log_set_prefix(prefix);
	/* root.cow, logs, sockets: the owner's alone (also under systemd) */
	child_umask_keep();
	umask(077);

	s = sup_new(in, c, ready_fd);
	if (!s)
		return EX_FAIL;
	/* root without systemd: as the unit would run it (sysacct.c) */
	if (sysacct_drop(in)) {
		fail_boot(s, EX_FAIL, "cannot drop root for the system account");
		free(s);
		return EX_FAIL;
	}
	runlock = lock_take(in, LOCK_RUN, 1, 2000);
	if (runlock < 0) {
		snprintf(prefix, sizeof(prefix), "%s: already running",
			 in->name);
		fail_boot(s, EX_STATE, prefix);
		free(s);
		return EX_STATE;
	}
	reap_orphans(in);
	rc = sup_check(s, kernel);
	if (!rc)
		rc = sup_run(s, kernel);
	lock_release(runlock);
	free(s);
	return rc;
}
