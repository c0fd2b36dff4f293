// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostprobe.c - report what an arm64 host kernel offers User-Mode Linux
 *
 * Prints one "key=value" line per property (yes/no or a number), then
 * "HOST_PROBE_DONE".  Each ptrace or seccomp test runs in a forked child, so
 * a failing test cannot take the probe down, and an alarm kills a child that
 * hangs.  A test that cannot run at all reports "no".
 *
 * Build: cc -O2 -o hostprobe hostprobe.c
 *        clang-19 --target=aarch64-linux-gnu -fuse-ld=lld -static ... (x86_64)
 */
#define _GNU_SOURCE
#include <elf.h>
#include <errno.h>
#include <signal.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/auxv.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/ptrace.h>
#include <sys/syscall.h>
#include <sys/uio.h>
#include <sys/user.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#ifndef __aarch64__
#error "hostprobe probes arm64 hosts only"
#endif

/* The value a tracer or a SIGSYS handler makes getppid() return */
#define FAKE_RET		4242
/* getppid() takes no argument: x0 at entry is ours to mark */
#define ENTRY_MARK		0x5a5a5a5aL
/* Seconds a child test may take */
#define CHILD_TIMEOUT		20

/* Not in every libc: the kernel's values (arch-independent since 5.3) */
#define PROBE_PTRACE_SYSEMU	31
#ifndef NT_ARM_SYSTEM_CALL
#define NT_ARM_SYSTEM_CALL	0x404
#endif
#ifndef PR_SVE_GET_VL
#define PR_SVE_GET_VL		51
#endif
#ifndef PR_SVE_VL_LEN_MASK
#define PR_SVE_VL_LEN_MASK	0xffff
#endif
#ifndef PR_PAC_SET_ENABLED_KEYS
#define PR_PAC_SET_ENABLED_KEYS	60
#define PR_PAC_GET_ENABLED_KEYS	61
#endif
#ifndef PR_PAC_APIAKEY
#define PR_PAC_APIAKEY		(1UL << 0)
#define PR_PAC_APIBKEY		(1UL << 1)
#define PR_PAC_APDAKEY		(1UL << 2)
#define PR_PAC_APDBKEY		(1UL << 3)
#endif
#define PR_PAC_ALL_KEYS		(PR_PAC_APIAKEY | PR_PAC_APIBKEY | \
				 PR_PAC_APDAKEY | PR_PAC_APDBKEY)
#ifndef SYS_SECCOMP
#define SYS_SECCOMP		1	/* si_code of a seccomp SIGSYS */
#endif
#ifndef AT_MINSIGSTKSZ
#define AT_MINSIGSTKSZ		51
#endif
#ifndef HWCAP_SVE
#define HWCAP_SVE		(1UL << 22)
#endif
#ifndef HWCAP_PACA
#define HWCAP_PACA		(1UL << 30)
#define HWCAP_PACG		(1UL << 31)
#endif
#ifndef HWCAP2_SVE2
#define HWCAP2_SVE2		(1UL << 1)
#endif
#ifndef HWCAP2_BTI
#define HWCAP2_BTI		(1UL << 17)
#endif
#ifndef HWCAP2_MTE
#define HWCAP2_MTE		(1UL << 18)
#endif

static pid_t child_pid;

/**
 * yesno() - print a boolean property
 * @key:	property name
 * @val:	its value
 */
static void yesno(const char *key, int val)
{
	printf("%s=%s\n", key, val ? "yes" : "no");
}

/**
 * kill_child() - SIGALRM handler: kill the child under test
 * @sig:	signal number, unused
 */
static void kill_child(int sig)
{
	(void)sig;
	if (child_pid > 0)
		kill(child_pid, SIGKILL);
}

/**
 * wait_child() - wait for the child under test, killing it on timeout
 * @pid:	the child
 * @status:	its wait status, filled in
 *
 * Return: 0 once the child stopped or exited, -1 on error
 */
static int wait_child(pid_t pid, int *status)
{
	int ret;

	child_pid = pid;
	alarm(CHILD_TIMEOUT);
	ret = waitpid(pid, status, __WALL);
	alarm(0);
	return ret == pid ? 0 : -1;
}

/**
 * reap_child() - kill and reap a child that failed a test
 * @pid:	the child
 */
static void reap_child(pid_t pid)
{
	int status;

	kill(pid, SIGKILL);
	while (waitpid(pid, &status, __WALL) == pid && !WIFEXITED(status) &&
	       !WIFSIGNALED(status))
		;
}

/**
 * child_exited_ok() - wait until the child exits; did it exit with 0?
 * @pid:	the child
 *
 * Return: 1 if the child exited with status 0, else 0
 */
