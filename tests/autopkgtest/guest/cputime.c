// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * cputime.c - the guest kernel accounts user code's time as user time
 *
 * A program that only computes spends its CPU time in user mode: the
 * kernel must say so (getrusage()'s ru_utime, what time(1), ps and top
 * show) and must run the timers that count user time alone
 * (ITIMER_VIRTUAL) or user and system time (ITIMER_PROF).  In UML the
 * tick that takes these samples runs on the kernel's host thread while
 * the user code runs in its stub: a tick that does not know the user code
 * was running accounts all of it as system time, and ITIMER_VIRTUAL never
 * fires.
 *
 * The program computes for COMPUTE_NS of its own CPU time
 * (CLOCK_PROCESS_CPUTIME_ID) with both timers armed, then checks that at
 * least USER_SHARE_MIN percent of the time getrusage() reports is user
 * time and that each timer fired at least TIMER_FIRINGS_MIN times.  The
 * limits leave room for ticks that find the kernel busy (under an
 * emulator a tick's own work is dear); the failure they catch is a user
 * time of zero.
 *
 * Prints "CPUTIME_OK ..." or "CPUTIME_FAIL <what>".
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <time.h>

#define NS_PER_SEC 1000000000LL
#define COMPUTE_NS (600 * 1000000LL)
#define TIMER_PERIOD_US 20000
#define USER_SHARE_MIN 50
/* 600 ms at 20 ms is 30 firings; a tick is 10 ms at HZ=100 */
#define TIMER_FIRINGS_MIN 5

static volatile sig_atomic_t virtual_firings, prof_firings;

/* Count the firings of each timer; the checks read them at the end */
static void on_timer(int sig)
{
	if (sig == SIGVTALRM)
		virtual_firings++;
	else
		prof_firings++;
}

/* The process's CPU time in ns, as the kernel keeps it (user + system) */
static long long cpu_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * NS_PER_SEC + ts.tv_nsec;
}

/* A periodic timer of clock WHICH with signal SIG caught by on_timer() */
static int arm_timer(int which, int sig)
{
	struct itimerval period = {
		.it_interval = { .tv_usec = TIMER_PERIOD_US },
		.it_value = { .tv_usec = TIMER_PERIOD_US },
	};
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_timer;
	sa.sa_flags = SA_RESTART;
	if (sigaction(sig, &sa, NULL) || setitimer(which, &period, NULL)) {
		perror("CPUTIME_FAIL arming a timer");
		return -1;
	}
	return 0;
}

/*
 * Pure arithmetic for @ns of CPU time; the only kernel entries are the
 * CPU-time reads (no vDSO serves CLOCK_PROCESS_CPUTIME_ID), one per
 * 100000 steps
 */
static void compute(long long ns)
{
	volatile unsigned long x = 1;
	long long start = cpu_ns();
	int i;

	while (cpu_ns() - start < ns)
		for (i = 0; i < 100000; i++)
			x = x * 6364136223846793005UL + 1442695040888963407UL;
}

/* tv as ms */
static long long ms_of(struct timeval tv)
{
	return tv.tv_sec * 1000LL + tv.tv_usec / 1000;
}

int main(void)
{
	long long user_ms, system_ms;
	struct rusage ru;

	if (arm_timer(ITIMER_VIRTUAL, SIGVTALRM) ||
	    arm_timer(ITIMER_PROF, SIGPROF))
		return 1;
	compute(COMPUTE_NS);
	getrusage(RUSAGE_SELF, &ru);
	user_ms = ms_of(ru.ru_utime);
	system_ms = ms_of(ru.ru_stime);

	if (user_ms * 100 < (user_ms + system_ms) * USER_SHARE_MIN) {
		printf("CPUTIME_FAIL user time %lld ms of %lld ms of computing (want >= %d%%)\n",
		       user_ms, user_ms + system_ms, USER_SHARE_MIN);
		return 1;
	}
	if (virtual_firings < TIMER_FIRINGS_MIN ||
	    prof_firings < TIMER_FIRINGS_MIN) {
		printf("CPUTIME_FAIL ITIMER_VIRTUAL fired %d times, ITIMER_PROF %d (want >= %d each)\n",
		       (int)virtual_firings, (int)prof_firings,
		       TIMER_FIRINGS_MIN);
		return 1;
	}
	printf("CPUTIME_OK user %lld ms system %lld ms ITIMER_VIRTUAL %d ITIMER_PROF %d\n",
	       user_ms, system_ms, (int)virtual_firings, (int)prof_firings);
	return 0;
}
