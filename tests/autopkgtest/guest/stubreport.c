// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stubreport.c - a guest program that makes up SECCOMP-mode stub reports
 *
 * In SECCOMP mode UML's stub runs in the host thread of the guest code and
 * hands the kernel a guest thread's state through the stub data page, which
 * lies at the top of the host address space, where the guest's own page
 * tables do not reach but its code can read and write all the same.  The
 * stub hands the data over ("reports") with a FUTEX_WAIT from its code
 * page, and a guest can jump there with data of its own.  Everything the
 * kernel reads there is the guest's to choose, so the kernel must check it
 * and at worst kill the process: a guest process must never bring the
 * kernel down.
 *
 * The program finds the stub code page (the stub's rt_sigreturn syscall:
 * arm64 "svc #0; brk #0", x86_64 "mov $15,%rax; syscall") below each
 * plausible host top, the stub data one guest page above it, and checks
 * that the data looks as this program expects (no syscall list, the futex
 * handed to the guest).  Then, each in a child process:
 *
 *   restart  the flag that tells the stub to run its syscall list and
 *            report again, set before an ordinary syscall;
 *   siginfo  a report of SIGSYS whose siginfo lies past the stub's stack;
 *   mcontext a report of SIGSYS whose register frame lies past it;
 *   listlen  a report of SIGTRAP saying that syscall 2^31-1 of the
 *            kernel's list failed;
 *   listerr  a report of SIGTRAP with an error that is no errno (its low
 *            32 bits are 2^31-1: taken for a list length, the kernel would
 *            write its next syscall 80 GB past the list);
 *   fpstate  (x86_64) a report of SIGSYS whose frame's xstate says it is
 *            0 bytes long, MAGIC2 in the 4 bytes before it: the kernel
 *            took -4 for the size to copy.
 *   race     (two CPUs or more) one thread on CPU 0 makes syscalls, whose
 *            reports the kernel reads from CPU 0's stub data, while a
 *            thread on CPU 1, a host thread of the same stub process,
 *            rewrites what the kernel checks there (the frame and siginfo
 *            offsets, the sizes in the register frame), in rounds of a
 *            child each for three seconds: the kernel must read each once.
 *   syncrace (two CPUs or more) as race, with both threads mapping,
 *            touching and unmapping memory: while a process has threads,
 *            the kernel runs the host calls of its CPUs' syncs one at a
 *            time, and the sync that the kernel kills the child in must
 *            not leave the thread on CPU 1 waiting for its turn for good.
 *   flood    FLOOD_CHILDREN children at once make the siginfo report: the
 *            kernel prints a line for a forged report and kills the
 *            process, and a loop of them must not flood the host's
 *            console.  The lines it added to the kernel log (klogctl(),
 *            as root) must stay within the kernel's limit for them, 10
 *            per 5 s, over the time the children took (SECCOMP mode
 *            only).
 *
 * Usage: stubreport [CASE...]   (all of them by default)
 *
 * Each child must end, killed or exiting, and the kernel must still run:
 * prints STUBREPORT_OK cases=... then, else STUBREPORT_FAIL and why.  In
 * ptrace mode there are no reports (the stub data has no register frame):
 * the cases run all the same, and the stub's filter kills the FUTEX_WAIT.
 *
 * The layout of struct stub_data (arch/um/include/shared/skas/stub-data.h)
 * is the kernel's, not an ABI: the checks of the page below fail the
 * program, not the kernel, when it changes.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <pthread.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/klog.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "childwait.h"

#define PROBE_PAGE 4096UL
/*
 * The stub code page lies below the stub data of every CPU the kernel can
 * have (as-layout.h: up to 64 blocks of 32 KiB on arm64), and the blocks
 * are aligned: 2.5 MiB covers it.
 */
#define SCAN_PAGES 640

/* struct stub_data: err, syscall_data_len, then the list at 16 */
#define SD_ERR 0
#define SD_LIST_LEN 8
#define SD_LIST 16
#define SD_LIST_ENTRY 40
/* after the list: restart_wait, single_step, futex, signal, si/mctx offset */
#define SD_RESTART_WAIT 0
#define SD_FUTEX 4
#define SD_SIGNAL 8
#define SD_SI_OFFSET 12
#define SD_MCTX_OFFSET 14
/* the stub's stack is at most 32 KiB (arm64); an offset past it is bad */
#define SD_STACK_MAX 32768
#define FUTEX_IN_KERN 1

