// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * ptracer.c - ptrace inside the guest, as strace and gdb use it
 *
 * A child traces itself and runs a fixed script of syscalls; the parent
 * follows it with PTRACE_SYSCALL and checks, through the general register
 * set (PTRACE_GETREGSET NT_PRSTATUS):
 *
 *  1. syscall entry stops name the syscall (x8 on arm64, orig_rax on
 *     x86_64) and exit stops carry its result (getppid() == our pid);
 *  2. a result rewritten at the exit stop (PTRACE_SETREGSET) is what the
 *     child sees;
 *  3. a syscall cancelled at its entry stop (NT_ARM_SYSTEM_CALL = -1 on
 *     arm64, orig_rax = -1 on x86_64) does not run, and the result the
 *     tracer writes at its exit stop is returned;
 *  3a. the first argument is in x0 (rdi) at the entry stop, and one the
 *     tracer rewrites there is what the syscall gets: dup(BAD_FD) becomes
 *     dup(1) and succeeds;
 *  3b. on arm64, x7 reads 0 at every entry stop and 1 at every exit stop,
 *     a value the tracer writes there at getppid()'s entry is dropped, and
 *     the child finds its own x7 after the syscall (report_syscall());
 *  4. PTRACE_PEEKDATA / PTRACE_POKEDATA read and write the child's memory;
 *  5. PTRACE_SINGLESTEP executes one instruction: from a breakpoint
 *     followed by nops, each step stops with SIGTRAP and the program
 *     counter exactly one nop further (a kernel that lets the child run on
 *     to its next kernel entry fails here).  The steps go on through a
 *     syscall (one stop, after it, with its result: a host that ran the
 *     syscall itself would answer getpid() with its own pid), and on arm64
 *     before it through an add on a register the tracer wrote, a load that
 *     faults in a page the child never touched and a taken branch, each
 *     checked by pc and register.
 *
 * Prints "PTRACE_OK syscalls=N" on success, "PTRACE_FAIL <what>" otherwise.
 * Static, no dependencies: runs as init's umarm.run program.
 */

#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/wait.h>

#if defined(__aarch64__)
#include <asm/ptrace.h>
typedef struct user_pt_regs regs_t;
#define REG_NR(r)	((r).regs[8])
#define REG_RET(r)	((r).regs[0])
#define REG_ARG0(r)	((r).regs[0])
#define REG_PC(r)	((r).pc)
/* brk reports its own address: the tracer steps over it */
#define STEP_BLOCK	"brk #0x77\n nop\n nop\n nop\n nop\n"
#define BREAK_SIZE	4
#define NOP_SIZE	4
#ifndef NT_ARM_SYSTEM_CALL
#define NT_ARM_SYSTEM_CALL 0x404
#endif
#elif defined(__x86_64__)
typedef struct user_regs_struct regs_t;
#define REG_NR(r)	((r).orig_rax)
#define REG_RET(r)	((r).rax)
#define REG_ARG0(r)	((r).rdi)
#define REG_PC(r)	((r).rip)
/* int3 reports the address after itself */
#define STEP_BLOCK	"int3\n nop\n nop\n nop\n nop\n"
#define BREAK_SIZE	0
#define NOP_SIZE	1
#else
#error "ptracer.c knows aarch64 and x86_64"
#endif

#if defined(__aarch64__)
/*
 * After the nops: x10 += 1 (x10 written by the tracer), a load from an
 * untouched page (x12) into x11, a branch over a brk, then getpid().
 */
#define STEP_MORE	"add x10, x10, #1\n ldr x11, [x12]\n b 1f\n brk #0x78\n" \
			"1: mov x8, #172\n svc #0\n nop\n"
#define STEP_CLOBBER	"x0", "x8", "x10", "x11", "x12"
static char untouched[65536] __attribute__((aligned(65536)));
#else
/* After the nops: getpid() */
#define STEP_MORE	"mov $39, %%eax\n syscall\n nop\n"
#define STEP_CLOBBER	"rax", "rcx", "r11", "memory"
#endif

/* The child's script: the syscalls the tracer acts on, in this order. */
#define REWRITTEN_RESULT	4242	/* getpid() at its exit stop */
#define CANCELLED_RESULT	777	/* getuid(), cancelled at entry */
#define LOOPS			50	/* plain getppid() round trips */
#define BAD_FD			0x5a5a	/* dup()'s argument, made 1 at entry */

