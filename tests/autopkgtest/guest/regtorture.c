// SPDX-License-Identifier: GPL-2.0
/*
 * regtorture.c - aarch64 register survival across syscalls, thread switches
 * and signal delivery, for UML guests
 *
 * Every general register x0-x30 that the ABI lets a syscall keep (all but x0,
 * which returns the result), sp, NZCV and all 32 vector registers are loaded
 * with per-thread, per-iteration patterns, then the thread issues a syscall
 * (getppid or sched_yield, so that other threads run in between) and checks
 * that every register still holds its pattern.  A second loop holds the
 * patterns while spinning without any syscall, with SIGALRM arriving every
 * millisecond and its handler clobbering registers: delivery and sigreturn
 * must restore them all.  x7 matters most: arm64 hosts clobber it at every
 * ptrace syscall stop (port-plan 4.2.3).  A last check restarts an
 * interrupted nanosleep: a restart that re-runs the full duration shows as a
 * sleep far longer than asked (port-pitfalls 7).
 *
 * Usage: regtorture [THREADS [ITERATIONS [selftest|stalltest]]]
 * Prints REGTORTURE_OK ... on success, REGTORTURE_FAIL ... on the first
 * mismatch (with the register, the expected and the found value).
 * "selftest" corrupts one found x7 (early, within any time budget) on
 * purpose: the run must then fail.  "stalltest" stops thread 0 after ten
 * iterations until the budget is used up: the run must then fail as
 * stalled.
 *
 * The threads stop early when REGTORTURE_BUDGET seconds (default 240) have
 * passed: on a loaded emulated host a guest signal costs milliseconds and
 * the 1 kHz timer takes most of the CPU, so the run's length depends on the
 * host, not on the guest.  A run cut short still passes if signals kept
 * arriving and every thread was still making progress when the budget ran
 * out: a thread whose last completed iteration is older than a quarter of
 * the budget (at least 20 s; REGTORTURE_STALL sets it) has stalled (a lost wakeup, a signal never
 * delivered) and fails the run with its count instead of hanging the gate.
 * How far a thread got is not a criterion: that measures the host (a loaded
 * CI machine once left the slowest thread at 113 of 2000).  Each thread
 * reports a quarter of the way, and every thread's count and idle time are
 * printed at the end of a run cut short.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <limits.h>
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

#ifndef __aarch64__
#error "regtorture checks aarch64 registers"
#endif

/* struct regblk layout, used by the assembly below: keep in sync */
#define OFF_SP		248
#define OFF_NZCV	256
#define OFF_V		272
#define NZCV_ALL	0xf0000000UL
#define SPIN_NZCV	0x60000000UL	/* Z and C, as "subs" leaves them at 0 */

/**
 * struct regblk - a register file as loaded and as found again
 * @x:		x0..x30
 * @sp:		stack pointer (found only)
 * @nzcv:	condition flags
 * @pad:	keeps @v 16-byte aligned
 * @v:		q0..q31 as two 64-bit halves each
 */
struct regblk {
	uint64_t x[31];
	uint64_t sp;
	uint64_t nzcv;
	uint64_t pad;
	uint64_t v[32][2];
};

_Static_assert(__builtin_offsetof(struct regblk, sp) == OFF_SP, "sp");
_Static_assert(__builtin_offsetof(struct regblk, nzcv) == OFF_NZCV, "nzcv");
_Static_assert(__builtin_offsetof(struct regblk, v) == OFF_V, "v");

/* Save the callee-saved state; the out pointer and x18 at [sp, #160]. */
#define PROLOGUE							\
	"	stp	x29, x30, [sp, #-176]!\n"			\
	"	mov	x29, sp\n"					\
	"	stp	x19, x20, [sp, #16]\n"				\
	"	stp	x21, x22, [sp, #32]\n"				\
	"	stp	x23, x24, [sp, #48]\n"				\
	"	stp	x25, x26, [sp, #64]\n"				\
	"	stp	x27, x28, [sp, #80]\n"				\
	"	stp	d8, d9, [sp, #96]\n"				\
	"	stp	d10, d11, [sp, #112]\n"				\
	"	stp	d12, d13, [sp, #128]\n"				\
	"	stp	d14, d15, [sp, #144]\n"				\
	"	stp	x1, x18, [sp, #160]\n"				\
	"	mov	x9, sp\n"					\
	"	str	x9, [x1, #264]\n"	/* out->pad: sp before */