/* The exit status of a child that found no frame to make a report of */
#define NO_FRAME 3

/* How long a child may take before it counts as hung */
#define CHILD_SECONDS 30

/* The flood case: its children, and what the kernel prints for each */
#define FLOOD_CHILDREN 100
#define FLOOD_LINE "invalid mcontext or siginfo offset"
/* the kernel's limit: 10 such messages per 5 s (stub_report_ratelimit()) */
#define RATELIMIT_BURST 10
#define RATELIMIT_SECONDS 5

static sigjmp_buf probe_env;

/* on SIGSEGV or SIGBUS while probing: the address is not readable */
static void probe_fault(int sig)
{
	(void)sig;
	siglongjmp(probe_env, 1);
}

/* readable() - whether the byte at @a can be read */
static int readable(unsigned long a)
{
	if (sigsetjmp(probe_env, 1))
		return 0;
	(void)*(volatile char *)a;
	return 1;
}

#if defined(__aarch64__)
#define SVC_0 0xd4000001u
#define BRK_0 0xd4200000u
static const int host_top_bits[] = { 36, 39, 42, 47, 48, 52 };

/* restorer_in_page() - the stub restorer's syscall in page @p, or 0 */
static unsigned long restorer_in_page(unsigned long p)
{
	const uint32_t *w = (const uint32_t *)p;
	unsigned long i;

	for (i = 0; i + 1 < PROBE_PAGE / 4; i++)
		if (w[i] == SVC_0 && w[i + 1] == BRK_0)
			return p + 4 * i;
	return 0;
}

/* jump_to_syscall() - run syscall @nr (@a0..@a3) from the stub's @insn */
static void jump_to_syscall(unsigned long insn, long nr, long a0, long a1,
			    long a2, long a3)
{
	register long x0 __asm__("x0") = a0;
	register long x1 __asm__("x1") = a1;
	register long x2 __asm__("x2") = a2;
	register long x3 __asm__("x3") = a3;
	register long x8 __asm__("x8") = nr;

	__asm__ volatile("br %[insn]"
			 : : [insn] "r"(insn), "r"(x0), "r"(x1), "r"(x2),
			   "r"(x3), "r"(x8)
			 : "memory");
	__builtin_unreachable();
}
#elif defined(__x86_64__)
static const unsigned char restorer_code[] = {
	0x48, 0xc7, 0xc0, 0x0f, 0x00, 0x00, 0x00,	/* mov $15,%rax */
	0x0f, 0x05					/* syscall */
};
static const int host_top_bits[] = { 47, 56 };

/* restorer_in_page() - the stub restorer's syscall in page @p, or 0 */
static unsigned long restorer_in_page(unsigned long p)
{
	const unsigned char *at = memmem((const void *)p, PROBE_PAGE,
					 restorer_code, sizeof(restorer_code));

	return at ? (unsigned long)at + 7 : 0;
}

/* jump_to_syscall() - run syscall @nr (@a0..@a3) from the stub's @insn */
static void jump_to_syscall(unsigned long insn, long nr, long a0, long a1,
			    long a2, long a3)
{
	register long rax __asm__("rax") = nr;
	register long rdi __asm__("rdi") = a0;
	register long rsi __asm__("rsi") = a1;
	register long rdx __asm__("rdx") = a2;
	register long r10 __asm__("r10") = a3;

	__asm__ volatile("jmp *%[insn]"
			 : : [insn] "r"(insn), "r"(rax), "r"(rdi), "r"(rsi),
			   "r"(rdx), "r"(r10)
			 : "memory");
	__builtin_unreachable();
}
#else
#error "stubreport: arm64 and x86_64 only"
#endif

/* find_stub_syscall() - the stub restorer's syscall below each host top */
static unsigned long find_stub_syscall(void)
{
	unsigned long top, p, insn;
	unsigned int i;

	for (i = 0; i < sizeof(host_top_bits) / sizeof(host_top_bits[0]); i++) {
		top = 1UL << host_top_bits[i];
		for (p = top - PROBE_PAGE; p >= top - SCAN_PAGES * PROBE_PAGE;
		     p -= PROBE_PAGE) {
			if (!readable(p))
				continue;
			insn = restorer_in_page(p);
			if (insn)
				return insn;
		}
	}
	return 0;
}

