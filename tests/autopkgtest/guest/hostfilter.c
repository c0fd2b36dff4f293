// SPDX-License-Identifier: GPL-2.0-or-later
/*
 * hostfilter.c - run a command as on a host that lacks something UML uses
 *
 * Usage: hostfilter pac|tsync|notify|filter|userns|membarrier COMMAND [ARGS...]
 *
 * Installs a seccomp filter that makes one host feature fail as it does
 * where the host lacks it, and executes COMMAND under it (the filter is
 * inherited by every process COMMAND starts).  A host-side helper of the
 * arm64 gates, built with the guest programs.
 *
 *   pac    prctl(PR_PAC_SET_ENABLED_KEYS) fails with EINVAL, as on host
 *          Linux 5.0 to 5.12, which have pointer authentication but not the
 *          prctl that turns its keys off (the UML kernel reports it at boot)
 *   tsync  seccomp() with SECCOMP_FILTER_FLAG_TSYNC fails with EINVAL:
 *          UML's SECCOMP-mode probe installs its filter so and fails, while
 *          ptrace mode's stubs install theirs without flags and work
 *          (seccomp=auto must fall back to ptrace, seccomp=on must stop)
 *   notify seccomp() with SECCOMP_FILTER_FLAG_NEW_LISTENER fails with EINVAL,
 *          as on host Linux before 5.0: SECCOMP mode cannot run, ptrace
 *          mode can (umarmctl check warns about "seccomp mode")
 *   filter seccomp(SECCOMP_SET_MODE_FILTER) fails with EINVAL, as on a host
 *          kernel without CONFIG_SECCOMP_FILTER: every stub installs a
 *          filter, so no mode can run (umarmctl check fails "seccomp")
 *   userns unshare() with CLONE_NEWUSER fails with EPERM, as in a chroot or
 *          where user namespaces are off: passt cannot isolate itself, so
 *          network = passt cannot work (umarmctl check warns about
 *          "passt", start and net add refuse and say why)
 *   membarrier
 *          membarrier() fails with ENOSYS, as on a host kernel without
 *          CONFIG_MEMBARRIER: an SMP boot says its check failed and the
 *          stubs are signalled instead (tests/perf/membarrier-census must
 *          refuse that)
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

/*
 * fail_with() - the filter: syscall nr with bits of argument arg (equal to
 * val, or any of them set for BPF_JSET) fails with errno err
 */
static int fail_with(unsigned int nr, unsigned int arg, unsigned int test,
		     unsigned int val, unsigned int err)
{
	struct sock_filter filter[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS,
			 offsetof(struct seccomp_data, args[0]) + 8 * arg),
		BPF_JUMP(BPF_JMP | test | BPF_K, val, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = {
		.len = sizeof(filter) / sizeof(filter[0]),
		.filter = filter,
	};

	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0))
		return -1;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog);
}

/* fail_with_einval() - fail_with() EINVAL, as a kernel without the feature */
static int fail_with_einval(unsigned int nr, unsigned int arg,
			    unsigned int test, unsigned int val)
{
	return fail_with(nr, arg, test, val, EINVAL);
}

int main(int argc, char **argv)
{
	int rc;

	if (argc < 3) {
		fprintf(stderr, "usage: hostfilter pac|tsync|notify|filter|userns|membarrier COMMAND [ARGS...]\n");
		return 2;
	}
	if (!strcmp(argv[1], "pac")) {
		rc = fail_with_einval(SYS_prctl, 0, BPF_JEQ, PR_PAC_SET_ENABLED_KEYS);
	} else if (!strcmp(argv[1], "tsync")) {
		rc = fail_with_einval(SYS_seccomp, 1, BPF_JSET,
				      SECCOMP_FILTER_FLAG_TSYNC);
	} else if (!strcmp(argv[1], "notify")) {
		rc = fail_with_einval(SYS_seccomp, 1, BPF_JSET,
				      SECCOMP_FILTER_FLAG_NEW_LISTENER);
	} else if (!strcmp(argv[1], "filter")) {
		rc = fail_with_einval(SYS_seccomp, 0, BPF_JEQ,
				      SECCOMP_SET_MODE_FILTER);
	} else if (!strcmp(argv[1], "userns")) {
		rc = fail_with(SYS_unshare, 0, BPF_JSET, CLONE_NEWUSER, EPERM);
	} else if (!strcmp(argv[1], "membarrier")) {
		/* any command: every value of argument 0 is >= 0 */
		rc = fail_with(SYS_membarrier, 0, BPF_JGE, 0, ENOSYS);
	} else {
		fprintf(stderr, "hostfilter: unknown feature '%s': use pac, tsync, notify, filter, userns or membarrier\n",
			argv[1]);
		return 2;
	}
	if (rc) {
		perror("hostfilter: installing the seccomp filter");
		return 1;
	}
	execvp(argv[2], argv + 2);
	perror("hostfilter: exec");
	return 127;
}
