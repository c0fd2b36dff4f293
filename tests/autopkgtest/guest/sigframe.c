// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * sigframe.c - what arm64 does with the pstate of a signal frame
 *
 * A signal handler may change the saved pstate before it returns.  arm64's
 * rt_sigreturn clears the bits that have no EL0 meaning and carries on, and
 * answers a frame that asks for another exception level, AArch32 or any of
 * the D, A, I, F masks with SIGSEGV, which the thread's own SIGSEGV handler
 * may catch.  Under UML the registers go to the host through ptrace, whose
 * valid_user_regs() refuses such a frame; the guest kernel must refuse it
 * first, the same way, instead of failing to install the registers and
 * killing the thread outright.
 *
 * Prints SIGFRAME_OK when a frame with a reserved bit returns normally and
 * frames with D, A, I, F, the AArch32 bit or EL1h end in the process's own
 * SIGSEGV handler; SIGFRAME_FAIL and what happened otherwise.
 */
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <ucontext.h>
#include <unistd.h>

static uint64_t pstate_bits;

/* on SIGUSR1: return through a frame whose pstate has pstate_bits added */
static void usr1(int sig, siginfo_t *si, void *ctx)
{
	ucontext_t *uc = ctx;

	(void)sig;
	(void)si;
	uc->uc_mcontext.pstate |= pstate_bits;
}

/* on SIGSEGV: the frame was refused as arm64 refuses it */
static void segv(int sig)
{
	(void)sig;
	_exit(42);
}

/*
 * try_frame() - in a child, return from a handler with BITS set in pstate;
 * returns the child's wait status
 */
static int try_frame(uint64_t bits)
{
	struct sigaction sa;
	int status;
	pid_t pid;

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_sigaction = usr1;
		sa.sa_flags = SA_SIGINFO;
		sigaction(SIGUSR1, &sa, NULL);
		signal(SIGSEGV, segv);
		pstate_bits = bits;
		raise(SIGUSR1);
		_exit(0);
	}
	if (pid < 0 || waitpid(pid, &status, 0) != pid)
		return -1;
	return status;
}

int main(void)
{
	static const struct { const char *name; uint64_t bits; } refused[] = {
		{ "D", 1 << 9 }, { "A", 1 << 8 }, { "I", 1 << 7 }, { "F", 1 << 6 },
		{ "AArch32", 1 << 4 }, { "EL1h", 5 },
	};
	unsigned int i;
	int status, bad = 0;

	/* bit 5 and bits 27:26 are reserved: cleared, the frame is fine */
	status = try_frame((1 << 5) | (3 << 26));
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		printf("SIGFRAME_FAIL reserved bits: status 0x%x, expected exit 0\n",
		       status);
		bad = 1;
	}
	for (i = 0; i < sizeof(refused) / sizeof(refused[0]); i++) {
		status = try_frame(refused[i].bits);
		if (WIFEXITED(status) && WEXITSTATUS(status) == 42)
			continue;
		printf("SIGFRAME_FAIL %s: status 0x%x, expected the SIGSEGV handler (exit 42)\n",
		       refused[i].name, status);
		bad = 1;
	}
	if (bad)
		return 1;
	printf("SIGFRAME_OK\n");
	return 0;
}
