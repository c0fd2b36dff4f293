// SPDX-License-Identifier: GPL-2.0
/*
 * deny-membarrier - run a command with membarrier() refused, as a host
 * before 4.16 or behind a filter that refuses it would
 *
 * Usage: deny-membarrier COMMAND [ARG...]
 *
 * Installs a seccomp filter that makes membarrier() fail with ENOSYS for
 * the command and everything it starts (UML and its stubs), then runs the
 * command.  The smp group's planted fault for tests/perf/membarrier-census:
 * UML must boot, say that the check failed, and fall back to signalling
 * the stubs, which the census must refuse.  Exit status: the command's, 2
 * when the filter cannot be installed, 127 when the command cannot run.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_membarrier, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | ENOSYS),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (argc < 2) {
		fprintf(stderr, "usage: deny-membarrier COMMAND [ARG...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(__NR_seccomp, SECCOMP_SET_MODE_FILTER, 0, &prog)) {
		perror("deny-membarrier: seccomp");
		return 2;
	}
	execvp(argv[1], argv + 1);
	perror("deny-membarrier: execvp");
	return 127;
}
