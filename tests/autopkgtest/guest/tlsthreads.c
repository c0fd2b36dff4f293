// SPDX-License-Identifier: GPL-2.0
/*
 * tlsthreads.c - 200 threads keep their thread-local storage and their
 * thread pointer across futex waits, sched_yield and timer signals in a UML
 * guest (arm64 and x86_64)
 *
 * Every thread fills its __thread block (its index, its kernel tid, a canary,
 * its own address, the thread pointer) and then, per round, meets the others
 * at a barrier made of raw futexes, yields twice, meets them again at a
 * barrier made of a pthread mutex and condition variable (adding to a shared
 * sum that must be exact), and spins while SIGALRM arrives every 2 ms.  The
 * thread checks its block and its thread pointer (tpidr_el0 on arm64, the
 * TCB's self-pointer at %fs:0 on x86_64) against values kept on its stack
 * after every futex wait, condition wait, sched_yield and spin; the signal
 * handler checks the interrupted thread's block against gettid().
 *
 * On arm64 each round also has a window in which the thread writes a
 * sentinel into tpidr_el0 with msr, as a program may without any syscall,
 * and then, with no libc call while it is set, issues raw getppid and
 * sched_yield svcs and spins long enough for timer signals (the handler
 * sees the sentinel and touches no TLS), reads tpidr_el0 back and restores
 * it: the kernel must keep what the thread wrote across every kernel entry.
 *
 * Usage: tlsthreads [ROUNDS]   (20 by default; always 200 threads)
 *
 * Prints TLSTHREADS-OK threads=200 rounds=N ... or TLSTHREADS-FAIL thread=T
 * round=R after=EVENT what=FIELD want=... got=... (the process then exits at
 * once).  TLSTHREADS_PLANT=tp makes thread 17 load thread 18's thread pointer
 * after its first futex barrier of round 1, as a kernel that restored the
 * wrong thread's would; TLSTHREADS_PLANT=window (arm64) puts the original
 * tpidr_el0 back in the middle of a window, as a kernel that only knew the
 * value of the last syscall would.  Both must fail.  A run in which no
 * signal arrived (or, on arm64, none inside a window) tested nothing and
 * fails.
 *
 * Where one signal costs so much (an emulator, ptrace mode there) that a
 * 2 ms timer alone would take more than MAX_LOAD of the machine, the tick
 * is stretched (sigcost.h); the OK line says by how much.
 */
#define _GNU_SOURCE
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <unistd.h>

#include "sigcost.h"

#if !defined(__aarch64__) && !defined(__x86_64__)
#error "tlsthreads knows the thread pointer of aarch64 and x86_64"
#endif

#define NTHREADS	200
#define STACK_SIZE	(256 * 1024)
#define TICK_US		2000
#define MAX_LOAD	0.25	/* of the machine's time, at raise() cost */
#define MAX_STRETCH	50	/* of TICK_US: 100 ms at most */
#define SPIN		100000
#define WINDOW_LOOPS	4
#define WINDOW_TAG	0x5e47UL	/* top 16 bits of a window's sentinel */
#define PLANT_THREAD	17
#define PLANT_ROUND	1
#define TDATA_INIT	0x7d47a7a0c0ffee00ULL

#define STR(x)		#x
#define XSTR(x)		STR(x)

/**
 * struct tls_self - what a thread keeps in its thread-local storage
 * @id:		its index (0..NTHREADS-1)
 * @tid:	its kernel thread id
 * @canary:	mix(@id)
 * @self:	the address of this block as the thread first saw it
 * @tp:		its thread pointer then
 * @fill:	mix(@id + k), a few words more that must not change
 */
struct tls_self {
	unsigned int id;
	pid_t tid;
	uint64_t canary;
	void *self;
	uintptr_t tp;
	uint64_t fill[8];
};

static __thread struct tls_self me;
/* .tdata: a thread's copy starts as the initialisation image, never written */
static __thread volatile uint64_t tdata_probe = TDATA_INIT;

enum plant { PLANT_NONE, PLANT_TP, PLANT_WINDOW };

static enum plant plant;
static unsigned long rounds = 20;
static uintptr_t thread_tps[NTHREADS];
static unsigned long signals, window_signals;
static int failed;

/* thread_pointer() - the hardware thread pointer as this thread sees it now */
static inline uintptr_t thread_pointer(void)
{
	uintptr_t tp;

#ifdef __aarch64__
	__asm__ volatile("mrs %0, tpidr_el0" : "=r"(tp));
#else
	__asm__ volatile("mov %%fs:0, %0" : "=r"(tp));
#endif
	return tp;
}

/* set_thread_pointer() - load @tp as the thread pointer (for the plant) */
static void set_thread_pointer(uintptr_t tp)
{
#ifdef __aarch64__
	__asm__ volatile("msr tpidr_el0, %0" :: "r"(tp) : "memory");
#else
	syscall(SYS_arch_prctl, 0x1002 /* ARCH_SET_FS */, tp);
#endif
}

