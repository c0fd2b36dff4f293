// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * loop.c - the supervisor's event loop and its stop state machine
 */

#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/signalfd.h>
#include <sys/wait.h>

#include "sup.h"
#include "log.h"
#include "sdnotify.h"
#include "util.h"

/**
 * stop_start() - begin (or escalate) stopping the guest
 * @s:		supervisor
 * @hard:	skip the clean shutdown
 */
void stop_start(struct sup *s, int hard)
{
	if (s->uml_done)
		return;
	if (s->stop == STOP_NONE) {
		/* the longest way: cad, halt, SIGKILL */
		notify_extend(s->c->stop_timeout * 1000ULL + HALT_TIMEOUT_MS +
			      KILL_TIMEOUT_MS,
			      "STOPPING=1\nSTATUS=Shutting down the guest");
		publish(s, "stopping");
		if (!s->ready)
			tell_starter(s, 0, EX_BOOT, "stopped while booting");
	}
	if (s->paused) {
		mc(s, "go", NULL, 0);
		s->paused = 0;
	}
	if (!hard && s->stop == STOP_NONE && !mc(s, "cad", NULL, 0)) {
		s->stop = STOP_CAD;
		s->stop_deadline = boot_ms() + s->c->stop_timeout * 1000ULL;
		return;
	}
	if (!hard && s->stop <= STOP_CAD) {
		/* The guest ignored ctrl-alt-del: flush and remount its
		 * file systems read-only through magic SysRq before halting.
		 */
		mc(s, "sysrq s", NULL, 0);
		mc(s, "sysrq u", NULL, 0);
	}
	if (!hard && s->stop <= STOP_CAD && !mc(s, "halt", NULL, 0)) {
		s->stop = STOP_HALT;
		s->stop_deadline = boot_ms() + HALT_TIMEOUT_MS;
		return;
	}
	if (s->stop < STOP_KILL) {
		/* UML's own SIGTERM handler would also kill its helpers,
		 * but a wedged kernel may not run it: SIGKILL the group.
		 */
		kill(-s->uml, SIGKILL);
		s->stop = STOP_KILL;
		s->stop_deadline = boot_ms() + KILL_TIMEOUT_MS;
	}
}

/**
 * reboot_start() - control request "reboot": reset the guest, quiesced
 * @s:		supervisor
 *
 * Not ctrl-alt-del: what a guest's init does with it is its own choice
 * (the test image's busybox powers off; systemd reboots).  The guest's
 * file systems are flushed and remounted read-only through magic SysRq,
 * then mconsole "reboot" restarts the kernel, which re-executes itself:
 * the supervisor, its sockets and passt stay.
 *
 * Return: 0, or -EBUSY if the guest cannot be rebooted now
 */
int reboot_start(struct sup *s)
{
	if (!*s->st.mconsole || s->stop != STOP_NONE || s->uml_done ||
	    s->rebooting)
		return -EBUSY;
	if (s->paused && !mc(s, "go", NULL, 0))
		s->paused = 0;
	mc(s, "sysrq s", NULL, 0);
	mc(s, "sysrq u", NULL, 0);
	if (mc(s, "reboot", NULL, 0))
		return -EBUSY;
	/* the new kernel's notification comes when it is mostly booted */
	s->t0 = boot_ms();
	s->rebooting = 1;
	publish(s, "rebooting");
	return 0;
}

/**
 * kernel_reexec() - the kernel re-executed itself: the guest rebooted
 * @s:		supervisor
 *
 * While stopping, that is the guest's init answering ctrl-alt-del with a
 * reboot (systemd's default ctrl-alt-del.target): its shutdown is done,
 * so halt the fresh kernel before it boots any further.  Otherwise (a
 * "reboot", or the guest's own) it boots again: readiness is awaited
 * anew, and timed from now, and the hot-plugged interfaces go (the new
 * kernel has none).
 */
