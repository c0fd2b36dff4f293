// SPDX-License-Identifier: GPL-2.0
/*
 * fpsimd.c - FP/SIMD state (v0-v31, FPCR, FPSR) must survive signals,
 * syscalls and thread switches in a UML guest on arm64
 *
 * Each thread, per round, loads a pattern of its own and of the round into
 * all of v0-v31 (128 bits each), FPCR (the mode bits RMode, FZ, DN and AHP
 * that this CPU keeps, learnt once at start) and FPSR (the cumulative
 * exception flags and QC), spins without a syscall, issues a raw svc in two
 * rounds of three (getppid, or sched_yield so that another thread runs with
 * its own patterns in the middle of the window), spins again and reads
 * everything back.  SIGALRM (ITIMER_REAL, 5 ms) and SIGPROF (ITIMER_PROF,
 * 2 ms of CPU) land meanwhile; their handler loads the complement of the
 * interrupted state into every register, FPCR and FPSR, issues getppid and
 * checks that it finds its own values, and returns with them in place: only
 * a kernel that restores the FP/SIMD record of the signal frame gives the
 * thread its state back.  sched_yield between rounds switches threads.
 *
 * Usage: fpsimd [THREADS [ROUNDS]]   (default 4 threads, 8000 rounds in all)
 *
 * Prints FPSIMD-TORTURE-OK rounds=N signals=M ... when every round found its
 * state, or FPSIMD-TORTURE-FAIL thread=T round=R reg=... want=... got=... at
 * the first register that lost its value.  Environment:
 *   FPSIMD_BUDGET  seconds after which the threads stop (240): a run cut
 *                  short says FPSIMD-TORTURE-BUDGET and passes only with at
 *                  least 8000 rounds done
 *   FPSIMD_SPIN    iterations of each of the two spins per round (50000)
 *   FPSIMD_PLANT=1 the handler flips a bit of v5 in the frame of one signal
 *                  that interrupted a window (the FP/SIMD record and an SVE
 *                  record's z5), as a kernel restoring the wrong state
 *                  would: the run must fail with reg=v5.hi; FPSIMD_PLANT=fpcr
 *                  flips an FPCR mode bit there instead (reg=fpcr)
 * A run in which no signal landed inside a window tested nothing and fails.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#ifndef __aarch64__
#error "fpsimd checks the aarch64 FP/SIMD registers"
#endif

#define MIN_ROUNDS	8000		/* what a run cut short must reach */
#define MAX_THREADS	64
#define REAL_TICK_US	5000
#define PROF_TICK_US	2000
/* FPCR mode bits: RMode (23:22), FZ (24), DN (25), AHP (26); no trap enables */
#define FPCR_CANDIDATES	((3UL << 22) | (1UL << 24) | (1UL << 25) | (1UL << 26))
/* FPSR: IOC, DZC, OFC, UFC, IXC (4:0), IDC (7), QC (27) */
#define FPSR_CANDIDATES	(0x9fUL | (1UL << 27))
/* signal frame records, from <asm/sigcontext.h> */
#define FPSIMD_MAGIC	0x46508001
#define SVE_MAGIC	0x53564501
#define EXTRA_MAGIC	0x45585401
#define SVE_REGS_OFFSET	16		/* z0 in struct sve_context */
#define PLANT_VREG	5
enum { PLANT_V5 = 1, PLANT_FPCR };	/* FPSIMD_PLANT=1, =fpcr */

#define STR(x)		#x
#define XSTR(x)		STR(x)

/* struct fpblk layout, used by the assembly below: keep in sync */
#define OFF_FPCR	512
#define FPBLK_SIZE	528

/**
 * struct fpblk - the FP/SIMD state as loaded and as found again
 * @v:		q0..q31 as two 64-bit halves each
 * @fpcr:	FPCR
 * @fpsr:	FPSR (right after @fpcr: the assembly uses one ldp/stp)
 */
struct fpblk {
	uint64_t v[32][2];
	uint64_t fpcr;
	uint64_t fpsr;
} __attribute__((aligned(16)));

_Static_assert(__builtin_offsetof(struct fpblk, fpcr) == OFF_FPCR, "fpcr");
_Static_assert(sizeof(struct fpblk) == FPBLK_SIZE, "size");

/**
 * struct fpsig - what a signal handler loads and what it finds again
 * @in:		the handler's values (right before @out: see fp_sig_entry)
 * @out:	what it read back after its getppid
 */
struct fpsig {
	struct fpblk in;
	struct fpblk out;
};