/* The stub data and where its fields after the syscall list are */
struct stub_fields {
	unsigned char *data;
	unsigned long tail;
};

/* field() - the address of the field at @off after the syscall list */
static void *field(const struct stub_fields *s, unsigned long off)
{
	return s->data + s->tail + off;
}

/*
 * seccomp_mode() - whether the stub has reported (the offsets of its last
 * signal frame are set): in ptrace mode it never does
 */
static int seccomp_mode(const struct stub_fields *s)
{
	return *(unsigned short *)field(s, SD_SI_OFFSET) ||
	       *(unsigned short *)field(s, SD_MCTX_OFFSET);
}

/*
 * stub_fields_find() - the stub data one guest page above the code page of
 * @insn; 0 if it looks as expected in SECCOMP mode: no syscall list, the
 * futex the guest's, a frame on the stub's stack
 */
static int stub_fields_find(unsigned long insn, struct stub_fields *s)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);

	s->data = (unsigned char *)((insn & ~(page - 1)) + page);
	s->tail = SD_LIST + (page - 128) / SD_LIST_ENTRY * SD_LIST_ENTRY;
	if (!readable((unsigned long)s->data)) {
		printf("STUBREPORT_FAIL no stub data readable at %p\n", s->data);
		return -1;
	}
	if (!seccomp_mode(s))
		return 0;
	if (*(int *)(s->data + SD_LIST_LEN) != 0 ||
	    *(unsigned int *)field(s, SD_FUTEX) != 0 ||
	    *(unsigned short *)field(s, SD_MCTX_OFFSET) >= SD_STACK_MAX) {
		printf("STUBREPORT_FAIL the stub data at %p is not laid out as this program expects (list length %d, futex %u, frame offset %u)\n",
		       s->data, *(int *)(s->data + SD_LIST_LEN),
		       *(unsigned int *)field(s, SD_FUTEX),
		       *(unsigned short *)field(s, SD_MCTX_OFFSET));
		return -1;
	}
	return 0;
}

/*
 * report() - hand the stub data over with @signal as the stub would; what
 * the caller wrote into it before is the report
 */
static void report(unsigned long insn, const struct stub_fields *s, int signal)
{
	unsigned int *futex = field(s, SD_FUTEX);

	*(int *)field(s, SD_SIGNAL) = signal;
	__atomic_store_n(futex, FUTEX_IN_KERN, __ATOMIC_RELEASE);
	jump_to_syscall(insn, SYS_futex, (long)futex, FUTEX_WAIT,
			FUTEX_IN_KERN, 0);
}

#if defined(__x86_64__)
/* The xstate frame: sw_reserved at 464 of the 512-byte legacy area */
#define FP_SW_MAGIC1 0x46505853u
#define FP_SW_MAGIC2 0x46505845u
#define FP_SW_MAGIC1_AT 464
#define FP_SW_EXTENDED_SIZE_AT 468
/* mcontext_t: 23 general registers, then the pointer to the FP state */
#define MC_FPREGS_AT (23 * 8)

/*
 * forge_fpstate() - make the xstate of the stub's last frame 0 bytes long,
 * with MAGIC2 where such a size puts it; 0 if there was an xstate frame
 */
static int forge_fpstate(const struct stub_fields *s)
{
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
	unsigned char *sigstack = s->data + page;
	unsigned char *mc = sigstack + *(unsigned short *)field(s, SD_MCTX_OFFSET);
	unsigned long fpregs = *(unsigned long *)(mc + MC_FPREGS_AT);
	unsigned char *fp = sigstack + (fpregs & (page - 1));

	if (fp < sigstack + 4 || *(uint32_t *)(fp + FP_SW_MAGIC1_AT) != FP_SW_MAGIC1)
		return -1;
	*(uint32_t *)(fp + FP_SW_EXTENDED_SIZE_AT) = 0;
	*(uint32_t *)(fp - 4) = FP_SW_MAGIC2;
	return 0;
}
#else
static int forge_fpstate(const struct stub_fields *s)
{
	(void)s;
	return -1;
}
#endif

