// SPDX-License-Identifier: GPL-2.0
/*
 * case_signal.c - what one signal delivery costs: a signal a thread sends
 * itself (signal), and a timer signal that interrupts syscall-free code
 * (tick)
 *
 * signal is tgkill() + delivery + the handler + rt_sigreturn: two syscalls
 * and a delivery, so syscall's figure tells what the delivery adds.  tick
 * spins with no syscall under a 1 kHz ITIMER_REAL until OPS signals were
 * handled: its time is the timer's period, its census (host operations per
 * signal) is the point: the guest kernel must stop the running process,
 * take the interrupt, build the signal frame and resume it, which is what
 * a guest under fast timers pays per signal (issue 22, item 3).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <unistd.h>

#include "perfbench.h"

#define TICK_US		1000

static volatile sig_atomic_t delivered;

/* on_signal() - the handler: count, then return through rt_sigreturn */
static void on_signal(int sig)
{
	(void)sig;
	delivered++;
}

/* catch_signal() - install on_signal for @sig; Return: 0 or -errno */
static int catch_signal(int sig)
{
	struct sigaction sa = { .sa_handler = on_signal };

	return sigaction(sig, &sa, NULL) ? -errno : 0;
}

/**
 * case_signal() - @ops signals this thread sends itself and handles
 * @ops:	signals
 * @s:		result
 *
 * Return: 0, or -errno when the handler cannot be installed
 */
int case_signal(long ops, struct sample *s)
{
	pid_t pid = getpid(), tid = (pid_t)syscall(SYS_gettid);
	uint64_t t0;
	long i;
	int err;

	err = catch_signal(SIGUSR1);
	if (err)
		return err;
	t0 = now_ns();
	for (i = 0; i < ops; i++)
		syscall(SYS_tgkill, pid, tid, SIGUSR1);
	s->ns_total = now_ns() - t0;
	signal(SIGUSR1, SIG_DFL);
	return 0;
}

/* set_tick() - start (@us > 0) or stop (0) the ITIMER_REAL of tick */
static int set_tick(long us)
{
	struct itimerval it = { { 0, us }, { 0, us } };

	return setitimer(ITIMER_REAL, &it, NULL) ? -errno : 0;
}

/**
 * case_tick() - spin without a syscall until @ops timer signals arrived
 * @ops:	signals
 * @s:		result (about @ops timer periods)
 *
 * Return: 0, or -errno when the timer or the handler cannot be set
 */
int case_tick(long ops, struct sample *s)
{
	uint64_t t0;
	int err;

	err = catch_signal(SIGALRM);
	if (!err)
		err = set_tick(TICK_US);
	if (err)
		return err;
	delivered = 0;
	t0 = now_ns();
	while (delivered < ops)
		;
	s->ns_total = now_ns() - t0;
	set_tick(0);
	signal(SIGALRM, SIG_DFL);
	return 0;
}