/* The frame's FP/SIMD record (struct fpsimd_context of <asm/sigcontext.h>) */
struct fp_record {
	uint32_t magic;
	uint32_t size;
	uint32_t fpsr;
	uint32_t fpcr;
	uint64_t v[32][2];
};

#define LOAD_V(base)							\
	"	mov	x9, " base "\n"					\
	"	ld1	{v0.2d-v3.2d}, [x9], #64\n"			\
	"	ld1	{v4.2d-v7.2d}, [x9], #64\n"			\
	"	ld1	{v8.2d-v11.2d}, [x9], #64\n"			\
	"	ld1	{v12.2d-v15.2d}, [x9], #64\n"			\
	"	ld1	{v16.2d-v19.2d}, [x9], #64\n"			\
	"	ld1	{v20.2d-v23.2d}, [x9], #64\n"			\
	"	ld1	{v24.2d-v27.2d}, [x9], #64\n"			\
	"	ld1	{v28.2d-v31.2d}, [x9], #64\n"			\
	"	ldp	x10, x11, [x9]\n"	/* base + OFF_FPCR */	\
	"	msr	fpcr, x10\n"					\
	"	msr	fpsr, x11\n"

#define STORE_V(base)							\
	"	mrs	x10, fpcr\n"					\
	"	mrs	x11, fpsr\n"					\
	"	mov	x9, " base "\n"					\
	"	st1	{v0.2d-v3.2d}, [x9], #64\n"			\
	"	st1	{v4.2d-v7.2d}, [x9], #64\n"			\
	"	st1	{v8.2d-v11.2d}, [x9], #64\n"			\
	"	st1	{v12.2d-v15.2d}, [x9], #64\n"			\
	"	st1	{v16.2d-v19.2d}, [x9], #64\n"			\
	"	st1	{v20.2d-v23.2d}, [x9], #64\n"			\
	"	st1	{v24.2d-v27.2d}, [x9], #64\n"			\
	"	st1	{v28.2d-v31.2d}, [x9], #64\n"			\
	"	stp	x10, x11, [x9]\n"	/* base + OFF_FPCR */

/*
 * fp_round(in, out, spin, nr) - load @in into v0-v31, FPCR and FPSR, spin
 * @spin times, issue syscall @nr unless it is 0, spin @spin times again,
 * store what the registers hold into @out.  d8-d15, FPCR and FPSR are the
 * caller's again on return.  Between fp_window_start and fp_window_end
 * (inclusive: nothing has been read back there yet) the patterns are live.
 */
void fp_round(const struct fpblk *in, struct fpblk *out, long spin, long nr);
extern const char fp_window_start[], fp_window_end[];
__asm__(".text\n.globl fp_round\n.type fp_round, %function\n"
	".p2align 4\nfp_round:\n"
	"	stp	x29, x30, [sp, #-96]!\n"
	"	mov	x29, sp\n"
	"	stp	d8, d9, [sp, #16]\n"
	"	stp	d10, d11, [sp, #32]\n"
	"	stp	d12, d13, [sp, #48]\n"
	"	stp	d14, d15, [sp, #64]\n"
	"	mrs	x9, fpcr\n"
	"	mrs	x10, fpsr\n"
	"	stp	x9, x10, [sp, #80]\n"
	LOAD_V("x0")
	"	mov	x12, x2\n"
	".globl fp_window_start\nfp_window_start:\n"
	"1:	cbz	x2, 2f\n"
	"	sub	x2, x2, #1\n"
	"	b	1b\n"
	"2:	cbz	x3, 3f\n"
	"	mov	x8, x3\n"
	"	svc	#0\n"
	"3:	cbz	x12, 4f\n"
	"	sub	x12, x12, #1\n"
	"	b	3b\n"
	"4:\n"
	".globl fp_window_end\nfp_window_end:\n"
	STORE_V("x1")
	"	ldp	d8, d9, [sp, #16]\n"
	"	ldp	d10, d11, [sp, #32]\n"
	"	ldp	d12, d13, [sp, #48]\n"
	"	ldp	d14, d15, [sp, #64]\n"
	"	ldp	x9, x10, [sp, #80]\n"
	"	msr	fpcr, x9\n"
	"	msr	fpsr, x10\n"
	"	ldp	x29, x30, [sp], #96\n"
	"	ret\n"
	".size fp_round, .-fp_round\n");

struct fpsig *fp_sig_prepare(int sig, siginfo_t *info, void *ucontext);
void fp_sig_check(struct fpsig *s);