void kernel_reexec(struct sup *s)
{
	if (s->stop == STOP_CAD) {
		dbg("%s: guest rebooted on ctrl-alt-del: halting",
		    s->in->name);
		if (!mc(s, "halt", NULL, 0)) {
			s->stop = STOP_HALT;
			s->stop_deadline = boot_ms() + HALT_TIMEOUT_MS;
		}
		return;
	}
	if (s->stop != STOP_NONE)
		return;
	hotplug_stop_all(s);
	publish_nif(s);
	/* "booted in" counts this boot, not the first start: from the
	 * request, or from here for a reboot the guest chose
	 */
	if (!s->rebooting)
		s->t0 = boot_ms();
	s->rebooting = 0;
	s->ready = 0;
	s->st.boot = now_ms() - (boot_ms() - s->t0);
	s->st.ready = 0;
	s->linelen = 0;
	s->ready_deadline = boot_ms() + s->c->ready_timeout * 1000ULL;
	publish(s, "booting");
	sd_notify_msg("STATUS=Rebooting the guest");
}

/**
 * reap() - collect exited children
 * @s:		supervisor
 */
static void reap(struct sup *s)
{
	int status;
	pid_t pid;

	while ((pid = waitpid(-1, &status, WNOHANG)) > 0) {
		if (pid == s->uml) {
			s->uml_done = 1;
			s->uml_status = status;
		} else if (pid == s->net.passt) {
			warn("%s: passt exited (status %d): the guest has no network now; see %s/passt.log",
			     s->in->name, status, s->in->state);
			s->net.passt = 0;
			s->st.passt = 0;
			publish(s, NULL);
			publish_nif(s);
		} else {
			hotplug_reaped(s, pid, status);
			vfsd_reaped(s, pid);
		}
	}
}

/**
 * signal_in() - handle a signal from the signalfd
 * @s:		supervisor
 */
static void signal_in(struct sup *s)
{
	struct signalfd_siginfo si;

	while (read(s->sigfd, &si, sizeof(si)) == sizeof(si)) {
		switch (si.ssi_signo) {
		case SIGCHLD:
			reap(s);
			break;
		case SIGTERM:
		case SIGINT:
		case SIGHUP:
			/* a second signal while stopping escalates */
			stop_start(s, s->stop != STOP_NONE);
			break;
		}
	}
}

/**
 * struct pollset - what loop() polls in one round, and where each sits
 * @p:		the descriptors
 * @n:		how many
 * @notify:	index of the mconsole notifications (signals are 0)
 * @listen:	index of the control socket
 * @exec:	index of the debug shell's channel, or -1
 * @cons:	index of the console, or -1
 * @uml:	index of UML's side of the network relay, or -1
 * @passt:	index of passt's side of it, or -1
 * @cl:		index of each control client, or -1
 */
struct pollset {
	struct pollfd p[8 + MAX_CLIENTS];
	int n;
	int notify, listen, exec, cons, uml, passt;
	int cl[MAX_CLIENTS];
};

/**
 * poll_add() - add a descriptor to the poll set
 * @ps:		poll set
 * @fd:		descriptor
 * @events:	poll events
 *
 * Return: its index
 */
static int poll_add(struct pollset *ps, int fd, short events)
{
	ps->p[ps->n] = (struct pollfd){ .fd = fd, .events = events };
	return ps->n++;
}

/**
 * poll_build() - the descriptors of this round
 * @s:		supervisor
 * @ps:		filled in
 */
static void poll_build(struct sup *s, struct pollset *ps)
{
	int i;

	ps->n = 0;
	ps->exec = ps->cons = ps->uml = ps->passt = -1;
	poll_add(ps, s->sigfd, POLLIN);
	ps->notify = poll_add(ps, s->notify_fd, POLLIN);
	ps->listen = poll_add(ps, s->listen_fd, POLLIN);
	if (s->exec_fd >= 0)
		ps->exec = poll_add(ps, s->exec_fd, POLLIN);
	if (s->cons_fd >= 0)
		ps->cons = poll_add(ps, s->cons_fd, POLLIN);
	if (s->net.ufd >= 0 && s->net.passt) {
		/* backpressure: stop reading UML while passt lags */
		ps->uml = poll_add(ps, s->net.ufd, s->net.outlen ? 0 : POLLIN);
		ps->passt = poll_add(ps, s->net.pfd, POLLIN |
				     (s->net.outlen ? POLLOUT : 0));
	}
	for (i = 0; i < MAX_CLIENTS; i++)
		ps->cl[i] = s->cl[i].fd < 0 ? -1 :
			    poll_add(ps, s->cl[i].fd, POLLIN);
}