static int child_exited_ok(pid_t pid)
{
	int status;

	if (wait_child(pid, &status)) {
		reap_child(pid);
		return 0;
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0;
}

/**
 * traced_child() - fork a child that stops itself under ptrace, then calls
 *		    getppid() with ENTRY_MARK in x0
 *
 * The child exits with 0 if getppid() returned FAKE_RET, 1 if not.  Once
 * stopped, it has PTRACE_O_EXITKILL and PTRACE_O_TRACESYSGOOD set.
 *
 * Return: the child's pid, stopped, or -1 on error
 */
static pid_t traced_child(void)
{
	int status;
	pid_t pid;
	long ret;

	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		if (ptrace(PTRACE_TRACEME, 0, NULL, NULL))
			_exit(2);
		raise(SIGSTOP);
		ret = syscall(SYS_getppid, ENTRY_MARK);
		_exit(ret == FAKE_RET ? 0 : 1);
	}
	if (wait_child(pid, &status) || !WIFSTOPPED(status) ||
	    WSTOPSIG(status) != SIGSTOP ||
	    ptrace(PTRACE_SETOPTIONS, pid, NULL,
		   (void *)(PTRACE_O_TRACESYSGOOD | PTRACE_O_EXITKILL))) {
		reap_child(pid);
		return -1;
	}
	return pid;
}

/**
 * syscall_stop() - resume a traced child with REQUEST, wait for a syscall stop
 * @pid:	the child
 * @request:	PTRACE_SYSCALL or PTRACE_SYSEMU
 *
 * Return: 0 at a syscall stop, -1 otherwise
 */
static int syscall_stop(pid_t pid, int request)
{
	int status;

	if (ptrace(request, pid, NULL, NULL))
		return -1;
	if (wait_child(pid, &status))
		return -1;
	return WIFSTOPPED(status) && WSTOPSIG(status) == (SIGTRAP | 0x80) ?
	       0 : -1;
}

/**
 * regs_io() - read or write the general registers of a stopped child
 * @pid:	the child
 * @regs:	register buffer
 * @set:	write @regs if non-zero, else read them
 *
 * Return: 0 on success, -1 on error
 */
static int regs_io(pid_t pid, struct user_regs_struct *regs, int set)
{
	struct iovec iov = { .iov_base = regs, .iov_len = sizeof(*regs) };

	return ptrace(set ? PTRACE_SETREGSET : PTRACE_GETREGSET, pid,
		      (void *)NT_PRSTATUS, &iov) ? -1 : 0;
}

/**
 * probe_sysemu() - does PTRACE_SYSEMU intercept a system call?
 *
 * Supported on arm64 since kernel 5.3 (commit f086f67485c5).  UML's ptrace
 * mode stops its userspace processes at every system call with it.
 *
 * Return: 1 if the child's getppid() was intercepted and got our result
 */
static int probe_sysemu(void)
{
	struct user_regs_struct regs;
	pid_t pid;

	pid = traced_child();
	if (pid < 0)
		return 0;
	if (syscall_stop(pid, PROBE_PTRACE_SYSEMU) || regs_io(pid, &regs, 0) ||
	    regs.regs[8] != SYS_getppid)
		goto fail;
	regs.regs[0] = FAKE_RET;
	if (regs_io(pid, &regs, 1) || ptrace(PTRACE_CONT, pid, NULL, NULL))
		goto fail;
	return child_exited_ok(pid);
fail:
	reap_child(pid);
	return 0;
}

/**
 * probe_syscall_cancel() - can a tracer cancel a system call at entry?
 *
 * At the entry stop NT_ARM_SYSTEM_CALL is set to -1; at the exit stop x0
 * must not hold the parent's pid (the call did not run) and is set to the
 * fake result.  NT_ARM_SYSTEM_CALL exists since kernel 3.19.
 *
 * Return: 1 if the system call was skipped and the child saw our result
 */
static int probe_syscall_cancel(void)
{
	struct user_regs_struct regs;
	int nr = -1;
	struct iovec iov = { .iov_base = &nr, .iov_len = sizeof(nr) };
	pid_t pid;

	pid = traced_child();
	if (pid < 0)
		return 0;
	if (syscall_stop(pid, PTRACE_SYSCALL) || regs_io(pid, &regs, 0) ||
	    regs.regs[8] != SYS_getppid)
		goto fail;
	if (ptrace(PTRACE_SETREGSET, pid, (void *)NT_ARM_SYSTEM_CALL, &iov))
		goto fail;
	if (syscall_stop(pid, PTRACE_SYSCALL) || regs_io(pid, &regs, 0))
		goto fail;
	if (regs.regs[0] == (unsigned long long)getpid())
		goto fail;
	regs.regs[0] = FAKE_RET;
	if (regs_io(pid, &regs, 1) || ptrace(PTRACE_CONT, pid, NULL, NULL))
		goto fail;
	return child_exited_ok(pid);
fail:
	reap_child(pid);
	return 0;
}

/**
 * sigsys_handler() - fake the result of the trapped getppid()
 * @sig:	SIGSYS
 * @info:	must say SYS_SECCOMP for getppid
 * @ctx:	the ucontext whose x0 becomes the result
 */
