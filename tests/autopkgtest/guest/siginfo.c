// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * siginfo.c - the siginfo of the signals a guest program gets from the kernel
 *
 * Each case raises one signal as arm64 (x86_64) Linux would deliver it and
 * checks si_signo, si_code and the address or sender fields against what
 * that kernel fills in:
 *
 *   segv-maperr  a load from an unmapped page: SEGV_MAPERR, si_addr = it
 *   segv-accerr  a store to a PROT_READ page: SEGV_ACCERR, si_addr = it
 *   bus-adrerr   a load beyond the end of a mapped file: BUS_ADRERR, si_addr
 *   ill-opc      an undefined instruction: ILL_ILLOPC (x86_64 ud2:
 *                ILL_ILLOPN), si_addr = its pc
 *   trap-brk     arm64 brk: TRAP_BRKPT, si_addr = its pc (x86_64 int3:
 *                SI_KERNEL)
 *   timer        a POSIX timer: SI_TIMER, si_value as set
 *   queue        sigqueue() to itself: SI_QUEUE, si_pid, si_uid, si_value
 *   kill         kill() to itself: SI_USER, si_pid, si_uid
 *   child        a child's exit: SIGCHLD, CLD_EXITED, si_pid, si_status
 *
 * Prints "SIGINFO_OK cases=N" or "SIGINFO_FAIL <case> <field> want got".
 */
#define _GNU_SOURCE
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#if defined(__aarch64__)
#define FRAME_PC(uc) ((uc)->uc_mcontext.pc)
#define UNDEFINED_INSN	".inst 0x00000000"	/* udf #0 */
#define UNDEFINED_CODE	ILL_ILLOPC
#define BREAK_INSN	"brk #0x42"
#define BREAK_CODE	TRAP_BRKPT
#define BREAK_ADDR_IS_PC 1
#elif defined(__x86_64__)
#define FRAME_PC(uc) ((uc)->uc_mcontext.gregs[REG_RIP])
#define UNDEFINED_INSN	"ud2"
#define UNDEFINED_CODE	ILL_ILLOPN
#define BREAK_INSN	"int3"
#define BREAK_CODE	SI_KERNEL
#define BREAK_ADDR_IS_PC 0
#else
#error "siginfo.c knows aarch64 and x86_64"
#endif

static sigjmp_buf env;
static siginfo_t seen;
static unsigned long seen_pc;
static volatile int arrived;
static int cases;

/* Keep the siginfo and the frame's pc; leave synchronous faults */
static void on_signal(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	seen = *si;
	seen_pc = FRAME_PC(uc);
	arrived = 1;
	if (sig == SIGSEGV || sig == SIGBUS || sig == SIGILL || sig == SIGTRAP)
		siglongjmp(env, 1);
}

static void catch(int sig)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigaction(sig, &sa, NULL);
}

static void check(const char *what, const char *field, long want, long got)
{
	if (want == got)
		return;
	printf("SIGINFO_FAIL %s %s want %#lx got %#lx\n", what, field,
	       (unsigned long)want, (unsigned long)got);
	exit(1);
}

/* expect() - a signal came, with this number and code */
static void expect(const char *what, int sig, int code)
{
	if (!arrived) {
		printf("SIGINFO_FAIL %s no signal\n", what);
		exit(1);
	}
	check(what, "si_signo", sig, seen.si_signo);
	check(what, "si_code", code, seen.si_code);
	arrived = 0;
	cases++;
}

static void fault_cases(void)
{
	long page = sysconf(_SC_PAGESIZE);
	volatile char *volatile p;
	char path[] = "/tmp/siginfo.XXXXXX";
	int fd;

	p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	munmap((void *)p, page);
	if (!sigsetjmp(env, 1))
		(void)p[16];
	expect("segv-maperr", SIGSEGV, SEGV_MAPERR);
	check("segv-maperr", "si_addr", (long)(p + 16), (long)seen.si_addr);

	p = mmap(NULL, page, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!sigsetjmp(env, 1))
		p[32] = 1;
	expect("segv-accerr", SIGSEGV, SEGV_ACCERR);
	check("segv-accerr", "si_addr", (long)(p + 32), (long)seen.si_addr);
	munmap((void *)p, page);

	fd = mkstemp(path);
	unlink(path);
	p = mmap(NULL, page, PROT_READ, MAP_SHARED, fd, 0);
	if (!sigsetjmp(env, 1))
		(void)p[8];
	expect("bus-adrerr", SIGBUS, BUS_ADRERR);
	check("bus-adrerr", "si_addr", (long)(p + 8), (long)seen.si_addr);
	munmap((void *)p, page);
	close(fd);
}

