// SPDX-License-Identifier: GPL-2.0
/*
 * case_sigtrap.c - the host's bare cost of a seccomp SECCOMP_RET_TRAP
 * round trip: the trapped syscall, the SIGSYS handler and its sigreturn
 *
 * SECCOMP-mode UML intercepts every guest syscall exactly so (the stub's
 * SIGSYS handler), so natively this is the floor a guest syscall in that
 * mode is compared with.  A seccomp filter cannot be removed and makes
 * every later syscall of the process slower, so the case runs in a child
 * of its own and reports through a pipe.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <signal.h>
#include <stddef.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "perfbench.h"

/* a syscall number that no Linux architecture assigns */
#define TRAP_NR		1023

#if defined(__x86_64__)
#define FILTER_ARCH	AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define FILTER_ARCH	AUDIT_ARCH_AARCH64
#else
#error "perfbench: sigtrap knows x86_64 and aarch64"
#endif

/* on_sigsys() - the handler: returning is the whole job (then sigreturn) */
static void on_sigsys(int sig, siginfo_t *info, void *uc)
{
	(void)sig;
	(void)info;
	(void)uc;
}

/**
 * trap_one_syscall() - install a filter that traps TRAP_NR and allows the
 * rest, with a SIGSYS handler for it
 *
 * Return: 0, or -errno (no seccomp filters here, e.g. under qemu-user)
 */
static int trap_one_syscall(void)
{
	struct sock_filter code[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, FILTER_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, TRAP_NR, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(code) / sizeof(code[0]),
		.filter = code,
	};
	struct sigaction sa = {
		.sa_sigaction = on_sigsys,
		.sa_flags = SA_SIGINFO,
	};

	if (sigaction(SIGSYS, &sa, NULL))
		return -errno;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -errno;
	if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
		return -errno;
	return 0;
}

/**
 * trap_loop() - the child: filter, @ops trapped syscalls, the nanoseconds
 * (or a negative errno) written to @out, exit
 * @ops:	round trips
 * @out:	write end of the pipe to the parent
 */
static void trap_loop(long ops, int out)
{
	int64_t result;
	uint64_t t0;
	long i;

	result = trap_one_syscall();
	if (!result) {
		t0 = now_ns();
		for (i = 0; i < ops; i++)
			syscall(TRAP_NR);
		result = (int64_t)(now_ns() - t0);
	}
	_exit(write(out, &result, sizeof(result)) == sizeof(result) ? 0 : 1);
}

/**
 * case_sigtrap() - @ops seccomp trap round trips, timed in a child
 * @ops:	round trips
 * @s:		result
 *
 * Return: 0, or -errno if the child could not run or seccomp filters
 * are not available
 */
int case_sigtrap(long ops, struct sample *s)
{
	int64_t result = -EIO;
	int fd[2];
	pid_t pid;

	if (pipe(fd))
		return -errno;
	pid = fork();
	if (pid < 0)
		return -errno;
	if (pid == 0) {
		close(fd[0]);
		trap_loop(ops, fd[1]);
	}
	close(fd[1]);
	if (read(fd[0], &result, sizeof(result)) != sizeof(result))
		result = -EIO;
	close(fd[0]);
	waitpid(pid, NULL, 0);
	if (result < 0)
		return (int)result;
	s->ns_total = (uint64_t)result;
	return 0;
}