/* mix() - splitmix64: a well-spread 64-bit value from any input */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/*
 * Output that needs neither TLS nor locks (no stdio, no errno): a thread
 * whose TLS is broken, and a signal handler, can still report.
 */
struct line {
	char buf[256];
	size_t len;
};

/* put() - append a string to @l */
static void put(struct line *l, const char *s)
{
	while (*s && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = *s++;
}

/* put_num() - append @v in decimal, or in hex with 0x if @hex */
static void put_num(struct line *l, uint64_t v, int hex)
{
	char tmp[24];
	int i = 0;

	do {
		tmp[i++] = "0123456789abcdef"[v % (hex ? 16 : 10)];
		v /= hex ? 16 : 10;
	} while (v);
	if (hex)
		put(l, "0x");
	while (i && l->len < sizeof(l->buf) - 1)
		l->buf[l->len++] = tmp[--i];
}

/* emit() - write @l and a newline to stdout with a raw syscall */
static void emit(struct line *l)
{
	l->buf[l->len++] = '\n';
	syscall(SYS_write, 1, l->buf, l->len);
}

/**
 * fail() - print TLSTHREADS-FAIL for the first mismatch and end the process
 * (the other 199 threads would wait at the next barrier for ever)
 * @id:		thread index, as the thread knows it from its stack
 * @round:	round
 * @after:	the event after which the check ran
 * @what:	the field that lost its value
 * @want:	what it should hold
 * @got:	what it held
 */
static void fail(unsigned int id, unsigned long round, const char *after,
		 const char *what, uint64_t want, uint64_t got)
{
	struct line l = { .len = 0 };

	if (__atomic_exchange_n(&failed, 1, __ATOMIC_ACQ_REL))
		for (;;)
			pause();
	put(&l, "TLSTHREADS-FAIL thread=");
	put_num(&l, id, 0);
	put(&l, " round=");
	put_num(&l, round, 0);
	put(&l, " after=");
	put(&l, after);
	put(&l, " what=");
	put(&l, what);
	put(&l, " want=");
	put_num(&l, want, 1);
	put(&l, " got=");
	put_num(&l, got, 1);
	emit(&l);
	syscall(SYS_exit_group, 1);
}

/**
 * struct ctx - what a thread knows from its stack, not from its TLS
 * @id:		its index
 * @round:	the current round
 * @tp:		its thread pointer as it first read it
 */
struct ctx {
	unsigned int id;
	unsigned long round;
	uintptr_t tp;
};

/**
 * verify() - the thread's TLS block and thread pointer must be its own
 * @c:		what the thread knows from its stack
 * @after:	the event just returned from (for the report)
 */
static void verify(const struct ctx *c, const char *after)
{
	uintptr_t tp = thread_pointer();
	int k;

	if (tp != c->tp)
		fail(c->id, c->round, after, "thread_pointer", c->tp, tp);
	if (me.id != c->id)
		fail(c->id, c->round, after, "id", c->id, me.id);
	if (me.canary != mix(c->id))
		fail(c->id, c->round, after, "canary", mix(c->id), me.canary);
	if (me.self != &me)
		fail(c->id, c->round, after, "self", (uintptr_t)&me,
		     (uintptr_t)me.self);
	if (me.tp != c->tp)
		fail(c->id, c->round, after, "tls_tp", c->tp, me.tp);
	for (k = 0; k < 8; k++)
		if (me.fill[k] != mix(c->id + 1000 * (k + 1)))
			fail(c->id, c->round, after, "fill",
			     mix(c->id + 1000 * (k + 1)), me.fill[k]);
	if (tdata_probe != TDATA_INIT)
		fail(c->id, c->round, after, "tdata", TDATA_INIT, tdata_probe);
}

/**
 * on_alarm() - SIGALRM: the interrupted thread's TLS must be its own
 * @sig:	signal number
 *
 * Inside an arm64 window tpidr_el0 holds the sentinel and TLS is out of
 * reach: only a global counter is touched then.
 */
static void on_alarm(int sig)
{
	uintptr_t tp = thread_pointer();
	pid_t tid;

	(void)sig;
	if (tp >> 48 == WINDOW_TAG) {
		__atomic_add_fetch(&window_signals, 1, __ATOMIC_RELAXED);
		return;
	}
	__atomic_add_fetch(&signals, 1, __ATOMIC_RELAXED);
	if (!me.self)	/* the main thread, or a worker not yet set up */
		return;
	tid = syscall(SYS_gettid);
	if (me.tid != tid)
		fail(me.id, 0, "signal", "tid", tid, me.tid);
	if (me.self != &me || me.tp != tp)
		fail(me.id, 0, "signal", "tls_tp", tp, me.tp);
	if (me.canary != mix(me.id))
		fail(me.id, 0, "signal", "canary", mix(me.id), me.canary);
}

/* futex() - the raw system call, errors ignored (callers loop) */
static void futex(unsigned int *uaddr, int op, unsigned int val)
{
	syscall(SYS_futex, uaddr, op, val, NULL, NULL, 0);
}

/* The round's first barrier: raw futexes on a generation counter */
static struct {
	unsigned int count;
	unsigned int gen;
} fbar;

/**
 * futex_barrier() - wait until all threads arrived; the last one wakes them
 * @c:		the caller's context; its TLS is checked after every wait
 */
static void futex_barrier(const struct ctx *c)
{
	unsigned int gen = __atomic_load_n(&fbar.gen, __ATOMIC_ACQUIRE);

	if (__atomic_add_fetch(&fbar.count, 1, __ATOMIC_ACQ_REL) == NTHREADS) {
		__atomic_store_n(&fbar.count, 0, __ATOMIC_RELAXED);
		__atomic_store_n(&fbar.gen, gen + 1, __ATOMIC_RELEASE);
		futex(&fbar.gen, FUTEX_WAKE_PRIVATE, INT_MAX);
		return;
	}
	while (__atomic_load_n(&fbar.gen, __ATOMIC_ACQUIRE) == gen) {
		futex(&fbar.gen, FUTEX_WAIT_PRIVATE, gen);
		verify(c, "futex-wait");
	}
}

/* The round's second barrier: a mutex, a condition and a shared sum */
static struct {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned int arrived;
	unsigned long gen;
	unsigned long sum;
} cbar = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, 0, 0, 0 };