/* pin_to_cpu() - keep the calling thread on CPU @cpu */
static void pin_to_cpu(int cpu)
{
	unsigned long mask = 1UL << cpu;

	syscall(SYS_sched_setaffinity, 0, sizeof(mask), &mask);
}

#if defined(__x86_64__)
/* The sizes in the register frame: the xstate's, and where it lies */
static void race_frame(unsigned char *mc, unsigned char *sigstack,
		       unsigned long page, unsigned int x)
{
	unsigned long fpregs = *(volatile unsigned long *)(mc + MC_FPREGS_AT);
	unsigned char *fp = sigstack + (fpregs & (page - 1));

	if (fp + FP_SW_EXTENDED_SIZE_AT + 4 <= sigstack + page)
		*(volatile uint32_t *)(fp + FP_SW_EXTENDED_SIZE_AT) = x;
	*(volatile unsigned long *)(mc + MC_FPREGS_AT) = fpregs ^ (x & 0xff0);
}
#else
/* mcontext_t: fault_address, 31 registers, sp, pc, pstate, then records */
#define MC_RESERVED_AT 288
#define FPSIMD_RECORD_SIZE 528

/* The sizes in the register frame: the records' */
static void race_frame(unsigned char *mc, unsigned char *sigstack,
		       unsigned long page, unsigned int x)
{
	(void)sigstack;
	(void)page;
	*(volatile uint32_t *)(mc + MC_RESERVED_AT + 4) =
		x & 1 ? x : FPSIMD_RECORD_SIZE;
	*(volatile uint32_t *)(mc + MC_RESERVED_AT + FPSIMD_RECORD_SIZE + 4) = x;
}
#endif

/*
 * race_writer() - on CPU 1, rewrite what the kernel checks in CPU 0's stub
 * data: bad and good offsets in turn, sizes in the frame
 */
static void *race_writer(void *arg)
{
	const struct stub_fields *s = arg;
	unsigned long page = (unsigned long)sysconf(_SC_PAGESIZE);
	volatile unsigned short *si = field(s, SD_SI_OFFSET);
	volatile unsigned short *mctx = field(s, SD_MCTX_OFFSET);
	unsigned short good_si = *si, good_mctx = *mctx;
	unsigned char *sigstack = s->data + page;
	unsigned int x = 1;

	pin_to_cpu(1);
	for (;;) {
		x = x * 1103515245u + 12345u;
		*si = x & 0x10000 ? 0xffff - (x >> 24) : good_si;
		*mctx = x & 0x20000 ? 0xffff - (x >> 24) : good_mctx;
		race_frame(sigstack + good_mctx, sigstack, page, x);
	}
	return NULL;
}

/* churn() - map a page, write it, unmap it: a sync that removes mappings */
static void churn(void)
{
	volatile char *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	if (p == MAP_FAILED)
		_exit(6);
	*p = 1;
	munmap((void *)p, 4096);
}

/*
 * syncrace_writer() - race_writer() with churn(): the thread on CPU 1
 * takes sync turns too, and may wait for the turn of the thread on CPU 0
 */
static void *syncrace_writer(void *arg)
{
	const struct stub_fields *s = arg;
	volatile unsigned short *si = field(s, SD_SI_OFFSET);
	volatile unsigned short *mctx = field(s, SD_MCTX_OFFSET);
	unsigned short good_si = *si, good_mctx = *mctx;
	unsigned int x = 1;

	pin_to_cpu(1);
	for (;;) {
		x = x * 1103515245u + 12345u;
		*si = x & 0x10000 ? 0xffff - (x >> 24) : good_si;
		*mctx = x & 0x20000 ? 0xffff - (x >> 24) : good_mctx;
		churn();
	}
	return NULL;
}

/*
 * race_round() - in a child: syscalls on CPU 0 while race_writer() runs,
 * until the kernel kills the child for a report it refused, or for a
 * tenth of a second
 */
static void race_round(const struct stub_fields *s, int syncs)
{
	struct timespec start, now;
	pthread_t writer;

	if (pthread_create(&writer, NULL,
			   syncs ? syncrace_writer : race_writer, (void *)s))
		_exit(4);
	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		if (syncs)
			churn();
		else
			syscall(SYS_getppid);
		clock_gettime(CLOCK_MONOTONIC, &now);
	} while ((now.tv_sec - start.tv_sec) * 1000000000L +
		 (now.tv_nsec - start.tv_nsec) < 100000000L);
	_exit(0);
}

