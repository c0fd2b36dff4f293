// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * nopacprctl.c - run a command as on a host without PR_PAC_SET_ENABLED_KEYS
 *
 * Usage: nopacprctl COMMAND [ARGS...]
 *
 * Host Linux 5.0 to 5.12 have pointer authentication but not the prctl
 * that turns its keys off; the UML kernel checks for it at boot.  This
 * installs a seccomp filter under which prctl(PR_PAC_SET_ENABLED_KEYS)
 * fails with EINVAL, as it does there, and executes COMMAND under it (the
 * filter is inherited by every process COMMAND starts).  A host-side
 * helper of the arm64 gates, built with the guest programs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_prctl, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, PR_PAC_SET_ENABLED_KEYS, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (argc < 2) {
		fprintf(stderr, "usage: nopacprctl COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("nopacprctl: installing the seccomp filter");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("nopacprctl: exec");
	return 127;
}
