// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * noseccomptsync.c - run a command as on a host where UML cannot use
 * SECCOMP userspace
 *
 * Usage: noseccomptsync COMMAND [ARGS...]
 *
 * UML's SECCOMP mode installs its stubs' filters with
 * SECCOMP_FILTER_FLAG_TSYNC and checks at boot that it can; ptrace mode's
 * stubs install theirs without flags.  This installs a seccomp filter
 * under which seccomp() with TSYNC fails with EINVAL, and executes COMMAND
 * under it (the filter is inherited by every process COMMAND starts): the
 * boot probe then fails, seccomp=auto must fall back to ptrace and say so,
 * and seccomp=on must stop with a message.  A host-side helper of the
 * arm64 gates, built with the guest programs.
 */
#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_seccomp, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[1])),
		BPF_JUMP(BPF_JMP | BPF_JSET | BPF_K, SECCOMP_FILTER_FLAG_TSYNC, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EINVAL),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (argc < 2) {
		fprintf(stderr, "usage: noseccomptsync COMMAND [ARGS...]\n");
		return 2;
	}
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog)) {
		perror("noseccomptsync: installing the seccomp filter");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("noseccomptsync: exec");
	return 127;
}