/* Load everything but x8 from the block at x0; x0 itself last. */
#define LOAD_ALL							\
	"	add	x9, x0, #272\n"					\
	"	ld1	{v0.2d-v3.2d}, [x9], #64\n"			\
	"	ld1	{v4.2d-v7.2d}, [x9], #64\n"			\
	"	ld1	{v8.2d-v11.2d}, [x9], #64\n"			\
	"	ld1	{v12.2d-v15.2d}, [x9], #64\n"			\
	"	ld1	{v16.2d-v19.2d}, [x9], #64\n"			\
	"	ld1	{v20.2d-v23.2d}, [x9], #64\n"			\
	"	ld1	{v24.2d-v27.2d}, [x9], #64\n"			\
	"	ld1	{v28.2d-v31.2d}, [x9], #64\n"			\
	"	ldr	x9, [x0, #256]\n"				\
	"	msr	nzcv, x9\n"					\
	"	ldp	x1, x2, [x0, #8]\n"				\
	"	ldp	x3, x4, [x0, #24]\n"				\
	"	ldp	x5, x6, [x0, #40]\n"				\
	"	ldr	x7, [x0, #56]\n"				\
	"	ldp	x9, x10, [x0, #72]\n"				\
	"	ldp	x11, x12, [x0, #88]\n"				\
	"	ldp	x13, x14, [x0, #104]\n"				\
	"	ldp	x15, x16, [x0, #120]\n"				\
	"	ldp	x17, x18, [x0, #136]\n"				\
	"	ldp	x19, x20, [x0, #152]\n"				\
	"	ldp	x21, x22, [x0, #168]\n"				\
	"	ldp	x23, x24, [x0, #184]\n"				\
	"	ldp	x25, x26, [x0, #200]\n"				\
	"	ldp	x27, x28, [x0, #216]\n"				\
	"	ldp	x29, x30, [x0, #232]\n"				\
	"	ldr	x0, [x0]\n"

/* Store everything to the out block (NZCV first: nothing below sets it). */
#define STORE_ALL_AND_RETURN						\
	"	stp	x0, x1, [sp, #-16]!\n"				\
	"	mrs	x0, nzcv\n"					\
	"	ldr	x1, [sp, #176]\n"	/* out, saved at 160 + 16 */	\
	"	str	x0, [x1, #256]\n"				\
	"	stp	x2, x3, [x1, #16]\n"				\
	"	stp	x4, x5, [x1, #32]\n"				\
	"	stp	x6, x7, [x1, #48]\n"				\
	"	stp	x8, x9, [x1, #64]\n"				\
	"	stp	x10, x11, [x1, #80]\n"				\
	"	stp	x12, x13, [x1, #96]\n"				\
	"	stp	x14, x15, [x1, #112]\n"				\
	"	stp	x16, x17, [x1, #128]\n"				\
	"	stp	x18, x19, [x1, #144]\n"				\
	"	stp	x20, x21, [x1, #160]\n"				\
	"	stp	x22, x23, [x1, #176]\n"				\
	"	stp	x24, x25, [x1, #192]\n"				\
	"	stp	x26, x27, [x1, #208]\n"				\
	"	stp	x28, x29, [x1, #224]\n"				\
	"	str	x30, [x1, #240]\n"				\
	"	ldp	x2, x3, [sp], #16\n"				\
	"	stp	x2, x3, [x1]\n"					\
	"	mov	x9, sp\n"					\
	"	str	x9, [x1, #248]\n"				\
	"	add	x9, x1, #272\n"					\
	"	st1	{v0.2d-v3.2d}, [x9], #64\n"			\
	"	st1	{v4.2d-v7.2d}, [x9], #64\n"			\
	"	st1	{v8.2d-v11.2d}, [x9], #64\n"			\
	"	st1	{v12.2d-v15.2d}, [x9], #64\n"			\
	"	st1	{v16.2d-v19.2d}, [x9], #64\n"			\
	"	st1	{v20.2d-v23.2d}, [x9], #64\n"			\
	"	st1	{v24.2d-v27.2d}, [x9], #64\n"			\
	"	st1	{v28.2d-v31.2d}, [x9], #64\n"			\
	"	ldp	x19, x20, [sp, #16]\n"				\
	"	ldp	x21, x22, [sp, #32]\n"				\
	"	ldp	x23, x24, [sp, #48]\n"				\
	"	ldp	x25, x26, [sp, #64]\n"				\
	"	ldp	x27, x28, [sp, #80]\n"				\
	"	ldp	d8, d9, [sp, #96]\n"				\
	"	ldp	d10, d11, [sp, #112]\n"				\
	"	ldp	d12, d13, [sp, #128]\n"				\
	"	ldp	d14, d15, [sp, #144]\n"				\
	"	ldr	x18, [sp, #168]\n"				\
	"	ldp	x29, x30, [sp], #176\n"				\
	"	ret\n"