/*
 * fp_sig_entry(sig, info, ucontext) - the SA_SIGINFO handler: the values
 * fp_sig_prepare() chose go into v0-v31, FPCR and FPSR, a getppid runs, what
 * the registers hold is stored and checked by fp_sig_check().  It returns
 * with its own values still in every register, d8-d15 included (the
 * sigreturn trampoline needs none of them): what the thread finds after
 * the signal comes from the frame alone.  "hint #34" is "bti c", a no-op
 * where branch protection is off.
 */
void fp_sig_entry(int sig, siginfo_t *info, void *ucontext);
__asm__(".text\n.globl fp_sig_entry\n.type fp_sig_entry, %function\n"
	".p2align 4\nfp_sig_entry:\n"
	"	hint	#34\n"
	"	stp	x29, x30, [sp, #-32]!\n"
	"	mov	x29, sp\n"
	"	str	x19, [sp, #16]\n"
	"	bl	fp_sig_prepare\n"
	"	cbz	x0, 9f\n"
	"	mov	x19, x0\n"
	LOAD_V("x19")
	"	mov	x8, #" XSTR(SYS_getppid) "\n"
	"	svc	#0\n"
	"	add	x1, x19, #" XSTR(FPBLK_SIZE) "\n"
	STORE_V("x1")
	"	mov	x0, x19\n"
	"	bl	fp_sig_check\n"
	"9:	ldr	x19, [sp, #16]\n"
	"	ldp	x29, x30, [sp], #32\n"
	"	ret\n"
	".size fp_sig_entry, .-fp_sig_entry\n");

/* What lost its value: a vector half, FPCR, FPSR, or the frame's record */
enum fp_reg { REG_V, REG_FPCR, REG_FPSR, REG_RECORD };

/**
 * struct failure - the first mismatch, kept until main() prints it (a
 * signal handler may find it, so no formatting happens where it is set)
 */
static struct {
	int set;
	int thread;
	long round;
	int in_handler;
	enum fp_reg reg;
	int index;
	uint64_t want, got;
} failure;

static uint64_t fpcr_bits, fpsr_bits;
static long spin_count = 50000;
static int plant, planted;
static unsigned long signals, window_hits;
static struct timespec deadline;
static __thread int cur_thread = -1;
static __thread long cur_round = -1;
static __thread struct fpsig sig_blk;

/**
 * record_failure() - keep the first mismatch; safe in a signal handler
 * @in_handler:	whether the handler found it (else the round did)
 * @reg:	which register
 * @index:	vector half (2 * n + half) for REG_V
 * @want:	what should have been there
 * @got:	what was
 */
static void record_failure(int in_handler, enum fp_reg reg, int index,
			   uint64_t want, uint64_t got)
{
	if (__atomic_exchange_n(&failure.set, 1, __ATOMIC_ACQ_REL))
		return;
	failure.thread = cur_thread;
	failure.round = cur_round;
	failure.in_handler = in_handler;
	failure.reg = reg;
	failure.index = index;
	failure.want = want;
	failure.got = got;
}

/* failed() - whether any thread or handler found a mismatch */
static int failed(void)
{
	return __atomic_load_n(&failure.set, __ATOMIC_ACQUIRE);
}

/**
 * compare() - check a found state against the loaded one
 * @in:		what was loaded
 * @out:	what was found
 * @in_handler:	who checks (for the report)
 *
 * Return: 0 if everything matched, -1 after recording the first mismatch
 */
static int compare(const struct fpblk *in, const struct fpblk *out,
		   int in_handler)
{
	int i;

	for (i = 0; i < 64; i++) {
		if (in->v[i / 2][i % 2] != out->v[i / 2][i % 2]) {
			record_failure(in_handler, REG_V, i, in->v[i / 2][i % 2],
				       out->v[i / 2][i % 2]);
			return -1;
		}
	}
	if (in->fpcr != out->fpcr) {
		record_failure(in_handler, REG_FPCR, 0, in->fpcr, out->fpcr);
		return -1;
	}
	if (in->fpsr != out->fpsr) {
		record_failure(in_handler, REG_FPSR, 0, in->fpsr, out->fpsr);
		return -1;
	}
	return 0;
}

/**
 * find_record() - a record of a signal frame
 * @uc:		the handler's ucontext
 * @magic:	which record
 *
 * The records of __reserved start with {magic, size} and end with a zero
 * magic; an EXTRA record points to more of them (a large SVE record).
 *
 * Return: the record's start, or NULL if the frame has none
 */
