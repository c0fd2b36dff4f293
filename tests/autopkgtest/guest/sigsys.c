// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sigsys.c - what a guest seccomp filter and its SIGSYS see
 *
 * Sandboxes and syscall interposers install a filter that traps a syscall
 * (SECCOMP_RET_TRAP) and emulate it in their SIGSYS handler, and some
 * filters test the instruction pointer of the call.  On arm64 and x86_64
 * Linux both the filter's seccomp_data.instruction_pointer and the
 * siginfo's si_call_addr are the address right after the syscall
 * instruction, the pc of the handler's frame; si_code is SYS_SECCOMP,
 * si_errno the filter's SECCOMP_RET_DATA, si_syscall and si_arch the call's.
 *
 * The program calls getppid() through trap_getppid() (a syscall
 * instruction followed by the global label trap_getppid_ret).  Its filter
 * traps getppid() only when the instruction pointer is trap_getppid_ret,
 * else fails it with EDOM; the handler checks every field.
 *
 * Prints "SIGSYS_OK call_addr=0x..." or "SIGSYS_FAIL <what>".
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <unistd.h>

#define TRAP_DATA 0x123
#ifndef SYS_SECCOMP
#define SYS_SECCOMP 1
#endif

#if defined(__aarch64__)
#define NATIVE_ARCH AUDIT_ARCH_AARCH64
#define FRAME_PC(uc) ((uc)->uc_mcontext.pc)
_Static_assert(__NR_getppid == 173, "trap_getppid() hard-codes getppid");
__asm__(".text\n"
	".global trap_getppid\n"
	"trap_getppid:\n"
	"	mov x8, #173\n"
	"	svc #0\n"
	".global trap_getppid_ret\n"
	"trap_getppid_ret:\n"
	"	ret\n");
#elif defined(__x86_64__)
#define NATIVE_ARCH AUDIT_ARCH_X86_64
#define FRAME_PC(uc) ((uc)->uc_mcontext.gregs[REG_RIP])
_Static_assert(__NR_getppid == 110, "trap_getppid() hard-codes getppid");
__asm__(".text\n"
	".global trap_getppid\n"
	"trap_getppid:\n"
	"	mov $110, %eax\n"
	"	syscall\n"
	".global trap_getppid_ret\n"
	"trap_getppid_ret:\n"
	"	ret\n");
#else
#error "sigsys.c knows aarch64 and x86_64"
#endif

long trap_getppid(void);
extern char trap_getppid_ret[];

static volatile siginfo_t seen;
static volatile unsigned long seen_pc;
static volatile int trapped;

/* The SIGSYS handler: keep what the kernel reported */
static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	memcpy((void *)&seen, si, sizeof(*si));
	seen_pc = FRAME_PC(uc);
	trapped = 1;
}

static void fail(const char *what, unsigned long want, unsigned long got)
{
	printf("SIGSYS_FAIL %s: want %#lx, got %#lx\n", what, want, got);
	exit(1);
}

/* trap getppid() from trap_getppid_ret's call only; elsewhere EDOM */
static void install_filter(void)
{
	unsigned long ip = (unsigned long)trap_getppid_ret;
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, NATIVE_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_getppid, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)ip, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, instruction_pointer) + 4),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, (__u32)(ip >> 32), 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP | TRAP_DATA),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EDOM),
	};
	struct sock_fprog prog = { sizeof(f) / sizeof(f[0]), f };

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		printf("SIGSYS_FAIL installing the filter: %s\n", strerror(errno));
		exit(1);
	}
}

int main(void)
{
	unsigned long want = (unsigned long)trap_getppid_ret;
	struct sigaction sa;
	long r;

	setvbuf(stdout, NULL, _IOLBF, 0);
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_sigsys;
	sa.sa_flags = SA_SIGINFO;
	sigaction(SIGSYS, &sa, NULL);
	install_filter();

	r = trap_getppid();
	if (!trapped) {
		if (r == -EDOM)
			printf("SIGSYS_FAIL the filter saw another instruction pointer than %#lx\n",
			       want);
		else
			printf("SIGSYS_FAIL getppid() was not trapped (returned %ld)\n", r);
		return 1;
	}
	if (seen.si_signo != SIGSYS)
		fail("si_signo", SIGSYS, seen.si_signo);
	if (seen.si_code != SYS_SECCOMP)
		fail("si_code", SYS_SECCOMP, seen.si_code);
	if (seen.si_errno != TRAP_DATA)
		fail("si_errno (SECCOMP_RET_DATA)", TRAP_DATA, seen.si_errno);
	if ((unsigned long)seen.si_call_addr != want)
		fail("si_call_addr", want, (unsigned long)seen.si_call_addr);
	if (seen.si_syscall != __NR_getppid)
		fail("si_syscall", __NR_getppid, seen.si_syscall);
	if (seen.si_arch != NATIVE_ARCH)
		fail("si_arch", NATIVE_ARCH, seen.si_arch);
	if (seen_pc != want)
		fail("the handler's frame pc", want, seen_pc);
	printf("SIGSYS_OK call_addr=%#lx\n", want);
	return 0;
}