/*
 * torture_svc(in, out, nr) - load every register from @in, issue syscall @nr
 * (x8), store every register to @out.  x0 comes back as the result.
 */
void torture_svc(const struct regblk *in, struct regblk *out, long nr);
__asm__(".text\n.globl torture_svc\n.type torture_svc, %function\n"
	".p2align 4\ntorture_svc:\n"
	PROLOGUE
	"	mov	x8, x2\n"
	LOAD_ALL
	"	svc	#0\n"
	STORE_ALL_AND_RETURN
	".size torture_svc, .-torture_svc\n");

/*
 * torture_spin(in, out, count) - load every register from @in, count x8 down
 * from @count to zero without a syscall (signals arrive meanwhile), store
 * every register to @out.  NZCV comes back as SPIN_NZCV, x8 as 0.
 */
void torture_spin(const struct regblk *in, struct regblk *out, long count);
__asm__(".text\n.globl torture_spin\n.type torture_spin, %function\n"
	".p2align 4\ntorture_spin:\n"
	PROLOGUE
	"	mov	x8, x2\n"
	LOAD_ALL
	"1:	subs	x8, x8, #1\n"
	"	b.ne	1b\n"
	STORE_ALL_AND_RETURN
	".size torture_spin, .-torture_spin\n");

static volatile unsigned long signals_seen;
static int stalltest;
static struct timespec deadline;
static int selftest;
static volatile int failed;
static pthread_mutex_t report_lock = PTHREAD_MUTEX_INITIALIZER;

/**
 * clobber_handler() - SIGALRM handler that destroys what it can
 * @sig:	signal number
 *
 * Overwrites the caller-saved general registers, all vector registers and
 * the flags, so that only a correct sigreturn brings the patterns back.
 */
static void clobber_handler(int sig)
{
	(void)sig;
	__asm__ volatile(
		"mov x9, #0xdead\n mov x10, x9\n mov x11, x9\n mov x12, x9\n"
		"mov x13, x9\n mov x14, x9\n mov x15, x9\n mov x16, x9\n"
		"mov x17, x9\n mov x7, x9\n mov x6, x9\n mov x5, x9\n"
		"dup v0.2d, x9\n dup v1.2d, x9\n dup v2.2d, x9\n dup v3.2d, x9\n"
		"dup v4.2d, x9\n dup v5.2d, x9\n dup v6.2d, x9\n dup v7.2d, x9\n"
		"dup v16.2d, x9\n dup v17.2d, x9\n dup v18.2d, x9\n"
		"dup v19.2d, x9\n dup v20.2d, x9\n dup v21.2d, x9\n"
		"dup v22.2d, x9\n dup v23.2d, x9\n dup v24.2d, x9\n"
		"dup v25.2d, x9\n dup v26.2d, x9\n dup v27.2d, x9\n"
		"dup v28.2d, x9\n dup v29.2d, x9\n dup v30.2d, x9\n"
		"dup v31.2d, x9\n msr nzcv, x9\n"
		::: "x5", "x6", "x7", "x9", "x10", "x11", "x12", "x13", "x14",
		"x15", "x16", "x17", "v0", "v1", "v2", "v3", "v4", "v5", "v6",
		"v7", "v16", "v17", "v18", "v19", "v20", "v21", "v22", "v23",
		"v24", "v25", "v26", "v27", "v28", "v29", "v30", "v31", "cc");
	signals_seen++;
}

/**
 * fill() - a register file of patterns unique to a thread and an iteration
 * @in:		block to fill
 * @tid:	thread index
 * @iter:	iteration
 */
static void fill(struct regblk *in, unsigned int tid, unsigned long iter)
{
	uint64_t seed = 0x9e3779b97f4a7c15ULL * (tid + 1) + iter * 0x100000001ULL;
	int i;

	memset(in, 0, sizeof(*in));
	for (i = 0; i < 31; i++)
		in->x[i] = seed ^ ((uint64_t)i << 56) ^ ((uint64_t)i * 0x0101);
	for (i = 0; i < 32; i++) {
		in->v[i][0] = ~seed ^ ((uint64_t)i << 48);
		in->v[i][1] = seed + i;
	}
	in->nzcv = ((iter + tid) << 28) & NZCV_ALL;
}