static volatile unsigned long poke_target = 0x1111;

static void fail(const char *fmt, ...)
{
	char buf[256];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(buf, sizeof(buf), fmt, ap);
	va_end(ap);
	printf("PTRACE_FAIL %s\n", buf);
	fflush(stdout);
	exit(1);
}

static void set_regs(pid_t pid, regs_t *r);

#if defined(__aarch64__)
/* x7_kept() - a getppid() with x7 set: the child's x7 survives its stops */
static int x7_kept(void)
{
	register long x0 __asm__("x0");
	register long x7 __asm__("x7") = 0x7777;
	register long x8 __asm__("x8") = SYS_getppid;

	__asm__ volatile("svc #0" : "=r"(x0), "+r"(x7) : "r"(x8) : "memory");
	return x7 == 0x7777 && x0 == getppid();
}

/*
 * check_x7() - at a syscall stop arm64 shows x7 = 0 (entry) or 1 (exit);
 * at getppid()'s entry the tracer also tries to change it
 */
static void check_x7(pid_t pid, regs_t *r, int entry)
{
	if (r->regs[7] != (entry ? 0 : 1))
		fail("x7 is %#llx at a syscall %s stop, not %d",
		     (unsigned long long)r->regs[7], entry ? "entry" : "exit",
		     entry ? 0 : 1);
	if (entry && REG_NR(*r) == SYS_getppid) {
		r->regs[7] = 0xdead;
		set_regs(pid, r);
		r->regs[7] = 0;
	}
}
#else
static int x7_kept(void)
{
	return 1;
}

static void check_x7(pid_t pid, regs_t *r, int entry)
{
	(void)pid;
	(void)r;
	(void)entry;
}
#endif

/* The traced child: exit status 0 when everything it saw was right. */
static int child(void)
{
	long r;
	int i;

	if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
		return 10;
	raise(SIGSTOP);
	/* 5: the tracer single-steps us through the nops and on */
#if defined(__aarch64__)
	asm volatile ("mov x12, %0\n" STEP_BLOCK STEP_MORE
		      :: "r" (untouched) : STEP_CLOBBER, "memory");
#else
	asm volatile (STEP_BLOCK STEP_MORE ::: STEP_CLOBBER);
#endif
	for (i = 0; i < LOOPS; i++)
		if (syscall(SYS_getppid) != getppid())
			return 11;
	if (!x7_kept())
		return 16;
	r = syscall(SYS_getpid);
	if (r != REWRITTEN_RESULT)
		return 12;
	r = syscall(SYS_getuid);
	if (r != CANCELLED_RESULT)
		return 13;
	r = syscall(SYS_dup, BAD_FD);
	if (r < 0)
		return 15;
	/* 4: the tracer poked this while we were stopped at getuid */
	if (poke_target != 0x2222)
		return 14;
	return 0;
}

