// SPDX-License-Identifier: GPL-2.0
/*
 * pacfork.c - fork() from frames signed with pointer authentication
 *
 * Built with -mbranch-protection=standard, as Debian builds all of its arm64
 * userspace: every non-leaf function signs its return address with PACIASP
 * and checks it with AUTIASP before returning.  A UML guest process that
 * forks continues in a new host process (an execve() of the stub), which the
 * host gives new keys; unless UML keeps the keys out of play, the child's
 * first return through a frame its parent signed fails its check (SIGILL
 * with FEAT_FPAC, a wild branch without).  systemd showed this as
 * "'(sd-gens)' terminated by signal ILL".
 *
 * Usage: pacfork [CHILDREN]
 * Prints PACFORK_OK children=N pac_active=yes|no, or PACFORK_FAIL with how
 * a child ended.  pac_active says whether PACIA1716 changes a pointer in
 * this process: "yes" means the guest runs with live keys.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#ifndef __aarch64__
#error "pacfork checks aarch64 pointer authentication"
#endif

static int pac_active(void)
{
	register unsigned long x17 asm("x17") = 0x0000ffff12345670UL;
	register unsigned long x16 asm("x16") = 42;

	/* PACIA1716 is in the hint space: a no-op without live keys */
	asm volatile ("hint #8" : "+r" (x17) : "r" (x16));
	return x17 != 0x0000ffff12345670UL;
}

/* non-leaf, not inlined: its return address is signed before fork() */
static __attribute__((noinline)) pid_t fork_in_signed_frame(int depth)
{
	pid_t pid;

	if (depth > 0) {
		pid = fork_in_signed_frame(depth - 1);
		/* keep this frame from becoming a tail call */
		asm volatile ("" ::: "memory");
		return pid;
	}
	pid = fork();
	asm volatile ("" ::: "memory");
	return pid;
}

int main(int argc, char **argv)
{
	int children = argc > 1 ? atoi(argv[1]) : 50;
	int i, status;
	pid_t pid;

	setvbuf(stdout, NULL, _IONBF, 0);
	for (i = 0; i < children; i++) {
		pid = fork_in_signed_frame(3);
		if (pid < 0) {
			perror("fork");
			return 1;
		}
		if (pid == 0)
			_exit(0);	/* we got here through four AUTIASPs */
		if (waitpid(pid, &status, 0) != pid) {
			perror("waitpid");
			return 1;
		}
		if (!WIFEXITED(status) || WEXITSTATUS(status)) {
			if (WIFSIGNALED(status))
				printf("PACFORK_FAIL child %d killed by signal %d (%s)\n",
				       i, WTERMSIG(status), strsignal(WTERMSIG(status)));
			else
				printf("PACFORK_FAIL child %d exited %d\n",
				       i, WEXITSTATUS(status));
			return 1;
		}
	}
	printf("PACFORK_OK children=%d pac_active=%s\n", children,
	       pac_active() ? "yes" : "no");
	return 0;
}