static void sigsys_handler(int sig, siginfo_t *info, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	if (info->si_code == SYS_SECCOMP && info->si_syscall == SYS_getppid)
		uc->uc_mcontext.regs[0] = FAKE_RET;
}

/**
 * probe_seccomp_trap() - does SECCOMP_RET_TRAP deliver SIGSYS for a call?
 *
 * UML's seccomp mode traps its userspace system calls this way.  The child
 * installs a filter that traps getppid() only.
 *
 * Return: 1 if the child's getppid() was trapped and faked by its handler
 */
static int probe_seccomp_trap(void)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_AARCH64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_getppid, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};
	struct sigaction sa = {
		.sa_sigaction = sigsys_handler,
		.sa_flags = SA_SIGINFO,
	};
	pid_t pid;

	pid = fork();
	if (pid < 0)
		return 0;
	if (pid == 0) {
		if (sigaction(SIGSYS, &sa, NULL) ||
		    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
		    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog))
			_exit(2);
		_exit(syscall(SYS_getppid) == FAKE_RET ? 0 : 1);
	}
	return child_exited_ok(pid);
}

/**
 * probe_va_bits() - the number of user virtual address bits
 *
 * The highest page just below 2^bits is mapped with MAP_FIXED_NOREPLACE
 * (since 4.17; an older kernel takes it as a hint and returns another
 * address, which counts as "not mappable").  EEXIST means something already
 * lives there, so the address is valid too.  52-bit user addresses are only
 * handed out on request, which a fixed mapping is.
 *
 * Return: the largest bits for which that page is mappable, or 0
 */
static int probe_va_bits(void)
{
	long page = sysconf(_SC_PAGESIZE);
	int bits;

	for (bits = 56; bits >= 32; bits--) {
		uintptr_t addr = ((uintptr_t)1 << bits) - page;
		void *p = mmap((void *)addr, page, PROT_NONE,
			       MAP_PRIVATE | MAP_ANONYMOUS |
			       MAP_FIXED_NOREPLACE, -1, 0);

		if (p == MAP_FAILED) {
			if (errno == EEXIST)
				return bits;
			continue;
		}
		munmap(p, page);
		if ((uintptr_t)p == addr)
			return bits;
	}
	return 0;
}

/**
 * probe_pac_keys() - do PR_PAC_GET/SET_ENABLED_KEYS work (since 5.13)?
 * @keys:	the enabled keys, filled in (-1 if unknown)
 *
 * The keys are set to what they already are: turning off a key this
 * process signs its return addresses with would crash it.
 *
 * Return: 1 if both prctl calls succeed
 */
static int probe_pac_keys(long *keys)
{
	*keys = prctl(PR_PAC_GET_ENABLED_KEYS, 0, 0, 0, 0);
	if (*keys < 0)
		return 0;
	return prctl(PR_PAC_SET_ENABLED_KEYS, PR_PAC_ALL_KEYS, *keys,
		     0, 0) == 0;
}

/**
 * main() - print every property, then HOST_PROBE_DONE
 *
 * Return: 0
 */
int main(void)
{
	unsigned long hwcap = getauxval(AT_HWCAP);
	unsigned long hwcap2 = getauxval(AT_HWCAP2);
	struct sigaction sa = { .sa_handler = kill_child };
	struct utsname uts;
	long keys;
	int vl;

	setvbuf(stdout, NULL, _IOLBF, 0);
	sigaction(SIGALRM, &sa, NULL);

	if (uname(&uts) == 0) {
		printf("kernel_release=%s\n", uts.release);
		printf("machine=%s\n", uts.machine);
	}
	printf("page_size=%ld\n", sysconf(_SC_PAGESIZE));
	printf("va_bits=%d\n", probe_va_bits());
	yesno("ptrace_sysemu", probe_sysemu());
	yesno("syscall_cancel", probe_syscall_cancel());
	yesno("seccomp_ret_trap", probe_seccomp_trap());
	yesno("pac", hwcap & HWCAP_PACA);
	yesno("pacg", hwcap & HWCAP_PACG);
	yesno("pr_pac_set_enabled_keys", probe_pac_keys(&keys));
	printf("pac_enabled_keys=%ld\n", keys);
	yesno("sve", hwcap & HWCAP_SVE);
	vl = prctl(PR_SVE_GET_VL, 0, 0, 0, 0);
	printf("sve_vl=%d\n", vl < 0 ? 0 : (vl & PR_SVE_VL_LEN_MASK));
	yesno("sve2", hwcap2 & HWCAP2_SVE2);
	yesno("bti", hwcap2 & HWCAP2_BTI);
	yesno("mte", hwcap2 & HWCAP2_MTE);
	printf("at_minsigstksz=%lu\n", getauxval(AT_MINSIGSTKSZ));
	printf("HOST_PROBE_DONE\n");
	return 0;
}