/*
 * race, syncrace (@syncs): rounds of race_round() for three seconds; most
 * end with the kernel killing the round, which may read a bad offset at
 * any report
 */
static void race(const struct stub_fields *s, int syncs)
{
	time_t end = time(NULL) + 3;
	int status, rounds = 0;
	pid_t pid;

	if (!seccomp_mode(s) || sysconf(_SC_NPROCESSORS_ONLN) < 2)
		return;
	while (time(NULL) < end) {
		pid = fork();
		if (pid < 0)
			_exit(4);
		if (pid == 0)
			race_round(s, syncs);
		if (wait_child_for(pid, &status, CHILD_SECONDS))
			_exit(5);
		rounds++;
	}
	printf("stubreport: %s: %d rounds\n", syncs ? "syncrace" : "race",
	       rounds);
	fflush(stdout);
	_exit(0);
}

/* log_lines() - lines of the kernel log that hold @what, -1 if unreadable */
static int log_lines(const char *what)
{
	int size = klogctl(10 /* SYSLOG_ACTION_SIZE_BUFFER */, NULL, 0);
	char *buf, *p;
	int len, n = 0;

	if (size <= 0)
		return -1;
	buf = malloc(size + 1);
	if (!buf)
		return -1;
	len = klogctl(3 /* SYSLOG_ACTION_READ_ALL */, buf, size);
	if (len < 0) {
		free(buf);
		return -1;
	}
	buf[len] = 0;
	for (p = buf; (p = strstr(p, what)); p += strlen(what))
		n++;
	free(buf);
	return n;
}

/* now_s() - CLOCK_MONOTONIC in seconds */
static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec + t.tv_nsec / 1e9;
}

static void run_case(unsigned long insn, const struct stub_fields *s,
		     const char *what);

/*
 * flood() - FLOOD_CHILDREN siginfo reports at once; 0 if the kernel logged
 * them within the rate limit
 */
static int flood(unsigned long insn, const struct stub_fields *s)
{
	int before = log_lines(FLOOD_LINE), after, i, started, status, max;
	pid_t pid[FLOOD_CHILDREN];
	double t0 = now_s(), seconds;

	if (!seccomp_mode(s)) {
		printf("stubreport: flood: ptrace mode makes no reports\n");
		return 0;
	}
	if (before < 0) {
		printf("STUBREPORT_FAIL flood: cannot read the kernel log: %s\n",
		       strerror(errno));
		return 1;
	}
	fflush(stdout);
	for (started = 0; started < FLOOD_CHILDREN; started++) {
		pid[started] = fork();
		if (pid[started] < 0) {
			printf("STUBREPORT_FAIL flood: fork of child %d: %s\n",
			       started + 1, strerror(errno));
			break;
		}
		if (pid[started] == 0) {
			run_case(insn, s, "siginfo");
			_exit(0);
		}
	}
	for (i = 0; i < started; i++)
		if (wait_child_for(pid[i], &status, CHILD_SECONDS)) {
			printf("STUBREPORT_FAIL flood: a child hung\n");
			return 1;
		}
	seconds = now_s() - t0;
	after = log_lines(FLOOD_LINE);
	max = RATELIMIT_BURST * (int)(seconds / RATELIMIT_SECONDS + 2);
	printf("stubreport: flood: %d children, %d lines in %.1f s (at most %d)\n",
	       started, after - before, seconds, max);
	if (after - before > max) {
		printf("STUBREPORT_FAIL flood: %d forged reports printed %d lines in %.1f s: more than the kernel's limit of %d per %d s lets through (%d)\n",
		       started, after - before, seconds, RATELIMIT_BURST,
		       RATELIMIT_SECONDS, max);
		return 1;
	}
	return started < FLOOD_CHILDREN;
}

