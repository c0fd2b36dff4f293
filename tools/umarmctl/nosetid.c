// SPDX-License-Identifier: GPL-2.0-or-later
/* umarmctl - manage User-Mode Linux instances
 *
 * nosetid.c - the programs that write host files for the guest (the UML
 * kernel through hostfs, virtiofsd) may not set set-user-ID or
 * set-group-ID bits on them, nor make device nodes
 *
 * A share's files belong to the host account that runs the instance.  A
 * guest that could make one of them set-user-ID (chmod 4755 through
 * hostfs or virtio-fs: the host kernel lets an owner do that) would hand
 * every local user who can reach the share that account's identity by
 * running the file.  The guest decides the modes, the host code only
 * passes them on: a seccomp filter on the host syscalls that take a mode
 * fails those carrying S_ISUID or S_ISGID with EPERM, as a nosuid mount
 * would refuse to honour them.  Device nodes likewise (a nodev mount): an
 * instance run by root could otherwise leave a character device of the
 * host's memory or disks in a shared directory.  Calls whose mode the
 * filter cannot see are not available at all.  The filter is inherited by
 * everything the kernel starts (its stubs install their own on top; the
 * strictest action wins).
 */

#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

#include "nosetid.h"

/* the same numbers on every architecture */
#ifndef SYS_io_uring_setup
#define SYS_io_uring_setup	425	/* Linux 5.1 */
#define SYS_io_uring_enter	426
#define SYS_io_uring_register	427
#endif
#ifndef SYS_openat2
#define SYS_openat2		437	/* Linux 5.6 */
#endif
#ifndef SYS_fchmodat2
#define SYS_fchmodat2		452	/* Linux 6.6 */
#endif
#ifndef __X32_SYSCALL_BIT
#define __X32_SYSCALL_BIT	0x40000000
#endif
#ifndef __O_TMPFILE
#define __O_TMPFILE	0
#endif

/* UML runs on arm64 and x86_64 hosts; umarmctl builds everywhere (Debian's
 * linux-any), where the filter checks the native ABI only
 */
#if defined(__aarch64__)
#define NOSETID_ARCH	AUDIT_ARCH_AARCH64
#elif defined(__x86_64__)
#define NOSETID_ARCH	AUDIT_ARCH_X86_64
#endif

#define SETID_BITS	(S_ISUID | S_ISGID)
#define CREATE_FLAGS	(O_CREAT | __O_TMPFILE)
#define NO_FLAGS	-1
/* the low 32 bits of argument @n: a mode or open flags */
#if __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__
#define ARG_LO(n)	(offsetof(struct seccomp_data, args) + 8 * (n) + 4)
#else
#define ARG_LO(n)	(offsetof(struct seccomp_data, args) + 8 * (n))
#endif
#define NOSETID_MAX	128

/**
 * struct prog - a filter being written
 * @insn:	its instructions
 * @len:	how many are written
 * @overflow:	more were asked for than @insn holds
 */
struct prog {
	struct sock_filter insn[NOSETID_MAX];
	unsigned int len;
	int overflow;
};

/**
 * emit() - append one instruction
 * @p:		filter
 * @code:	BPF opcode
 * @k:		its constant
 * @jt:		instructions to skip if true (jumps)
 * @jf:		instructions to skip if false (jumps)
 */
static void emit(struct prog *p, unsigned short code, unsigned int k,
		 unsigned char jt, unsigned char jf)
{
	struct sock_filter insn = { code, jt, jf, k };

	if (p->len == NOSETID_MAX) {
		p->overflow = 1;
		return;
	}
	p->insn[p->len++] = insn;
}

/**
 * refuse_when() - fail the call with @err when a word of its seccomp_data
 * compares as asked
 * @p:		filter
 * @off:	the word's offset in struct seccomp_data
 * @cmp:	BPF_JEQ or BPF_JGE, against @k
 * @k:		constant
 * @when:	refuse when the comparison holds (1) or when it does not (0)
 * @err:	errno the call fails with
 */
static void refuse_when(struct prog *p, unsigned int off, unsigned short cmp,
			unsigned int k, int when, unsigned int err)
{
	emit(p, BPF_LD | BPF_W | BPF_ABS, off, 0, 0);
	emit(p, BPF_JMP | cmp | BPF_K, k, !when, !!when);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | err, 0, 0);
}

/**
 * refuse_call() - fail syscall @nr with @err whatever its arguments
 * @p:		filter
 * @nr:		host syscall number
 * @err:	errno it fails with
 */
static void refuse_call(struct prog *p, unsigned int nr, unsigned int err)
{
	refuse_when(p, offsetof(struct seccomp_data, nr), BPF_JEQ, nr, 1, err);
}

/**
 * refuse_devices() - fail mknod-like syscall @nr with EPERM when it would
 * make a character or block device
 * @p:		filter
 * @nr:		host syscall number
 * @mode_arg:	which argument holds the mode, file type included
 *
 * FIFOs, sockets and regular files pass; a block of its own, as
 * refuse_setid()'s.
 */
static void refuse_devices(struct prog *p, unsigned int nr, int mode_arg)
{
	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr),
	     0, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, nr, 0, 5);
	emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(mode_arg), 0, 0);
	emit(p, BPF_ALU | BPF_AND | BPF_K, S_IFMT, 0, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, S_IFCHR, 1, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, S_IFBLK, 0, 1);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM, 0, 0);
}