static void get_regs(pid_t pid, regs_t *r)
{
	struct iovec iov = { r, sizeof(*r) };

	if (ptrace(PTRACE_GETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		fail("PTRACE_GETREGSET NT_PRSTATUS: %s", strerror(errno));
	if (iov.iov_len != sizeof(*r))
		fail("NT_PRSTATUS is %zu bytes, not %zu", iov.iov_len, sizeof(*r));
}

static void set_regs(pid_t pid, regs_t *r)
{
	struct iovec iov = { r, sizeof(*r) };

	if (ptrace(PTRACE_SETREGSET, pid, (void *)NT_PRSTATUS, &iov))
		fail("PTRACE_SETREGSET NT_PRSTATUS: %s", strerror(errno));
}

/* cancel_syscall() - make the syscall at this entry stop not run */
static void cancel_syscall(pid_t pid, regs_t *r)
{
#if defined(__aarch64__)
	int nr = -1;
	struct iovec iov = { &nr, sizeof(nr) };

	(void)r;
	if (ptrace(PTRACE_SETREGSET, pid, (void *)NT_ARM_SYSTEM_CALL, &iov))
		fail("PTRACE_SETREGSET NT_ARM_SYSTEM_CALL: %s", strerror(errno));
#else
	REG_NR(*r) = -1;
	set_regs(pid, r);
#endif
}

/* wait_stop() - wait for the child's next stop; return its stop signal */
static int wait_stop(pid_t pid, const char *what)
{
	int st;

	if (waitpid(pid, &st, 0) != pid)
		fail("waitpid after %s: %s", what, strerror(errno));
	if (WIFEXITED(st))
		fail("the child exited with %d after %s", WEXITSTATUS(st), what);
	if (WIFSIGNALED(st))
		fail("the child was killed by signal %d after %s", WTERMSIG(st), what);
	return WSTOPSIG(st);
}

/* step_one() - one PTRACE_SINGLESTEP that must stop with SIGTRAP */
static void step_one(pid_t pid, regs_t *r, const char *what)
{
	int sig;

	if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
		fail("PTRACE_SINGLESTEP (%s): %s", what, strerror(errno));
	sig = wait_stop(pid, what);
	if (sig != SIGTRAP)
		fail("single-step over %s stopped with signal %d, not SIGTRAP", what, sig);
	get_regs(pid, r);
}

/* step_check() - after a step over @what, pc must be @want_pc */
static void step_check(regs_t *r, const char *what, unsigned long want_pc)
{
	if (REG_PC(*r) != want_pc)
		fail("single-step over %s went to pc %#llx, not %#lx",
		     what, (unsigned long long)REG_PC(*r), want_pc);
}

#if defined(__aarch64__)
/*
 * step_on() - step through the last nop and STEP_MORE, from @pc
 *
 * Registers the tracer writes must be what the stepped code sees, a fault
 * inside a step is the kernel's business (the tracer sees one SIGTRAP after
 * the load), a branch lands on its target, and a stepped syscall runs once
 * and stops after itself with its result.
 */
static void step_on(pid_t pid, unsigned long pc)
{
	regs_t r;

	step_one(pid, &r, "the last nop");
	step_check(&r, "the last nop", pc + 4);
	pc += 4;
	r.regs[10] = 0x5a00;
	set_regs(pid, &r);

	step_one(pid, &r, "add");
	step_check(&r, "add", pc + 4);
	if (r.regs[10] != 0x5a01)
		fail("single-step over add left x10 = %#llx, not 0x5a01",
		     (unsigned long long)r.regs[10]);
	r.regs[11] = 0x77;
	set_regs(pid, &r);

	step_one(pid, &r, "a faulting load");
	step_check(&r, "a faulting load", pc + 8);
	if (r.regs[11] != 0)
		fail("single-step over the load left x11 = %#llx, not 0",
		     (unsigned long long)r.regs[11]);

	step_one(pid, &r, "a branch");
	step_check(&r, "a branch", pc + 16);
	step_one(pid, &r, "mov x8");
	step_check(&r, "mov x8", pc + 20);

	step_one(pid, &r, "svc");
	step_check(&r, "svc", pc + 24);
	if (r.regs[0] != (unsigned long)pid)
		fail("single-step over getpid() left x0 = %#llx, not pid %d",
		     (unsigned long long)r.regs[0], pid);
	printf("ptracer: stepped an add, a faulting load, a branch and a syscall\n");
}
#else
/* step_on() - step through the last nop, a mov and a syscall, from @pc */
static void step_on(pid_t pid, unsigned long pc)
{
	regs_t r;

	step_one(pid, &r, "the last nop");
	step_check(&r, "the last nop", pc + 1);
	step_one(pid, &r, "mov eax");
	step_check(&r, "mov eax", pc + 6);
	step_one(pid, &r, "syscall");
	step_check(&r, "syscall", pc + 8);
	if (r.rax != (unsigned long)pid)
		fail("single-step over getpid() left rax = %#llx, not pid %d",
		     (unsigned long long)r.rax, pid);
	printf("ptracer: stepped a mov and a syscall\n");
}
#endif

static void single_step(pid_t pid)
{
	regs_t r;
	unsigned long pc;
	int i, sig;

	if (ptrace(PTRACE_CONT, pid, NULL, NULL))
		fail("PTRACE_CONT to the breakpoint: %s", strerror(errno));
	sig = wait_stop(pid, "PTRACE_CONT to the breakpoint");
	if (sig != SIGTRAP)
		fail("the breakpoint stopped the child with signal %d", sig);
	get_regs(pid, &r);
	REG_PC(r) += BREAK_SIZE;
	set_regs(pid, &r);
	pc = REG_PC(r);
	for (i = 0; i < 3; i++) {
		if (ptrace(PTRACE_SINGLESTEP, pid, NULL, NULL))
			fail("PTRACE_SINGLESTEP: %s", strerror(errno));
		sig = wait_stop(pid, "PTRACE_SINGLESTEP");
		if (sig != SIGTRAP)
			fail("single-step %d stopped with signal %d, not SIGTRAP", i, sig);
		get_regs(pid, &r);
		if (REG_PC(r) != pc + NOP_SIZE)
			fail("single-step %d went from pc %#lx to %#llx, not one nop",
			     i, pc, (unsigned long long)REG_PC(r));
		pc = REG_PC(r);
	}
	printf("ptracer: three single-steps, one nop each, to pc %#lx\n", pc);
	step_on(pid, pc);
}

int main(void)
{
	pid_t pid, me = getpid();
	int sig, st, entry = 1, nsys = 0, getppids = 0;
	long nr = -1;
	regs_t r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	pid = fork();
	if (pid < 0)
		fail("fork: %s", strerror(errno));
	if (pid == 0)
		_exit(child());

	sig = wait_stop(pid, "PTRACE_TRACEME");
	if (sig != SIGSTOP)
		fail("first stop is signal %d, not SIGSTOP", sig);
	if (ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL)))
		fail("PTRACE_SETOPTIONS: %s", strerror(errno));
	single_step(pid);

	for (;;) {
		if (ptrace(PTRACE_SYSCALL, pid, NULL, NULL))
			fail("PTRACE_SYSCALL: %s", strerror(errno));
		if (waitpid(pid, &st, 0) != pid)
			fail("waitpid: %s", strerror(errno));
		if (WIFEXITED(st)) {
			if (WEXITSTATUS(st))
				fail("the child saw a wrong result (exit %d)", WEXITSTATUS(st));
			break;
		}
		if (WIFSIGNALED(st))
			fail("the child was killed by signal %d", WTERMSIG(st));
		sig = WSTOPSIG(st);
		if (sig != (SIGTRAP | 0x80)) {
			fail("unexpected stop, signal %d", sig);
		}
		get_regs(pid, &r);
		check_x7(pid, &r, entry);
		if (entry) {
			nr = (long)REG_NR(r);
			nsys++;
			if (nr == SYS_getuid) {
				long word;

				errno = 0;
				word = ptrace(PTRACE_PEEKDATA, pid, (void *)&poke_target, NULL);
				if (word != 0x1111 || errno)
					fail("PTRACE_PEEKDATA read %#lx (%s), not 0x1111",
					     (unsigned long)word, strerror(errno));
				if (ptrace(PTRACE_POKEDATA, pid, (void *)&poke_target, (void *)0x2222))
					fail("PTRACE_POKEDATA: %s", strerror(errno));
				cancel_syscall(pid, &r);
			} else if (nr == SYS_dup) {
				if ((long)REG_ARG0(r) != BAD_FD)
					fail("dup entry stop: first argument %#lx, not %#x",
					     (unsigned long)REG_ARG0(r), BAD_FD);
				REG_ARG0(r) = 1;
				set_regs(pid, &r);
			}
		} else {
			if (nr == SYS_getppid) {
				getppids++;
				if ((long)REG_RET(r) != me)
					fail("getppid exit stop: result %ld, not %d", (long)REG_RET(r), me);
			} else if (nr == SYS_getpid) {
				if ((long)REG_RET(r) != pid)
					fail("getpid exit stop: result %ld, not %d", (long)REG_RET(r), pid);
				REG_RET(r) = REWRITTEN_RESULT;
				set_regs(pid, &r);
			} else if (nr == SYS_getuid) {
				REG_RET(r) = CANCELLED_RESULT;
				set_regs(pid, &r);
			}
		}
		entry = !entry;
	}
	if (getppids < LOOPS)
		fail("saw %d getppid exit stops, not %d", getppids, LOOPS);
	printf("PTRACE_OK syscalls=%d getppid=%d\n", nsys, getppids);
	return 0;
}
