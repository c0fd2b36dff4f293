// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sigstorm.c - fast timers reach syscall-free code, and the program under
 * them still gets its work done
 *
 * THREADS threads each alternate a short syscall-free loop (spin_loop,
 * calibrated to SPIN_US of the program's own time before the timers start)
 * with a clock_gettime() call, ROUNDS times.  Meanwhile a ~1 kHz
 * ITIMER_REAL (SIGALRM) and a 0.7 ms ITIMER_PROF (SIGPROF) fire.  The main
 * thread blocks both, so they land on the workers.
 *
 * Each handler looks at the interrupted pc: inside spin_loop means the
 * kernel delivered the signal on a return to user mode from an interrupt,
 * not only at a syscall exit.  A kernel whose signal delivery costs more
 * than the timers leave between two signals livelocks: the workers never
 * get through their loops.
 *
 * Both periods are stretched on a machine where one signal costs so much
 * (an emulator; ptrace mode there) that the two timers alone would take
 * more than MAX_LOAD of its time: no kernel could keep up there, and a
 * livelock would say nothing about this one.  The cost is measured with
 * raise() before the timers start; a timer signal costs more (it comes
 * through the interrupt path), so the storm stays heavy.  Natively the
 * periods are as above.  Stretched periods bring few signals (a hundred or
 * two of each when a loaded emulator stretches them 70 times): workers that
 * have done their ROUNDS go on with the same rounds until both signals have
 * been seen inside spin_loop, or the deadline.
 *
 * Verdict: "SIGSTORM_OK ..." when every worker finished its ROUNDS within
 * the deadline (SLACK times the calibrated work, at least MIN_DEADLINE_S
 * seconds) and both signals were seen inside spin_loop by then; otherwise
 * "SIGSTORM_FAIL <why> ...".  The factor is the ROUNDS' elapsed time.
 * Both lines carry the figures: signals handled, how many inside the loop,
 * signals per second, the elapsed time as a multiple of the work, the cost
 * of a raise()d signal and the stretch of the periods.
 *
 * Usage: sigstorm [SLACK]   (default 30)
 *
 * SIGSTORM_PLANT=mask blocks both signals around every spin_loop(), as a
 * kernel that delivered signals only at syscall exits would look: the
 * verdict must be SIGSTORM_FAIL no-signal-in-loop (at the deadline).
 */
#define _GNU_SOURCE
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "sigcost.h"

#define THREADS		4
#define SPIN_US		200
#define ROUNDS		2500	/* 0.5 s of spinning per worker */
/*
 * ITIMER_REAL is an hrtimer, ITIMER_PROF fires from the tick.  A period that
 * divides the tick's (1 ms, with HZ 100 to 1000) can lock ITIMER_REAL to the
 * tick: then every SIGPROF is queued with a SIGALRM, gets delivered on top of
 * its handler frame, and none is ever seen inside spin_loop.  997 us drifts
 * 3 us per period against any such tick.
 */
#define REAL_US		997
#define PROF_US		700
#define MIN_DEADLINE_S	20
#define MAX_LOAD	0.25	/* of the machine's time, at raise() cost */
#define MAX_STRETCH	100

/*
 * spin_loop(n): n turns of a two-instruction loop with no memory access
 * and no syscall; spin_loop_end marks its last byte for the handlers
 */
#if defined(__aarch64__)
#define FRAME_PC(uc) ((uc)->uc_mcontext.pc)
__asm__(".text\n.globl spin_loop\n.type spin_loop,%function\nspin_loop:\n"
	"1: subs x0, x0, #1\n b.ne 1b\n ret\n"
	".globl spin_loop_end\nspin_loop_end:\n");
#elif defined(__x86_64__)
#define FRAME_PC(uc) ((uc)->uc_mcontext.gregs[REG_RIP])
__asm__(".text\n.globl spin_loop\n.type spin_loop,@function\nspin_loop:\n"
	"1: dec %rdi\n jnz 1b\n ret\n"
	".globl spin_loop_end\nspin_loop_end:\n");
#else
#error "sigstorm.c knows aarch64 and x86_64"
#endif
void spin_loop(unsigned long n);
extern const char spin_loop_end[];

static atomic_ulong handled[2], in_loop[2];	/* [0] SIGALRM, [1] SIGPROF */
static atomic_int finished;		/* workers through their ROUNDS */
static atomic_int done;			/* workers gone */
static atomic_int give_up;		/* the deadline has passed */
static double rounds_end;		/* when the last worker finished */
static int plant_mask;			/* SIGSTORM_PLANT=mask */
static sigset_t timer_set;		/* SIGALRM and SIGPROF */
static unsigned long spin_turns;
static unsigned int stretch = 1;	/* of REAL_US and PROF_US */
static double raise_cost;		/* seconds per handled raise() */

/* on_timer: count the signal, and whether it interrupted spin_loop */
static void on_timer(int sig, siginfo_t *si, void *ucv)
{
	ucontext_t *uc = ucv;
	uintptr_t pc = FRAME_PC(uc);
	int which = sig == SIGPROF;

	(void)si;
	atomic_fetch_add(&handled[which], 1);
	if (pc >= (uintptr_t)spin_loop && pc < (uintptr_t)spin_loop_end)
		atomic_fetch_add(&in_loop[which], 1);
}

/* time_spin: seconds that spin_loop(turns) takes */
static double time_spin(unsigned long turns)
{
	double t = sigcost_now();

	spin_loop(turns);
	return sigcost_now() - t;
}

/*
 * calibrate: spin_turns for SPIN_US, before any timer runs: the turns that
 * take over 50 ms, then the fastest of five runs of them (an emulator
 * translates the loop on its first runs)
 */
static void calibrate(void)
{
	unsigned long turns = 1UL << 16;
	double t, best;
	int i;

	while (time_spin(turns) < 0.05 && turns < (1UL << 40))
		turns *= 2;
	best = time_spin(turns);
	for (i = 0; i < 4; i++) {
		t = time_spin(turns);
		if (t < best)
			best = t;
	}
	spin_turns = (unsigned long)(turns * (SPIN_US / 1e6) / best) + 1;
}

/*
 * measure_signals: the cost of a raise()d and handled signal, and the
 * stretch of the periods that keeps the timers' load at MAX_LOAD of the
 * machine at that cost
 */
static void measure_signals(void)
{
	raise_cost = sigcost_raise();
	stretch = sigcost_stretch(raise_cost, 1.0 / REAL_US + 1.0 / PROF_US,
				  MAX_LOAD, MAX_STRETCH);
}

/* period: @us microseconds as an interval timer's value */
static struct timeval period(unsigned long us)
{
	struct timeval tv = { us / 1000000, us % 1000000 };

	return tv;
}

/* spin: spin_loop(spin_turns), with the timers blocked if planted */
static void spin(void)
{
	if (plant_mask)
		pthread_sigmask(SIG_BLOCK, &timer_set, NULL);
	spin_loop(spin_turns);
	if (plant_mask)
		pthread_sigmask(SIG_UNBLOCK, &timer_set, NULL);
}

/* seen_both: both signals have interrupted spin_loop */
static int seen_both(void)
{
	return atomic_load(&in_loop[0]) && atomic_load(&in_loop[1]);
}

/*
 * worker: the rounds of spin and clock_gettime() the timers interrupt;
 * after ROUNDS, more of them until both signals were seen in the loop
 */
static void *worker(void *arg)
{
	struct timespec ts;
	int i;

	(void)arg;
	for (i = 0; i < ROUNDS; i++) {
		spin();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	}
	if (atomic_fetch_add(&finished, 1) == THREADS - 1)
		rounds_end = sigcost_now();
	while (!seen_both() && !atomic_load(&give_up)) {
		spin();
		clock_gettime(CLOCK_MONOTONIC, &ts);
	}
	atomic_fetch_add(&done, 1);
	return NULL;
}

/* arm: install the handlers and start both interval timers */
static void arm(void)
{
	struct sigaction sa = { .sa_sigaction = on_timer, .sa_flags = SA_SIGINFO | SA_RESTART };
	struct itimerval real, prof;

	real.it_interval = real.it_value = period((unsigned long)REAL_US * stretch);
	prof.it_interval = prof.it_value = period((unsigned long)PROF_US * stretch);

	sigaction(SIGALRM, &sa, NULL);
	sigaction(SIGPROF, &sa, NULL);
	setitimer(ITIMER_REAL, &real, NULL);
	setitimer(ITIMER_PROF, &prof, NULL);
}

/* report: the verdict line with every figure; returns the exit status */
static int report(const char *why, double elapsed, double work)
{
	unsigned long n = handled[0] + handled[1];

	printf("SIGSTORM_%s%s%s finished=%d/%d elapsed=%.1fs work=%.1fs factor=%.1f "
	       "alrm=%lu/%lu prof=%lu/%lu (in loop/handled) rate=%.0f/s "
	       "raise=%.0fus stretch=%u\n",
	       why ? "FAIL" : "OK", why ? " " : "", why ? why : "",
	       atomic_load(&finished), THREADS, elapsed, work, elapsed / work,
	       in_loop[0], handled[0], in_loop[1], handled[1], n / elapsed,
	       raise_cost * 1e6, stretch);
	return why ? 1 : 0;
}

int main(int argc, char **argv)
{
	double slack = argc > 1 ? atof(argv[1]) : 30, start, work, deadline;
	struct timespec tick = { 0, 100 * 1000 * 1000 };
	pthread_t tid[THREADS];
	const char *plant = getenv("SIGSTORM_PLANT");
	int i;

	setvbuf(stdout, NULL, _IONBF, 0);
	calibrate();
	measure_signals();
	work = THREADS * ROUNDS * SPIN_US / 1e6;
	deadline = work * slack > MIN_DEADLINE_S ? work * slack : MIN_DEADLINE_S;
	plant_mask = plant && !strcmp(plant, "mask");
	sigemptyset(&timer_set);
	sigaddset(&timer_set, SIGALRM);
	sigaddset(&timer_set, SIGPROF);
	arm();
	start = sigcost_now();
	for (i = 0; i < THREADS; i++)
		if (pthread_create(&tid[i], NULL, worker, NULL))
			return report("pthread_create", 1, work);
	pthread_sigmask(SIG_BLOCK, &timer_set, NULL);
	while (atomic_load(&done) < THREADS && sigcost_now() - start < deadline)
		nanosleep(&tick, NULL);
	if (atomic_load(&finished) < THREADS)
		return report("livelock", sigcost_now() - start, work);
	atomic_store(&give_up, 1);
	for (i = 0; i < THREADS; i++)
		pthread_join(tid[i], NULL);
	if (!seen_both())
		return report("no-signal-in-loop", sigcost_now() - start, work);
	return report(NULL, rounds_end - start, work);
}
