// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * stubcall.c - a guest program that runs syscalls from UML's stub code page
 *
 * UML maps its stub code and data at the top of every guest process's host
 * address space, where the guest's own page tables do not reach, but where
 * guest code can read and jump all the same.  In SECCOMP mode the host lets
 * syscalls from the stub code page through (the stub runs them for the
 * kernel), so a guest that jumps to one of its "svc #0" with registers of
 * its own asks the host directly.  With mmap() and a descriptor of the
 * kernel's physical memory that is the whole kernel; the kernel must let
 * no such call run.
 *
 * The program finds the stub code page by reading the last pages below each
 * plausible host top (2^36 ... 2^52), looking for the "svc #0" of the stub's
 * signal restorer that is followed by a "brk #0" (what follows the svc traps,
 * so the program gets control back).  The page must not be a mapping of the
 * guest.  Then, each in a child process, it runs from that svc:
 *
 *   - mmap() of an anonymous page at an address free in the guest: the host
 *     ran it if the page is writable but not in /proc/self/maps;
 *   - recvmsg() on descriptor 0 (where stubs got the kernel's descriptors);
 *   - futex(FUTEX_WAKE), an operation the stub does not use;
 *   - rt_sigreturn() with a frame of its own that blocks every signal and
 *     resumes in a loop without syscalls: the host restores it (that is
 *     what the stub uses the svc for), and a kernel that waits for the
 *     stub's answer to its timer signal would wait forever, with every
 *     other process of the guest.  The child must be killed, or keep
 *     running in the guest while the parent goes on (ptrace mode); a hang
 *     ends the gate without a marker.
 *
 * Each other child must be killed; a child that gets back from the svc
 * reports what the host did (an mmap() that returns -EINTR was taken by a
 * timer signal before the kernel read its notification: it is tried
 * again).  Prints STUBCALL_OK stub=0x... when every call was refused, else
 * STUBCALL_FAIL and why.  arm64 only.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/futex.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <ucontext.h>
#include <unistd.h>

#include "childwait.h"

#define SVC_0 0xd4000001u
#define BRK_0 0xd4200000u
/*
 * The stub code page lies below the stub data of every CPU the kernel can
 * have (as-layout.h: up to 64 blocks of 32 KiB on arm64), and the blocks
 * are aligned: 2.5 MiB covers it.
 */
#define SCAN_PAGES 640
#define PROBE_PAGE 4096UL

/* Attempts of a call that the kernel's timer signal interrupted */
#define EINTR_TRIES 100

/* Exit statuses of the children */
#define HOST_RAN 20
#define GUEST_RAN 10

/* How long a child that spins in the guest may run */
#define SPIN_SECONDS 30

static sigjmp_buf probe_env;
static volatile long trap_x0;

/*
 * on SIGSEGV or SIGBUS while probing: the address is not readable or
 * writable (SIGBUS: the vDSO's data pages that are not in use, the time
 * namespace's and getrandom's, below the vDSO under the top, as on arm64)
 */
static void probe_fault(int sig)
{
	(void)sig;
	siglongjmp(probe_env, 1);
}

/* on SIGTRAP: the brk after the svc; keep the syscall's result */
static void after_svc(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	trap_x0 = uc->uc_mcontext.regs[0];
	siglongjmp(probe_env, 1);
}

/* read_word() - the word at @a, or 0 with *ok cleared when unreadable */
static uint32_t read_word(unsigned long a, int *ok)
{
	uint32_t word;

	*ok = 0;
	if (sigsetjmp(probe_env, 1))
		return 0;
	word = *(volatile uint32_t *)a;
	*ok = 1;
	return word;
}

/* writable() - whether a byte at @a can be written */
static int writable(unsigned long a)
{
	if (sigsetjmp(probe_env, 1))
		return 0;
	*(volatile char *)a = 1;
	return 1;
}

/* in_maps() - whether @a lies in a mapping of /proc/self/maps */
static int in_maps(unsigned long a)
{
	FILE *f = fopen("/proc/self/maps", "r");
	unsigned long s, e;
	char line[512];
	int found = 0;

	if (!f)
		return 0;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx", &s, &e) == 2 && a >= s && a < e)
			found = 1;
	fclose(f);
	return found;
}

/* find_in_page() - the address of "svc #0; brk #0" in page @p, or 0 */
static unsigned long find_in_page(unsigned long p)
{
	unsigned long a;
	int ok;

	read_word(p, &ok);
	if (!ok)
		return 0;
	for (a = p; a + 8 <= p + PROBE_PAGE; a += 4)
		if (read_word(a, &ok) == SVC_0 && read_word(a + 4, &ok) == BRK_0)
			return a;
	return 0;
}

/* find_stub_svc() - the stub restorer's svc, searched below each host top */
static unsigned long find_stub_svc(void)
{
	static const int bits[] = { 36, 39, 42, 47, 48, 52 };
	unsigned long top, p, svc;
	unsigned int i;

	for (i = 0; i < sizeof(bits) / sizeof(bits[0]); i++) {
		top = 1UL << bits[i];
		for (p = top - PROBE_PAGE; p >= top - SCAN_PAGES * PROBE_PAGE;
		     p -= PROBE_PAGE) {
			svc = find_in_page(p);
			if (svc)
				return svc;
		}
	}
	return 0;
}

/* svc_at() - jump to the svc at @svc with syscall @nr and @a0..@a5 */
static void svc_at(unsigned long svc, long nr, long a0, long a1, long a2,
		   long a3, long a4, long a5)
{
	register long x0 __asm__("x0") = a0;
	register long x1 __asm__("x1") = a1;
	register long x2 __asm__("x2") = a2;
	register long x3 __asm__("x3") = a3;
	register long x4 __asm__("x4") = a4;
	register long x5 __asm__("x5") = a5;
	register long x8 __asm__("x8") = nr;

	__asm__ volatile("br %[svc]"
			 : : [svc] "r"(svc), "r"(x0), "r"(x1), "r"(x2),
			   "r"(x3), "r"(x4), "r"(x5), "r"(x8)
			 : "memory");
	__builtin_unreachable();
}

/* The loop the forged frame resumes in: no syscall, no fault */
static void spin(void)
{
	for (;;)
		__asm__ volatile("" ::: "memory");
}

/* FPSIMD_MAGIC: the one record rt_sigreturn requires */
#define FPSIMD_RECORD_MAGIC 0x46508001u
#define FPSIMD_RECORD_SIZE 528u

/* A signal frame as arm64's rt_sigreturn reads it at sp */
struct forged_frame {
	siginfo_t info;
	ucontext_t uc;
} __attribute__((aligned(16)));

/*
 * sigreturn_at() - run rt_sigreturn from the svc at @svc on a frame that
 * resumes in spin() with every signal blocked and no alternate stack
 */
static void sigreturn_at(unsigned long svc)
{
	static struct forged_frame frame;
	static char stack[16384] __attribute__((aligned(16)));
	uint32_t *rec = (uint32_t *)frame.uc.uc_mcontext.__reserved;

	memset(&frame, 0, sizeof(frame));
	sigfillset(&frame.uc.uc_sigmask);
	frame.uc.uc_stack.ss_flags = SS_DISABLE;
	frame.uc.uc_mcontext.sp = (unsigned long)(stack + sizeof(stack));
	frame.uc.uc_mcontext.pc = (unsigned long)spin;
	frame.uc.uc_mcontext.pstate = 0;
	rec[0] = FPSIMD_RECORD_MAGIC;
	rec[1] = FPSIMD_RECORD_SIZE;
	/* the terminator record after it is zero */

	__asm__ volatile("mov sp, %[frame]\n"
			 "mov x8, %[nr]\n"
			 "br %[svc]\n"
			 : : [frame] "r"(&frame), [nr] "i"(SYS_rt_sigreturn),
			   [svc] "r"(svc)
			 : "x8", "memory");
	__builtin_unreachable();
}

/* free_address() - a page-sized address nothing of the guest is mapped at */
static unsigned long free_address(void)
{
	long page = sysconf(_SC_PAGESIZE);
	void *p = mmap(NULL, page, PROT_NONE, MAP_PRIVATE | MAP_ANONYMOUS,
		       -1, 0);

	if (p == MAP_FAILED)
		return 0;
	munmap(p, page);
	return (unsigned long)p;
}

/*
 * run_child() - in the child: the call @what from the stub's svc; exits
 * HOST_RAN when the host ran it, GUEST_RAN when it ran as a guest syscall
 */
static void run_child(unsigned long svc, const char *what, unsigned long x)
{
	struct sigaction sa;
	long page = sysconf(_SC_PAGESIZE);
	/* changed between sigsetjmp() and the siglongjmp() back to it */
	volatile int tries;

	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = after_svc;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGTRAP, &sa, NULL);

	/*
	 * A notified call (mmap) that a timer signal of the kernel's
	 * interrupts before the kernel has read the notification returns
	 * -EINTR: the host ran nothing, and the kernel never saw it.  Again.
	 */
	for (tries = 0; tries < EINTR_TRIES; tries++) {
		if (!sigsetjmp(probe_env, 1)) {
			if (!strcmp(what, "mmap"))
				svc_at(svc, SYS_mmap, x, page, PROT_READ | PROT_WRITE,
				       MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED, -1, 0);
			else if (!strcmp(what, "sigmask"))
				sigreturn_at(svc);
			else if (!strcmp(what, "recvmsg"))
				svc_at(svc, SYS_recvmsg, 0, 0, MSG_DONTWAIT, 0, 0, 0);
			else
				svc_at(svc, SYS_futex, x, FUTEX_WAKE, 1, 0, 0, 0);
		}
		if (trap_x0 != -EINTR || strcmp(what, "mmap"))
			break;
	}

	signal(SIGSEGV, probe_fault);
	if (!strcmp(what, "mmap")) {
		if (in_maps(x))
			_exit(GUEST_RAN);
		if (writable(x)) {
			printf("STUBCALL_FAIL mmap from the stub page ran on the host: 0x%lx is writable and not in /proc/self/maps (x0=0x%lx)\n",
			       x, (unsigned long)trap_x0);
			fflush(stdout);
			_exit(HOST_RAN);
		}
	}
	printf("STUBCALL_FAIL %s from the stub page returned to the guest (x0=%ld)\n",
	       what, (long)trap_x0);
	fflush(stdout);
	_exit(HOST_RAN);
}