static unsigned char *find_record(ucontext_t *uc, uint32_t magic)
{
	unsigned char *p = uc->uc_mcontext.__reserved;
	size_t off = 0, room = sizeof(uc->uc_mcontext.__reserved);
	uint32_t head[2];
	uint64_t datap;

	while (off + sizeof(head) <= room) {
		memcpy(head, p + off, sizeof(head));
		if (head[0] == magic)
			return p + off;
		if (!head[0] || head[1] < sizeof(head))
			return NULL;
		if (head[0] == EXTRA_MAGIC) {
			memcpy(&datap, p + off + sizeof(head), sizeof(datap));
			p = (unsigned char *)(uintptr_t)datap;
			off = 0;
			room = SIZE_MAX;
			continue;
		}
		off += head[1];
	}
	return NULL;
}

/**
 * plant_fault() - flip a bit of the high half of v5 in the frame, in the
 * FP/SIMD record and, if the frame carries SVE register data, in z5 too: a
 * kernel (or qemu-user) restores from the SVE record when it has data, and
 * ignores the FP/SIMD one
 * @uc:		the handler's ucontext
 * @r:		its FP/SIMD record
 */
static void plant_fault(ucontext_t *uc, struct fp_record *r)
{
	unsigned char *sve = find_record(uc, SVE_MAGIC);
	uint32_t size;
	uint16_t vl;

	if (plant == PLANT_FPCR) {
		r->fpcr ^= fpcr_bits & -fpcr_bits;	/* its lowest bit */
		return;
	}
	r->v[PLANT_VREG][1] ^= 1;
	if (!sve)
		return;
	memcpy(&size, sve + 4, sizeof(size));
	memcpy(&vl, sve + 8, sizeof(vl));
	if (size > SVE_REGS_OFFSET)	/* else a record without registers */
		sve[SVE_REGS_OFFSET + (size_t)vl * PLANT_VREG + 8] ^= 1;
}

/**
 * fp_sig_prepare() - choose the handler's values: the complement of the
 * interrupted state, so that no register keeps its value by chance; plant
 * the fault if asked
 * @sig:	signal number
 * @info:	unused
 * @ucontext:	the interrupted state
 *
 * Return: the thread's struct fpsig with @in filled, or NULL (mismatch
 * recorded) if the frame has no FP/SIMD record
 */
struct fpsig *fp_sig_prepare(int sig, siginfo_t *info, void *ucontext)
{
	ucontext_t *uc = ucontext;
	struct fp_record *r = (void *)find_record(uc, FPSIMD_MAGIC);
	uintptr_t pc = uc->uc_mcontext.pc;
	struct fpsig *s = &sig_blk;
	int i;

	(void)sig;
	(void)info;
	__atomic_add_fetch(&signals, 1, __ATOMIC_RELAXED);
	if (!r || r->size < sizeof(*r)) {
		record_failure(1, REG_RECORD, 0, FPSIMD_MAGIC, 0);
		return NULL;
	}
	for (i = 0; i < 32; i++) {
		s->in.v[i][0] = ~r->v[i][0];
		s->in.v[i][1] = ~r->v[i][1];
	}
	s->in.fpcr = (r->fpcr ^ fpcr_bits) & fpcr_bits;
	s->in.fpsr = (r->fpsr ^ fpsr_bits) & fpsr_bits;
	if (pc >= (uintptr_t)fp_window_start && pc <= (uintptr_t)fp_window_end) {
		__atomic_add_fetch(&window_hits, 1, __ATOMIC_RELAXED);
		if (plant && !__atomic_exchange_n(&planted, 1, __ATOMIC_RELAXED))
			plant_fault(uc, r);
	}
	return s;
}

/**
 * fp_sig_check() - the handler must find its own values after its getppid
 * @s:		what it loaded and what it found
 */
void fp_sig_check(struct fpsig *s)
{
	compare(&s->in, &s->out, 1);
}

/* mix() - splitmix64: a well-spread 64-bit value from any input */
static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/**
 * fill() - FP/SIMD values unique to a thread and a round
 * @in:		block to fill
 * @thread:	thread index
 * @round:	round
 */
static void fill(struct fpblk *in, unsigned int thread, unsigned long round)
{
	uint64_t seed = mix(((uint64_t)thread << 40) ^ round);
	int i;

	for (i = 0; i < 32; i++) {
		in->v[i][0] = mix(seed + 2 * i);
		in->v[i][1] = mix(seed + 2 * i + 1);
	}
	in->fpcr = mix(seed ^ 0xfc) & fpcr_bits;
	in->fpsr = mix(seed ^ 0xf5) & fpsr_bits;
}