/**
 * cond_barrier() - add id + 1 to the sum and wait for all threads; the sum
 * must then be exact (no other thread can start the next round's additions
 * before this one passed the next futex barrier)
 * @c:		the caller's context; its TLS is checked after every wait
 */
static void cond_barrier(const struct ctx *c)
{
	unsigned long want = (c->round + 1) * (NTHREADS * (NTHREADS + 1) / 2);
	unsigned long gen;

	pthread_mutex_lock(&cbar.lock);
	cbar.sum += c->id + 1;
	gen = cbar.gen;
	if (++cbar.arrived == NTHREADS) {
		cbar.arrived = 0;
		cbar.gen++;
		pthread_cond_broadcast(&cbar.cond);
	}
	while (cbar.gen == gen) {
		pthread_cond_wait(&cbar.cond, &cbar.lock);
		verify(c, "cond-wait");
	}
	if (cbar.sum != want)
		fail(c->id, c->round, "cond-wait", "sum", want, cbar.sum);
	pthread_mutex_unlock(&cbar.lock);
}

/* spin() - burn time without a syscall, for the timer to interrupt */
static void spin(unsigned long n)
{
	while (n--)
		__asm__ volatile("" ::: "memory");
}

#ifdef __aarch64__
/**
 * tp_window() - run with a sentinel in tpidr_el0: raw getppid and
 * sched_yield svcs and spins, no libc; read it back, restore the original
 * @c:		the caller's context
 */
static void tp_window(const struct ctx *c)
{
	uintptr_t sentinel = WINDOW_TAG << 48 | (uintptr_t)c->id << 24 | c->round;
	uintptr_t revert = plant == PLANT_WINDOW && c->id == PLANT_THREAD &&
			   c->round == PLANT_ROUND;
	uintptr_t got;

	__asm__ volatile(
		"	msr	tpidr_el0, %[sentinel]\n"
		"	mov	x10, #" XSTR(WINDOW_LOOPS) "\n"
		"1:	mov	x8, #" XSTR(SYS_getppid) "\n"
		"	svc	#0\n"
		"	mov	x8, #" XSTR(SYS_sched_yield) "\n"
		"	svc	#0\n"
		"	mov	x11, %[spin]\n"
		"2:	subs	x11, x11, #1\n"
		"	b.ne	2b\n"
		"	cbz	%[revert], 3f\n"
		"	msr	tpidr_el0, %[orig]\n"	/* the planted fault */
		"3:	subs	x10, x10, #1\n"
		"	b.ne	1b\n"
		"	mrs	%[got], tpidr_el0\n"
		"	msr	tpidr_el0, %[orig]\n"
		: [got] "=&r"(got)
		: [sentinel] "r"(sentinel), [orig] "r"(c->tp),
		  [spin] "r"((unsigned long)SPIN), [revert] "r"(revert)
		: "x0", "x8", "x10", "x11", "memory", "cc");
	if (got != sentinel)
		fail(c->id, c->round, "window", "tpidr_el0", sentinel, got);
}
#endif

/**
 * setup_tls() - fill the thread's block; keep its thread pointer for the
 * plant
 * @c:		the caller's context (@c->tp is set here)
 */