/**
 * poll_dispatch() - handle what poll() reported
 * @s:		supervisor
 * @ps:		the round's poll set, revents filled
 */
static void poll_dispatch(struct sup *s, struct pollset *ps)
{
	struct pollfd *p = ps->p;
	int i;

	if (p[0].revents)
		signal_in(s);
	if (p[ps->notify].revents)
		notify_in(s);
	if (p[ps->listen].revents)
		accept_client(s);
	if (ps->exec >= 0 && p[ps->exec].revents) {
		char junk[4096];

		/* the debug shell's echo and prompts: not needed */
		if (read(s->exec_fd, junk, sizeof(junk)) == 0) {
			close(s->exec_fd);
			s->exec_fd = -1;
		}
	}
	if (ps->cons >= 0 && p[ps->cons].revents && console_in(s) == -EPIPE) {
		close(s->cons_fd);
		s->cons_fd = -1;
	}
	if (ps->uml >= 0) {
		if (p[ps->uml].revents & POLLIN)
			net_from_uml(&s->net);
		if (p[ps->passt].revents & POLLOUT)
			net_flush_passt(&s->net);
		if (p[ps->passt].revents & (POLLIN | POLLHUP) &&
		    net_from_passt(&s->net) == -EPROTO)
			warn("%s: bad frame length from passt", s->in->name);
	}
	for (i = 0; i < MAX_CLIENTS; i++)
		if (ps->cl[i] >= 0 && p[ps->cl[i]].revents && s->cl[i].fd >= 0)
			client_in(s, &s->cl[i]);
}

/**
 * poll_timeout() - how long this round may wait: until the next deadline
 * @s:		supervisor
 *
 * Return: milliseconds, -1 for no deadline
 */
static int poll_timeout(struct sup *s)
{
	uint64_t now = boot_ms(), deadline = 0;

	if (!s->ready)
		deadline = s->ready_deadline;
	if (s->stop != STOP_NONE)
		deadline = s->stop_deadline;
	if (!deadline)
		return -1;
	return deadline > now ? (int)(deadline - now) : 0;
}

/**
 * deadlines() - act on a deadline that passed, or a failure seen
 * @s:		supervisor
 *
 * A guest that did not boot in time is killed (nothing booted to shut
 * down cleanly); a stop phase that ran out escalates; a failure (a
 * panic, a disk in use) stops the guest.
 */
static void deadlines(struct sup *s)
{
	uint64_t now = boot_ms();

	if (!s->ready && s->stop == STOP_NONE && now >= s->ready_deadline) {
		char msg[384];

		snprintf(msg, sizeof(msg),
			 "%s: guest did not report booted within %us (ready-timeout); see 'umarmctl logs %s'",
			 s->in->name, s->c->ready_timeout, s->in->name);
		fail_boot(s, EX_TIMEOUT, msg);
		stop_start(s, 1);
	} else if (s->stop != STOP_NONE && now >= s->stop_deadline) {
		stop_start(s, s->stop == STOP_HALT);
	}
	if (*s->fail && s->stop == STOP_NONE)
		stop_start(s, 0);
}

/**
 * loop() - the event loop, until UML has exited
 * @s:		supervisor
 */
void loop(struct sup *s)
{
	struct pollset ps;

	while (!s->uml_done) {
		poll_build(s, &ps);
		if (poll(ps.p, ps.n, poll_timeout(s)) < 0 && errno != EINTR)
			break;
		poll_dispatch(s, &ps);
		deadlines(s);
	}
	/* drain the last console output */
	while (s->cons_fd >= 0 && console_in(s) == 0) {
		struct pollfd p = { .fd = s->cons_fd, .events = POLLIN };

		if (poll(&p, 1, 0) <= 0)
			break;
	}
}