/**
 * refuse_setid() - fail syscall @nr with EPERM when the mode it takes
 * carries a set-ID bit
 * @p:		filter
 * @nr:		host syscall number
 * @mode_arg:	which argument holds the mode
 * @flags_arg:	which argument holds open flags (the mode counts only when
 *		they create a file), or NO_FLAGS
 *
 * A block of its own, ending in the next block when it does not refuse:
 * no jump crosses it, so blocks can be added without counting.
 */
static void refuse_setid(struct prog *p, unsigned int nr, int mode_arg,
			 int flags_arg)
{
	int skip = flags_arg == NO_FLAGS ? 3 : 5;

	emit(p, BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr),
	     0, 0);
	emit(p, BPF_JMP | BPF_JEQ | BPF_K, nr, 0, skip);
	if (flags_arg != NO_FLAGS) {
		emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(flags_arg), 0, 0);
		emit(p, BPF_JMP | BPF_JSET | BPF_K, CREATE_FLAGS, 0, 3);
	}
	emit(p, BPF_LD | BPF_W | BPF_ABS, ARG_LO(mode_arg), 0, 0);
	emit(p, BPF_JMP | BPF_JSET | BPF_K, SETID_BITS, 0, 1);
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ERRNO | EPERM, 0, 0);
}

/**
 * refuse_abis() - fail every call of an ABI other than the native one
 * @p:		filter
 *
 * The numbers the other blocks compare are the native ABI's: x86's
 * int 0x80 (another arch in seccomp_data) numbers its calls differently,
 * and x32 (the native arch, numbers with __X32_SYSCALL_BIT) has a chmod
 * of its own.  Neither program uses them.
 */
static void refuse_abis(struct prog *p)
{
#ifdef NOSETID_ARCH
	refuse_when(p, offsetof(struct seccomp_data, arch), BPF_JEQ,
		    NOSETID_ARCH, 0, ENOSYS);
#endif
#ifdef __x86_64__
	refuse_when(p, offsetof(struct seccomp_data, nr), BPF_JGE,
		    __X32_SYSCALL_BIT, 1, ENOSYS);
#endif
}

/**
 * nosetid_build() - the filter: foreign ABIs, set-ID modes and device
 * nodes refused
 * @p:		filter, written from the start
 *
 * Every host call through which the kernel's hostfs or virtiofsd can pass
 * a mode the guest chose.  mkdir is not here: a set-group-ID directory
 * only passes its group on, and chown(2) clears set-ID bits by itself.
 * openat2() keeps its mode in memory a filter cannot read, and io_uring's
 * opens are not syscalls at all: both fail with ENOSYS, as on a host
 * without them.  Neither program needs them: hostfs then resolves a path
 * one component at a time (its walk_beneath()), virtiofsd uses openat().
 * Ordinary guests never reach these calls; the filter is what holds
 * against guest root with modules, which runs code in the UML process.
 */
static void nosetid_build(struct prog *p)
{
	p->len = 0;
	p->overflow = 0;
	refuse_abis(p);
	refuse_call(p, SYS_openat2, ENOSYS);
	refuse_call(p, SYS_io_uring_setup, ENOSYS);
	refuse_call(p, SYS_io_uring_enter, ENOSYS);
	refuse_call(p, SYS_io_uring_register, ENOSYS);
	refuse_setid(p, SYS_fchmod, 1, NO_FLAGS);
	refuse_setid(p, SYS_fchmodat, 2, NO_FLAGS);
	refuse_setid(p, SYS_fchmodat2, 2, NO_FLAGS);
	refuse_setid(p, SYS_mknodat, 2, NO_FLAGS);
	refuse_devices(p, SYS_mknodat, 2);
	refuse_setid(p, SYS_openat, 3, 2);
#ifdef SYS_chmod
	refuse_setid(p, SYS_chmod, 1, NO_FLAGS);
	refuse_setid(p, SYS_mknod, 1, NO_FLAGS);
	refuse_devices(p, SYS_mknod, 1);
	refuse_setid(p, SYS_creat, 1, NO_FLAGS);
	refuse_setid(p, SYS_open, 2, 1);
#endif
	emit(p, BPF_RET | BPF_K, SECCOMP_RET_ALLOW, 0, 0);
}

/**
 * nosetid_install() - put the filter on this process and what it starts
 *
 * Call in a child between fork() and execve().  PR_SET_NO_NEW_PRIVS is
 * what lets an unprivileged process install a filter; the UML kernel's
 * stubs set it anyway, and neither program runs set-ID helpers.
 *
 * Return: 0, or negative errno
 */
int nosetid_install(void)
{
	struct prog p;
	struct sock_fprog fprog;

	nosetid_build(&p);
	if (p.overflow)
		return -E2BIG;
	fprog.len = p.len;
	fprog.filter = p.insn;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) ||
	    syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, 0, &fprog))
		return -errno;
	return 0;
}

/**
 * nosetid_or_exit() - nosetid_install(), or end the child with a reason
 *
 * For the children that write files for the guest: without the filter
 * they must not run (exit status 125, as for a failed shares_enter()).
 */
void nosetid_or_exit(void)
{
	int rc = nosetid_install();

	if (!rc)
		return;
	dprintf(2, "umarmctl: cannot install the seccomp filter that keeps set-ID bits off shared files: %s\n",
		strerror(-rc));
	_exit(125);
}