/**
 * learn_bits() - which of the candidate FPCR and FPSR bits this CPU keeps
 *
 * Sets fpcr_bits and fpsr_bits; the registers are as they were afterwards.
 */
static void learn_bits(void)
{
	uint64_t fpcr, fpsr;

	__asm__ volatile("mrs %0, fpcr\n mrs %1, fpsr" : "=r"(fpcr), "=r"(fpsr));
	__asm__ volatile("msr fpcr, %2\n msr fpsr, %3\n"
			 "mrs %0, fpcr\n mrs %1, fpsr\n"
			 "msr fpcr, %4\n msr fpsr, %5"
			 : "=&r"(fpcr_bits), "=&r"(fpsr_bits)
			 : "r"(FPCR_CANDIDATES), "r"(FPSR_CANDIDATES),
			   "r"(fpcr), "r"(fpsr));
	fpcr_bits &= FPCR_CANDIDATES;
	fpsr_bits &= FPSR_CANDIDATES;
}

struct worker {
	pthread_t thread;
	unsigned int index;
	unsigned long rounds;	/* asked */
	unsigned long done;	/* completed and checked */
	int cut;		/* stopped by the budget */
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
 * work() - one thread: rounds of load, spin, svc, spin, check, yield
 * @arg:	struct worker
 *
 * Return: NULL
 */
static void *work(void *arg)
{
	struct worker *w = arg;
	struct fpblk in, out;
	sigset_t timers;
	unsigned long r, quarter = w->rounds / 4 ? w->rounds / 4 : 1;
	long nr;

	cur_thread = w->index;
	/* main() blocks the timers so that they land on the workers */
	sigemptyset(&timers);
	sigaddset(&timers, SIGALRM);
	sigaddset(&timers, SIGPROF);
	pthread_sigmask(SIG_UNBLOCK, &timers, NULL);
	for (r = 0; r < w->rounds && !failed(); r++) {
		if (r % 16 == 0 && past_deadline()) {
			w->cut = 1;
			break;
		}
		cur_round = r;
		fill(&in, w->index, r);
		nr = r % 3 == 1 ? SYS_getppid : r % 3 == 2 ? SYS_sched_yield : 0;
		fp_round(&in, &out, spin_count, nr);
		if (compare(&in, &out, 0))
			break;
		w->done++;
		if (r && r % quarter == 0)
			printf("fpsimd: thread %u at %lu/%lu signals=%lu\n",
			       w->index, r, w->rounds,
			       __atomic_load_n(&signals, __ATOMIC_RELAXED));
		sched_yield();
	}
	return NULL;
}

/* print_failure() - the FPSIMD-TORTURE-FAIL line of the recorded mismatch */
static void print_failure(void)
{
	char reg[16];

	switch (failure.reg) {
	case REG_V:
		snprintf(reg, sizeof(reg), "v%d.%s", failure.index / 2,
			 failure.index % 2 ? "hi" : "lo");
		break;
	case REG_FPCR:
		strcpy(reg, "fpcr");
		break;
	case REG_FPSR:
		strcpy(reg, "fpsr");
		break;
	default:
		strcpy(reg, "fpsimd_record");
		break;
	}
	printf("FPSIMD-TORTURE-FAIL thread=%d round=%ld reg=%s want=%#018llx got=%#018llx in=%s\n",
	       failure.thread, failure.round, reg,
	       (unsigned long long)failure.want, (unsigned long long)failure.got,
	       failure.in_handler ? "handler" : "round");
}

/**
 * start_timers() - SIGALRM every REAL_TICK_US, SIGPROF every PROF_TICK_US
 * of CPU time, both to fp_sig_entry, each blocking the other
 * @on:		0 stops them
 */
static void start_timers(int on)
{
	struct itimerval real = { { 0, REAL_TICK_US }, { 0, REAL_TICK_US } };
	struct itimerval prof = { { 0, PROF_TICK_US }, { 0, PROF_TICK_US } };
	struct sigaction sa = { .sa_sigaction = fp_sig_entry,
				.sa_flags = SA_SIGINFO | SA_RESTART };

	if (!on) {
		memset(&real, 0, sizeof(real));
		memset(&prof, 0, sizeof(prof));
	} else {
		sigemptyset(&sa.sa_mask);
		sigaddset(&sa.sa_mask, SIGALRM);
		sigaddset(&sa.sa_mask, SIGPROF);
		sigaction(SIGALRM, &sa, NULL);
		sigaction(SIGPROF, &sa, NULL);
	}
	setitimer(ITIMER_REAL, &real, NULL);
	setitimer(ITIMER_PROF, &prof, NULL);
}

/**
 * verdict() - print the closing line
 * @asked:	rounds asked for
 * @done:	rounds completed
 * @cut:	whether the budget stopped the threads
 * @budget_s:	the budget
 * @seconds:	how long the threads ran
 *
 * Return: 0 for FPSIMD-TORTURE-OK, 1 otherwise
 */
static int verdict(unsigned long asked, unsigned long done, int cut,
		   unsigned long budget_s, double seconds)
{
	if (failed()) {
		print_failure();
		return 1;
	}
	if (cut)
		printf("FPSIMD-TORTURE-BUDGET seconds=%lu rounds=%lu of %lu\n",
		       budget_s, done, asked);
	if (cut && done < MIN_ROUNDS) {
		printf("FPSIMD-TORTURE-FAIL budget=%lus rounds=%lu need=%d\n",
		       budget_s, done, MIN_ROUNDS);
		return 1;
	}
	if (!window_hits) {
		printf("FPSIMD-TORTURE-FAIL no signal landed in a window (signals=%lu rounds=%lu): nothing was tested\n",
		       signals, done);
		return 1;
	}
	printf("FPSIMD-TORTURE-OK rounds=%lu signals=%lu in_window=%lu fpcr_bits=%#llx fpsr_bits=%#llx seconds=%.1f\n",
	       done, signals, window_hits, (unsigned long long)fpcr_bits,
	       (unsigned long long)fpsr_bits, seconds);
	return 0;
}

int main(int argc, char **argv)
{
	unsigned int n = argc > 1 ? atoi(argv[1]) : 4, i;
	unsigned long asked = argc > 2 ? strtoul(argv[2], NULL, 0) : MIN_ROUNDS;
	const char *budget = getenv("FPSIMD_BUDGET"), *spin = getenv("FPSIMD_SPIN");
	unsigned long budget_s = budget ? strtoul(budget, NULL, 0) : 240;
	unsigned long done = 0;
	struct worker w[MAX_THREADS];
	struct timespec start, end;
	sigset_t timers;
	int cut = 0;

	if (n < 1 || n > MAX_THREADS || asked < n || argc > 3) {
		fprintf(stderr, "usage: fpsimd [THREADS(1-%d) [ROUNDS(>= THREADS)]]\n",
			MAX_THREADS);
		return 2;
	}
	if (spin)
		spin_count = strtol(spin, NULL, 0);
	if (getenv("FPSIMD_PLANT"))
		plant = !strcmp(getenv("FPSIMD_PLANT"), "fpcr") ? PLANT_FPCR :
			!strcmp(getenv("FPSIMD_PLANT"), "1") ? PLANT_V5 : 0;
	setvbuf(stdout, NULL, _IOLBF, 0);
	learn_bits();
	printf("fpsimd: %u threads, %lu rounds, fpcr bits %#llx, fpsr bits %#llx, budget %lu s%s\n",
	       n, asked, (unsigned long long)fpcr_bits,
	       (unsigned long long)fpsr_bits, budget_s,
	       plant ? ", planted fault on" : "");

	/* the timers' signals go to the workers, which unblock them */
	sigemptyset(&timers);
	sigaddset(&timers, SIGALRM);
	sigaddset(&timers, SIGPROF);
	pthread_sigmask(SIG_BLOCK, &timers, NULL);
	clock_gettime(CLOCK_MONOTONIC, &start);
	deadline = start;
	deadline.tv_sec += budget_s;
	start_timers(1);
	for (i = 0; i < n; i++) {
		w[i] = (struct worker){ .index = i,
					.rounds = asked / n + (i < asked % n) };
		if (pthread_create(&w[i].thread, NULL, work, &w[i])) {
			printf("FPSIMD-TORTURE-FAIL pthread_create: %s\n",
			       strerror(errno));
			return 1;
		}
	}
	for (i = 0; i < n; i++) {
		pthread_join(w[i].thread, NULL);
		done += w[i].done;
		cut |= w[i].cut;
	}
	start_timers(0);
	clock_gettime(CLOCK_MONOTONIC, &end);
	return verdict(asked, done, cut, budget_s,
		       (end.tv_sec - start.tv_sec) +
		       (end.tv_nsec - start.tv_nsec) / 1e9);
}