static void instruction_cases(void)
{
	if (!sigsetjmp(env, 1))
		__asm__ volatile(UNDEFINED_INSN);
	expect("ill-opc", SIGILL, UNDEFINED_CODE);
	check("ill-opc", "si_addr", (long)seen_pc, (long)seen.si_addr);

	if (!sigsetjmp(env, 1))
		__asm__ volatile(BREAK_INSN);
	expect("trap-brk", SIGTRAP, BREAK_CODE);
	if (BREAK_ADDR_IS_PC)
		check("trap-brk", "si_addr", (long)seen_pc, (long)seen.si_addr);
}

/*
 * wait_for_signal() - sleep until the handler ran.  The asynchronous
 * signals (the timer's, SIGCHLD) stay blocked outside sigsuspend(): with
 * "while (!arrived) pause()" one arriving between the test and pause()
 * would be handled there and the pause() would wait for ever.
 */
static void wait_for_signal(void)
{
	sigset_t open;

	sigprocmask(SIG_BLOCK, NULL, &open);
	sigdelset(&open, SIGRTMIN);
	sigdelset(&open, SIGCHLD);
	while (!arrived)
		sigsuspend(&open);
}

static void sender_cases(void)
{
	struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN };
	struct itimerspec its = { .it_value = { 0, 1000000 } };
	union sigval v = { .sival_int = 4242 };
	timer_t t;
	pid_t child;

	sev.sigev_value.sival_int = 777;
	timer_create(CLOCK_MONOTONIC, &sev, &t);
	timer_settime(t, 0, &its, NULL);
	wait_for_signal();
	expect("timer", SIGRTMIN, SI_TIMER);
	check("timer", "si_value", 777, seen.si_value.sival_int);
	timer_delete(t);

	sigqueue(getpid(), SIGUSR1, v);
	expect("queue", SIGUSR1, SI_QUEUE);
	check("queue", "si_pid", getpid(), seen.si_pid);
	check("queue", "si_uid", getuid(), seen.si_uid);
	check("queue", "si_value", 4242, seen.si_value.sival_int);

	kill(getpid(), SIGUSR2);
	expect("kill", SIGUSR2, SI_USER);
	check("kill", "si_pid", getpid(), seen.si_pid);
	check("kill", "si_uid", getuid(), seen.si_uid);

	child = fork();
	if (child == 0)
		_exit(37);
	wait_for_signal();
	expect("child", SIGCHLD, CLD_EXITED);
	check("child", "si_pid", child, seen.si_pid);
	check("child", "si_status", 37, seen.si_status);
	waitpid(child, NULL, 0);
}

/* Blocked but for sigsuspend(): see wait_for_signal() */
static void block_async_signals(void)
{
	sigset_t async;

	sigemptyset(&async);
	sigaddset(&async, SIGRTMIN);
	sigaddset(&async, SIGCHLD);
	sigprocmask(SIG_BLOCK, &async, NULL);
}

int main(void)
{
	int sigs[] = { SIGSEGV, SIGBUS, SIGILL, SIGTRAP, SIGUSR1, SIGUSR2, SIGCHLD };
	unsigned int i;

	setvbuf(stdout, NULL, _IOLBF, 0);
	for (i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		catch(sigs[i]);
	catch(SIGRTMIN);
	block_async_signals();
	fault_cases();
	instruction_cases();
	sender_cases();
	printf("SIGINFO_OK cases=%d\n", cases);
	return 0;
}