/*
 * wait_child() - wait for @pid; 1 if it still ran after SPIN_SECONDS (it
 * was killed then), 0 with *status filled in when it ended
 */
static int wait_child(pid_t pid, int *status)
{
	int r = wait_child_for(pid, status, SPIN_SECONDS);

	if (r < 0) {
		printf("STUBCALL_FAIL waitpid: %s\n", strerror(errno));
		exit(1);
	}
	return r;
}

/* attempt() - run @what from the stub's svc in a child; 0 if refused */
static int attempt(unsigned long svc, const char *what)
{
	unsigned long x = free_address();
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid < 0) {
		printf("STUBCALL_FAIL fork: %s\n", strerror(errno));
		return 1;
	}
	if (pid == 0)
		run_child(svc, what, x);
	if (wait_child(pid, &status)) {
		printf("stubcall: %s ran in the guest, which went on (child stopped after %d s)\n",
		       what, SPIN_SECONDS);
		return 0;
	}
	if (WIFSIGNALED(status)) {
		printf("stubcall: %s refused (child killed by signal %d)\n",
		       what, WTERMSIG(status));
		return 0;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == GUEST_RAN) {
		printf("stubcall: %s ran as a guest syscall\n", what);
		return 0;
	}
	return 1;
}

int main(void)
{
	static const char *const calls[] = { "mmap", "recvmsg", "futex",
					     "sigmask" };
	unsigned long svc;
	unsigned int i;
	int rc = 0;

	signal(SIGSEGV, probe_fault);
	signal(SIGBUS, probe_fault);
	svc = find_stub_svc();
	signal(SIGSEGV, SIG_DFL);
	signal(SIGBUS, SIG_DFL);
	if (!svc) {
		printf("STUBCALL_FAIL no stub code page found below any host top\n");
		return 1;
	}
	if (in_maps(svc)) {
		printf("STUBCALL_FAIL 0x%lx is a mapping of the guest, not the stub\n",
		       svc);
		return 1;
	}
	printf("stubcall: stub restorer svc at 0x%lx\n", svc);

	for (i = 0; i < sizeof(calls) / sizeof(calls[0]); i++)
		rc |= attempt(svc, calls[i]);

	if (!rc)
		printf("STUBCALL_OK stub=0x%lx\n", svc & ~(PROBE_PAGE - 1));
	return rc;
}
