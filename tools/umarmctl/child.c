// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * child.c - the signal state, umask and open-file limit of the programs the
 * supervisor starts
 *
 * The supervisor blocks SIGCHLD, SIGTERM, SIGINT and SIGHUP (it reads them
 * from a signalfd) and ignores SIGPIPE.  A blocked mask and ignored
 * signals survive fork() and execve(): a passt started with them never
 * sees a SIGTERM, neither ours (net_stop()) nor its PR_SET_PDEATHSIG, and
 * kept the host ports it forwards after a kill -9 of the supervisor.  So
 * every child resets both between fork() and execve().
 *
 * That is not enough for passt: PR_SET_PDEATHSIG does not survive its
 * sandboxing (it still ran after a kill -9 of its parent, as root and as
 * an ordinary user, passt 2025), so a passt that does not exit by itself
 * (vhost-user without --one-off) gets a watcher: a forked umarmctl that
 * does nothing but wait for the supervisor's death and then stop passt.
 */

#define _GNU_SOURCE
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "child.h"

/* the umask umarmctl was started with, before it set its own 077 */
static mode_t caller_umask = 022;
static int caller_umask_kept;

/**
 * child_umask_keep() - remember the caller's umask, the first time only
 *
 * The supervisor works under umask 077 (its logs, sockets and disks are
 * the owner's alone), but the files the guest creates in a hostfs share
 * are the user's files: they get the umask of the user's shell, or the
 * UMask= of the unit that started the instance, as a program the user
 * ran there would.  Call before the first umask(077).
 */
void child_umask_keep(void)
{
	if (caller_umask_kept)
		return;
	caller_umask = umask(077);
	umask(caller_umask);
	caller_umask_kept = 1;
}

/**
 * child_umask_restore() - give a forked child the caller's umask back
 *
 * Call in the child before execve() of a program that creates files for
 * the guest (the UML kernel's hostfs, virtiofsd).  Its private files are
 * in the instance's 0700 directories either way.
 */
void child_umask_restore(void)
{
	umask(caller_umask);
}

/**
 * child_signals_reset() - give a forked child the default signal state
 *
 * Call in the child before execve(): empty mask, default dispositions
 * (signal() fails harmlessly for SIGKILL, SIGSTOP and the C library's
 * internal real-time signals).
 */
void child_signals_reset(void)
{
	sigset_t none;
	int sig;

	for (sig = 1; sig < NSIG; sig++)
		signal(sig, SIG_DFL);
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
}

/**
 * child_die_with() - make a forked child end when its parent does
 * @parent:	the parent's pid, taken before fork()
 * @sig:	signal the child gets when the parent dies
 *
 * Call after child_signals_reset(), or a blocked @sig stays pending.  If
 * the parent died between fork() and prctl(), PR_SET_PDEATHSIG will never
 * fire (the child was already reparented): getppid() tells, and the child
 * exits at once.  PR_SET_PDEATHSIG is cleared when the child's
 * credentials change (a setuid exec, passt dropping to nobody as root).
 */
void child_die_with(pid_t parent, int sig)
{
	prctl(PR_SET_PDEATHSIG, sig);
	if (getppid() != parent)
		_exit(127);
}

/* the watched program gets this long to exit after SIGTERM */
#define WATCH_TERM_MS	1000

/**
 * watch_stop() - stop the watched process: SIGTERM, then SIGKILL
 * @pidfd:	pidfd of it, or -1 (kernel before 5.3: signal by pid)
 * @pid:	its pid
 */
static void watch_stop(int pidfd, pid_t pid)
{
	struct pollfd p = { .fd = pidfd, .events = POLLIN };

	if (pidfd < 0) {
		kill(pid, SIGTERM);
		usleep(WATCH_TERM_MS * 1000);
		kill(pid, SIGKILL);
		return;
	}
	/* a pidfd is readable once the process exited */
	if (syscall(SYS_pidfd_send_signal, pidfd, SIGTERM, NULL, 0) ||
	    poll(&p, 1, WATCH_TERM_MS) > 0)
		return;
	syscall(SYS_pidfd_send_signal, pidfd, SIGKILL, NULL, 0);
}

/**
 * child_watch() - stop a child of ours if we die before it
 * @target:	the child, not yet reaped
 *
 * Forks a watcher that keeps no descriptor of ours (a socket or pipe it
 * held would stay open after our death) and sleeps until its
 * PR_SET_PDEATHSIG; its credentials never change, so that one fires.
 * It holds a pidfd of @target (Linux 5.3; a pid before that) taken while
 * @target is our unreaped child, so it cannot signal a recycled pid.
 * Kill the watcher (SIGKILL) before stopping @target the normal way.
 *
 * Return: the watcher's pid, negative errno on failure
 */
pid_t child_watch(pid_t target)
{
	pid_t self = getpid(), pid;
	sigset_t term;
	int pidfd, sig;

	pid = fork();
	if (pid)
		return pid < 0 ? -errno : pid;

	child_signals_reset();
	/* close_range(): Linux 5.9 */
	if (syscall(SYS_close_range, 0U, ~0U, 0U))
		for (sig = 0; sig < 1024; sig++)
			close(sig);
	pidfd = syscall(SYS_pidfd_open, target, 0);
	sigemptyset(&term);
	sigaddset(&term, SIGTERM);
	sigprocmask(SIG_BLOCK, &term, NULL);
	prctl(PR_SET_NAME, "umarmctl-watch");
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() == self)
		sigwait(&term, &sig);
	watch_stop(pidfd, target);
	_exit(0);
}

/**
 * child_nofile_raise() - let a forked child open as many files as the hard
 * limit allows
 *
 * The UML kernel holds a host descriptor for every hostfs mount (its root,
 * resolved once) and for every guest address space (its stub's socket in
 * SECCOMP mode): with 1000 shares the usual soft limit of 1024 ran out,
 * and the guest could start no more processes ("start_userspace :
 * socketpair failed, errno = 24" on its console).  Raising the soft limit
 * to the hard one is what systemd asks of programs that need many files
 * (it keeps the soft limit at 1024 for select()'s sake; UML uses epoll).
 * Call in the child before execve().
 */
void child_nofile_raise(void)
{
	struct rlimit r;

	if (!getrlimit(RLIMIT_NOFILE, &r) && r.rlim_cur < r.rlim_max) {
		r.rlim_cur = r.rlim_max;
		setrlimit(RLIMIT_NOFILE, &r);
	}
}