static void setup_tls(struct ctx *c)
{
	int k;

	c->tp = thread_pointer();
	me.id = c->id;
	me.tid = syscall(SYS_gettid);
	me.canary = mix(c->id);
	me.tp = c->tp;
	for (k = 0; k < 8; k++)
		me.fill[k] = mix(c->id + 1000 * (k + 1));
	__atomic_store_n(&me.self, &me, __ATOMIC_RELEASE);
	thread_tps[c->id] = c->tp;
}

/**
 * work() - one thread's rounds
 * @arg:	its index
 *
 * Return: NULL
 */
static void *work(void *arg)
{
	struct ctx c = { .id = (unsigned int)(uintptr_t)arg };
	sigset_t alarm;

	setup_tls(&c);
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_sigmask(SIG_UNBLOCK, &alarm, NULL);
	futex_barrier(&c);	/* every thread_tps[] is set after this */
	for (c.round = 0; c.round < rounds; c.round++) {
		futex_barrier(&c);
		verify(&c, "futex-barrier");
		if (plant == PLANT_TP && c.id == PLANT_THREAD &&
		    c.round == PLANT_ROUND) {
			set_thread_pointer(thread_tps[c.id + 1]);
			verify(&c, "futex-barrier(planted)");
		}
		sched_yield();
		verify(&c, "sched_yield");
		sched_yield();
		verify(&c, "sched_yield");
		cond_barrier(&c);
#ifdef __aarch64__
		tp_window(&c);
		verify(&c, "window");
#endif
		spin(SPIN);
		verify(&c, "spin");
	}
	return NULL;
}

static unsigned long tick_us = TICK_US;	/* stretched where signals cost */
static double raise_cost;		/* seconds per handled raise() */

/* tick() - SIGALRM every tick_us to on_alarm(), or none if !@on */
static void tick(int on)
{
	long us = on ? (long)tick_us : 0;
	struct itimerval t = { { us / 1000000, us % 1000000 }, { us / 1000000, us % 1000000 } };
	struct sigaction sa = { .sa_handler = on_alarm, .sa_flags = SA_RESTART };

	if (on)
		sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &t, NULL);
}

int main(int argc, char **argv)
{
	const char *p = getenv("TLSTHREADS_PLANT");
	pthread_t threads[NTHREADS];
	struct timespec t0, t1;
	pthread_attr_t attr;
	sigset_t alarm;
	unsigned int i;
	int rc;

	if (argc > 2 || (argc == 2 && (rounds = strtoul(argv[1], NULL, 0)) < 2)) {
		fprintf(stderr, "usage: tlsthreads [ROUNDS (>= 2)]\n");
		return 2;
	}
	if (p && *p) {
		plant = !strcmp(p, "tp") ? PLANT_TP : !strcmp(p, "window") ? PLANT_WINDOW : PLANT_NONE;
#ifndef __aarch64__
		if (plant == PLANT_WINDOW)
			plant = PLANT_NONE;
#endif
		if (plant == PLANT_NONE) {
			fprintf(stderr, "tlsthreads: TLSTHREADS_PLANT=%s: use tp or (arm64) window\n", p);
			return 2;
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	printf("tlsthreads: %d threads, %lu rounds%s\n", NTHREADS, rounds,
	       plant ? ", planted fault on" : "");
	/* the signals go to the workers, which unblock them */
	sigemptyset(&alarm);
	sigaddset(&alarm, SIGALRM);
	pthread_sigmask(SIG_BLOCK, &alarm, NULL);
	raise_cost = sigcost_raise();
	tick_us = TICK_US * sigcost_stretch(raise_cost, 1.0 / TICK_US, MAX_LOAD, MAX_STRETCH);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	tick(1);
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	for (i = 0; i < NTHREADS; i++) {
		rc = pthread_create(&threads[i], &attr, work, (void *)(uintptr_t)i);
		if (rc) {
			printf("TLSTHREADS-FAIL pthread_create of thread %u: %s\n",
			       i, strerror(rc));
			return 1;
		}
	}
	for (i = 0; i < NTHREADS; i++)
		pthread_join(threads[i], NULL);
	tick(0);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!signals) {
		printf("TLSTHREADS-FAIL no timer signal arrived: nothing was tested\n");
		return 1;
	}
#ifdef __aarch64__
	if (!window_signals) {
		printf("TLSTHREADS-FAIL no timer signal landed in a tpidr_el0 window (signals=%lu)\n",
		       signals);
		return 1;
	}
#endif
	printf("TLSTHREADS-OK threads=%d rounds=%lu signals=%lu window_signals=%lu seconds=%.1f "
	       "raise=%.0fus tick=%luus\n",
	       NTHREADS, rounds, signals, window_signals,
	       (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       raise_cost * 1e6, tick_us);
	return 0;
}