/**
 * compare() - report the first register that lost its pattern
 * @what:	which loop ran ("svc" or "spin")
 * @tid:	thread index
 * @in:		what was loaded
 * @out:	what was found
 * @x0:		expected x0 (the syscall result, or the pattern when spinning)
 * @x8:		expected x8
 * @nzcv:	expected flags
 *
 * Return: 0 if everything survived, -1 after printing REGTORTURE_FAIL
 */
static int compare(const char *what, unsigned int tid, const struct regblk *in,
		   const struct regblk *out, uint64_t x0, uint64_t x8,
		   uint64_t nzcv)
{
	char name[8];
	uint64_t want, got;
	int i;

	for (i = 0; i < 31; i++) {
		want = i == 0 ? x0 : i == 8 ? x8 : in->x[i];
		got = out->x[i];
		if (want != got) {
			snprintf(name, sizeof(name), "x%d", i);
			goto fail;
		}
	}
	if (out->sp != out->pad) {
		strcpy(name, "sp");
		want = out->pad;
		got = out->sp;
		goto fail;
	}
	if ((out->nzcv & NZCV_ALL) != nzcv) {
		strcpy(name, "nzcv");
		want = nzcv;
		got = out->nzcv;
		goto fail;
	}
	for (i = 0; i < 64; i++) {
		want = in->v[i / 2][i % 2];
		got = out->v[i / 2][i % 2];
		if (want != got) {
			snprintf(name, sizeof(name), "q%d.%d", i / 2, i % 2);
			goto fail;
		}
	}
	return 0;
fail:
	pthread_mutex_lock(&report_lock);
	printf("REGTORTURE_FAIL loop=%s thread=%u reg=%s want=%#llx got=%#llx\n",
	       what, tid, name, (unsigned long long)want,
	       (unsigned long long)got);
	fflush(stdout);
	pthread_mutex_unlock(&report_lock);
	failed = 1;
	return -1;
}

struct worker {
	pthread_t thread;
	unsigned int tid;
	unsigned long iterations;
	unsigned long syscalls;
	unsigned long spins;
	struct timespec last;	/* when the last iteration completed */
};

/* past_deadline() - whether the time budget is used up */
static int past_deadline(void)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return now.tv_sec > deadline.tv_sec ||
	       (now.tv_sec == deadline.tv_sec && now.tv_nsec >= deadline.tv_nsec);
}

/**
 * work() - one thread: alternate syscalls and spins with fresh patterns
 * @arg:	struct worker
 *
 * Return: NULL
 */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct regblk in, out;
	unsigned long i;
	long nr, ppid = getppid();

	for (i = 0; i < w->iterations && !failed; i++) {
		if (stalltest && w->tid == 0 && i == 10) {
			while (!past_deadline())
				usleep(100000);
			break;
		}
		fill(&in, w->tid, i);
		nr = (i & 1) ? SYS_sched_yield : SYS_getppid;
		torture_svc(&in, &out, nr);
		if (selftest && i == (w->iterations < 200 ? w->iterations / 2 : 100))
			out.x[7] ^= 1;
		if (compare("svc", w->tid, &in, &out,
			    nr == SYS_getppid ? (uint64_t)ppid : 0, nr,
			    in.nzcv))
			break;
		w->syscalls++;
		clock_gettime(CLOCK_MONOTONIC, &w->last);
		if (i && i % (w->iterations / 4 ? w->iterations / 4 : 1) == 0)
			printf("regtorture: thread %u at %lu/%lu signals=%lu\n",
			       w->tid, i, w->iterations,
			       (unsigned long)signals_seen);
		if (i % 16 == 0) {
			if (past_deadline())
				break;
			fill(&in, w->tid, ~i);
			torture_spin(&in, &out, 200000);
			if (compare("spin", w->tid, &in, &out, in.x[0], 0,
				    SPIN_NZCV))
				break;
			w->spins++;
			clock_gettime(CLOCK_MONOTONIC, &w->last);
		}
	}
	return NULL;
}