/* run_case() - in the child: case @what; returns only if the kernel let it */
static void run_case(unsigned long insn, const struct stub_fields *s,
		     const char *what)
{
	if (!strcmp(what, "restart")) {
		*(short *)field(s, SD_RESTART_WAIT) = 1;
		syscall(SYS_getppid);
		return;
	}
	if (!strcmp(what, "siginfo")) {
		*(unsigned short *)field(s, SD_SI_OFFSET) = 0xffff;
		report(insn, s, SIGSYS);
	}
	if (!strcmp(what, "mcontext")) {
		*(unsigned short *)field(s, SD_MCTX_OFFSET) = 0xffff;
		report(insn, s, SIGSYS);
	}
	if (!strcmp(what, "listlen")) {
		*(long *)(s->data + SD_ERR) = -EIO;
		*(int *)(s->data + SD_LIST_LEN) = 0x7fffffff;
		report(insn, s, SIGTRAP);
	}
	if (!strcmp(what, "listerr")) {
		*(long *)(s->data + SD_ERR) = (long)0xffffffff7fffffffUL;
		report(insn, s, SIGTRAP);
	}
	if (!strcmp(what, "fpstate")) {
		if (forge_fpstate(s))
			_exit(NO_FRAME);
		report(insn, s, SIGSYS);
	}
	if (!strcmp(what, "race"))
		race(s, 0);
	if (!strcmp(what, "syncrace"))
		race(s, 1);
}

/* attempt() - case @what in a child; 0 if it ended and the kernel runs */
static int attempt(unsigned long insn, const struct stub_fields *s,
		   const char *what)
{
	int status;
	pid_t pid;

	if (!strcmp(what, "flood"))
		return flood(insn, s);
	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("STUBREPORT_FAIL fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0) {
		run_case(insn, s, what);
		_exit(0);
	}
	if (wait_child_for(pid, &status, CHILD_SECONDS)) {
		printf("STUBREPORT_FAIL %s: the child hung\n", what);
		return 1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == NO_FRAME &&
	    seccomp_mode(s)) {
		printf("STUBREPORT_FAIL %s: no register frame of the stub to change\n",
		       what);
		return 1;
	}
	if (WIFSIGNALED(status))
		printf("stubreport: %s: the child was killed by signal %d\n",
		       what, WTERMSIG(status));
	else
		printf("stubreport: %s: the child exited with %d\n", what,
		       WEXITSTATUS(status));
	return 0;
}

/* known_case() - whether @what is one of the NULL-terminated @all */
static int known_case(const char *const *all, const char *what)
{
	for (; *all; all++)
		if (!strcmp(*all, what))
			return 1;
	return 0;
}

int main(int argc, char **argv)
{
	static const char *const all[] = { "restart", "siginfo", "mcontext",
					   "listlen", "listerr",
#if defined(__x86_64__)
					   "fpstate",
#endif
					   "race", "syncrace", "flood", NULL };
	const char *const *cases = argc > 1 ? (const char *const *)argv + 1 : all;
	struct stub_fields s;
	unsigned long insn;
	unsigned int i;
	int rc = 0;

	for (i = 0; cases[i]; i++)
		if (!known_case(all, cases[i])) {
			printf("STUBREPORT_FAIL unknown case %s\n", cases[i]);
			return 2;
		}
	/*
	 * With SMP in SECCOMP mode each CPU runs a process in a stub thread
	 * of its own, with its own stub data (a "lane"): the block right
	 * above the code page is CPU 0's.  Stay there, and the children with
	 * it.  (Fails on a kernel without SMP: one CPU, one block.)
	 */
	pin_to_cpu(0);
	signal(SIGSEGV, probe_fault);
	signal(SIGBUS, probe_fault);
	insn = find_stub_syscall();
	if (!insn) {
		printf("STUBREPORT_FAIL no stub code page found below any host top\n");
		return 1;
	}
	if (stub_fields_find(insn, &s))
		return 1;
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	printf("stubreport: stub syscall at 0x%lx, stub data at %p (%s mode)\n",
	       insn, s.data,
	       seccomp_mode(&s) ? "SECCOMP" : "ptrace");

	for (i = 0; cases[i]; i++)
		rc |= attempt(insn, &s, cases[i]);

	if (!rc) {
		printf("STUBREPORT_OK cases=");
		for (i = 0; cases[i]; i++)
			printf("%s%s", i ? "," : "", cases[i]);
		printf("\n");
	}
	return rc;
}