/**
 * check_restart() - an interrupted nanosleep must restart with what is left
 *
 * Sleeps 300 ms while SIGALRM arrives every 20 ms; nanosleep returns EINTR
 * with the time left and is called again with it, so with a broken remainder
 * (or a restart that re-runs the full duration) the sleep does not end in
 * time.  20 ms, not the torture loops' 1 ms: an emulated host needs ~4 ms
 * per guest signal, and at 1 kHz it measures signal throughput instead.
 *
 * Return: 0 on success, -1 after printing REGTORTURE_FAIL
 */
static int check_restart(void)
{
	struct timespec t0, t1, req = { 0, 300 * 1000 * 1000 };
	struct itimerval tick = { { 0, 20000 }, { 0, 20000 } };
	unsigned long before = signals_seen;
	double ms;

	setitimer(ITIMER_REAL, &tick, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	while (nanosleep(&req, &req) && errno == EINTR)
		;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	ms = (t1.tv_sec - t0.tv_sec) * 1e3 + (t1.tv_nsec - t0.tv_nsec) / 1e6;
	if (ms > 3000) {
		printf("REGTORTURE_FAIL loop=restart slept=%.0fms for 300ms signals=%lu\n",
		       ms, signals_seen - before);
		return -1;
	}
	printf("regtorture: nanosleep 300 ms took %.0f ms across %lu signals\n",
	       ms, signals_seen - before);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? atoi(argv[1]) : 4;
	unsigned long iters = argc > 2 ? strtoul(argv[2], NULL, 0) : 2000;
	struct itimerval tick = { { 0, 1000 }, { 0, 1000 } };
	struct sigaction sa = { .sa_handler = clobber_handler,
				.sa_flags = SA_RESTART };
	unsigned long syscalls = 0, spins = 0, least = ULONG_MAX;
	const char *budget = getenv("REGTORTURE_BUDGET");
	unsigned long budget_s = budget ? strtoul(budget, NULL, 0) : 240;
	const char *stall = getenv("REGTORTURE_STALL");
	double stall_s = budget_s / 4 > 20 ? budget_s / 4 : 20, idle, idlest = 0;
	struct timespec start;
	struct worker *w;
	unsigned int i;

	selftest = argc > 3 && !strcmp(argv[3], "selftest");
	stalltest = argc > 3 && !strcmp(argv[3], "stalltest");
	if (stall)
		stall_s = strtod(stall, NULL);
	if (n < 1 || n > 64 || iters < 1) {
		fprintf(stderr, "usage: regtorture [THREADS(1-64) [ITERATIONS [selftest]]]\n");
		return 2;
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	w = calloc(n, sizeof(*w));
	if (!w)
		return 1;
	clock_gettime(CLOCK_MONOTONIC, &start);
	deadline = start;
	deadline.tv_sec += budget_s;
	sigaction(SIGALRM, &sa, NULL);
	setitimer(ITIMER_REAL, &tick, NULL);

	for (i = 0; i < n; i++) {
		w[i].tid = i;
		w[i].iterations = iters;
		w[i].last = start;
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			printf("REGTORTURE_FAIL pthread_create\n");
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		syscalls += w[i].syscalls;
		spins += w[i].spins;
		if (w[i].syscalls < least)
			least = w[i].syscalls;
	}
	if (!failed && least < iters) {
		printf("regtorture: time budget used up, the slowest thread did %lu/%lu iterations\n",
		       least, iters);
		for (i = 0; i < n; i++) {
			idle = (deadline.tv_sec - w[i].last.tv_sec) +
			       (deadline.tv_nsec - w[i].last.tv_nsec) / 1e9;
			/* a thread that finished early is not stalled */
			if (w[i].syscalls < iters && idle > idlest)
				idlest = idle;
			printf("regtorture: thread %u did %lu/%lu, last progress %.1f s before the deadline\n",
			       i, w[i].syscalls, iters, idle > 0 ? idle : 0);
		}
		if (idlest > stall_s || signals_seen < 100) {
			printf("REGTORTURE_FAIL loop=progress least=%lu of %lu idle=%.0fs limit=%.0fs signals=%lu\n",
			       least, iters, idlest, stall_s,
			       (unsigned long)signals_seen);
			failed = 1;
		}
	}
	if (!failed && check_restart())
		failed = 1;
	tick.it_value.tv_usec = tick.it_interval.tv_usec = 0;
	setitimer(ITIMER_REAL, &tick, NULL);
	if (failed)
		return 1;
	printf("REGTORTURE_OK threads=%u syscalls=%lu spins=%lu signals=%lu complete=%s\n",
	       n, syscalls, spins, (unsigned long)signals_seen,
	       least < iters ? "no" : "yes");
	return 0;
}
